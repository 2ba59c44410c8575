#!/usr/bin/env bash
# Bratu 3D (PETSc's SNES ex14, unmodified) at a given size through the plugin, once per matrix
# type, reading -log_view: MatMult GFLOP/s, SNESSolve time, the time spent building / refreshing
# the device matrix, and the solver's iteration counts.
#
#   bench/bratu.sh [n] [type ...]        n^3 unknowns (default 200 on a GPU, 32 on the host)
#
# Types: default on a GPU "aijcusparse aijcusparse:alg2 sellcuda" + every gpuformats type
# (bin/test/list_types); on the host "aij" + every gpuformats type (host backend).
# "aijcusparse:alg1|alg2" adds -mat_cusparse_spmv_alg CSRMV_ALG1|2.
# Environment: BRATU_NP (MPI ranks, default 1), BRATU_OUT (logs + bratu.json, default build/bratu),
# BRATU_ARGS (extra ex14 options), EX14 (default bin/petsc/snes_ex14), LIB (default lib/libgpuformats.so),
# BRATU_PC (the preconditioner, default jacobi; recorded in the JSON as "pc"), BRATU_GPU_TIME
# (1, the default: -log_view_gpu_time; 0: without it, for times to solution), BRATU_REPS (default 1:
# runs of every type, alternated type by type, each in the JSON with its "rep"; with more than one a
# table of medians per type follows, since the host part of SNESSolve is noisy between runs).
# Without -log_view_gpu_time PETSc prints n/a for the times of most events: they are then read from
# the event's share of the run (%T, whole percents, so +-0.5% of the run's time; "from_percent").
#
# Solver settings (they converge for ex14's default lambda = 6, where the Jacobian
# -Laplacian - lambda e^u is symmetric positive definite):
#   BRATU_PC=jacobi (default): Newton line search (-snes_type newtonls), -snes_rtol 1e-8;
#     CG (-ksp_type cg) preconditioned by Jacobi (-pc_type jacobi), -ksp_rtol 1e-8. Jacobi keeps
#     the preconditioner a vector operation, so MatMult is the one sparse kernel and the comparison
#     between types is a comparison of their SpMV.
#   BRATU_PC=default: ex14 as a user runs it, with PETSc's defaults (GMRES; ILU(0) on one rank,
#     block Jacobi + ILU(0) on several): the factorization and triangular solves count too.
#   BRATU_PC=<pc> (ilu, icc, bjacobi, gamg, ...): CG with that preconditioner, -ksp_rtol 1e-8.
# -log_view_gpu_time makes PETSc time GPU kernels with events (without it, -log_view prints n/a for
# the times of GPU events); MatMult GFLOP/s is PETSc's "GPU Mflop/s" column (flops / kernel time),
# or its "Mflop/s" on the host. It synchronises every event: compare times to solution without it.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
LIB=${LIB:-$ROOT/lib/libgpuformats.so}
EX14=${EX14:-$ROOT/bin/petsc/snes_ex14}
OUTDIR=${BRATU_OUT:-$ROOT/build/bratu}
NP=${BRATU_NP:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUTDIR"

has_gpu=0
{ [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
if [ $has_gpu = 1 ]; then
  n=${1:-200}
  vec="-dm_vec_type cuda -use_gpu_aware_mpi 0 $([ "${BRATU_GPU_TIME:-1}" = 1 ] && echo -log_view_gpu_time)"
  where="GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  default_types="aijcusparse aijcusparse:alg2 sellcuda"
else
  n=${1:-32}
  vec=""
  where="host (no GPU): gpuformats types on their host backend"
  default_types="aij"
  cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
  mkdir -p "$ROOT/build/stubs" && ln -sf "$cuda/lib64/stubs/libcuda.so" "$ROOT/build/stubs/libcuda.so.1"
  export LD_LIBRARY_PATH=$ROOT/build/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
shift $(( $# > 0 ? 1 : 0 ))
types=${*:-"$default_types $( [ -x bin/test/list_types ] && bin/test/list_types | tr '\n' ' ')"}
pc=${BRATU_PC:-jacobi}
case $pc in
default) solver="" ;;
*) solver="-snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type $pc -ksp_rtol 1e-8" ;;
esac
commit=${GPUFORMATS_COMMIT:-$(cat bundle/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)} # the bundle's library first: on the GPU machine git names the checkout, not what runs

echo "SNES ex14 (Bratu 3D), ${n}^3 unknowns, $NP rank(s), $where"
echo "solver: ${solver:-PETSc defaults} (pc: $pc)"
reps=${BRATU_REPS:-1}
printf "%-18s %5s %6s %10s %7s %10s %8s %10s %10s %10s %10s %11s %9s\n" type SNES KSP "final |F|" MatMult "MatMult s" GFLOP/s "Solve s" "KSPSolve s" "JacEval s" "dev.setup" "copies t/f" "vs first"
json="$OUTDIR/bratu.json"
{
  echo "{\"tool\": \"bratu.sh\", \"date\": \"$(date -u +%FT%TZ)\", \"commit\": \"$commit\", \"n\": $n, \"ranks\": $NP,"
  echo " \"where\": \"$where\", \"pc\": \"$pc\", \"solver\": \"$solver\", \"runs\": ["
} >"$json"
first_solve=""
sep=""
for rep in $(seq 1 "$reps"); do
for entry in $types; do
  t=${entry%%:*}
  extra=""
  case $entry in
  *:alg1) extra="-mat_cusparse_spmv_alg CSRMV_ALG1" ;;
  *:alg2) extra="-mat_cusparse_spmv_alg CSRMV_ALG2" ;;
  esac
  log=$OUTDIR/ex14_${entry//:/_}$([ "$reps" -gt 1 ] && echo "-rep$rep").log
  # shellcheck disable=SC2086
  mpiexec -n "$NP" "$EX14" -dll_append "$LIB" -da_grid_x "$n" -da_grid_y "$n" -da_grid_z "$n" -mat_type "$t" $extra $vec \
    $solver $([ "$pc" != jacobi ] && echo -ksp_view) -snes_converged_reason -ksp_converged_reason -snes_monitor -log_view ${BRATU_ARGS:-} >"$log" 2>&1
  rc=$?
  line=$(awk -v t="$entry" -v rc="$rc" -v first="$first_solve" -v gpu="$has_gpu" '
    # the time of an event: its column, or (n/a without -log_view_gpu_time) its %T share of the run
    function tv() { if ($4 ~ /^[0-9.eE+-]+$/) return $4; pct = 1; return $11 * total / 100 }
    /SNES Function norm/ {fn = $NF}
    /Nonlinear solve converged due to/ {conv = "yes"; its = $NF}
    /Nonlinear solve did not converge/ {conv = "no"}
    /Linear solve converged due to/ {kits += $NF}
    /Linear solve did not converge/ {kfail++}
    /^Time \(sec\):/ {total = $3}
    $1 == "MatMult" {mmc = $2; mm = tv(); fl = $6; cpu = $(NF-6); gpuf = $(NF-5)}
    $1 == "SNESSolve" {ss = tv()}
    $1 == "SNESJacobianEval" {je = tv()}
    $1 == "SNESFunctionEval" {fe = tv()}
    $1 == "KSPSolve" {ks = tv()}
    $1 == "PCSetUp" {pcs = tv()}
    $1 == "PCApply" {pca = tv()}
    $1 == "VecCUDACopyTo" {cto = $2}
    $1 == "VecCUDACopyFrom" {cfrom = $2}
    /package used to perform factorization:/ {pkg = $NF}
    $1 == "GFBuild" || $1 == "GFRefresh" || $1 == "MatCUSPARSCopyTo" {dev += tv(); devn += $2}
    END {
      g = (gpu == 1) ? gpuf / 1000 : cpu / 1000
      if (g == 0 && mm > 0) g = fl / mm / 1e9
      sp = (first != "" && ss > 0) ? sprintf("%.2fx", first / ss) : "1.00x"
      ok = (rc == 0 && conv == "yes" && kfail == 0) ? "ok" : "FAILED"
      devs = (devn > 0) ? sprintf("%.3f", dev) : "n/a"
      hs = (ss > 0) ? sprintf("%.3f", (je + fe) / ss) : "n/a"
      printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", t, ok, its, kits, fn, mmc, mm, g, ss, je, devs, devn + 0, total, sp, ks, pcs, pca, cto + 0, cfrom + 0, pkg, hs, pct ? "true" : "false"
    }' "$log")
  IFS='|' read -r _ ok its kits fn mmc mm g ss je devs devn total sp ks pcs pca cto cfrom pkg hs frompct <<<"$line"
  if [ "$ok" != ok ]; then
    printf "%-18s failed (exit %s): see %s\n" "$entry" "$rc" "$log"; { grep -m4 "PETSC ERROR" "$log" || tail -3 "$log"; } | sed 's/^/    /'
  else
    printf "%-18s %5s %6s %10s %7s %10s %8.1f %10s %10s %10s %10s %11s %9s\n" "$entry" "$its" "$kits" "$fn" "$mmc" "$mm" "$g" "$ss" "$ks" "$je" "$devs" "$cto/$cfrom" "$sp"
    [ -z "$first_solve" ] && first_solve=$ss
  fi
  num() { [[ $1 =~ ^[-+0-9.eE]+$ ]] && echo "$1" || echo null; }
  printf '%s  {"type": "%s", "rep": %s, "status": "%s", "exit": %s, "snes_its": %s, "ksp_its": %s, "final_fnorm": %s, "matmult_count": %s, "matmult_s": %s, "matmult_gflops": %s, "snessolve_s": %s, "jacobian_eval_s": %s, "device_setup_s": %s, "device_setup_events": %s, "total_s": %s, "kspsolve_s": %s, "pcsetup_s": %s, "pcapply_s": %s, "vec_copies_to_device": %s, "vec_copies_from_device": %s, "factor_package": "%s", "host_eval_share": %s, "from_percent": %s, "log": "%s"}' \
    "$sep" "$entry" "$rep" "$ok" "$rc" "$(num "$its")" "$(num "$kits")" "$(num "$fn")" "$(num "$mmc")" "$(num "$mm")" "$(num "$g")" "$(num "$ss")" "$(num "$je")" "$(num "$devs")" "$(num "$devn")" "$(num "$total")" \
    "$(num "$ks")" "$(num "$pcs")" "$(num "$pca")" "$(num "$cto")" "$(num "$cfrom")" "${pkg:-none}" "$(num "$hs")" "$frompct" "$(basename "$log")" >>"$json"
  sep=$',\n'
done
done
printf '\n]}\n' >>"$json"
if [ "$reps" -gt 1 ]; then
  python3 - "$json" <<'PY'
import json, statistics, sys
runs = json.load(open(sys.argv[1]))["runs"]
types = list(dict.fromkeys(r["type"] for r in runs))
med = lambda t, k: statistics.median([r[k] for r in runs if r["type"] == t and r["status"] == "ok" and r.get(k) is not None] or [float("nan")])
print(f"medians of {max(r['rep'] for r in runs)} alternated runs:")
print(f"{'type':18s} {'SNESSolve s':>11s} {'KSPSolve s':>10s} {'JacEval s':>9s} {'host eval':>9s} {'dev.setup':>9s} {'SNESSolve vs first':>18s} {'KSPSolve vs first':>17s}")
for t in types:
    s, k = med(t, "snessolve_s"), med(t, "kspsolve_s")
    print(f"{t:18s} {s:11.3f} {k:10.3f} {med(t, 'jacobian_eval_s'):9.3f} {med(t, 'host_eval_share'):9.2f} {med(t, 'device_setup_s'):9.3f} {med(types[0], 'snessolve_s') / s:17.2f}x {med(types[0], 'kspsolve_s') / k:16.2f}x")
PY
fi
echo "dev.setup = time in GFBuild + GFRefresh (gpuformats) or MatCUSPARSCopyTo (aijcusparse) events: building and"
echo "refreshing the device matrix (n/a: the type logs no such event, e.g. sellcuda). vs first = SNESSolve speedup."
echo "logs and JSON: $OUTDIR"
