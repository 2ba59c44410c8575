#!/usr/bin/env bash
# transpose, device call 4: the pinned ring now pinned in the background (first upload pageable):
# the upload checks, ex45 128^3 BiCG + Jacobi and CG + Jacobi alternated 3 times (KSPSolve, -info
# build lines), SNES ex14 128^3 (default PC, CG + Jacobi) through bench/bratu.sh.
bin/test/test_upload >$OUT/gpu-upload.log 2>&1; echo "gpu upload: $(grep -c '^ok' $OUT/gpu-upload.log) ok, $(grep -c '^not ok' $OUT/gpu-upload.log) not ok"
E="bin/petsc/ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -pc_type jacobi -dll_append $PWD/lib/libgpuformats.so -vec_type cuda -dm_vec_type cuda -log_view"
mkdir -p $OUT/r4
for rep in 1 2 3; do
  for ksp in bicg cg; do
    for t in aijcusparse aijevchyb aijpjds; do
      $E -ksp_type $ksp -mat_type $t -dm_mat_type $t -info :mat >$OUT/r4/$ksp-$t-$rep.log 2>&1
    done
  done
done
for ksp in bicg cg; do for t in aijcusparse aijevchyb aijpjds; do
  echo "$ksp $t: $(for f in $OUT/r4/$ksp-$t-*.log; do grep -E '^KSPSolve ' $f | awk '{printf "%s ", $4}'; done) | $(grep -h 'gpuformats: .* build' $OUT/r4/$ksp-$t-1.log | sed 's/.*nonzeros: //' | head -1)"
done; done
cd $OUT && tar czf r4.tgz r4 && rm -rf r4 && cd - >/dev/null
for pc in default jacobi; do
  BRATU_PC=$pc BRATU_GPU_TIME=0 BRATU_OUT=$OUT/bratu-$pc-128 bench/bratu.sh 128 aijcusparse evchyb pjds 2>&1 | tail -5
done
for d in "$OUT"/bratu-*; do (cd "$OUT" && tar -czf "$(basename "$d")-logs.tgz" "$(basename "$d")"/*.log && rm -f "$d"/*.log); done
