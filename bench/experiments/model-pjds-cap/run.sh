#!/bin/sh
# model-pjds-cap: does pJDS's longest-row term, capped at the entries one thread takes in turn,
# fix its held-out errors? Host only (no GPU). cap.patch: model-refit/refit.cu with model-terms'
# variants (terms.patch) and two more (V17, V18), scored on the default suite as
# measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-pjds-cap/run.sh > out.txt   (~6 min on 2 cores)
set -e
E=bench/experiments/model-pjds-cap
S=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/model
B=build/experiments/model-pjds-cap
mkdir -p $B bin/experiments
cp $S/refit.cu $B/refit.cu
(cd $B && patch -s -o cap.cu refit.cu) < $E/cap.patch
$S/build.sh $B/cap.cu model-pjds-cap
$S/extract.py $R/spmv-default-v3-h100.json > $B/h100.tsv
$S/extract.py $R/spmv-default-v3-h200.json > $B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json > $B/h100.model
$S/extract.py -model $M/nvidia-h200.json > $B/h200.model
TB_ALL=1 bin/experiments/model-pjds-cap $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
