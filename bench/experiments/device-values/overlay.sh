#!/usr/bin/env bash
# Device quick check with a new plugin over an older bundle (same PETSc): unpack build/ov3's library
# and test binary, then run the GPU checks of the device-resident values and ts ex4.
# Run by: config/gpu-run.sh exec bash bench/experiments/device-values/overlay.sh
set -u
xz -dc build/ov3/libgpuformats.so.xz > lib/libgpuformats.so
xz -dc build/ov3/test_matmult.xz > bin/test/test_matmult && chmod +x bin/test/test_matmult
nvidia-smi --query-gpu=name --format=csv,noheader
for np in 1 2; do
  timeout 300 mpiexec -n $np bin/test/test_matmult -dir test/matrices -quick >$OUT/gpu-matmult-np$np.log 2>&1
  echo "gpu matmult np$np: $(grep -c '^ok' $OUT/gpu-matmult-np$np.log) ok, $(grep -c '^not ok' $OUT/gpu-matmult-np$np.log) not ok"; grep '^not ok' $OUT/gpu-matmult-np$np.log | head -5
done
bash bench/experiments/device-values/ts4.sh 20
