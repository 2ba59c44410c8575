#!/bin/bash
# halo-paths, solves: SNES ex14 256^3 (CG + Jacobi) on 1 GPU and on 2 (one rank per GPU) with each
# device halo and mpiaijcusparse; ex14 and ksp ex45 256^3 with the default PC (block Jacobi + ILU(0))
# on 2 GPUs; -log_view (never -log_view_gpu_time: it would serialise the overlap).
set -u
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
H=-mat_gpuformats_halo
mkdir -p $OUT/logs
A="-da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -snes_type newtonls -snes_rtol 1e-8 -ksp_rtol 1e-8 -dm_vec_type cuda -use_gpu_aware_mpi 0 -snes_converged_reason -log_view"
run() { local tag=$1 np=$2 t=$3 app=$4; shift 4
  timeout ${RUN_LIMIT:-90} mpiexec --bind-to none -n $np bin/petsc/$app $A -dm_mat_type $t -mat_type $t $([ $t != aijcusparse ] && echo -dll_append $L) "$@" >$OUT/logs/$tag.log 2>&1
  echo "$tag rc=$?: $(grep -m1 -o 'converged due to [A-Z_]*' $OUT/logs/$tag.log) $(awk '$1 ~ /^(SNESSolve|KSPSolve|MatMult|MatSolve|PCApply|GFHalo|VecCUDACopyTo|VecCUDACopyFrom)$/ {printf "%s %s %s | ", $1, $2, $4}' $OUT/logs/$tag.log) its $(grep -c 'KSP Residual\|Linear solve converged' $OUT/logs/$tag.log)"; }
CG="-ksp_type cg -pc_type jacobi"
for case in ${SOLVER_CASES:-cg default}; do
  if [ $case = cg ]; then
    run ex14-cg-np1-evchyb 1 evchyb snes_ex14 $CG
    run ex14-cg-np1-aijcusparse 1 aijcusparse snes_ex14 $CG
    run ex14-cg-np2-aijcusparse 2 aijcusparse snes_ex14 $CG
    for h in mpi nccl ipc; do run ex14-cg-np2-evchyb-$h 2 evchyb snes_ex14 $CG $H $h; done
    for h in nccl ipc; do run ex14-cg-np2-evchyb-$h-nooverlap 2 evchyb snes_ex14 $CG $H $h ${H}_overlap 0; done
  else
    run ex14-default-np2-aijcusparse 2 aijcusparse snes_ex14 -ksp_converged_reason
    run ex14-default-np2-evchyb-ipc 2 evchyb snes_ex14 -ksp_converged_reason $H ipc
    run ex14-default-np2-evchyb-mpi 2 evchyb snes_ex14 -ksp_converged_reason $H mpi
  fi
done
cd $OUT && tar czf solver-logs.tgz logs && rm -rf logs
