#!/usr/bin/env bash
# The main job (make demo): PETSc's own SNES ex14 (Bratu 3D), unmodified, through the plugin with
# each gpuformats type and with PETSc's reference type, on the GPU when there is one (host backend
# and -mat_type aij otherwise). Prints SNES iterations, final residual, MatMult time and rate, and
# SNESSolve time per type, read from -log_view.
#   examples/demo.sh [grid size n: n^3 unknowns]   (default 128 on a GPU, 24 on the host)
# Linear solver: CG + Jacobi (the Bratu Jacobian is symmetric positive definite for lambda = 6),
# rtol 1e-8; Newton to -snes_rtol 1e-8.
set -uo pipefail
cd "$(dirname "$0")/.."
LIB=$PWD/lib/libgpuformats.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
has_gpu=0
{ [ -e /dev/nvidia0 ] || [ -e /dev/nvidiactl ]; } && nvidia-smi -L >/dev/null 2>&1 && has_gpu=1
if [ $has_gpu = 1 ]; then
  n=${1:-128}; ref=aijcusparse; vec="-dm_vec_type cuda -use_gpu_aware_mpi 0"; where="GPU ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"
else
  n=${1:-24}; ref=aij; vec=""; where="host backend (no GPU on this machine)"
  mkdir -p build/stubs && ln -sf "$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")/lib64/stubs/libcuda.so" build/stubs/libcuda.so.1
  export LD_LIBRARY_PATH=$PWD/build/stubs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
types="$ref $(bin/test/list_types)"
mkdir -p build/demo
echo "SNES ex14, Bratu 3D, ${n}^3 unknowns, 1 rank, $where; CG + Jacobi"
printf "%-12s %6s %6s %12s %10s %10s %10s %9s\n" type SNESits KSPits "final |F|" "MatMult s" "GFLOP/s" "Solve s" "vs $ref"
ref_mm=""
for t in $types; do
  log=build/demo/ex14_$t.log
  if ! bin/petsc/snes_ex14 -dll_append "$LIB" -da_grid_x "$n" -da_grid_y "$n" -da_grid_z "$n" -mat_type "$t" $vec \
      -snes_rtol 1e-8 -ksp_type cg -pc_type jacobi -ksp_rtol 1e-8 -snes_monitor -snes_converged_reason -ksp_converged_reason -log_view >"$log" 2>&1; then
    printf "%-12s failed: see %s\n" "$t" "$log"; continue
  fi
  awk -v t="$t" -v ref_mm="$ref_mm" '
    /SNES Function norm/ {fn = $NF}
    /Number of SNES iterations/ {its = $6; fn = $NF}
    /Linear solve converged due to/ {kits += $NF}
    $1 == "MatMult" {mm = $4; fl = $6}
    $1 == "SNESSolve" {ss = $4}
    END {
      g = (mm > 0) ? fl / mm / 1e9 : 0
      sp = (ref_mm != "" && mm > 0) ? sprintf("%.2fx", ref_mm / mm) : "1.00x"
      printf "%-12s %6s %6s %12s %10.4f %10.1f %10.3f %9s\n", t, its, kits, fn, mm, g, ss, sp
    }' "$log"
  [ -z "$ref_mm" ] && ref_mm=$(awk '$1 == "MatMult" {print $4}' "$log")
done
echo "logs: build/demo/ (full -log_view per type)"
