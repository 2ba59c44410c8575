#!/usr/bin/env bash
# COO assembly beside aijcusparse (examples/coo_poisson.cpp, one rank): MatSetValuesCOO time and the
# first use, 27-point Poisson at 128^3 (1 and 2 duplicates per entry) and 192^3, values from host and
# from device memory; then CG + Jacobi and the default PC on the COO-assembled 160^3 operator, -log_view.
# Run by config/gpu-run.sh exec bash bench/experiments/device-values/coo.sh (after overlay.sh's unpacking)
L=$PWD/lib/libgpuformats.so
run() { # name, args...
  local n=$1; shift
  timeout 200 bin/coo_poisson -dll_append $L -vec_type cuda -options_left 0 "$@" >$OUT/coo-$n.log 2>&1
  grep '^{' $OUT/coo-$n.log >>$OUT/coo.jsonl || { echo "$n failed"; tail -5 $OUT/coo-$n.log; }
}
PHASES=${COO_PHASES:-"set solve"}
for t in aijcusparse evchyb; do
  [[ $PHASES == *set* ]] && for dv in 0 1; do
    run "$t-128-dup1-dev$dv" -mat_type $t -n 128 -dup 1 -device_values $dv -solve 0
    run "$t-128-dup2-dev$dv" -mat_type $t -n 128 -dup 2 -device_values $dv -solve 0
    run "$t-192-dup1-dev$dv" -mat_type $t -n 192 -dup 1 -device_values $dv -solve 0
  done
  [[ $PHASES == *solve* ]] && run "$t-160-jacobi" -mat_type $t -n 160 -device_values 1 -pc_type jacobi -ksp_rtol 1e-8 -log_view
  [[ $PHASES == *solve* ]] && run "$t-160-default" -mat_type $t -n 160 -device_values 1 -ksp_rtol 1e-8 -log_view
  [[ $PHASES == *solve* ]] && run "$t-160-jacobi-gputime" -mat_type $t -n 160 -device_values 1 -pc_type jacobi -ksp_rtol 1e-8 -log_view -log_view_gpu_time
done
grep '"pc"' $OUT/coo.jsonl >/dev/null && for f in $OUT/coo-*-160-jacobi-gputime.log; do echo "== $(basename $f)"; grep -E "^(KSPSolve|MatMult|PCApply|PCSetUp|MatGetDiagonal|GFBuild|GFSpMV|MatSetVCOO) " $f | cut -c1-62; done
python3 - "$OUT/coo.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
sets, solves = {}, {}
for r in rows:
    if "pc" in r: solves.setdefault((r["n"], r["pc"]), {}).setdefault(r["type"], r)  # the first (without -log_view_gpu_time)
    else: sets.setdefault((r["n"], r["dup"], r["device_values"]), {})[r["type"]] = r
for k, d in sorted(sets.items()):
    a, e = d.get("seqaijcusparse"), d.get("seqaijevchyb")
    if a and e: print("n=%d dup=%d device_values=%s | MatSetValuesCOO aijcusparse %.3f ms, evchyb %.3f ms: %.2fx its time, %.2f products | first values + product %.1f / %.1f ms | MatMult %.3f / %.3f ms" % (
        k[0], k[1], k[2], a["values_s"]*1e3, e["values_s"]*1e3, e["values_s"]/a["values_s"], e["values_in_products"], a["first_values_and_product_s"]*1e3, e["first_values_and_product_s"]*1e3, a["mult_s"]*1e3, e["mult_s"]*1e3))
for k, d in sorted(solves.items()):
    a, e = d.get("seqaijcusparse"), d.get("seqaijevchyb")
    if a and e: print("n=%d pc=%s | KSPSolve (program's clock) aijcusparse %.3f s, evchyb %.3f s: %.2fx | iterations %d / %d" % (k[0], k[1], a["ksp_solve_s"], e["ksp_solve_s"], a["ksp_solve_s"]/e["ksp_solve_s"], a["iterations"], e["iterations"]))
PY
(cd $OUT && tar czf coo-logs.tgz coo-*.log && rm -f coo-*.log)
