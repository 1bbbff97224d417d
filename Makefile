# The two quick-start commands:
#   make run    installs missing Debian packages, builds, runs `schedk priorities` on the example
#   make test   the same build, then the whole test suite
BUILD      ?= build
BUILD_TYPE ?= Release
JOBS       ?= $(shell nproc)
GENERATOR  := $(shell command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
EXAMPLE    ?= datasets/blog-functional.snap

.PHONY: all deps configure build run test bench clean

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

clean:
	rm -rf $(BUILD)
