#!/bin/bash
# scaling_host.sh: the goal intervals and the priority pass at 1 to 16 threads,
# on a host that has none of schedk's packages (docs/performance.md, "Scaling
# to more cores").
#   scaling_host.sh pack DIR NEW [OLD]   here: NEW (and OLD, to compare) schedk
#                                         binaries, every library ldd lists and
#                                         the loader, and this script, into DIR
#   DIR/scaling_host.sh run               there: generates the snapshots, then
#                                         prints one line per run (and appends
#                                         it to $OUT/results.txt where OUT is set)
# Sizes: JOBS (1000000) and HOSTS (10000); THREADS ("16 2 1 4 8").
set -uo pipefail

pack() {
  local dir=$1 new=$2 old=${3:-}
  mkdir -p "$dir/lib" || return 1
  cp "$new" "$dir/schedk-new" || return 1
  if [ -n "$old" ]; then cp "$old" "$dir/schedk-old" || return 1; fi
  local libs
  libs=$(ldd "$new" ${old:+"$old"} | sort -u) || { echo "ldd failed" >&2; return 1; }
  if grep -q 'not found' <<< "$libs"; then
    echo "missing libraries:" >&2
    grep 'not found' <<< "$libs" >&2
    return 1
  fi
  awk '/=>/ && $3 ~ /^\// { print $3 } $1 ~ /^\/.*ld-linux/ { print $1 }' <<< "$libs" | sort -u |
    while read -r lib; do cp -L "$lib" "$dir/lib/" || exit 1; done || return 1
  cp "$0" "$dir/scaling_host.sh"
}

run() {
  local log=/dev/null
  if [ -n "${OUT:-}" ]; then log=$(cd "$OUT" && pwd)/results.txt; fi
  cd "$(dirname "$0")" || return 1
  local ld
  ld=$(ls lib/ld-linux* 2> /dev/null | head -1)
  [ -n "$ld" ] || { echo "no loader in $(pwd)/lib: pack first" >&2; return 1; }
  local loader=("./$ld" --library-path ./lib)
  local snaps bins=(new)
  snaps=$(mktemp -d) || return 1  # under TMPDIR where set
  local size=(--jobs "${JOBS:-1000000}" --hosts "${HOSTS:-10000}" --seed 42 --users 1000 --projects 50
              --max-reservation 1000)
  [ -x schedk-old ] && bins=(old new)
  echo "host: $(nproc) cores,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" | tee -a "$log"
  "${loader[@]}" ./schedk-new generate "${size[@]}" > "$snaps/goal.snap" &&
    "${loader[@]}" ./schedk-new generate "${size[@]}" --quota-sets 5 > "$snaps/goalq.snap" ||
    { echo "generate failed" >&2; return 1; }
  for t in ${THREADS:-16 2 1 4 8}; do
    for snap in goal goalq; do
      for bin in "${bins[@]}"; do
        "${loader[@]}" "./schedk-$bin" schedule --profile --threads "$t" "$snaps/$snap.snap" 2>&1 > /dev/null |
          awk -v what="$snap $bin threads=$t" '/^profile: / {
              ms = $(NF - 1); sub(/^profile: /, ""); sub(/ +[0-9.]+ ms$/, "")
              if ($0 == "interval: dispatch loop") loop = ms
              if ($0 ~ /^(priorities|interval|queue instances)/) total += ms
            } END { if (total == "") print what, "failed"
                    else printf "%s in-process %.0f ms, dispatch loop %.0f ms\n", what, total, loop }' |
          tee -a "$log"
      done
    done
    local begin end
    begin=$(date +%s%N)
    if "${loader[@]}" ./schedk-new priorities --format jsonl --threads "$t" "$snaps/goal.snap" > /dev/null; then
      end=$(date +%s%N)
      echo "priorities jsonl new threads=$t whole process $(((end - begin) / 1000000)) ms" | tee -a "$log"
    else
      echo "priorities jsonl new threads=$t failed" | tee -a "$log"
    fi
  done
  rm -rf "$snaps"
}

case ${1:-} in
  pack) shift; pack "$@" ;;
  run) run ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
esac
