#!/usr/bin/env bash
# replay_bench.sh: whole-trace replay time of every stored SWF trace, with the
# time per scheduling pass, under each policy (reference semantics, requested
# times, the archive filter).
#   bench/replay_bench.sh [SCHEDK_BINARY [POLICIES...]]   (default: build/tools/schedk easy conservative)
# Reads ../shared/datasets/swf; prints one row per (trace, policy). A run that
# takes longer than REPLAY_TIMEOUT seconds (default 900) is reported as such.
# REPLAY_PASSES=kernel replays every pass through the kernel's priority and
# dispatch passes instead of the one-pool engine (simulate --passes).
set -uo pipefail
cd "$(dirname "$0")/.."
schedk=${1:-build/tools/schedk}
shift || true
policies=("$@")
[ ${#policies[@]} -gt 0 ] || policies=(easy conservative)
traces=../shared/datasets/swf
if [ ! -d "$traces" ]; then
  echo "replay_bench: $traces is absent; nothing to replay" >&2
  exit 0
fi
printf '%-36s %-13s %8s %9s %10s %9s %10s\n' trace policy jobs passes seconds us/pass mean_bsld
for trace in "$traces"/*.swf.gz; do
  for policy in "${policies[@]}"; do
    json=$(timeout "${REPLAY_TIMEOUT:-900}" "$schedk" simulate "$trace" --filter pwa --policy "$policy" \
           --passes "${REPLAY_PASSES:-auto}" --summary-format json 2>/dev/null) || { printf '%-36s %-13s %s\n' "$(basename "$trace")" "$policy" \
           "did not finish within ${REPLAY_TIMEOUT:-900} s"; continue; }
    python3 - "$(basename "$trace")" "$policy" "$json" <<'PY'
import json, sys
name, policy, d = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
per_pass = d["sched_seconds"] / max(1, d["passes"]) * 1e6
print("%-36s %-13s %8d %9d %10.3f %9.2f %10.3f" % (name, policy, d["jobs"], d["passes"], d["sched_seconds"], per_pass, d["mean_bsld"]))
PY
  done
done
