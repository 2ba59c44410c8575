#!/usr/bin/env bash
# session 14 GPU experiment: suraa checks + stream-path bench
set -u
c=$(cat bundle/commit)
( time bin/test/test_formats_cuda test/matrices suraa quick ) > $OUT/suraa-cuda.log 2>&1; echo "suraa-cuda: $(grep -c '^ok' $OUT/suraa-cuda.log) ok, $(grep -c '^not ok' $OUT/suraa-cuda.log) not ok"; tail -3 $OUT/suraa-cuda.log
( time compute-sanitizer --tool memcheck bin/test/test_formats_cuda test/matrices suraa quick-nodp ) > $OUT/suraa-memcheck.log 2>&1; grep -E "ERROR SUMMARY|not ok" $OUT/suraa-memcheck.log | head -5; tail -3 $OUT/suraa-memcheck.log
( time compute-sanitizer --tool racecheck bin/test/test_formats_cuda test/matrices suraa quick-nodp ) > $OUT/suraa-racecheck.log 2>&1; grep -E "RACECHECK SUMMARY|not ok" $OUT/suraa-racecheck.log | head -5; tail -3 $OUT/suraa-racecheck.log
bin/bench_spmv -suite bench/suites/default.txt -only ${ONLY:-st7_200,st27_128,st5_3200,band_10,fem_10_80,rmat_s22,rmat_s24,long_2x20,circuit,x_ship04l,x_powergrid,x_ca_grqc,x_crack} -types aijcusparse:alg1,sellcuda,evchyb,suraa,suraa:-mat_suraa_stream_entries=0,suraa:-mat_suraa_stream_entries=512 -json $OUT/stream.json -commit $c > $OUT/stream.log 2>&1
grep -E "^\[|suraa|evchyb|aijcusparse|sellcuda" $OUT/stream.log | grep -v "device part" | cut -c1-110
