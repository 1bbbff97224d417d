# schedk shadow beside the cell: running jobs, and -R jobs behind a license
# shortage, reserved again in every run, so each run has decisions to compare;
# an array job whose tasks differ in state exercises the feed.
scenario_kind=shadow
scenario_configure() {
  mkcomplex lic lic INT '<=' YES YES 0 100
  set_attr exechost complex_values block=0,lic=4 global
  mkqueue all.q 4 0 NONE
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=3000,lic=2 sleep 3000 >/dev/null
  sub u2 -t 1-3 -l h_rt=2000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u3 -R y -l h_rt=600,lic=4 sleep 60 >/dev/null
  sub u1 -R y -l h_rt=300,lic=3 sleep 60 >/dev/null
  sub u2 -t 1-2 -l h_rt=100,block=1 sleep 60 >/dev/null
  wait_runs 1
}
