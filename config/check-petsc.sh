#!/usr/bin/env bash
# Checks that $PETSC_DIR/$PETSC_ARCH is a PETSc gpuformats can use, with a message saying what to do.
set -euo pipefail
die() { echo "gpuformats: $*" >&2; exit 1; }
[ -n "${PETSC_DIR:-}" ] || die "PETSC_DIR is not set"
inc=$PETSC_DIR/include
conf=""
for c in "$PETSC_DIR/${PETSC_ARCH:-}/include/petscconf.h" "$PETSC_DIR/include/petscconf.h"; do
  [ -f "$c" ] && { conf=$c; break; }
done
[ -n "$conf" ] || die "no petscconf.h under PETSC_DIR=$PETSC_DIR (PETSC_ARCH=${PETSC_ARCH:-}); set PETSC_DIR/PETSC_ARCH to a built PETSc, or unset PETSC_DIR to let config/bootstrap-petsc.sh build one"
ver() { awk -v k="$1" '$1=="#define" && $2==k {print $3}' "$inc/petscversion.h"; }
major=$(ver PETSC_VERSION_MAJOR); minor=$(ver PETSC_VERSION_MINOR); sub=$(ver PETSC_VERSION_SUBMINOR)
[ "$major.$minor" = "3.26" ] || die "PETSc $major.$minor.$sub found in $PETSC_DIR; gpuformats supports PETSc 3.26 (unset PETSC_DIR to build 3.26.1 automatically)"
grep -q "define PETSC_HAVE_CUDA 1" "$conf" || die "the PETSc in $PETSC_DIR was configured without CUDA; reconfigure it with --with-cuda=1 --with-cuda-arch=80,90,100 (the GPUs you run on), or unset PETSC_DIR"
! grep -q "define PETSC_USE_COMPLEX 1" "$conf" || die "the PETSc in $PETSC_DIR uses complex scalars; gpuformats needs real double scalars (--with-scalar-type=real)"
grep -q "define PETSC_USE_REAL_DOUBLE 1" "$conf" || die "the PETSc in $PETSC_DIR is not double precision; gpuformats needs --with-precision=double"
! grep -q "define PETSC_USE_64BIT_INDICES 1" "$conf" || die "the PETSc in $PETSC_DIR uses 64-bit indices; gpuformats needs 32-bit PetscInt (--with-64-bit-indices=0)"
grep -q "define PETSC_HAVE_DYNAMIC_LIBRARIES 1" "$conf" || die "the PETSc in $PETSC_DIR has no dynamic libraries; configure it with --with-shared-libraries=1 so -dll_append can load the plugin"
echo "gpuformats: using PETSc $major.$minor.$sub with CUDA from $PETSC_DIR"
