#!/usr/bin/env bash
# multigpu, device call 4 (nvidia-h100-x2): the NCCL communicator now made at the first final assembly.
#   1. SNES ex14 256^3 (CG + Jacobi, -log_view without gpu time) on 2 GPUs: evchyb (nccl), evchyb
#      with -mat_gpuformats_halo mpi, aijcusparse
#   2. bench_spmv 1 and 2 ranks, evchyb and aijcusparse, the suite matrices calls 1-2 left out or
#      measured before the halo's reordering
#   0. the device builders of EVC-HYB and SURAA against their host builders
#   3. compute-sanitizer memcheck on the stream path (2 ranks, 2 GPUs, nccl)
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/ex14
A="-da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_vec_type cuda -use_gpu_aware_mpi 0 -snes_converged_reason -log_view"
ex14() { local tag=$1 np=$2 t=$3; shift 3
  timeout 60 mpiexec -n $np bin/petsc/snes_ex14 $A -mat_type $t $([ $t != aijcusparse ] && echo -dll_append $L) "$@" >$OUT/ex14/$tag.log 2>&1
  echo "$tag rc=$?: $(grep -m1 -o 'converged due to [A-Z_]*' $OUT/ex14/$tag.log) $(awk '$1 ~ /^(SNESSolve|KSPSolve|MatMult|GFHalo|MatAssemblyEnd|SNESJacobianEval)$/ {printf "%s %s %s %s | ", $1, $2, $4, $(NF-15)}' $OUT/ex14/$tag.log)"; }
# the device-builder moves (EVC-HYB, SURAA templated on the device system): device builds against host builds
for f in evchyb suraa; do
  timeout 45 bin/test/test_formats_cuda test/matrices $f quick >$OUT/ex14/formats-$f.log 2>&1
  echo "test_formats_cuda $f: rc=$? $(grep -c '^ok' $OUT/ex14/formats-$f.log) ok, $(grep -c '^not ok' $OUT/ex14/formats-$f.log) not ok"
done
ex14 np2-evchyb 2 evchyb
ex14 np2-evchyb-mpi 2 evchyb -mat_gpuformats_halo mpi
ex14 np2-aijcusparse 2 aijcusparse
S=band_10,fem_20_80,blocks5,st27_128,st5_3200,rmat_s24,rand_1_5pct,long_2x20,long_2x25,circuit,x_crack,x_ani4,x_dwt_2680,x_bcsstk02,x_ship04l,x_rajat11,x_powergrid,x_ca_grqc
for np in 1 2; do
  timeout 120 mpiexec -n $np bin/bench_spmv -suite bench/suites/default.txt -only $S -types aijcusparse,evchyb -json $OUT/spmv3-np$np.json -commit $(cat bundle/commit) >$OUT/spmv3-np$np.log 2>&1; echo "bench np$np rc=$?"
done
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 50 mpiexec -n 2 $san --tool memcheck --error-exitcode 99 bin/test/test_matmult -dir test/matrices -quick -types evchyb -halo nccl >$OUT/ex14/sanitizer-nccl.log 2>&1
echo "sanitizer memcheck (nccl, 2 GPUs): rc=$? $(grep -c '^ok' $OUT/ex14/sanitizer-nccl.log) ok, $(grep -c '^not ok' $OUT/ex14/sanitizer-nccl.log) not ok; $(grep -m3 'ERROR SUMMARY\|Invalid' $OUT/ex14/sanitizer-nccl.log | tr '\n' ' ')"
cd $OUT && tar czf ex14-3-logs.tgz ex14 && rm -rf ex14
