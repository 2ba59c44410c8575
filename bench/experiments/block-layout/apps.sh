#!/usr/bin/env bash
# block-layout, device call "apps": BELL's kernel variants, and the block layout in applications.
#   1. bench_bell with every tuning policy (src/formats/bell/bell_variants.cuh), bs 2..8,
#      block 3D 7-point stencils ~115 M nonzeros -> $OUT/bench_bell_variants.json
#   2. snes ex19 1600^2 (4 dof, 10.2 M unknowns) and ksp ex56 (3D elasticity, Q1, bs 3), CG or
#      GMRES + Jacobi for a fixed 300 iterations: aijcusparse, our block layout, our scalar layout;
#      -log_view, then -log_view_gpu_time for MatMult's own GPU time (each event synchronised: per-event
#      times only) -> $OUT/apps/*.log
#   run(command="bash bench/experiments/block-layout/apps.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
timeout 200 bin/experiments/bench_bell 1.15e8 30 2 3 4 5 6 7 8 >"$OUT/bench_bell_variants.json" 2>"$OUT/bench_bell_variants.err"
echo "bench_bell exit $? after $SECONDS s"; tail -3 "$OUT/bench_bell_variants.err"
python3 - "$OUT/bench_bell_variants.json" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    d = json.loads(line)
    if d.get("check"):
        if not d.get("ok"): print("CHECK FAILED", d)
        continue
    if "bs" not in d: print(d); continue
    v = d.get("variants", {})
    best = min(v.items(), key=lambda kv: kv[1]["ms"]) if v else ("-", {"ms": float("nan")})
    print("bs %d: current %.4f ms (%.0f%%) | scalar evchyb %.4f | csr alg1 %.4f | bsrmv %.4f | best %s %.4f ms (%.0f%% copy, err %.1e)" % (d["bs"], d["bell"]["ms"], d["bell"]["pct_copy"], d["evchyb_scalar"]["ms"], d["csr_alg1"]["ms"], d["bsrmv"]["ms"], best[0], best[1]["ms"], best[1].get("pct_copy", 0), best[1].get("max_rel_err", 0)))
    print("   " + ", ".join("%s %.4f" % (k, x["ms"]) for k, x in sorted(v.items(), key=lambda kv: kv[1]["ms"])))
PY
A=$OUT/apps; mkdir -p "$A"
run() { # name tmo cmd...
  local name=$1 tmo=$2; shift 2
  timeout "$tmo" "$@" -use_gpu_aware_mpi 0 >"$A/$name.log" 2>&1
  echo "$name exit $?: $(grep -o 'iterations [0-9]*' "$A/$name.log" | head -1) | $(grep -m1 -o 'KSP final norm of residual [^ ]*' "$A/$name.log") | $(awk '$1 ~ /^(MatMult|KSPSolve|SNESSolve|GFBuild|MatAssemblyEnd)$/ {printf "%s %s %s | ", $1, $2, $4}' "$A/$name.log")"
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
  [ $SECONDS -gt 480 ] && break
done
grep -h "rows=\|nonzeros=" "$A/ex56.block.log" | head -3
cd "$OUT" && tar czf apps-logs.tgz apps && rm -rf apps
