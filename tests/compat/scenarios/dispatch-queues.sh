# Dispatch over several queues on one host: seq_no ties broken by the queue
# name, a higher seq_no filled last, sequential jobs of several users with
# run times (h_rt), two of them already running.
scenario_kind=dispatch
scenario_configure() {
  mkqueue all.q 2 0 NONE
  mkqueue b.q 2 0 NONE
  mkqueue a.q 1 0 NONE
  mkqueue c.q 3 5 NONE
  sconf_set max_reservation 10 weight_tickets_functional 10000
  sub u1 -l h_rt=3000 sleep 3000 >/dev/null
  sub u2 -l h_rt=2000 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  local i
  for i in 1 2 3; do sub u1 -l h_rt=$((100 * i)) sleep 60 >/dev/null; done
  for i in 1 2 3; do sub u2 -l h_rt=$((150 * i)) sleep 60 >/dev/null; done
  sub u3 -l h_rt=50 sleep 60 >/dev/null
  sub u3 -l h_rt=70 -q c.q sleep 60 >/dev/null
}
