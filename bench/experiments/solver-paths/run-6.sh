#!/usr/bin/env bash
# solver-paths, device call 6: SNES ex14 128^3 after the lazy sync, default PC and CG + Jacobi, aijcusparse /
# evchyb / pjds alternated twice (bench/bratu.sh without -log_view_gpu_time).
for rep in 1 2; do
  for pc in default jacobi; do
    BRATU_PC=$pc BRATU_GPU_TIME=0 BRATU_OUT=$OUT/bratu-$pc-128-rep$rep bench/bratu.sh 128 aijcusparse evchyb pjds 2>&1 | tail -6
  done
done
for d in "$OUT"/bratu-*; do (cd "$OUT" && tar -czf "$(basename "$d")-logs.tgz" "$(basename "$d")"/*.log && rm -f "$d"/*.log); done
