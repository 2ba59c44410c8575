#!/usr/bin/env bash
# Installs the Debian packages gpuformats builds against, where missing: Open MPI, LAPACK, nlohmann/json
# (a header: nothing of it is needed at run time) and Python with venv (the petsc4py environment).
set -euo pipefail
need=()
for p in libopenmpi-dev openmpi-bin liblapack-dev libblas-dev nlohmann-json3-dev python3 python3-venv; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || need+=("$p")
done
[ ${#need[@]} -eq 0 ] && exit 0
echo "[gpuformats] installing Debian packages: ${need[*]}" >&2
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
$SUDO apt-get update -qq || echo "[gpuformats] apt-get update failed; trying the install anyway" >&2
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >&2
