#!/usr/bin/env bash
# Our level-scheduled exact triangular solves (-mat_gpuformats_trisolve levelset: src/trisolve,
# level_solve.cuh) against cuSPARSE's (aijcusparse's, and evchyb's default), PETSc's default
# preconditioner (ILU(0) on one rank), one GPU, in one call (the names below: exact = levelset with
# its default schedule (auto: lines or tiles), default = evchyb with no option (ILU(k > 0): ours where
# lines take both triangles), tiles / levels / graph / lines its other schedules, fp32 its FP32 values (lines32:
# with lines), cusparse = evchyb
# with cuSPARSE's solves, -mat_gpuformats_trisolve cusparse):
#   1. bin/test/test_trisolve on the device: the sync-free and per-level solves, FP64 and FP32,
#      and the transposed solve, against the host references
#   2. per-call GPU times (-log_view_gpu_time, each event synchronised: per-apply cost only):
#      MatSolve against MatMult for aijcusparse and evchyb (exact sync-free, exact per level from
#      the host and from a CUDA graph, FP32 values, cuSPARSE's solves), ksp ex45 at 128^3 and 256^3
#   3. time to solution (-log_view): ksp ex45 and snes ex14 at 128^3 and 256^3 (ex14 256^3 last), snes ex19 (4 dof, the
#      block layout; one Newton step), convection-diffusion, real matrices, ILU(1) (ex45); aijcusparse,
#      evchyb exact and FP32
# Logs -> $OUT/logs.tar.xz, summary -> $OUT/trisolve.json (bench/experiments/trisolve-auto/summarize.py).
#   run(command="bash bench/experiments/trisolve-exact/run.sh [phases]", carry=["bundle"])
# phases: a list of 1 2 3 (default all; TRI_VARIANTS2 / TRI_VARIANTS the second's / third's variants), iluk (ILU(1), ICC(1),
# ILU(2)), np2 (2 ranks, a GPU each, block Jacobi: ex45 and ex14 at TRI_N2), lines (the lines schedule on ex19 1024^2 and grids of 96^3 and 200^3), and tune (the sync-free schedule's parameters, ex45 128^3); TRI_N / TRI_N2 the grid sizes, TRI_DEADLINE seconds.
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
N=${TRI_N:-128}
N2=${TRI_N2:-256}
deadline=${TRI_DEADLINE:-560}
phases=${*:-1 2 3}
one_gpu_logs

if [[ " $phases " == *" 1 "* ]]; then
  timeout 120 bin/test/test_trisolve test/matrices >"$D/test_trisolve.txt" 2>&1
  echo "test_trisolve exit $?: $(grep -c '^ok ' "$D/test_trisolve.txt") ok, $(grep -c '^not ok' "$D/test_trisolve.txt") not ok; cuda exact checks: $(grep -c '^ok trisolve.exact.*cuda' "$D/test_trisolve.txt")"
  grep '^not ok' "$D/test_trisolve.txt" | head
fi

run() { # case name timeout cmd type extra... (run_case: gamg/env.sh)
  run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -m1 -o 'iterations [0-9]*' "$LOG") | $(awk '$1 ~ /^(KSPSolve|SNESSolve|PCSetUp|MatSolve|MatMult)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG")$(grep -m1 -o 'apply cost: [0-9.]* products' "$LOG") $(grep -c 'lines: lines of' "$LOG") lined $(grep -m1 -o 'none: [^;]*; solved in tiles' "$LOG")$(grep -m1 -o 'ours declined this factor' "$LOG")"
}
variants() { # case timeout cmd [names...]: aijcusparse and evchyb's triangular solves
  local c=$1 tmo=$2 cmd=$3; shift 3
  local names=${*:-aijcusparse exact levels graph fp32 cusparse}
  for nm in $names; do
    case $nm in
    aijcusparse) run "$c" aijcusparse "$tmo" "$cmd" aijcusparse ;;
    default) run "$c" default "$tmo" "$cmd" evchyb ;;
    exact) run "$c" exact "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset ;;
    tiles) run "$c" tiles "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_schedule tiles ;;
    levels | graph) run "$c" "$nm" "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_schedule "$nm" ;;
    fp32) run "$c" fp32 "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -pc_precision single ;;
    lines) run "$c" lines "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_schedule lines ;;
    lines32) run "$c" lines32 "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_schedule lines -pc_precision single ;;
    cusparse) run "$c" cusparse "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve cusparse ;;
    esac
  done
}
g="-da_grid_x $N -da_grid_y $N -da_grid_z $N"
g2="-da_grid_x $N2 -da_grid_y $N2 -da_grid_z $N2"
if [[ " $phases " == *" tune "* ]]; then # the sync-free schedule's residency and poll backoff
  for bps in ${TRI_TUNE_BLOCKS:-0 1 2 4 8}; do
    for bo in ${TRI_TUNE_BACKOFF:-0}; do run "tune_ex45_$N" "syncfree_b${bps}_s${bo}" 40 "bin/petsc/ksp_ex45 $g -log_view_gpu_time" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_blocks_per_sm $bps -mat_gpuformats_trisolve_backoff_ns $bo; done
  done
  variants "tune_ex45_$N" 40 "bin/petsc/ksp_ex45 $g -log_view_gpu_time" aijcusparse levels graph fp32 cusparse
