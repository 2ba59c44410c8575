#!/usr/bin/env bash
# gamg, device call 4: the 2-rank runs that call 3's GPU suite failed (exit 73: since the multigpu runs the auto
# halo's choice read MatGetGhosts inside the final assembly, which PETSc refuses there; fixed by
# counting the off-process block's columns), again on 2 ranks sharing the one GPU:
# test_matmult (every type and edge case against AIJ), ksp ex2 with the default PC, block Jacobi,
# ASM and block Jacobi with -mat_gpuformats_trisolve sweeps beyond the depth, against aijcusparse.
#   run(command="bash bench/experiments/gamg/np2.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/env.sh"
timeout 240 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick >"$OUT/np2-matmult.log" 2>&1
echo "test_matmult np2 exit $?: $(grep -c '^ok ' "$OUT/np2-matmult.log") ok, $(grep -c '^not ok' "$OUT/np2-matmult.log") not ok"
grep -m3 "PETSC ERROR: [A-Z]\|^not ok" "$OUT/np2-matmult.log"
EX2="bin/petsc/ksp_ex2 -m 40 -n 37 -ksp_monitor -ksp_converged_reason -vec_type cuda"
for c in "default|" "bjacobi|-pc_type bjacobi" "asm|-pc_type asm" "bjacobi_sweeps|-pc_type bjacobi -mat_gpuformats_trisolve sweeps -mat_gpuformats_trisolve_sweeps 200" "bjacobi_isai|-pc_type bjacobi -mat_gpuformats_trisolve isai"; do
  n=${c%%|*}; o=${c#*|}
  for t in evchyb pjds pellr suraa; do
    # shellcheck disable=SC2086
    timeout 60 mpiexec -n 2 $EX2 $o -dll_append "$L" -mat_type $t -ksp_view >"$OUT/np2-ex2.$n.$t.log" 2>&1; rc=$?
    # shellcheck disable=SC2086
    [ -f "$OUT/np2-ex2.$n.ref.log" ] || timeout 60 mpiexec -n 2 $EX2 ${o/-mat_gpuformats_trisolve*/} -mat_type aijcusparse >"$OUT/np2-ex2.$n.ref.log" 2>&1
    if [ $n = bjacobi_isai ]; then # an approximate apply: its own history; it must converge
      grep -q "Linear solve converged" "$OUT/np2-ex2.$n.$t.log"; r=$?; msg=$(grep -m1 -o 'iterations [0-9]*' "$OUT/np2-ex2.$n.$t.log")
    else msg=$(python3 test/petsc/compare_runs.py "$OUT/np2-ex2.$n.$t.log" "$OUT/np2-ex2.$n.ref.log"); r=$?; fi
    echo "$([ $rc = 0 ] && [ $r = 0 ] && echo ok || echo 'not ok') np2.ex2.$n.$t (exit $rc): $msg $(grep -m1 -o 'gpuformats ILU(0) apply[^:]*' "$OUT/np2-ex2.$n.$t.log")"
  done
done
