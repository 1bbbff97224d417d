# Every policy off: no tickets, no urgency weight, no POSIX weight. Every
# job's priority is 0 and the normalised columns still print.
scenario_configure() {
  sconf_set weight_ticket 0 weight_urgency 0 weight_priority 0 weight_waiting_time 0 weight_deadline 0
}
scenario_submit() {
  sub u1 sleep 3600 >/dev/null
  sub u1 -l block=1 sleep 60 >/dev/null
  sub u2 -p -10 -l block=1 sleep 60 >/dev/null
  sub u3 -t 1-3 -l block=1 sleep 60 >/dev/null
}
