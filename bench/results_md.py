#!/usr/bin/env python3
"""Generate bench/RESULTS.md from the committed result JSON files.

    python3 bench/results_md.py > bench/RESULTS.md

Python 3 standard library only; the output depends only on the files under bench/results/ and
bench/suites/ (no clock, sorted walks), so running it twice gives the same file.

Rules (also printed at the head of each section):
  * a bench_spmv file is a JSON object with "tool": "bench_spmv" and a "matrices" list; anything
    else (other tools, JSON lines, unreadable files) is skipped;
  * the GPU is read from gpu.name ("H100" / "H200" in it); single-GPU sections use 1-rank runs;
  * a result counts when its status is "ok" (or absent) and its median is a positive number;
  * "current" = the newest run (by its "date", then by path) that fits the section's rule;
  * ratios are baseline time / our time (above 1: ours faster), geometric mean over the matrices
    where both were measured, with the min-max beside it.
"""
import json
import math
import os
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(BENCH, "results")
SUITES = os.path.join(BENCH, "suites")
GPUS = ["H100", "H200"]
OURS = ["evchyb", "pjds", "pellr", "suraa", "gpuauto"]


# ---------------------------------------------------------------------------------------- loading
def suite_labels(name):
    labels = []
    with open(os.path.join(SUITES, name)) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                labels.append(line.split()[0])
    return labels


def walk(top):
    out = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for fn in sorted(files):
            out.append(os.path.join(root, fn))
    return sorted(out)


def run_key(rel, d=None):
    """Orders run folders by when they ran: machine.txt's date where it has one, else the JSON's
    "date" (folders are named by subject, not by date, so their names do not order them)."""
    try:
        with open(os.path.join(BENCH, rel, "machine.txt")) as f:
            for line in f:
                if line.startswith("date:"):
                    return line.split(None, 1)[1].strip()
    except OSError:
        pass
    return str((d or {}).get("date") or "")


def newest_run_per_gpu(wanted):
    """{GPU: (folder relative to bench/, JSON)} of the run that ran last (run_key) among the result
    JSONs for which wanted(folder, JSON) holds."""
    newest = {}
    for path, d in result_jsons():
        rel = os.path.relpath(os.path.dirname(path), BENCH).replace(os.sep, "/") + "/"
        kind = next((g for g in GPUS if g in str(d.get("gpu", ""))), None)
        if kind and wanted(rel, d) and (kind not in newest or run_key(rel, d) > run_key(*newest[kind])):
            newest[kind] = (rel, d)
    return newest


def result_jsons():
    """(path, object) of every result JSON that holds an object."""
    for path in walk(RESULTS):
        if not path.endswith(".json"):
            continue
        try:
            with open(path) as f:
                d = json.load(f)
        except (ValueError, OSError, UnicodeDecodeError):
            continue
        if isinstance(d, dict):
            yield path, d


def load_runs():
    runs = []
    for path, d in result_jsons():
        if d.get("tool") != "bench_spmv":
            continue
        mats = d.get("matrices")
        if not isinstance(mats, list):
            continue
        gpu = d.get("gpu")
        name = gpu.get("name", "") if isinstance(gpu, dict) else (gpu if isinstance(gpu, str) else "")
        kind = next((g for g in GPUS if g in (name or "")), None)
        ranks = d.get("mpi_ranks")
        ranks = ranks if isinstance(ranks, int) else 1
        rel = os.path.relpath(path, BENCH)
        parts = rel.split(os.sep)
        # results/<gpu>/<subject>/ (one run), or results/<gpu>/<subject>/<run>/ where a subject holds
        # several runs: the deepest folder up to <run> with a README, else the subject's
        folder = "/".join(parts[:3]) + "/"
        for depth in range(min(len(parts) - 1, 4), 3, -1):
            if os.path.isfile(os.path.join(BENCH, *parts[:depth], "README.md")):
                folder = "/".join(parts[:depth]) + "/"
                break
        matrices = {}
        for m in mats:
            if not isinstance(m, dict) or not isinstance(m.get("label"), str):
                continue
            res = {}
            for r in m.get("results") or []:
                if isinstance(r, dict) and isinstance(r.get("type"), str):
                    res[r["type"]] = r
            matrices[m["label"]] = res
        runs.append({
            "path": rel.replace(os.sep, "/"), "folder": folder.replace(os.sep, "/"),
            "file": os.path.relpath(path, os.path.join(BENCH, folder)).replace(os.sep, "/"),
            "date": str(d.get("date") or ""), "commit": str(d.get("commit") or ""),
            "gpu": kind, "ranks": ranks, "matrices": matrices,
        })
    return runs


