#!/usr/bin/env bash
# Build the PETSc that gpuformats needs, once, into a cache prefix outside the repository.
#
#   config/bootstrap-petsc.sh            prints the PETSc prefix on its last line
#
# Nothing is downloaded when PETSC_DIR is already set (the user brings a PETSc; config/check-petsc.sh
# checks it), or when the cache prefix already holds a finished build.
# Environment: GPUFORMATS_CACHE (default $HOME/.cache/gpuformats), GPUFORMATS_JOBS (default nproc).
set -euo pipefail

PETSC_VERSION=3.26.1
# A fat binary: A100 (sm_80), H100/H200 (sm_90), B200 (sm_100), and PTX of sm_100 that the driver
# compiles for newer GPUs. GPUFORMATS_CUDA_ARCH=90 (one or a comma-separated list) builds less.
CUDA_ARCH=${GPUFORMATS_CUDA_ARCH:-80,90,100}
PTX_ARCH=${CUDA_ARCH##*,}
CACHE=${GPUFORMATS_CACHE:-$HOME/.cache/gpuformats}
PREFIX=$CACHE/petsc-$PETSC_VERSION-cuda-sm${CUDA_ARCH//,/-}
JOBS=${GPUFORMATS_JOBS:-$(nproc)}
log() { echo "[bootstrap-petsc] $*" >&2; }

if [ -n "${PETSC_DIR:-}" ]; then
  log "PETSC_DIR is set ($PETSC_DIR): using it, nothing downloaded"
  echo "$PETSC_DIR"; exit 0
fi
if [ -f "$PREFIX/.gpuformats-complete" ]; then
  echo "$PREFIX"; exit 0
fi
# The makefile calls this with PETSC_DIR= (set, empty) and exports PETSC_ARCH: PETSc's configure
# reads an empty PETSC_DIR as "." and stops ("a relative path"), so drop both from the environment.
unset PETSC_DIR PETSC_ARCH

# 1. Debian packages: MPI and LAPACK (installed only where missing).
"$(dirname "$0")/debian-deps.sh"

# 2. CUDA toolkit.
NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || NVCC=/usr/local/cuda/bin/nvcc
[ -n "$NVCC" ] || { log "error: nvcc not found; install the CUDA toolkit (13.x) or put nvcc on PATH"; exit 1; }
CUDA_DIR=$(dirname "$(dirname "$(readlink -f "$NVCC")")")

# 3. PETSc source distribution from PyPI.
mkdir -p "$CACHE/src"
tarball=$CACHE/src/petsc-$PETSC_VERSION.tar.gz
if [ ! -f "$tarball" ]; then
  log "downloading the PETSc $PETSC_VERSION sdist from PyPI"
  python3 -m pip download -q --no-deps --no-binary :all: "petsc==$PETSC_VERSION" -d "$CACHE/src" >&2
fi
SRC=$CACHE/src/petsc-$PETSC_VERSION
rm -rf "$SRC"; tar -xzf "$tarball" -C "$CACHE/src"

# 4. Configure and build. NVML: PETSc 3.26 links it only with --with-cuda-nvml=1 (energy
#    logging), which would make libpetsc depend on the driver's libnvidia-ml at run time; we leave
#    it off, so no NVML header or link stub is needed.
ARCH=arch-gpuformats
cd "$SRC"
log "configuring PETSc $PETSC_VERSION (CUDA sm_$CUDA_ARCH, PTX compute_$PTX_ARCH) into $PREFIX; log: $SRC/configure.log"
python3 ./configure PETSC_ARCH=$ARCH --prefix="$PREFIX" \
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 \
  --with-cuda=1 --with-cuda-dir="$CUDA_DIR" --with-cuda-arch="$CUDA_ARCH" \
  CUDAFLAGS="-gencode arch=compute_$PTX_ARCH,code=compute_$PTX_ARCH" \
  --with-debugging=0 --with-shared-libraries=1 --with-x=0 --with-fortran-bindings=0 \
  --with-blaslapack-lib="-llapack -lblas" \
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O3 >&2
# PETSc 3.26's configure takes the smallest architecture as a string ("100" < "80"): its error traces
# would warn that an sm_90 GPU is below the build's minimum. The numeric minimum instead.
sed -i "s/^#define PETSC_PKG_CUDA_MIN_ARCH .*/#define PETSC_PKG_CUDA_MIN_ARCH $(tr ',' '\n' <<<"$CUDA_ARCH" | sort -n | head -1)/" "$ARCH/include/petscconf.h"
log "building PETSc with $JOBS jobs (about 20 minutes on 2 cores for the three architectures)"
make PETSC_DIR="$SRC" PETSC_ARCH=$ARCH MAKE_NP="$JOBS" all >&2
make PETSC_DIR="$SRC" PETSC_ARCH=$ARCH install >&2
rm -rf "$SRC/$ARCH"
touch "$PREFIX/.gpuformats-complete"
# NCCL's header for the halo's NCCL path (optional: a failed download only leaves it out).
GPUFORMATS_CACHE=$CACHE "$(dirname "$0")/fetch-nccl-header.sh" >&2 || log "NCCL's header not fetched: the plugin builds without its NCCL path"
log "PETSc ready in $PREFIX"
echo "$PREFIX"
