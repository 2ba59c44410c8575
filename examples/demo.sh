#!/usr/bin/env bash
# The main job (make demo): PETSc's own SNES ex14 (Bratu 3D), unmodified, through the plugin with
# each gpuformats type and with PETSc's types (aijcusparse, sellcuda on a GPU; aij on the host),
# printing SNES/KSP iterations, final residual, MatMult count, time and GFLOP/s, SNESSolve and
# KSPSolve time, the host Jacobian evaluation and device setup time per type, read from -log_view,
# then medians over the runs. The runner is bench/bratu.sh (the benchmark's
# Bratu driver); the demo only picks a size that runs in a minute.
#   examples/demo.sh [grid size n: n^3 unknowns]   (default 128 on a GPU, 24 on the host)
# Linear solver: CG + Jacobi (the Bratu Jacobian is symmetric positive definite for lambda = 6),
# -ksp_rtol 1e-8; Newton to -snes_rtol 1e-8.
set -uo pipefail
cd "$(dirname "$0")/.."
if { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && nvidia-smi -L >/dev/null 2>&1; then n=${1:-128}; else n=${1:-24}; fi
# Three runs of every type, alternated, without -log_view_gpu_time (it synchronises every event):
# the table of medians at the end is the comparison (the host Jacobian evaluation is noisy).
# BRATU_REPS=1 BRATU_GPU_TIME=1 gives one run with kernel-timed MatMult GFLOP/s instead.
BRATU_REPS=${BRATU_REPS:-3} BRATU_GPU_TIME=${BRATU_GPU_TIME:-0} BRATU_OUT=${BRATU_OUT:-$PWD/build/demo} exec bench/bratu.sh "$n"
