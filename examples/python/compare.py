"""Your matrix through our types and PETSc's own, side by side: build time, product time, bytes,
and the product's difference from AIJ's.

    python3 examples/python/compare.py matrix.mtx -vec_type cuda        # a Matrix Market file
    python3 examples/python/compare.py -n 1000 -vec_type cuda           # a 2D Laplacian of n x n
    python3 examples/python/compare.py matrix.mtx -types evchyb,gpuauto -reps 200

The table: the time of the first use (conversion from AIJ and one product: our layout's build,
aijcusparse's upload), of one product (mean of -reps), the speed against the baseline, the bytes a
product reads against CSR's, and the product's largest difference from AIJ's, relative.

With -vec_type cuda the products run on the GPU and the baseline is aijcusparse; without it on the
host (the formats' reference kernels) and the baseline is aij. From Python, compare(csr) takes a
SciPy CSR matrix and returns the rows of the table. One rank.
"""
import sys
import time

import gpuformats

PETSc = gpuformats.init(sys.argv)
import numpy as np


def _product_seconds(A, x, y, reps):
    t = time.perf_counter()
    for _ in range(reps):
        A.mult(x, y)
    y.norm()  # waits for the device
    return (time.perf_counter() - t) / reps


def compare(csr, types=gpuformats.TYPES, reps=100, vec_type=None):
    """Rows (type, layout, first-use s, product s, bytes, max relative difference from AIJ's product)
    for a SciPy CSR matrix: the baseline first, then each type. First use: the conversion from AIJ
    and one product (our build, aijcusparse's upload). A type that refuses the matrix gives its
    message as the layout and None for the numbers."""
    csr = csr.tocsr()
    csr.sort_indices()
    base = "aijcusparse" if vec_type == "cuda" else "aij"
    aij = PETSc.Mat().createAIJ(size=csr.shape, csr=(csr.indptr.astype(PETSc.IntType), csr.indices.astype(PETSc.IntType),
                                                    csr.data.astype(PETSc.ScalarType)), comm=PETSc.COMM_SELF)
    x = aij.createVecRight()
    x.setRandom()
    ref = aij.createVecLeft()
    aij.mult(x, ref)
    scale = max(ref.norm(PETSc.NormType.INFINITY), 1e-300)
    rows = []
    for t in (base,) + tuple(types):
        xv, yv = aij.createVecs()
        if vec_type:
            xv.setType(vec_type), yv.setType(vec_type)
        x.copy(xv)
        t0 = time.perf_counter()
        try:
            A = aij.convert(t, PETSc.Mat()) if t != "aij" else aij  # a new matrix (petsc4py converts in place by default)
            A.mult(xv, yv)
        except PETSc.Error as e:
            rows.append((t, "refused: " + str(e).splitlines()[-1].split("] ", 1)[-1], None, None, None, None))
            continue
        yv.norm()
        first = time.perf_counter() - t0
        sec = _product_seconds(A, xv, yv, reps)
        yv.axpy(-1.0, ref)
        diff = yv.norm(PETSc.NormType.INFINITY) / scale
        layout, nbytes = t, None
        if gpuformats.is_type(A):
            s = gpuformats.statistics(A)["local"]
            layout, nbytes = s["layout"], s["bytes"]
        rows.append((t, layout, first, sec, nbytes, diff))
        if A is not aij:
            A.destroy()
    return rows


def main():
    opts = PETSc.Options()
    files = [a for a in sys.argv[1:] if not a.startswith("-") and a.endswith((".mtx", ".mtx.gz"))]
    try:
        import scipy.io
        import scipy.sparse
    except ImportError:
        sys.exit("compare.py needs SciPy (pip install scipy) to read the matrix")
    if files:
        M, name = scipy.io.mmread(files[0]), files[0]
    else:
        n = opts.getInt("n", 300)
        T = scipy.sparse.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
        M, name = scipy.sparse.kronsum(T, T), f"2D Laplacian {n}x{n}"
    types = tuple(t for t in opts.getString("types", ",".join(gpuformats.TYPES)).split(",") if t)
    vec_type = opts.getString("vec_type", "") or None
    rows = compare(scipy.sparse.csr_matrix(M), types, opts.getInt("reps", 100), vec_type)
    base = rows[0][3]
    print(f"{name}: {M.shape[0]} x {M.shape[1]}, {M.nnz} nonzeros, products on {'the GPU' if vec_type == 'cuda' else 'the host'}")
    print(f"{'type':<12} {'layout':<34} {'first use ms':>12} {'product ms':>11} {'vs ' + rows[0][0]:>15} {'bytes/CSR':>10} {'max rel diff':>13}")
    csr_bytes = 12.0 * M.nnz + 4.0 * (M.shape[0] + 1)
    for t, layout, first, sec, nbytes, diff in rows:
        if sec is None:
            print(f"{t:<12} {layout}")
            continue
        b = f"{nbytes / csr_bytes:.3f}" if nbytes else "-"
        print(f"{t:<12} {layout:<34} {1e3 * first:12.3f} {1e3 * sec:11.4f} {base / sec:14.2f}x {b:>10} {diff:13.2e}")


if __name__ == "__main__":
    main()
