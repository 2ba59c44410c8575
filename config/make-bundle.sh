#!/usr/bin/env bash
# Packs what the GPU machine needs and cannot build (nothing can be installed there): PETSc's
# library, the plugin, the test/example/tutorial executables, and the shared libraries they need
# beyond glibc, the C++ runtime, the CUDA driver and CUDA toolkit (present there). The source
# tree, tests' data and scripts travel with the working tree itself.
#
#   config/make-bundle.sh      -> bundle/gpuformats-bundle.tar.xz   (carry "bundle" in the device call)
#   BUNDLE_PYTHON=python3.12   also petsc4py for that interpreter (the GPU machine's)
# On the GPU machine: config/gpu-run.sh unpacks it and runs the GPU suite and the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${PETSC_DIR:?set PETSC_DIR (make bundle does)}"
stage=build/bundle-stage
rm -rf "$stage" bundle && mkdir -p "$stage/lib" "$stage/fallback" bundle
cp -a bin "$stage/"
cp lib/libgpuformats.so "$stage/lib/"
petsc=$(readlink -f "$PETSC_DIR/${PETSC_ARCH:-}/lib/libpetsc.so")
cp "$petsc" "$stage/lib/"
ln -sf "$(basename "$petsc")" "$stage/lib/libpetsc.so.3.26"
strip --strip-unneeded "$stage/lib/"*.so* 2>/dev/null || true
# PETSc's expected outputs that the conformance suite compares with (its source is not there).
awk '!/^#/ && NF > 4 && $4 != "-" {print $4}' test/conformance/tutorials.txt | while read -r f; do
  src=$PETSC_DIR/share/petsc/examples/src/$f; [ -f "$src" ] || src=$PETSC_DIR/src/$f
  mkdir -p "$stage/petsc-output/$(dirname "$f")" && cp "$src" "$stage/petsc-output/$f"
done
# Libraries the machine may lack (MPI, LAPACK, gfortran runtime...): gpu-run.sh links in only the
# ones its loader cannot find, so the machine's own MPI is used where it has one.
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libstdc\+\+|libgcc_s|libcuda\.|libcudart|libcublas|libcusparse|libcufft|libcusolver|libcurand|libnvJitLink|libnvtx3interop|libpetsc|libgpuformats)'
{ ldd "$stage/lib/libpetsc.so.3.26"; for f in bin/* bin/*/*; do [ -x "$f" ] && [ -f "$f" ] && ldd "$f" 2>/dev/null; done; } |
  awk '/=> \// {print $1, $3}' | sort -u | while read -r name path; do
    [[ $name =~ $skip ]] && continue
    cp -L "$path" "$stage/fallback/$name"
  done
# petsc4py for the GPU machine's Python (python3 3.12 there, with numpy; nothing can be installed
# there): built here for BUNDLE_PYTHON (e.g. make bundle BUNDLE_PYTHON=python3.12) against this
# PETSc; only its package travels. gpu-run.sh puts it on PYTHONPATH for the suite's Python section.
if [ -n "${BUNDLE_PYTHON:-}" ]; then
  venv=$(config/bootstrap-python.sh "$BUNDLE_PYTHON")
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  mkdir -p "$stage/python-site" && cp -a "$site/petsc4py" "$stage/python-site/"
  find "$stage/python-site" -name '*.so' -exec strip --strip-unneeded {} +
fi
# One dictionary over the whole stream: every test executable carries the library's device code
# (fat binaries for three architectures), which xz's default 8 MiB window stores again each time
# (82 MB, beyond the device tool's 64 MiB carry); a 512 MiB window stores it once (23 MB).
tar -C "$stage" -cf - . | xz -9 --lzma2=preset=9,dict=512MiB >bundle/gpuformats-bundle.tar.xz
# The commit the binaries were built from (-dirty: tracked files differed from it), which every
# result made with this bundle records (config/gpu-run.sh exports it as GPUFORMATS_COMMIT).
{ git rev-parse HEAD 2>/dev/null || echo unknown; } | tr -d '\n' > bundle/commit
git diff --quiet HEAD 2>/dev/null || printf -- -dirty >> bundle/commit
echo >> bundle/commit
ls -la bundle/
echo "bundle ready: carry [\"bundle\"] and run config/gpu-run.sh on the device machine"
