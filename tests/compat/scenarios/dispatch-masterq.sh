# -masterq: the master task's queue comes from -masterq's list, the other
# slots from -q's (or any queue without -q). Until the master queue is found,
# a queue outside -masterq leaves one slot for it where it would complete the
# job, and a master queue outside -q gives the master task's slot alone; the
# master queue is granted first (parallel_tag_queues_suitable4job). all.q
# (seq_no 0) is harvested before m.q (seq_no 1), so every job's master queue
# comes after some of its slots. A -masterq reservation behind these jobs
# meets m.q, which keeps a free slot, before the full all.q (the queue list of
# a reservation search, docs/compat.md rule 12): m.q:4, all.q:2.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 32 '$fill_up' min
  mkpe one 32 '$pe_slots' max
  mkqueue all.q 8 0 "fill one"
  mkqueue m.q 4 1 "fill one"
  sconf_set max_reservation 5 weight_tickets_functional 1000 weight_priority 10  # MONITOR lines; -p -1000 last
}
scenario_submit() {
  sub u1 -pe fill 4 -masterq m.q -q all.q -l h_rt=300 sleep 60 >/dev/null
  sub u2 -pe fill 3 -masterq m.q -l h_rt=300 sleep 60 >/dev/null
  sub u3 -pe fill 2 -masterq all.q -l h_rt=300 sleep 60 >/dev/null
  sub u4 -pe one 2 -masterq m.q -l h_rt=300 sleep 60 >/dev/null
  sub u1 -p -1000 -R y -pe fill 6 -masterq m.q -l h_rt=300 sleep 60 >/dev/null
}
