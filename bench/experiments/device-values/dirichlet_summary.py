#!/usr/bin/env python3
"""dirichlet.sh's logs -> JSON: per matrix, mode (cols: MatZeroRowsColumns; rows: MatZeroRows keeping
the pattern) and type, the -log_view_gpu_time per-call times (product, the first change + product,
each later change + product, the change alone and in products) and the -log_view KSPSolve.
  dirichlet_summary.py <logs dir> <out.json> <commit> <gpu>"""
import json
import os
import re
import sys


def events(path):
    ev = {}
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) > 4 and re.fullmatch(r"[A-Za-z]+", p[0]) and p[1].isdigit():
                try:
                    ev.setdefault(p[0], (int(p[1]), float(p[3])))
                except ValueError:
                    pass
            m = re.match(r"ksp_matrix: (\S+) n (\d+) nnz (\d+) its (\d+) reason (\S+) relres (\S+) err (\S+)", line)
            if m:
                ev["_line"] = m.groups()
    return ev


def main():
    d, out, commit, gpu = sys.argv[1:5]
    runs = []
    for name in sorted(os.listdir(d)):
        m = re.fullmatch(r"(\w+)\.(cols|rows)\.(\w+)\.gpu\.log", name)
        if not m:
            continue
        g = events(os.path.join(d, name))
        p = events(os.path.join(d, name.replace(".gpu.", ".plain.")))
        cnt = lambda ev, k: ev.get(k, (0, 0.0))
        if "GFSpMV" in g:
            product = cnt(g, "GFSpMV")[1] / max(1, cnt(g, "GFSpMV")[0])
        else:  # aijcusparse: its products without the copies to the device
            product = (cnt(g, "MatMult")[1] - cnt(g, "MatCUSPARSCopyTo")[1]) / max(1, cnt(g, "MatMult")[0])
        later = cnt(g, "DirichletMult")[1] / max(1, cnt(g, "DirichletMult")[0])
        line = p.get("_line") or g.get("_line")
        runs.append({"matrix": m.group(1), "mode": m.group(2), "type": m.group(3),
                     "n": int(line[1]) if line else None, "nnz": int(line[2]) if line else None,
                     "iterations": int(line[3]) if line else None, "relres": float(line[5]) if line else None,
                     "product_ms": 1e3 * product, "first_change_and_product_ms": 1e3 * cnt(g, "DirichletFirst")[1],
                     "change_and_product_ms": 1e3 * later, "change_ms": 1e3 * (later - product),
                     "change_in_products": (later - product) / product if product > 0 else None,
                     "KSPSolve_s": cnt(p, "KSPSolve")[1]})
    for r in runs:
        ref = next((x for x in runs if x["matrix"] == r["matrix"] and x["mode"] == r["mode"] and x["type"] == "aijcusparse"), None)
        if ref and r is not ref:
            r["aijcusparse_over_this_change_and_product"] = ref["change_and_product_ms"] / r["change_and_product_ms"]
            r["aijcusparse_over_this_KSPSolve"] = ref["KSPSolve_s"] / r["KSPSolve_s"] if r["KSPSolve_s"] else None
    json.dump({"tool": "bench/experiments/device-values/dirichlet.sh", "commit": commit, "gpu": gpu, "runs": runs},
              open(out, "w"), indent=1)
    for r in runs:
        print("%-10s %s %-11s product %.3f ms, change %.3f ms = %.2f products, first %.1f ms%s" % (
            r["matrix"], r["mode"], r["type"], r["product_ms"], r["change_ms"], r["change_in_products"] or 0,
            r["first_change_and_product_ms"],
            ", %.0fx aijcusparse" % r["aijcusparse_over_this_change_and_product"] if "aijcusparse_over_this_change_and_product" in r else ""))


if __name__ == "__main__":
    main()
