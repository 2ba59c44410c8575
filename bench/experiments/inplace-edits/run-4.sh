#!/usr/bin/env bash
# inplace-edits, device call 4: device time per in-place edit against a product (ts ex4, 4M rows, 1 rank,
# -log_view_gpu_time: per-event GPU times, not for overlap), then the GPU suite for the other two types.
L=$PWD/lib/libgpuformats.so
timeout 60 bin/petsc/ts_ex4 -nox -m 4000000 -ts_type beuler -ts_max_steps 20 -pc_type jacobi -ksp_rtol 1e-8 -dll_append $L -mat_type aijevchyb -dm_vec_type cuda -log_view -log_view_gpu_time >$OUT/ts4-gputime.log 2>&1
grep -E "^(GFEdit|GFSpMV|GFBuild|MatAXPY|MatZeroEntries|MatShift|TSStep|KSPSolve) " $OUT/ts4-gputime.log | awk '{printf "%-16s %5s cpu %s  gpu-time %s\n", $1, $2, $4, $(NF-5)}'
TYPES="pjds pellr" timeout 480 bash bench/experiments/inplace-edits/run-1.sh
