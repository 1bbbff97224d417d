# Resource quota sets on hosts and projects: a hostgroup filter with a
# dynamic per-host limit ($num_proc), per-project {} limits, a disabled set
# that limits nothing, and a negated project filter.
scenario_kind=dispatch
scenario_configure() {
  mkhgrp @small "$CELL_HOST"
  mkprj p1 0 0
  mkprj p2 0 0
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 8 0 fill
  mkrqs hostlim TRUE 'hosts {@small} to slots=$num_proc*2'
  mkrqs projlim TRUE "projects {*} to slots=2" "projects !* to slots=1"
  mkrqs off FALSE "users * to slots=0"
  sconf_set max_reservation 10 weight_tickets_functional 1000
}
scenario_submit() {
  sub u1 -P p1 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -P p1 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -P p1 -l h_rt=100 -R y sleep 60 >/dev/null
  sub u3 -P p2 -pe fill 2 -l h_rt=100 sleep 60 >/dev/null
  sub u4 -l h_rt=100 sleep 60 >/dev/null
  sub u4 -l h_rt=100 sleep 60 >/dev/null
}
