# Array jobs and maxujobs: tasks of one job fill the free slots in task order,
# a user's running jobs are capped by maxujobs.
scenario_kind=dispatch
scenario_configure() {
  mkqueue all.q 6 0 NONE
  sconf_set max_reservation 10 maxujobs 3 weight_tickets_functional 1000
  sub u2 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -t 1-4 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -t 1-3 -l h_rt=200 sleep 60 >/dev/null
  sub u3 -l h_rt=50 sleep 60 >/dev/null
  sub u3 -l h_rt=60 sleep 60 >/dev/null
}
