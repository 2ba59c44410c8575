#!/usr/bin/env python3
"""Per -log_view log of solve_logview.sh: the solve line, KSPSolve's time, the MatMult and
MatSolve counts, and KSPSolve's copies between host and device (-log_view's CpuToGpu and GpuToCpu
columns: where a path leaves the GPU; the scalars of norms and dot products come back as a few
bytes each). Event times of GPU events read "n/a" without -log_view_gpu_time (not used: it
synchronises every event), so KSPSolve's is the time to compare. Standard library only.

    python3 logview_table.py lv-*.log
"""
import re
import sys


def fields(text, name):
    """The fields of an event's line of -log_view's table, None where absent."""
    m = re.search(r"^" + re.escape(name) + r"\s+(\d.*)$", text, re.M)
    return m.group(1).split() if m else None


def main():
    print("| log | solve | KSPSolve (s) | MatMult / MatSolve | KSPSolve's copies to / from the GPU (count, MB) |")
    print("|---|---|---|---|---|")
    for path in sys.argv[1:]:
        text = open(path, errors="replace").read()
        line = re.search(r"^ksp_matrix: .*$", text, re.M)
        solve = re.sub(r"^ksp_matrix: \S+ ", "", line.group(0)) if line else "no solve line"
        ksp, mult, msolve = fields(text, "KSPSolve"), fields(text, "MatMult"), fields(text, "MatSolve")
        t = ksp[2] if ksp else "-"
        copies = f"{ksp[-5]} ({ksp[-4]}) / {ksp[-3]} ({ksp[-2]})" if ksp and len(ksp) > 5 else "-"
        counts = f"{mult[0] if mult else 0} / {msolve[0] if msolve else 0}"
        print(f"| {path.rsplit('/', 1)[-1]} | {solve} | {t} | {counts} | {copies} |")


if __name__ == "__main__":
    main()
