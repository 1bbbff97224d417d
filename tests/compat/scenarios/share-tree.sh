# A share tree with real decayed usage: jobs that burn CPU for a few seconds
# leave their users and project usage (halftime 1 hour, so that it decays
# visibly from each user's last update to the scheduler's run); then pending
# jobs get share-tree tickets from the usage the importer read with
# sge_share_mon. The tree has a group node (grpA: u1, u2) and a project node
# (P1: u3, u4); u4's job outside P1 has no node.
scenario_configure() {
  local u
  for u in $CELL_USERS; do mkuser "$u" 0 0; done  # a tree names existing users only
  mkprj P1 0 0
  mkstree "$(printf 'id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,4
id=1\nname=grpA\ntype=0\nshares=60\nchildnodes=2,3
id=2\nname=u1\ntype=0\nshares=30\nchildnodes=NONE
id=3\nname=u2\ntype=0\nshares=70\nchildnodes=NONE
id=4\nname=P1\ntype=1\nshares=40\nchildnodes=5,6
id=5\nname=u3\ntype=0\nshares=1\nchildnodes=NONE
id=6\nname=u4\ntype=0\nshares=3\nchildnodes=NONE')"
  qconf -sstree >/dev/null 2>&1 || cell_fail "share-tree: the share tree was refused"
  sconf_set weight_tickets_share 1000000 halftime 1
}
scenario_submit() {
  sub u1 timeout 6 yes >/dev/null
  sub u1 timeout 4 yes >/dev/null
  sub u2 timeout 3 yes >/dev/null
  sub u3 -P P1 timeout 5 yes >/dev/null
  sub u4 -P P1 timeout 2 yes >/dev/null
  wait_no_jobs
  wait_runs 2
  sub u1 -l block=1 sleep 60 >/dev/null
  sub u1 -l block=1 sleep 60 >/dev/null
  sub u2 -l block=1 sleep 60 >/dev/null
  sub u2 -l block=1 sleep 60 >/dev/null
  sub u3 -P P1 -l block=1 sleep 60 >/dev/null
  sub u3 -P P1 -l block=1 sleep 60 >/dev/null
  sub u4 -P P1 -l block=1 sleep 60 >/dev/null
  sub u4 -l block=1 sleep 60 >/dev/null
  wait_runs 1
}
