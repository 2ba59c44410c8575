#!/usr/bin/env bash
# transpose, device call 8: the plugin with hidden symbols (exports.map), tests linked with the internal
# archive: GPU checks (upload, formats, out of memory, products on 1 and 2 ranks), and ex45 BiCG with
# -mat_view ::ascii_info after the solve (the transposed layout's memory line).
for t in test_upload test_formats_cuda test_oom; do
  timeout 120 bin/test/$t test/matrices >$OUT/gpu-$t.log 2>&1; echo "$t: rc $? $(grep -c '^ok' $OUT/gpu-$t.log) ok, $(grep -c '^not ok' $OUT/gpu-$t.log) not ok"
done
for np in 1 2; do
  timeout 200 mpiexec -n $np bin/test/test_matmult -dir test/matrices -quick >$OUT/gpu-matmult-np$np.log 2>&1
  echo "matmult np$np: $(grep -c '^ok' $OUT/gpu-matmult-np$np.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np$np.log) not ok"
done
for np in 1 2; do
  mpiexec -n $np bin/petsc/ksp_ex45 -da_grid_x 64 -da_grid_y 64 -da_grid_z 64 -ksp_type bicg -pc_type jacobi -dll_append $PWD/lib/libgpuformats.so -mat_type aijevchyb -dm_mat_type aijevchyb -vec_type cuda -dm_vec_type cuda -ksp_converged_reason -ksp_view_mat ::ascii_info 2>&1 | grep -iE "converged|transpos|cuSPARSE view|rows|local block:" | head -12
done