fi
if [[ " $phases " == *" cases "* ]]; then # per-apply cost beyond the 3D Laplacian
  variants gputime_ex19_512 90 "bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_max_it 1 -ksp_max_it 400 -log_view_gpu_time" aijcusparse exact graph
  variants gputime_ex14_$N 60 "bin/petsc/snes_ex14 $g -snes_max_it 1 -log_view_gpu_time" aijcusparse exact graph
  variants gputime_convdiff_${N}_pe10 40 "bin/test/ksp_matrix -f convdiff3d:n=$N,pe=10 -log_view_gpu_time" aijcusparse exact graph
  for m in ani4 fidapm05; do variants gputime_real_$m 30 "bin/test/ksp_matrix -f test/matrices/$m.mtx -log_view_gpu_time" aijcusparse exact graph; done
  variants gputime_ex45_${N}_ilu1 40 "bin/petsc/ksp_ex45 $g -pc_type ilu -pc_factor_levels 1 -log_view_gpu_time" aijcusparse exact graph
fi
if [[ " $phases " == *" 2 "* ]]; then
  variants gputime_ex45_$N 40 "bin/petsc/ksp_ex45 $g -log_view_gpu_time" ${TRI_VARIANTS2:-}
  variants gputime_ex45_$N2 60 "bin/petsc/ksp_ex45 $g2 -log_view_gpu_time" ${TRI_VARIANTS2:-aijcusparse exact fp32}
fi
if [[ " $phases " == *" 3 "* ]]; then
  V3=${TRI_VARIANTS:-aijcusparse cusparse exact fp32}
  variants ex45_$N 40 "bin/petsc/ksp_ex45 $g" $V3
  variants ex14_$N 40 "bin/petsc/snes_ex14 $g -snes_converged_reason" $V3
  variants ex45_$N2 60 "bin/petsc/ksp_ex45 $g2" $V3
  variants ex45_${N}_ilu1 40 "bin/petsc/ksp_ex45 $g -pc_type ilu -pc_factor_levels 1" $V3
  variants convdiff_${N}_pe10 40 "bin/test/ksp_matrix -f convdiff3d:n=$N,pe=10" $V3
  for m in ani4 fidapm05; do variants real_$m 30 "bin/test/ksp_matrix -f test/matrices/$m.mtx" $V3; done
  variants ex19_1024 90 "bin/petsc/snes_ex19 -da_grid_x 1024 -da_grid_y 1024 -snes_max_it 1 -ksp_max_it 300" $V3
  variants ex14_$N2 120 "bin/petsc/snes_ex14 $g2 -snes_converged_reason" $V3
fi
if [[ " $phases " == *" lines "* ]]; then # the lines schedule on grids whose line is not a power of two, and ex19's 4-dof line
  V3=${TRI_VARIANTS:-aijcusparse exact lines}
  variants ex19_1024 90 "bin/petsc/snes_ex19 -da_grid_x 1024 -da_grid_y 1024 -snes_max_it 1 -ksp_max_it 300" $V3
  for n in 96 200; do variants ex45_$n 60 "bin/petsc/ksp_ex45 -da_grid_x $n -da_grid_y $n -da_grid_z $n" $V3; done
  variants ex14_200 60 "bin/petsc/snes_ex14 -da_grid_x 200 -da_grid_y 200 -da_grid_z 200 -snes_converged_reason" $V3
fi
if [[ " $phases " == *" np2 "* ]]; then # block Jacobi + ILU(0), PETSc's default on 2 ranks, a GPU each (PETSc's rank % devices; -device_view says which)
  V3=${TRI_VARIANTS:-aijcusparse tiles exact}
  export CUDA_VISIBLE_DEVICES=0,1
  variants np2_ex45_$N2 120 "mpiexec --bind-to none -n 2 bin/petsc/ksp_ex45 $g2 -device_view" $V3
  variants np2_ex14_$N2 180 "mpiexec --bind-to none -n 2 bin/petsc/snes_ex14 $g2 -snes_converged_reason -device_view" $V3
  export CUDA_VISIBLE_DEVICES=0
fi
if [[ " $phases " == *" iluk "* ]]; then # ILU(1) / ICC(1) time to solution, our solves and cuSPARSE's
  V3=${TRI_VARIANTS:-aijcusparse default exact}
  variants ex45_${N}_ilu1 40 "bin/petsc/ksp_ex45 $g -pc_type ilu -pc_factor_levels 1" $V3
  variants ex14_${N}_ilu1 60 "bin/petsc/snes_ex14 $g -snes_converged_reason -pc_type ilu -pc_factor_levels 1" $V3
  variants ex19_256_ilu1 60 "bin/petsc/snes_ex19 -da_grid_x 256 -da_grid_y 256 -snes_max_it 1 -ksp_max_it 300 -pc_type ilu -pc_factor_levels 1" $V3
  variants convdiff_${N}_pe10_ilu1 40 "bin/test/ksp_matrix -f convdiff3d:n=$N,pe=10 -pc_type ilu -pc_factor_levels 1" $V3
  variants ex45_${N}_icc1 40 "bin/petsc/ksp_ex45 $g -ksp_type cg -pc_type icc -pc_factor_levels 1" $V3
  variants ex45_${N}_ilu2 40 "bin/petsc/ksp_ex45 $g -pc_type ilu -pc_factor_levels 2" $V3
fi
python3 bench/experiments/trisolve-auto/summarize.py "$D" "$OUT/trisolve.json" "$(cat bundle/commit 2>/dev/null)" "bench/experiments/trisolve-exact/run.sh $phases" >"$OUT/summary.txt"
cat "$OUT/summary.txt"
tar -cJf "$OUT/logs.tar.xz" -C "$OUT" logs && rm -rf "$D"
