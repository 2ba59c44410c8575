#!/usr/bin/env bash
# gpuauto: gpuauto through PETSc on the GPU.
#   1. the GPU suite (test/run.sh) for gpuauto on 1 and 2 ranks (solver-path matrix left out): every
#      check the other types pass, with the device's own model choosing per block
#   2. snes ex14 and ksp ex45 with gpuauto against aijcusparse and evchyb (-log_view): what it
#      chose, GFBuild (the choice included) and MatMult
#   run(command="bash bench/experiments/gpuauto/suite.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
A=$OUT/apps; mkdir -p "$A"
run() { # name cmd...
  local name=$1; shift
  timeout 60 "$@" -use_gpu_aware_mpi 0 >"$A/$name.log" 2>&1
  echo "$name exit $?: $(grep -m1 -o 'gpuauto: chose [a-z_]* (predicted [0-9.]* us' "$A/$name.log") | $(awk '$1 ~ /^(MatMult|KSPSolve|SNESSolve|GFBuild)$/ {printf "%s %s %s | ", $1, $2, $4}' "$A/$name.log")"
}
E14="bin/petsc/snes_ex14 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -pc_type jacobi -ksp_max_it 200 -snes_max_it 3 -dm_vec_type cuda -log_view"
E45="bin/petsc/ksp_ex45 -da_grid_x 200 -da_grid_y 200 -da_grid_z 200 -pc_type jacobi -ksp_type cg -ksp_max_it 300 -ksp_norm_type none -dm_vec_type cuda -log_view"
for t in aijcusparse evchyb gpuauto; do
  dll=(); [ $t != aijcusparse ] && dll=(-dll_append "$L")
  dmt=$t; [ $t != aijcusparse ] && dmt=aij$t
  run "ex14.$t" $E14 "${dll[@]}" -dm_mat_type $dmt -mat_view ::ascii_info
  run "ex45.$t" $E45 "${dll[@]}" -dm_mat_type $dmt -mat_view ::ascii_info
done
grep -h "gpuauto:" "$A/ex14.gpuauto.log" "$A/ex45.gpuauto.log" | head -14
GPUFORMATS_TEST_TYPES=gpuauto GPUFORMATS_TEST_PATHS=0 GPUFORMATS_TEST_RANKS="1 2" GPUFORMATS_TEST_OUT=$OUT/test-logs \
  timeout $((560 - SECONDS)) test/run.sh >"$OUT/gpu-suite.log" 2>&1
echo "suite exit $? after $SECONDS s"; tail -1 "$OUT/gpu-suite.log"; grep "^not ok" "$OUT/gpu-suite.log" | head -30
grep "petsc.gpuauto\|gpu.*gpuauto" "$OUT/gpu-suite.log" | head -20
cd "$OUT" && tar czf test-logs.tgz test-logs apps && rm -rf test-logs apps
