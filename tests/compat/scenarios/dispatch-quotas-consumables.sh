# Resource quota limits on consumables: a per-slot license (lic) and a
# per-job one (jl, a JOB consumable, debited once at the master queue), per
# user, for sequential and parallel jobs, with a running job's usage and a
# reservation that waits for its owner's license quota.
scenario_kind=dispatch
scenario_configure() {
  mkcomplex jl jl INT '<=' YES JOB 0 0
  mkpe fill 32 '$fill_up' min
  mkqueue all.q 6 0 fill
  mkqueue b.q 6 1 fill
  set_attr exechost complex_values block=0,lic=20,jl=20 global
  mkrqs lics TRUE "users {*} to lic=3,jl=2"
  sconf_set max_reservation 10 weight_tickets_functional 1000
  sub u1 -l h_rt=1000,lic=1 sleep 3000 >/dev/null
  wait_runs 2
}
scenario_submit() {
  local i
  for i in 1 2 3; do sub u1 -l h_rt=100,lic=1 -R y sleep 60 >/dev/null; done
  sub u2 -pe fill 2 -l h_rt=100,lic=1 sleep 60 >/dev/null
  sub u2 -pe fill 2 -l h_rt=100,lic=1 sleep 60 >/dev/null
  sub u3 -pe fill 3 -l h_rt=100,jl=1 sleep 60 >/dev/null
  for i in 1 2 3; do sub u4 -l h_rt=100,jl=1 sleep 60 >/dev/null; done
}
