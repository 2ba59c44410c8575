#!/usr/bin/env python3
"""PELLR's prediction taken apart: the max_row term's share against the other terms, beside the
measured time (a bench_spmv JSON of the default suite) and that time per entry of the longest row.

    parts.py <model.json> <spmv-default JSON>

Block terms are summed from bin/gpuformats_advise's strip table (host features, every strip)."""
import json
import re
import subprocess
import sys

model, suite = sys.argv[1], sys.argv[2]
coef = next(c for c in json.load(open(model))["candidates"] if c["name"] == "pellr")["coef"]
STRIP = re.compile(r"^\s+\d+\s+\d+\s+(\d+)\s+(\d+)\s+[0-9.]+\s+(\d+)\s+\d+\s+(\d+)\s+(\d+)", re.M)
for m in json.load(open(suite))["matrices"]:
    t = {r["type"]: r["spmv_median_s"] for r in m["results"] if r.get("status") == "ok"}
    if "pellr" not in t:
        continue
    out = subprocess.run(["bin/gpuformats_advise", m["spec"], "-model", model, "-strips", "100000"], capture_output=True, text=True, check=True).stdout
    h = re.search(r"(\d+) x \d+, \d+ nonzeros, mean row ([0-9.]+), max row (\d+), (\d+) strips", out)
    rows, mean, longest, strips = int(h.group(1)), float(h.group(2)), int(h.group(3)), int(h.group(4))
    terms = [1.0, 0, 0, 0, 0, 0]
    for s in STRIP.finditer(out):
        for k in range(5):
            terms[k + 1] += int(s.group(k + 1))
    part = [coef[k] * terms[k] * 1e6 for k in range(6)]
    meas = t["pellr"] * 1e6
    print(f"{m['label']:12s} rows {rows:9d} mean {mean:7.1f} max {longest:5d} strips {strips:3d} | measured {meas:6.1f} us, "
          f"predicted {sum(part):6.1f} = max_row {part[3]:6.1f} + rest {sum(part) - part[3]:6.1f} ({100 * (sum(part) / meas - 1):+4.0f}%) | "
          f"measured / longest row {1e3 * meas / longest:8.1f} ns")
