#!/bin/sh
# s25: which extra terms fix the model's held-out errors? Host only (no GPU). s24's refit.cu with
# terms.patch applied (more strip features and variants V5..V16; README.md), scored on the default
# suite as measured with model version 3 (bench/results/2026-11-26-h200-h100-s25-model-v3/).
# From the repository root:  bench/experiments/s25-model-terms/run.sh > out.txt   (~6 min on 2 cores)
set -e
E=bench/experiments/s25-model-terms
S=bench/experiments/s24-model-refit
M=share/gpuformats/models
R=bench/results/2026-11-26-h200-h100-s25-model-v3
B=build/experiments/s25
mkdir -p $B bin/experiments
cp $S/refit.cu $B/refit.cu
(cd $B && patch -s -o terms.cu refit.cu) < $E/terms.patch
FLAGS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_CUFLAGS | sed 's/-gencode [^ ]*//g')
LIBS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_LDLIBS)
CUDAC=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-CUDAC)
$CUDAC $FLAGS -gencode arch=compute_90,code=sm_90 -diag-suppress 20208 -c $B/terms.cu -o $B/terms.o
mpicxx $B/terms.o -o bin/experiments/s25-terms lib/libgpuformats_internal.a $LIBS
$S/extract.py $R/spmv-default-v3-h100.json > $B/h100.tsv
$S/extract.py $R/spmv-default-v3-h200.json > $B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json > $B/h100.model
$S/extract.py -model $M/nvidia-h200.json > $B/h200.model
# TB_ALL: suraa_warps counts the rows too wide for a tile as well (Y / 32 warps each), as version 3 does.
TB_ALL=1 bin/experiments/s25-terms $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
