#!/usr/bin/env python3
"""A model file scored on the default suite as measured (held out): the library's own predictions
(bin/gpuformats_advise, host features) against a bench_spmv JSON's medians.

    score.py <model.json> <spmv-default JSON> [-only a,b]

Per candidate: mean |prediction error| and predictions off by more than 25%; the choice (least
predicted among the candidates measured) against the fastest measured: within 5%, and the lowest
aijcusparse (cuSPARSE CSR) / choice."""
import json
import re
import subprocess
import sys

TYPES = {"evchyb": "evchyb", "pjds": "pjds", "pellr": "pellr", "suraa": "suraa", "cusparse_csr": "aijcusparse:alg1"}
model, suite = sys.argv[1], sys.argv[2]
only = sys.argv[sys.argv.index("-only") + 1].split(",") if "-only" in sys.argv else None
err = {c: [] for c in TYPES}
within5, n, low = 0, 0, 9.0
for m in json.load(open(suite))["matrices"]:
    if only and m["label"] not in only:
        continue
    t = {}
    for r in m["results"]:
        for c, ty in TYPES.items():
            if r["type"] == ty and r.get("status") == "ok":
                t[c] = r["spmv_median_s"] * 1e6
    out = subprocess.run(["bin/gpuformats_advise", m["spec"], "-model", model, "-strips", "0"], capture_output=True, text=True, check=True).stdout
    p = {mm.group(1): float(mm.group(2)) for mm in re.finditer(r"^(\w+)\s+([0-9.]+|inf)\s", out, re.M) if mm.group(1) in TYPES}
    line = f"{m['label']:14s}"
    for c in TYPES:
        if c in t and c in p:
            e = p[c] / t[c] - 1
            err[c].append(e)
            line += f" {c} {100 * e:+4.0f}%"
        else:
            line += f" {c}    -"
    pick = min((c for c in t if c in p), key=lambda c: p[c])
    best = min(t.values())
    n += 1
    within5 += t[pick] <= 1.05 * best
    low = min(low, t["cusparse_csr"] / t[pick]) if "cusparse_csr" in t else low
    print(f"{line} | pick {pick} {t[pick] / best:.3f}", flush=True)
print(f"\n{model} on {suite}:")
for c, e in err.items():
    if e:
        print(f"  {c:13s} mean |error| {100 * sum(abs(x) for x in e) / len(e):5.1f}%  over 25%: {sum(abs(x) > 0.25 for x in e)} of {len(e)}")
print(f"  choice within 5% of the fastest: {within5}/{n}; lowest aijcusparse/choice {low:.3f}")
