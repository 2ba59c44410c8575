#!/usr/bin/env bash
# Our exact triangular solves in tiles (-mat_gpuformats_trisolve levelset
# -mat_gpuformats_trisolve_schedule tiles: src/trisolve/level_solve.cuh) against cuSPARSE's
# (aijcusparse's), PETSc's default preconditioner (ILU(0) on one rank), one GPU, in one call:
#   1      bin/test/test_trisolve on the device (every schedule against the host's solves)
#   tune   per-apply GPU time (-log_view_gpu_time: MatSolve per call against MatMult) on ksp ex45
#          at TRI_N^3 for the tiles' shapes in TRI_SHAPES ("levels:chunk:threads:blocks_per_sm ...",
#          0 for levels and chunk: the chosen shape), beside aijcusparse and the sync-free schedule
#   profile the tiles' timeline (GPUFORMATS_TILE_PROFILE, profile.py): time per level by plane
#   ex19   shapes on snes ex19 512^2 (2D, 4 dof)
#   cases  per-apply time beside cuSPARSE's on snes ex14, snes ex19, convection-diffusion, real
#          matrices, ksp ex45 256^3 (TRI_SHAPE, default the chosen shape)
#   3      time to solution (-log_view): aijcusparse, evchyb with cuSPARSE's solves, with the tiles
# Logs -> $OUT/logs.tar.xz.
#   run(command="bash bench/experiments/trisolve-tiles/run.sh [phases]", carry=["bundle"])
set -uo pipefail
source "$(dirname "$0")/../gamg/env.sh"
# an overlay over the bundle (pack.sh: this tree's plugin and test_trisolve), where carried
if [ -d build/ov-tiles ]; then
  xz -dc build/ov-tiles/libgpuformats.so.xz >lib/libgpuformats.so && xz -dc build/ov-tiles/test_trisolve.xz >bin/test/test_trisolve && chmod +x bin/test/test_trisolve && echo "overlay: $(cat build/ov-tiles/commit)"
fi
V="-vec_type cuda -dm_vec_type cuda -use_gpu_aware_mpi 0"
N=${TRI_N:-128}
deadline=${TRI_DEADLINE:-560}
phases=${*:-1 tune}
one_gpu_logs

if [[ " $phases " == *" 1 "* ]]; then
  timeout 150 bin/test/test_trisolve test/matrices >"$D/test_trisolve.txt" 2>&1
  echo "test_trisolve exit $?: $(grep -c '^ok ' "$D/test_trisolve.txt") ok, $(grep -c '^not ok' "$D/test_trisolve.txt") not ok; cuda tiles checks: $(grep -c '^ok trisolve.exact.*cuda.*tiles' "$D/test_trisolve.txt")"
  grep '^not ok' "$D/test_trisolve.txt" | head
fi

run() { # case name timeout cmd type extra... (run_case: gamg/env.sh)
  run_case "$@" || return 0
  echo "$1.$2 exit $RC: $(grep -m1 -o 'iterations [0-9]*' "$LOG") | $(awk '$1 ~ /^(KSPSolve|SNESSolve|PCSetUp|MatSolve|MatMult)$/ {printf "%s %s %s | ", $1, $2, $4}' "$LOG")"
  grep -m2 -E "tiles of|a tile" "$LOG" | sed 's/^/    /'
}
tiles() { # case timeout cmd shape
  local c=$1 tmo=$2 cmd=$3 sh=$4
  IFS=: read -r lv ch th bps <<<"$sh"
  run "$c" "tiles_${lv}_${ch}_${th}_${bps}" "$tmo" "$cmd" evchyb -mat_gpuformats_trisolve levelset -mat_gpuformats_trisolve_schedule tiles \
    -mat_gpuformats_trisolve_tile_levels "$lv" -mat_gpuformats_trisolve_tile_chunk "$ch" -mat_gpuformats_trisolve_tile_threads "$th" -mat_gpuformats_trisolve_blocks_per_sm "$bps" "${@:5}"
}
g="-da_grid_x $N -da_grid_y $N -da_grid_z $N"
if [[ " $phases " == *" tune "* ]]; then
  c="tune_ex45_$N"
  cmd="bin/petsc/ksp_ex45 $g -log_view_gpu_time -ksp_max_it 40"
  run "$c" aijcusparse 40 "$cmd" aijcusparse
  run "$c" syncfree 40 "$cmd" evchyb -mat_gpuformats_trisolve levelset
  for sh in ${TRI_SHAPES:-0:0:256:1 8:2:256:1 8:4:512:1 4:2:256:1 16:2:512:1 8:1:256:2}; do tiles "$c" 40 "$cmd" "$sh"; done
