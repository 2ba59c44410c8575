#!/usr/bin/env bash
# The main job (make demo): PETSc's own SNES ex14 (Bratu 3D), unmodified, through the plugin with
# each gpuformats type and with PETSc's types (aijcusparse and sellcuda on a GPU; aij on the host),
# CG + Jacobi, so that the sparse product is the one matrix kernel. Two passes of bench/bratu.sh:
#   1. one run per type with -log_view_gpu_time: MatMult's kernel time per call;
#   2. DEMO_REPS runs per type (default 3), alternated, without it (it synchronises every event):
#      the times to solution, KSPSolve and SNESSolve, and SNESSolve's host share (the Jacobian and
#      function evaluation run on the host for every type).
# Then one table (examples/demo_report.py): MatMult and KSPSolve with their speedups against
# aijcusparse and sellcuda, SNESSolve and its host share, and a bar chart (text, and a PNG where
# matplotlib is present). Logs, JSON and chart: build/demo (DEMO_OUT).
#   examples/demo.sh [n: n^3 unknowns] [type ...]   (default 192 on a GPU, where the product is
#   most of KSPSolve and KSPSolve half of SNESSolve; 16 on the host)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
if { [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && nvidia-smi -L >/dev/null 2>&1; then
  n=${1:-192}
  base="aijcusparse sellcuda"
else
  n=${1:-16}
  base="aij"
fi
shift $(( $# > 0 ? 1 : 0 ))
types=${*:-"$base $( [ -x bin/test/list_types ] && bin/test/list_types | tr '\n' ' ')"}
out=${DEMO_OUT:-$PWD/build/demo}
mkdir -p "$out/timed" "$out/solve"
# shellcheck disable=SC2086
BRATU_REPS=1 BRATU_GPU_TIME=1 BRATU_OUT=$out/timed bench/bratu.sh "$n" $types >"$out/timed/table.txt" || exit 1
# shellcheck disable=SC2086
BRATU_REPS=${DEMO_REPS:-3} BRATU_GPU_TIME=0 BRATU_OUT=$out/solve bench/bratu.sh "$n" $types >"$out/solve/table.txt" || exit 1
python3 examples/demo_report.py "$out/timed/bratu.json" "$out/solve/bratu.json" "$out/demo.png"
rc=$?
echo "each run's table: $out/timed/table.txt, $out/solve/table.txt; logs and JSON beside them"
exit $rc
