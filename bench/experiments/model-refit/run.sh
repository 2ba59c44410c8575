#!/bin/sh
# Builds only this experiment (host code; one gencode is enough) and runs it for the H100 and the
# H200 in one process (they share strips of 270336 rows, so features are computed once).
# From the repository root:  bench/experiments/model-refit/run.sh [-sample K] > out.txt
set -e
E=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/gpuauto/2026-11-26-628058d
mkdir -p build/experiments bin/experiments
FLAGS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_CUFLAGS | sed 's/-gencode [^ ]*//g')
LIBS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_LDLIBS)
CUDAC=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-CUDAC)
$CUDAC $FLAGS -gencode arch=compute_90,code=sm_90 -diag-suppress 20208 -c $E/refit.cu -o build/experiments/refit.o
mpicxx build/experiments/refit.o -o bin/experiments/refit lib/libgpuformats_internal.a $LIBS
$E/extract.py $R/spmv-default-h100.json > build/experiments/refit-h100.tsv
$E/extract.py $R/spmv-default-h200.json > build/experiments/refit-h200.tsv
$E/extract.py -model $M/nvidia-h100-80gb-hbm3.json > build/experiments/refit-h100.model
$E/extract.py -model $M/nvidia-h200.json > build/experiments/refit-h200.model
bin/experiments/refit \
  build/experiments/refit-h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt build/experiments/refit-h100.tsv \
  build/experiments/refit-h200.model $M/logs/nvidia-h200.calibrate.txt build/experiments/refit-h200.tsv "$@"
