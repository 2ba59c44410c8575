#!/usr/bin/env bash
# The stencil layout (DIA, src/formats/dia/; taken by every type where the pattern is a stencil:
# -mat_gpuformats_stencil auto) against aijcusparse and sellcuda, one GPU, in one call:
#   test   bin/test/test_formats_cuda on DIA only (device builder and kernels against the host's)
#   spmv   bench_spmv on bench/suites/stencil.txt (7- and 27-point stencils with symmetric values,
#          7-point 256^3 with unsymmetric values, convection-diffusion 200^3): aijcusparse, sellcuda, evchyb with the stencil layout off (EVC-HYB),
#          evchyb (DIA, mirrored reads where rows are symmetric), DIA with full reads
#          (-mat_dia_symmetric 0)
#   ex14   SNES ex14 256^3 and 128^3, CG + Jacobi (-log_view, no GPU-time sync): aijcusparse,
#          sellcuda, evchyb with the stencil layout off, on, and on with full reads
#   ex45   KSP ex45 128^3 with PETSc's default preconditioner (ILU(0)): aijcusparse, evchyb with
#          the stencil layout off and on
# Logs and bench_spmv's JSON -> $OUT. STENCIL_SUITE (default bench/suites/stencil.txt;
# bench/suites/stencil-large.txt: 27-point 256^3), STENCIL_QUICK=1 (the first three matrices),
# STENCIL_MATRICES (the suite's names to run, blank-separated), EX14_SIZES (default
# "256 128") and STENCIL_DEADLINE (seconds, default 570) trim a run.
#   run(command="bash bench/experiments/stencil/run.sh [phases]", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
deadline=${STENCIL_DEADLINE:-570}
phases=${*:-test spmv ex14 ex45}
one_gpu_logs

if [[ " $phases " == *" test "* ]]; then
  timeout 200 bin/test/test_formats_cuda test/matrices dia >"$D/test_formats_cuda_dia.txt" 2>&1
  echo "test_formats_cuda dia exit $?: $(grep -c '^ok ' "$D/test_formats_cuda_dia.txt") ok, $(grep -c '^not ok' "$D/test_formats_cuda_dia.txt") not ok"
  grep '^not ok' "$D/test_formats_cuda_dia.txt" | head
fi

if [[ " $phases " == *" spmv "* ]]; then
  grep -v '^#' "${STENCIL_SUITE:-bench/suites/stencil.txt}" | head -n "$([ -n "${STENCIL_QUICK:-}" ] && echo 3 || echo 99)" | awk -v keep="${STENCIL_MATRICES:-}" 'keep == "" || index(" " keep " ", " " $1 " ")' >"$D/suite.txt"
  T="aijcusparse,sellcuda,evchyb:-mat_gpuformats_stencil=off,evchyb,evchyb:-mat_dia_symmetric=0"
  timeout $((deadline - SECONDS - 120)) bin/bench_spmv -dll_append "$L" -suite "$D/suite.txt" -types "$T" -reps 50 -commit "$(cat bundle/commit)" -json "$OUT/bench_spmv_stencil.json" >"$D/bench_spmv.txt" 2>&1
  echo "bench_spmv exit $?"
  cat "$D/bench_spmv.txt" | grep -v "^$" | tail -60
fi

run() { # case name timeout cmd type extra... (run_case: gamg/env.sh)
  run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -m1 -o 'iterations [0-9]*' "$LOG") | $(awk '$1 ~ /^(KSPSolve|SNESSolve|MatMult|PCApply)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG")"
  grep -m3 -E "stencil layout|not stencil|symmetric reads" "$LOG" | sed 's/^/    /'
}
if [[ " $phases " == *" ex14 "* ]]; then
  for N in ${EX14_SIZES:-256 128}; do
    E14="bin/petsc/snes_ex14 -da_grid_x $N -da_grid_y $N -da_grid_z $N -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8"
    for t in aijcusparse sellcuda evchyb_off evchyb_dia evchyb_dia_full; do
      case $t in
      evchyb_off) run ex14_$N $t 120 "$E14" evchyb -mat_gpuformats_stencil off -mat_view ::ascii_info ;;
      evchyb_dia) run ex14_$N $t 120 "$E14" evchyb -mat_view ::ascii_info ;;
      evchyb_dia_full) run ex14_$N $t 120 "$E14" evchyb -mat_dia_symmetric 0 -mat_view ::ascii_info ;;
      *) run ex14_$N "$t" 120 "$E14" "$t" ;;
      esac
    done
  done
fi
if [[ " $phases " == *" ex45 "* ]]; then
  E45="bin/petsc/ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128"
  run ex45_128 aijcusparse 90 "$E45" aijcusparse
  run ex45_128 evchyb_off 90 "$E45" evchyb -mat_gpuformats_stencil off
  run ex45_128 evchyb_dia 90 "$E45" evchyb -mat_view ::ascii_info
fi
tar -cJf "$OUT/logs.tar.xz" -C "$OUT" logs && rm -rf "$D"
