#!/usr/bin/env bash
# gpuauto, last call: the device checks added after the first calls, and gpuauto's own
# choice cost.
#   1. test_formats_cuda (gpu.formats): the strip features from the device CSR against the host's,
#      gpuauto's cuda build against its host build (same features, predictions, choice; product),
#      cuSPARSE CSR's layout against the CSR oracle
#   2. run.sh's petsc.block.mpi_both_blocks command with CUDA vectors (the check counted 2 builds on
#      the GPU for evchyb and gpuauto alike: host vectors ran AIJ's product)
#   3. bench.sh on 8 matrices of the default suite: bench_spmv now records the choice's own time
#      (gpuauto_choice_ms, from the view) against the chosen format's conversion
#   run(command="bash bench/experiments/gpuauto/final.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
timeout 150 bin/test/test_formats_cuda test/matrices >"$OUT/gpu-formats.log" 2>&1
echo "test_formats_cuda exit $? after $SECONDS s: $(grep -c '^ok' "$OUT/gpu-formats.log") ok, $(grep -c '^not ok' "$OUT/gpu-formats.log") not ok"
grep '^not ok' "$OUT/gpu-formats.log" | head -20
grep -c '^ok \(features_device\|gpuauto_cuda\|cusparse_csr\)' "$OUT/gpu-formats.log"
for t in evchyb gpuauto; do
  n=$(mpiexec -n 2 bin/petsc/snes_ex19 -da_grid_x 12 -da_grid_y 10 -dll_append "$L" -dm_mat_type "aij$t" -dm_vec_type cuda -snes_max_it 1 -info -use_gpu_aware_mpi 0 2>&1 | grep -c "gpuformats: bell (block layout, bs 4) build of 240 x")
  echo "ex19 np2 $t, CUDA vectors: $n block builds (4 expected)"
done
GPUAUTO_TIMEOUT=$((570 - SECONDS)) GPUAUTO_ONLY=${GPUAUTO_ONLY:-st7_200,fem_20_80,rmat_s24,rand_1_300,long_2x20,circuit,x_powergrid,x_ca_grqc} bash "$(dirname "$0")/bench.sh"
