#!/usr/bin/env bash
# Where our exact ILU(0) solves (levelset, the default schedule) lose to cuSPARSE's: triangles of
# many thin levels. GMRES + ILU(0), 30 iterations, one GPU; per-apply GPU time of MatSolve
# (-log_view_gpu_time: per-call kernel time, not used for overlap) for evchyb (our solves) and
# aijcusparse (cuSPARSE's), and evchyb by default (ours unless exact_declines takes cuSPARSE's), on matrices whose levels span 2-22000 rows and rows 2-60 entries.
#   run(command="bash bench/experiments/trisolve-thin-levels/run.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-use_gpu_aware_mpi 0"
deadline=${THIN_DEADLINE:-560}
one_gpu_logs
CASES=${THIN_CASES:-"bfem1_1.5M=blockfem:nnz=1.5M,bs=1 fem_short=fem:rows=3e5,min=4,max=12 fem_5M=fem:rows=1e5,min=10,max=80 s2d_32x32768=stencil2d5:nx=32,ny=32768 s2d_128x8192=stencil2d5:nx=128,ny=8192 bfem_1.5M=blockfem:nnz=1.5M joined_10M=joined:first=convdiff3d,second=blockfem,share=0.85,nnz=10M bst3d_64=blockstencil3d:n=64,bs=3 s2d_512x2048=stencil2d5:nx=512,ny=2048 bfem_10M=blockfem:nnz=10M"}
for c in $CASES; do
  name=${c%%=*} spec=${c#*=}
  for v in default:evchyb ours:evchyb:-mat_gpuformats_trisolve:levelset cusparse:aijcusparse; do
    IFS=: read -r tag t o1 o2 <<<"$v"
    run_case "$name" "$tag" 60 "bin/test/ksp_matrix -f $spec -ksp_type gmres -pc_type ilu -ksp_max_it 30 -ksp_rtol 1e-30 -log_view_gpu_time ${o1:-} ${o2:-}" "$t" || continue
    echo "$name.$tag exit $RC | $(grep -m1 -o 'ksp_matrix:.*its [0-9]*' "$LOG" | sed 's/.* n /n /') | $(awk '$1 ~ /^(MatSolve|MatMult|KSPSolve|PCSetUp)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG") $(grep -m1 -o 'declined[^;]*;[^;]*' "$LOG" | cut -c1-160)"
  done
done
(cd "$OUT" && tar -cJf logs.tar.xz logs && rm -rf logs)