def ok_time(r, key="spmv_median_s"):
    if not isinstance(r, dict):
        return None
    if r.get("status", "ok") != "ok":
        return None
    t = r.get(key)
    if isinstance(t, (int, float)) and not isinstance(t, bool) and t > 0 and math.isfinite(t):
        return float(t)
    return None


def best(res, pred, key="spmv_median_s"):
    ts = [ok_time(r, key) for t, r in res.items() if pred(t)]
    ts = [t for t in ts if t is not None]
    return min(ts) if ts else None


def is_aij(t):
    return t == "aijcusparse" or t.startswith("aijcusparse:")


def is_petsc(t):
    return is_aij(t) or t == "sellcuda" or t.startswith("sellcuda:")


def is_ours(t):
    return t.split(":", 1)[0] in OURS


def type_order(types):
    def key(t):
        base = t.split(":", 1)[0]
        if base in OURS:
            return (0, OURS.index(base), t != base, t)
        return (1, 0, False, t)
    return sorted(set(types), key=key)


def newest(runs):
    return max(runs, key=lambda r: (r["date"], r["path"])) if runs else None


# ---------------------------------------------------------------------------------------- figures
def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def ratios(run, labels, base_pred, types, key="spmv_median_s"):
    """{type: [base/ours per matrix]} over labels (None = every matrix of the run)."""
    out = {}
    labs = sorted(run["matrices"]) if labels is None else labels
    for t in types:
        xs = []
        for lab in labs:
            res = run["matrices"].get(lab, {})
            b = best(res, base_pred, key)
            o = ok_time(res.get(t), key)
            if b is not None and o is not None:
                xs.append(b / o)
        out[t] = xs
    return out


def fmt(x):
    return "%.3f" % x


def link(folder, text=None):
    return "[`%s`](%s)" % (text or folder, folder)


def run_cell(run):
    return "%s `%s` (%s, commit %s)" % (link(run["folder"]), run["file"], run["date"][:10],
                                         run["commit"][:7] or "?")


def ratio_row(prefix, t, xs, n_total, run):
    if not xs:
        return "| %s | `%s` | no ok result | | 0 of %d | %s |" % (prefix, t, n_total, run_cell(run))
    return "| %s | `%s` | **%s** | %s-%s | %d of %d | %s |" % (
        prefix, t, fmt(gmean(xs)), fmt(min(xs)), fmt(max(xs)), len(xs), n_total, run_cell(run))


HEAD = "| GPU | type | geometric mean | min-max | matrices | run |\n|---|---|---|---|---|---|"


def suite_section(out, title, intro, runs, labels, base_pred, type_pred):
    out.append("## " + title)
    out.append("")
    out.append(intro)
    out.append("")
    out.append(HEAD)
    for g in GPUS:
        cand = [r for r in runs if r["gpu"] == g and r["ranks"] == 1
                and all(lab in r["matrices"] for lab in labels)
                and any(best(r["matrices"][lab], base_pred) for lab in labels)]
        run = newest(cand)
        if run is None:
            out.append("| %s | | no run | | | |" % g)
            continue
        types = type_order(t for lab in labels for t in run["matrices"][lab] if type_pred(t))
        rs = ratios(run, labels, base_pred, types)
        for t in types:
            out.append(ratio_row(g, t, rs[t], len(labels), run))
    out.append("")


def transpose_section(out, runs):
    out.append("## 5. Transposed products (MatMultTranspose)")
    out.append("")
    out.append("Newest 1-rank bench_spmv run per GPU with `transpose_median_s` (`-transpose`): "
               "geometric mean and min-max over its matrices of (best `aijcusparse` transposed "
               "median / our transposed median).")
    out.append("")
    out.append(HEAD)
    for g in GPUS:
        cand = [r for r in runs if r["gpu"] == g and r["ranks"] == 1 and any(
            ok_time(res.get(t), "transpose_median_s") for res in r["matrices"].values()
            for t in res if is_aij(t))]
        run = newest(cand)
        if run is None:
            out.append("| %s | | no run | | | |" % g)
            continue
        types = type_order(t for res in run["matrices"].values() for t in res
                           if is_ours(t) and ok_time(res[t], "transpose_median_s"))
        rs = ratios(run, None, is_aij, types, "transpose_median_s")
        for t in types:
            out.append(ratio_row(g, t, rs[t], len(run["matrices"]), run))
    out.append("")


def halo_only(t):
    """A label whose variants are all halo options: the same type as its 1-rank run."""
    parts = t.split(":")
    return len(parts) > 1 and all(p.startswith("-mat_gpuformats_halo") for p in parts[1:])


