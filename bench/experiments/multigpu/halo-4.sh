#!/usr/bin/env bash
# multigpu, device call 5 (nvidia-h100-x2): ex14 256^3 on 2 GPUs, nccl against mpi halo, with each rank
# free to use several cores (--bind-to none: Open MPI binds each of 2 ranks to one core, which NCCL's
# threads then share with the solver), and the NCCL communicator made at assembly (PETSc's device
# picked first).
export NCCL_NVLS_ENABLE=0
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/ex14
A="-da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -dm_vec_type cuda -use_gpu_aware_mpi 0 -snes_converged_reason -log_view"
for h in nccl mpi; do
  timeout 60 mpiexec --bind-to none -n 2 bin/petsc/snes_ex14 $A -mat_type evchyb -dll_append $L -mat_gpuformats_halo $h >$OUT/ex14/np2-evchyb-$h-nobind.log 2>&1
  echo "$h rc=$?: $(grep -E '^(KSPSolve|SNESSolve|MatMult|GFHalo|MatAssemblyEnd) ' $OUT/ex14/np2-evchyb-$h-nobind.log | awk '{printf "%s %s %s %%T=%s | ", $1,$2,$4,$11}')"
done
cd $OUT && tar czf ex14-4-logs.tgz ex14 && rm -rf ex14
