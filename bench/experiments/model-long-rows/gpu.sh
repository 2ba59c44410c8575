#!/usr/bin/env bash
# model-long-rows on a GPU, model version 4 (the long_nnz term; models refitted from the calibration
# logs): test_formats_cuda (the features from the device CSR, long_nnz among them, equal the host's;
# gpuauto's cuda build chooses as its host build), then the whole default suite with gpuauto beside
# every candidate (gpuauto's bench.sh, the same settings as model-v3's run).
#   run(command="bash bench/experiments/model-long-rows/gpu.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
timeout 100 bin/test/test_formats_cuda test/matrices >"$OUT/gpu-formats.log" 2>&1
echo "test_formats_cuda exit $?: $(grep -c '^ok' "$OUT/gpu-formats.log") ok, $(grep -c '^not ok' "$OUT/gpu-formats.log") not ok"
grep '^not ok' "$OUT/gpu-formats.log" | head -10
GPUAUTO_TIMEOUT=$((${GPU_LIMIT:-580} - SECONDS)) bash bench/experiments/gpuauto/bench.sh
