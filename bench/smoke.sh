#!/usr/bin/env bash
# Smoke test of the benchmark instrument (no GPU needed): bench_spmv over the small suite with the
# host types and every gpuformats type (host backend on a machine without a GPU), its JSON, error
# handling, an MPI run, and the charts. Prints "ok"/"not ok" lines (test/run.sh counts them).
#   bench/smoke.sh [outdir]
set -u
cd "$(dirname "$0")/.." || exit 1
OUT=${1:-build/bench-smoke}
mkdir -p "$OUT"
MPIEXEC=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
ok() { echo "ok $1"; }
notok() { echo "not ok $1${2:+: $2}"; }

BIN=${BENCH_SPMV:-bin/bench_spmv}
# gpuformats types: $GPUFORMATS_TEST_TYPES (as test/run.sh) or every type this build carries
ours=$(echo "${GPUFORMATS_TEST_TYPES:-$( [ -x bin/test/list_types ] && bin/test/list_types)}" | tr ' \n' ',,' | sed 's/,,*/,/g; s/^,//')
types="aij,sell,${ours}nosuchtype"

# 1. the small suite, every type: runs, every product verified
"$BIN" -suite bench/suites/small.txt -types "$types" -reps 3 -warmup 1 -refresh_reps 2 -json "$OUT/small.json" >"$OUT/small.log" 2>&1
rc=$?
[ $rc = 0 ] && ok "bench.small_suite_runs" || { notok "bench.small_suite_runs" "exit $rc"; tail -20 "$OUT/small.log"; }
python3 - "$OUT/small.json" "$types" "$ours" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
types = sys.argv[2].split(",")
ours = [t for t in sys.argv[3].split(",") if t]
suite = [l.split()[0] for l in open("bench/suites/small.txt") if l.strip() and not l.startswith("#")]
got = [m["label"] for m in d["matrices"]]
print(("ok" if got == suite else "not ok") + " bench.json_has_every_matrix" + ("" if got == suite else f": {got}"))
for k in ("date", "commit", "petsc_version", "host_copy_gbs", "settings"):
    print(("ok" if k in d else "not ok") + f" bench.json_field.{k}")
for m in d["matrices"]:
    res = {r["type"]: r for r in m.get("results", [])}
    # a documented refusal is no failure: PELLR's, n/a naming the formats that fit, where its fill rule
    # (pellr.hpp; default max_fill 3) refuses the matrix: rows with entries x the longest row above
    # 3 x nnz.
    fill_refuses = m["row_length"]["max"] * (m["nrows"] - m["row_length"]["empty"]) > 3 * m["nnz"]
    refused = lambda r: r["type"] == "pellr" and fill_refuses and r["status"] == "n/a" and "Formats that fit" in r.get("reason", "")
    bad = [t for t in types if t != "nosuchtype" and (t not in res or (not refused(res[t]) and (res[t]["status"] != "ok" or not res[t]["relerr"] <= 1e-10 or not res[t]["relerr_refresh"] <= 1e-10)))]
    print(("ok" if m["status"] == "ok" and not bad else "not ok") + f" bench.verified.{m['label']}" + (f": {bad}" if bad else ""))
    figs = all(res[t].get(f) is not None for t in types if t in res and res[t]["status"] == "ok" for f in ("gflops", "gbs", "setup_s", "refresh_s", "bytes"))
    print(("ok" if figs else "not ok") + f" bench.figures.{m['label']}")
    # device-side split: measured exactly for our types on the GPU, null elsewhere (host backend, PETSc's types)
    dev = ("setup_upload_s", "setup_device_s", "setup_device_spmvs", "refresh_upload_s", "refresh_device_s", "refresh_device_spmvs")
    okr = [r for r in res.values() if r["status"] == "ok"]
    split = all(all(k in r for k in dev) and (r["setup_device_s"] is not None) == (r["type"] in ours and r["where"] == "gpu") for r in okr)
    print(("ok" if split else "not ok") + f" bench.device_fields.{m['label']}")
    print(("ok" if m.get("ellpackr_bytes", 0) >= 12 * m["nnz"] else "not ok") + f" bench.ellpackr_bytes.{m['label']}")
    na = res.get("nosuchtype", {})
    print(("ok" if na.get("status") == "n/a" and "nosuchtype" in na.get("reason", "") else "not ok") + f" bench.unknown_type_is_na.{m['label']}")
EOF

# targets.py reads this run, and a committed one from before the device-side fields
for j in "$OUT/small.json" bench/results/h100/sort-windows/spmv-h100-72167fc.json; do
  out=$(python3 bench/targets.py "$j" 2>&1); rc=$?
  [ $rc = 0 ] && echo "$out" | grep -q "first conversion (device-side)" && ok "bench.targets.$(basename "$j" .json)" || { notok "bench.targets.$(basename "$j" .json)" "exit $rc"; echo "$out" | tail -5; }
