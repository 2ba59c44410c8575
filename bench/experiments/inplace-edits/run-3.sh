#!/usr/bin/env bash
# inplace-edits, device call 3 (call 2 gave TS ex4 host vectors: it is a DMDA program, -dm_vec_type is its
# option, and spent its time on block Jacobi at 1500^2): TS ex4 (backward Euler, constant RHS
# Jacobian: MatZeroEntries + MatShift + MatAXPY every step) with CUDA vectors on 1 and 2 ranks;
# block Jacobi / ASM (ksp ex2) and fieldsplit (snes ex19) on 2 ranks; ksp ex45 200^3 + GAMG on 1;
# ksp ex43 Schur fieldsplit counts. One run per case and type, -log_view without gpu time.
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/ts
for np in 1 2; do for t in aijcusparse aijevchyb; do
  timeout 60 mpiexec -n $np bin/petsc/ts_ex4 -nox -m 4000000 -ts_type beuler -ts_max_steps 20 -pc_type jacobi -ksp_rtol 1e-8 -ksp_converged_reason \
    -dll_append $L -mat_type $t -dm_vec_type cuda -log_view >$OUT/ts/ts4-np$np-$t.log 2>&1
  echo "ts4 np$np $t rc=$? its/solve $(grep -m1 'Linear solve converged' $OUT/ts/ts4-np$np-$t.log | awk '{print $NF}'): $(awk '$1 ~ /^(TSStep|KSPSolve|MatMult|GFSpMV|GFRefresh|GFEdit|GFBuild|MatAXPY|MatShift|MatZeroEntries|MatCUSPARSCopyTo|VecCUDACopyTo|VecCUDACopyFrom)$/ {printf "%s %s %s | ", $1, $2, $4}' $OUT/ts/ts4-np$np-$t.log)"
done; done
cat >/tmp/derived.txt <<'S'
ex2_bjacobi   | bin/petsc/ksp_ex2   | -m 700 -n 700 -pc_type bjacobi -ksp_rtol 1e-5
ex2_asm       | bin/petsc/ksp_ex2   | -m 700 -n 700 -pc_type asm -ksp_rtol 1e-5
ex19_fsplit   | bin/petsc/snes_ex19 | -da_grid_x 192 -da_grid_y 192 -pc_type fieldsplit -pc_fieldsplit_type multiplicative -fieldsplit_pc_type bjacobi
S
SOLVERS_NP=2 SOLVERS_OUT=$OUT/derived-np2 timeout 200 bench/solvers.sh /tmp/derived.txt aijcusparse evchyb 2>&1 | tail -8
for f in $OUT/derived-np2/*.log; do echo "$(basename $f): $(awk '$1 ~ /^(MatMult|GFSpMV|MatSolve)$/ {printf "%s %s ", $1, $2}' $f)"; done
printf 'ex45_200_gamg | bin/petsc/ksp_ex45 | -da_grid_x 200 -da_grid_y 200 -da_grid_z 200 -pc_type gamg\n' >/tmp/gamg.txt
SOLVERS_OUT=$OUT/gamg-200 timeout 200 bench/solvers.sh /tmp/gamg.txt aijcusparse evchyb 2>&1 | tail -4
for f in $OUT/gamg-200/*.log; do echo "$(basename $f): $(awk '$1 ~ /^(MatMult|MatPtAP|PCSetUp|KSPSolve|GFSpMV|GFBuild|VecCUDACopyTo|VecCUDACopyFrom)$/ {printf "%s %s %s | ", $1, $2, $4}' $f)"; done
A="-stokes_ksp_monitor -stokes_pc_use_amat -stokes_ksp_type fgmres -stokes_pc_type fieldsplit -stokes_pc_fieldsplit_block_size 3 -stokes_pc_fieldsplit_type SCHUR -stokes_pc_fieldsplit_0_fields 0,1 -stokes_pc_fieldsplit_1_fields 2 -stokes_fieldsplit_0_pc_type jacobi -stokes_fieldsplit_1_pc_type jacobi -c_str 0 -mx 16 -my 16 -vec_type cuda -dm_vec_type cuda -options_left 0 -log_view"
mkdir -p $OUT/ex43
for t in aijcusparse aijevchyb; do
  (cd $OUT/ex43 && timeout 60 mpiexec -n 2 $OLDPWD/bin/petsc/ksp_ex43 $A -dll_append $L -mat_type $t -dm_mat_type $t >$t.log 2>&1)
  echo "ex43 $t: $(grep -c 'KSP Residual' $OUT/ex43/$t.log) norms; $(awk '$1 ~ /^(MatMult|GFSpMV|VecCUDACopyTo|VecCUDACopyFrom|KSPSolve)$/ {printf "%s %s ", $1, $2}' $OUT/ex43/$t.log)"
done
cd $OUT && for d in ts derived-np2 gamg-200 ex43; do [ -d $d ] && tar czf $d-logs.tgz $d/*.log && rm -f $d/*.log; done; ls
