#!/usr/bin/env bash
# inplace-edits, device call 2 (first part): ksp ex43 (Stokes, Schur fieldsplit, 2 ranks) differs from aijcusparse
# on the GPU only: variants that tell the format's products, the factorizations and the backend apart.
A="-stokes_pc_use_amat -stokes_ksp_type fgmres -stokes_pc_type fieldsplit -stokes_pc_fieldsplit_block_size 3 -stokes_pc_fieldsplit_type SCHUR -stokes_pc_fieldsplit_0_fields 0,1 -stokes_pc_fieldsplit_1_fields 2 -c_str 0 -mx 16 -my 16 -stokes_ksp_monitor_true_residual -stokes_ksp_converged_reason -vec_type cuda -dm_vec_type cuda -options_left 0"
L=$PWD/lib/libgpuformats.so
mkdir -p $OUT/ex43
run() { local tag=$1; shift; (cd $OUT/ex43 && timeout 60 mpiexec -n 2 $OLDPWD/bin/petsc/ksp_ex43 $A "$@" >$tag.log 2>&1); echo "== $tag: $(grep -E 'KSP (preconditioned )?[Rr]esid|converged|diverged' $OUT/ex43/$tag.log | head -4 | tr '\n' ' ')"; }
run cusparse -mat_type aijcusparse -dm_mat_type aijcusparse
run evchyb -dll_append $L -mat_type evchyb -dm_mat_type aijevchyb
run evchyb_host -dll_append $L -mat_type evchyb -dm_mat_type aijevchyb -mat_gpuformats_backend host
run evchyb_petscfactor -dll_append $L -mat_type evchyb -dm_mat_type aijevchyb -stokes_fieldsplit_0_sub_pc_factor_mat_solver_type petsc -stokes_fieldsplit_1_sub_pc_factor_mat_solver_type petsc
run evchyb_view -dll_append $L -mat_type evchyb -dm_mat_type aijevchyb -stokes_ksp_view
run cusparse_view -mat_type aijcusparse -dm_mat_type aijcusparse -stokes_ksp_view
grep -E "type: |package used" $OUT/ex43/evchyb_view.log | sort | uniq -c
grep -E "type: |package used" $OUT/ex43/cusparse_view.log | sort | uniq -c
