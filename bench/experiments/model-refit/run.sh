#!/bin/sh
# Builds only this experiment (host code; one gencode is enough) and runs it for the H100 and the
# H200 in one process (they share strips of 270336 rows, so features are computed once), scored on
# the default suite of bench/results/h200-h100/gpuauto/ (stack.sh with no patch; the committed
# models' "cur" column with their first 6 terms, the ones refit.cu knows).
# From the repository root:  bench/experiments/model-refit/run.sh [-sample K] > out.txt
MODEL_COEFS=6 SUITE=bench/results/h200-h100/gpuauto/spmv-default exec "$(dirname "$0")/stack.sh" refit -- "$@"
