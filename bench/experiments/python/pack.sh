#!/usr/bin/env bash
# Packs this tree's plugin and petsc4py for the GPU machine's python3 (3.12) into build/ov-python,
# for device-check.sh over the older bundle (carry ["bundle", "build/ov-python"]). BUNDLE_PYTHON: the
# interpreter to build for (default python3.12).
set -euo pipefail
cd "$(dirname "$0")/../../.."
venv=$(PETSC_DIR=${PETSC_DIR:-$HOME/.cache/gpuformats/petsc-3.26.1-cuda-sm80-90-100} config/bootstrap-python.sh "${BUNDLE_PYTHON:-python3.12}")
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -rf build/ov-python build/ov-python-stage && mkdir -p build/ov-python build/ov-python-stage
cp -a "$site/petsc4py" build/ov-python-stage/
find build/ov-python-stage -name '*.so' -exec strip --strip-unneeded {} +
tar -C build/ov-python-stage -cJf build/ov-python/python-site.tar.xz petsc4py
strip --strip-unneeded -o build/ov-python-stage/libgpuformats.so lib/libgpuformats.so
xz -9 -c build/ov-python-stage/libgpuformats.so > build/ov-python/libgpuformats.so.xz
rm -rf build/ov-python-stage
ls -la build/ov-python