def multigpu_section(out, runs):
    out.append("## 6. Two GPUs (1 rank per GPU)")
    out.append("")
    out.append("Every 2-rank bench_spmv run under `results/*x2/` whose file name has `np2` and a "
               "1-rank twin of the same name with `np1` in the same folder: per type, geometric "
               "mean and min-max over the matrices measured in both of (1-rank median / 2-rank "
               "median), i.e. the speed-up from one GPU to two. `aijcusparse` is PETSc's (`mpiaijcusparse` "
               "on 2 ranks). A 2-rank type with halo options only (`evchyb:-mat_gpuformats_halo=ipc`) "
               "is set against the 1-rank run of its type.")
    out.append("")
    out.append("| GPUs | pair | type | geometric mean | min-max | matrices | run |")
    out.append("|---|---|---|---|---|---|---|")
    by_path = {r["path"]: r for r in runs}
    for g in GPUS:
        pairs = []
        for r in runs:
            top = r["path"].split("/")[1] if r["path"].count("/") >= 1 else ""
            if r["gpu"] != g or r["ranks"] < 2 or not top.endswith("x2"):
                continue
            base = r["path"].rsplit("/", 1)
            if "np2" not in base[1]:
                continue
            twin = by_path.get(base[0] + "/" + base[1].replace("np2", "np1"))
            if twin is None or twin["ranks"] != 1:
                continue
            pairs.append((r, twin))
        if not pairs:
            out.append("| 2x %s | | | no run | | | |" % g)
            continue
        for r2, r1 in sorted(pairs, key=lambda p: p[0]["path"]):
            common = sorted(set(r1["matrices"]) & set(r2["matrices"]))
            types = type_order(t for lab in common for t in r2["matrices"][lab]
                               if (is_ours(t) and (":" not in t or halo_only(t))) or t == "aijcusparse"
                               or (is_aij(t) and ":" in t))
            pair = "`%s` / `%s`" % (r1["file"], r2["file"])
            for t in types:
                xs = []
                for lab in common:
                    a = ok_time(r1["matrices"][lab].get(t if t in r1["matrices"][lab] or not halo_only(t) else t.split(":")[0]))
                    b = ok_time(r2["matrices"][lab].get(t))
                    if a is not None and b is not None:
                        xs.append(a / b)
                cell = link(r2["folder"]) + " (%s, commit %s)" % (r2["date"][:10], r2["commit"][:7])
                if xs:
                    out.append("| 2x %s | %s | `%s` | **%s** | %s-%s | %d of %d | %s |" % (
                        g, pair, t, fmt(gmean(xs)), fmt(min(xs)), fmt(max(xs)), len(xs),
                        len(common), cell))
                else:
                    out.append("| 2x %s | %s | `%s` | no ok pair | | 0 of %d | %s |" % (
                        g, pair, t, len(common), cell))
    out.append("")


def ilu_section(out):
    out.append("## 7. PETSc's default ILU(0), against `aijcusparse`")
    out.append("")
    out.append("Newest `trisolve-setup` run per GPU (`bench/experiments/trisolve-setup/`): ksp ex45 with "
               "PETSc's default PC, evchyb with its default triangular solves (`levelset`), ratios "
               "`aijcusparse` / ours of KSPSolve (`-log_view`), PCSetUp and the time per MatSolve "
               "(`-log_view_gpu_time`), and the iterations of each.")
    out.append("")
    newest_by_gpu = newest_run_per_gpu(lambda rel, d: d.get("experiment") == "trisolve-setup")
    out.append("| GPU | case | KSPSolve | PCSetUp | MatSolve | iterations (aijcusparse / ours) | run |")
    out.append("|---|---|---|---|---|---|---|")
    for kind in GPUS:
        if kind not in newest_by_gpu:
            out.append("| %s | - | not measured | | | | |" % kind)
            continue
        rel, d = newest_by_gpu[kind]
        runs = {(r.get("case"), r.get("solve")): r for r in d.get("runs", []) if isinstance(r, dict)}
        for (case, solve), r in sorted(runs.items()):
            if solve != "levelset":
                continue
            ref = runs.get((case, "aijcusparse"), {})
            out.append("| %s | %s | %s | %s | %s | %s / %s | %s |" % (
                kind, case, fmt(r.get("aijcusparse_over_this_KSPSolve")), fmt(r.get("aijcusparse_over_this_PCSetUp")),
                fmt(r.get("aijcusparse_over_this_MatSolve")), ref.get("iterations", "-"), r.get("iterations", "-"), link(rel, "run")))
    out.append("")
    out.append("Time to solution with the default, newest `trisolve-default` run per GPU "
               "(`bench/experiments/trisolve-exact/run.sh 3`): ratios `aijcusparse` / evchyb (`exact`, "
               "the default `levelset`) of KSPSolve and SNESSolve (`-log_view`), and the iterations of each.")
    out.append("")
    newest_by_gpu = newest_run_per_gpu(lambda rel, d: "/trisolve-default/" in "/" + rel)
    out.append("| GPU | case | KSPSolve | SNESSolve | iterations (aijcusparse / ours) | run |")
    out.append("|---|---|---|---|---|---|")
    for kind in GPUS:
        if kind not in newest_by_gpu:
            out.append("| %s | - | not measured | | | |" % kind)
            continue
        rel, d = newest_by_gpu[kind]
        runs = {(r.get("case"), r.get("name")): r for r in d.get("runs", []) if isinstance(r, dict)}
        for (case, name), r in sorted(runs.items()):
            ref = runs.get((case, "aijcusparse"))
            if name != "exact" or not ref:
                continue
            ratio = lambda k: fmt(ref[k] / r[k]) if ref.get(k) and r.get(k) else "-"
            out.append("| %s | %s | %s | %s | %s / %s | %s |" % (
                kind, case, ratio("KSPSolve_s"), ratio("SNESSolve_s"), ref.get("ksp_its", "-"), r.get("ksp_its", "-"), link(rel, "run")))
    out.append("")


