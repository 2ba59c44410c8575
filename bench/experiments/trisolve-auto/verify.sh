#!/usr/bin/env bash
# trisolve-auto, device call "verify": the measured auto mode (commit 404c0a1 on) on calib.sh's
# cases, beside aijcusparse, exact and sweeps 3 in the same call; then 256^3 where time is left.
#   run(command="bash bench/experiments/trisolve-auto/verify.sh", carry=["bundle"], kind="nvidia-h100-x1")
# TRISOLVE_AUTO_PART=256: only ex45 / ex14 at 256^3 and ICC; TRISOLVE_AUTO_PART=all: both (TRISOLVE_AUTO_DEADLINE for the call's time).
cases_main='
  modes ex45_128 40 "bin/petsc/ksp_ex45 $g" "aijcusparse exact sweeps3 auto"
  modes ex14_128 40 "bin/petsc/snes_ex14 $g -snes_converged_reason" "aijcusparse exact sweeps3 auto"
  for pe in 1 10 100; do modes "convdiff_128_pe$pe" 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=$pe" "exact sweeps3 auto"; done
  modes convdiff_128_pe100_rev 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=100,wx=-1,wy=-0.5" "exact sweeps3 auto"
  modes ex19_128_re100 40 "bin/petsc/snes_ex19 -da_grid_x 128 -da_grid_y 128 -lidvelocity 100 -grashof 1e2 -snes_converged_reason" "exact sweeps3 auto"
  for f in ani4 fidapm05 olm1000 arc130; do modes "mtx_$f" 15 "bin/test/ksp_matrix -f test/matrices/$f.mtx" "exact sweeps3 auto"; done
  modes ex19_512 70 "bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_converged_reason" "sweeps3 auto"
'
cases_256='
  g2="-da_grid_x 256 -da_grid_y 256 -da_grid_z 256"
  modes ex45_256 60 "bin/petsc/ksp_ex45 $g2" "aijcusparse exact sweeps2 sweeps3 isai auto"
  modes ex14_256 90 "bin/petsc/snes_ex14 $g2 -snes_converged_reason" "aijcusparse exact sweeps3 auto"
  modes icc_ex14_128 40 "bin/petsc/snes_ex14 $g -snes_converged_reason -pc_type icc" "aijcusparse exact sweeps3 auto"
'
case ${TRISOLVE_AUTO_PART:-main} in
  256) export TRISOLVE_AUTO_CASES=$cases_256 TRISOLVE_AUTO_SKIP_TESTS=1 ;;
  all) export TRISOLVE_AUTO_CASES="$cases_main$cases_256" ;;
  *) export TRISOLVE_AUTO_CASES=$cases_main ;;
esac
exec bash "$(dirname "$0")/calib.sh"
