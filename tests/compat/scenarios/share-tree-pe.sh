# Son of Grid Engine 8.1.9's share-tree rule for pending jobs (sge_sort_job_nodes),
# which schedk follows under params SHARE_TREE_PENDING=8.1: running jobs rank
# first, and each job dilutes the entitlement of the jobs after it by its
# minimum slot count. Parallel jobs, running and pending, under a tree with a
# group node and a leaf whose only job runs; 6.2's rule (schedk's default),
# which counts jobs, gives other tickets here.
scenario_rule=8.1
scenario_configure() {
  local u
  for u in $CELL_USERS; do mkuser "$u" 0 0; done  # a tree names existing users only
  mkpe pe 16 '$pe_slots' min
  mkqueue all.q 8 0 pe
  mkstree "$(printf 'id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,4,5
id=1\nname=grpA\ntype=0\nshares=60\nchildnodes=2,3
id=2\nname=u1\ntype=0\nshares=30\nchildnodes=NONE
id=3\nname=u2\ntype=0\nshares=70\nchildnodes=NONE
id=4\nname=u3\ntype=0\nshares=40\nchildnodes=NONE
id=5\nname=u4\ntype=0\nshares=10\nchildnodes=NONE')"
  qconf -sstree >/dev/null 2>&1 || cell_fail "share-tree-pe: the share tree was refused"
  sconf_set weight_tickets_share 1000000
}
scenario_submit() {
  sub u1 -pe pe 2 sleep 3600 >/dev/null
  sub u3 sleep 3600 >/dev/null
  sub u4 sleep 3600 >/dev/null
  wait_runs 2
  sub u1 -pe pe 3-4 -l block=1 sleep 60 >/dev/null
  sub u1 -l block=1 sleep 60 >/dev/null
  sub u2 -pe pe 2 -l block=1 sleep 60 >/dev/null
  sub u2 -l block=1 sleep 60 >/dev/null
  sub u2 -pe pe 5 -l block=1 sleep 60 >/dev/null
  sub u3 -pe pe 4 -l block=1 sleep 60 >/dev/null
  sub u3 -l block=1 sleep 60 >/dev/null
  wait_runs 1
}
