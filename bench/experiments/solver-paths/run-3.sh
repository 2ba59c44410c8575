#!/usr/bin/env bash
# solver-paths, device call 3: re-checks after PBJacobi's block diagonal and the aij<fmt> DM names; BiCG target;
# block Jacobi / ASM on 2 ranks sharing the GPU. Run as: config/gpu-run.sh exec bash <this>
mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick >"$OUT/gpu-matmult-np2.log" 2>&1
echo "gpu matmult np2: $(grep -c '^ok' "$OUT/gpu-matmult-np2.log") ok, $(grep -c '^not ok' "$OUT/gpu-matmult-np2.log") not ok"
SOLVERS_ONLY=ex45_cg_pbjacobi,ex45_cg_mg,ex45_cg_gamg,ex45_gmres_pbjacobi,ex45_gmres_mg,ex45_gmres_gamg,ex45_fgmres_pbjacobi,ex45_fgmres_mg,ex45_fgmres_gamg,ex45_bcgs_pbjacobi,ex45_bcgs_mg,ex45_bcgs_gamg,ex45_bicg_pbjacobi,ex45_bicg_mg,ex45_bicg_gamg,ex45_tfqmr_pbjacobi,ex45_tfqmr_mg,ex45_tfqmr_gamg,ex45_minres_pbjacobi,ex45_minres_mg,ex45_minres_gamg,ex45_cgne_pbjacobi,ex45_cgne_mg,ex45_cgne_gamg,ex45_lsqr_pbjacobi,ex45_lsqr_mg,ex45_lsqr_gamg,ex45_pipecg_pbjacobi,ex45_pipecg_mg,ex45_pipecg_gamg, SOLVERS_OUT=$OUT/paths-ex45-97-np1-rerun PATHS_MAX_IT=200 bench/solver_paths.sh ex45 97 aijcusparse evchyb
printf 'ex45_128_bicg_jacobi | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi\n' >/tmp/bicg.txt
SOLVERS_OUT=$OUT/bicg-128 bench/solvers.sh /tmp/bicg.txt aijcusparse evchyb pjds
printf 'ex45_128_bjacobi | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -pc_type bjacobi\nex45_128_asm | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -pc_type asm\nex45_128_bicg_jacobi | bin/petsc/ksp_ex45 | -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type bicg -pc_type jacobi\n' >/tmp/np2.txt
SOLVERS_NP=2 SOLVERS_OUT=$OUT/np2-1gpu-128 bench/solvers.sh /tmp/np2.txt aijcusparse evchyb pjds
cd "$OUT" && for d in paths-ex45-97-np1-rerun bicg-128 np2-1gpu-128; do tar -czf $d-logs.tgz $d/*.log && rm -f $d/*.log; done
