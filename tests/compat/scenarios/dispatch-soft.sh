# Soft requests choosing between otherwise equal queues: soft -q lists (one
# queue, two queues, a queue instance), soft -l of fixed values a queue or the
# host defines (a host value that misses counts at the host and again at the
# queue that lacks it), the queue's own qname, a parallel job's queue order,
# two PEs that give the same slots, and sequential and parallel reservations
# whose start a global consumable sets.
scenario_kind=dispatch
scenario_configure() {
  mkcomplex sa sa INT '==' YES NO 0 0
  mkcomplex sb sb INT '==' YES NO 0 0
  mkpe fill 32 '$fill_up' min
  mkpe pa 32 '$fill_up' min
  mkpe pb 32 '$fill_up' min
  mkqueue c.q 6 0 fill sb=1
  mkqueue a.q 4 1 "fill pa" sa=1
  mkqueue b.q 8 2 "fill pb"
  mkqueue all.q 4 3 fill
  mkqueue d.q 4 4 fill
  set_attr exechost complex_values sb=0 "$CELL_HOST"
  set_attr exechost complex_values block=0,lic=2 global
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=1000,lic=2 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -l h_rt=100 -soft -l sa=1,sb=1 sleep 60 >/dev/null
  sub u2 -l h_rt=100 -soft -q b.q sleep 60 >/dev/null
  sub u3 -l h_rt=100 -soft -q a.q,b.q sleep 60 >/dev/null
  sub u4 -l h_rt=100 -soft -l qname=all.q sleep 60 >/dev/null
  sub u1 -l h_rt=100 -soft -q "all.q@$CELL_HOST" sleep 60 >/dev/null
  sub u2 -pe fill 2 -l h_rt=100 -soft -q b.q sleep 60 >/dev/null
  sub u3 -pe "'p*'" 2 -l h_rt=100 -soft -q b.q sleep 60 >/dev/null
  sub u4 -l h_rt=100,lic=1 -R y -soft -q b.q sleep 60 >/dev/null
  sub u4 -l h_rt=100 -soft -l sb=1 sleep 60 >/dev/null
  sub u1 -pe fill 6 -l h_rt=100 -soft -q d.q sleep 60 >/dev/null
  sub u2 -pe fill 2 -l h_rt=100,lic=1 -R y -soft -q a.q sleep 60 >/dev/null
}