def readme_heading(path):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    except (OSError, UnicodeDecodeError):
        pass
    return "(no heading)"


def other_section(out):
    out.append("## 8. Other results")
    out.append("")
    out.append("Every result folder with a README (`results/<gpu>/<subject>/`, or "
               "`results/<gpu>/<subject>/<run>/` where a subject holds several runs, each named by "
               "what differs) and the README's first heading.")
    out.append("")
    for gpu in sorted(os.listdir(RESULTS)):
        gdir = os.path.join(RESULTS, gpu)
        if not os.path.isdir(gdir):
            continue
        for subject in sorted(os.listdir(gdir)):
            sdir = os.path.join(gdir, subject)
            if not os.path.isdir(sdir):
                continue
            if os.path.isfile(os.path.join(sdir, "README.md")):
                out.append("- %s: %s" % (link("results/%s/%s/" % (gpu, subject)), readme_heading(os.path.join(sdir, "README.md"))))
            for run in sorted(os.listdir(sdir)):
                readme = os.path.join(sdir, run, "README.md")
                if os.path.isfile(readme):
                    folder = "results/%s/%s/%s/" % (gpu, subject, run)
                    out.append("- %s: %s" % (link(folder), readme_heading(readme)))
    out.append("")


def main():
    runs = load_runs()
    default = suite_labels("default.txt")
    block = suite_labels("block.txt")
    stencil = suite_labels("stencil.txt")
    out = [
        "<!-- GENERATED by bench/results_md.py from the JSON under bench/results/: do not edit by hand;",
        "     run `python3 bench/results_md.py > bench/RESULTS.md` and commit both. -->",
        "# Results",
        "",
        "Generated by `bench/results_md.py`; do not edit by hand. The current figure per capability "
        "and GPU, each read from the newest run that fits the section's rule, with a link to the "
        "run folder (its README says what ran and what it showed). Times are bench_spmv medians "
        "(CUDA events, see `bench/README.md`); a ratio above 1 means ours is faster. A result counts "
        "when its status is `ok`; `matrices` says over how many of the set a ratio was taken.",
        "",
    ]
    suite_section(
        out, "1. SpMV, default suite, against the best `aijcusparse`",
        "Newest 1-rank bench_spmv run per GPU whose matrices cover `bench/suites/default.txt` "
        "(%d matrices): geometric mean and min-max over those matrices of (fastest `aijcusparse` "
        "algorithm / type). `sellcuda` is PETSc's, for reference." % len(default),
        runs, default, is_aij, lambda t: not is_aij(t))
    suite_section(
        out, "2. SpMV, default suite, against the best PETSc type",
        "Same runs as 1: (fastest of the `aijcusparse` algorithms and `sellcuda` / type).",
        runs, default, is_petsc, is_ours)
    suite_section(
        out, "3. SpMV, block suite, against the best `aijcusparse`",
        "Newest 1-rank bench_spmv run per GPU whose matrices cover `bench/suites/block.txt` "
        "(%d matrices): (fastest `aijcusparse` algorithm / type). `cusparse:bsr` and "
        "`cusparse:bsrmv` are cuSPARSE's BSR, for reference." % len(block),
        runs, block, is_aij, lambda t: not is_aij(t))
    suite_section(
        out, "4. SpMV, stencil suite, against the best PETSc type",
        "Newest 1-rank bench_spmv run per GPU whose matrices cover `bench/suites/stencil.txt` "
        "(%d matrices): (fastest of `aijcusparse` and `sellcuda` / type). Our types take the stencil "
        "layout (DIA) there; `evchyb:-mat_gpuformats_stencil=off` is our scalar layout." % len(stencil),
        runs, stencil, is_petsc, lambda t: not is_petsc(t))
    transpose_section(out, runs)
    multigpu_section(out, runs)
    ilu_section(out)
    other_section(out)
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
