#!/usr/bin/env bash
# Measures schedk beside a live Grid Engine cell (params PROFILE=1): the time
# `schedk import ge` takes to read it, the time its jobs part takes, and
# `schedk schedule` on the import against the cell's own scheduler runs on the
# same jobs (the `schedd run took` lines of the qmaster's messages).
# Usage: bench/ge_cell_bench.sh [BUILD [RUNS]]   (defaults: build, 3)
# Fill the cell first, for example with pending jobs that ask for a global
# consumable of capacity 0 (tests/compat/cell.sh's `block`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
runs=${2:-3}
schedk=$build/tools/schedk
. "$root/tests/compat/cell.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

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
  "$schedk" schedule "$out/cell.snap" | tail -n 1 | sed "s/^/schedk schedule $i: /"
done
echo "the cell's last scheduler runs:"
grep 'PROF: schedd run took' "$CELL_MESSAGES" | tail -n "$runs" | cut -d'|' -f5 | sed 's/^/  /'
grep 'PROF: job dispatching took' "$CELL_MESSAGES" | tail -n 1 | cut -d'|' -f5 | sed 's/^/  /'
