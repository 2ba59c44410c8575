#!/usr/bin/env python3
"""The formats' performance targets, read from bench_spmv JSON (and bratu.sh's bratu.json).

    python3 bench/targets.py spmv-*.json [--bratu bratu.json] [--markdown]

Several SpMV files are merged as bench/plot.py does (a suite split over runs reads as one).
Classes: a matrix is "irregular" when its row-length standard deviation exceeds 10 (the PELLR
paper's criterion) or its longest row exceeds 10x the mean; "high variance" (SURAA) when the std
exceeds the mean; "stencil" when its label starts with st. Ratios are of median SpMV GFLOP/s.
Setup and refresh targets are read device-side (setup_device_spmvs, refresh_device_spmvs: the
library's CUDA-event split, upload from host memory left out); the totals with the upload are
printed beside them. JSON from before those fields reports the device-side targets as n/a.
"""
import argparse
import json
import math
import sys

BASE = ("aijcusparse:alg1", "aijcusparse:alg2", "sellcuda")


def merge(paths):
    mats, order = {}, []
    for p in paths:
        for m in json.load(open(p)).get("matrices", []):
            if m.get("status") != "ok":
                continue
            if m["label"] not in mats:
                mats[m["label"]] = dict(m, results={})
                order.append(m["label"])
            for r in m.get("results", []):
                if r.get("status") == "ok":
                    mats[m["label"]]["results"][r["type"]] = r
    return [mats[k] for k in order]


