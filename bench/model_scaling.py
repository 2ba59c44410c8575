#!/usr/bin/env python3
"""Strong scaling of the product to P GPUs, modelled from a 1-rank and a 2-rank bench_spmv run.

    t_P = t_1 / P + c + e_P

- t_1 / P: the local product; measured at P = 2 (`halo_local_s` of a run with
  -mat_gpuformats_halo_measure) it is within a few percent of t_1 / 2.
- c: what a product costs beyond its local part and the exchange it waits for (the off-process
  block's product, launches, events), taken from the 2-rank run: c = t_2 - t_1 / 2 - e_2, and kept
  fixed in P (it does not shrink with the rows).
- e_P: the exchange's exposed time, max(e_2, h_P - t_1 / P): the exchange of row blocks is latency
  bound (h_2 = 45-67 us for 8-64k ghosts a rank on 2 H100, at most twice the peers at P = 4, which
  copy engines serve at once), so h_P = h_2, and it hides while the local product is longer.

Usage: model_scaling.py NP1.json NP2.json [--type evchyb] [--halo LABEL] [--p 4]
The 2-rank run's LABEL (default: the type with `-mat_gpuformats_halo=ipc`) gives t_2; the same type
with `-mat_gpuformats_halo_measure=true` gives h_2 and e_2 where present.
"""
import argparse
import json


def results(path):
    d = json.load(open(path))
    return {(m["label"], r["type"]): r for m in d["matrices"] for r in m.get("results", []) if r.get("spmv_median_s")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("np1")
    ap.add_argument("np2")
    ap.add_argument("--type", default="evchyb")
    ap.add_argument("--halo", default=None, help="the 2-rank label (default TYPE:-mat_gpuformats_halo=ipc)")
    ap.add_argument("--p", type=int, nargs="+", default=[4])
    a = ap.parse_args()
    one, two = results(a.np1), results(a.np2)
    lab2 = a.halo or a.type + ":-mat_gpuformats_halo=ipc"
    meas = lab2 + ":-mat_gpuformats_halo_measure=true"
    print("| matrix | t_1 (us) | t_2 (us) | 2 GPUs | c (us) | h_2 (us) | " + " | ".join(f"t_{p} model (us) | {p} GPUs" for p in a.p) + " |")
    print("|---|---|---|---|---|---|" + "---|---|" * len(a.p))
    for (m, t), r2 in two.items():
        if t != lab2 or (m, a.type) not in one:
            continue
        t1, t2 = one[(m, a.type)]["spmv_median_s"], r2["spmv_median_s"]
        rm = two.get((m, meas), {})
        h2, e2 = rm.get("halo_s", 0.0), rm.get("halo_exposed_s", 0.0)
        c = max(0.0, t2 - t1 / 2 - e2)
        cells = []
        for p in a.p:
            tp = t1 / p + c + max(e2, h2 - t1 / p)
            cells.append(f"{1e6 * tp:.0f} | {t1 / tp:.2f}x")
        print(f"| {m} | {1e6 * t1:.0f} | {1e6 * t2:.0f} | {t1 / t2:.2f}x | {1e6 * c:.0f} | {1e6 * h2:.0f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
