#!/usr/bin/env bash
# gamg, device call "trisolve": ILU(0) applied in our formats against cuSPARSE's
# triangular solves, PETSc's default preconditioner (ILU(0) on one rank), one GPU:
#   1. bin/test/test_trisolve: the apply on the device (every format, every mode) against the host
#      references, cuSPARSE's ILU(0) against the host's
#   2. ksp ex45 (GMRES) and snes ex14 at 128^3 (and ex45 256^3): aijcusparse, evchyb with
#      -mat_gpuformats_trisolve cusparse, sweeps K = 1, 2, 3 and isai; -log_view (KSPSolve,
#      SNESSolve, iterations, vector copies) -> $OUT/trisolve/<case>.<name>.log, $OUT/trisolve.json
#   3. per-event GPU times (-log_view_gpu_time, separate runs: diagnosis only): MatSolve against
#      MatMult per call, for aijcusparse and evchyb exact / sweeps 2 / isai on ex45 128^3
#   4. GAMG (gamg.sh's case, ksp ex45 200^3) three times each, alternating: KSPSolve's spread
# Run from the repository root with the bundle carried (make bundle):
#   run(command="bash bench/experiments/gamg/trisolve.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/env.sh"
export CUDA_VISIBLE_DEVICES=0
V="${GAMG_VEC--vec_type cuda -dm_vec_type cuda} -use_gpu_aware_mpi 0"
N=${GAMG_N:-128}
N2=${GAMG_N2:-256}
NG=${GAMG_NG:-200}
deadline=${GAMG_DEADLINE:-540}
D=$OUT/trisolve
mkdir -p "$D"
echo "commit $(cat bundle/commit 2>/dev/null)"

timeout 120 bin/test/test_trisolve test/matrices >"$OUT/gpu-test_trisolve.log" 2>&1
echo "test_trisolve exit $?: $(grep -c '^ok ' "$OUT/gpu-test_trisolve.log") ok, $(grep -c '^not ok' "$OUT/gpu-test_trisolve.log") not ok; cuda checks: $(grep -c '^ok .*cuda' "$OUT/gpu-test_trisolve.log")"
grep '^not ok' "$OUT/gpu-test_trisolve.log" | head

run() { # case name timeout cmd type extra... (run_case: env.sh)
  run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -m1 -o 'iterations [0-9]*' "$LOG") | $(awk '$1 ~ /^(KSPSolve|SNESSolve|MatSolve|MatMult|MatLUFactorNum|VecCUDACopyTo|VecCUDACopyFrom)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG")"
}
modes() { # case timeout cmd
  local c=$1 tmo=$2 cmd=$3
  run "$c" aijcusparse "$tmo" "$cmd" aijcusparse
  run "$c" exact "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve cusparse
  for k in 1 2 3; do run "$c" sweeps$k "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps $k; done
  run "$c" isai "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve isai
}
g="-da_grid_x $N -da_grid_y $N -da_grid_z $N"
modes ex45_$N 40 "bin/petsc/ksp_ex45 $g"
modes ex14_$N 40 "bin/petsc/snes_ex14 $g -snes_converged_reason"
# per-call GPU times (each event synchronised: for the per-apply cost only)
for nm in aijcusparse:aijcusparse exact:evchyb:-mat_gpuformats_trisolve:exact sweeps2:evchyb:-mat_gpuformats_trisolve:sweeps:-mat_gpuformats_trisolve_sweeps:2 isai:evchyb:-mat_gpuformats_trisolve:isai; do
  IFS=: read -r name t rest <<<"$nm"
  # shellcheck disable=SC2086
  run ex45_$N "${name}_gputime" 40 "bin/petsc/ksp_ex45 $g" "$t" ${rest//:/ } -log_view_gpu_time
done
# GAMG's KSPSolve, three runs each, alternating
gg="-da_grid_x $NG -da_grid_y $NG -da_grid_z $NG -pc_type gamg"
for r in 1 2 3; do
  run gamg_$NG "aijcusparse_r$r" 45 "bin/petsc/ksp_ex45 $gg" aijcusparse
  run gamg_$NG "evchyb_r$r" 45 "bin/petsc/ksp_ex45 $gg" evchyb
done

g2="-da_grid_x $N2 -da_grid_y $N2 -da_grid_z $N2"
modes ex45_$N2 60 "bin/petsc/ksp_ex45 $g2"
python3 - "$D" "$OUT/trisolve.json" "$(cat bundle/commit 2>/dev/null || echo unknown)" <<'PY'
import json, os, re, subprocess, sys
d, out, commit = sys.argv[1:4]
try: gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()
except OSError: gpu = []
runs = []
for f in sorted(os.listdir(d)):
    if not f.endswith(".log"): continue
    case, name = f[:-4].split(".", 1)
    text = open(os.path.join(d, f)).read()
    r = {"case": case, "name": name}
    its = [int(x) for x in re.findall(r"Linear solve converged due to \S+ iterations (\d+)", text)]
    r["converged"] = bool(its) and "did not converge" not in text and "DIVERGED" not in text
    r["ksp_its"] = sum(its); r["solves"] = len(its)
    for line in text.splitlines():
        f_ = line.split()
        if len(f_) > 3 and f_[0] in ("KSPSolve", "SNESSolve", "MatSolve", "MatMult", "MatLUFactorNum", "PCSetUp", "PCApply"):
            r[f_[0] + "_count"] = int(f_[1])
            try: r[f_[0] + "_s"] = float(f_[3])
            except ValueError: pass
        if len(f_) > 1 and f_[0] in ("VecCUDACopyTo", "VecCUDACopyFrom"): r[f_[0]] = int(f_[1])
    m = re.search(r"apply cost: ([0-9.]+) products of A", text)
    if m: r["apply_cost_products_of_A"] = float(m.group(1))
    m = re.search(r"numeric phases: (\d+), the last ([0-9.]+) ms", text)
    if m: r["numeric_ms"] = float(m.group(2))
    if "MatSolve_s" in r and "MatMult_s" in r and r.get("MatSolve_count") and r.get("MatMult_count"):
        r["matsolve_per_call_over_matmult"] = round((r["MatSolve_s"] / r["MatSolve_count"]) / (r["MatMult_s"] / r["MatMult_count"]), 3)
    runs.append(r)
for r in runs:
    b = next((x for x in runs if x["case"] == r["case"] and x["name"] == re.sub(r"^(exact|sweeps\d|isai|evchyb)", "aijcusparse", r["name"])), None)
    for k in ("KSPSolve_s", "SNESSolve_s"):
        if b and b.get(k) and r.get(k): r[k.split("_")[0] + "_vs_aijcusparse"] = round(b[k] / r[k], 3)
    if b and b.get("ksp_its"): r["its_vs_aijcusparse"] = round(r["ksp_its"] / b["ksp_its"], 3)
json.dump({"tool": "gamg/trisolve.sh", "commit": commit, "gpu": gpu[0] if gpu else "none", "runs": runs}, open(out, "w"), indent=1)
for r in runs:
    print(r["case"], r["name"], "its", r["ksp_its"], "KSP", r.get("KSPSolve_s"), r.get("KSPSolve_vs_aijcusparse"), "SNES", r.get("SNESSolve_s"), r.get("SNESSolve_vs_aijcusparse"),
          "solve/mult", r.get("matsolve_per_call_over_matmult"), "cost", r.get("apply_cost_products_of_A"), "copies", r.get("VecCUDACopyTo"), r.get("VecCUDACopyFrom"))
PY
cd "$OUT" && tar czf trisolve-logs.tgz trisolve && rm -rf trisolve
