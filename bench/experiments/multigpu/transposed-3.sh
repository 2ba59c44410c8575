#!/usr/bin/env bash
# multigpu, device call "transposed" 3: MG at 161^3 with the DM naming our type (-dm_mat_type
# aijevchyb: a DMDA makes its interpolation of the DM's type only for an aij* name, so with
# -dm_mat_type evchyb the interpolation was plain AIJ on the host), twice beside mpiaijcusparse; BiCG
# + Jacobi at 97^3 with and without event GPU times.
#   config/gpu-run.sh exec bash bench/experiments/multigpu/transposed-3.sh       (2 GPUs)
set -u
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/tr3
EV='^(KSPSolve|PCApply|MatMult|MatMultAdd|MatMultTranspose|MatSOR|MatResidual|VecScatterBegin|VecScatterEnd|VecCUDACopyTo|VecCUDACopyFrom|GFSpMV|GFHalo|GFTranspose|GFToHost|GFBuild|VecDot|VecAXPY|VecAYPX|VecPointwiseMult|VecNorm|VecTDot) '
run() { local tag=$1 t=$2 dt=$3 n=$4; shift 4
  timeout 100 mpiexec --bind-to none -n 2 bin/petsc/ksp_ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 -log_view -mat_type $t -dm_mat_type $dt $([ $t != mpiaijcusparse ] && echo -dll_append $L) "$@" >$OUT/tr3/$tag.log 2>&1
  echo "== $tag rc=$? $(grep -m1 'Linear solve' $OUT/tr3/$tag.log)"
  grep -E "$EV" $OUT/tr3/$tag.log | awk '{printf "   %-16s %7s %10s\n", $1, $2, $4}'; }
for rep in 1 2; do
run mg161-evchyb-aijdm-$rep evchyb aijevchyb 161 -ksp_type cg -pc_type mg -pc_mg_levels 4 -ksp_converged_reason
run mg161-aijcusparse-$rep mpiaijcusparse mpiaijcusparse 161 -ksp_type cg -pc_type mg -pc_mg_levels 4 -ksp_converged_reason
done
run bicg97-evchyb-gpu evchyb aijevchyb 97 -ksp_type bicg -pc_type jacobi -log_view_gpu_time
run bicg97-aijcusparse-gpu mpiaijcusparse mpiaijcusparse 97 -ksp_type bicg -pc_type jacobi -log_view_gpu_time
run bicg97-evchyb evchyb aijevchyb 97 -ksp_type bicg -pc_type jacobi
run bicg97-aijcusparse mpiaijcusparse mpiaijcusparse 97 -ksp_type bicg -pc_type jacobi
(cd $OUT && tar czf tr3-logs.tgz tr3 && rm -rf tr3)
