# A soft request where a queue sets a reservation's start: both queues free
# up at the same time, so Grid Engine's search cuts b.q (its queue time is not
# before the start all.q gave) and the reservation stays in all.q whatever the
# soft -q says.
scenario_kind=dispatch
scenario_configure() {
  mkqueue all.q 1 0 NONE
  mkqueue b.q 1 1 NONE
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=1000 sleep 3000 >/dev/null
  sub u1 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u2 -l h_rt=100 -R y -soft -q b.q sleep 60 >/dev/null
}
