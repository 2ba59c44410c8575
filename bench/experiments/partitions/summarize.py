#!/usr/bin/env python3
"""The tables docs/gpuauto.md quotes from bench_partition's JSON (one file per GPU run): per matrix the
best single layout, the partition of the parts' best (in turn, at once), the DP's own partition
measured against its prediction, and the model's error on every candidate and block it timed.
usage: summarize.py partition.json [more.json ...]"""
import json
import sys


def fmt_gain(g):
    return "-" if g is None else f"{g:.3f}x"


def main(paths):
    errors = {}  # candidate -> relative errors of predicted against measured (finite, both)
    for path in paths:
        d = json.load(open(path))
        print(f"\n{d['gpu']} ({path}; model {d['model']}; median of {d['reps']} products)\n")
        print("| matrix | best one layout (us) | parts' best | partition in turn / at once | DP's partition: parts | measured / predicted (us) | DP gain |")
        print("|---|---|---|---|---|---|---|")
        for m in d["matrices"]:
            for c in m["candidates"]:
                for meas, pred in zip(c["measured_us"], c["predicted_us"]):
                    if meas is not None and pred == pred and pred < 1e9:
                        errors.setdefault(c["name"], []).append(pred / meas - 1)
            if "best_whole" not in m:
                print(f"| {m['label']} | every candidate refused a block | | | | | |")
                continue
            dp = m["dp"]
            dp_parts = dp.get("parts", "one block")
            dp_times = f"{dp['measured_us']:.1f} / {dp['predicted_us']:.1f}" if "measured_us" in dp else f"- / {dp['predicted_us']:.1f}"
            print(f"| {m['label']} | {m['best_whole']['name']} {m['best_whole']['us']:.1f} | {' + '.join(m['best_parts']['names'])} "
                  f"| {fmt_gain(m['partition_gain'])} / {fmt_gain(m.get('concurrent_gain'))} | {dp_parts} | {dp_times} | {fmt_gain(dp.get('gain'))} |")
    print("\nThe model on the blocks timed (whole matrices and parts): mean |error|, worst, count")
    for name, e in errors.items():
        a = [abs(x) for x in e]
        print(f"  {name:14s} {100 * sum(a) / len(a):5.1f}%  {100 * max(a):6.1f}%  {len(a)}")


if __name__ == "__main__":
    main(sys.argv[1:])
