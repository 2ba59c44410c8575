#!/usr/bin/env bash
# petsc4py for the PETSc that the plugin is built against, once, in a virtual environment of the cache.
#
#   config/bootstrap-python.sh [PYTHON]     prints the environment's folder on its last line
#
# PYTHON: the interpreter to build for (default python3; the GPU machine's bundle takes another).
# Environment: PETSC_DIR (and PETSC_ARCH) of that PETSc (the makefile's), GPUFORMATS_CACHE.
# From PyPI: numpy, SciPy (examples/python/compare.py reads Matrix Market with it), Cython and
# setuptools as wheels, then petsc4py's source, compiled here against
# PETSc (about 5 minutes: one large C file). Nothing is installed outside the cache.
set -euo pipefail
PETSC4PY_VERSION=3.26.1
PYTHON=${1:-python3}
: "${PETSC_DIR:?set PETSC_DIR (make python does)}"
CACHE=${GPUFORMATS_CACHE:-$HOME/.cache/gpuformats}
log() { echo "[bootstrap-python] $*" >&2; }

command -v "$PYTHON" >/dev/null || { log "error: $PYTHON not found"; exit 1; }
pyver=$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
petsc=$(readlink -f "$PETSC_DIR/${PETSC_ARCH:-}")
key=$(printf '%s' "$petsc" | sha1sum | cut -c1-10)
VENV=$CACHE/python/petsc4py-$PETSC4PY_VERSION-py$pyver-$key
if [ -f "$VENV/.gpuformats-complete" ]; then echo "$VENV"; exit 0; fi

rm -rf "$VENV"
"$PYTHON" -m venv "$VENV" || { log "error: '$PYTHON -m venv' failed: install the venv module (Debian: python3-venv)"; exit 1; }
log "numpy, SciPy, Cython, setuptools (wheels) into $VENV"
"$VENV/bin/python" -m pip install -q --only-binary :all: "numpy>=1.26" scipy "cython>=3.0,<4" "setuptools>=68" wheel >&2
log "building petsc4py $PETSC4PY_VERSION against $petsc (about 5 minutes)"
start=$(date +%s)
PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps \
  --no-binary petsc4py "petsc4py==$PETSC4PY_VERSION" >&2
log "petsc4py built in $(( $(date +%s) - start )) s"
touch "$VENV/.gpuformats-complete"
echo "$VENV"
