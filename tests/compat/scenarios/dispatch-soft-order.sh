# A parallel job with a soft -q that cannot start (10 slots wanted, 7 free)
# after a sequential one: its search sorted Grid Engine's queue list by its
# soft violations and nothing sorts it back, so the parallel and sequential
# jobs after it, without soft requests, meet b.q first and start there.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 4 0 fill
  mkqueue b.q 4 1 fill
  sconf_set max_reservation 10 weight_tickets_functional 1000 weight_urgency 0 weight_priority 1
}
scenario_submit() {
  sub u1 -l h_rt=100 sleep 60 >/dev/null
  sub u1 -p -500 -pe fill 10 -l h_rt=100 -soft -q b.q sleep 60 >/dev/null
  sub u3 -p -700 -pe fill 2 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -p -1000 -l h_rt=100 sleep 60 >/dev/null
}
