# Override tickets from users, projects and jobs (-ot, set by the manager),
# shared among a holder's jobs (share_override_tickets TRUE), under OFS with
# functional tickets beside them.
override_shared=TRUE override_hierarchy=OFS
scenario_configure() {
  mkuser u1 0 1000
  mkuser u2 0 200
  mkprj pa 0 500
  mkprj pb 0 0
  sconf_set weight_tickets_functional 10000 share_override_tickets "$override_shared" policy_hierarchy "$override_hierarchy"
}
scenario_submit() {
  local j
  sub u1 sleep 3600 >/dev/null
  sub u1 -l block=1 sleep 60 >/dev/null
  sub u1 -P pa -l block=1 sleep 60 >/dev/null
  sub u2 -P pa -l block=1 sleep 60 >/dev/null
  sub u2 -P pb -l block=1 sleep 60 >/dev/null
  j=$(sub u3 -l block=1 sleep 60)
  qalter -ot 300 "$j" >/dev/null
  sub u3 -l block=1 sleep 60 >/dev/null
}
