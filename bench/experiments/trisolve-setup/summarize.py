#!/usr/bin/env python3
"""run.sh's logs -> JSON: per case and solve (aijcusparse, cusparse, levelset, factor_<schedule>),
the iterations, KSPSolve and SNESSolve (-log_view), PCSetUp, its phases and MatSolve / MatMult per
call (-log_view_gpu_time), the symbolic phase's parts and the ILU(0) factorization (-ksp_view).
    summarize.py LOGDIR COMMIT GPU > setup.json"""
import json
import os
import re
import sys


def events(path):
    out = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) > 4 and f[0] in ("KSPSolve", "SNESSolve", "PCSetUp", "MatILUFactorSym", "MatLUFactorNum", "MatSolve", "MatMult", "GFBuild") and f[3] != "n/a":
            try:
                out[f[0]] = (int(f[1]), float(f[3]))
            except ValueError:
                pass
    return out


def main():
    logdir, commit, gpu = sys.argv[1:4]
    runs = {}
    for name in sorted(os.listdir(logdir)):
        m = re.match(r"(.+?)\.(aijcusparse|cusparse|levelset|factor_[a-z]+)(\.gpu)?\.log$", name)
        if not m:
            continue
        case, solve, timed = m.group(1), m.group(2), bool(m.group(3))
        path = os.path.join(logdir, name)
        text = open(path, errors="replace").read()
        r = runs.setdefault((case, solve), {"case": case, "solve": solve})
        its = re.search(r"iterations (\d+)", text)
        ev = events(path)
        if its:
            r["iterations"] = int(its.group(1))
        f = re.findall(r"the ILU\(0\) in M's pattern ([0-9.]+) ms", text)
        if f:  # every numeric phase's ILU(0), ms
            r["factor_ms" + ("_timed" if timed else "")] = [float(x) for x in f]
        s = re.search(r"^\s*ILU\(0\) factorization: (.*)$", text, re.M)
        if s:
            r["factorization"] = s.group(1)
        if not timed:
            for k in ("KSPSolve", "SNESSolve"):
                if k in ev:
                    r[k + "_s"] = ev[k][1]
            continue
        for k in ("PCSetUp", "MatILUFactorSym", "MatLUFactorNum", "GFBuild"):
            if k in ev:
                r[k + "_s"] = ev[k][1]
        for k in ("MatSolve", "MatMult"):
            if k in ev and ev[k][0]:
                r[k + "_per_call_ms"] = 1e3 * ev[k][1] / ev[k][0]
        for key in ("symbolic phase", "setup ms"):
            s = re.search(r"^\s*" + key + r": (.*)$", text, re.M)
            if s:
                r[key.replace(" ", "_")] = s.group(1)
    rows = list(runs.values())
    for r in rows:
        ref = runs.get((r["case"], "aijcusparse"), {})
        for k, name in (("KSPSolve_s", "KSPSolve"), ("SNESSolve_s", "SNESSolve"), ("PCSetUp_s", "PCSetUp"), ("MatSolve_per_call_ms", "MatSolve")):
            if k in r and k in ref and r[k] > 0:
                r["aijcusparse_over_this_" + name] = ref[k] / r[k]
        if "MatSolve_per_call_ms" in r and r.get("MatMult_per_call_ms", 0) > 0:
            r["apply_in_products"] = r["MatSolve_per_call_ms"] / r["MatMult_per_call_ms"]
    json.dump({"experiment": "trisolve-setup", "commit": commit, "gpu": gpu, "runs": rows}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
