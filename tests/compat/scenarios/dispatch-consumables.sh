# Consumables at every level: a queue-level per-job (JOB) consumable, a
# host-level per-slot one, and a global one, with parallel and sequential jobs.
scenario_kind=dispatch
scenario_configure() {
  mkcomplex jl jl INT '<=' YES JOB 0 0
  mkcomplex scratch scr MEMORY '<=' YES YES 0 0
  mkcomplex lic lic INT '<=' YES YES 0 0
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 4 0 fill jl=1
  mkqueue b.q 4 1 fill jl=2
  set_attr exechost complex_values "scratch=10G" "$CELL_HOST"
  set_attr exechost complex_values block=0,lic=3 global
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=1000,scr=2G sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  sub u1 -pe fill 3 -l h_rt=300,jl=1 sleep 60 >/dev/null
  sub u2 -l h_rt=200,jl=1,scr=3G sleep 60 >/dev/null
  sub u3 -l h_rt=100,lic=2,scr=4G sleep 60 >/dev/null
  sub u3 -l h_rt=100,lic=2 sleep 60 >/dev/null
  sub u2 -l h_rt=100,jl=1 sleep 60 >/dev/null
}
