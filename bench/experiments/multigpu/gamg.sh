#!/usr/bin/env bash
# multigpu, device call "gamg": matrix-matrix products of the seq types on the
# device (src/petsc/gf_product.cpp), GAMG's Galerkin products among them. On one GPU:
#   1. bin/test/test_products, every type: AB, AtB, ABt, PtAP, RARt, ABC and operands of plain seqaij
#      / aijcusparse against AIJ's, reuse with new values (no new symbolic phase), each result type
#   2. GAMG histories against AIJ's (ksp ex45 33^3, ex50 65^2 smoothed aggregation and classical,
#      ex49 2D elasticity: block size 2, coarse block size 3), evchyb with each result type:
#      Galerkin products on the device (GPU %F of MatPtAPNumeric), vector copies vs aijcusparse
#   3. ksp ex45 200^3 -pc_type gamg: aijcusparse, evchyb with aijcusparse coarse operators (the
#      default), evchyb with coarse operators of its format; -log_view as text (copies, GPU %F) and
#      CSV (event wall times: PCSetUp, MatPtAP, ...) -> $OUT/gamg-200/, $OUT/gamg-200.json
# Run from the repository root with the bundle carried (make bundle):
#   run(command="bash bench/experiments/multigpu/gamg.sh", carry=["bundle"])
# It unpacks the bundle itself (through config/gpu-run.sh exec); every run has ended ~320 s after that.
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
if [ -z "${GF_MULTIGPU_ENV:-}" ]; then # unpack the bundle, set the loader path and MPI's root flags, once
  GF_MULTIGPU_ENV=1 exec config/gpu-run.sh exec bash "$0" "$@"
