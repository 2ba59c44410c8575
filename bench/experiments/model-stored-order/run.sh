#!/bin/sh
# model-stored-order: do PELLR's and pJDS's x features, counted in the order each format stores its
# rows (PELLR: one length sort of all rows; pJDS: its auto plan's windows), fix their held-out
# errors? Host only (no GPU). stored.patch goes over model-pjds-cap's cap.cu (model-refit/refit.cu
# + model-terms' terms.patch + cap.patch): variants V19..V27, scored on the default suite as
# measured with model version 3 (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-stored-order/run.sh > out.txt   (~8 min on 2 cores)
set -e
E=bench/experiments/model-stored-order
S=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/model
B=build/experiments/model-stored-order
mkdir -p $B bin/experiments
cp $S/refit.cu $B/refit.cu
(cd $B && patch -s -o cap.cu refit.cu) < bench/experiments/model-pjds-cap/cap.patch
(cd $B && patch -s -o stored.cu cap.cu) < $E/stored.patch
# as model-refit/build.sh, with the object file kept under $B
FLAGS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_CUFLAGS | sed 's/-gencode [^ ]*//g')
LIBS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_LDLIBS)
CUDAC=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-CUDAC)
$CUDAC $FLAGS -gencode arch=compute_90,code=sm_90 -diag-suppress 20208,177 -c $B/stored.cu -o $B/stored.o
mpicxx $B/stored.o -o bin/experiments/model-stored-order lib/libgpuformats_internal.a $LIBS
$S/extract.py $R/spmv-default-v3-h100.json > $B/h100.tsv
$S/extract.py $R/spmv-default-v3-h200.json > $B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json > $B/h100.model
$S/extract.py -model $M/nvidia-h200.json > $B/h200.model
TB_ALL=1 bin/experiments/model-stored-order $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
