#!/usr/bin/env bash
# block-layout, device call "block": the block layout (BELL) on the GPU.
#   1. bench_bell (bench/experiments/bell-kernels): the device builder and kernel against the host layer
#      (bs 1..8), then BELL against cuSPARSE CSR ALG1/ALG2, BSR and our scalar EVC-HYB on block 3D
#      7-point stencils, bs 3, 4, 5, ~115 M nonzeros -> $OUT/bench_bell.json
#   2. the glue: snes ex19 (DMDA, 4 dof: block-dense) with every type against aijcusparse's
#      history on 1 and 2 ranks, -info naming the block layout's builds
#   3. snes ex19 1600^2 (10.2 M unknowns), GMRES + Jacobi, 300 iterations of one Newton step:
#      MatMult of aijcusparse, evchyb (block layout) and evchyb -mat_gpuformats_block scalar
#   run(command="bash bench/experiments/block-layout/block.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
timeout 240 bin/experiments/bench_bell 1.15e8 30 3 4 5 >"$OUT/bench_bell.json" 2>"$OUT/bench_bell.err"
echo "bench_bell exit $? after $SECONDS s"; cat "$OUT/bench_bell.json"; tail -3 "$OUT/bench_bell.err"

G=$OUT/block; mkdir -p "$G"
EX19="bin/petsc/snes_ex19 -da_grid_x 12 -da_grid_y 10 -snes_monitor -ksp_converged_reason -dm_vec_type cuda -use_gpu_aware_mpi 0"
for t in evchyb pjds pellr suraa; do
  for np in 1 2; do
    timeout 60 mpiexec -n $np $EX19 -dm_mat_type aijcusparse >"$G/ex19.$t.$np.ref.log" 2>&1
    timeout 60 mpiexec -n $np $EX19 -dll_append "$L" -dm_mat_type aij$t -info >"$G/ex19.$t.$np.ours.log" 2>&1
    echo "glue ex19 $t np$np: $(python3 test/petsc/compare_runs.py "$G/ex19.$t.$np.ours.log" "$G/ex19.$t.$np.ref.log") | block builds $(grep -c 'gpuformats: bell (block layout, bs 4) build' "$G/ex19.$t.$np.ours.log"), scalar builds $(grep -c "gpuformats: $t build" "$G/ex19.$t.$np.ours.log")"
  done
done
grep -m2 "bell (block layout, bs 4) build" "$G/ex19.evchyb.1.ours.log"

B="bin/petsc/snes_ex19 -da_grid_x 1600 -da_grid_y 1600 -snes_max_it 1 -ksp_max_it 300 -ksp_norm_type none -pc_type jacobi -dm_vec_type cuda -log_view -use_gpu_aware_mpi 0 -snes_converged_reason -ksp_converged_reason"
run() { # name args
  local name=$1; shift
  timeout 120 $B "$@" >"$G/big.$name.log" 2>&1
  echo "ex19 1600^2 $name exit $?: $(grep -o 'iterations [0-9]*' "$G/big.$name.log" | head -1) | $(awk '$1 ~ /^(MatMult|KSPSolve|SNESSolve|GFBuild|MatCUSPARSCopyTo)$/ {printf "%s %s %s | ", $1, $2, $4}' "$G/big.$name.log")"
}
run aijcusparse -dm_mat_type aijcusparse
run evchyb_block -dll_append "$L" -dm_mat_type aijevchyb -mat_view ::ascii_info
run evchyb_scalar -dll_append "$L" -dm_mat_type aijevchyb -mat_gpuformats_block scalar
grep -m3 "gpuformats: \(bell\|block\|evchyb on\|.*bytes read\)" "$G/big.evchyb_block.log"
cd "$OUT" && tar czf block-logs.tgz block && rm -rf block
