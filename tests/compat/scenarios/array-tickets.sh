# Pending array tasks under the functional and share-tree-free ticket policy:
# each task's tickets as qstat -g d prints them (qstat shows a pending array
# job's template, its first pending task, for every pending task), one task
# held, beside a running task and a sequential job of another user.
scenario_configure() {
  conf_set auto_user_fshare 100
  sconf_set weight_tickets_functional 10000 max_pending_tasks_per_job 50
}
scenario_submit() {
  local array
  sub u1 sleep 3600 >/dev/null
  wait_runs 2
  array=$(sub u1 -t 1-5 -l block=1 sleep 60)
  qhold "$array.4" >/dev/null
  sub u2 -l block=1 sleep 60 >/dev/null
  sub u2 -t 1-2 -l block=1 sleep 60 >/dev/null
}