fi
if [[ " $phases " == *" profile "* ]]; then # the tiles' timeline (GPUFORMATS_TILE_PROFILE), profile.py
  for sh in ${TRI_SHAPES:-0:0:256:1}; do
    for bo in ${TRI_BACKOFF:-0}; do
      GPUFORMATS_TILE_PROFILE=$D/prof_${sh}_$bo tiles "prof_ex45_$N" 40 "bin/petsc/ksp_ex45 $g -log_view_gpu_time -ksp_max_it 12" "$sh" -mat_gpuformats_trisolve_backoff_ns "$bo"
      echo "  backoff $bo"
      python3 bench/experiments/trisolve-tiles/profile.py "$D/prof_${sh}_$bo" $((N * N))
    done
  done
fi
if [[ " $phases " == *" ex19 "* ]]; then # the chosen shape (0:0) against given ones on snes ex19 (2D, 4 dof)
  c=ex19_512 cmd="bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_max_it 1 -ksp_max_it 400 -log_view_gpu_time"
  run "$c" aijcusparse 60 "$cmd" aijcusparse
  for sh in ${TRI_SHAPES:-0:0:256:1 64:32:256:1 32:16:256:1}; do tiles "$c" 60 "$cmd" "$sh"; done
fi
if [[ " $phases " == *" cases "* ]]; then
  sh=${TRI_SHAPE:-0:0:256:1}
  for cs in "ex14_$N|bin/petsc/snes_ex14 $g -snes_max_it 1 -log_view_gpu_time" "ex19_512|bin/petsc/snes_ex19 -da_grid_x 512 -da_grid_y 512 -snes_max_it 1 -ksp_max_it 400 -log_view_gpu_time" \
    "convdiff_${N}_pe10|bin/test/ksp_matrix -f convdiff3d:n=$N,pe=10 -log_view_gpu_time" "ani4|bin/test/ksp_matrix -f test/matrices/ani4.mtx -log_view_gpu_time" \
    "fidapm05|bin/test/ksp_matrix -f test/matrices/fidapm05.mtx -log_view_gpu_time" "ex45_256|bin/petsc/ksp_ex45 -da_grid_x 256 -da_grid_y 256 -da_grid_z 256 -ksp_max_it 40 -log_view_gpu_time"; do
    c=${cs%%|*} cmd=${cs#*|}
    run "$c" aijcusparse 60 "$cmd" aijcusparse
    tiles "$c" 60 "$cmd" "$sh"
  done
fi
if [[ " $phases " == *" 3 "* ]]; then
  sh=${TRI_SHAPE:-0:0:256:1}
  for cs in "tts_ex45_$N|bin/petsc/ksp_ex45 $g" "tts_ex14_$N|bin/petsc/snes_ex14 $g"; do # tts_: not the cases' names
    c=${cs%%|*} cmd=${cs#*|}
    run "$c" aijcusparse 60 "$cmd" aijcusparse
    run "$c" cusparse 60 "$cmd" evchyb
    tiles "$c" 60 "$cmd" "$sh"
  done
fi
tar -cJf "$OUT/logs.tar.xz" -C "$OUT" logs && rm -rf "$D"
