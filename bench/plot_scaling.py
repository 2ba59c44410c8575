#!/usr/bin/env python3
"""Strong scaling of the SpMV from bench_spmv JSON files of 1 rank and of N ranks (same binary).

    python3 bench/plot_scaling.py --one A1.json [B1.json ...] --many A2.json [B2.json ...] -o scaling.png [--types evchyb,aijcusparse]

Files of each side are merged (a later file wins for the same matrix and type). For each matrix and
type measured on both sides it plots the speed-up (median product on 1 rank / on N ranks) and prints
a markdown table with the ranks' GPUs (rank_gpus). Needs matplotlib.
"""
import argparse
import json


def load(paths):
    res, gpus = {}, None
    for p in paths:
        d = json.load(open(p))
        gpus = d.get("rank_gpus", gpus)
        for m in d["matrices"]:
            for r in m.get("results", []):
                if r.get("status") != "n/a" and r.get("spmv_median_s"):
                    res[(m["label"], r["type"])] = r
    return res, gpus


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--one", nargs="+", required=True)
    ap.add_argument("--many", nargs="+", required=True)
    ap.add_argument("-o", default="scaling.png")
    ap.add_argument("--types", default="evchyb,aijcusparse", help="labels; ONE@MANY pairs a 1-rank label with an N-rank one (evchyb@evchyb:-mat_gpuformats_halo=ipc)")
    a = ap.parse_args()
    one, _ = load(a.one)
    many, gpus = load(a.many)
    types = a.types.split(",")
    pair = {t: (t.split("@", 1) if "@" in t else (t, t)) for t in types}
    mats = []
    for (m, _) in many:
        if m not in mats and any((m, pair[t][0]) in one and (m, pair[t][1]) in many for t in types):
            mats.append(m)
    print("GPUs of the ranks:", json.dumps(gpus))
    print("| matrix | " + " | ".join(f"{t} 1 / N ranks (us), speed-up" for t in types) + " |")
    print("|---|" + "---|" * len(types))
    sp = {t: [] for t in types}
    for m in mats:
        cells = []
        for t in types:
            k1, k2 = (m, pair[t][0]), (m, pair[t][1])
            if k1 in one and k2 in many:
                t1, t2 = one[k1]["spmv_median_s"], many[k2]["spmv_median_s"]
                sp[t].append(t1 / t2)
                cells.append(f"{1e6 * t1:.0f} / {1e6 * t2:.0f}, {t1 / t2:.2f}x")
            else:
                sp[t].append(float("nan"))
                cells.append("-")
        print(f"| {m} | " + " | ".join(cells) + " |")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(max(8, 0.7 * len(mats)), 4.5))
    w = 0.8 / len(types)
    for i, t in enumerate(types):
        ax.bar([k + i * w for k in range(len(mats))], sp[t], w, label=pair[t][1].replace(":-mat_gpuformats_", " "))
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(2.0, color="gray", lw=0.8, ls="--")
    ax.set_xticks([k + w * (len(types) - 1) / 2 for k in range(len(mats))])
    ax.set_xticklabels(mats, rotation=45, ha="right")
    ax.set_ylabel("SpMV speed-up, N ranks over 1 rank")
    ax.set_title("Strong scaling of the product: one rank per GPU")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    fig.savefig(a.o, dpi=120)
    print("wrote", a.o)


if __name__ == "__main__":
    main()
