# Seed 004's monitoring example beside a job that overruns its estimate:
# 5 global licenses; L4_RR (-p 100), L5_RR and L1_RR (-R y, h_rt 30, 30 and
# 31) as in the seed, while a job without h_rt holds one license past its
# default_duration of 10 s. From then on its end is assumed one
# schedule_interval ahead in every run (sge-algorithms §5.2). L4_RR starts and
# ends before the compared runs (a job that ends between shadow's import and
# the cell's run would be a difference of timing, not of rules); then, run
# after run, L5_RR's reservation moves out with the overrunning job's assumed
# end and L1_RR waits behind it. schedk shadow compares every reservation,
# with its time, for five runs.
scenario_kind=shadow
scenario_rounds=5
scenario_configure() {
  mkcomplex lic lic INT '<=' YES YES 0 100
  set_attr exechost complex_values block=0,lic=5 global
  mkqueue all.q 4 0 NONE
  sconf_set max_reservation 20 default_duration 0:0:10 params MONITOR=1,PROFILE=1,DURATION_OFFSET=0 \
    weight_priority 1.0 weight_urgency 0.1 weight_ticket 0.01  # the seed's defaults
  sub u4 -N overrun -l lic=1 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  local l4
  l4=$(sub u1 -N L4_RR -R y -l h_rt=30,lic=4 sleep 4)
  qalter -p 100 "$l4" >/dev/null
  sub u2 -N L5_RR -R y -l h_rt=30,lic=5 sleep 20 >/dev/null
  sub u3 -N L1_RR -R y -l h_rt=31,lic=1 sleep 20 >/dev/null
  for _ in $(seq 120); do qstat -j "$l4" >/dev/null 2>&1 || break; sleep 1; done
  qstat -j "$l4" >/dev/null 2>&1 && cell_fail "shadow-reservation: L4_RR does not end"
  wait_runs 1
}
