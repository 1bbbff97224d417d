#!/usr/bin/env bash
# The differential suite (make compat): each scenario of tests/compat/scenarios
# runs on a real Grid Engine 8.1.9 cell on this host (cell.sh installs and
# starts it), is imported with `schedk import ge`, and schedk's answer is
# compared with the cell's own (compare.py):
#   priorities  every column qstat -xml -pri -urg -ext prints, to its digit;
#   dispatch    the jobs are submitted with every queue disabled and imported;
#               then the queues are enabled and the cell's next scheduler run
#               decides. schedk schedules the import, queues open, at that
#               run's dispatch time (its STARTING lines'): its MONITOR lines
#               must be the cell's, line by line, in order (starts,
#               reservations, running jobs), and its starts the jobs the cell
#               started, in the same queue instances (a second import, after
#               the run, says which);
#   shadow      `schedk shadow` for three runs (scenario_rounds): no request of
#               its feed refused, no digest drift, every decision agreed.
# Each scenario's files (captures, snapshot, outputs, its log) stay in
# OUT/<scenario>; the logs of those that differ are repeated at the end.
# Exits 1 when any scenario differs or cannot run; never passes by skipping.
#
# Usage: tests/compat/run.sh [BUILD [SCENARIO...]]   (default build, all scenarios)
# A SCENARIO is a name in scenarios/ or the path of a scenario file (such as
# one written to show a difference).
set -Eeuo pipefail
on_error() { trap 'echo "compat: failed: $BASH_COMMAND (line $LINENO)" >&2' ERR; }
on_error
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
case "$build" in /*) ;; *) build=$root/$build ;; esac
schedk=$build/tools/schedk
out=$build/compat
[ -x "$schedk" ] || { echo "compat: $schedk is not built (run make first)" >&2; exit 1; }
. "$root/tests/compat/cell.sh"

echo "compat: starting the Grid Engine cell (installs gridengine-* where missing)"
cell_start
mkdir -p "$out"

# Imports the cell into $1/snapshot (captures in $1/capture), with qstat's
# priority view of the same scheduler run in $1/qstat.xml: the importer reads
# the jobs between two runs and sets `now` to the clock of the first one,
# which is still the last after qstat.
capture() {
  local dir=$1 attempt
  for attempt in 1 2 3 4 5; do
    rm -rf "$dir/capture"
    "$schedk" import ge --save "$dir/capture" -o "$dir/snapshot" 2> "$dir/import.log" ||
      { cat "$dir/import.log" >&2; return 1; }
    qstat -u '*' -g d -xml -pri -urg -ext > "$dir/qstat.xml"
    [ "$(last_run_clock)" = "$(sed -n 's/^now //p' "$dir/snapshot")" ] && return 0
  done
  echo "compat: the scheduler ran during every capture" >&2
  return 1
}

# Priorities under both share-tree pending rules (sched_conf params
# SHARE_TREE_PENDING): 6.2's, schedk's default, and 8.1.9's, the cell's. Both
# must agree with qstat unless the scenario sets scenario_rule=8.1: then only
# 8.1.9's must, and 6.2's differences are shown as expected.
run_priorities() {
  local dir=$1 differ=0
  wait_runs 2  # a run that has seen the jobs (qstat shows 0 before), and one after the starts
  capture "$dir" || return 1
  sed -E -e 's/^(params[[:space:]]+)NONE[[:space:]]*$/\1SHARE_TREE_PENDING=8.1/' \
    -e '/SHARE_TREE_PENDING/!s/^(params[[:space:]]+.*[^[:space:]])[[:space:]]*$/\1,SHARE_TREE_PENDING=8.1/' \
    "$dir/snapshot" > "$dir/snapshot.8.1"
  "$schedk" priorities --format jsonl "$dir/snapshot" > "$dir/schedk.jsonl" 2> "$dir/schedk.log" || return 1
  "$schedk" priorities --format jsonl "$dir/snapshot.8.1" > "$dir/schedk.8.1.jsonl" 2>> "$dir/schedk.log" || return 1
  echo "  SHARE_TREE_PENDING=8.1:"
  python3 "$root/tests/compat/compare.py" priorities "$dir/qstat.xml" "$dir/schedk.8.1.jsonl" || differ=1
  echo "  SHARE_TREE_PENDING=6.2 (the default):"
  if [ "${scenario_rule:-}" = 8.1 ]; then
    ! python3 "$root/tests/compat/compare.py" priorities "$dir/qstat.xml" "$dir/schedk.jsonl" > "$dir/rule-6.2.diff" ||
      { echo "  agrees, but the scenario was written to tell the rules apart"; differ=1; }
    echo "  differs, as expected: $(tail -n 1 "$dir/rule-6.2.diff")"
  else
    python3 "$root/tests/compat/compare.py" priorities "$dir/qstat.xml" "$dir/schedk.jsonl" || differ=1
  fi
  return $differ
}

run_dispatch() {
  local dir=$1 sections at
  qmod -d '*' >/dev/null
  scenario_submit
  capture "$dir" || return 1
  # Open the queues just after a run has written its MONITOR section; the
  # next run decides, and its section is the one after.
  wait_runs 1
  sections=$(grep -c '^::::::::' "$CELL_SCHEDULE" || true)
  qmod -e '*' >/dev/null
  wait_runs 1
  awk -v n=$((sections + 1)) '/^::::::::/ {k++} k == n' "$CELL_SCHEDULE" > "$dir/cell.monitor"
  # The run's dispatch clock: its STARTING lines' time, else its end.
  at=$(awk -F: '$3 == "STARTING" {print $4; exit}' "$dir/cell.monitor")
  [ -n "$at" ] || at=$(last_run)
  grep -v '^states ' "$dir/snapshot" | sed "s/^now .*/now $at/" > "$dir/snapshot.open"
  rm -f "$dir/schedk.monitor"
  "$schedk" schedule --monitor "$dir/schedk.monitor" "$dir/snapshot.open" > "$dir/schedk.schedule" 2> "$dir/schedk.log" ||
    return 1
  # What the cell started in that run, from a second import.
  "$schedk" import ge --now "$at" -o "$dir/snapshot.after" 2> "$dir/import.after.log" ||
    { cat "$dir/import.after.log" >&2; return 1; }
  local differ=0
  python3 "$root/tests/compat/compare.py" monitor "$dir/cell.monitor" "$dir/schedk.monitor" || differ=1
  python3 "$root/tests/compat/compare.py" starts "$dir/snapshot.after" "$dir/schedk.schedule" "$at" || differ=1
  return $differ
}

