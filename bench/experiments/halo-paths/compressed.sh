#!/bin/bash
# halo-paths, the off-process block in compressed rows (layout/compressed_rows.hpp): where.sh found
# ~7 us per million rows of a rank after the ghosts' arrival, a pass over all of y by the
# off-process block, whose rows are almost all empty. One rank per GPU: bench_spmv on the regular
# matrices, evchyb on 1 rank and on 2 with compressed rows on (the default) and off, the halo
# measured and viewed; then SNES ex14 256^3 CG + Jacobi on 1 GPU, on 2 (evchyb both ways,
# mpiaijcusparse), and the products of every type against AIJ on 2 GPUs.
set -u
export NCCL_NVLS_ENABLE=0
D=bench/experiments/halo-paths
H=-mat_gpuformats_halo
L=$PWD/lib/libgpuformats.so
S=$(mktemp); grep -v "^#" $D/suite.txt | head -${COMP_MATRICES:-6} >$S
C=-mat_gpuformats_compressed_rows
for np in 1 2; do
  ty=$([ $np = 1 ] && echo aijcusparse,evchyb || echo aijcusparse,evchyb,evchyb:$C=false,evchyb:${H}_measure=true,evchyb:${H}_measure=true:$C=false)
  timeout ${COMP_LIMIT:-200} mpiexec -n $np bin/bench_spmv -suite $S -types $ty -halo_view -json $OUT/compressed-np$np.json -commit $(cat bundle/commit) >$OUT/compressed-np$np.log 2>&1
  echo "bench np$np rc=$?"
  grep -E "^ *(aijcusparse|evchyb)[^ ]* +gpu|\[0\] gpuformats halo: (over|then)" $OUT/compressed-np$np.log | cut -c1-170 | head -60
done
mkdir -p $OUT/logs
A="-da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_vec_type cuda -use_gpu_aware_mpi 0 -snes_converged_reason -log_view"
run() { local tag=$1 np=$2 t=$3; shift 3
  timeout 90 mpiexec --bind-to none -n $np bin/petsc/snes_ex14 $A -dm_mat_type $t -mat_type $t $([ $t != aijcusparse ] && echo -dll_append $L) "$@" >$OUT/logs/$tag.log 2>&1
  echo "$tag rc=$?: $(grep -m1 -o 'converged due to [A-Z_]*' $OUT/logs/$tag.log) $(awk '$1 ~ /^(SNESSolve|KSPSolve|MatMult|GFHalo)$/ {printf "%s %s %s | ", $1, $2, $4}' $OUT/logs/$tag.log)"; }
run ex14-np1-evchyb 1 evchyb
run ex14-np2-evchyb 2 evchyb
run ex14-np2-evchyb-uncompressed 2 evchyb $C 0
run ex14-np2-aijcusparse 2 aijcusparse
(cd $OUT && tar czf ex14-logs.tgz logs && rm -rf logs)
timeout 150 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc >$OUT/matmult-np2.log 2>&1
echo "test_matmult np2 ipc rc=$?: $(grep -c '^ok' $OUT/matmult-np2.log) ok, $(grep -c '^not ok' $OUT/matmult-np2.log) not ok"
