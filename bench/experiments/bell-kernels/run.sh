#!/usr/bin/env bash
# bell-kernels, BELL on the GPU: bench_bell's device checks, then BELL against cuSPARSE
# CSR (ALG1, ALG2) and BSR (bsrmv, SpMV BSR_ALG1), and every product policy of bell_variants.cuh,
# on block 3D 7-point stencils, bs = 2..8.
# Builds nothing: bin/experiments/bench_bell comes in the bundle. Here (build machine):
#   make -j2 && make experiments && make bundle
# then on the device, from the repository root:
#   run(command="bash bench/experiments/bell-kernels/run.sh", carry=["bundle"])
# Output: $OUT/bench_bell.json (one JSON object per line), $OUT/bench_bell.err.
# Arguments pass through: run.sh [target_nnz=1.15e8] [reps=30] [bs ...].
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(1.15e8 30 2 3 4 5 6 7 8)
config/gpu-run.sh exec bash -c 'nvidia-smi --query-gpu=name,memory.total --format=csv,noheader; timeout 540 bin/experiments/bench_bell "$@" >"$OUT/bench_bell.json" 2>"$OUT/bench_bell.err"; rc=$?; cat "$OUT/bench_bell.json"; tail -5 "$OUT/bench_bell.err"; echo "bench_bell exit $rc"; exit $rc' bench_bell "${args[@]}"
