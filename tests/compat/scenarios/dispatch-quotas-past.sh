# A reservation under a quota whose walk begins before now: the job fits
# now but for its owner's quota, so the walk without quotas starts at the
# first running job's start. A window that began there would have ended
# before the owner's own running job began, and the quota would admit it;
# Grid Engine's walk from the latest candidate down stops at the first
# candidate the quota refuses, and reserves after the owner's job ends.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 8 0 fill
  mkrqs maxu TRUE "users {*} to slots=4"
  sconf_set max_reservation 10 params MONITOR=1,PROFILE=1,DURATION_OFFSET=0 weight_tickets_functional 1000
  sub u2 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
  sleep 10
  sub u1 -pe fill 2 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -pe fill 3 -R y -l h_rt=5 sleep 60 >/dev/null
}
