#!/bin/sh
# model-terms: which extra terms fix the model's held-out errors? Host only (no GPU). model-refit's refit.cu with
# terms.patch applied (more strip features and variants V5..V16; README.md), scored on the default
# suite as measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-terms/run.sh > out.txt   (~6 min on 2 cores)
set -e
P=bench/experiments
exec $P/model-refit/stack.sh model-terms \
  $P/model-terms/terms.patch -- "$@"
