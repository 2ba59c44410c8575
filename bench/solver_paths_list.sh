#!/usr/bin/env bash
# The pairs of bench/suites/solver_paths.txt for a rank count, one "ksp pc [pc options]" per line.
#   bench/solver_paths_list.sh ranks [suite]
np=${1:-1}; suite=${2:-$(dirname "$0")/suites/solver_paths.txt}
awk -v np="$np" '
  $1 == "ksp:" {for (i = 2; i <= NF; i++) ksp[++nk] = $i}
  $1 == "pc:" {for (i = 2; i <= NF; i++) pc[++npc] = $i}
  $1 == "skip:" && ($2 == np || $2 == "*") {skip[$3 " " $4] = 1}
  $1 == "opts:" {o = ""; for (i = 3; i <= NF; i++) o = o " " $i; opts[$2] = o}
  END {for (i = 1; i <= nk; i++) for (j = 1; j <= npc; j++)
         if (!((ksp[i] " " pc[j]) in skip) && !(("* " pc[j]) in skip)) print ksp[i], pc[j] opts[pc[j]]}' "$suite"
