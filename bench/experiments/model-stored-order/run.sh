#!/bin/sh
# model-stored-order: do PELLR's and pJDS's x features, counted in the order each format stores its
# rows (PELLR: one length sort of all rows; pJDS: its auto plan's windows), fix their held-out
# errors? Host only (no GPU). stored.patch goes over model-pjds-cap's cap.cu (model-refit/refit.cu
# + model-terms' terms.patch + cap.patch): variants V19..V27, scored on the default suite as
# measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-stored-order/run.sh > out.txt   (~8 min on 2 cores)
set -e
P=bench/experiments
exec $P/model-refit/stack.sh model-stored-order \
  $P/model-pjds-cap/cap.patch $P/model-stored-order/stored.patch -- "$@"
