#!/usr/bin/env python3
"""The main job's table (examples/demo.sh): per matrix type, from two bench/bratu.sh passes.

  examples/demo_report.py TIMED.json SOLVE.json [chart.png]

TIMED.json: one run per type with -log_view_gpu_time, for MatMult's kernel time per call.
SOLVE.json: runs without it (every event unsynchronised), for the times to solution: the medians of
KSPSolve and SNESSolve, and the host's share of SNESSolve (Jacobian and function evaluation).
Speedups are against aijcusparse and sellcuda where they ran (aij on the host). The bar chart is
text; with matplotlib present a PNG of it is written too. Exit status 1 when a run failed.
"""
import json
import statistics
import sys

BASELINES = ("aijcusparse", "sellcuda", "aij")


def runs_of(path):
    with open(path) as f:
        doc = json.load(f)
    return doc, doc["runs"]


def median(runs, t, key):
    vals = [r[key] for r in runs if r["type"] == t and r["status"] == "ok" and r.get(key) is not None]
    return statistics.median(vals) if vals else None


def ratio(base, mine):
    return base / mine if base and mine else None


def cell(v, fmt):
    return fmt.format(v) if v is not None else "-".rjust(len(fmt.format(0)))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    timed_doc, timed = runs_of(sys.argv[1])
    solve_doc, solve = runs_of(sys.argv[2])
    types = list(dict.fromkeys(r["type"] for r in solve + timed))
    bases = [b for b in BASELINES if b in types][:2]
    failed = sorted({r["type"] for r in solve + timed if r["status"] != "ok"})

    rows = []
    for t in types:
        mm_s, mm_n = median(timed, t, "matmult_s"), median(timed, t, "matmult_count")
        row = {
            "type": t,
            "matmult_ms": 1e3 * mm_s / mm_n if mm_s and mm_n else None,
            "ksp_s": median(solve, t, "kspsolve_s"),
            "snes_s": median(solve, t, "snessolve_s"),
            "host": median(solve, t, "host_eval_share"),
            "its": median(solve, t, "ksp_its"),
        }
        rows.append(row)
    by = {r["type"]: r for r in rows}

    print(f"SNES ex14 (Bratu 3D), {solve_doc['n']}^3 unknowns, {solve_doc['where']}; CG + Jacobi")
    nrep = max((r["rep"] for r in solve), default=0)
    print(f"MatMult: time per call, kernel-timed on a GPU (-log_view_gpu_time, 1 run); KSPSolve, SNESSolve: medians of {nrep} runs without it")
    measures = (("matmult_ms", "MatMult ms"), ("ksp_s", "KSPSolve s"))  # each with its speedups
    head = f"{'type':14s}"
    for _, label in measures:
        head += f" {label:>10s}" + "".join(f" {'vs ' + b:>15s}" for b in bases)
    print(head + f" {'SNESSolve s':>11s} {'host share':>10s} {'KSP its':>7s}")
    for r in rows:
        line = f"{r['type']:14s}"
        for key, _ in measures:
            line += f" {cell(r[key], '{:10.3f}')}" + "".join(f" {cell(ratio(by[b][key], r[key]), '{:14.2f}x')}" for b in bases)
        print(line + f" {cell(r['snes_s'], '{:11.3f}')} {cell(r['host'], '{:9.0%}')} {cell(r['its'], '{:7.0f}')}")
    print("host share: SNESSolve's part in the Jacobian and function evaluation, host work of equal time for every type.")

    if bases:
        b = bases[0]
        print(f"\nspeedup against {b} (# MatMult, = KSPSolve; | at 1x)")
        scale = 20  # characters per 1x
        for r in rows:
            for key, ch in (("matmult_ms", "#"), ("ksp_s", "=")):
                s = ratio(by[b][key], r[key])
                bar = (ch * round(s * scale)) if s else ""
                bar = bar[:scale] + "|" + bar[scale:] if len(bar) >= scale else bar.ljust(scale) + "|"
                print(f"{r['type'] if ch == '#' else '':14s} {bar} {cell(s, '{:.2f}x')}")
        if len(sys.argv) > 3:
            chart(rows, by, b, sys.argv[3])
    if failed:
        print("failed: " + ", ".join(failed) + " (see the logs)")
    return 1 if failed else 0


def chart(rows, by, base, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"(no PNG chart: matplotlib is missing; pip install matplotlib, then rerun {sys.argv[0]} on the JSONs)")
        return
    names = [r["type"] for r in rows]
    fig, ax = plt.subplots(figsize=(1.2 * len(names) + 2, 3.5))
    w = 0.38
    for k, (key, label) in enumerate((("matmult_ms", "MatMult"), ("ksp_s", "KSPSolve"))):
        vals = [ratio(by[base][key], r[key]) or 0 for r in rows]
        ax.bar([i + (k - 0.5) * w for i in range(len(names))], vals, w, label=label)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(names)), names, rotation=20)
    ax.set_ylabel(f"speedup vs {base}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"chart: {path}")


if __name__ == "__main__":
    sys.exit(main())
