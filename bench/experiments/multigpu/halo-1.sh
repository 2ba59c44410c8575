#!/usr/bin/env bash
# multigpu, device call 1 (nvidia-h100-x2, one rank per GPU): the device-resident halo exchange.
#   1. every type against AIJ on 2 GPUs, -halo auto (nccl where it serves) and mpi (staged);
#      2 ranks on one GPU (auto must fall back to vecscatter; nccl asked for must be a clear error)
#   2. bench_spmv on 1 and 2 ranks, same binary: structured and irregular matrices of the default suite
#   3. the hidden fraction on st7_200 and fem_10_80 (-mat_gpuformats_halo_measure)
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
nvidia-smi topo -m >$OUT/topo.txt 2>&1; head -5 $OUT/topo.txt
counts() { echo "$1: $(grep -c '^ok' $2) ok, $(grep -c '^not ok' $2) not ok; $(grep -o 'halo_[a-z]*_used_[a-z]*' $2 | sort | uniq -c | tr '\n' ' ')"; grep '^not ok' $2 | head -5; }
mkdir -p $OUT/t
for h in auto mpi; do
  timeout ${T_TEST:-140} mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -halo $h >$OUT/t/matmult-2gpu-$h.log 2>&1; echo "rc=$?"
  counts "matmult 2 GPUs halo=$h" $OUT/t/matmult-2gpu-$h.log
done
S=st7_200,st27_128,st5_3200,band_10,fem_10_80,fem_20_80,blocks5,rmat_s22,rand_1_300,x_powergrid,x_ca_grqc,circuit
TY=aijcusparse,evchyb,pjds,evchyb:-mat_gpuformats_halo=mpi
for np in 1 2; do
  timeout ${T_BENCH:-170} mpiexec -n $np bin/bench_spmv -suite bench/suites/default.txt -only $S -types $TY -json $OUT/spmv-np$np.json -commit $(cat bundle/commit) >$OUT/spmv-np$np.log 2>&1; echo "bench np$np rc=$?"
  grep -E "^GPU of each|^ *(aijcusparse|evchyb|pjds)" $OUT/spmv-np$np.log | head -60 | cut -c1-100
done
timeout 60 mpiexec -n 2 bin/bench_spmv -suite bench/suites/default.txt -only st7_200,fem_10_80 -types evchyb:-mat_gpuformats_halo_measure=true,pjds:-mat_gpuformats_halo_measure=true -json $OUT/spmv-np2-measure.json -commit $(cat bundle/commit) >$OUT/spmv-np2-measure.log 2>&1; echo "measure rc=$?"
grep -o '"halo[a-z_]*": [^,]*' $OUT/spmv-np2-measure.json | paste -sd' ' | fold -w 200
# two ranks on one GPU
CUDA_VISIBLE_DEVICES=0 timeout 60 mpiexec -n 2 bin/petsc/ksp_ex2 -m 300 -n 300 -dll_append $L -mat_type evchyb -vec_type cuda -ksp_view_mat ::ascii_info -ksp_converged_reason >$OUT/t/ex2-1gpu.log 2>&1; echo "1 GPU auto rc=$?"; grep -E "halo:|CONVERGED" $OUT/t/ex2-1gpu.log | head -3
CUDA_VISIBLE_DEVICES=0 timeout 60 mpiexec -n 2 bin/petsc/ksp_ex2 -m 300 -n 300 -dll_append $L -mat_type evchyb -vec_type cuda -mat_gpuformats_halo nccl >$OUT/t/ex2-1gpu-nccl.log 2>&1; echo "1 GPU nccl rc=$? (must fail)"; grep -m1 "halo nccl" $OUT/t/ex2-1gpu-nccl.log
timeout 60 mpiexec -n 2 bin/petsc/ksp_ex2 -m 300 -n 300 -dll_append $L -mat_type evchyb -vec_type cuda -ksp_view_mat ::ascii_info -ksp_converged_reason >$OUT/t/ex2-2gpu.log 2>&1; echo "2 GPUs auto rc=$?"; grep -E "halo:|CONVERGED" $OUT/t/ex2-2gpu.log | head -4
cd $OUT && tar czf t-logs.tgz t && rm -rf t
