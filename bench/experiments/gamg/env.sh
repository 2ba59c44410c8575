# Sourced first by the device scripts (gamg/ and later experiments): from the repository root, inside config/gpu-run.sh's
# environment (the bundle unpacked, the loader path and MPI's root flags set; once), with OUT and
# L (the plugin) defined.
cd "$(dirname "$0")/../../.." || exit 1
if [ -z "${GF_GAMG_ENV:-}" ]; then
  GF_GAMG_ENV=1 exec config/gpu-run.sh exec bash "$0" "$@"
fi
OUT=${OUT:-$PWD/build/gpu-out}
L=$PWD/lib/libgpuformats.so

# one_gpu_logs: the caller's runs on GPU 0, its logs in $D = $OUT/logs; says the bundle's commit and the GPU.
one_gpu_logs() {
  export CUDA_VISIBLE_DEVICES=0
  D=$OUT/logs
  mkdir -p "$D"
  echo "commit $(cat bundle/commit 2>/dev/null)"
  nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv,noheader
}

# run_case CASE NAME TIMEOUT CMD TYPE EXTRA...: CMD with -mat_type TYPE (our plugin loaded unless TYPE
# is PETSc's aijcusparse or sellcuda), the caller's $V, -ksp_converged_reason, -ksp_view, EXTRA and -log_view, into
# $D/CASE.NAME.log ($LOG), within what is left of the caller's $deadline; $RC its exit status.
# Returns 1, saying so, where less than ${RUN_MIN_S:-15} s are left. The callers' run() summarise $LOG.
run_case() {
  local c=$1 name=$2 tmo=$3 cmd=$4 t=$5
  shift 5
  local dll=() dmt=$t
  case $t in aijcusparse | sellcuda) ;; *) dll=(-dll_append "$L") && dmt=aij$t ;; esac # PETSc's own types need no plugin
  [ $((deadline - SECONDS)) -lt "$tmo" ] && tmo=$((deadline - SECONDS))
  LOG=$D/$c.$name.log
  if [ "$tmo" -lt "${RUN_MIN_S:-15}" ]; then
    echo "# $c.$name: out of time"
    return 1
  fi
  # shellcheck disable=SC2086
  timeout "$tmo" $cmd "${dll[@]}" -mat_type "$t" -dm_mat_type "$dmt" $V -ksp_converged_reason -ksp_view "$@" -log_view </dev/null >"$LOG" 2>&1
  RC=$?
}
