# Seed 004's resource reservation example on the real cell: 5 global
# licenses, jobs asking for 4, 5 and 1 with -R y and run times; the first
# runs, the second is reserved, the third waits behind it or backfills.
scenario_kind=dispatch
scenario_configure() {
  mkcomplex lic lic INT '<=' YES YES 0 100
  set_attr exechost complex_values block=0,lic=5 global
  mkqueue all.q 4 0 NONE
  sconf_set max_reservation 20 params MONITOR=1,PROFILE=1,DURATION_OFFSET=0 weight_priority 1.0
  sub u1 -l h_rt=600,lic=2 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -R y -l h_rt=300,lic=4 sleep 60 >/dev/null
  sub u2 -R y -l h_rt=300,lic=5 sleep 60 >/dev/null
  sub u3 -R y -l h_rt=310,lic=1 sleep 60 >/dev/null
  sub u3 -l h_rt=200,lic=1 sleep 60 >/dev/null
  sub u2 -l h_rt=900,lic=1 sleep 60 >/dev/null
}
