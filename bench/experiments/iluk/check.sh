#!/usr/bin/env bash
# iluk, device call "check" (ILU(k)): correctness on the GPU before any timing.
#   1. the ILU(k) glue checks (as test/run.sh's gpu.trisolve.iluk* lines): exact sweeps against
#      aijcusparse's ILU(1), ILU(2), ICC(1) histories on ksp ex2, ex14's Newton steps, bjacobi
#      sub-blocks on 2 ranks, auto's fallback
#   2. bin/test/test_trisolve on the device (cuSPARSE's ILU(0) against the host's)
#   3. test/run.sh, evchyb on 1 and 2 ranks (GPU suite included), in the time left
#   run(command="bash bench/experiments/iluk/check.sh", carry=["bundle"], kind="nvidia-h200")
set -uo pipefail
ILUK_DEADLINE=${ILUK_DEADLINE:-570}
source "$(dirname "$0")/../gamg/env.sh"
echo "commit $(cat bundle/commit 2>/dev/null) gpu $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
G=$OUT/glue; mkdir -p "$G"
EX2="bin/petsc/ksp_ex2 -m 40 -n 37 -ksp_monitor -ksp_converged_reason -vec_type cuda -ksp_view -use_gpu_aware_mpi 0"
EX14="bin/petsc/snes_ex14 -da_grid_x 10 -da_grid_y 10 -da_grid_z 10 -snes_monitor -ksp_converged_reason -dm_vec_type cuda -use_gpu_aware_mpi 0"
TK="-mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 400"
cmp() { # name np args...: ours (evchyb) against aijcusparse, compare_runs.py
  local name=$1 np=$2; shift 2
  timeout 60 mpiexec -n "$np" "$@" -mat_type aijcusparse -dm_mat_type aijcusparse >"$G/$name.ref.log" 2>&1
  timeout 60 mpiexec -n "$np" "$@" -dll_append "$L" -mat_type evchyb -dm_mat_type aijevchyb >"$G/$name.ours.log" 2>&1
  echo "glue $name: $(python3 test/petsc/compare_runs.py "$G/$name.ours.log" "$G/$name.ref.log") | $(grep -m1 -o 'gpuformats I[LC][CU]([0-9]*)[^:]*' "$G/$name.ours.log") | $(grep -m1 -o 'ILU([0-9]*) pattern: .*' "$G/$name.ours.log") | $(grep -m1 -o 'auto: [^(]*' "$G/$name.ours.log")"
}
for k in 1 2; do cmp iluk$k 1 $EX2 -pc_type ilu $TK -pc_factor_levels $k; done
cmp icc1 1 $EX2 -ksp_type cg -pc_type icc $TK -pc_factor_levels 1
cmp ex14_ilu1 1 $EX14 -pc_type ilu $TK -pc_factor_levels 1
cmp bjacobi_ilu1 2 $EX2 -pc_type bjacobi $TK -sub_pc_factor_levels 1
cmp auto_fallback_ilu1 1 $EX2 -pc_type ilu -pc_factor_levels 1 -mat_gpuformats_trisolve auto -mat_gpuformats_trisolve_auto_margin 0
cmp auto_ilu1 1 $EX2 -pc_type ilu -pc_factor_levels 1 -mat_gpuformats_trisolve auto
grep -h "probe residual\|numeric phases" "$G"/iluk1.ours.log | head -3

timeout 150 bin/test/test_trisolve test/matrices >"$OUT/gpu-test_trisolve.log" 2>&1
echo "test_trisolve exit $?: $(grep -c '^ok ' "$OUT/gpu-test_trisolve.log") ok, $(grep -c '^not ok' "$OUT/gpu-test_trisolve.log") not ok"
grep '^not ok' "$OUT/gpu-test_trisolve.log" | head

left=$((ILUK_DEADLINE - SECONDS))
echo "suite: $left s left"
GPUFORMATS_TEST_TYPES=evchyb GPUFORMATS_TEST_RANKS="1 2" GPUFORMATS_TEST_PATHS=0 GPUFORMATS_TEST_OUT=$OUT/suite \
  timeout "$left" bash test/run.sh >"$OUT/suite.log" 2>&1
echo "suite exit $? after $SECONDS s: $(grep -c '^ok ' "$OUT/suite.log") ok lines, $(grep -c '^not ok' "$OUT/suite.log") not ok; last line: $(tail -1 "$OUT/suite.log")"
grep '^not ok' "$OUT/suite.log" | head -20
grep '^ok gpu.trisolve' "$OUT/suite.log" | cut -c1-150
cd "$OUT" && tar czf check-logs.tgz glue suite suite.log gpu-test_trisolve.log 2>/dev/null && rm -rf glue suite
