#!/bin/bash
# halo-paths, products: bench_spmv on 1 rank (aijcusparse, evchyb) and on 2 ranks, one per GPU
# (mpiaijcusparse, and evchyb with each device halo: mpi staged, nccl, nccl without overlap, ipc, ipc
# with the hidden fraction measured). SPMV_NP picks the rank counts.
set -u
export NCCL_NVLS_ENABLE=0
D=bench/experiments/halo-paths
H=-mat_gpuformats_halo
TY2=aijcusparse,evchyb:$H=mpi,evchyb:$H=nccl,evchyb:$H=nccl:${H}_overlap=false,evchyb:$H=ipc,evchyb:$H=ipc:${H}_measure=true
for np in ${SPMV_NP:-2 1}; do
  ty=$([ $np = 1 ] && echo aijcusparse,evchyb || echo $TY2)
  timeout ${SPMV_LIMIT:-400} mpiexec -n $np bin/bench_spmv -suite $D/suite.txt -types $ty -json $OUT/spmv-np$np.json -commit $(cat bundle/commit) >$OUT/spmv-np$np.log 2>&1
  echo "bench np$np rc=$?"
  grep -E "^GPU of each|^ *(aijcusparse|evchyb)" $OUT/spmv-np$np.log | cut -c1-90 | head -90
done
