#!/usr/bin/env bash
# A/B of device-side build times: the library at ae84c30 (before the review commit 552bc7e and the staging) against HEAD, alternated in one machine session.
only=fem_10_80,blocks5,rand_1_5pct,st27_128,rmat_s22,x_ca_grqc
base_ld=$LD_LIBRARY_PATH
for round in 1 2; do
  for v in new old; do
    if [ $v = old ]; then export LD_LIBRARY_PATH=$PWD/build/oldlib:$base_ld; else export LD_LIBRARY_PATH=$base_ld; fi
    bin/bench_spmv -suite bench/suites/default.txt -only $only -types evchyb,suraa -json $OUT/ab-$v-$round.json -commit $v > $OUT/ab-$v-$round.log 2>&1
    echo "$v $round rc $?"
    grep -E "^\[|device part" $OUT/ab-$v-$round.log | sed -E 's/ +/ /g' | cut -c1-100
  done
done
