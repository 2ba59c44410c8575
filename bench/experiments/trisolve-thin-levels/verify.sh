#!/usr/bin/env bash
# The ILU(0) default with trisolve::exact_declines (ICC(0) keeps ours), as a user runs it: GMRES +
# ILU(0) (CG + ICC(0) on the symmetric mesh graph) to 1e-8, -log_view (no GPU timing of events; KSPSolve's
# CpuToGpu / GpuToCpu copy counts say where a path leaves the GPU): evchyb by default, evchyb with our solves forced (-mat_gpuformats_trisolve levelset),
# aijcusparse; -ksp_view says which solves ran. Then test/run.sh's gpu-trisolve section for evchyb and
# test_trisolve on the device (every schedule against the host's solves, the level shapes against a fixpoint).
#   run(command="bash bench/experiments/trisolve-thin-levels/verify.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-use_gpu_aware_mpi 0"
deadline=${THIN_DEADLINE:-300}
one_gpu_logs
CASES=${VERIFY_CASES-"bfem_1.5M=blockfem:nnz=1.5M bfem1_1.5M=blockfem:nnz=1.5M,bs=1 joined_10M=joined:first=convdiff3d,second=blockfem,share=0.85,nnz=10M ex19like_512=blockstencil3d:nx=512,ny=512,nz=1,bs=4 s2d_128x8192=stencil2d5:nx=128,ny=8192 icc_bfem1_1.5M=blockfem:nnz=1.5M,bs=1"}
for c in $CASES; do
  name=${c%%=*} spec=${c#*=}
  pc="-ksp_type gmres -pc_type ilu"
  [[ $name == icc_* ]] && pc="-ksp_type cg -pc_type icc"
  for v in default:evchyb ours:evchyb:-mat_gpuformats_trisolve:levelset cusparse:aijcusparse; do
    IFS=: read -r tag t o1 o2 <<<"$v"
    run_case "$name" "$tag" 90 "bin/test/ksp_matrix -f $spec $pc -ksp_max_it 400 -ksp_rtol 1e-8 ${o1:-} ${o2:-}" "$t" || continue
    echo "$name.$tag exit $RC | $(grep -m1 -o 'ksp_matrix:.*relres [^ ]*' "$LOG" | sed 's/.* n /n /') | $(awk '$1 ~ /^(MatSolve|KSPSolve|PCSetUp)$/ {printf "%s %s %s | ", $1, $2, $4} $1 == "KSPSolve" {printf "copies h2d %s d2h %s | ", $(NF-4), $(NF-2)}' "$LOG") $(grep -m1 -o "ours declined this factor ([^;]*" "$LOG" | cut -c1-60)"
  done
done
# the GPU suite's trisolve section for one type (its thin-levels checks among them), then test_trisolve
GPUFORMATS_TEST_SECTIONS=gpu-trisolve GPUFORMATS_TEST_TYPES=evchyb timeout $((deadline + 120 - SECONDS)) bash test/run.sh >"$OUT/run-gpu-trisolve.txt" 2>&1
echo "run.sh gpu-trisolve exit $?: $(tail -1 "$OUT/run-gpu-trisolve.txt")"
grep -E "thin_levels|^not ok|FAIL" "$OUT/run-gpu-trisolve.txt" | head -12
timeout $((deadline + 200 - SECONDS)) bin/test/test_trisolve test/matrices >"$OUT/test_trisolve.txt" 2>&1
echo "test_trisolve exit $?: $(grep -c '^ok ' "$OUT/test_trisolve.txt") ok, $(grep -c '^not ok' "$OUT/test_trisolve.txt") not ok; level-shape checks: $(grep -c '^ok trisolve.level_shape\|^ok trisolve.exact_declines' "$OUT/test_trisolve.txt")"
grep '^not ok' "$OUT/test_trisolve.txt" | head
(cd "$OUT" && tar -cJf logs.tar.xz logs && rm -rf logs)
