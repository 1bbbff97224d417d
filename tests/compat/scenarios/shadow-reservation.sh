# Seed 004's monitoring example over several scheduler runs, beside a job that
# overruns its estimate: 5 global licenses; L4_RR (-p 100), L5_RR and L1_RR
# (-R y, h_rt 30, 30 and 31, running 20 s) as in the seed, while a job without
# h_rt holds one license past its default_duration of 10 s. From then on its
# end is assumed one schedule_interval ahead in every run (sge-algorithms §5.2),
# so L5_RR's reservation moves out run after run once L4_RR has ended, and
# L1_RR waits behind it. schedk shadow compares every start and reservation,
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
  l4=$(sub u1 -N L4_RR -R y -l h_rt=30,lic=4 sleep 20)
  qalter -p 100 "$l4" >/dev/null
  sub u2 -N L5_RR -R y -l h_rt=30,lic=5 sleep 20 >/dev/null
  sub u3 -N L1_RR -R y -l h_rt=31,lic=1 sleep 20 >/dev/null
  wait_runs 1
}
