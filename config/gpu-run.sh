#!/usr/bin/env bash
# Runs on the GPU machine (device tool), from the repository root, with bundle/ carried:
#   config/gpu-run.sh [test|bench|demo ...]         (default: test)
#   config/gpu-run.sh exec COMMAND [ARGS...]         (one command, same environment; OUT is exported)
#   GPUFORMATS_TEST_SECTIONS="gpu gpu-mpi" config/gpu-run.sh test   (only those sections of the suite)
# Unpacks bundle/gpuformats-bundle.tar.xz over the tree, points the loader at it, and runs the GPU
# suite (test/run.sh, which sees the GPU), the benchmark and/or the demo. Logs and results go to
# $OUT (the device tool brings that folder back), or build/gpu-out elsewhere.
set -uo pipefail
cd "$(dirname "$0")/.."
export OUT=${OUT:-$PWD/build/gpu-out}
mkdir -p "$OUT" build/gpu-lib
tar -xJf bundle/gpuformats-bundle.tar.xz -C . ./bin ./lib 2>/dev/null || tar -xJf bundle/gpuformats-bundle.tar.xz -C .
mkdir -p build/fallback && tar -xJf bundle/gpuformats-bundle.tar.xz -C build ./fallback ./petsc-output
# petsc4py, where the bundle carries it (make bundle BUNDLE_PYTHON=...), for the machine's python3
if tar -xJf bundle/gpuformats-bundle.tar.xz -C build ./python-site 2>/dev/null; then
  export GPUFORMATS_PYTHON=${GPUFORMATS_PYTHON:-python3} GPUFORMATS_PYTHONPATH=$PWD/build/python-site
fi
# Fallback libraries only where the machine has none of that name.
for f in build/fallback/*; do
  n=$(basename "$f")
  ldconfig -p | grep -q " $n " || ln -sf "$PWD/$f" "build/gpu-lib/$n"
done
cuda_lib=$(dirname "$(readlink -f "$(command -v nvcc)")")/../lib64
export LD_LIBRARY_PATH=$PWD/lib:$PWD/build/gpu-lib:$cuda_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# What the results record as their commit: the binaries' (the bundle's), not the git metadata of the
# device's copy of the tree, which can be older than the tree itself (it then reads as -dirty).
[ -s bundle/commit ] && [ -z "${GPUFORMATS_COMMIT:-}" ] && export GPUFORMATS_COMMIT="$(cat bundle/commit)"
{
  echo "date: $(date -u +%FT%TZ)"; echo "commit: $(cat bundle/commit 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  echo "fallback libraries used: $(ls build/gpu-lib | tr '\n' ' ')"
  echo "mpiexec: $(command -v mpiexec || echo none)"
} | tee "$OUT/machine.txt"
ldd bin/petsc/snes_ex14 | grep -i "not found" && echo "missing libraries above" | tee -a "$OUT/machine.txt"

rc=0
if [ "${1:-}" = exec ]; then # any command in this environment, e.g. ncu or mpiexec over bin/bench_spmv
  shift
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" # the machines' MPI is not GPU-aware
  "$@"
  exit $?
fi
for what in "${@:-test}"; do
  case $what in
  test) GPUFORMATS_TEST_OUT=$OUT/test-logs GPUFORMATS_TEST_RANKS="${GPUFORMATS_TEST_RANKS:-1 2}" test/run.sh 2>&1 | tee "$OUT/test.log"; rc=$((rc | ${PIPESTATUS[0]})) ;;
  bench) bench/run-gpu.sh "$OUT" 2>&1 | tee "$OUT/bench.log"; rc=$((rc | ${PIPESTATUS[0]})) ;;
  demo) examples/demo.sh 2>&1 | tee "$OUT/demo.log"; rc=$((rc | ${PIPESTATUS[0]})) ;;
  *) echo "unknown step $what"; rc=1 ;;
  esac
done
# Folders of many logs go back as one archive each (the device tool returns a limited number of files).
for d in "$OUT"/test-logs "$OUT"/bratu-*/; do
  [ -d "$d" ] || continue
  n=$(basename "$d")
  (cd "$OUT" && tar -czf "$n.tgz" "$n" && rm -rf "$n") || true
done
exit $rc
