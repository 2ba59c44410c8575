#!/usr/bin/env python3
"""Compares two PETSc solver logs (ours vs the reference type): the sequence of SNES/KSP residual
norms and linear iteration counts must agree (norms to a relative 1e-6, or below 1e-9 of the first
norm, where rounding differences of another summation order dominate).
usage: compare_runs.py ours.log reference.log"""
import re, sys

NORM = re.compile(r"(SNES Function norm|KSP Residual norm|residual norm)\s+([0-9.eE+-]+)")
ITS = re.compile(r"(iterations|its)\s*[=:]?\s*(\d+)")


def parse(path):
    norms, its = [], []
    with open(path) as f:
        for line in f:
            m = NORM.search(line)
            if m:
                norms.append(float(m.group(2)))
            elif "converge" in line.lower() or "Number of SNES iterations" in line or "Norm of error" in line:
                m = ITS.search(line)
                if m:
                    its.append(int(m.group(2)))
    return norms, its


def main():
    a, b = parse(sys.argv[1]), parse(sys.argv[2])
    if not a[0] or not b[0]:
        print("no residual norms found in one of the logs")
        return 1
    if a[1] != b[1]:
        print(f"iteration counts differ: {a[1]} vs {b[1]}")
        return 1
    if len(a[0]) != len(b[0]):
        print(f"{len(a[0])} vs {len(b[0])} residual norms")
        return 1
    floor = 1e-9 * max(b[0][0], 1e-300)
    for i, (x, y) in enumerate(zip(*[a[0], b[0]])):
        if abs(x - y) > max(1e-6 * abs(y), floor):
            print(f"norm {i} differs: {x} vs {y}")
            return 1
    print(f"same: {len(a[0])} norms, iterations {a[1]}")
    return 0


sys.exit(main())
