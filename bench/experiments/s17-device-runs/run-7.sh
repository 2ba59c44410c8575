#!/usr/bin/env bash
# s17, device call 7: where SNESSolve goes in ex14 128^3 (CG + Jacobi), event times with
# -log_view_gpu_time; evchyb with 4 upload threads (default) and with 1 (pageable, as aijcusparse).
run() { bin/petsc/snes_ex14 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dll_append $PWD/lib/libgpuformats.so -dm_vec_type cuda -log_view "$@" 2>&1 | grep -E "^(SNESSolve|SNESFunctionEval|SNESJacobianEval|KSPSolve|MatMult |GFBuild|GFRefresh|MatCUSPARSCopyTo|MatAssemblyEnd|SNESLineSearch|VecCUDACopyTo|VecCUDACopyFrom|MatGetDiagonal|PCSetUp)" | awk '{printf "%s %s %s; ", $1, $2, $4} END {print ""}'; }
for t in aijcusparse evchyb; do echo "== $t gpu_time"; run -mat_type $t -log_view_gpu_time; done
for i in 1 2; do
  echo "== aijcusparse"; run -mat_type aijcusparse
  echo "== evchyb threads 4"; run -mat_type evchyb
  echo "== evchyb threads 1"; run -mat_type evchyb -mat_gpuformats_upload_threads 1
done
