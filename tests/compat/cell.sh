# cell.sh: the single-host Grid Engine cell the differential suite runs
# against (Debian's Son of Grid Engine 8.1.9), and helpers to drive it.
# Source it from bash as root. `cell_start` installs the packages where they
# are missing and starts qmaster and execd; every other function changes the
# cell as its comment says. Jobs belong to the test users u1..u4 (Debian's
# global configuration has min_uid 1000, so root cannot run jobs).
export SGE_ROOT=${SGE_ROOT:-/var/lib/gridengine} SGE_CELL=${SGE_CELL:-default}
CELL_HOST=$(hostname)
CELL_MESSAGES=/var/spool/gridengine/qmaster/messages
CELL_SCHEDULE=$SGE_ROOT/$SGE_CELL/common/schedule
CELL_USERS="u1 u2 u3 u4"

cell_fail() { echo "compat: $*" >&2; exit 1; }

# Installs gridengine-master/-exec/-client (debconf preseeded for a cell named
# "default" with this host as master) and starts the daemons through their
# init scripts (containers refuse invoke-rc.d). Can be run again.
cell_start() {
  [ "$(id -u)" -eq 0 ] || cell_fail "the differential suite needs root (it installs and runs a Grid Engine cell)"
  # The cell names hosts by their resolved address; a loopback one makes it 'localhost'.
  local ip
  ip=$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n 1)
  if [ -n "$ip" ] && ! getent hosts "$CELL_HOST" | grep -q "^$ip"; then
    grep -v -w "$CELL_HOST" /etc/hosts > /etc/hosts.compat && echo "$ip $CELL_HOST" >> /etc/hosts.compat
    cat /etc/hosts.compat > /etc/hosts && rm -f /etc/hosts.compat
  fi
  if ! dpkg-query -W -f='${Status}' gridengine-master 2>/dev/null | grep -q 'install ok installed'; then
    for p in gridengine-common gridengine-master gridengine-exec gridengine-client; do
      printf '%s shared/gridengineconfig boolean true\n%s shared/gridenginecell string default\n%s shared/gridenginemaster string %s\n' \
        "$p" "$p" "$p" "$CELL_HOST" | debconf-set-selections
    done
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gridengine-master gridengine-exec gridengine-client >&2 ||
      cell_fail "cannot install the Grid Engine packages (apt-get failed): the differential suite cannot run here"
  fi
  pgrep -x sge_qmaster >/dev/null || /etc/init.d/gridengine-master start >&2
  for _ in $(seq 60); do qconf -sh >/dev/null 2>&1 && break; sleep 1; done
  qconf -sh >/dev/null 2>&1 || cell_fail "qmaster does not answer"
  qconf -as "$CELL_HOST" >/dev/null 2>&1 || true
  pgrep -x sge_execd >/dev/null || /etc/init.d/gridengine-exec start >&2
  for _ in $(seq 90); do
    qhost -h "$CELL_HOST" 2>/dev/null | awk -v h="$CELL_HOST" '$1 == h && $7 != "-" {found = 1} END {exit !found}' && break
    sleep 2
  done
  for u in $CELL_USERS; do id "$u" >/dev/null 2>&1 || useradd -m -s /bin/bash "$u"; done
}

# qconf -Xx FILE for an object written by printf: cell_put add-option modify-option exists-test-list name text
cell_put() {
  local add=$1 mod=$2 list=$3 name=$4 text=$5 f
  f=$(mktemp)
  printf '%s\n' "$text" > "$f"
  if qconf "$list" 2>/dev/null | grep -qx -- "$name"; then qconf "$mod" "$f" >/dev/null 2>&1; else qconf "$add" "$f" >/dev/null 2>&1; fi
  local rc=$?
  rm -f "$f"
  return $rc
}