fi
export CUDA_VISIBLE_DEVICES=0
OUT=${OUT:-$PWD/build/gpu-out}
L=$PWD/lib/libgpuformats.so
V="${MULTIGPU_VEC--vec_type cuda -dm_vec_type cuda} -use_gpu_aware_mpi 0" # MULTIGPU_VEC= and MULTIGPU_N=17: a dry run on a machine without GPU
N=${MULTIGPU_N:-200}
deadline=${MULTIGPU_DEADLINE:-320} # seconds by which every run has ended (the call has 6 minutes; unpacking the bundle comes before, ~30 s)
# Overridable (gamg/gamg.sh): the result types of the histories, and the 200^3 runs, a line each:
# "name timeout type options..." (a name's evchyb -> aijcusparse is its baseline)
GAMG_RESULTS=${GAMG_RESULTS:-aijcusparse format}
GAMG_RUNS=${GAMG_RUNS:-"aijcusparse 110 aijcusparse
evchyb 120 evchyb -mat_gpuformats_product_result aijcusparse
evchyb_format 120 evchyb -mat_gpuformats_product_result format"}
export GAMG_RUNS
mkdir -p "$OUT/gamg-histories" "$OUT/gamg-200"
echo "commit $(cat bundle/commit 2>/dev/null); types: $(bin/test/list_types | tr '\n' ' ')"

# --- 1. the products against AIJ's ---
timeout 60 bin/test/test_products -types "$(bin/test/list_types | paste -sd,)" -n 16 >"$OUT/gpu-products.log" 2>&1
echo "test_products exit $?: $(grep -c '^ok ' "$OUT/gpu-products.log") ok lines ($(grep -c '# SKIP' "$OUT/gpu-products.log") of them skips), $(grep -c '^not ok' "$OUT/gpu-products.log") not ok"
grep '^not ok' "$OUT/gpu-products.log" | head -20

# --- 2. GAMG histories against AIJ's ---
H=$OUT/gamg-histories
ok=0; bad=0
res_line() { if [ "$1" = 0 ]; then ok=$((ok + 1)); echo "ok $2"; else bad=$((bad + 1)); echo "not ok $2: $3"; fi; }
copies() { awk '$1 == "VecCUDACopyTo" {t = $2} $1 == "VecCUDACopyFrom" {f = $2} END {print t + 0, f + 0}' "$1"; }
for c in "ex45|bin/petsc/ksp_ex45 -da_grid_x 33 -da_grid_y 33 -da_grid_z 33" "ex50|bin/petsc/ksp_ex50 -da_grid_x 65 -da_grid_y 65" "ex50_classical|bin/petsc/ksp_ex50 -da_grid_x 65 -da_grid_y 65 -pc_gamg_type classical" \
  "ex49_elasticity|bin/petsc/ksp_ex49 -mx 32 -my 32 -elas_pc_type gamg -elas_ksp_monitor -elas_ksp_converged_reason"; do
  name=${c%%|*}; cmd=${c#*|}
  [ $SECONDS -gt $((deadline - ${GAMG_HISTORY_MARGIN:-200})) ] && { echo "# histories: out of time at $name"; break; }
  # shellcheck disable=SC2086
  timeout 25 $cmd -pc_type gamg -ksp_monitor -ksp_converged_reason -mat_type aij -dm_mat_type aij $V </dev/null >"$H/$name.aij.log" 2>&1
  # shellcheck disable=SC2086
  timeout 25 $cmd -pc_type gamg -ksp_monitor -ksp_converged_reason -mat_type aijcusparse -dm_mat_type aijcusparse $V -log_view </dev/null >"$H/$name.aijcusparse.log" 2>&1
  for t in evchyb; do
    for res in $GAMG_RESULTS; do
      log=$H/$name.$t.$res.log
      # shellcheck disable=SC2086
      timeout 25 $cmd -pc_type gamg -ksp_monitor -ksp_converged_reason -dll_append "$L" -mat_type $t -dm_mat_type aij$t -mat_gpuformats_product_result $res $V -log_view </dev/null >"$log" 2>&1
      rc=$?
      msg=$(python3 test/petsc/compare_runs.py "$log" "$H/$name.aij.log"); r=$?
      [ $rc != 0 ] && { r=1; msg="exit $rc: $(grep -m2 'PETSC ERROR:.*gpuformats\|PETSC ERROR: #1' "$log" | tr '\n' ' ')"; }
      res_line $r "gamg.$name.$t.$res.aij_history" "$msg"
      p=$(awk '$1 == "MatPtAPNumeric" {print $NF}' "$log")
      [ "$p" = 100 ]; res_line $? "gamg.$name.$t.$res.ptap_on_device # GPU %F ${p:-none}" "MatPtAPNumeric GPU %F '${p:-none}'"
      a=$(copies "$log"); b=$(copies "$H/$name.aijcusparse.log")
      [ "${a% *}" -le $(( ${b% *} + 4 )) ] && [ "${a#* }" -le $(( ${b#* } + 4 )) ]; res_line $? "gamg.$name.$t.$res.vec_copies # to/from $a vs aijcusparse $b" "to/from $a vs aijcusparse $b"
    done
  done
done 2>&1 | tee "$OUT/gamg-histories.log"
echo "histories: $(grep -c '^ok' "$OUT/gamg-histories.log") ok, $(grep -c '^not ok' "$OUT/gamg-histories.log") not ok"

# --- 3. ksp ex45 200^3 + GAMG ---
D=$OUT/gamg-200
run200() { # name timeout type options...
  local name=$1 tmo=$2 t=$3; shift 3
  local dll=() dmt=$t
  [ "$t" != aijcusparse ] && dll=(-dll_append "$L") && dmt=aij$t
  [ $((deadline - SECONDS)) -lt "$tmo" ] && tmo=$((deadline - SECONDS))
  if [ "$tmo" -lt 40 ]; then echo "# $name: out of time, not run"; return; fi
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout "$tmo" bin/petsc/ksp_ex45 -da_grid_x $N -da_grid_y $N -da_grid_z $N -pc_type gamg -ksp_converged_reason -ksp_view \
    "${dll[@]}" -mat_type "$t" -dm_mat_type "$dmt" $V "$@" -log_view ":$D/$name.log,:$D/$name.csv:ascii_csv" </dev/null >"$D/$name.out" 2>&1
  echo "$name exit $? in $((SECONDS - t0)) s: $(grep -m1 'Linear solve' "$D/$name.out"); $(awk '$1 ~ /^(KSPSolve|PCSetUp|MatPtAPSymbolic|MatPtAPNumeric|MatMatMultSym|MatMatMultNum|MatAXPY|GFBuild|GFRefresh|GFViewFill|MatCUSPARSCopyTo|VecCUDACopyTo|VecCUDACopyFrom)$/ {printf "%s %s %s | ", $1, $2, $4}' "$D/$name.log" 2>/dev/null)"
}
while read -r -a r; do [ ${#r[@]} -ge 3 ] && run200 "${r[@]}"; done <<<"$GAMG_RUNS"

python3 - "$D" "$OUT/gamg-200.json" "$(cat bundle/commit 2>/dev/null || echo unknown)" <<'PY'
import csv, json, os, re, subprocess, sys
d, out, commit = sys.argv[1:4]
try: gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()
except OSError: gpu = []
runs = []
for line in os.environ["GAMG_RUNS"].splitlines():
    name, typ = line.split()[0], line.split()[2]
    result = None if typ == "aijcusparse" else ("format" if "product_result format" in line else "aijcusparse")
    r = {"case": "ex45_200_gamg", "name": name, "type": typ, "product_result": result, "status": "not run"}
    out_txt, log, csvf = (os.path.join(d, name + s) for s in (".out", ".log", ".csv"))
    if os.path.exists(out_txt):
        text = open(out_txt).read()
        m = re.search(r"Linear solve (converged|did not converge) due to \S+ iterations (\d+)", text)
        r["status"] = "ok" if m and m.group(1) == "converged" else "FAILED"
        r["ksp_its"] = int(m.group(2)) if m else None
        # the operator type of each level (-ksp_view: the "linear system matrix" of each level's KSP)
        r["level_matrix_types"] = re.findall(r"linear system matrix[^\n]*\n\s*Mat Object:[^\n]*\n\s*type: (\S+)", text)
    if os.path.exists(log):
        for line in open(log):
            f = line.split()
            if not f: continue
            if f[0] == "KSPSolve" and len(f) > 3: r["kspsolve_s"] = float(f[3])
            if f[0] in ("VecCUDACopyTo", "VecCUDACopyFrom"): r["vec_copies_" + ("to_device" if f[0].endswith("To") else "from_device")] = int(f[1])
            if f[0] in ("MatPtAPNumeric", "MatPtAPSymbolic", "MatMatMultSym", "MatMatMultNum") and f[-1].isdigit(): r[f[0] + "_gpu_pct"] = int(f[-1])
            if f[0] in ("GFBuild", "GFRefresh", "GFViewFill", "MatCUSPARSCopyTo", "MatPtAPNumeric", "MatPtAPSymbolic"): r[f[0] + "_count"] = int(f[1])
    if os.path.exists(csvf):
        ev = {}
        for row in csv.reader(open(csvf)):
            if len(row) >= 5 and row[0] == "Main Stage":
                try: ev[row[1]] = float(row[4])
                except ValueError: pass
        r["total_s"] = ev.get("summary")
        for k, e in [("pcsetup_s", "PCSetUp"), ("ptap_symbolic_s", "MatPtAPSymbolic"), ("ptap_numeric_s", "MatPtAPNumeric"), ("matmatmult_symbolic_s", "MatMatMultSym"),
                     ("matmatmult_numeric_s", "MatMatMultNum"), ("graph_s", "MatCreateGraph"), ("coarsen_s", "MatCoarsen"), ("axpy_s", "MatAXPY"), ("transpose_s", "MatTranspose"),
                     ("gfbuild_s", "GFBuild"), ("gfrefresh_s", "GFRefresh"), ("gfviewfill_s", "GFViewFill"), ("cusparse_copyto_s", "MatCUSPARSCopyTo"),
                     ("kspsolve_wall_s", "KSPSolve")]:
            r[k] = ev.get(e)
        r["galerkin_s"] = sum(v for k, v in ev.items() if k.startswith("PCGAMG Gal l")) or None
    r["log"] = name + ".log"
    runs.append(r)
for x in runs:
    base = next((b for b in runs if b["name"] == x["name"].replace("evchyb", "aijcusparse") and b.get("total_s")), None) or next((b for b in runs if b["name"] == "aijcusparse" and b.get("total_s")), None)
    if base and x.get("total_s"):
        x["total_vs_aijcusparse"] = round(base["total_s"] / x["total_s"], 3)
        if x.get("kspsolve_s") and base.get("kspsolve_s"): x["kspsolve_vs_aijcusparse"] = round(base["kspsolve_s"] / x["kspsolve_s"], 3)
        if x.get("pcsetup_s") and base.get("pcsetup_s"): x["pcsetup_vs_aijcusparse"] = round(base["pcsetup_s"] / x["pcsetup_s"], 3)
json.dump({"tool": os.environ.get("GAMG_TOOL", "multigpu/gamg.sh"), "commit": commit, "gpu": gpu[0] if gpu else "none", "ranks": 1,
           "options": "-da_grid_x 200 -da_grid_y 200 -da_grid_z 200 -pc_type gamg -vec_type cuda -dm_vec_type cuda", "runs": runs}, open(out, "w"), indent=1)
for x in runs:
    print(x["name"], x["status"], "its", x.get("ksp_its"), "KSPSolve", x.get("kspsolve_s"), "PCSetUp", x.get("pcsetup_s"), "PtAP", x.get("ptap_symbolic_s"), x.get("ptap_numeric_s"),
          "total", x.get("total_s"), "vs aijcusparse", x.get("total_vs_aijcusparse"), "copies", x.get("vec_copies_to_device"), x.get("vec_copies_from_device"), "levels", x.get("level_matrix_types"))
PY
cd "$OUT" && for x in gamg-histories gamg-200; do [ -d $x ] && tar czf $x-logs.tgz $x && rm -rf $x; done; ls
