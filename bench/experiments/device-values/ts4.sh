#!/usr/bin/env bash
# ts ex4 (4M rows, backward Euler, 20 steps, Jacobi) as a new user runs it, beside aijcusparse:
# the vectors from the DM (-dm_vec_type cuda) or only -vec_type cuda, -log_view; one run with
# -log_view_gpu_time. Iterations per step and the events of the edits and products.
# Run by config/gpu-run.sh exec bash bench/experiments/device-values/ts4.sh [steps]
L=$PWD/lib/libgpuformats.so
S=${1:-20}
base="bin/petsc/ts_ex4 -nox -m 4000000 -ts_type beuler -ts_max_steps $S -pc_type jacobi -ksp_converged_reason -dll_append $L -options_left 0"
ev='^(GFToHost|GFEdit|GFSpMV|GFBuild|GFRefresh|MatMult|MatAXPY|MatZeroEntries|MatShift|MatScale|TSStep|KSPSolve|PCApply|MatGetDiagonal|MatCUSPARSCopyTo|MatCUSPARSCopyFr|VecCUDACopyTo|VecCUDACopyFrom|MatAssemblyEnd|MatConvert) '
run() { # name, options
  local n=$1; shift
  timeout 120 $base "$@" -log_view >$OUT/ts4-$n.log 2>&1
  echo "== $n: its $(grep -o 'iterations [0-9]*' $OUT/ts4-$n.log | awk '{print $2}' | tr '\n' ' ')"
  grep -E "$ev" $OUT/ts4-$n.log | cut -c1-62
}
for vt in dm vec; do
  for t in aijcusparse evchyb; do
    if [ $vt = dm ]; then run "$vt-$t" -mat_type $t -dm_vec_type cuda; else run "$vt-$t" -mat_type $t -vec_type cuda; fi
  done
done
run gputime-evchyb -mat_type evchyb -dm_vec_type cuda -log_view_gpu_time
run gputime-aijcusparse -mat_type aijcusparse -dm_vec_type cuda -log_view_gpu_time
