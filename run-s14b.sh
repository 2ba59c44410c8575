#!/usr/bin/env bash
# session 14 GPU experiment 2: evchyb checks + sm_local bench
set -u
c=$(cat bundle/commit)
( time bin/test/test_formats_cuda test/matrices evchyb quick ) > $OUT/evchyb-cuda.log 2>&1; echo "evchyb-cuda: $(grep -c '^ok' $OUT/evchyb-cuda.log) ok, $(grep -c '^not ok' $OUT/evchyb-cuda.log) not ok"; grep "^not ok" $OUT/evchyb-cuda.log | head -5; tail -3 $OUT/evchyb-cuda.log
( time compute-sanitizer --tool memcheck bin/test/test_formats_cuda test/matrices evchyb quick-nodp ) > $OUT/evchyb-memcheck.log 2>&1; grep -E "ERROR SUMMARY" $OUT/evchyb-memcheck.log | head -3; grep -c "^not ok" $OUT/evchyb-memcheck.log
bin/bench_spmv -suite bench/suites/default.txt ${ONLY:+-only $ONLY} -types aijcusparse:alg1,sellcuda,evchyb,evchyb:-mat_evchyb_sm_local=1 -json $OUT/smlocal.json -commit $c > $OUT/smlocal.log 2>&1
grep -E "^\[|evchyb|aijcusparse|sellcuda" $OUT/smlocal.log | grep -v "device part" | cut -c1-100
