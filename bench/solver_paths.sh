#!/usr/bin/env bash
# The solver-path matrix (bench/suites/solver_paths.txt) on one problem, every pair through
# bench/solvers.sh (each type in one run beside the first, aijcusparse by default): KSPSolve time,
# iterations and host<->device vector copies per pair and type, in $SOLVERS_OUT/solvers.json;
# bench/solver_paths.py turns that into a heat map and a table.
#
#   bench/solver_paths.sh ex45|ex14 [n] [type ...]     n^3 grid (default 97: MG's three levels need 4k+1 points)
# Environment: as bench/solvers.sh (SOLVERS_NP ranks, SOLVERS_OUT, SOLVERS_ARGS); PATHS_MAX_IT
# (default 300: -ksp_max_it, so slow pairs cost the same bounded time for every type).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
problem=${1:-ex45}; n=${2:-97}; shift $(( $# > 2 ? 2 : $# ))
np=${SOLVERS_NP:-1}
case $problem in
ex45) prog=bin/petsc/ksp_ex45; base="-da_grid_x $n -da_grid_y $n -da_grid_z $n" ;;
ex14) prog=bin/petsc/snes_ex14; base="-da_grid_x $n -da_grid_y $n -da_grid_z $n -snes_max_it 2" ;;
*) echo "problem: ex45 or ex14"; exit 1 ;;
esac
suite=$(mktemp)
bench/solver_paths_list.sh "$np" | while read -r ksp pc opts; do
  echo "${problem}_${ksp}_${pc} | $prog | $base -ksp_type $ksp -pc_type $pc $opts -ksp_max_it ${PATHS_MAX_IT:-300}"
done >"$suite"
bench/solvers.sh "$suite" "$@"
rc=$?
rm -f "$suite"
exit $rc
