#!/usr/bin/env python3
"""The SpMV model (src/model) against bench_spmv's measurements, and gpuauto against the formats
it chooses from: read from bench_spmv JSON.

    python3 bench/model_report.py spmv.json [more.json ...] [-markdown]

bench_spmv predicts when it has a model (one rank; -model <file>, else the model of its GPU found
by name): per matrix "model" {file, gpu, is_default, strip_rows, strips, predicted_us per
candidate, best_predicted, partition}; per type "predicted_candidate", "predicted_us" and
"prediction_error" = (predicted - measured) / measured, measured the median SpMV time; gpuauto's
result also "gpuauto_choice". Files of the same GPU merge (a suite split over runs reads as one; a
type measured twice on a matrix keeps the later file's result).

Per GPU it prints
  * per format (evchyb, pjds, pellr, suraa, and cusparse_csr as aijcusparse:alg1, else aijcusparse):
    the mean absolute prediction error over the matrices, the largest (and its matrix), the count
    above 25%, and the matrices without a prediction (block layout, n/a, ...);
  * gpuauto per matrix: its choice, its median against the fastest single candidate measured
    (evchyb, pjds, pellr, suraa, aijcusparse:alg1), against aijcusparse (alg1 if run, else plain),
    and its setup (setup_s: conversion + first product) against the setup of the format it chose;
  * the targets: mean |error| <= 10% per format, no matrix above 25%, gpuauto within 5% of the
    fastest single candidate on >= 90% of matrices, never below 0.97x aijcusparse, the choice adds
    <= 10% to the first conversion.
-markdown prints the same as markdown tables (for a results README). Standard library only.
"""
import argparse
import json
import math
import sys

FORMATS = ("evchyb", "pjds", "pellr", "suraa", "cusparse_csr")
CUSPARSE = ("aijcusparse:alg1", "aijcusparse")  # what cusparse_csr is measured as, in preference order
SINGLES = ("evchyb", "pjds", "pellr", "suraa", "aijcusparse:alg1")  # gpuauto's rivals, as run
MAX_MEAN_ERR, MAX_ERR, WITHIN, WITHIN_SHARE, MIN_VS_CUSPARSE, MAX_SETUP_ADD = 0.10, 0.25, 0.05, 0.90, 0.97, 0.10


def gpu_of(d):
    g = d.get("gpu")
    return g["name"] if isinstance(g, dict) and g.get("name") else "no GPU (host run)"


def load(paths):
    """{gpu: {"files": [...], "matrices": {label: matrix with results as {type: result}}, "order": [...]}}"""
    gpus = {}
    for p in paths:
        try:
            d = json.load(open(p))
        except (OSError, ValueError) as e:
            sys.exit(f"model_report.py: {p}: {e}")
        G = gpus.setdefault(gpu_of(d), {"files": [], "matrices": {}, "order": [], "host": d.get("gpu") is None})
        G["files"].append(p)
        for m in d.get("matrices", []):
            if m.get("status") != "ok":
                continue
            if m["label"] not in G["matrices"]:
                G["matrices"][m["label"]] = dict(m, results={})
                G["order"].append(m["label"])
            M = G["matrices"][m["label"]]
            if "model" in m:
                M["model"] = m["model"]
            for r in m.get("results", []):
                M["results"][r["type"]] = r
    return gpus


def ok(m, t):
    r = m["results"].get(t)
    return r if r and r.get("status") == "ok" else None


def cusparse_result(m):
    for t in CUSPARSE:
        if ok(m, t):
            return t, ok(m, t)
    return None, None


def pct(x, signed=False):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    return f"{100 * x:+.1f}%" if signed else f"{100 * x:.1f}%"


def num(x, fmt="{:.1f}"):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def table(headers, rows, md):
    rows = [[str(c) for c in r] for r in rows]
    if md:  # a '|' inside a cell would end it
        headers = [h.replace("|", "\\|") for h in headers]
        rows = [[c.replace("|", "\\|") for c in r] for r in rows]
        out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        out += ["| " + " | ".join(r) + " |" for r in rows]
    else:
        w = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
        out = ["  " + "  ".join(h.ljust(w[i]) for i, h in enumerate(headers))]
        out += ["  " + "  ".join(c.ljust(w[i]) for i, c in enumerate(r)) for r in rows]
    return "\n".join(out)


def errors(G):
    """Per format: [(label, error)] of the matrices with a prediction, and {label: why not}."""
    out = {}
    for f in FORMATS:
        errs, missing = [], {}
        for label in G["order"]:
            m = G["matrices"][label]
            if f == "cusparse_csr":
                t, r = cusparse_result(m)
                r = r or m["results"].get(CUSPARSE[0]) or m["results"].get(CUSPARSE[1])
            else:
                r = m["results"].get(f)
            if r is None:
                continue  # not run on this matrix
            e = r.get("prediction_error")
            if r.get("status") == "ok" and e is not None:
                errs.append((label, e))
            else:
                missing[label] = r.get("prediction_note") or (f"status {r.get('status')}" if r.get("status") != "ok" else "no prediction (no model in this run?)")
        out[f] = (errs, missing)
    return out


