#!/usr/bin/env bash
# solver-paths, device call 2: the MPI transposed-product fix re-checked on the GPU, then the solver-path
# matrix on ksp ex45 97^3, one rank, aijcusparse beside evchyb. Run as: config/gpu-run.sh exec bash <this>
mpiexec -n 2 bin/test/test_matmult -dir test/matrices -quick >"$OUT/gpu-matmult-np2.log" 2>&1
echo "gpu matmult np2: $(grep -c '^ok' "$OUT/gpu-matmult-np2.log") ok, $(grep -c '^not ok' "$OUT/gpu-matmult-np2.log") not ok"
SOLVERS_OUT=$OUT/paths-ex45-97-np1 PATHS_MAX_IT=200 bench/solver_paths.sh ex45 97 aijcusparse evchyb
cd "$OUT" && tar -czf paths-ex45-97-np1-logs.tgz paths-ex45-97-np1/*.log && rm -f paths-ex45-97-np1/*.log
