#!/usr/bin/env bash
# NCCL's header for building the halo exchange's NCCL path (optional: without it the plugin builds,
# and NCCL asked for is a clear error at run time). The library itself is never linked: the plugin
# loads the machine's libnccl.so.2 at run time. PyPI's nvidia-nccl-cu13 wheel carries nccl.h; only
# the header is kept, in $GPUFORMATS_CACHE/nccl/include.
set -euo pipefail
CACHE=${GPUFORMATS_CACHE:-$HOME/.cache/gpuformats}
DEST=$CACHE/nccl/include
[ -f "$DEST/nccl.h" ] && { echo "$DEST/nccl.h"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "[fetch-nccl-header] downloading nvidia-nccl-cu13 from PyPI for its nccl.h" >&2
python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 nvidia-nccl-cu13 -d "$tmp" >&2
mkdir -p "$DEST"
unzip -q -o -j "$tmp"/nvidia_nccl_cu13-*.whl 'nvidia/nccl/include/nccl.h' -d "$DEST"
echo "$DEST/nccl.h"
