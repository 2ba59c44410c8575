#!/usr/bin/env bash
# transpose, device call 5: 2 MB upload chunks (16 MB pinned ring at the first staged upload): the upload
# and product checks, ex45 128^3 BiCG / CG + Jacobi alternated 3 times with -info build lines,
# SNES ex14 256^3 CG + Jacobi, 3 alternated runs (bench/bratu.sh, BRATU_REPS=3, -info refresh lines).
bin/test/test_upload >$OUT/gpu-upload.log 2>&1; echo "gpu upload: $(grep -c '^ok' $OUT/gpu-upload.log) ok, $(grep -c '^not ok' $OUT/gpu-upload.log) not ok"
timeout 150 bin/test/test_matmult -dir test/matrices -quick >$OUT/gpu-matmult-np1.log 2>&1; echo "gpu matmult np1: $(grep -c '^ok' $OUT/gpu-matmult-np1.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np1.log) not ok"
E="bin/petsc/ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -pc_type jacobi -dll_append $PWD/lib/libgpuformats.so -vec_type cuda -dm_vec_type cuda -log_view"
mkdir -p $OUT/r5
for rep in 1 2 3; do for ksp in bicg cg; do for t in aijcusparse aijevchyb aijpjds; do
  $E -ksp_type $ksp -mat_type $t -dm_mat_type $t -info :mat >$OUT/r5/$ksp-$t-$rep.log 2>&1
done; done; done
for ksp in bicg cg; do for t in aijcusparse aijevchyb aijpjds; do
  echo "$ksp $t: $(for f in $OUT/r5/$ksp-$t-*.log; do grep -E '^KSPSolve ' $f | awk '{printf "%s ", $4}'; done) | $(grep -h 'gpuformats: .* build' $OUT/r5/$ksp-$t-1.log | sed 's/.*nonzeros: //' | head -1)"
done; done
cd $OUT && tar czf r5.tgz r5 && rm -rf r5 && cd - >/dev/null
BRATU_REPS=3 BRATU_GPU_TIME=0 BRATU_ARGS="-info :mat" BRATU_OUT=$OUT/bratu-jacobi-256 timeout 400 bench/bratu.sh 256 aijcusparse evchyb pjds 2>&1 | tail -9
grep -h "gpuformats: .*refresh\|gpuformats: .*build" $OUT/bratu-jacobi-256/*.log | sed 's/.*gpuformats: //' | head -12
for d in "$OUT"/bratu-*; do (cd "$OUT" && tar -czf "$(basename "$d")-logs.tgz" "$(basename "$d")"/*.log && rm -f "$d"/*.log); done
