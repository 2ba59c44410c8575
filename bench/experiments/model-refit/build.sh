#!/bin/sh
# Builds one refit program (host code; one gencode is enough) against the library's internal
# archive, with the makefile's flags: build.sh <source.cu> <name>  ->  bin/experiments/<name>.
# This experiment's run.sh and stack.sh (the patch-stack experiments) call it.
set -e
FLAGS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_CUFLAGS | sed 's/-gencode [^ ]*//g')
LIBS=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-GF_LDLIBS)
CUDAC=$(make -s --no-print-directory --eval 'pv-%: ; @echo $($*)' pv-CUDAC)
mkdir -p build/experiments bin/experiments
$CUDAC $FLAGS -gencode arch=compute_90,code=sm_90 -diag-suppress 20208,177 -c "$1" -o build/experiments/$2.o
mpicxx build/experiments/$2.o -o bin/experiments/$2 lib/libgpuformats_internal.a $LIBS
