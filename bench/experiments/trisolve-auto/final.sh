#!/usr/bin/env bash
# trisolve-auto, device call "final": auto with its default margin (0.4) on the cases that decide it.
#   run(command="bash bench/experiments/trisolve-auto/final.sh", carry=["bundle"], kind="nvidia-h200")
export TRISOLVE_AUTO_SKIP_TESTS=1 TRISOLVE_AUTO_CASES='
  modes fconvdiff_128_pe10 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=10" "exact auto"
  modes fconvdiff_128_pe100_rev 30 "bin/test/ksp_matrix -f convdiff3d:n=128,pe=100,wx=-1,wy=-0.5" "exact auto"
  modes fmtx_ani4 15 "bin/test/ksp_matrix -f test/matrices/ani4.mtx" "exact auto"
  modes fex45_128 30 "bin/petsc/ksp_ex45 $g" "aijcusparse auto"
  modes fex45_256 40 "bin/petsc/ksp_ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256" "auto"
'
exec bash "$(dirname "$0")/calib.sh"
