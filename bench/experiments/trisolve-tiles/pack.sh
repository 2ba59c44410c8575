#!/usr/bin/env bash
# Packs this tree's plugin and bin/test/test_trisolve into build/ov-tiles, an overlay run.sh puts
# over an older bundle (carry ["bundle", "build/ov-tiles"]): minutes instead of a bundle's build.
set -euo pipefail
cd "$(dirname "$0")/../../.."
make -j2 CUDA_ARCH=90 lib/libgpuformats.so bin/test/test_trisolve >/dev/null
rm -rf build/ov-tiles && mkdir -p build/ov-tiles
strip --strip-unneeded -o build/ov-tiles/lib.so lib/libgpuformats.so && xz -6 -c build/ov-tiles/lib.so >build/ov-tiles/libgpuformats.so.xz
strip --strip-unneeded -o build/ov-tiles/t bin/test/test_trisolve && xz -6 -c build/ov-tiles/t >build/ov-tiles/test_trisolve.xz
rm build/ov-tiles/lib.so build/ov-tiles/t
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo -dirty)" >build/ov-tiles/commit
ls -la build/ov-tiles
