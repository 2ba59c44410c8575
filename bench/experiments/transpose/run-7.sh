#!/usr/bin/env bash
# transpose, device calls 7 and 8: the solver-path matrix on ksp ex45 97^3, one rank, aijcusparse beside
# evchyb, in two halves (KSP types given as arguments): bash run-7.sh <tag> <ksp> ...
tag=$1; shift
only=$(for k in "$@"; do bench/solver_paths_list.sh 1 | awk -v k=$k '$1 == k {printf "ex45_%s_%s,", $1, $2}'; done)
SOLVERS_ONLY=$only SOLVERS_OUT=$OUT/paths-ex45-97-np1-$tag PATHS_MAX_IT=200 timeout 560 bench/solver_paths.sh ex45 97 aijcusparse evchyb | tail -3
cd "$OUT" && tar -czf paths-ex45-97-np1-$tag-logs.tgz paths-ex45-97-np1-$tag/*.log && rm -f paths-ex45-97-np1-$tag/*.log
