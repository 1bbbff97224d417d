#!/usr/bin/env bash
# priority_goal.sh: the priority pass's goal for 1M pending jobs on 2 threads
# (at most 2x std::sort of 1M 64-bit keys, at most 200 bytes per pending job),
# measured as many times as asked, because one run proves little on a host
# whose speed swings by a third from minute to minute.
#   bench/priority_goal.sh [RUNS [STRESS_RUNS]]   (defaults: 10 and 6)
# Each run is one process of build/bench/schedk_bench that times the pass with
# pages kept (retain:1) and the sort, five repetitions each, and reports their
# medians; then build/bench/priority_stress measures the peak memory per job,
# one pass per process, with pages kept and with jemalloc's decay. Prints every
# run and a summary: the ratio's median and range and how many runs exceed 2x,
# and the memory's range and how many runs exceed 200 B/job.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
stress_runs=${2:-6}
for count in "$runs" "$stress_runs"; do
  if ! [[ "$count" =~ ^[0-9]+$ ]]; then
    echo "priority_goal: '$count' is not a number of runs; usage: bench/priority_goal.sh [RUNS [STRESS_RUNS]]" >&2
    exit 2
  fi
done
bench=build/bench/schedk_bench
stress=build/bench/priority_stress
for binary in "$bench" "$stress"; do
  if [ ! -x "$binary" ]; then
    echo "priority_goal: $binary is missing; build first (make test or cmake --build build)" >&2
    exit 1
  fi
done
filter='BM_PriorityPass/jobs:1000000/threads:2/retain:1/|BM_SortBaseline/keys:1000000/'
results=$(mktemp)
trap 'rm -f "$results"' EXIT
printf '%-9s %9s %9s %7s\n' time pass_ms sort_ms ratio
for _ in $(seq "$runs"); do
  medians=$("$bench" --benchmark_filter="$filter" --benchmark_repetitions=5 --benchmark_min_time=0.5 \
            --benchmark_report_aggregates_only=true 2>/dev/null |
            awk '/_median/ && /BM_PriorityPass/ {pass = $2} /_median/ && /BM_SortBaseline/ {sort = $2}
                 END {if (pass != "" && sort != "") print pass, sort}')
  if [ -z "$medians" ]; then
    echo "priority_goal: $bench printed no medians" >&2
    exit 1
  fi
  read -r pass sort <<<"$medians"
  echo "time $pass $sort" >>"$results"
  printf '%-9s %9s %9s %7.3f\n' "$(date -u +%H:%M:%S)" "$pass" "$sort" "$(awk -v p="$pass" -v s="$sort" 'BEGIN {print p / s}')"
done
printf '\n%-9s %9s %9s\n' retain pass_s B/job
for retain in 1 0; do
  for _ in $(seq "$stress_runs"); do
    line=$("$stress" 1000000 2 200 0 "$retain") || { echo "priority_goal: $stress failed" >&2; exit 1; }
    read -r seconds peak <<<"$(echo "$line" | awk '{print $8, $(NF-1)}')"
    echo "memory $retain $peak" >>"$results"
    printf '%-9s %9s %9s\n' "$retain" "$seconds" "$peak"
  done
done
python3 - "$results" <<'PY'
import statistics, sys
ratios, memory = [], {"1": [], "0": []}
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "time":
        ratios.append(float(f[1]) / float(f[2]))
    else:
        memory[f[1]].append(float(f[2]))
print()
if ratios:
    print("pass / sort over %d runs: median %.2f, %.2f-%.2f, %d above 2.0"
          % (len(ratios), statistics.median(ratios), min(ratios), max(ratios), sum(r > 2 for r in ratios)))
for retain, name in (("1", "pages kept"), ("0", "decay")):
    m = memory[retain]
    if m:
        print("peak B/job, %s, %d runs: %.1f-%.1f, %d above 200" % (name, len(m), min(m), max(m), sum(x > 200 for x in m)))
PY