def gm(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def cls(m):
    rl = m.get("row_length", {})
    std, mean, mx = rl.get("std", 0), rl.get("mean", 1), rl.get("max", 0)
    return {"irregular": std > 10 or mx > 10 * mean, "highvar": std > mean, "stencil": m["label"].startswith("st"), "std": std}


def g(m, t):
    r = m["results"].get(t)
    return r["gflops"] if r else None


def best_petsc(m):
    v = [g(m, t) for t in BASE if g(m, t)]
    return max(v) if v else None


def cusparse(m):
    v = [g(m, t) for t in BASE[:2] if g(m, t)]
    return max(v) if v else None


def spread(xs):
    """median and worst (largest) of the present values, and how many"""
    xs = sorted(x for x in xs if x is not None)
    return (xs[len(xs) // 2], xs[-1], len(xs)) if xs else (None, None, 0)


def line(ok, text):
    mark = "n/a " if ok is None else ("met " if ok else "MISS")
    print(f"  [{mark}] {text}")


def fmt(x):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("--bratu")
    a = ap.parse_args()
    ms = merge(a.json)
    print(f"{len(ms)} matrices; ratios are SpMV GFLOP/s over the better of aijcusparse (alg1/alg2) and sellcuda unless said")
    types = sorted({t for m in ms for t in m["results"]} - set(BASE) - {"aij"})
    print("\nper matrix: speedup over the best PETSc type (row-length std in brackets)")
    print("  %-14s %8s " % ("matrix", "std") + " ".join("%10s" % t[:10] for t in types) + "  best PETSc GF/s")
    for m in ms:
        b = best_petsc(m)
        print("  %-14s %8.1f " % (m["label"], cls(m)["std"]) + " ".join("%10s" % fmt(g(m, t) / b if g(m, t) and b else None) for t in types) + "  %.1f" % (b or 0))

    def speedups(t, sel, ref=best_petsc):
        return [(m["label"], g(m, t) / ref(m)) for m in ms if sel(m) and g(m, t) and ref(m)]

    print("\nEVC-HYB")
    s = speedups("evchyb", lambda m: cls(m)["irregular"])
    line(gm([x for _, x in s]) >= 1.2 if s else None, f"irregular matrices geomean >= 1.2x: {fmt(gm([x for _, x in s]))} over {len(s)}")
    s = speedups("evchyb", lambda m: True, cusparse)
    worst = min(s, key=lambda p: p[1]) if s else None
    line(worst[1] >= 0.9 if worst else None, f"no matrix below 0.9x aijcusparse: worst {worst[0] if worst else ''} {fmt(worst[1] if worst else None)}")
    for t in ("evchyb", "pjds", "pellr", "suraa"):
        rr, sr, br = [], [], []
        for m in ms:
            r, c = m["results"].get(t), m["results"].get("aijcusparse:alg1")
            if r and c:
                if r.get("refresh_s") and c.get("refresh_s"):
                    rr.append(r["refresh_s"] / c["refresh_s"])
                if r.get("setup_s") and c.get("setup_s"):
                    sr.append(r["setup_s"] / c["setup_s"])
            if r and r.get("bytes_vs_csr"):
                br.append((m["label"], r["bytes_vs_csr"]))
        wb = max(br, key=lambda p: p[1]) if br else None
        print(f"  {t}: refresh / aijcusparse refresh: geomean {fmt(gm(rr))}, worst {fmt(max(rr) if rr else None)}; "
              f"first conversion / aijcusparse first upload: geomean {fmt(gm(sr))}, worst {fmt(max(sr) if sr else None)}; "
              f"bytes/CSR worst {wb[0] if wb else ''} {fmt(wb[1] if wb else None)}")
        sd = spread(m["results"][t].get("setup_device_spmvs") for m in ms if t in m["results"])
        rd = spread(m["results"][t].get("refresh_device_spmvs") for m in ms if t in m["results"])
        if sd[2] or rd[2]:
            print(f"    device-side, in SpMVs: first conversion median {fmt(sd[0])}, worst {fmt(sd[1])}; "
                  f"values-only refresh median {fmt(rd[0])}, worst {fmt(rd[1])}")

    print("\npJDS / PELLR")
    s = speedups("pjds", lambda m: True)
    line(gm([x for _, x in s]) >= 1.1 if s else None, f"pjds suite geomean >= 1.1x: {fmt(gm([x for _, x in s]))} over {len(s)}")
    br = [m["results"]["pjds"]["bytes_vs_csr"] for m in ms if "pjds" in m["results"]]
    line(max(br) <= 1.1 if br else None, f"pjds bytes <= 1.1x CSR on the suite: worst {fmt(max(br) if br else None)}")
    sav = []
    for m in ms:
        r = m["results"].get("pjds")
        if r and r.get("bytes"):
            rows32 = (m["nrows"] + 31) // 32 * 32  # ELLPACK-R as bench_spmv's ellpackr_bytes (older JSON lacks it)
            ell_b = m.get("ellpackr_bytes") or 12.0 * m["row_length"]["max"] * rows32 + 4.0 * rows32
            sav.append((m["label"], 1.0 - r["bytes"] / ell_b))
    if sav:
        print("  pjds memory saving vs ELLPACK-R (paper: up to 70%): " + ", ".join(f"{l} {100 * x:.0f}%" for l, x in sav))
    ell = [t for t in types if t.startswith("pellr") and "permute=0" in t]
    if ell:
        s = [(m["label"], g(m, "pellr") / g(m, ell[0])) for m in ms if cls(m)["std"] > 10 and g(m, "pellr") and g(m, ell[0])]
        line(gm([x for _, x in s]) >= 1.0 if s else None, f"pellr over ELLPACK-R ({ell[0]}) on std > 10: geomean {fmt(gm([x for _, x in s]))} over {len(s)} (paper ~1.5x)")
        na = [m["label"] for m in ms if cls(m)["std"] > 10 and not (g(m, "pellr") and g(m, ell[0]))]
        if na:
            print(f"    not measurable (padding refused by max_fill for one or both): {', '.join(na)}")

    print("\nSURAA")
    s = speedups("suraa", lambda m: cls(m)["highvar"])
    line(gm([x for _, x in s]) >= 1.3 if s else None, f"high-variance geomean >= 1.3x: {fmt(gm([x for _, x in s]))} over {len(s)} ({', '.join(l for l, _ in s)})")
    worst = min(s, key=lambda p: p[1]) if s else None
    line(worst[1] >= 1.0 if worst else None, f"none below 1.0x: worst {worst[0] if worst else ''} {fmt(worst[1] if worst else None)}")
    s = speedups("suraa", lambda m: cls(m)["stencil"])
    line(min(x for _, x in s) >= 0.9 if s else None, "stencils >= 0.9x: " + ", ".join(f"{l} {x:.2f}" for l, x in s))
    sur = [m["results"]["suraa"] for m in ms if "suraa" in m["results"]]
    for what, key, limit in (("first conversion", "setup", 10), ("values-only refresh", "refresh", 1.5)):
        dev, tot = spread(r.get(key + "_device_spmvs") for r in sur), spread(r.get(key + "_spmvs") for r in sur)
        got = f"median {fmt(dev[0])}, worst {fmt(dev[1])} over {dev[2]}" if dev[2] else "not in this JSON (bench_spmv before the device-side split)"
        line(dev[1] <= limit if dev[2] else None, f"{what} (device-side) within {limit:g} SpMVs: {got}; "
             f"total with the upload from host memory: median {fmt(tot[0])}, worst {fmt(tot[1])}")
    dyn = [t for t in types if t.startswith("suraa") and "dynamic=1" in t]
    if dyn:
        s = [(m["label"], g(m, dyn[0]) / g(m, "suraa")) for m in ms if g(m, dyn[0]) and g(m, "suraa")]
        print(f"  dynamic parallelism (-mat_suraa_dynamic 1) over the default (0): geomean {fmt(gm([x for _, x in s]))}, range {fmt(min(x for _, x in s) if s else None)}..{fmt(max(x for _, x in s) if s else None)}")

    if a.bratu:
        d = json.load(open(a.bratu))
        runs = {r["type"]: r for r in d["runs"] if r["status"] == "ok"}
        print(f"\nBratu (SNES ex14 {d['n']}^3, {d['where']}): MatMult GFLOP/s")
        ref = {t: runs[t]["matmult_gflops"] for t in ("aijcusparse", "aijcusparse:alg2", "sellcuda") if t in runs}
        for t, r in runs.items():
            extra = ""
            if t in ("evchyb", "pjds", "pellr", "suraa"):
                c = max([ref[k] for k in ("aijcusparse", "aijcusparse:alg2") if k in ref] or [float("nan")])
                sc = ref.get("sellcuda", float("nan"))
                extra = f"  {r['matmult_gflops'] / c:.2f}x aijcusparse, {r['matmult_gflops'] / sc:.2f}x sellcuda"
            print(f"  {t:18s} {r['matmult_gflops']:8.1f}  SNES {r['snes_its']} KSP {r['ksp_its']} solve {r['snessolve_s']} s{extra}")


if __name__ == "__main__":
    sys.exit(main())
