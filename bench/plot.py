#!/usr/bin/env python3
"""Charts from bench_spmv JSON files.

    python3 bench/plot.py RESULT.json [MORE.json ...] [-o OUTDIR] [--types t1,t2] [--markdown]

Several files are merged (a matrix measured in two files keeps every type; for the same matrix
and type the later file wins), so a suite split over several runs plots as one.

Writes to OUTDIR (default: beside the first JSON file):
  gflops.png    GFLOP/s per matrix, one bar per type (hatched: wrong result)
  roofline.png  GFLOP/s against arithmetic intensity under the minimal CSR traffic model
                (2 nnz flops / (12 nnz + 4 (rows+1) + 8 cols + 8 rows) bytes), with the copy-kernel
                bandwidth measured in the same run as the ceiling
  speedup.png   each type's GFLOP/s over the best PETSc type on that matrix
  setup.png     first conversion and values-only refresh, in units of one SpMV
--markdown prints a table (GFLOP/s and % of copy bandwidth per matrix and type) for READMEs.
Host results are left out when GPU results are present (--host keeps them).
Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import os
import sys

PETSC_TYPES = {"aij", "seqaij", "mpiaij", "aijcusparse", "seqaijcusparse", "mpiaijcusparse", "sellcuda", "seqsellcuda",
               "mpisellcuda", "sell", "seqsell", "mpisell", "aijkokkos", "aijhipsparse"}


def load(paths):
    runs, matrices, order = [], {}, []
    for p in paths:
        with open(p) as f:
            d = json.load(f)
        runs.append(d)
        for m in d.get("matrices", []):
            if m.get("status") != "ok":
                continue
            key = m["label"]
            if key not in matrices:
                matrices[key] = dict(m, results={})
                order.append(key)
            for r in m.get("results", []):
                if r.get("status") in ("ok", "wrong"):
                    matrices[key]["results"][r["type"]] = dict(r, copy_gbs=run_copy_gbs(d, r))
    return runs, [matrices[k] for k in order]


def run_copy_gbs(run, r):
    if r.get("where") == "gpu" and run.get("copy_bandwidth"):
        return run["copy_bandwidth"]["kernel_gbs"]
    return run.get("host_copy_gbs")


def is_petsc(r):
    return r.get("mat_type", r["type"].split(":")[0]) in PETSC_TYPES


def type_order(matrices, keep):
    seen = []
    for m in matrices:
        for t in m["results"]:
            if t not in seen and keep(m["results"][t]):
                seen.append(t)
    # PETSc's types first, then ours, each in first-seen order
    return [t for t in seen if t.split(":")[0] in PETSC_TYPES] + [t for t in seen if t.split(":")[0] not in PETSC_TYPES]


def colors(types):
    import matplotlib.pyplot as plt
    cmap = plt.get_cmap("tab10")
    return {t: cmap(i % 10) for i, t in enumerate(types)}


def title_of(runs):
    r = runs[0]
    gpu = r["gpu"]["name"] if r.get("gpu") else "host only"
    commit = (r.get("commit") or "unknown")[:10]
    return f"{gpu}, commit {commit}, {r.get('date', '')[:10]}"


def short(label, n=24):
    return label if len(label) <= n else label[: n - 3] + "..."


def bar_chart(matrices, types, value, ylabel, path, title, log=False, hline=None):
    import matplotlib.pyplot as plt
    col = colors(types)
    n, k = len(matrices), max(1, len(types))
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * n * max(1, k / 3) + 2), 5.5))
    for j, t in enumerate(types):
        xs, ys, hatches = [], [], []
        for i, m in enumerate(matrices):
            r = m["results"].get(t)
            v = value(m, r) if r else None
            if v is None:
                continue
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(v)
            hatches.append(r.get("status") == "wrong")
        bars = ax.bar(xs, ys, width, label=t, color=col[t])
        for b, h in zip(bars, hatches):
            if h:
                b.set_hatch("xx")
                b.set_edgecolor("red")
    ax.set_xticks(range(n))
    ax.set_xticklabels([short(m["label"]) for m in matrices], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    if hline is not None:
        ax.axhline(hline, color="black", linewidth=0.8)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, ncol=min(4, k))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def roofline(matrices, types, path, title):
    import matplotlib.pyplot as plt
    col = colors(types)
    markers = "os^vD<>pPX*h"
    fig, ax = plt.subplots(figsize=(8, 6))
    ais, bws = [], []
    for j, t in enumerate(types):
        xs, ys = [], []
        for m in matrices:
            r = m["results"].get(t)
            if not r or r.get("gflops") is None:
                continue
            ai = 2.0 * m["nnz"] / m["traffic_bytes"]
            xs.append(ai)
            ys.append(r["gflops"])
            ais.append(ai)
            if r.get("copy_gbs"):
                bws.append(r["copy_gbs"])
        ax.scatter(xs, ys, label=t, color=col[t], marker=markers[j % len(markers)], s=30, alpha=0.85)
    if ais and bws:
        bw = max(bws)
        lo, hi = min(ais) * 0.8, max(ais) * 1.25
        ax.plot([lo, hi], [bw * lo, bw * hi], color="black", linewidth=1)
        ax.text(hi, bw * hi, f" copy {bw:.0f} GB/s", va="center", fontsize=8)
        ax.set_xlim(lo, hi * 1.6)
    from matplotlib.ticker import FuncFormatter
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(plain)
    ax.tick_params(which="minor", labelsize=7)
    ax.set_xlabel("arithmetic intensity, flop/byte (minimal CSR traffic)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def best_petsc(m):
    vals = [r["gflops"] for r in m["results"].values() if is_petsc(r) and r.get("status") == "ok" and r.get("gflops")]
    return max(vals) if vals else None


def markdown(matrices, types):
    head = "| matrix | nnz | " + " | ".join(types) + " |"
    lines = [head, "|" + "---|" * (len(types) + 2)]
    for m in matrices:
        cells = []
        for t in types:
            r = m["results"].get(t)
            if not r:
                cells.append("-")
            elif r.get("status") == "wrong":
                cells.append("wrong")
            else:
                pct = r.get("pct_copy")
                cells.append(f"{r['gflops']:.3g} ({pct:.0f}%)" if pct is not None else f"{r['gflops']:.3g}")
        lines.append(f"| {m['label']} | {m['nnz'] / 1e6:.1f}M | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--outdir")
    ap.add_argument("--types", help="comma list of types to plot (default: all measured)")
    ap.add_argument("--host", action="store_true", help="keep host results next to GPU ones")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table of GFLOP/s (%% of copy)")
    a = ap.parse_args()
    runs, matrices = load(a.json)
    if not matrices:
        sys.exit("plot.py: no measured matrices in " + ", ".join(a.json))
    any_gpu = any(r.get("where") == "gpu" for m in matrices for r in m["results"].values())
    keep = (lambda r: True) if (a.host or not any_gpu) else (lambda r: r.get("where") == "gpu")
    types = type_order(matrices, keep)
    if a.types:
        want = a.types.split(",")
        types = [t for t in want if t in types]
    if a.markdown:
        print(markdown(matrices, types))
    try:
        import matplotlib
        matplotlib.use("Agg")
    except ImportError:
        sys.exit("plot.py: matplotlib is missing (pip install matplotlib)")
    out = a.outdir or os.path.dirname(os.path.abspath(a.json[0]))
    os.makedirs(out, exist_ok=True)
    title = title_of(runs)

    bar_chart(matrices, types, lambda m, r: r.get("gflops"), "GFLOP/s (2 nnz / median SpMV time)", os.path.join(out, "gflops.png"), "SpMV GFLOP/s by type - " + title)
    roofline(matrices, types, os.path.join(out, "roofline.png"), "SpMV roofline - " + title)

    ours = [t for t in types if t.split(":")[0] not in PETSC_TYPES]
    shown = ours if ours else types  # baseline-only run: how PETSc's types compare with their best

    def speedup(m, r):
        b = best_petsc(m)
        return r["gflops"] / b if b and r.get("gflops") else None

    bar_chart(matrices, shown, speedup, "GFLOP/s / best PETSc type's GFLOP/s", os.path.join(out, "speedup.png"),
              "Speedup over the best PETSc type per matrix - " + title, hline=1.0)

    def setup(m, r):
        v = r.get("setup_spmvs")
        return v if v and v > 0 else None

    def refresh(m, r):
        v = r.get("refresh_spmvs")
        return v if v and v > 0 else None

    bar_chart(matrices, types, setup, "first conversion + first SpMV, in SpMVs", os.path.join(out, "setup.png"),
              "Setup cost in units of one SpMV (log) - " + title, log=True)
    bar_chart(matrices, types, refresh, "values-only refresh, in SpMVs", os.path.join(out, "refresh.png"),
              "Values-only refresh cost in units of one SpMV (log) - " + title, log=True)
    print("plot.py: wrote gflops.png roofline.png speedup.png setup.png refresh.png to " + out, file=sys.stderr)


if __name__ == "__main__":
    main()
