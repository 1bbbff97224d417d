# A -masterq job reserved for when a running job that fills both queues ends:
# the reservation follows the same harvest as a start (the master queue from
# -masterq's list, granted first; one slot left for it). It is the run's first
# job, so Grid Engine's queue-list re-sort (docs/compat.md) plays no part. A
# second -masterq job, with -q, gets no reservation on the cell either.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 8 0 fill
  mkqueue m.q 4 1 fill
  sconf_set max_reservation 5 weight_tickets_functional 1000
  sub u1 -pe fill 12 -l h_rt=600 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u2 -pe fill 4 -R y -masterq m.q -l h_rt=100 sleep 60 >/dev/null
  sub u3 -pe fill 3 -R y -masterq m.q -q all.q -l h_rt=100 sleep 60 >/dev/null
}
