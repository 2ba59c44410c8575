#!/bin/sh
# The patch-stack model experiments (model-terms, model-pjds-cap, model-stored-order,
# model-long-rows): refit.cu with each patch applied in turn over the one before, built by build.sh,
# and run on both GPUs' committed models and calibration logs, scored on the default suite as
# measured with model version 3 (bench/results/h200-h100/model/, held out; SUITE=<prefix> another
# suite: <prefix>-h100.json and -h200.json; MODEL_COEFS=<K> the committed models' first K
# coefficients for the program's "cur" column, 8 unless set). TB_ALL: suraa_warps counts the rows too wide for a tile
# as well (Y / 32 warps each), as version 3 does.
#   stack.sh <name> <patch>... [-- <program arguments>]      (from the repository root)
set -e
S=bench/experiments/model-refit
M=share/gpuformats/models
R=${SUITE:-bench/results/h200-h100/model/spmv-default-v3}
name=$1
shift
B=build/experiments/$name
mkdir -p $B
cp $S/refit.cu $B/0.cu
n=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  (cd $B && patch -s -o $((n + 1)).cu $n.cu) <"$1"
  n=$((n + 1))
  shift
done
[ "${1:-}" = -- ] && shift
[ -n "${STACK_SOURCE_ONLY:-}" ] && exit 0 # the stacked source only ($B/<count of patches>.cu)
$S/build.sh $B/$n.cu $name
$S/extract.py $R-h100.json >$B/h100.tsv
$S/extract.py $R-h200.json >$B/h200.tsv
$S/extract.py -model $M/nvidia-h100-80gb-hbm3.json ${MODEL_COEFS:-8} >$B/h100.model
$S/extract.py -model $M/nvidia-h200.json ${MODEL_COEFS:-8} >$B/h200.model
TB_ALL=1 bin/experiments/$name $B/h100.model $M/logs/nvidia-h100-80gb-hbm3.calibrate.txt $B/h100.tsv \
  $B/h200.model $M/logs/nvidia-h200.calibrate.txt $B/h200.tsv "$@"
