#!/bin/sh
# model-long-rows: does a term for the entries of long rows fix pJDS's held-out errors on the
# default suite's long rows (long_2x20, long_2x25: +40-75%)? Host only (no GPU). long.patch goes
# over model-stored-order's stored.cu (model-refit/refit.cu + model-terms' terms.patch +
# model-pjds-cap's cap.patch + stored.patch): variants V28..V35 on top of V21, refitted on the
# committed calibration timings and scored on the default suite as measured with model version 3
# (bench/results/h200-h100/model/).
# From the repository root:  bench/experiments/model-long-rows/run.sh > out.txt   (~20 min on 2 cores)
set -e
E=bench/experiments/model-long-rows
S=bench/experiments/model-refit
M=share/gpuformats/models
R=bench/results/h200-h100/model
B=build/experiments/model-long-rows
mkdir -p $B bin/experiments
cp $S/refit.cu $B/refit.cu
(cd $B && patch -s -o cap.cu refit.cu) < bench/experiments/model-pjds-cap/cap.patch
(cd $B && patch -s -o stored.cu cap.cu) < bench/experiments/model-stored-order/stored.patch
(cd $B && patch -s -o long.cu stored.cu) < $E/long.patch
# as model-refit/build.sh, with the object file kept under $B
FLAGS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_CUFLAGS | sed 's/-gencode [^ ]*//g')
LIBS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_LDLIBS)
CUDAC=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-CUDAC)
$CUDAC $FLAGS -gencode arch=compute_90,code=sm_90 -diag-suppress 20208,177 -c $B/long.cu -o $B/long.o
mpicxx $B/long.o -o bin/experiments/model-long-rows lib/libgpuformats_internal.a $LIBS
$S/extract.py $R/spmv-default-v3-h100.json > $B/h100.tsv
$S/extract.py $R/spmv-default-v3-h200.json > $B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json > $B/h100.model
$S/extract.py -model $M/nvidia-h200.json > $B/h200.model
TB_ALL=1 bin/experiments/model-long-rows $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
