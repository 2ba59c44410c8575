#!/usr/bin/env bash
# iluk, device call "measure2": ILU(1) (and ILU(2) on ex14) applied in our formats on the
# cases that decide auto's margin for k > 0. -pc_type ilu is given: ksp ex45 and snes ex19 leave
# -pc_factor_levels unread otherwise (measure.sh's kex45 and kex19 ran ILU(0)).
#   run(command="bash bench/experiments/iluk/measure2.sh", carry=["bundle"], kind="nvidia-h200")
export TRISOLVE_AUTO_SKIP_TESTS=1 TRISOLVE_AUTO_DEADLINE=${TRISOLVE_AUTO_DEADLINE:-520} TRISOLVE_AUTO_CASES='
  K="-pc_type ilu -pc_factor_levels 1"
  modes kex45_128 30 "bin/petsc/ksp_ex45 $g $K" "aijcusparse exact sweeps3 auto"
  modes kex19_256 45 "bin/petsc/snes_ex19 -da_grid_x 256 -da_grid_y 256 -snes_converged_reason $K" "aijcusparse exact sweeps3 auto"
  modes kex19_256_re100 45 "bin/petsc/snes_ex19 -da_grid_x 256 -da_grid_y 256 -lidvelocity 100 -grashof 1e2 -snes_converged_reason $K" "exact sweeps3 auto"
  for pe in 1 100; do modes "kconvdiff_128_pe$pe" 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=$pe $K" "exact sweeps3 auto"; done
  modes kconvdiff_128_pe10 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=10 $K" "sweeps3"
  modes kconvdiff_128_pe100_rev 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=100,wx=-1,wy=-0.5 $K" "exact sweeps3 auto"
  for f in ani4 fidapm05 arc130; do modes "kmtx_$f" 15 "bin/test/ksp_matrix -f test/matrices/$f.mtx $K" "exact sweeps3 auto"; done
  modes k2ex14_128 45 "bin/petsc/snes_ex14 $g -snes_converged_reason -pc_type ilu -pc_factor_levels 2" "aijcusparse exact sweeps3 auto"
'
bash "$(dirname "$0")/../trisolve-auto/calib.sh"
