#!/usr/bin/env bash
# Dirichlet rows on the device: MatZeroRowsColumns (and MatZeroRows with MAT_KEEP_NONZERO_PATTERN)
# before each solve, as FEM codes impose their boundary conditions, beside aijcusparse (which
# brings the values to the host for them and uploads all of them again at the next product). One
# GPU, one call: test_matmult's checks (1 and 2 ranks, quick set), then ksp_matrix -dirichlet on
# matrices far larger than L2 (CG + Jacobi, 6 solves of 20 iterations): -log_view_gpu_time for the
# per-call times of DirichletFirst / DirichletMult (the change and the product after it, at the first solve / the others) against MatMult, then
# -log_view for KSPSolve. Logs -> $OUT/dirichlet-logs.tar.xz, summary -> $OUT/dirichlet.json
# (dirichlet_summary.py).
#   run(command="bash bench/experiments/device-values/dirichlet.sh", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
export CUDA_VISIBLE_DEVICES=0
D=$OUT/dirichlet-logs
mkdir -p "$D"
echo "commit $(cat bundle/commit 2>/dev/null)"
nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader
if [ "${DIRICHLET_TESTS:-1}" = 1 ]; then # (DIRICHLET_TESTS=0: the timings alone)
  timeout 150 bin/test/test_matmult -dir test/matrices -quick >"$D/matmult-np1.log" 2>&1
  echo "test_matmult np1 exit $?: $(grep -c '^ok' "$D/matmult-np1.log") ok, $(grep -c '^not ok' "$D/matmult-np1.log") not ok, $(grep -c '^ok .*zerorows' "$D/matmult-np1.log") ok on zero rows"
  grep '^not ok' "$D/matmult-np1.log" | head -5
  timeout 150 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -types evchyb,gpuauto >"$D/matmult-np2.log" 2>&1
  echo "test_matmult np2 exit $?: $(grep -c '^ok' "$D/matmult-np2.log") ok, $(grep -c '^not ok' "$D/matmult-np2.log") not ok"
  grep '^not ok' "$D/matmult-np2.log" | head -5
fi
for m in stencil27:n=128 fem:rows=4e6,min=10,max=80; do
  for mode in cols rows; do
    extra="-dirichlet 50"; [ $mode = rows ] && extra="$extra -dirichlet_rows"
    for t in aijcusparse evchyb; do
      dll=(); [ $t = aijcusparse ] || dll=(-dll_append "$L")
      for g in gpu plain; do
        log=$D/${m%%:*}.$mode.$t.$g.log
        x=""; [ $g = gpu ] && x=-log_view_gpu_time
        timeout 120 bin/test/ksp_matrix -f "$m" "${dll[@]}" -mat_type $t -vec_type cuda -ksp_type gmres -pc_type jacobi -ksp_max_it 20 \
          $extra -repeat 6 -log_view $x >"$log" 2>&1
        echo "${m%%:*} $mode $t $g exit $?: $(grep -m1 '^ksp_matrix' "$log" | cut -d' ' -f4-9) | $(awk '$1 ~ /^(DirichletFirst|DirichletMult|MatMult|KSPSolve|GFEdit|GFToHost|GFRefresh|MatCUSPARSCopyTo)$/ {printf "%s %s %s | ", $1, $2, $4}' "$log")"
      done
    done
  done
done
python3 bench/experiments/device-values/dirichlet_summary.py "$D" "$OUT/dirichlet.json" "$(cat bundle/commit 2>/dev/null)" "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
tar -C "$OUT" -cJf "$OUT/dirichlet-logs.tar.xz" dirichlet-logs && rm -rf "$D"
