#!/usr/bin/env bash
# multigpu, device call "transposed": the solver paths that ran below mpiaijcusparse on 2 GPUs (MG
# on the DMDA, BiCG: both take transposed products), timed event by event, and GAMG on 2 GPUs after
# the fix of the adopted block's pattern operations. One rank per GPU, -log_view without GPU-time
# syncs (then once with them for the events' GPU times), staged MPI (-use_gpu_aware_mpi 0).
#   config/gpu-run.sh exec bash bench/experiments/multigpu/transposed.sh       (2 GPUs)
set -u
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
N=${TR_N:-160}
mkdir -p $OUT/transposed
G="-da_grid_x $N -da_grid_y $N -da_grid_z $N -vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view"
EV='^(KSPSolve|PCSetUp|PCApply|MatMult|MatMultAdd|MatMultTranspose|MatMultTrAdd|MatRestrict|MatInterpolate|MatSOR|MatResidual|VecScatterBegin|VecScatterEnd|VecCUDACopyTo|VecCUDACopyFrom|GFSpMV|GFHalo|GFTranspose|GFToHost|GFBuild) '
run() { local tag=$1 t=$2; shift 2
  timeout ${TR_LIMIT:-100} mpiexec --bind-to none -n 2 bin/petsc/ksp_ex45 $G -mat_type $t -dm_mat_type $t $([ $t != mpiaijcusparse ] && echo -dll_append $L) "$@" >$OUT/transposed/$tag.log 2>&1
  echo "== $tag rc=$? $(grep -m1 -o 'GPU of each rank.*\|Linear solve converged.*' $OUT/transposed/$tag.log | head -1)"
  grep -E "$EV" $OUT/transposed/$tag.log | awk '{printf "   %-16s %7s %10s\n", $1, $2, $4}'; }
for t in mpiaijcusparse evchyb; do
  run mg-$t $t -ksp_type cg -pc_type mg -pc_mg_levels 4 -ksp_converged_reason
  run bicg-$t $t -ksp_type bicg -pc_type jacobi -ksp_converged_reason
done
run mg-evchyb-gputime evchyb -ksp_type cg -pc_type mg -pc_mg_levels 4 -log_view_gpu_time
run mg-mpiaijcusparse-gputime mpiaijcusparse -ksp_type cg -pc_type mg -pc_mg_levels 4 -log_view_gpu_time
for t in mpiaijcusparse evchyb; do
  timeout 100 mpiexec --bind-to none -n 2 bin/petsc/ksp_ex45 -da_grid_x 97 -da_grid_y 97 -da_grid_z 97 -vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 -pc_type gamg -ksp_monitor -ksp_converged_reason -mat_type $t -dm_mat_type $t $([ $t != mpiaijcusparse ] && echo -dll_append $L) >$OUT/transposed/gamg-$t.log 2>&1
  echo "gamg np2 $t rc=$? $(grep -m1 'Linear solve' $OUT/transposed/gamg-$t.log)"
done
echo "gamg evchyb vs mpiaijcusparse: $(python3 test/petsc/compare_runs.py $OUT/transposed/gamg-evchyb.log $OUT/transposed/gamg-mpiaijcusparse.log)"
(cd $OUT && tar czf transposed-logs.tgz transposed && rm -rf transposed)
