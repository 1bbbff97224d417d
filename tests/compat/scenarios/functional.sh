# Seed 000's functional example: three users with equal functional shares
# (auto_user_fshare 100) and 1,000,000 functional tickets; A1, A2 and B1 run,
# B2..B4, C1 and C2 wait (the global consumable block=0 keeps them pending).
scenario_configure() {
  conf_set auto_user_fshare 100
  sconf_set weight_tickets_functional 1000000
}
scenario_submit() {
  sub u1 -N A1 sleep 3600 >/dev/null
  sub u1 -N A2 sleep 3600 >/dev/null
  sub u2 -N B1 sleep 3600 >/dev/null
  wait_runs 2
  for n in B2 B3 B4; do sub u2 -N $n -l block=1 sleep 60 >/dev/null; done
  for n in C1 C2; do sub u3 -N $n -l block=1 sleep 60 >/dev/null; done
}
