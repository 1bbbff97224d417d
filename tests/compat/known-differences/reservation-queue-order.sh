# A known difference (docs/compat.md), kept as the scenario that shows it;
# make compat does not run it: tests/compat/run.sh build \
#   tests/compat/known-differences/reservation-queue-order.sh
# b.q fills before all.q (seq_no 0), then a PE job reserves behind them. Grid
# Engine's reservation search walks the instances with a free slot (c.q,
# outside the PE), then the full ones in the order they filled: b.q:2 on the
# cell (2026-11-26), where schedk's sorted order gives all.q:2.
scenario_kind=dispatch
scenario_configure() {
  mkpe fill 8 '$fill_up' min
  mkqueue all.q 2 0 fill
  mkqueue b.q 2 1 fill
  mkqueue c.q 1 2 NONE
  sconf_set max_reservation 10 weight_tickets_functional 1000 weight_urgency 0
}
scenario_submit() {
  sub u1 -q b.q -l h_rt=100 sleep 60 >/dev/null
  sub u1 -q b.q -l h_rt=100 sleep 60 >/dev/null
  sub u2 -p -100 -l h_rt=100 sleep 60 >/dev/null
  sub u2 -p -100 -l h_rt=100 sleep 60 >/dev/null
  sub u3 -p -500 -R y -pe fill 2 -l h_rt=100 sleep 60 >/dev/null
}
