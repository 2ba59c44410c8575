#!/bin/sh
# model-long-rows: does a term for the entries of long rows fix pJDS's held-out errors on the
# default suite's long rows (long_2x20, long_2x25: +40-75%)? Host only (no GPU). long.patch goes
# over model-stored-order's stored.cu (model-refit/refit.cu + model-terms' terms.patch +
# model-pjds-cap's cap.patch + stored.patch): variants V28..V35 on top of V21, refitted on the
# committed calibration timings and scored on the default suite as measured with model version 3
# (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-long-rows/run.sh > out.txt   (~20 min on 2 cores)
set -e
P=bench/experiments
exec $P/model-refit/stack.sh model-long-rows \
  $P/model-pjds-cap/cap.patch $P/model-stored-order/stored.patch $P/model-long-rows/long.patch -- "$@"
