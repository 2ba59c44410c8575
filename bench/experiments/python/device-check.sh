#!/usr/bin/env bash
# The Python path on a GPU machine, over an older bundle of the same PETSc: the plugin of this tree
# and petsc4py built for the machine's python3 (3.12), both packed into build/ov-python by
# pack.sh here. Runs test/python's checks against aijcusparse, then compare.py and poisson.py at
# sizes far beyond L2, with -log_view.
# Run by: config/gpu-run.sh exec bash bench/experiments/python/device-check.sh
set -u
xz -dc build/ov-python/libgpuformats.so.xz > lib/libgpuformats.so
mkdir -p build/python-site && tar -xJf build/ov-python/python-site.tar.xz -C build/python-site
export PYTHONPATH=$PWD/python:$PWD/build/python-site PYTHONUNBUFFERED=1
{ python3 --version; nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader; } | tee $OUT/python-machine.txt
timeout 300 python3 test/python/test_api.py > $OUT/python-api.log 2>&1; echo "test_api rc $?: $(tail -1 $OUT/python-api.log)"
grep '^not ok' $OUT/python-api.log | head
mkdir -p $OUT/python-logs
timeout 400 python3 test/python/test_examples.py --gpu --ranks "1 2" --out $OUT/python-logs > $OUT/python-examples.log 2>&1
echo "test_examples rc $?: $(tail -1 $OUT/python-examples.log)"; grep '^not ok' $OUT/python-examples.log | head
timeout 300 python3 examples/python/compare.py -n 2048 -vec_type cuda -reps 200 2>&1 | tee $OUT/compare-laplacian2048.txt
for t in aijcusparse evchyb gpuauto; do
  timeout 200 python3 examples/python/poisson.py -n 2048 -mat_type $t -vec_type cuda -ksp_type cg -pc_type jacobi -log_view > $OUT/poisson2048-jacobi-$t.log 2>&1
  echo "$t jacobi: $(grep -E '^type ' $OUT/poisson2048-jacobi-$t.log) | $(grep -E '^(KSPSolve|MatMult|MatSetValuesCOO) ' $OUT/poisson2048-jacobi-$t.log | awk '{printf "%s %s s; ", $1, $4}')"
  timeout 200 python3 examples/python/poisson.py -n 1024 -mat_type $t -vec_type cuda -log_view > $OUT/poisson1024-ilu-$t.log 2>&1
  echo "$t ilu: $(grep -E '^type ' $OUT/poisson1024-ilu-$t.log) | $(grep -E '^(KSPSolve|PCSetUp|MatMult) ' $OUT/poisson1024-ilu-$t.log | awk '{printf "%s %s s; ", $1, $4}')"
done
# the device tool returns a limited number of files: everything as one archive
(cd $OUT && tar -czf python-run.tgz python-* compare-*.txt poisson*.log && rm -rf python-logs python-*.log python-machine.txt poisson*.log)
