# max_aj_instances and -tc (split_jobs): of an array job's pending tasks that
# are not task objects yet, only the first (limit - objects) take part in a
# run. The others get no tickets and show the job's template, or no prio and
# tickets once none of the job's tasks that are not objects is dispatchable;
# a job with nothing dispatchable also shows zeros in its running tasks' job
# columns, as a job whose other tasks are held does. A rescheduled task is an
# object: pending, with values of its own.

# task_pending JOB TASK: qstat lists the task as pending.
task_pending() {
  qstat -s p -u '*' | awk -v j="$1" -v t="$2" '$1 == j && $NF == t {found = 1} END {exit !found}'
}
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
  for _ in $(seq 60); do task_pending "$limited" 2 && break; sleep 0.5; done
  task_pending "$limited" 2 || cell_fail "task $limited.2 is not pending 30 s after qmod -rj"
  wait_runs 3  # the reschedule's events bring runs close together for a while
}
