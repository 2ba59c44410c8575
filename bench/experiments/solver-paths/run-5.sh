#!/usr/bin/env bash
# solver-paths, device call 5: transposed products with and without the explicit device transpose (ex45 128^3
# BiCG + Jacobi, KSPSolve without -log_view_gpu_time, then event GPU times with it); products checked.
for np in 1 2; do
  mpiexec -n $np bin/test/test_matmult -dir test/matrices -quick >"$OUT/gpu-matmult-np$np.log" 2>&1
  echo "gpu matmult np$np: $(grep -c '^ok' "$OUT/gpu-matmult-np$np.log") ok, $(grep -c '^not ok' "$OUT/gpu-matmult-np$np.log") not ok"
done
printf 'ex45_128_bicg_jacobi | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi\n' >/tmp/bicg.txt
SOLVERS_OUT=$OUT/bicg-128-explicit bench/solvers.sh /tmp/bicg.txt aijcusparse evchyb pjds
SOLVERS_ARGS="-mat_gpuformats_explicit_transpose 0" SOLVERS_OUT=$OUT/bicg-128-implicit bench/solvers.sh /tmp/bicg.txt evchyb
SOLVERS_NP=2 SOLVERS_OUT=$OUT/bicg-128-np2-explicit bench/solvers.sh /tmp/bicg.txt aijcusparse evchyb pjds
for t in aijcusparse evchyb; do echo "== $t, -log_view_gpu_time"; bin/petsc/ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi -dll_append $PWD/lib/libgpuformats.so -mat_type $t -dm_mat_type $t -vec_type cuda -dm_vec_type cuda -log_view -log_view_gpu_time 2>&1 | grep -E "^(MatMult |MatMultTranspose|KSPSolve|GFSpMV|GFViewFill|MatCUSPARSCopyTo|MatTranspose)" | awk '{print $1, $2, $4}'; done
cd "$OUT" && for d in bicg-128-explicit bicg-128-implicit bicg-128-np2-explicit; do tar -czf $d-logs.tgz $d/*.log && rm -f $d/*.log; done
