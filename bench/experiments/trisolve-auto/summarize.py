#!/usr/bin/env python3
"""trisolve-auto: the logs of a device call (<dir>/<case>.<name>.log) -> JSON: iterations, convergence,
KSPSolve / SNESSolve / MatSolve / MatMult times (-log_view; <event>_s_from_percent where the time
column says n/a), our symbolic and numeric phases' ms, the trisolve apply's probe residual and
auto's choice (-ksp_view), ksp_matrix's line; ratios against the case's aijcusparse and exact runs.
usage: summarize.py <logdir> <out.json> <commit> <tool>"""
import json, os, re, subprocess, sys

d, out, commit, tool = sys.argv[1:5]
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().splitlines()
except OSError:
    gpu = []
runs = []
for f in sorted(os.listdir(d)):
    if not f.endswith(".log"):
        continue
    case, name = f[:-4].split(".", 1)
    text = open(os.path.join(d, f), errors="replace").read()
    r = {"case": case, "name": name}
    its = [int(x) for x in re.findall(r"Linear solve (?:converged|did not converge) due to \S+ iterations (\d+)", text)]
    m = re.search(r"ksp_matrix: \S+ n (\d+) nnz (\d+) its (\d+) reason (\S+) relres (\S+)", text)
    if m:
        its = [int(m.group(3))]
        r.update(n=int(m.group(1)), nnz=int(m.group(2)), reason=m.group(4), relres=float(m.group(5)))
    diverged = "DIVERGED" in text or "did not converge" in text or (m and not m.group(4).startswith("CONVERGED"))
    r["converged"] = bool(its) and not diverged and "PETSC ERROR" not in text
    r["error"] = "PETSC ERROR" in text
    r["ksp_its"] = sum(its)
    r["solves"] = len(its)
    m = re.search(r"^Time \(sec\):\s+(\S+)", text, re.M)
    total = float(m.group(1)) if m else None
    for line in text.splitlines():
        f_ = line.split()
        if len(f_) > 3 and f_[0] in ("KSPSolve", "SNESSolve", "MatSolve", "MatMult", "MatLUFactorNum", "MatCholFctrNum", "PCSetUp", "PCApply"):
            r[f_[0] + "_count"] = int(f_[1])
            try:
                r[f_[0] + "_s"] = float(f_[3])
            except ValueError: # n/a without -log_view_gpu_time: the whole-percent %T column times the run's time
                if total and len(f_) > 10 and f_[10].isdigit():
                    r[f_[0] + "_s_from_percent"] = round(int(f_[10]) * total / 100, 3)
        if len(f_) > 1 and f_[0] in ("VecCUDACopyTo", "VecCUDACopyFrom"):
            r[f_[0]] = int(f_[1])
    m = re.findall(r"probe residual: \|\|b - LU x\|\| / \|\|b\|\| = (\S+)", text)
    if m:
        r["probe_residual"] = float(m[-1])
    m = re.findall(r"auto: (the sweeps below|cuSPARSE's triangular solves)", text)
    if m:
        r["auto_choice"] = "sweeps" if m[-1].startswith("the sweeps") else "exact"
    m = re.search(r"predicted solve time of the sweeps (\S+) of the exact solves' \S+ margin \S+; per GMRES iteration on a probe the residual falls to (\S+) with the sweeps, (\S+) with the exact solves, in (\S+) ms, (\S+) ms; measured in (\S+) ms\)", text)
    if m:
        keys = ("auto_predicted_ratio", "auto_rate_sweeps", "auto_rate_exact", "auto_iteration_sweeps_ms", "auto_iteration_exact_ms", "auto_measure_ms")
        for k, v in zip(keys, m.groups()):
            try:
                r[k] = float(v.rstrip(","))
            except ValueError:
                r[k] = v
    m = re.search(r"apply cost: ([0-9.]+) products of A", text)
    if m:
        r["apply_cost_products_of_A"] = float(m.group(1))
    m = re.search(r"symbolic phase: ([0-9.]+) ms", text)
    if m:
        r["symbolic_ms"] = float(m.group(1))
    m = re.search(r"numeric phases: (\d+), the last ([0-9.]+) ms", text)
    if m:
        r["numeric_ms"] = float(m.group(2))
    if r.get("MatSolve_count") and r.get("MatMult_count") and "MatSolve_s" in r and "MatMult_s" in r:
        r["matsolve_per_call_over_matmult"] = round((r["MatSolve_s"] / r["MatSolve_count"]) / (r["MatMult_s"] / r["MatMult_count"]), 3)
    runs.append(r)
for r in runs:
    for ref in ("aijcusparse", "exact"):
        b = next((x for x in runs if x["case"] == r["case"] and x["name"] == ref), None)
        if not b or b is r:
            continue
        for k in ("KSPSolve_s", "SNESSolve_s"):
            if b.get(k) and r.get(k):
                r[k.split("_")[0] + "_vs_" + ref] = round(b[k] / r[k], 3)
        if b.get("ksp_its"):
            r["its_vs_" + ref] = round(r["ksp_its"] / b["ksp_its"], 3)
json.dump({"tool": tool, "commit": commit, "gpu": gpu[0] if gpu else "none", "runs": runs}, open(out, "w"), indent=1)
for r in runs:
    print(r["case"], r["name"], "conv", int(r["converged"]), "its", r["ksp_its"], "KSP", r.get("KSPSolve_s"), r.get("KSPSolve_vs_aijcusparse"), r.get("KSPSolve_vs_exact"),
          "SNES", r.get("SNESSolve_s"), r.get("SNESSolve_vs_aijcusparse"), "probe", r.get("probe_residual"), r.get("auto_choice", ""), r.get("auto_predicted_ratio", ""), r.get("auto_rate_sweeps", ""), r.get("auto_rate_exact", ""), r.get("auto_iteration_sweeps_ms", ""), r.get("auto_iteration_exact_ms", ""), r.get("auto_measure_ms", ""), "s/m", r.get("matsolve_per_call_over_matmult"))
