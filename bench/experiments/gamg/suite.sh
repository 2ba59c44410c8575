#!/usr/bin/env bash
# gamg, device call 3: the bundle built against the fat-binary PETSc (sm_80, sm_90, sm_100 + PTX)
# on the H100:
#   1. GAMG ksp ex45 200^3, aijcusparse and evchyb, -log_view as CSV: the set-up's events with the
#      graph's MatAXPY fixed (gamg-200/, gamg-200.txt)
#   2. the GPU suite (test/run.sh) for evchyb on 1 and 2 ranks, the solver-path matrix left out
#      (call 5, GAMG_EX45=0: the suite alone, after the 2-rank fix of call 4):
#      trisolve's checks, the products, the factorizations (gpu-suite.log, test-logs.tgz)
# Run from the repository root with the bundle carried (make bundle):
#   run(command="bash bench/experiments/gamg/suite.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/env.sh"
NG=${GAMG_NG:-200}
D=$OUT/gamg-200
mkdir -p "$D"
echo "commit $(cat bundle/commit 2>/dev/null); libpetsc fat binary: $(cuobjdump --list-elf lib/libpetsc.so.3.26 2>/dev/null | grep -o 'sm_[0-9]*' | sort -u | tr '\n' ' ')"
[ "${GAMG_EX45:-1}" = 0 ] && GAMG_TYPES="" || GAMG_TYPES="aijcusparse evchyb" # GAMG_EX45=0: the suite only (call 5)
for t in $GAMG_TYPES; do
  dll=(); dmt=$t
  [ $t != aijcusparse ] && dll=(-dll_append "$L") && dmt=aij$t
  CUDA_VISIBLE_DEVICES=0 timeout 60 bin/petsc/ksp_ex45 -da_grid_x $NG -da_grid_y $NG -da_grid_z $NG -pc_type gamg -ksp_converged_reason "${dll[@]}" -mat_type $t -dm_mat_type $dmt \
    -vec_type cuda -dm_vec_type cuda -log_view ":$D/$t.log,:$D/$t.csv:ascii_csv" </dev/null >"$D/$t.out" 2>&1
  echo "$t exit $?: $(grep -m1 -o 'iterations [0-9]*' "$D/$t.out")"
done
for t in $GAMG_TYPES; do
  awk -F, -v t=$t '$1 == "Main Stage" && $2 ~ /^(summary|KSPSolve|PCSetUp|MatAXPY|MatCreateGraph|MatTranspose|MatMatMultSym|MatPtAPSymbolic|MatCoarsen| PCGAMGCreateG| GAMG smooth|  GAMG MIS\/Agg|GFBuild)$/ {printf "%s %s %s %.4f\n", t, $2, $4, $5}' "$D/$t.csv"
done | tee "$OUT/gamg-200.txt"
cd "$OUT" && tar czf gamg-200-logs.tgz gamg-200 && rm -rf gamg-200 && cd - >/dev/null

GPUFORMATS_TEST_TYPES="${TYPES:-evchyb}" GPUFORMATS_TEST_PATHS=0 GPUFORMATS_TEST_RANKS="1 2" GPUFORMATS_TEST_OUT=$OUT/test-logs \
  timeout 420 test/run.sh >"$OUT/gpu-suite.log" 2>&1
echo "suite exit $?"; tail -1 "$OUT/gpu-suite.log"; grep "^not ok" "$OUT/gpu-suite.log" | head -20
grep -E "^ok (gpu\.trisolve|unit\.trisolve)" "$OUT/gpu-suite.log" | head -12
cd "$OUT" && tar czf test-logs.tgz test-logs && rm -rf test-logs
