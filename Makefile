# The two quick-start commands:
#   make run    installs missing Debian packages, builds, runs `schedk priorities` on the example
#   make test   the same build, then the whole test suite
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
EXAMPLE    ?= datasets/blog-functional.snap
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz

.PHONY: all deps configure build run test bench fuzz compat clean

all: build

deps:
	@.ci/install-deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -G "$(GENERATOR)" -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	$(BUILD)/tools/schedk priorities $(EXAMPLE)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bench/schedk_bench --benchmark_counters_tabular=true

# The libFuzzer fuzzers (tests/fuzz, Clang 16): build, seed, run each for FUZZ_SECONDS.
fuzz:
	@.ci/install-deps fuzz
	tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BUILD)

# The differential suite against a real Grid Engine 8.1.9 cell on this host
# (tests/compat: as root, installs and starts gridengine-* where missing).
compat: build
	tests/compat/run.sh $(BUILD)

clean:
	rm -rf $(BUILD)
