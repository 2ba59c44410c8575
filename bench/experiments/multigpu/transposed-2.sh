#!/usr/bin/env bash
# multigpu, device call "transposed" 2: MG at 161^3 (a DMDA coarsens (n - 1) / 2: 160 cannot), with
# and without event GPU times, and BiCG + Jacobi at 97^3, where it ran below mpiaijcusparse.
#   config/gpu-run.sh exec bash bench/experiments/multigpu/transposed-2.sh       (2 GPUs)
set -u
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/tr
EV='^(KSPSolve|PCSetUp|PCApply|MatMult|MatMultAdd|MatMultTranspose|MatMultTrAdd|MatRestrict|MatInterp|MatSOR|MatResidual|VecScatterBegin|VecCUDACopyTo|VecCUDACopyFrom|GFSpMV|GFHalo|GFTranspose|GFToHost|GFBuild|KSPSetUp|PCSetUpOnBlocks) '
run() { local tag=$1 t=$2 n=$3; shift 3
  timeout 100 mpiexec --bind-to none -n 2 bin/petsc/ksp_ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view -mat_type $t -dm_mat_type $t $([ $t != mpiaijcusparse ] && echo -dll_append $L) "$@" >$OUT/tr/$tag.log 2>&1
  echo "== $tag rc=$? $(grep -m1 'Linear solve' $OUT/tr/$tag.log)"
  grep -E "$EV" $OUT/tr/$tag.log | awk '{printf "   %-16s %7s %10s\n", $1, $2, $4}'; }
for t in mpiaijcusparse evchyb; do
  run mg161-$t $t 161 -ksp_type cg -pc_type mg -pc_mg_levels 4
  run mg161-$t-gpu $t 161 -ksp_type cg -pc_type mg -pc_mg_levels 4 -log_view_gpu_time
  run bicg97-$t $t 97 -ksp_type bicg -pc_type jacobi
done
(cd $OUT && tar czf tr-logs.tgz tr && rm -rf tr)
