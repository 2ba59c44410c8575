#!/usr/bin/env bash
# One GPU: the line-scheduled lower-triangular solve (lines_proto.cu) beside cuSPARSE's SpSV on the
# same triangles, every variant in one run. Build here first (no PETSc needed):
#   nvcc -O3 -arch=sm_90 -std=c++17 bench/experiments/trisolve-lines/lines_proto.cu -o build/proto/lines_proto
#   nvcc -O3 -arch=sm_90 -std=c++17 bench/experiments/trisolve-lines/spsv_baseline.cu -lcusparse -o build/proto/spsv_baseline
# then run(command="bash bench/experiments/trisolve-lines/run.sh", carry=["build/proto"]).
# Writes $OUT/lines.jsonl (one JSON object a line, each with its case) and $OUT/gpu.txt.
set -uo pipefail
out=${OUT:-/tmp}/lines.jsonl
bin=build/proto
: >"$out"
nvidia-smi --query-gpu=index,name,uuid,memory.total,clocks.max.sm --format=csv >"${OUT:-/tmp}/gpu.txt" 2>&1
if ! "$bin/spsv_baseline" 8 7 >/dev/null 2>&1; then # cuSPARSE from the image's Python packages
  d=$(python3 -c 'import nvidia.cusparse, os; print(os.path.join(list(nvidia.cusparse.__path__)[0], "lib"))' 2>/dev/null)
  [ -n "$d" ] && export LD_LIBRARY_PATH="$d:${LD_LIBRARY_PATH:-}"
fi
one() { # case label, environment, program and arguments
  local label=$1; shift
  env "$@" 2>/dev/null | sed "s/^{/{\"case\": \"$label\", /" | tee -a "$out"
}
for n in 128 256; do
  one "cusparse-7pt-$n" "$bin/spsv_baseline" $n 7
  one "levels-noprefetch-7pt-$n" LINES_VARIANT=0 "$bin/lines_proto" $n 7 $n 8
  one "levels-prefetch-7pt-$n" LINES_VARIANT=8 "$bin/lines_proto" $n 7 $n 8
  one "levels-staged-7pt-$n" LINES_VARIANT=164 "$bin/lines_proto" $n 7 $n 8
  for w in 2 4 8; do one "chains-wpb$w-7pt-$n" LINES_PLAN2=40 "$bin/lines_proto" $n 7 $n $w; done
  one "chains-floor-noloads-7pt-$n" LINES_PLAN2=40 LINES_MODE=4 "$bin/lines_proto" $n 7 $n 4
done
one "cusparse-27pt-128" "$bin/spsv_baseline" 128 27
one "levels-prefetch-27pt-128" LINES_VARIANT=2 "$bin/lines_proto" 128 27 128 8
one "chains-27pt-128" LINES_PLAN2=40 "$bin/lines_proto" 128 27 128 4
echo "wrote $out"
