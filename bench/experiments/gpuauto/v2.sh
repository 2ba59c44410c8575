#!/usr/bin/env bash
# gpuauto, model version 2 (the x footprint term; models refitted from the calibration logs): the device
# checks (test_formats_cuda: the footprint from the device CSR equals the host's), then the whole
# default suite with gpuauto beside every candidate (bench.sh).
#   run(command="bash bench/experiments/gpuauto/v2.sh", carry=["bundle"], kind="nvidia-h200")
#   (and kind="nvidia-h100-x1")
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
timeout 100 bin/test/test_formats_cuda test/matrices >"$OUT/gpu-formats.log" 2>&1
echo "test_formats_cuda exit $?: $(grep -c '^ok' "$OUT/gpu-formats.log") ok, $(grep -c '^not ok' "$OUT/gpu-formats.log") not ok"
grep '^not ok' "$OUT/gpu-formats.log" | head -10
GPUAUTO_TIMEOUT=$((580 - SECONDS)) bash "$(dirname "$0")/bench.sh"
