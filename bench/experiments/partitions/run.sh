#!/bin/bash
# partitions: where a partitioned layout (formats/partitioned; gpuauto's -mat_gpuauto_partition)
# pays, and that it gives AIJ's answers on the GPU. First a calibration of this GPU (DIA included);
# then bench_partition, with that model, times every candidate on each
# matrix of bench/suites/partition.txt whole and on each of its two parts, then the partition of the
# parts' fastest, beside the model's predictions; then ksp_matrix solves with gpuauto's DP partition
# (built from a model that splits, as test/run.sh's check) against AIJ, with Dirichlet rows changing
# the values through the slot map between two solves.
set -u
# The model: this GPU's calibration with DIA (about 4 minutes); MODEL_FILE=<file> takes that one
# (a calibration an earlier call brought back), CALIBRATE=0 the committed file. PART_ONLY=a,b
# measures those matrices of the suite only (the suite takes about 10 s a matrix on an H100).
MODEL=${MODEL_FILE:+-model $MODEL_FILE}
if [ -z "$MODEL" ] && [ "${CALIBRATE:-1}" = 1 ]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
  timeout ${CALIBRATE_LIMIT:-420} bin/gpuformats_calibrate -o $OUT/$gpu.json >$OUT/$gpu.calibrate.txt 2>$OUT/calibrate.err
  echo "calibrate rc=$?"; tail -9 $OUT/$gpu.calibrate.txt
  [ -s $OUT/$gpu.json ] && MODEL="-model $OUT/$gpu.json"
fi
timeout ${PART_LIMIT:-330} bin/bench_partition $MODEL ${PART_ONLY:+-only $PART_ONLY} -json $OUT/partition.json -reps ${PART_REPS:-20} >$OUT/partition.log 2>&1
echo "bench_partition rc=$?"
cut -c1-220 $OUT/partition.log
python3 test/petsc/split_model.py share/gpuformats/models/nvidia-h100-80gb-hbm3.json $OUT/split_model.json
K="bin/test/ksp_matrix -f joined:first=stencil3d7,second=longrows,share=0.5,nnz=2M -ksp_monitor -ksp_max_it 60 -pc_type jacobi -repeat 2 -dirichlet 7"
P="-dll_append lib/libgpuformats.so -mat_type gpuauto -mat_gpuauto_model $OUT/split_model.json -mat_gpuauto_strip_rows 4096"
$K $P -mat_gpuauto_partition force -mat_view ::ascii_info >$OUT/solve-partition.log 2>&1; echo "partition solve rc=$?"
$K -mat_type aij >$OUT/solve-aij.log 2>&1; echo "aij solve rc=$?"
$K $P -mat_gpuauto_partition off >$OUT/solve-one-format.log 2>&1; echo "one-format solve rc=$?"
grep -E "gpuformats: (partition of|gpuauto: partition)|part [0-9]+: rows|ksp_matrix:" $OUT/solve-partition.log | cut -c1-200
echo "partition vs aij: $(python3 test/petsc/compare_runs.py $OUT/solve-partition.log $OUT/solve-aij.log)"
echo "one format vs aij: $(python3 test/petsc/compare_runs.py $OUT/solve-one-format.log $OUT/solve-aij.log)"
# A stencil part in the stencil layout: this GPU's model (the calibration's, else the committed one)
# splits a convection-diffusion stencil (85%) from a block FEM matrix (both diagonally dominant, so
# the solves converge: R-MAT or long rows beside the stencil made systems that failed for
# aijcusparse as for us); GMRES + Jacobi and GMRES + the default PC (ILU(0), its factorization read
# through the partition's slot map), each with Dirichlet rows between two solves.
D="-f joined:first=convdiff3d,second=blockfem,share=0.85,nnz=20M -ksp_monitor -ksp_max_it 60 -repeat 2 -dirichlet 7"
for pc in "-ksp_type gmres -pc_type jacobi" "-ksp_type gmres"; do
  n=$(echo $pc | awk '{print $NF}')
  bin/test/ksp_matrix $D $pc -dll_append lib/libgpuformats.so -mat_type gpuauto ${MODEL:+-mat_gpuauto_model ${MODEL#-model }} -mat_gpuauto_partition force -mat_view ::ascii_info >$OUT/solve-dia-$n.log 2>&1; echo "dia-part $n solve rc=$?"
  bin/test/ksp_matrix $D $pc -mat_type aijcusparse >$OUT/solve-dia-$n-ref.log 2>&1; echo "aijcusparse $n solve rc=$?"
  grep -E "gpuauto: partition|part [0-9]+: rows" $OUT/solve-dia-$n.log | cut -c1-200
  echo "dia-part $n vs aijcusparse: $(python3 test/petsc/compare_runs.py $OUT/solve-dia-$n.log $OUT/solve-dia-$n-ref.log)"
done
# the device tool brings back 8 files: the solve logs go as one archive
(cd $OUT && tar -cJf solve-logs.tar.xz solve-*.log && rm -f solve-*.log)
