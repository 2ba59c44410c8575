#!/usr/bin/env bash
# transpose, device call 6: the staged upload under mpiexec's default binding (one core: direct copy now)
# and with --bind-to none (4 host threads), SNES ex14 256^3 CG + Jacobi, evchyb, -info refresh lines;
# then SNES ex14 128^3 with PETSc's default solver, 3 alternated runs (bench/bratu.sh).
mkdir -p $OUT/r6
A="bin/petsc/snes_ex14 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -dll_append $PWD/lib/libgpuformats.so -dm_vec_type cuda -snes_type newtonls -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -log_view -info :mat"
for bind in core none; do
  mpiexec --bind-to $bind -n 1 bash -c "echo cpus: \$(nproc)" 
  mpiexec --bind-to $bind -n 1 $A -mat_type evchyb >$OUT/r6/ex14-256-evchyb-bind-$bind.log 2>&1
  echo "bind $bind: $(grep -E '^(SNESSolve|KSPSolve) ' $OUT/r6/ex14-256-evchyb-bind-$bind.log | awk '{printf "%s %s ", $1, $4}')"
  grep -h "gpuformats: " $OUT/r6/ex14-256-evchyb-bind-$bind.log | sed 's/.*gpuformats: //; s/ of 16777216 x 16777216, 117047296 nonzeros//'
done
cd $OUT && tar czf r6.tgz r6 && rm -rf r6 && cd - >/dev/null
BRATU_REPS=3 BRATU_PC=default BRATU_GPU_TIME=0 BRATU_OUT=$OUT/bratu-default-128 timeout 300 bench/bratu.sh 128 aijcusparse evchyb pjds 2>&1 | tail -8
for d in "$OUT"/bratu-*; do (cd "$OUT" && tar -czf "$(basename "$d")-logs.tgz" "$(basename "$d")"/*.log && rm -f "$d"/*.log); done
