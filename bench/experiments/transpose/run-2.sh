#!/usr/bin/env bash
# transpose, device call 2: transposed products through the new A^T layout (transpose/): products checked
# on 1 and 2 ranks, bench_spmv -transpose beside aijcusparse, ex45 128^3 BiCG + Jacobi on 1 and 2 ranks.
for np in 1 2; do
  timeout 200 mpiexec -n $np bin/test/test_matmult -dir test/matrices -quick >"$OUT/gpu-matmult-np$np.log" 2>&1
  echo "gpu matmult np$np: $(grep -c '^ok' "$OUT/gpu-matmult-np$np.log") ok, $(grep -c '^not ok' "$OUT/gpu-matmult-np$np.log") not ok"
  grep '^not ok' "$OUT/gpu-matmult-np$np.log" | head -5
done
printf 'st7_128 stencil3d7:n=128\n' >/tmp/t.txt
grep -E '^(st7_200|fem_10_80|rmat_s22|x_crack|x_ani4) ' bench/suites/default.txt >>/tmp/t.txt
timeout 300 bin/bench_spmv -suite /tmp/t.txt -types aijcusparse,evchyb,pjds,pellr,suraa -transpose -refresh_reps 1 -json $OUT/transpose.json >$OUT/transpose.txt 2>&1
grep -E "^\[|MatMultTranspose|^  (aijcusparse|evchyb|pjds|pellr|suraa)" $OUT/transpose.txt | head -80
printf 'ex45_128_bicg_jacobi | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi\n' >/tmp/bicg.txt
SOLVERS_OUT=$OUT/bicg-128 bench/solvers.sh /tmp/bicg.txt aijcusparse evchyb pjds 2>&1 | tail -5
SOLVERS_NP=2 SOLVERS_OUT=$OUT/bicg-128-np2 bench/solvers.sh /tmp/bicg.txt aijcusparse evchyb pjds 2>&1 | tail -5
grep -E "^(MatMultTranspose|GFTransposeFill|KSPSolve|VecCUDACopy)" $OUT/bicg-128/*evchyb*.log
cd "$OUT" && for d in bicg-128 bicg-128-np2; do tar -czf $d-logs.tgz $d/*.log && rm -f $d/*.log; done
