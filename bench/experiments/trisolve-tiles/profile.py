#!/usr/bin/env python3
"""Summarises GPUFORMATS_TILE_PROFILE files (level_solve.cuh's tile kernel): per tile its SM, first
row, ticket time, the start of each of its first 16 segments (levels) and its end, in ns.
profile.py PREFIX [PLANE]: PLANE (rows per grid plane) groups the tiles by their first row's plane."""
import glob, struct, sys, statistics as st
K, S = 20, 16
plane = int(sys.argv[2]) if len(sys.argv) > 2 else 0
for f in sorted(glob.glob(sys.argv[1] + "*.bin")):
    raw = open(f, "rb").read()
    v = struct.unpack(f"{len(raw)//8}Q", raw)
    tiles = [v[i:i + K] for i in range(0, len(v), K)]
    t0 = min(t[2] for t in tiles)
    rows = []
    for t in tiles:
        marks = [m for m in t[3:3 + S + 1] if m]
        rows.append((t[1], t[2], marks))
    span = max(r[2][-1] for r in rows) - t0
    stage = [r[2][0] - r[1] for r in rows]
    lev = [(r[2][-1] - r[2][1]) / (len(r[2]) - 2) for r in rows if len(r[2]) > 2]
    first = [r[2][1] - r[2][0] for r in rows if len(r[2]) > 1]
    q = lambda a: f"mean {st.mean(a)/1e3:.2f} med {st.median(a)/1e3:.2f}" if a else "-"
    print(f"{f.split('/')[-1]}: {len(tiles)} tiles, span {span/1e3:.1f} us; ticket to level 0 {q(stage)}; level 0 {q(first)}; per later level {q(lev)} us")
    if plane:
        groups = {}
        for r in rows:
            groups.setdefault(r[0] // plane, []).append(r)
        for z in sorted(groups)[:3] + sorted(groups)[len(groups)//2:len(groups)//2+1] + sorted(groups)[-2:]:
            g = groups[z]
            lv = [(r[2][-1] - r[2][1]) / (len(r[2]) - 2) for r in g if len(r[2]) > 2]
            print(f"   plane {z}: {len(g)} tiles, level 0 {q([r[2][1]-r[2][0] for r in g if len(r[2])>1])}, per later level {q(lv)} us, first start {(min(r[2][0] for r in g)-t0)/1e3:.1f} last end {(max(r[2][-1] for r in g)-t0)/1e3:.1f} us")
