# max_aj_instances and -tc in dispatch: free slots are left free where the
# limits hold pending array tasks back (3 of u1's six, 2 of u2's five), and a
# sequential job starts beside them.
scenario_kind=dispatch
scenario_configure() {
  conf_set max_aj_instances 3
  mkqueue all.q 8 0 NONE
  sconf_set weight_tickets_functional 1000 max_reservation 10
}
scenario_submit() {
  sub u1 -t 1-6 -l h_rt=1000 sleep 60 >/dev/null
  sub u2 -t 1-5 -tc 2 -l h_rt=500 sleep 60 >/dev/null
  sub u3 -l h_rt=100 sleep 60 >/dev/null
}
