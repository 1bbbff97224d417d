# The job loop ends once Grid Engine's queue list is empty, and full queue
# instances stay in it after a reserving job that can never run (docs/compat.md
# rule 12). Both slots of all.q are busy; the 4-slot PE job can never run,
# so the next -R y job is still tried and reserved; its reservation empties
# the list, and the last job is not looked at.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 8 '$fill_up' min
  mkqueue all.q 2 0 fill
  sconf_set max_reservation 10
  sub u1 -l h_rt=600 sleep 3000 >/dev/null
  sub u1 -l h_rt=600 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u2 -R y -pe fill 4 -l h_rt=100 sleep 60 >/dev/null
  sub u3 -R y -l h_rt=100 sleep 60 >/dev/null
  sub u4 -R y -l h_rt=200 sleep 60 >/dev/null
}
