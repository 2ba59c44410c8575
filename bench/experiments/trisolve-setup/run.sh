#!/usr/bin/env bash
# Where the setup of PETSc's default ILU(0) goes (PCSetUp: the symbolic and numeric phases), with
# our exact solves (-mat_gpuformats_trisolve levelset) beside aijcusparse and evchyb with cuSPARSE's
# solves (-mat_gpuformats_trisolve cusparse), one GPU, one call. -log_view for KSPSolve, and
# -log_view_gpu_time for PCSetUp, MatILUFactorSym, MatLUFactorNum and MatSolve per call; -ksp_view
# for the symbolic phase's parts (S's values, the package's own
# symbolic phase, the apply made: levels, level order, slots, halos per triangle; the ILU(0)'s
# analysis), and the ILU(0) factorization's schedules (-mat_gpuformats_trisolve_factor, SETUP_FACTORS:
# ksp ex45, and snes ex14 at SETUP_EX14 whose every Newton step factors again).
#   SETUP_SIZES="128 256" SETUP_MODES="levelset" SETUP_FACTORS="levels graph syncfree cusparse" \
#     bash bench/experiments/trisolve-setup/run.sh
#   run(command="bash bench/experiments/trisolve-setup/run.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
deadline=${SETUP_DEADLINE:-560}
one_gpu_logs
run() { # case name timeout cmd type extra... (run_case: gamg/env.sh)
  run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -m1 -o 'iterations [0-9]*' "$LOG") | $(awk '$1 ~ /^(KSPSolve|SNESSolve|PCSetUp|MatILUFactorSym|MatLUFactorNum|MatSolve|MatMult|MatCUSPARSCopyTo|GFViewFill|GFBuild)$/ && $4 != "n/a" {printf "%s %s %s | ", $1, $2, $4}' "$LOG")"
  grep -E "symbolic phase:|setup ms:|numeric phases:|L tiles:|U tiles:|ILU\(0\) factorization:" "$LOG" | sort -u | sed 's/^ */    /'
}
# each case twice: -log_view (KSPSolve as users run it) and -log_view_gpu_time (every event
# synchronised: PCSetUp and its phases, MatSolve per call)
for n in ${SETUP_SIZES-128 256}; do # SETUP_SIZES="": none
  c=ex45_$n cmd="bin/petsc/ksp_ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n -ksp_max_it 40"
  for g in "" gpu; do
    x=${g:+-log_view_gpu_time}
    run "$c" "aijcusparse${g:+.gpu}" 90 "$cmd $x" aijcusparse
    run "$c" "cusparse${g:+.gpu}" 90 "$cmd $x" evchyb -mat_gpuformats_trisolve cusparse
    for m in ${SETUP_MODES:-levelset}; do run "$c" "$m${g:+.gpu}" 90 "$cmd $x" evchyb -mat_gpuformats_trisolve "$m"; done
    for f in ${SETUP_FACTORS:-}; do run "$c" "factor_$f${g:+.gpu}" 90 "$cmd $x" evchyb -mat_gpuformats_trisolve_factor "$f"; done
  done
done
for n in ${SETUP_EX14:-}; do # every Newton step a numeric phase
  c=ex14_$n cmd="bin/petsc/snes_ex14 -da_grid_x $n -da_grid_y $n -da_grid_z $n"
  run "$c" aijcusparse 120 "$cmd" aijcusparse
  for f in ${SETUP_FACTORS:-levels}; do run "$c" "factor_$f" 120 "$cmd" evchyb -mat_gpuformats_trisolve_factor "$f"; done
done
tar -C "$OUT" -cJf "$OUT/logs.tar.xz" logs && rm -rf "$D"
