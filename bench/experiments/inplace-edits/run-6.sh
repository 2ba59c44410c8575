#!/usr/bin/env bash
# inplace-edits, device call 6: the explicit upload context (no thread-local scopes): the staged-upload checks,
# every format's device build against its host build (quick set), the products and in-place edits
# on 1 rank, and the build / refresh upload times that -mat_view ::ascii_info and -info report.
bin/test/test_upload >$OUT/gpu-upload.log 2>&1; echo "gpu upload: $(grep -c '^ok' $OUT/gpu-upload.log) ok, $(grep -c '^not ok' $OUT/gpu-upload.log) not ok"
timeout 150 bin/test/test_formats_cuda test/matrices all quick >$OUT/gpu-formats.log 2>&1; echo "gpu formats (quick): $(grep -c '^ok' $OUT/gpu-formats.log) ok, $(grep -c '^not ok' $OUT/gpu-formats.log) not ok"; grep '^not ok' $OUT/gpu-formats.log | head -3
timeout 150 bin/test/test_matmult -dir test/matrices -quick >$OUT/gpu-matmult-np1.log 2>&1; echo "gpu matmult np1: $(grep -c '^ok' $OUT/gpu-matmult-np1.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np1.log) not ok"; grep '^not ok' $OUT/gpu-matmult-np1.log | head -3
bin/petsc/snes_ex14 -da_grid_x 96 -da_grid_y 96 -da_grid_z 96 -dll_append $PWD/lib/libgpuformats.so -dm_mat_type aijevchyb -dm_vec_type cuda -pc_type jacobi -info :mat -mat_view ::ascii_info 2>&1 | grep -E "gpuformats: evchyb (build|values-only)|last (build|refresh)" | head -4
