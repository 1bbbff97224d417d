# POSIX priorities: -p from -1023 to 1024 (positive values set by the
# manager with qalter), weight_priority 1 and the other weights small.
scenario_configure() {
  sconf_set weight_priority 1.0 weight_urgency 0.1 weight_ticket 0.01 weight_tickets_functional 1000
}
scenario_submit() {
  local p j
  for p in -1023 -500 -1 0; do sub u1 -p $p -l block=1 sleep 60 >/dev/null; done
  for p in 1 700 1024; do
    j=$(sub u2 -l block=1 sleep 60)
    qalter -p $p "$j" >/dev/null
  done
  sub u3 -p -100 sleep 3600 >/dev/null
}
