#!/bin/bash
# halo-paths, every solver path on 2 GPUs (one rank per GPU) against mpiaijcusparse, with the
# default (ipc) exchange: the KSP x PC matrix on ksp ex45 97^3 (bench/solver_paths.sh: bjacobi/ILU,
# ASM, GAMG, BiCG, MG on the DMDA, ...), then block Jacobi + ILU(0) with each triangular-solve mode
# on ksp ex45 256^3, SNES ex19 1024^2 (the block layout), gpuauto, and TS ex4 with its edits.
# VecCUDACopyTo/From per run in solvers.json show any path that leaves the GPU.
set -u
export NCCL_NVLS_ENABLE=0 SOLVERS_NP=2 SOLVERS_ARGS="-use_gpu_aware_mpi 0"
SOLVERS_OUT=$OUT/matrix timeout ${PATHS_LIMIT:-300} bench/solver_paths.sh ex45 97 aijcusparse evchyb
S=$(mktemp)
cat >$S <<'CASES'
ex45_256_ilu_levelset | bin/petsc/ksp_ex45 | -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -mat_gpuformats_trisolve levelset
ex45_256_ilu_cusparse | bin/petsc/ksp_ex45 | -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -mat_gpuformats_trisolve cusparse
ex19_1024 | bin/petsc/snes_ex19 | -da_grid_x 1024 -da_grid_y 1024
ts_ex4 | bin/petsc/ts_ex4 | -ts_max_steps 50
CASES
SOLVERS_OUT=$OUT/apps timeout ${APPS_LIMIT:-280} bench/solvers.sh $S aijcusparse evchyb gpuauto
