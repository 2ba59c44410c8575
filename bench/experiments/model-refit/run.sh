#!/bin/sh
# Builds only this experiment (host code; one gencode is enough) and runs it for the H100 and the
# H200 in one process (they share strips of 270336 rows, so features are computed once).
# From the repository root:  bench/experiments/model-refit/run.sh [-sample K] > out.txt
set -e
E=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/gpuauto
mkdir -p build/experiments bin/experiments
$E/build.sh $E/refit.cu refit
$E/extract.py $R/spmv-default-h100.json > build/experiments/refit-h100.tsv
$E/extract.py $R/spmv-default-h200.json > build/experiments/refit-h200.tsv
$E/extract.py -model $M/nvidia-h100-80gb-hbm3.json > build/experiments/refit-h100.model
$E/extract.py -model $M/nvidia-h200.json > build/experiments/refit-h200.model
bin/experiments/refit \
  build/experiments/refit-h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt build/experiments/refit-h100.tsv \
  build/experiments/refit-h200.model $M/logs/nvidia-h200.calibrate.txt build/experiments/refit-h200.tsv "$@"
