#!/usr/bin/env bash
# transpose, device call 3: where KSPSolve's time goes in ex45 128^3 BiCG + Jacobi (the first product
# builds the layout inside KSPSolve): KSPSolve with staged (4 threads) and pageable (1) uploads,
# -info build lines, and event times with -log_view_gpu_time.
E="bin/petsc/ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi -dll_append $PWD/lib/libgpuformats.so -vec_type cuda -dm_vec_type cuda -log_view"
mkdir -p $OUT/r3
for rep in 1 2; do
  $E -mat_type aijcusparse -dm_mat_type aijcusparse >$OUT/r3/aijcusparse-$rep.log 2>&1
  for ut in 4 1; do
    $E -mat_type aijevchyb -dm_mat_type aijevchyb -mat_gpuformats_upload_threads $ut -info :mat >$OUT/r3/evchyb-ut$ut-$rep.log 2>&1
  done
done
for f in $OUT/r3/*.log; do echo "$(basename $f): $(grep -E '^KSPSolve ' $f | awk '{print $4}') $(grep -h 'gpuformats: evchyb build' $f | sed 's/.*nonzeros: //' | head -2 | tr '\n' ' ')"; done
for t in aijcusparse aijevchyb; do
  $E -mat_type $t -dm_mat_type $t -log_view_gpu_time >$OUT/r3/gt-$t.log 2>&1
  echo "== $t gpu time"; grep -E "^(MatMult |MatMultTranspose|KSPSolve|GFBuild|GFTransposeFill|MatCUSPARSCopyTo|PCApply|VecDot|VecAXPY|VecAYPX|VecNorm|VecPointwiseMult|VecCopy) " $OUT/r3/gt-$t.log | awk '{print $1, $2, $4}'
done
cd $OUT && tar czf r3.tgz r3 && rm -rf r3