def gpuauto_result(m):
    """gpuauto's result: the plain type, else the first variant (gpuauto:-mat_gpuauto_model=...)."""
    if ok(m, "gpuauto"):
        return ok(m, "gpuauto")
    return next((r for r in m["results"].values() if r.get("mat_type") == "gpuauto" and r.get("status") == "ok"), None)


def gpuauto_rows(G):
    rows = []
    for label in G["order"]:
        m = G["matrices"][label]
        a = gpuauto_result(m)
        if not a:
            continue
        t = a["spmv_median_s"]
        singles = [(s, ok(m, s)["spmv_median_s"]) for s in SINGLES if ok(m, s) and ok(m, s).get("spmv_median_s")]
        fast = min(singles, key=lambda x: x[1]) if singles else (None, None)
        ct, cr = cusparse_result(m)
        choice = a.get("gpuauto_choice")
        chosen = None  # the same run's result of the format gpuauto built
        if choice == "cusparse_csr":
            chosen = cr
        elif choice:
            chosen = ok(m, choice)
        setup_add = a["setup_s"] / chosen["setup_s"] - 1 if chosen and chosen.get("setup_s") and a.get("setup_s") else None
        rows.append({
            "label": label, "choice": choice, "predicted_best": m.get("model", {}).get("best_predicted"),
            "t_us": 1e6 * t, "fastest": fast[0], "fastest_us": 1e6 * fast[1] if fast[1] else None,
            "vs_fastest": t / fast[1] if fast[1] else None,
            "cusparse": ct, "vs_cusparse": cr["spmv_median_s"] / t if cr else None,
            "setup_ms": 1e3 * a["setup_s"] if a.get("setup_s") else None,
            "chosen_setup_ms": 1e3 * chosen["setup_s"] if chosen and chosen.get("setup_s") else None,
            "setup_add": setup_add,
            # the choice's own cost inside the build (its view's "the choice took"), a direct measure
            # where two separate conversions differ by more than it in noise
            "choice_add": a["gpuauto_choice_ms"] / 1e3 / chosen["setup_s"] if a.get("gpuauto_choice_ms") is not None and chosen and chosen.get("setup_s") else None,
        })
    return rows


def verdict(met):
    return "n/a" if met is None else ("met" if met else "MISSED")


