#!/usr/bin/env bash
# multigpu, device call 2 (nvidia-h100-x2): after call 1 (the halo enqueued before the local product,
# the NCCL communicator re-made for every matrix) the local product goes first, the halo's stream
# has the highest priority, and one NCCL communicator serves every congruent MPI communicator.
#   1. every product against AIJ again on 2 GPUs (evchyb, suraa: one and several streams)
#   2. bench_spmv 1 and 2 ranks: st7_256 (ex14's 256^3 pattern), st7_200, fem_10_80, each halo path,
#      and the hidden fraction (-mat_gpuformats_halo_measure)
#   3. SNES ex14 256^3 (CG + Jacobi, -log_view without gpu time) on 1 and 2 GPUs, and 256x256x512 on 2
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/t $OUT/ex14
timeout 80 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -halo auto -types evchyb,suraa >$OUT/t/matmult-2gpu-auto.log 2>&1
echo "matmult 2 GPUs: rc=$? $(grep -c '^ok' $OUT/t/matmult-2gpu-auto.log) ok, $(grep -c '^not ok' $OUT/t/matmult-2gpu-auto.log) not ok; $(grep -o 'halo_auto_used_[a-z]*' $OUT/t/matmult-2gpu-auto.log | sort | uniq -c | tr '\n' ' ')"
printf 'st7_256 stencil3d7:n=256\nst7_200 stencil3d7:n=200\nfem_10_80 fem:nnz=50M,min=10,max=80\n' >/tmp/multigpu.txt
TY=aijcusparse,evchyb,pjds,evchyb:-mat_gpuformats_halo=mpi,evchyb:-mat_gpuformats_halo=vecscatter,evchyb:-mat_gpuformats_halo_measure=true,pjds:-mat_gpuformats_halo_measure=true
for np in 1 2; do
  timeout 110 mpiexec -n $np bin/bench_spmv -suite /tmp/multigpu.txt -types $TY -json $OUT/spmv2-np$np.json -commit $(cat bundle/commit) >$OUT/spmv2-np$np.log 2>&1; echo "bench np$np rc=$?"
  grep -E "^GPU of each|^ *(aijcusparse|evchyb|pjds)" $OUT/spmv2-np$np.log | cut -c1-75
done
grep -o '"halo[a-z_]*": [^,]*' $OUT/spmv2-np2.json | paste -sd' ' | fold -w 220
A="-da_grid_x 256 -da_grid_y 256 -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_vec_type cuda -use_gpu_aware_mpi 0 -snes_converged_reason -log_view"
ex14() { local tag=$1 np=$2 z=$3 t=$4; shift 4
  timeout 80 mpiexec -n $np bin/petsc/snes_ex14 $A -da_grid_z $z -mat_type $t $([ $t != aijcusparse ] && echo -dll_append $L) "$@" >$OUT/ex14/$tag.log 2>&1
  echo "$tag rc=$?: $(grep -m1 -o 'converged due to [A-Z_]*' $OUT/ex14/$tag.log) $(awk '$1 ~ /^(SNESSolve|KSPSolve|MatMult|GFSpMV|GFHalo|VecScatterBegin|VecScatterEnd|SNESJacobianEval)$/ {printf "%s %s %s | ", $1, $2, $4}' $OUT/ex14/$tag.log)"; }
ex14 np2-evchyb 2 256 evchyb
ex14 np2-aijcusparse 2 256 aijcusparse
ex14 np1-evchyb 1 256 evchyb
ex14 np1-aijcusparse 1 256 aijcusparse
ex14 weak-np2-evchyb 2 512 evchyb
ex14 weak-np2-aijcusparse 2 512 aijcusparse
cd $OUT && tar czf ex14-logs.tgz ex14 t && rm -rf ex14 t
