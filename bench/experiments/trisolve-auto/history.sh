#!/usr/bin/env bash
# trisolve-auto, device call "history": residual histories (-ksp_monitor) of exact and sweeps 3 on
# the cases where auto's 10-iteration GMRES rate misjudged or judged narrowly (to choose its rule
# offline), and ex19 512^2 with aijcusparse and exact on the same card as verify2's sweeps and auto.
#   run(command="bash bench/experiments/trisolve-auto/history.sh", carry=["bundle"], kind="nvidia-h200")
export TRISOLVE_AUTO_SKIP_TESTS=1 TRISOLVE_AUTO_CASES='
  for pe in 1 10 100; do modes "hconvdiff_128_pe$pe" 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=$pe -ksp_monitor" "exact sweeps3"; done
  modes hconvdiff_128_pe100_rev 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=100,wx=-1,wy=-0.5 -ksp_monitor" "exact sweeps3"
  modes hex45_128 30 "bin/petsc/ksp_ex45 $g -ksp_monitor" "exact sweeps3"
  for f in ani4 fidapm05; do modes "hmtx_$f" 15 "bin/test/ksp_matrix -f test/matrices/$f.mtx -ksp_monitor" "exact sweeps3"; done
  modes hex19_128_re100 30 "bin/petsc/snes_ex19 -da_grid_x 128 -da_grid_y 128 -lidvelocity 100 -grashof 1e2 -snes_converged_reason -ksp_monitor" "exact sweeps3"
  modes ex19_512 75 "bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_converged_reason" "aijcusparse exact"
'
exec bash "$(dirname "$0")/calib.sh"