def report(gpu, G, md):
    out = []
    h = (lambda s: f"### {s}") if md else (lambda s: f"== {s} ==")
    out.append(h(f"{gpu}: {len(G['order'])} matrices from {', '.join(G['files'])}"))
    models = {(m["model"].get("gpu"), m["model"].get("file"), m["model"].get("is_default")) for m in G["matrices"].values() if "model" in m}
    if md:
        out.append("")
    for mg, mf, dflt in sorted(models, key=str):
        note = " [default, uncalibrated]" if dflt else ""
        if not G["host"] and mg and mg.lower() != gpu.lower():
            note += f" [calibrated on another GPU than {gpu}]"
        out.append(f"model: {mg} ({mf or 'default'}){note}")
    if not models:
        out.append("model: none in these files (bench_spmv predicts on one rank, with a GPU or -model)")
    if G["host"]:
        out.append("note: a host run: times are the host backend's, not comparable with the GPU model (no prediction errors)")
    out.append("")

    # --- prediction errors per format ---
    E = errors(G)
    rows, tot_above = [], 0
    for f in FORMATS:
        errs, missing = E[f]
        if not errs and not missing:
            continue
        ab = [abs(e) for _, e in errs]
        mx = max(errs, key=lambda x: abs(x[1])) if errs else None
        above = [l for l, e in errs if abs(e) > MAX_ERR]
        tot_above += len(above)
        rows.append([f + (" (" + "/".join(CUSPARSE) + ")" if f == "cusparse_csr" else ""), len(errs), pct(sum(ab) / len(ab) if ab else None),
                     f"{pct(mx[1], True)} ({mx[0]})" if mx else "n/a", len(above), len(missing)])
    out.append(("**Prediction error** (predicted - measured) / measured, median SpMV" if md else "prediction error, (predicted - measured) / measured of the median SpMV:"))
    out.append("")
    out.append(table(["format", "matrices", "mean |error|", "largest", f"> {100 * MAX_ERR:.0f}%", "no prediction"], rows, md) if rows else "  (no format measured)")
    why, notes = {}, []
    for f in FORMATS:
        for label, w in E[f][1].items():
            why.setdefault(w, []).append(f"{f}/{label}")
    for w, where in sorted(why.items()):
        notes.append(f"no prediction: {w}: {', '.join(where[:8])}{' ...' if len(where) > 8 else ''}")
    above = [(f, l, e) for f in FORMATS for l, e in E[f][0] if abs(e) > MAX_ERR]
    if above:
        notes.append(f"above {100 * MAX_ERR:.0f}%: " + ", ".join(f"{f}/{l} {pct(e, True)}" for f, l, e in above))
    if notes:
        out.append("")
        out += [("- " if md else "  ") + n for n in notes]
    out.append("")

    # --- gpuauto ---
    A = gpuauto_rows(G)
    if A:
        out.append("**gpuauto** against the formats it chooses from (same run)" if md else "gpuauto against the formats it chooses from (same run):")
        out.append("")
        rows = [[r["label"], r["choice"] or "?", r["predicted_best"] or "-", num(r["t_us"]), f"{r['fastest'] or '-'} {num(r['fastest_us'])}",
                 num(r["vs_fastest"], "{:.3f}x"), num(r["vs_cusparse"], "{:.3f}x"), f"{num(r['setup_ms'], '{:.2f}')} / {num(r['chosen_setup_ms'], '{:.2f}')}",
                 pct(r["setup_add"], True)] for r in A]
        out.append(table(["matrix", "choice", "predicted best", "gpuauto us", "fastest single us", "time / fastest", "aijcusparse / gpuauto", "setup ms (auto / chosen)", "setup added"], rows, md))
        out.append("")
    else:
        out.append("gpuauto: not measured in these files")
        out.append("")

    # --- targets ---
    per_fmt = {f: E[f][0] for f in FORMATS if E[f][0]}
    t_rows = []
    for f, errs in per_fmt.items():
        m = sum(abs(e) for _, e in errs) / len(errs)
        t_rows.append([f"mean |error| <= {100 * MAX_MEAN_ERR:.0f}%: {f}", pct(m), verdict(m <= MAX_MEAN_ERR)])
    if not per_fmt:
        t_rows.append([f"mean |error| <= {100 * MAX_MEAN_ERR:.0f}% per format", "no predictions", verdict(None)])
    n_err = sum(len(e) for e in per_fmt.values())
    t_rows.append([f"no matrix above {100 * MAX_ERR:.0f}%", f"{tot_above} of {n_err} above", verdict(tot_above == 0 if n_err else None)])
    vf = [r["vs_fastest"] for r in A if r["vs_fastest"] is not None]
    within = sum(1 for v in vf if v <= 1 + WITHIN)
    t_rows.append([f"gpuauto within {100 * WITHIN:.0f}% of the fastest single on >= {100 * WITHIN_SHARE:.0f}% of matrices",
                   f"{within} of {len(vf)} ({pct(within / len(vf) if vf else None)})", verdict(within >= WITHIN_SHARE * len(vf) if vf else None)])
    vc = [(r["vs_cusparse"], r["label"]) for r in A if r["vs_cusparse"] is not None]
    worst = min(vc) if vc else None
    t_rows.append([f"gpuauto never below {MIN_VS_CUSPARSE:.2f}x aijcusparse", f"lowest {worst[0]:.3f}x ({worst[1]})" if worst else "n/a", verdict(worst[0] >= MIN_VS_CUSPARSE if worst else None)])
    ca = [(r["choice_add"], r["label"]) for r in A if r["choice_add"] is not None]
    sa = [(r["setup_add"], r["label"]) for r in A if r["setup_add"] is not None]
    if ca:  # the choice's own time against the chosen format's conversion
        most = max(ca)
        med = sorted(v for v, _ in sa)[len(sa) // 2] if sa else None
        t_rows.append([f"the choice adds <= {100 * MAX_SETUP_ADD:.0f}% to the first conversion (choice ms / chosen setup_s)",
                       f"largest {pct(most[0], True)} ({most[1]}); setup_s ratio median {pct(med, True)}", verdict(most[0] <= MAX_SETUP_ADD)])
    else:
        most = max(sa) if sa else None
        t_rows.append([f"the choice adds <= {100 * MAX_SETUP_ADD:.0f}% to the first conversion (setup_s)", f"largest {pct(most[0], True)} ({most[1]})" if most else "n/a",
                       verdict(most[0] <= MAX_SETUP_ADD if most else None)])
    out.append("**Targets**" if md else "targets:")
    out.append("")
    out.append(table(["target", "measured", "verdict"], t_rows, md))
    out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="+", help="bench_spmv -json output(s)")
    ap.add_argument("-markdown", "--markdown", action="store_true", help="markdown tables")
    a = ap.parse_args()
    gpus = load(a.json)
    for gpu, G in gpus.items():
        print(report(gpu, G, a.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
