#!/usr/bin/env bash
# transpose, device call 1: MatMultTranspose in bench_spmv (-transpose) beside aijcusparse; kernel times of
# the transposed products (ncu); SNES ex14 128^3 event times (-log_view_gpu_time) to find where the
# time outside KSPSolve goes.
T=aijcusparse,evchyb,pjds,pellr,suraa,evchyb:-mat_gpuformats_explicit_transpose=1
printf 'st7_128 stencil3d7:n=128\n' >/tmp/t.txt
grep -E '^(st7_200|fem_10_80|rmat_s22|x_crack|x_ani4) ' bench/suites/default.txt >>/tmp/t.txt
timeout 330 bin/bench_spmv -suite /tmp/t.txt -types $T -transpose -refresh_reps 1 -json $OUT/transpose.json >$OUT/transpose.txt 2>&1
grep -E "^\[|MatMultTranspose|^  (aijcusparse|evchyb|pjds|pellr|suraa)" $OUT/transpose.txt | head -80
echo "== ncu"
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv bin/bench_spmv -matrix stencil3d7:n=128 -types aijcusparse,evchyb -reps 3 -warmup 0 -refresh_reps 0 -transpose -copy_mb 16 >$OUT/ncu.csv 2>&1
python3 - "$OUT/ncu.csv" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
if not rows: print("no ncu rows"); sys.exit()
h = rows[0]; k = h.index("Kernel Name"); v = h.index("Metric Value")
agg = collections.OrderedDict()
for r in rows[1:]:
    try: t = float(r[v])
    except ValueError: continue
    agg.setdefault(r[k][:90], []).append(t)
for name, ts in agg.items(): print(f"{len(ts):4d} x median {sorted(ts)[len(ts)//2]/1e3:9.1f} us  {name}")
PY
echo "== ex14 gpu time"
mkdir -p $OUT/ex14-gt
for t in aijcusparse evchyb pjds; do
  timeout 60 bin/petsc/snes_ex14 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -dll_append $PWD/lib/libgpuformats.so -dm_mat_type $t -dm_vec_type cuda -log_view -log_view_gpu_time >$OUT/ex14-gt/$t.log 2>&1
  echo "$t: $(grep -E '^(SNESSolve|SNESJacobianEval|KSPSolve|DMCreateMat) ' $OUT/ex14-gt/$t.log | awk '{printf "%s %s  ", $1, $4}')"
done
cd $OUT && tar czf ex14-gt.tgz ex14-gt && rm -rf ex14-gt
