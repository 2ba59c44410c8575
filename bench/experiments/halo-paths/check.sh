#!/bin/bash
# halo-paths, correctness of the ipc halo: every type's products against AIJ with the exchange on
# ipc, 2 ranks on one GPU (or one per GPU where there are two), 3 ranks in nodes of 2 (rank 1 reads
# rank 0 by IPC and rank 2 by MPI), 4 ranks; a CG solve with the mixed exchange against mpi's.
# Run from the repository root through config/gpu-run.sh exec (the bundle unpacked).
set -u
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/check
tm() { local tag=$1; shift
  timeout 150 mpiexec "$@" >$OUT/check/$tag.log 2>&1; local rc=$?
  echo "$tag rc=$rc: $(grep -c '^ok' $OUT/check/$tag.log) ok, $(grep -c '^not ok' $OUT/check/$tag.log) not ok $(grep -m3 '^not ok\|ERROR' $OUT/check/$tag.log | cut -c1-160 | tr '\n' ' ')"; }
tm np2-ipc -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc ${CHECK_TYPES:+-types $CHECK_TYPES}
tm np3-ipc-mixed -n 3 bin/test/test_matmult -dir test/matrices -quick -halo ipc -mat_gpuformats_halo_node_ranks 2 -types evchyb
tm np4-ipc -n 4 bin/test/test_matmult -dir test/matrices -quick -halo ipc -types evchyb
tm np2-ipc-nooverlap -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc -mat_gpuformats_halo_overlap 0 -types evchyb
E="bin/petsc/ksp_ex2 -m 300 -n 300 -dll_append $L -mat_type evchyb -vec_type cuda -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10 -use_gpu_aware_mpi 0"
for h in mpi "ipc -mat_gpuformats_halo_node_ranks 2 -ksp_view_mat ::ascii_info" ipc; do
  timeout 60 mpiexec -n 3 $E -mat_gpuformats_halo $h >$OUT/check/ex2.log 2>&1
  echo "ex2 np3 halo $h rc=$?: $(grep '^Norm of error' $OUT/check/ex2.log) $(grep -m2 'by IPC\|halo: ipc' $OUT/check/ex2.log | tr '\n' ' ')"
done
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -n "$san" ] && [ "${CHECK_MEMCHECK:-0}" = 1 ]; then
  timeout 200 mpiexec -n 2 "$san" --tool memcheck --report-api-errors no --error-exitcode 99 bin/test/test_matmult -dir test/matrices -quick -types evchyb -halo ipc >$OUT/check/memcheck.log 2>&1
  echo "memcheck np2 ipc rc=$?: $(grep -c '^ok' $OUT/check/memcheck.log) ok $(grep -m3 '=========' $OUT/check/memcheck.log | tr '\n' ' ')"
fi
