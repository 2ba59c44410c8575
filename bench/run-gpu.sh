#!/usr/bin/env bash
# The benchmark run on the GPU machine (config/gpu-run.sh bench calls this with its output folder):
# bench_spmv over a suite, then the Bratu runs. Results land in OUT/ (JSON + logs); copy them to
# bench/results/ and draw the charts here with bench/plot.py.
#
#   bench/run-gpu.sh [OUT]
# Environment (all optional):
#   BENCH_SUITE   suite file (default bench/suites/default.txt)
#   BENCH_ONLY    run only these suite labels (comma list, substrings), e.g. to split a long run
#                 over several device calls: BENCH_ONLY=st7,st27,fem ...
#   BENCH_TYPES   -types list (default: bench_spmv's: aijcusparse:alg1,aijcusparse:alg2,sellcuda + ours)
#   BENCH_ARGS    more bench_spmv options (e.g. "-reps 50")
#   BENCH_TAG     name part of the JSON file (default: the date)
#   BENCH_BRATU   grid size n for bench/bratu.sh (default 200; 0 skips it)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${1:-${OUT:-$PWD/build/bench-out}}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
tag=${BENCH_TAG:-$(date -u +%Y%m%d-%H%M)}
commit=$(cat bundle/commit 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)
rc=0

args=(-suite "${BENCH_SUITE:-bench/suites/default.txt}" -json "$OUT/spmv-$tag.json" -commit "$commit")
[ -n "${BENCH_ONLY:-}" ] && args+=(-only "$BENCH_ONLY")
[ -n "${BENCH_TYPES:-}" ] && args+=(-types "$BENCH_TYPES")
# shellcheck disable=SC2206
[ -n "${BENCH_ARGS:-}" ] && args+=($BENCH_ARGS)
echo "bin/bench_spmv ${args[*]}"
bin/bench_spmv "${args[@]}" 2>&1 | tee "$OUT/spmv-$tag.log"
rc=$((rc | ${PIPESTATUS[0]}))

n=${BENCH_BRATU:-200}
if [ "$n" != 0 ]; then
  BRATU_OUT=$OUT/bratu-$tag GPUFORMATS_COMMIT=$commit bench/bratu.sh "$n" 2>&1 | tee "$OUT/bratu-$tag.log"
  rc=$((rc | ${PIPESTATUS[0]}))
fi
exit $rc
