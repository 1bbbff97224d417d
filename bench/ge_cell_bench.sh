#!/usr/bin/env bash
# Measures schedk beside a live Grid Engine cell (params PROFILE=1): the time
# `schedk import ge` takes to read it, the time its jobs part takes, and
# `schedk schedule` on the import against the cell's own scheduler runs on the
# same jobs (the `schedd run took` lines of the qmaster's messages).
# Usage: bench/ge_cell_bench.sh [BUILD [RUNS [JOBS]]]   (defaults: build, 3, none)
# With JOBS, the cell's jobs are deleted and JOBS pending jobs are submitted
# first, a quarter by each test user, through DRMAA (bench/ge_fill.py; the
# packages python3-drmaa and gridengine-drmaa1.0 are installed where missing);
# they ask for tests/compat/cell.sh's `block` consumable, of capacity 0.
# Without JOBS, the cell is measured as it is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
jobs=${3:-}
schedk=$build/tools/schedk
. "$root/tests/compat/cell.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

fill() {
  local per=$(($1 / 4)) u
  dpkg-query -W -f='${Status}' python3-drmaa gridengine-drmaa1.0 2>/dev/null | grep -c 'install ok installed' | grep -qx 2 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-drmaa gridengine-drmaa1.0 >&2
  qdel -u '*' '*' >/dev/null 2>&1 || true
  sleep 2
  # libdrmaa's jemalloc needs to be loaded first (static TLS).
  for u in $CELL_USERS; do
    su "$u" -c "cd /tmp && LD_PRELOAD=/lib/x86_64-linux-gnu/libjemalloc.so.2 \
      DRMAA_LIBRARY_PATH=/usr/lib/gridengine-drmaa/lib/libdrmaa.so.1.0 SGE_ROOT=$SGE_ROOT SGE_CELL=$SGE_CELL \
      python3 $root/bench/ge_fill.py $per" &
  done
  wait
  # Two scheduler runs that saw every job.
  local seen
  seen=$(grep -c 'PROF: schedd run took' "$CELL_MESSAGES" || true)
  until [ "$(grep -c 'PROF: schedd run took' "$CELL_MESSAGES" || true)" -ge $((seen + 2)) ]; do sleep 1; done
}
[ -z "$jobs" ] || fill "$jobs"

echo "pending jobs: $(qstat -u '*' -s p 2>/dev/null | tail -n +3 | wc -l), running: $(qstat -u '*' -s r 2>/dev/null | tail -n +3 | wc -l)"
for i in $(seq "$runs"); do
  start=$(date +%s%N)
  "$schedk" import ge --save "$out/capture" -o "$out/cell.snap" 2>/dev/null
  end=$(date +%s%N)
  jobs_start=$(date +%s%N)
  qstat -j '*' -xml > /dev/null
  qstat -u '*' -g t -xml > /dev/null
  jobs_end=$(date +%s%N)
  awk -v i="$i" -v all=$((end - start)) -v jobs=$((jobs_end - jobs_start)) -v bytes="$(wc -c < "$out/cell.snap")" \
    'BEGIN {printf "import %d: %.2f s (the two job views alone: %.2f s), %d bytes\n", i, all / 1e9, jobs / 1e9, bytes}'
done
for i in $(seq "$runs"); do
  start=$(date +%s%N)
  last=$("$schedk" schedule "$out/cell.snap" | tail -n 1)
  end=$(date +%s%N)
  awk -v i="$i" -v wall=$((end - start)) -v last="$last" 'BEGIN {printf "schedk schedule %d: %s, whole command %.3f s\n", i, last, wall / 1e9}'
done
echo "the cell's last scheduler runs:"
grep 'PROF: schedd run took' "$CELL_MESSAGES" | tail -n "$runs" | cut -d'|' -f5 | sed 's/^/  /'
grep 'PROF: job dispatching took' "$CELL_MESSAGES" | tail -n 1 | cut -d'|' -f5 | sed 's/^/  /'
