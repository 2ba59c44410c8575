#!/usr/bin/env bash
# gpuauto: the block layout's -info lines of snes ex19 on 2 ranks, evchyb and gpuauto (run.sh's
# petsc.block.mpi_both_blocks counted 2 block builds for gpuauto on the H200, 4 expected), then bench.sh.
#   run(command="bash bench/experiments/gpuauto/diag.sh", carry=["bundle"], kind="nvidia-h100-x1")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
for t in evchyb gpuauto; do
  mpiexec -n 2 bin/petsc/snes_ex19 -da_grid_x 12 -da_grid_y 10 -dll_append "$L" -dm_mat_type "aij$t" -snes_max_it 1 -info -use_gpu_aware_mpi 0 >"$OUT/ex19-info-$t.log" 2>&1
  echo "$t exit $?: $(grep -c 'gpuformats: bell (block layout, bs 4) build of 240 x' "$OUT/ex19-info-$t.log") block builds"
  grep "gpuformats: .* build of\|gpuauto" "$OUT/ex19-info-$t.log" | cut -c1-220 | head -12
done
bash "$(dirname "$0")/bench.sh"
