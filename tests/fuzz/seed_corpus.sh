#!/usr/bin/env bash
# Assembles the fuzzers' seed corpora from the repository:
#   BUILD/corpus/fuzz_snapshot  datasets/*.snap, the snapshot bodies of the
#                               serve transcripts (tests/io/serve/*.in), and a
#                               few generated snapshots when BUILD/tools/schedk exists
#   BUILD/corpus/fuzz_job_line  every job record of those, as job lines (selector
#                               '0') and on the fixed cluster ('3'); their l_hard
#                               values as string expressions ('1') and values ('2')
#   BUILD/corpus/fuzz_session   the serve transcripts as they are
#   BUILD/corpus/fuzz_swf       datasets/*.swf cut to 40 jobs under several option bytes
#   BUILD/corpus/fuzz_ge_import each file of the captures tests/io/ge_capture/{urgency,
#                               dispatch-pe,share-tree,array-limits} that the selector can replace, after
#                               the selector byte that replaces it in its own capture
# Files are named by their content's SHA-1, so running it again adds nothing
# twice and keeps what the fuzzers added. Usage: seed_corpus.sh [BUILD]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-fuzz}
corpus=$build/corpus
mkdir -p "$corpus"/{fuzz_snapshot,fuzz_job_line,fuzz_session,fuzz_swf,fuzz_ge_import}

# put DIR < content: stores stdin under its hash.
put() {
  local tmp
  tmp=$(mktemp)
  cat > "$tmp"
  if [ -s "$tmp" ]; then
    mv "$tmp" "$1/$(sha1sum "$tmp" | cut -c1-40)"
  else
    rm -f "$tmp"
  fi
}

snapshots=()
for f in "$root"/datasets/*.snap; do snapshots+=("$f"); done

# Snapshots: the datasets and the transcripts' snapshot bodies.
for f in "${snapshots[@]}"; do put "$corpus/fuzz_snapshot" < "$f"; done
bodies=$(mktemp -d)
for f in "$root"/tests/io/serve/*.in; do
  awk -v out="$bodies/$(basename "$f")" \
      '/^[^ ]+ snapshot$/ {on=1; n++; next} /^end snapshot$/ {on=0; next} on {print > (out "." n)}' "$f"
done
for f in "$bodies"/*; do [ -e "$f" ] && put "$corpus/fuzz_snapshot" < "$f"; done
if [ -x "$build/tools/schedk" ]; then
  for seed in 1 2 3; do
    ASAN_OPTIONS=detect_leaks=0 "$build/tools/schedk" generate --jobs $((20 * seed)) --hosts $((seed + 1)) --seed "$seed" \
      2>/dev/null | put "$corpus/fuzz_snapshot" || true
  done
fi

# Job lines: from the snapshots, the bodies and the transcripts' `add job` requests.
lines=$(mktemp)
{
  cat "${snapshots[@]}" "$bodies"/* 2>/dev/null | grep -E '^job ' || true
  cat "$root"/tests/io/serve/*.in | sed -nE 's/^[^ ]+ add (job .*)$/\1/p'
} | sort -u > "$lines"
while IFS= read -r line; do
  printf '0%s\n' "$line" | put "$corpus/fuzz_job_line"
  printf '3%s\n' "$line" | put "$corpus/fuzz_job_line"
  # The l_hard list: each value as an expression and as a Grid Engine value.
  hard=$(printf '%s\n' "$line" | sed -nE 's/.*l_hard=([^ ]*).*/\1/p')
  for request in ${hard//,/ }; do
    printf '1%s\nlx-amd64\n' "${request#*=}" | put "$corpus/fuzz_job_line"
    printf '2%s\n' "${request#*=}" | put "$corpus/fuzz_job_line"
  done
done < "$lines"
# Records that load on the fixed cluster of fuzz_job_line.cpp.
printf '3job 1 owner=alice project=astro R=y pe_name=mpi pe_min=2 pe_max=4 q_hard=all.q@@nodes l_hard=h_rt=1:0:0,s_rt=600,h_vmem=1G,lic=2,scr=5,gx=true,arch=lx*,col=red\njob 2.1-9:2 owner=bob l_soft=cpu=1 hold_jid=1\n' |
  put "$corpus/fuzz_job_line"
printf '3job 3 owner=carol state=r start=999000 granted=all.q@n1:1 l_hard=h_vmem=2G\n' | put "$corpus/fuzz_job_line"
for v in 'lx*&!*86' '(lx*|sol*)&!*64' 'lx2[4|6]-x86' '!(a|b)' '*' 'plain'; do
  printf '1%s\nlx-amd64\nlx24-x86\n' "$v" | put "$corpus/fuzz_job_line"
done
for v in 1e309 -1 2026-02-30 2026-11-20T12:00:00Z 0x1F 4G 1:0:0 INFINITY TRUE 18446744073709551616; do
  printf '2%s\n' "$v" | put "$corpus/fuzz_job_line"
done
rm -f "$lines"

# Session transcripts.
for f in "$root"/tests/io/serve/*.in; do put "$corpus/fuzz_session" < "$f"; done
rm -rf "$bodies"

# SWF traces, cut to the header and 40 jobs, under several option bytes
# (bits: 0-1 policy, 2 native, 3 interval, 4 lenient, 5 pwa filter, 6 runtime estimates).
for f in "$root"/datasets/*.swf; do
  short=$(mktemp)
  awk '/^;/ {print; next} n < 40 {print; n++}' "$f" > "$short"
  for option in 00 01 02 05 0d 21 41 13; do
    { printf "\\x$option"; cat "$short"; } | put "$corpus/fuzz_swf"
  done
  { printf '\x01'; gzip -c < "$short"; } | put "$corpus/fuzz_swf"
  rm -f "$short"
done

# Grid Engine captures: selector = slot + 11 * base, with the slots of
# kSlots in fuzz_ge_import.cpp (same order) and base 0 urgency, 1 dispatch-pe, 2 share-tree,
# 3 array-limits (selectors up to 43, under 4 * 11 * 2).
ge_slots=('qstat_-j_%2A_-xml' 'qstat_-u_%2A_-g_t_-xml' 'qstat_-f_-xml' qselect qconf_-sql 'qconf_-sq_all.q'
  qmaster-messages qconf_-sstree qconf_-sel 'qrstat_-u_%2A'
  'sge%5Fshare%5Fmon_-c_1_-n_-f_usage%5Ftime,node%5Fname,user%5Fname,project%5Fname,cpu,mem,io')
ge_bases=(urgency dispatch-pe share-tree array-limits)
for b in "${!ge_bases[@]}"; do
  for s in "${!ge_slots[@]}"; do
    f=$root/tests/io/ge_capture/${ge_bases[$b]}/${ge_slots[$s]}
    [ -f "$f" ] || continue
    { printf "\\x$(printf %02x $((s + ${#ge_slots[@]} * b)))"; cat "$f"; } | put "$corpus/fuzz_ge_import"
  done
done

for d in "$corpus"/*; do echo "$(basename "$d"): $(find "$d" -type f | wc -l) inputs"; done
