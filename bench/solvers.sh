#!/usr/bin/env bash
# Time to solution of PETSc's own tutorials (unmodified) per matrix type, read from -log_view:
# KSPSolve, PCSetUp, PCApply, SNESSolve, iterations, host<->device vector copies (VecCUDACopyTo /
# VecCUDACopyFrom) and the factorization package (-ksp_view). No -log_view_gpu_time: it synchronises
# every event. Every type runs the same case in one call, beside aijcusparse.
#
#   bench/solvers.sh [suite] [type ...]    suite default bench/suites/solvers.txt;
#                                          types default "aijcusparse" + every gpuformats type
# Environment: SOLVERS_OUT (logs + solvers.json, default build/solvers), SOLVERS_ONLY (case names,
# comma list), SOLVERS_NP (MPI ranks, default 1), SOLVERS_ARGS (more options for every run).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
LIB=${LIB:-$ROOT/lib/libgpuformats.so}
OUTDIR=${SOLVERS_OUT:-$ROOT/build/solvers}
NP=${SOLVERS_NP:-1}
suite=${1:-bench/suites/solvers.txt}
shift $(( $# > 0 ? 1 : 0 ))
types=${*:-"aijcusparse $(bin/test/list_types | tr '\n' ' ')"}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$OUTDIR"
commit=${GPUFORMATS_COMMIT:-$(cat bundle/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
json=$OUTDIR/solvers.json
printf '{"tool": "solvers.sh", "date": "%s", "commit": "%s", "gpu": "%s", "ranks": %s, "runs": [' "$(date -u +%FT%TZ)" "$commit" "${gpu:-none}" "$NP" >"$json"
printf "%-14s %-14s %6s %6s %10s %10s %10s %10s %11s %9s %s\n" case type SNES KSP "KSPSolve s" "PCSetUp s" "PCApply s" "SNESSolve" "copies t/f" "vs first" package
sep=""
while IFS='|' read -r name prog opts; do
  [[ $name =~ ^[[:space:]]*(#|$) ]] && continue
  name=$(echo "$name" | xargs); prog=$(echo "$prog" | xargs)
  [ -n "${SOLVERS_ONLY:-}" ] && [[ ",$SOLVERS_ONLY," != *",$name,"* ]] && continue
  first=""
  for t in $types; do
    log=$OUTDIR/${name}_$t.log
    # shellcheck disable=SC2086
    # ours by the name PETSc's DMs take as AIJ (aij<fmt>): DMDA's interpolation is then of our type too
    dmt=$t; bin/test/list_types | grep -qx "$t" && dmt=aij$t
    mpiexec -n "$NP" "$prog" -dll_append "$LIB" -mat_type "$t" -dm_mat_type "$dmt" -vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0 \
      $opts -ksp_view -ksp_converged_reason -log_view ${SOLVERS_ARGS:-} </dev/null >"$log" 2>&1
    rc=$?
    line=$(awk -v rc="$rc" '
      /Linear solve converged due to/ {kits += $NF; conv++}
      /Linear solve did not converge/ {kits += $NF; fail++}
      /Nonlinear solve converged due to/ {its = $NF}
      /^Norm of error/ {if (kits == 0) kits = $NF}
      /Iterations [0-9]+/ {for (i = 1; i < NF; i++) if ($i == "Iterations") kits2 = $(i + 1)}
      /package used to perform factorization:/ {pkg = $NF}
      $1 == "KSPSolve" {ks = $4} $1 == "PCSetUp" {ps = $4} $1 == "PCApply" {pa = $4} $1 == "SNESSolve" {ss = $4}
      $1 == "VecCUDACopyTo" {to = $2} $1 == "VecCUDACopyFrom" {from = $2}
      END {
        ok = (rc == 0 && ks > 0) ? (fail == 0 ? "ok" : "diverged") : "FAILED"
        if (kits == 0 && kits2 != "") kits = kits2
        printf "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s\n", ok, its, kits, ks, ps, pa, ss, to + 0, from + 0, pkg
      }' "$log")
    IFS='|' read -r ok its kits ks ps pa ss to from pkg <<<"$line"
    if [ "$ok" = FAILED ]; then
      printf "%-14s %-14s failed (exit %s): %s\n" "$name" "$t" "$rc" "$log"; grep -m3 "PETSC ERROR" "$log" | sed 's/^/    /'
    else
      [ -z "$first" ] && first=$ks
      sp=$(awk -v a="$first" -v b="$ks" 'BEGIN {printf "%.2fx", (b > 0) ? a / b : 0}')
      printf "%-14s %-14s %6s %6s %10s %10s %10s %10s %11s %9s %s\n" "$name" "$t" "${its:--}" "$kits$([ "$ok" = diverged ] && echo '*')" "$ks" "$ps" "$pa" "${ss:--}" "$to/$from" "$sp" "${pkg:-none}"
    fi
    num() { [[ $1 =~ ^[-+0-9.eE]+$ ]] && echo "$1" || echo null; }
    printf '%s\n  {"case": "%s", "type": "%s", "status": "%s", "exit": %s, "options": "%s", "snes_its": %s, "ksp_its": %s, "kspsolve_s": %s, "pcsetup_s": %s, "pcapply_s": %s, "snessolve_s": %s, "vec_copies_to_device": %s, "vec_copies_from_device": %s, "factor_package": "%s", "log": "%s"}' \
      "$sep" "$name" "$t" "$ok" "$rc" "$(echo $opts)" "$(num "$its")" "$(num "$kits")" "$(num "$ks")" "$(num "$ps")" "$(num "$pa")" "$(num "$ss")" "$(num "$to")" "$(num "$from")" "${pkg:-none}" "$(basename "$log")" >>"$json"
    sep=","
  done
done <"$suite"
printf '\n]}\n' >>"$json"
echo "vs first = KSPSolve speedup over the first type; * = a linear solve stopped unconverged (max_it; status \"diverged\" in the JSON); logs and JSON: $OUTDIR"
