# Grid Engine's queue list in a reservation search (docs/compat.md, rule 12):
# the instances with a free slot come first, then the full ones in the order
# they filled, unless the job's search sorts the list (the run's first search,
# or a change in the hosts' load order). b.q fills before all.q (seq_no 0);
# a PE job then reserves behind both and gets b.q. A sequential job asking for
# the license that d.q's job holds reserves where all queues tie, at that
# job's end: c.q, the one with a free slot, where a sorted list gives all.q.
scenario_kind=dispatch
scenario_configure() {
  mkcomplex lic lic INT '<=' YES YES 0 100
  set_attr exechost complex_values block=0,lic=1 global
  mkpe fill 8 '$fill_up' min
  mkqueue all.q 2 0 fill
  mkqueue b.q 2 1 fill
  mkqueue c.q 1 2 NONE
  mkqueue d.q 1 3 NONE
  sconf_set max_reservation 10 weight_tickets_functional 1000 weight_urgency 0
  sub u4 -q d.q -l h_rt=600,lic=1 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -q b.q -l h_rt=100 sleep 60 >/dev/null
  sub u1 -q b.q -l h_rt=100 sleep 60 >/dev/null
  sub u2 -p -100 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -p -100 -l h_rt=100 sleep 60 >/dev/null
  sub u3 -p -500 -R y -pe fill 2 -l h_rt=100 sleep 60 >/dev/null
  sub u3 -p -600 -R y -l h_rt=100,lic=1 sleep 60 >/dev/null
}
