#!/usr/bin/env python3
"""The stencil layout's (DIA's) candidate in a committed model, fitted on its recorded products.

    python3 bench/experiments/partitions/fit_dia.py [-write] [model file ...]

DIA holds only stencil matrices, which gpuformats_calibrate's set had none of until its stencil shape
dropped boundary columns (examples/gpuformats_calibrate.cpp); until a GPU runs that calibration,
this fits DIA from the full-read products the stencil-layout runs measured (bench_spmv type
"evchyb:-mat_dia_symmetric=0": DIA without mirrored reads, as a part of a partition runs it),
by the model's own rule for it (src/model/model.hpp): t = c0 + c1 x rows + c2 x slots, slots =
ndiag x rows, weights 1/t, the other terms 0. Prints the fit and its errors; -write puts the
candidate "dia" into share/gpuformats/models/<gpu>.json (replacing one there) and says so in the
file's note. Model files named on the command line: those only (a model whose calibration timed DIA
itself, as the H100's with-dia calibration, keeps that fit). Standard library only.
"""
import json
import sys

RUNS = {  # model file: the stencil-layout results of that GPU
    "share/gpuformats/models/nvidia-h200.json": ["bench/results/h200/stencil-layout/stencil-suite-and-ex14/bench_spmv_stencil.json",
                                                 "bench/results/h200/stencil-layout/st27-256/bench_spmv_stencil.json"],
    "share/gpuformats/models/nvidia-h100-80gb-hbm3.json": ["bench/results/h100/stencil-layout/bench_spmv_stencil.json"],
}
DIA_TYPE = "evchyb:-mat_dia_symmetric=0"


def ndiag(spec):
    name = spec.split(":")[0]
    return {"stencil3d7": 7, "stencil7": 7, "convdiff3d": 7, "stencil27": 27, "stencil3d27": 27, "stencil2d5": 5}[name]


def solve(G, h):
    n = len(h)
    M = [G[i][:] + [h[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c:
                f = M[r][c] / M[c][c]
                M[r] = [M[r][k] - f * M[c][k] for k in range(n + 1)]
    return [M[i][n] / M[i][i] for i in range(n)]


def fit(samples):
    scale = [1.0, 1e-7, 1e-8]  # the columns differ by 10^8
    X = [[1.0 * scale[0], rows * scale[1], rows * nd * scale[2]] for rows, nd, _ in samples]
    y = [t for _, _, t in samples]
    G = [[sum(X[i][a] * X[i][b] / y[i] ** 2 for i in range(len(y))) for b in range(3)] for a in range(3)]
    h = [sum(X[i][a] * y[i] / y[i] ** 2 for i in range(len(y))) for a in range(3)]
    c = [v * s for v, s in zip(solve(G, h), scale)]
    if min(c) < 0:
        sys.exit(f"fit_dia: a negative coefficient {c}: the samples do not determine the fit")
    err = [(c[0] + c[1] * rows + c[2] * rows * nd - t) / t for rows, nd, t in samples]
    return c, err


def main():
    write = "-write" in sys.argv[1:]
    named = [a for a in sys.argv[1:] if a != "-write"]
    for model_file, runs in RUNS.items():
        if named and model_file not in named:
            continue
        samples, labels = [], []
        for f in runs:
            for m in json.load(open(f))["matrices"]:
                for r in m["results"]:
                    if r["type"] == DIA_TYPE and r.get("status") == "ok":
                        samples.append((m["nrows"], ndiag(m["spec"]), r["spmv_median_s"]))
                        labels.append(m["label"])
        c, err = fit(samples)
        rms = (sum(e * e for e in err) / len(err)) ** 0.5
        print(f"{model_file}: {len(samples)} DIA products; c0 {c[0]:.4g} s, c1 {c[1]:.4g} s/row, c2 {c[2]:.4g} s/slot; "
              f"rms {100 * rms:.2f}%, max {100 * max(abs(e) for e in err):.2f}%")
        for l, (rows, nd, t), e in zip(labels, samples, err):
            print(f"  {l:20s} rows {rows:9d} ndiag {nd:2d}  {1e6 * t:8.1f} us  fit {100 * e:+.2f}%")
        if write:  # the library's layout of the file (model_file.cpp): one line per candidate
            lines = [l for l in open(model_file).read().split("\n") if '"name": "dia"' not in l]
            end = lines.index("  ]")
            lines[end - 1] = lines[end - 1].rstrip(",") + ","
            num = lambda v: "0" if v == 0 else "%.17g" % v
            lines.insert(end, '    { "name": "dia", "coef": [%s], "samples": %d, "rms_rel_error": %s, "max_rel_error": %s }'
                         % (", ".join(num(v) for v in c + [0] * (len(json.load(open(model_file))["terms"]) - 3)), len(samples), num(rms), num(max(abs(e) for e in err))))
            for k, l in enumerate(lines):
                if l.startswith('  "note": '):
                    note = json.loads(l[len('  "note": '):].rstrip(",")).split("; dia:")[0]
                    note += "; dia: bench/experiments/partitions/fit_dia.py on the full-read DIA products of " + ", ".join(runs)
                    lines[k] = '  "note": ' + json.dumps(note) + ","
            open(model_file, "w").write("\n".join(lines))
            json.load(open(model_file))  # still JSON
            print(f"  wrote the candidate dia into {model_file}")

if __name__ == "__main__":
    main()