done

# 2. a bad matrix spec is a clear error, not a crash
out=$("$BIN" -matrix "fem:rows=100,nonsense=3" -types aij 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "unknown parameter 'nonsense'" && ok "bench.bad_spec_error" || { notok "bench.bad_spec_error" "exit $rc"; echo "$out" | tail -5; }
out=$("$BIN" -matrix /nonexistent.mtx -types aij 2>&1); rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "cannot open" && ok "bench.missing_file_error" || { notok "bench.missing_file_error" "exit $rc"; echo "$out" | tail -5; }

# 2b. block sizes: on 1 and 3 ranks (rows split in whole blocks), a block-dense matrix
# takes the block layout, :scalar forces the scalar one, a not block-dense one with a block size
# stays scalar; every product right; cusparse:bsr is n/a without a GPU (with one: ok) and on a
# matrix without a block size
for np in 1 3; do
  $MPIEXEC -n $np "$BIN" -matrix blockfem:n=900,bs=4 -label blkfem_bs4 -types aij,evchyb,evchyb:scalar,cusparse:bsr -reps 2 -warmup 1 -json "$OUT/block$np.a.json" >"$OUT/block$np.log" 2>&1 &&
    $MPIEXEC -n $np "$BIN" -matrix stencil27:n=9,blocksize=3 -label st27_bs3 -types aij,evchyb,cusparse:bsr -reps 2 -warmup 1 -json "$OUT/block$np.b.json" >>"$OUT/block$np.log" 2>&1
  rc=$?
  python3 - "$OUT/block$np.a.json" "$OUT/block$np.b.json" $np <<'PY' && ok "bench.block_layouts.np$np" || { notok "bench.block_layouts.np$np" "exit $rc"; tail -20 "$OUT/block$np.log"; }
import json, sys
a, b = (json.load(open(f))["matrices"][0] for f in sys.argv[1:3])
np = int(sys.argv[3])
ra = {r["type"]: r for r in a["results"]}
rb = {r["type"]: r for r in b["results"]}
bsr_ok = lambda r: r["status"] == "ok" or (r["status"] == "n/a" and ("GPU" in r["reason"] or (np > 1 and "one rank" in r["reason"])))
assert a["block_size"] == 4 and b["block_size"] == 3, (a["block_size"], b["block_size"])
assert ra["evchyb"]["status"] == "ok" and ra["evchyb"]["layout"] == "block", ra["evchyb"]
assert ra["evchyb:scalar"]["status"] == "ok" and ra["evchyb:scalar"]["layout"] == "scalar", ra["evchyb:scalar"]
assert rb["evchyb"]["status"] == "ok" and rb["evchyb"]["layout"] == "scalar" and "not block-dense" in rb["evchyb"]["layout_reason"], rb["evchyb"]
assert bsr_ok(ra["cusparse:bsr"]) and bsr_ok(rb["cusparse:bsr"]), (ra["cusparse:bsr"], rb["cusparse:bsr"])
assert "layout" not in ra["aij"]
PY
done
out=$("$BIN" -matrix stencil3d7:n=6 -types cusparse:bsr 2>&1)
echo "$out" | grep -q "cusparse:bsr.*n/a: .*\(no block size\|needs a GPU\)" && ok "bench.bsr_needs_block_size" || { notok "bench.bsr_needs_block_size"; echo "$out" | tail -5; }

# 3. MPI: 2 ranks, rows split, same checks
$MPIEXEC -n 2 "$BIN" -suite bench/suites/small.txt -only st7,rmat,long,ship -types "aij,${ours%,}" -reps 2 -warmup 1 -json "$OUT/np2.json" >"$OUT/np2.log" 2>&1
rc=$?
[ $rc = 0 ] && grep -q '"mpi_ranks": 2' "$OUT/np2.json" && ! grep -q '"status": "wrong"' "$OUT/np2.json" && ok "bench.mpi_np2" || { notok "bench.mpi_np2" "exit $rc"; tail -20 "$OUT/np2.log"; }

# 4. the charts (where matplotlib is installed)
if python3 -c "import matplotlib" 2>/dev/null; then
  python3 bench/plot.py "$OUT/small.json" -o "$OUT/plots" --markdown >"$OUT/plots.md" 2>"$OUT/plots.log" && [ -s "$OUT/plots/gflops.png" ] && [ -s "$OUT/plots/roofline.png" ] && [ -s "$OUT/plots/speedup.png" ] && ok "bench.plots" || { notok "bench.plots"; cat "$OUT/plots.log"; }
else
  echo "ok bench.plots # SKIP no matplotlib"
fi