# Scheduler configuration keys: sconf_set key value [key value ...]
sconf_set() {
  local f
  f=$(mktemp)
  qconf -ssconf > "$f"
  while [ $# -gt 1 ]; do
    if grep -q "^$1 " "$f"; then sed -i "s|^$1 .*|$1 $2|" "$f"; else echo "$1 $2" >> "$f"; fi
    shift 2
  done
  qconf -Msconf "$f" >/dev/null 2>&1
  rm -f "$f"
}

# Cluster configuration keys (qconf -sconf): conf_set key value [key value ...]
conf_set() {
  local d f
  d=$(mktemp -d)
  f=$d/global  # qconf -Mconf takes the configuration's name from the file's
  qconf -sconf | grep -v '^#' > "$f"
  while [ $# -gt 1 ]; do
    if grep -q "^$1 " "$f"; then sed -i "s|^$1 .*|$1 $2|" "$f"; else echo "$1 $2" >> "$f"; fi
    shift 2
  done
  qconf -Mconf "$f" >/dev/null 2>&1 || true  # "no changes" when it is already so
  rm -rf "$d"
}

# An attribute of an object: set_attr exechost complex_values lic=5 global
set_attr() { qconf -rattr "$1" "$2" "$3" "$4" >/dev/null 2>&1 || qconf -mattr "$1" "$2" "$3" "$4" >/dev/null; }

mkuser() { cell_put -Auser -Muser -suserl "$1" "$(printf 'name %s\noticket %s\nfshare %s\ndelete_time 0\ndefault_project %s' "$1" "$3" "$2" "${4:-NONE}")"; }
mkprj() { cell_put -Aprj -Mprj -sprjl "$1" "$(printf 'name %s\noticket %s\nfshare %s\nacl NONE\nxacl NONE' "$1" "$3" "$2")"; }
mkdept() { cell_put -Au -Mu -sul "$1" "$(printf 'name %s\ntype DEPT\nfshare %s\noticket %s\nentries %s' "$1" "$2" "$3" "$4")"; }
# The share tree, from qconf's file format (nodes in depth-first order: qconf
# numbers them so): mkstree text
mkstree() {
  local f
  f=$(mktemp)
  printf '%s\n' "$1" > "$f"
  qconf -Astree "$f" >/dev/null 2>&1 || qconf -Mstree "$f" >/dev/null 2>&1
  local rc=$?
  rm -f "$f"
  return $rc
}
# Waits until the cell has no job left (at most two minutes).
wait_no_jobs() {
  for _ in $(seq 120); do [ -z "$(qstat -u '*' 2>/dev/null)" ] && return 0; sleep 1; done
  cell_fail "the jobs do not end"
}
# A resource quota set: mkrqs name enabled "limit ..." ["limit ..." ...]
mkrqs() {
  local name=$1 enabled=$2 text
  shift 2
  text=$(printf '{\nname %s\ndescription NONE\nenabled %s' "$name" "$enabled")
  for rule in "$@"; do text+=$(printf '\nlimit %s' "$rule"); done
  cell_put -Arqs -Mrqs -srqsl "$name" "$text"$'\n}' || cell_fail "qconf refuses the quota set $name"
}
# mkhgrp @name host...
mkhgrp() {
  local name=$1
  shift
  cell_put -Ahgrp -Mhgrp -shgrpl "$name" "$(printf 'group_name %s\nhostlist %s' "$name" "$*")" ||
    cell_fail "qconf refuses the hostgroup $name"
}
# mkpe name slots allocation_rule urgency_slots
mkpe() {
  cell_put -Ap -Mp -spl "$1" "$(printf 'pe_name %s\nslots %s\nuser_lists NONE\nxuser_lists NONE\nstart_proc_args NONE\nstop_proc_args NONE\nallocation_rule %s\ncontrol_slaves FALSE\njob_is_first_task TRUE\nurgency_slots %s\naccounting_summary FALSE\nqsort_args NONE' "$1" "$2" "$3" "$4")"
}
# mkqueue name slots seq_no pe_list [complex_values]
mkqueue() {
  local f
  f=$(mktemp)
  qconf -sq | sed -e "s/^qname .*/qname $1/" -e "s/^hostlist .*/hostlist $CELL_HOST/" -e "s/^load_thresholds .*/load_thresholds NONE/" \
    -e "s/^slots .*/slots $2/" -e "s/^seq_no .*/seq_no $3/" -e "s/^pe_list .*/pe_list $4/" -e "s/^complex_values .*/complex_values ${5:-NONE}/" > "$f"
  if qconf -sql 2>/dev/null | grep -qx "$1"; then qconf -Mq "$f" >/dev/null 2>&1; else qconf -Aq "$f" >/dev/null 2>&1; fi
  rm -f "$f"
}
# A complex entry: mkcomplex name shortcut type relop requestable consumable default urgency
mkcomplex() {
  local f
  f=$(mktemp)
  qconf -sc | grep -v "^$1 " > "$f"
  echo "$*" >> "$f"
  qconf -Mc "$f" >/dev/null 2>&1 || true  # "no changes" when the entry is already so
  rm -f "$f"
}

# qsub as a user, the job never run for real (-b y sleep): sub USER qsub-args... prints the job id
sub() {
  local u=$1
  shift
  su "$u" -c "export SGE_ROOT=$SGE_ROOT SGE_CELL=$SGE_CELL; cd /tmp; qsub -terse -b y -o /dev/null -e /dev/null $*" | cut -d. -f1
}

# The time of the scheduler's last run (PROFILE=1 in params), epoch seconds; 0 if none.
last_run() {
  local t
  t=$(grep 'PROF: schedd run took' "$CELL_MESSAGES" 2>/dev/null | tail -n 1 | cut -d'|' -f1)
  [ -n "$t" ] && date -d "$t" +%s || echo 0
}
# What `schedk import ge` takes as `now`: the second the last scheduler run
# weighed urgency (its `PROF: static urgency took` line), else its end; 0 if none.
last_run_clock() {
  grep -E 'PROF: (static urgency took|schedd run took)' "$CELL_MESSAGES" 2>/dev/null |
    awk -F'|' '/static urgency took/ {u = $1; next} {c = u != "" ? u : $1; u = ""} END {print c}' |
    { read -r t; [ -n "$t" ] && date -d "$t" +%s || echo 0; }
}
# Waits until N more scheduler runs have ended (default 1).
wait_runs() {
  local n=${1:-1} before now
  before=$(grep -c 'PROF: schedd run took' "$CELL_MESSAGES" 2>/dev/null || echo 0)
  for _ in $(seq 300); do
    now=$(grep -c 'PROF: schedd run took' "$CELL_MESSAGES" 2>/dev/null || echo 0)
    [ "$now" -ge $((before + n)) ] && return 0
    sleep 0.2
  done
  cell_fail "the scheduler did not run"
}

# Back to the baseline every scenario starts from: no jobs, the install's
# scheduler configuration with short intervals, MONITOR and PROFILE on, one
# queue all.q with 8 slots, no PEs, projects, departments, share tree or
# extra queues, quota sets or hostgroups, the test users without user objects.
cell_reset() {
  qmod -e '*' >/dev/null 2>&1 || true
  qdel -f -u '*' '*' >/dev/null 2>&1 || true
  wait_no_jobs
  qconf -dstree >/dev/null 2>&1 || true
  # A queue whose last job has just gone may still refuse to go for a moment.
  for _ in $(seq 30); do
    for q in $(qconf -sql 2>/dev/null || true); do [ "$q" = all.q ] || qconf -dq "$q" >/dev/null 2>&1 || true; done
    mkqueue all.q 8 0 NONE
    for p in $(qconf -spl 2>/dev/null || true); do qconf -dp "$p" >/dev/null 2>&1 || true; done
    [ "$(qconf -sql 2>/dev/null)" = all.q ] && [ -z "$(qconf -spl 2>/dev/null || true)" ] && break
    sleep 1
  done
  for r in $(qconf -srqsl 2>/dev/null || true); do qconf -drqs "$r" >/dev/null 2>&1 || true; done
  for g in $(qconf -shgrpl 2>/dev/null || true); do qconf -dhgrp "$g" >/dev/null 2>&1 || true; done
  for p in $(qconf -sprjl 2>/dev/null || true); do qconf -dprj "$p" >/dev/null 2>&1 || true; done
  for u in $(qconf -suserl 2>/dev/null || true); do qconf -duser "$u" >/dev/null 2>&1 || true; done
  for u in $CELL_USERS; do qconf -du "$u" deadlineusers >/dev/null 2>&1 || true; done
  for d in $(qconf -sul 2>/dev/null || true); do
    case $d in arusers|deadlineusers|defaultdepartment) ;; *) qconf -dul "$d" >/dev/null 2>&1 || true ;; esac
  done
  [ "$(qconf -sql 2>/dev/null)" = all.q ] && [ -z "$(qconf -spl 2>/dev/null || true)" ] ||
    cell_fail "cannot remove the last scenario's queues and parallel environments"
  mkcomplex block b INT '<=' YES YES 0 0
  mkcomplex lic lic INT '<=' YES YES 0 0
  set_attr exechost complex_values block=0 global
  set_attr exechost complex_values NONE "$CELL_HOST"
  conf_set auto_user_fshare 0 auto_user_oticket 0 auto_user_default_project none enforce_user auto max_aj_instances 2000
  qconf -ssconf > /dev/null
  local f
  f=$(mktemp)
  cat > "$f" <<EOF
algorithm                         default
schedule_interval                 0:0:4
maxujobs                          0
queue_sort_method                 seqno
job_load_adjustments              NONE
load_adjustment_decay_time        0:7:30
load_formula                      np_load_avg
schedd_job_info                   true
flush_submit_sec                  0
flush_finish_sec                  0
params                            MONITOR=1,PROFILE=1
reprioritize_interval             0:0:0
halftime                          168
usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000
compensation_factor               5.000000
weight_user                       0.250000
weight_project                    0.250000
weight_department                 0.250000
weight_job                        0.250000
weight_tickets_functional         0
weight_tickets_share              0
share_override_tickets            TRUE
share_functional_shares           TRUE
max_functional_jobs_to_schedule   200
report_pjob_tickets               TRUE
max_pending_tasks_per_job         50
halflife_decay_list               none
policy_hierarchy                  OFS
weight_ticket                     0.500000
weight_waiting_time               0.278000
weight_deadline                   3600000.000000
weight_urgency                    0.500000
weight_priority                   0.000000
max_reservation                   0
default_duration                  INFINITY
EOF
  qconf -Msconf "$f" >/dev/null 2>&1
  rm -f "$f"
}
