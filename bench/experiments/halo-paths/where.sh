#!/bin/bash
# halo-paths, where a 2-GPU product's time goes: bench_spmv on the regular matrices, one rank per
# GPU, evchyb with the ipc and mpi exchanges measured (-mat_gpuformats_halo_measure) and their view
# lines printed (-halo_view): per product the exchange, the local product, the part after the
# ghosts' arrival (the off-process product) and the gap between products; the stencils also with
# the stencil layout off (-mat_gpuformats_stencil off), to test whether DIA carries the extra time.
# 1 rank first, for the local product alone.
set -u
export NCCL_NVLS_ENABLE=0
D=bench/experiments/halo-paths
H=-mat_gpuformats_halo
S=$(mktemp); grep -v "^#" $D/suite.txt | head -${WHERE_MATRICES:-8} >$S
TY2=evchyb:$H=ipc:${H}_measure=true,evchyb:$H=mpi:${H}_measure=true,evchyb:$H=ipc:${H}_measure=true:-mat_gpuformats_stencil=off
for np in 1 2; do
  ty=$([ $np = 1 ] && echo evchyb,evchyb:-mat_gpuformats_stencil=off || echo $TY2)
  timeout ${WHERE_LIMIT:-240} mpiexec -n $np bin/bench_spmv -suite $S -types $ty -halo_view -json $OUT/where-np$np.json -commit $(cat bundle/commit) >$OUT/where-np$np.log 2>&1
  echo "where np$np rc=$?"
  grep -E "^ *evchyb|gpuformats halo: (over|then)" $OUT/where-np$np.log | cut -c1-200 | head -120
done
