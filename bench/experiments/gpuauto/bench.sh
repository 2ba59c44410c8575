#!/usr/bin/env bash
# gpuauto: gpuauto on the default suite, beside every single candidate, aijcusparse and
# sellcuda, in one bench_spmv run per GPU: the model's prediction error per format, gpuauto's
# choice against the fastest, its setup against the chosen format's (bench/model_report.py).
#   run(command="bash bench/experiments/gpuauto/bench.sh", carry=["bundle"], kind="nvidia-h200")
#   (and kind="nvidia-h100-x1"); GPUAUTO_ONLY=<labels> runs a part of the suite.
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "commit $(cat bundle/commit 2>/dev/null) gpu $gpu"
tag=$(echo "$gpu" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\+/-/g; s/^-//; s/-$//')
J=$OUT/spmv-default-$tag.json
timeout ${GPUAUTO_TIMEOUT:-540} bin/bench_spmv -suite bench/suites/default.txt ${GPUAUTO_ONLY:+-only $GPUAUTO_ONLY} -reps 20 \
  -types aijcusparse:alg1,sellcuda,evchyb,pjds,pellr,suraa,gpuauto -json "$J" >"$OUT/spmv-default-$tag.txt" 2>&1
echo "bench_spmv exit $? after $SECONDS s"; grep -c '"label"' "$J" 2>/dev/null
tail -3 "$OUT/spmv-default-$tag.txt"
python3 bench/model_report.py "$J" | tee "$OUT/model-report-$tag.txt" | tail -40
