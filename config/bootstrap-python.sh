#!/usr/bin/env bash
# petsc4py for the PETSc that the plugin is built against, once, in a virtual environment of the cache.
#
#   config/bootstrap-python.sh [PYTHON]     prints the environment's folder on its last line
#
# PYTHON: the interpreter to build for (default python3; the GPU machine's bundle takes another).
# Environment: PETSC_DIR (and PETSC_ARCH) of that PETSc (the makefile's), GPUFORMATS_CACHE.
# From PyPI: numpy, SciPy (examples/python/compare.py reads Matrix Market with it), Cython and
# setuptools as wheels; then petsc4py's source, compiled against PETSc (about 4.5 minutes on 2 cores:
# one large C file), and mpi4py's, compiled against the MPI that PETSc uses (mpicc; about a minute).
# Each is installed only where the environment lacks it. Nothing is installed outside the cache.
set -euo pipefail
PETSC4PY_VERSION=3.26.1
MPI4PY_VERSION=4.1.2
PYTHON=${1:-python3}
: "${PETSC_DIR:?set PETSC_DIR (make python does)}"
CACHE=${GPUFORMATS_CACHE:-$HOME/.cache/gpuformats}
log() { echo "[bootstrap-python] $*" >&2; }

command -v "$PYTHON" >/dev/null || { log "error: $PYTHON not found"; exit 1; }
pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
petsc=$(readlink -f "$PETSC_DIR/${PETSC_ARCH:-}")
key=$(printf '%s' "$petsc" | sha1sum | cut -c1-10)
VENV=$CACHE/python/petsc4py-$PETSC4PY_VERSION-py$pyver-$key
# What the environment has; importing petsc4py's package does not load PETSc.
has() { "$VENV/bin/python" -c "import $1" 2>/dev/null; }

if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV" || { log "error: '$PYTHON -m venv' failed: install the venv module (Debian: python3-venv)"; rm -rf "$VENV"; exit 1; }
fi
if ! { has numpy && has scipy && has Cython && has setuptools; }; then
  log "numpy, SciPy, Cython, setuptools (wheels) into $VENV"
  "$VENV/bin/python" -m pip install -q --only-binary :all: "numpy>=1.26" scipy "cython>=3.0,<4" "setuptools>=68" wheel >&2
fi
if ! has petsc4py; then
  log "building petsc4py $PETSC4PY_VERSION against $petsc (about 4.5 minutes on 2 cores)"
  start=$(date +%s)
  PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps \
    --no-binary petsc4py "petsc4py==$PETSC4PY_VERSION" >&2
  log "petsc4py built in $(( $(date +%s) - start )) s"
fi
if ! has mpi4py; then
  log "building mpi4py $MPI4PY_VERSION against $(command -v mpicc || echo 'no mpicc')"
  MPICC=${MPICC:-mpicc} "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps \
    --no-binary mpi4py "mpi4py==$MPI4PY_VERSION" >&2
fi
echo "$VENV"
