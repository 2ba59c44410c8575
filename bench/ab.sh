#!/usr/bin/env bash
# A/B of two builds of the library in one machine session, alternated: bench_spmv with the plugin of
# this tree ("new") and with another build's libgpuformats.so ("old", put in $AB_OLD_LIB, e.g.
# unpacked from that commit's bundle), so both see the same machine state.
#   bench/ab.sh [rounds]          on the GPU machine, through config/gpu-run.sh exec
# Environment: AB_OLD_LIB (directory holding the old libgpuformats.so; required), AB_TYPES (default
# evchyb,suraa), AB_ONLY (suite labels, default fem_10_80,blocks5,rand_1_5pct,st27_128,rmat_s22,x_ca_grqc),
# AB_SUITE (default bench/suites/default.txt), OUT (where JSON and logs go).
# bench_spmv links the layers below PETSc statically: an A/B compares the plugins' product, build
# and refresh paths only where bench_spmv drives them through PETSc (MatConvert, MatMult).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
: "${AB_OLD_LIB:?set AB_OLD_LIB to the directory of the old libgpuformats.so}"
OUT=${OUT:-build/ab}
mkdir -p "$OUT"
base_ld=${LD_LIBRARY_PATH:-}
for round in $(seq 1 "${1:-2}"); do
  for v in new old; do
    if [ $v = old ]; then export LD_LIBRARY_PATH=$AB_OLD_LIB${base_ld:+:$base_ld}; else export LD_LIBRARY_PATH=$base_ld; fi
    bin/bench_spmv -suite "${AB_SUITE:-bench/suites/default.txt}" -only "${AB_ONLY:-fem_10_80,blocks5,rand_1_5pct,st27_128,rmat_s22,x_ca_grqc}" \
      -types "${AB_TYPES:-evchyb,suraa}" -json "$OUT/ab-$v-$round.json" -commit $v >"$OUT/ab-$v-$round.log" 2>&1
    echo "$v $round rc $?"
    grep -E "^\[|device part" "$OUT/ab-$v-$round.log" | sed -E 's/ +/ /g' | cut -c1-100
  done
done
