#!/usr/bin/env bash
# trisolve-auto, device call "calib": the trisolve modes on the cases the auto mode must judge.
#   1. bin/test/test_trisolve on the device (the probe residual against the host's included)
#   2. the glue's new paths on ksp ex2 (as test/run.sh's gpu.trisolve checks): ICC(0) with exact
#      sweeps = aijcusparse's IC(0) history; auto with tolerance 0 = aijcusparse's history, with a
#      huge one = the sweeps' iterations
#   3. cases x modes {aijcusparse, exact, sweeps K=1..3, isai, auto}, PETSc's default PC (ILU(0) on
#      one rank) unless the case says otherwise, -ksp_view (probe residual, auto's choice) and
#      -log_view -> $OUT/calib/<case>.<mode>.log, $OUT/calib.json (summarize.py)
# Run from the repository root with the bundle carried (make bundle):
#   run(command="bash bench/experiments/trisolve-auto/calib.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
export CUDA_VISIBLE_DEVICES=0
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
N=${TRISOLVE_AUTO_N:-128}
deadline=${TRISOLVE_AUTO_DEADLINE:-560}
D=$OUT/calib
mkdir -p "$D"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"

if [ -z "${TRISOLVE_AUTO_SKIP_TESTS:-}" ]; then
  timeout 150 bin/test/test_trisolve test/matrices >"$OUT/gpu-test_trisolve.log" 2>&1
  echo "test_trisolve exit $?: $(grep -c '^ok ' "$OUT/gpu-test_trisolve.log") ok, $(grep -c '^not ok' "$OUT/gpu-test_trisolve.log") not ok; cuda probe checks ok: $(grep -c '^ok trisolve.probe.*cuda' "$OUT/gpu-test_trisolve.log")"
  grep '^not ok' "$OUT/gpu-test_trisolve.log" | head
  EX2="bin/petsc/ksp_ex2 -m 40 -n 37 -ksp_monitor -ksp_converged_reason -vec_type cuda -ksp_view"
  TS="-mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 200"
  G="$OUT/glue"; mkdir -p "$G"
  cmp() { # name np args...: ours (evchyb) against aijcusparse, compare_runs.py
    local name=$1 np=$2; shift 2
    mpiexec -n "$np" "$@" -mat_type aijcusparse >"$G/$name.ref.log" 2>&1
    mpiexec -n "$np" "$@" -dll_append "$L" -mat_type evchyb >"$G/$name.ours.log" 2>&1
    echo "glue $name: $(python3 test/petsc/compare_runs.py "$G/$name.ours.log" "$G/$name.ref.log")"
  }
  cmp icc_sweeps_exact 1 $EX2 -ksp_type cg -pc_type icc $TS
  grep -c "gpuformats ICC(0), as the ILU(0) of A, apply (-mat_gpuformats_trisolve sweeps)" "$G/icc_sweeps_exact.ours.log"
  cmp asm_icc_sweeps_exact 2 $EX2 -ksp_type cg -pc_type asm -sub_pc_type icc $TS
  grep -c "gpuformats ICC(0), as the ILU(0) of A, apply" "$G/asm_icc_sweeps_exact.ours.log"
  cmp auto_fallback 1 $EX2 -pc_type ilu -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 0
  grep "auto:" "$G/auto_fallback.ours.log" | head -2
  bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$L" -mat_type evchyb -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 1e300 -mat_gpuformats_trisolve_sweeps 1 -ksp_converged_reason -ksp_view >"$G/auto_sweeps.log" 2>&1
  bin/petsc/ksp_ex2 -m 40 -n 37 -dll_append "$L" -mat_type evchyb -vec_type cuda -pc_type ilu -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 1 -ksp_converged_reason >"$G/sweeps1.log" 2>&1
  echo "glue auto_sweeps: $(grep -o 'iterations [0-9]*' "$G/auto_sweeps.log") $(grep -o 'auto: the sweeps below' "$G/auto_sweeps.log") | sweeps1 $(grep -o 'iterations [0-9]*' "$G/sweeps1.log")"
fi

run() { # case name timeout cmd type extra... (run_case: gamg/env.sh, with 10 s the least worth a run)
  RUN_MIN_S=10 run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -o 'iterations [0-9]*' "$LOG" | awk '{s += $2} END {print "its", s}') $(grep -m1 -o 'probe residual: .*= [^ ]*' "$LOG" | sed 's/.*= /probe /') $(grep -m1 -o 'auto: [a-zA-Z]* [a-z]*' "$LOG") $(grep -m1 '^ksp_matrix:' "$LOG" | cut -d' ' -f8-11) | $(awk '$1 ~ /^(KSPSolve|SNESSolve|MatSolve|MatMult)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG")"
}
modes() { # case timeout cmd [mode list]
  local c=$1 tmo=$2 cmd=$3 list=${4:-"aijcusparse exact sweeps1 sweeps2 sweeps3 isai auto"}
  for m in $list; do
    case $m in
      aijcusparse) run "$c" aijcusparse "$tmo" "$cmd" aijcusparse ;;
      exact | isai | auto) run "$c" "$m" "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve "$m" ;;
      sweeps*) run "$c" "$m" "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps "${m#sweeps}" ;;
    esac
  done
}
g="-da_grid_x $N -da_grid_y $N -da_grid_z $N"
if [ -z "${TRISOLVE_AUTO_CASES:-}" ]; then
  modes ex45_$N 40 "bin/petsc/ksp_ex45 $g"
  modes ex14_$N 40 "bin/petsc/snes_ex14 $g -snes_converged_reason"
  modes ex19_512 60 "bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_converged_reason"
  for pe in 1 10 100; do modes "convdiff_${N}_pe$pe" 40 "bin/test/ksp_matrix -f convdiff3d:n=$N,pe=$pe"; done
  # the wind against the row numbering in x and y: ILU(0) no longer nearly exact
  modes "convdiff_${N}_pe100_rev" 40 "bin/test/ksp_matrix -f convdiff3d:n=$N,pe=100,wx=-1,wy=-0.5"
  modes ex19_256_re100 60 "bin/petsc/snes_ex19 -da_grid_x 256 -da_grid_y 256 -lidvelocity 100 -grashof 1e2 -snes_converged_reason"
  modes icc_ex45_$N 40 "bin/petsc/ksp_ex45 $g -ksp_type cg -pc_type icc" "aijcusparse exact sweeps3 auto"
  # real matrices with every diagonal entry (dwt_2680: a zero pivot, DIVERGED_PC_FAILED)
  for f in ani4 fidapm05 olm1000 arc130 dwt_2680 1138_bus; do
    modes "mtx_$f" 15 "bin/test/ksp_matrix -f test/matrices/$f.mtx" "exact sweeps3 isai auto"
  done
else
  eval "$TRISOLVE_AUTO_CASES"
fi
python3 "$(dirname "$0")/summarize.py" "$D" "$OUT/calib.json" "$(cat bundle/commit 2>/dev/null || echo unknown)" trisolve-auto/calib.sh
cd "$OUT" && tar czf calib-logs.tgz calib $( [ -d glue ] && echo glue) && rm -rf calib glue
