# max_aj_instances and -tc (split_jobs): of an array job's pending tasks that
# are not task objects yet, only the first (limit - objects) take part in a
# run. The others get no tickets and show the job's template, or no prio and
# tickets once none of the job's tasks that are not objects is dispatchable;
# a job with nothing dispatchable also shows zeros in its running tasks' job
# columns, as a job whose other tasks are held does. A rescheduled task is an
# object: pending, with values of its own.
scenario_configure() {
  conf_set max_aj_instances 3 auto_user_fshare 100
  sconf_set weight_tickets_functional 1000
  mkqueue all.q 6 0 NONE
}
scenario_submit() {
  local limited held
  limited=$(sub u1 -r y -t 1-6 -l h_rt=3000 sleep 3600)  # tasks 1-3 start
  wait_runs 2
  sub u3 -l h_rt=3000 sleep 3600 >/dev/null
  held=$(sub u4 -t 1-3 -l h_rt=3000 sleep 3600)  # tasks 1-2 start
  wait_runs 2
  qhold "$held" >/dev/null
  sub u2 -t 1-6 -tc 2 -l h_rt=3000 sleep 3600 >/dev/null
  sub u1 -t 1-4 -l h_rt=3000 sleep 3600 >/dev/null
  qmod -d '*' >/dev/null
  qmod -rj "$limited.2" >/dev/null  # pending again, as a task object
  for _ in $(seq 60); do
    qstat -s p -u u1 | awk -v j="$limited" '$1 == j && $NF == 2 {found = 1} END {exit !found}' && break
    sleep 0.5
  done
  wait_runs 3  # the reschedule's events bring runs close together for a while
}
