#!/usr/bin/env python3
"""Compares a tutorial's output with PETSc's expected output file line by line: the words must be
equal and the numbers agree to a relative 1e-5 (or both below 1e-10 in size: another summation
order changes the last digits of tiny residuals).
usage: compare_out.py ours.log expected.out"""
import re, sys

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def split(line):
    return NUM.sub("#", line).split(), [float(x) for x in NUM.findall(line)]


def main():
    ours = [l for l in open(sys.argv[1]) if l.strip()]
    ref = [l for l in open(sys.argv[2]) if l.strip()]
    if len(ours) != len(ref):
        print(f"{len(ours)} lines, expected {len(ref)}")
        return 1
    for k, (a, b) in enumerate(zip(ours, ref)):
        (wa, na), (wb, nb) = split(a), split(b)
        close = len(na) == len(nb) and all(abs(x - y) <= 1e-5 * max(abs(x), abs(y)) or max(abs(x), abs(y)) < 1e-10 for x, y in zip(na, nb))
        if wa != wb or not close:
            print(f"line {k + 1}: '{a.strip()}' vs expected '{b.strip()}'")
            return 1
    print(f"same as PETSc's {sys.argv[2].split('/src/')[-1]} ({len(ref)} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
