# Parallel jobs: a $fill_up PE over two queues on the host (grants that span
# queues), $pe_slots, slot ranges, and a reserved parallel job.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkpe one 32 '$pe_slots' max
  mkqueue all.q 3 0 "fill one"
  mkqueue p.q 4 1 "fill one"
  sconf_set max_reservation 5 weight_tickets_functional 1000
  sub u1 -l h_rt=1000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -pe fill 4 -l h_rt=300 sleep 60 >/dev/null
  sub u2 -pe one 2-3 -l h_rt=200 sleep 60 >/dev/null
  sub u3 -pe fill 2-8 -R y -l h_rt=400 sleep 60 >/dev/null
  sub u2 -l h_rt=100 sleep 60 >/dev/null
}
