#!/usr/bin/env bash
# The GPU suite's trisolve section (test/run.sh) with this tree's plugin over the bundle (pack.sh's
# overlay): every levelset path of the suite (ILU(k), ICC(k), transposed solves, block Jacobi on
# 2 ranks, the schedules, FP32) against aijcusparse's histories.
#   run(command="bash bench/experiments/trisolve-tiles/suite.sh", carry=["bundle", "build/ov-tiles"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
xz -dc build/ov-tiles/libgpuformats.so.xz >lib/libgpuformats.so && xz -dc build/ov-tiles/test_trisolve.xz >bin/test/test_trisolve && chmod +x bin/test/test_trisolve && echo "overlay: $(cat build/ov-tiles/commit)"
GPUFORMATS_TEST_SECTIONS=${SECTIONS:-gpu-trisolve} GPUFORMATS_TEST_OUT=$OUT/test-logs GPUFORMATS_TEST_RANKS="1 2" timeout "${SUITE_TIMEOUT:-560}" test/run.sh >"$OUT/suite.log" 2>&1
echo "suite exit $?"
grep -E "^not ok" "$OUT/suite.log" | head -20
tail -3 "$OUT/suite.log"
tar -cJf "$OUT/suite-logs.tar.xz" -C "$OUT" test-logs 2>/dev/null && rm -rf "$OUT/test-logs"
