#!/usr/bin/env bash
# block-layout, device call "final": the block layout with its tuned kernels (bell_cuda.cu's
# ProductPolicy) and the builder's own block check.
#   1. snes ex19 1600^2 and ksp ex56 -ne 79 as apps.sh (aijcusparse, block, scalar; -log_view, then
#      -log_view_gpu_time for MatMult's GPU time) -> $OUT/apps/*.log
#   2. bench_bell: the production kernel and the variants, bs 2..8 -> $OUT/bench_bell.json
#   3. bench_spmv on bench/suites/block.txt (bs 3, 4, 5 and a not block-dense one) beside
#      aijcusparse ALG1/ALG2 and cuSPARSE BSR -> $OUT/spmv-block.json
#   run(command="bash bench/experiments/block-layout/final.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
A=$OUT/apps; mkdir -p "$A"
run() { # name tmo cmd...
  local name=$1 tmo=$2; shift 2
  timeout "$tmo" "$@" -use_gpu_aware_mpi 0 >"$A/$name.log" 2>&1
  echo "$name exit $?: $(grep -m1 -o 'KSP final norm of residual [^ ]*' "$A/$name.log") | $(awk '$1 ~ /^(MatMult|KSPSolve|SNESSolve|GFBuild)$/ {printf "%s %s %s | ", $1, $2, $4}' "$A/$name.log")"
}
E19="bin/petsc/snes_ex19 -da_grid_x 1600 -da_grid_y 1600 -snes_max_it 1 -ksp_max_it 300 -ksp_norm_type none -pc_type jacobi -dm_vec_type cuda -ksp_final_residual -log_view"
E56="bin/petsc/ksp_ex56 -ne 79 -ksp_type cg -pc_type jacobi -ksp_max_it 300 -ksp_norm_type none -vec_type cuda -ksp_final_residual -log_view"
for g in "" "-log_view_gpu_time"; do
  s=${g:+.gputime}
  run "ex19$s.aijcusparse" 120 $E19 $g -dm_mat_type aijcusparse
  run "ex19$s.block" 120 $E19 $g -dll_append "$L" -dm_mat_type aijevchyb
  run "ex19$s.scalar" 120 $E19 $g -dll_append "$L" -dm_mat_type aijevchyb -mat_gpuformats_block scalar
  run "ex56$s.aijcusparse" 150 $E56 $g -mat_type aijcusparse
  run "ex56$s.block" 150 $E56 $g -dll_append "$L" -mat_type evchyb
  run "ex56$s.scalar" 150 $E56 $g -dll_append "$L" -mat_type evchyb -mat_gpuformats_block scalar
done
cd "$OUT" && tar czf apps-logs.tgz apps && rm -rf apps && cd - >/dev/null
timeout 100 bin/experiments/bench_bell 1.15e8 30 2 3 4 5 6 7 8 >"$OUT/bench_bell.json" 2>"$OUT/bench_bell.err"
echo "bench_bell exit $? after $SECONDS s"
python3 - "$OUT/bench_bell.json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("check"):
        if not d.get("ok"): print("CHECK FAILED", d)
        continue
    if "bs" not in d: print(d); continue
    print("bs %d: bell %.4f ms (%.0f%% copy) | scalar evchyb %.4f | csr alg1 %.4f alg2 %.4f | bsrmv %.4f bsr %.4f" % (d["bs"], d["bell"]["ms"], d["bell"]["pct_copy"], d["evchyb_scalar"]["ms"], d["csr_alg1"]["ms"], d["csr_alg2"]["ms"], d["bsrmv"]["ms"], d["spmv_bsr_alg1"]["ms"]))
PY
left=$((570 - SECONDS)); echo "bench_spmv: $left s left"
timeout "$left" bin/bench_spmv -suite bench/suites/block.txt -types aijcusparse:alg1,aijcusparse:alg2,evchyb,evchyb:scalar,cusparse:bsr,cusparse:bsrmv -json "$OUT/spmv-block.json" >"$OUT/spmv-block.log" 2>&1
echo "bench_spmv exit $? after $SECONDS s"; tail -60 "$OUT/spmv-block.log"
