#!/usr/bin/env bash
# inplace-edits, device call 5: the in-place edits on CUDA vectors (test_matmult, 1 rank, quick set), and the
# device time per edit against a product: ts ex4 (4M rows, 20 steps) with -log_view_gpu_time, evchyb.
timeout 200 bin/test/test_matmult -dir test/matrices -quick >$OUT/gpu-matmult-np1.log 2>&1
echo "gpu matmult np1: $(grep -c '^ok' $OUT/gpu-matmult-np1.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np1.log) not ok"; grep '^not ok' $OUT/gpu-matmult-np1.log | head -5
timeout 200 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -types evchyb,suraa >$OUT/gpu-matmult-np2.log 2>&1
echo "gpu matmult np2: $(grep -c '^ok' $OUT/gpu-matmult-np2.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np2.log) not ok"; grep '^not ok' $OUT/gpu-matmult-np2.log | head -5
L=$PWD/lib/libgpuformats.so
for t in aijevchyb aijcusparse; do
  timeout 60 bin/petsc/ts_ex4 -nox -m 4000000 -ts_type beuler -ts_max_steps 20 -pc_type jacobi -ksp_rtol 1e-8 -dll_append $L -mat_type $t -dm_vec_type cuda -log_view -log_view_gpu_time >$OUT/ts4-gputime-$t.log 2>&1
  grep -E "^(GFEdit|GFSpMV|MatMult|MatAXPY|MatZeroEntries|MatShift|TSStep|KSPSolve|MatCUSPARSCopyTo) " $OUT/ts4-gputime-$t.log
done
