#!/usr/bin/env python3
"""The solver-path matrix from bench/solver_paths.sh's solvers.json: per KSP x PC pair and type,
KSPSolve time over the reference type's (aijcusparse), iterations and host<->device vector copies.

    python3 bench/solver_paths.py solvers.json [more.json ...] [-o OUTDIR] [--ref aijcusparse] [--slack 4]

Several files merge (for the same pair and type the later file wins: a re-run of some pairs).

Writes OUTDIR/paths.md (table and the targets) and, where matplotlib is present,
OUTDIR/paths.png (heat map: pairs x types, reference KSPSolve / type's KSPSolve).
A pair "stays on the device" for the reference when its copies are at most --slack each way; such
a pair fails for a type whose copies exceed the reference's by more than --slack. PCs listed in
"hostpc:" of bench/suites/solver_paths.txt run on the host for every type and are exempt."""
import argparse, json, math, os, re

SUITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "suites", "solver_paths.txt")


def host_pcs():
    with open(SUITE) as f:
        return {w for line in f if line.startswith("hostpc:") for w in line.split()[1:]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("-o", "--out")
    ap.add_argument("--ref", default="aijcusparse")
    ap.add_argument("--slack", type=int, default=4)
    a = ap.parse_args()
    out = a.out or os.path.dirname(os.path.abspath(a.json[0]))
    os.makedirs(out, exist_ok=True)
    files = [json.load(open(f)) for f in a.json]
    data = files[0]
    runs = [r for d in files for r in d["runs"]]
    types = []
    cases = {}
    for r in runs:
        if r["type"] not in types:
            types.append(r["type"])
        cases.setdefault(r["case"], {})[r["type"]] = r
    others = [t for t in types if t != a.ref]
    hostpc = host_pcs()
    lines = [f"# Solver paths: KSPSolve of {a.ref} / KSPSolve of each type (>1: faster than {a.ref})", "",
             f"commits {', '.join(sorted({d.get('commit', '?')[:10] for d in files}))}, GPU {data.get('gpu')}, {data.get('ranks')} rank(s). "
             f"`*`: stopped unconverged at max_it (same count for both = same work). copies = VecCUDACopyTo/From.", "",
             "| pair | " + a.ref + " s (its, copies) | " + " | ".join(others) + " |", "|---" * (2 + len(others)) + "|"]
    ratios = {t: [] for t in others}
    failures = []
    grid = []
    for case, by in cases.items():
        m = re.match(r"[^_]+_([^_]+)_(.+)$", case)
        ksp, pc = (m.group(1), m.group(2)) if m else (case, "")
        ref = by.get(a.ref)
        row = [case]
        if not ref or ref["status"] == "FAILED":
            lines.append(f"| {ksp} / {pc} | failed | " + " | ".join("" for _ in others) + " |")
            continue
        star = "*" if ref["status"] == "diverged" else ""
        lines.append("")
        cells = []
        on_device = pc in hostpc or (ref["vec_copies_to_device"] <= a.slack and ref["vec_copies_from_device"] <= a.slack)
        for t in others:
            r = by.get(t)
            if not r or r["status"] == "FAILED":
                cells.append("FAILED")
                failures.append(f"{case} {t}: run failed")
                row.append(None)
                continue
            ratio = ref["kspsolve_s"] / r["kspsolve_s"] if r["kspsolve_s"] else float("nan")
            more = (r["vec_copies_to_device"] > ref["vec_copies_to_device"] + a.slack or
                    r["vec_copies_from_device"] > ref["vec_copies_from_device"] + a.slack)
            if more and pc not in hostpc:
                failures.append(f"{case} {t}: copies {r['vec_copies_to_device']}/{r['vec_copies_from_device']} vs {ref['vec_copies_to_device']}/{ref['vec_copies_from_device']}")
            if r["ksp_its"] != ref["ksp_its"]:
                failures.append(f"{case} {t}: iterations {r['ksp_its']} vs {ref['ksp_its']}")
            if on_device and pc not in hostpc:
                ratios[t].append((ratio, case))
            cells.append(f"{ratio:.2f}x ({r['ksp_its']}{'*' if r['status'] == 'diverged' else ''}, {r['vec_copies_to_device']}/{r['vec_copies_from_device']})" + (" **copies**" if more and pc not in hostpc else ""))
            row.append(ratio)
        lines[-1] = f"| {ksp} / {pc} | {ref['kspsolve_s']:.4g} ({ref['ksp_its']}{star}, {ref['vec_copies_to_device']}/{ref['vec_copies_from_device']}) | " + " | ".join(cells) + " |"
        grid.append(row)
    lines += ["", "## Targets (pairs on the device for " + a.ref + ", host-only PCs " + ", ".join(sorted(hostpc)) + " left out)", ""]
    for t in others:
        rs = [x for x, _ in ratios[t] if x == x]
        if not rs:
            continue
        gm = math.exp(sum(math.log(x) for x in rs) / len(rs))
        lo = min(ratios[t])
        lines.append(f"- {t}: {len(rs)} pairs, geometric mean {gm:.3f}x (target >= 1.2x: {'met' if gm >= 1.2 else 'missed'}), "
                     f"lowest {lo[0]:.3f}x at {lo[1]} (target >= 0.9x: {'met' if lo[0] >= 0.9 else 'missed'}); "
                     f"below 0.9x: {', '.join(c for x, c in sorted(ratios[t]) if x < 0.9) or 'none'}")
    lines += ["", "## Failures (runs, iterations, copies beyond aijcusparse's + %d)" % a.slack, ""] + (["- " + f for f in failures] or ["none"])
    open(os.path.join(out, "paths.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib not found: no heat map)")
        return 1 if failures else 0
    vals = [[(r if r is not None else float("nan")) for r in row[1:]] for row in grid]
    fig, ax = plt.subplots(figsize=(4.5 + 1.2 * len(others), 0.22 * len(grid) + 1.5))
    im = ax.imshow([[math.log2(v) if v == v and v > 0 else float("nan") for v in row] for row in vals], cmap="RdBu", vmin=-1.5, vmax=1.5, aspect="auto")
    ax.set_yticks(range(len(grid)), [row[0].split("_", 1)[1] for row in grid], fontsize=6)
    ax.set_xticks(range(len(others)), others)
    for i, row in enumerate(vals):
        for j, v in enumerate(row):
            ax.text(j, i, "fail" if v != v else f"{v:.2f}", ha="center", va="center", fontsize=5)
    fig.colorbar(im, label=f"log2({a.ref} KSPSolve / type's)")
    ax.set_title(f"KSPSolve speedup over {a.ref}\n({data.get('gpu')}, {data.get('ranks')} rank)", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "paths.png"), dpi=130)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
