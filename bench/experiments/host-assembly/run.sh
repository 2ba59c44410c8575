#!/usr/bin/env bash
# Where snes ex14's host Jacobian assembly (MatSetValuesStencil row by row, on the host) costs more
# with our types than with aijcusparse on the cuda backend: SNESJacobianEval and DMCreateMat share
# of -log_view (%T of the total: these events' times print n/a without -log_view_gpu_time) beside
# aijcusparse, with the PC and the layout varied.
#   run(command="bash bench/experiments/host-assembly/run.sh", carry=["bundle"])
# HA_N the grid size (default 128).
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
N=${HA_N:-128}
deadline=${HA_DEADLINE:-500}
one_gpu_logs
g="-da_grid_x $N -da_grid_y $N -da_grid_z $N -snes_converged_reason"
total() { awk '/^Time \(sec\):/ {print $3}' "$1"; }
run() { # case name type extra...
  local c=$1 nm=$2
  shift 2
  run_case "$c" "$nm" 60 "bin/petsc/snes_ex14 $g" "$@" || return 0
  local T; T=$(total "$LOG")
  echo "$c.$nm exit $RC total $T s: $(awk -v T="$T" '$1 ~ /^(SNESSolve|SNESJacobianEval|DMCreateMat|KSPSolve|PCSetUp|SNESFunctionEval)$/ {printf "%s %.3f s | ", $1, T * $11 / 100}' "$LOG")"
}
run ilu aijcusparse aijcusparse
run ilu evchyb evchyb
run jacobi aijcusparse aijcusparse -pc_type jacobi
run jacobi evchyb evchyb -pc_type jacobi
run jacobi evchyb_nostencil evchyb -pc_type jacobi -mat_gpuformats_stencil off
run jacobi evchyb_hostbackend evchyb -pc_type jacobi -mat_gpuformats_backend host -vec_type standard -dm_vec_type standard
tar -cJf "$OUT/logs.tar.xz" -C "$OUT" logs && rm -rf "$D"
