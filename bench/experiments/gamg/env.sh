# Sourced first by the device scripts (gamg/ and later experiments): from the repository root, inside config/gpu-run.sh's
# environment (the bundle unpacked, the loader path and MPI's root flags set; once), with OUT and
# L (the plugin) defined.
cd "$(dirname "$0")/../../.." || exit 1
if [ -z "${GF_S21_ENV:-}" ]; then
  GF_S21_ENV=1 exec config/gpu-run.sh exec bash "$0" "$@"
fi
OUT=${OUT:-$PWD/build/gpu-out}
L=$PWD/lib/libgpuformats.so
