#!/bin/sh
# model-terms: which extra terms fix the model's held-out errors? Host only (no GPU). model-refit's refit.cu with
# terms.patch applied (more strip features and variants V5..V16; README.md), scored on the default
# suite as measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-terms/run.sh > out.txt   (~6 min on 2 cores)
set -e
E=bench/experiments/model-terms
S=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/model
B=build/experiments/model-terms
mkdir -p $B bin/experiments
cp $S/refit.cu $B/refit.cu
(cd $B && patch -s -o terms.cu refit.cu) < $E/terms.patch
$S/build.sh $B/terms.cu model-terms
$S/extract.py $R/spmv-default-v3-h100.json > $B/h100.tsv
$S/extract.py $R/spmv-default-v3-h200.json > $B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json > $B/h100.model
$S/extract.py -model $M/nvidia-h200.json > $B/h200.model
# TB_ALL: suraa_warps counts the rows too wide for a tile as well (Y / 32 warps each), as version 3 does.
TB_ALL=1 bin/experiments/model-terms $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