# schedk shadow beside the cell for a few runs: every request of the feed
# accepted, the digests equal, and every decision of every run agreed.
run_shadow() {
  local dir=$1
  scenario_submit
  "$schedk" shadow --rounds "${scenario_rounds:-3}" --digest-every 1 --keep "$dir/rounds" > "$dir/shadow.out" 2>&1 ||
    { cat "$dir/shadow.out"; return 1; }
  sed 's/^/  /' "$dir/shadow.out"
  tail -n 1 "$dir/shadow.out" | grep -q 'so far 100.0%'
}

scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
  for f in "$root"/tests/compat/scenarios/*.sh; do scenarios+=("$(basename "$f" .sh)"); done
fi
# One scenario, run in a subshell (a cell_fail ends it, not the suite):
# exits 1 where it differs or cannot run.
run_scenario() {
  local file=$1 dir=$2
  unset -f scenario_configure scenario_submit
  scenario_kind=priorities scenario_rule= scenario_rounds=
  . "$file"
  cell_reset
  scenario_configure
  case $scenario_kind in
    priorities) scenario_submit && run_priorities "$dir" || exit 1 ;;
    dispatch) run_dispatch "$dir" || exit 1 ;;
    shadow) run_shadow "$dir" || exit 1 ;;
  esac
}

failed=()
for name in "${scenarios[@]}"; do
  file=$root/tests/compat/scenarios/$name.sh
  case $name in */*.sh) file=$name name=$(basename "$name" .sh) ;; esac
  [ -f "$file" ] || { echo "compat: no scenario $name" >&2; failed+=("$name"); continue; }
  dir=$out/$name
  rm -rf "$dir" && mkdir -p "$dir"
  echo "compat: $name"
  # Its output goes to $dir/log; errexit and the ERR trap hold inside, and
  # its failure is a result here, not an error.
  set +e
  trap - ERR
  (set -e; on_error; run_scenario "$file" "$dir") > "$dir/log" 2>&1
  status=$?
  on_error
  set -e
  cat "$dir/log"
  [ $status -eq 0 ] || failed+=("$name")
done
cell_reset
# What differed, again at the end, where a CI log's tail shows it.
for name in "${failed[@]}"; do
  [ -f "$out/$name/log" ] || continue
  echo "compat: $name differs; the end of its output:"
  tail -n 20 "$out/$name/log"
done
echo "compat: ${#scenarios[@]} scenarios, ${#failed[@]} differ${failed[*]:+: ${failed[*]}} (files in $out)"
[ ${#failed[@]} -eq 0 ]
