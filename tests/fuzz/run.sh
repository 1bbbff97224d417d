#!/usr/bin/env bash
# Builds the fuzzers (Clang 16, AddressSanitizer + UBSan, libFuzzer) in BUILD
# (fuzz_snapshot, fuzz_session, fuzz_job_line, fuzz_swf, fuzz_ge_import),
# assembles their seed corpora (seed_corpus.sh) and runs each for SECONDS,
# two at a time, with its dictionary and -max_len. Inputs that crash, hang,
# leak or fail a property go to BUILD/findings/<fuzzer>/; the corpora grow in
# BUILD/corpus/<fuzzer>/ from run to run. Prints per fuzzer the executions,
# the coverage (cov: and ft: of libFuzzer's last stats line) and the number
# of findings; exits non-zero when any fuzzer found something.
#
# Usage: tests/fuzz/run.sh [SECONDS [BUILD]]      (defaults: 60, build-fuzz)
# Environment: FUZZ_JOBS (build parallelism, default 2), FUZZ_PARALLEL
# (fuzzers at once, default 2), FUZZ_FORK=1 (keep going after a finding:
# -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1), FUZZ_MERGE=1
# (minimise each corpus before its run: a grown corpus takes long to load),
# CC/CXX (default clang-16/clang++-16), FUZZ_NO_BUILD=1 (use BUILD as is),
# FUZZ_IGNORE="name,..." (skip the properties whose name contains one: a known,
# unfixed class; see fuzz_checks.hpp), FUZZ_UNIT_TESTS=1 (also build the
# GoogleTest suite in BUILD and run it under the same sanitizers first, less
# the whole-trace replays: CI's one sanitizer build for both).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-60}
build=${2:-build-fuzz}
case "$build" in /*) ;; *) build=$root/$build ;; esac
jobs=${FUZZ_JOBS:-2}
parallel=${FUZZ_PARALLEL:-2}
unit_tests=$([ "${FUZZ_UNIT_TESTS:-0}" = 1 ] && echo ON || echo OFF)
fuzzers=(fuzz_snapshot fuzz_session fuzz_job_line fuzz_swf fuzz_ge_import)
declare -A max_len=([fuzz_snapshot]=65536 [fuzz_session]=65536 [fuzz_job_line]=8192 [fuzz_swf]=32768
                   [fuzz_ge_import]=65536)
# A session input touches ~10,000 features; libFuzzer's entropic bookkeeping
# then halves the execution rate.
declare -A options=([fuzz_session]="-entropic=0")

if [ "${FUZZ_NO_BUILD:-0}" != 1 ]; then
  generator=$(command -v ninja >/dev/null 2>&1 && echo Ninja || echo "Unix Makefiles")
  # RelWithDebInfo without NDEBUG: the kernel's assertions stay on.
  CC=${CC:-clang-16} CXX=${CXX:-clang++-16} \
    cmake -S "$root" -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DSCHEDK_SANITIZE=address,undefined \
      -DSCHEDK_USE_JEMALLOC=OFF -DSCHEDK_BUILD_TESTS="$unit_tests" -DSCHEDK_BUILD_BENCH=OFF \
      -DSCHEDK_BUILD_FUZZERS=ON >/dev/null
  targets=(fuzzers schedk)
  [ "$unit_tests" = ON ] && targets+=(schedk_tests)
  nice -n 10 cmake --build "$build" -j "$jobs" --target "${targets[@]}"
fi
"$root/tests/fuzz/seed_corpus.sh" "$build"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  for s in llvm-symbolizer-16 llvm-symbolizer; do
    if command -v "$s" >/dev/null 2>&1; then export ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break; fi
  done
fi
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
if [ "$unit_tests" = ON ]; then
  ctest --test-dir "$build" --output-on-failure -j "$jobs" \
    -E SimulationDatasetTest
fi
stamp=$build/findings/.stamp
mkdir -p "$build/findings" "$build/logs"
touch "$stamp"

run_one() {
  local f=$1 extra=()
  mkdir -p "$build/findings/$f" "$build/corpus/$f"
  if [ "${FUZZ_FORK:-0}" = 1 ]; then extra=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
  read -r -a more <<< "${options[$f]:-}"
  extra+=("${more[@]}")
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then  # minimise a grown corpus first (loading it is part of SECONDS)
    rm -rf "$build/corpus/$f.merged" && mkdir -p "$build/corpus/$f.merged"
    "$build/tests/fuzz/$f" -merge=1 -max_len="${max_len[$f]}" "${more[@]}" "$build/corpus/$f.merged" "$build/corpus/$f" \
      > "$build/logs/$f.merge.log" 2>&1 &&
      rm -rf "$build/corpus/$f" && mv "$build/corpus/$f.merged" "$build/corpus/$f"
  fi
  "$build/tests/fuzz/$f" -dict="$root/tests/fuzz/$f.dict" -max_len="${max_len[$f]}" -max_total_time="$seconds" \
    -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/findings/$f/" "${extra[@]}" \
    "$build/corpus/$f" > "$build/logs/$f.log" 2>&1 && echo 0 > "$build/logs/$f.rc" || echo $? > "$build/logs/$f.rc"
}

for f in "${fuzzers[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  echo "fuzzing $f for ${seconds}s (log: $build/logs/$f.log)"
  rm -f "$build/logs/$f.rc"
  run_one "$f" &
done
wait

failed=0
printf '%-14s %12s %8s %8s %9s %s\n' fuzzer executions cov ft findings exit
for f in "${fuzzers[@]}"; do
  log=$build/logs/$f.log
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
  last=$(grep -E '^#[0-9]+' "$log" | grep ' cov: ' | tail -n 1 || true)
  [ -n "$execs" ] || execs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<< "$last")
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<< "$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<< "$last")
  rc=$(cat "$build/logs/$f.rc" 2>/dev/null || echo '?')
  findings=$(find "$build/findings/$f" -type f -newer "$stamp" | wc -l)
  printf '%-14s %12s %8s %8s %9s %s\n' "$f" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$findings" "$rc"
  if [ "$findings" -gt 0 ] || [ "$rc" != 0 ]; then
    failed=1
    # What each new finding is: its first report line, from running it again.
    find "$build/findings/$f" -type f -newer "$stamp" | head -n 5 | while read -r finding; do
      echo "    reproducer: $finding"
      timeout 120 "$build/tests/fuzz/$f" -timeout=25 -rss_limit_mb=2048 "$finding" 2>&1 |
        grep -E -m1 -A3 '==FUZZ PROPERTY FAILED==|^SUMMARY: [A-Za-z]+Sanitizer|ERROR: libFuzzer|Assertion .* failed|runtime error:' |
        cut -c1-240 | sed 's/^/      /' || true
      # The input itself, where a CI log is all there is: gzip | base64, when short.
      packed=$(gzip -9 -n -c "$finding" | base64 -w 0)
      if [ "${#packed}" -le 12000 ]; then echo "      gzip|base64: $packed"; fi
    done
  fi
done
exit "$failed"
