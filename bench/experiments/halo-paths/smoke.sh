# one-GPU smoke of the ipc halo with its trace: products, re-chosen exchanges, teardown
mkdir -p $OUT
GPUFORMATS_HALO_TRACE=1 timeout 100 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -halo ipc -types evchyb >$OUT/t.log 2>$OUT/t.err
echo rc=$? $(grep -c "^ok" $OUT/t.log) ok $(grep -c "^not ok" $OUT/t.log) not ok; tail -1 $OUT/t.log
grep -c "destroyed: settled 1" $OUT/t.err; grep "destroyed: settled 0" $OUT/t.err | head -3
for r in 0 1; do echo "== rank $r"; grep "^\[halo $r " $OUT/t.err | tail -4; done
grep -v "^\[halo" $OUT/t.err | head -10
timeout 100 mpiexec -n 3 bin/test/test_matmult -dir test/matrices -quick -halo ipc -mat_gpuformats_halo_node_ranks 2 -types evchyb >$OUT/t3.log 2>&1
echo np3 mixed rc=$? $(grep -c "^ok" $OUT/t3.log) ok $(grep -c "^not ok" $OUT/t3.log) not ok; tail -1 $OUT/t3.log
# auto takes ipc (one node); the mixed view names rank 1's peers
timeout 100 mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick -halo auto -types evchyb >$OUT/ta.log 2>&1
echo np2 auto rc=$? $(grep -c "^ok" $OUT/ta.log) ok $(grep -c "^not ok" $OUT/ta.log) not ok $(grep -o "halo_auto_used_[a-z]*" $OUT/ta.log | sort | uniq -c | tr '\n' ' ')
timeout 60 mpiexec -n 3 bin/petsc/ksp_ex2 -m 60 -n 60 -dll_append $PWD/lib/libgpuformats.so -mat_type evchyb -vec_type cuda -ksp_type cg -pc_type jacobi -mat_gpuformats_halo ipc -mat_gpuformats_halo_node_ranks 2 -ksp_view_mat ::ascii_info -use_gpu_aware_mpi 0 2>&1 | grep "halo\|Norm"
