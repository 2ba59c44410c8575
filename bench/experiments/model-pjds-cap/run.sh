#!/bin/sh
# model-pjds-cap: does pJDS's longest-row term, capped at the entries one thread takes in turn,
# fix its held-out errors? Host only (no GPU). cap.patch: model-refit/refit.cu with model-terms'
# variants (terms.patch) and two more (V17, V18), scored on the default suite as
# measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-pjds-cap/run.sh > out.txt   (~6 min on 2 cores)
set -e
P=bench/experiments
exec $P/model-refit/stack.sh model-pjds-cap \
  $P/model-pjds-cap/cap.patch -- "$@"
