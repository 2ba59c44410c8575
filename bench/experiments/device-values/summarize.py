#!/usr/bin/env python3
"""ts ex4 logs (ts4-<variant>.log, -log_view) -> one JSON: per variant the iterations per step and
the events' counts and seconds (n/a where -log_view_gpu_time was off for device events)."""
import json, re, sys, pathlib

EVENTS = ["TSStep", "KSPSolve", "MatMult", "PCApply", "MatAXPY", "MatZeroEntries", "GFEdit", "GFSpMV", "GFBuild", "GFRefresh", "GFToHost", "MatCUSPARSCopyTo", "MatCUSPARSCopyFr"]

def parse(path):
    text = path.read_text(errors="replace")
    out = {"iterations": [int(x) for x in re.findall(r"iterations (\d+)", text)], "events": {}}
    for e in EVENTS:
        m = re.search(r"^%s +(\d+) +[\d.]+ +(\S+)" % re.escape(e), text, re.M)
        if m:
            out["events"][e] = {"count": int(m.group(1)), "seconds": None if m.group(2) == "n/a" else float(m.group(2))}
    return out

folder = pathlib.Path(sys.argv[1])
machine = (folder / "machine.txt").read_text().splitlines() if (folder / "machine.txt").exists() else []
res = {"case": "ts ex4 -m 4000000 -ts_type beuler -ts_max_steps 20 -pc_type jacobi, 1 rank", "machine": machine,
       "variants": {p.stem[len("ts4-"):]: parse(p) for p in sorted(folder.glob("ts4-*.log"))}}
v = res["variants"]
def ratio(a, b, ev="TSStep"):
    try: return round(v[a]["events"][ev]["seconds"] / v[b]["events"][ev]["seconds"], 3)
    except (KeyError, TypeError, ZeroDivisionError): return None
res["ratios"] = {"TSStep aijcusparse/evchyb, -log_view": ratio("dm-aijcusparse", "dm-evchyb"),
                 "TSStep aijcusparse/evchyb, -log_view_gpu_time": ratio("gputime-aijcusparse", "gputime-evchyb"),
                 "KSPSolve aijcusparse/evchyb, -log_view": ratio("dm-aijcusparse", "dm-evchyb", "KSPSolve")}
json.dump(res, sys.stdout, indent=1)
print()
