#!/usr/bin/env bash
# iluk, device call "measure": ILU(1) applied in our formats against aijcusparse's ILU(1)
# (factored on the host, cuSPARSE's solves) and against our exact mode; and auto with its default
# margin (0.4) on the cases that decided it (trisolve-auto's final.sh, never run there). PETSc's default PC
# otherwise; logs, -ksp_view, -log_view -> $OUT/calib.json (trisolve-auto's calib.sh and summarize.py).
#   run(command="bash bench/experiments/iluk/measure.sh", carry=["bundle"], kind="nvidia-h200")
export TRISOLVE_AUTO_SKIP_TESTS=1 TRISOLVE_AUTO_DEADLINE=${TRISOLVE_AUTO_DEADLINE:-400} TRISOLVE_AUTO_CASES='
  modes kex45_128 30 "bin/petsc/ksp_ex45 $g -pc_factor_levels 1" "aijcusparse exact sweeps3 auto"
  modes kex14_128 45 "bin/petsc/snes_ex14 $g -snes_converged_reason -pc_factor_levels 1" "aijcusparse exact sweeps3 auto"
  modes kex19_256 45 "bin/petsc/snes_ex19 -da_grid_x 256 -da_grid_y 256 -snes_converged_reason -pc_factor_levels 1" "aijcusparse exact sweeps3 auto"
  modes kconvdiff_128_pe10 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=10 -pc_factor_levels 1" "exact auto"
  modes fconvdiff_128_pe10 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=10" "exact auto"
  modes fconvdiff_128_pe100_rev 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=100,wx=-1,wy=-0.5" "exact auto"
  modes fmtx_ani4 15 "bin/test/ksp_matrix -f test/matrices/ani4.mtx" "exact auto"
  modes fex45_128 30 "bin/petsc/ksp_ex45 $g" "aijcusparse auto"
  modes fex45_256 45 "bin/petsc/ksp_ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256" "auto"
'
bash "$(dirname "$0")/../trisolve-auto/calib.sh"
# the block format's benchmark, when built
[ -f bench/experiments/bell-kernels/run.sh ] && timeout 150 bash bench/experiments/bell-kernels/run.sh
