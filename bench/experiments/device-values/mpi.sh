#!/usr/bin/env bash
# The mpi types' device values beside mpiaijcusparse, NP ranks (default 2; on a one-GPU machine they
# share it): test_matmult -quick (every host path after each edit and COO assembly, against AIJ),
# ts ex4 (an edit of both blocks every step) with -log_view, and coo_poisson (MatSetValuesCOO from
# device memory, some rows given by another rank: -shift_rows) at 128^3 and 160^3.
# Run by config/gpu-run.sh exec bash bench/experiments/device-values/mpi.sh
L=$PWD/lib/libgpuformats.so
NP=${NP:-2}
M="mpiexec -n $NP"
PHASES=${MPI_PHASES:-"test ts coo"}
if [[ $PHASES == *test* ]]; then
  timeout 500 $M bin/test/test_matmult -dir test/matrices -quick -types evchyb,gpuauto >$OUT/mpi-test_matmult.log 2>&1
  echo "test_matmult np$NP: $(grep -c '^ok' $OUT/mpi-test_matmult.log) ok, $(grep -c '^not ok' $OUT/mpi-test_matmult.log) not ok"
  grep '^not ok' $OUT/mpi-test_matmult.log | head -20
fi
ev='^(GFToHost|GFEdit|GFSpMV|GFBuild|GFRefresh|MatMult|MatAXPY|MatZeroEntries|MatShift|TSStep|KSPSolve|PCApply|MatCUSPARSCopyTo|MatCUSPARSCopyFr|VecCUDACopyTo|VecCUDACopyFrom) '
if [[ $PHASES == *ts* ]]; then
  for t in aijcusparse evchyb; do
    timeout 150 $M bin/petsc/ts_ex4 -nox -m 4000000 -ts_type beuler -ts_max_steps 20 -pc_type jacobi -ksp_converged_reason -dll_append $L -options_left 0 -mat_type $t -dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view >$OUT/mpi-ts4-$t.log 2>&1
    echo "== ts4 np$NP $t: its $(grep -o 'iterations [0-9]*' $OUT/mpi-ts4-$t.log | awk '{print $2}' | tr '\n' ' ')"
    grep -E "$ev" $OUT/mpi-ts4-$t.log | cut -c1-62
  done
fi
if [[ $PHASES == *coo* ]]; then
  for t in aijcusparse evchyb; do
    for n in 128 160; do
      for dup in 1 2; do
        timeout 200 $M bin/coo_poisson -dll_append $L -vec_type cuda -use_gpu_aware_mpi 0 -options_left 0 -mat_type $t -n $n -dup $dup -device_values 1 -shift_rows 1000 -solve 0 >$OUT/mpi-coo-$t-$n-$dup.log 2>&1
        grep '^{' $OUT/mpi-coo-$t-$n-$dup.log >>$OUT/mpi-coo.jsonl || { echo "coo $t $n $dup failed"; tail -5 $OUT/mpi-coo-$t-$n-$dup.log; }
      done
    done
    timeout 200 $M bin/coo_poisson -dll_append $L -vec_type cuda -use_gpu_aware_mpi 0 -options_left 0 -mat_type $t -n 160 -device_values 1 -shift_rows 1000 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -log_view >$OUT/mpi-coo-$t-160-solve.log 2>&1
    grep '^{' $OUT/mpi-coo-$t-160-solve.log >>$OUT/mpi-coo.jsonl
    grep -E "^(KSPSolve|MatMult|MatSetVCOO|GFBuild|GFToHost|VecCUDACopyTo|VecCUDACopyFrom) " $OUT/mpi-coo-$t-160-solve.log | cut -c1-62
  done
  cat $OUT/mpi-coo.jsonl
fi
(cd $OUT && tar czf mpi-logs.tgz mpi-*.log && rm -f mpi-*.log)
