#!/usr/bin/env bash
# inplace-edits, device call 1: the GPU suite (test/run.sh) on 1 and 2 ranks for two types (the other two in
# call 2): in-place edits and derived matrices on CUDA vectors, the conformance suite against
# aijcusparse, the viewer fix of the transpose runs; the solver-path matrix is left out (bench/solver_paths.sh times it).
GPUFORMATS_TEST_TYPES="${TYPES:-evchyb suraa}" GPUFORMATS_TEST_PATHS=0 GPUFORMATS_TEST_RANKS="1 2" GPUFORMATS_TEST_OUT=$OUT/test-logs \
  timeout 560 test/run.sh >$OUT/gpu-suite.log 2>&1
echo "exit $?"; tail -1 $OUT/gpu-suite.log; grep "^not ok" $OUT/gpu-suite.log | head -20
grep -E "^ok (conformance|gpu\.(bjacobi|asm)).*(in_format|sub_block)" $OUT/gpu-suite.log | head -12
cd $OUT && tar czf test-logs.tgz test-logs && rm -rf test-logs
