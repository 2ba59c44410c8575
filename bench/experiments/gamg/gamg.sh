#!/usr/bin/env bash
# gamg, device call 1: multigpu/gamg.sh with GAMG's prolongator smoothing on the
# device (an aijcusparse product result shares our MatAXPY: GFProductResultAXPY): test_products,
# the GAMG histories (aijcusparse coarse operators), then ksp ex45 200^3 for aijcusparse and evchyb
# twice each and once each with -log_view_gpu_time (its events timed on the GPU: diagnosis only).
#   run(command="bash bench/experiments/gamg/gamg.sh", carry=["bundle"])
export GAMG_RESULTS=aijcusparse GAMG_TOOL=gamg/gamg.sh MULTIGPU_DEADLINE=${GAMG_DEADLINE:-500} GAMG_HISTORY_MARGIN=380
export GAMG_RUNS="aijcusparse 70 aijcusparse
evchyb 70 evchyb
aijcusparse_gputime 70 aijcusparse -log_view_gpu_time
evchyb_gputime 70 evchyb -log_view_gpu_time
aijcusparse_2 70 aijcusparse
evchyb_2 70 evchyb"
exec bash "$(dirname "$0")/../multigpu/gamg.sh" "$@"
