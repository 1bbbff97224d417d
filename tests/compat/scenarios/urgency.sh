# Urgency: a PE's urgency_slots (min, max, avg and a number), a deadline job
# (its owner in deadlineusers), waiting time, and a consumable with an
# urgency, over jobs that wait (block=0) or run; held jobs (-h, -hold_jid and
# one held array task) show zeros.
scenario_configure() {
  mkcomplex lic lic INT '<=' YES YES 0 250
  set_attr exechost complex_values block=0,lic=10 global
  mkpe pmin 16 '$fill_up' min
  mkpe pmax 16 '$fill_up' max
  mkpe pavg 16 '$fill_up' avg
  mkpe pnum 16 '$fill_up' 3
  set_attr queue pe_list "pmin pmax pavg pnum" all.q
  qconf -au u2 deadlineusers >/dev/null 2>&1
  sconf_set weight_urgency 1.0 weight_ticket 0.1 weight_deadline 3600000 weight_waiting_time 0.278
}
scenario_submit() {
  local first array
  first=$(sub u1 -l lic=2 sleep 3600)
  sub u1 -pe pmin 2 sleep 3600 >/dev/null
  wait_runs 2
  local pe
  for pe in pmin pmax pavg pnum; do sub u1 -pe $pe 2-6 -l block=1 sleep 60 >/dev/null; done
  sub u2 -dl "$(date -d @$(( $(date +%s) + 7200 )) +%Y%m%d%H%M.%S)" -l block=1 sleep 60 >/dev/null
  sub u2 -dl "$(date -d @$(( $(date +%s) + 600 )) +%Y%m%d%H%M.%S)" -l block=1,lic=1 sleep 60 >/dev/null
  sub u3 -l block=1,lic=3 sleep 60 >/dev/null
  sleep 3
  array=$(sub u3 -t 1-4 -l block=1 sleep 60)
  qhold "$array.3" >/dev/null
  sub u4 -h -l block=1 sleep 60 >/dev/null
  sub u4 -hold_jid "$first" -l block=1 sleep 60 >/dev/null
}
