# Resource quota sets: a per-user {} limit, a second set whose rule names a
# queue and expands hosts, a negated users filter, a running job's usage,
# a parallel job cut to what its owner's quota leaves, and reservations that
# wait for a quota to free up.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 8 0 fill
  mkqueue b.q 4 1 fill
  mkrqs maxu TRUE "users {*} to slots=3"
  mkrqs perq TRUE "name qlim queues {b.q} hosts {*} to slots=1" "users {!u1} to slots=4"
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -l h_rt=100 sleep 60 >/dev/null
  sub u1 -l h_rt=100 sleep 60 >/dev/null
  sub u1 -l h_rt=100 -R y sleep 60 >/dev/null
  sub u2 -pe fill 3-5 -l h_rt=100 sleep 60 >/dev/null
  sub u3 -pe fill 2-4 -l h_rt=200 -R y sleep 60 >/dev/null
  sub u3 -l h_rt=100 -R y sleep 60 >/dev/null
  sub u4 -l h_rt=300 -R y sleep 60 >/dev/null
}
