"""Poisson's equation -laplace(u) = 1 on the unit square, zero on the boundary (5-point stencil,
n x n unknowns), assembled from COO arrays and solved by PETSc's KSP on a gpuformats matrix.

    python3 examples/python/poisson.py -n 512 -mat_type evchyb -vec_type cuda
    python3 examples/python/poisson.py -n 512 -mat_type gpuauto -vec_type cuda -ksp_type cg -pc_type jacobi
    mpiexec -n 2 python3 examples/python/poisson.py -mat_type evchyb -vec_type cuda

Every KSP, PC and -mat_gpuformats_* option applies. -history prints each residual norm.
"""
import sys

import gpuformats

PETSc = gpuformats.init(sys.argv)  # petsc4py.init with the plugin loaded
import numpy as np

opts = PETSc.Options()
n = opts.getInt("n", 128)
N = n * n

A = PETSc.Mat().create(PETSc.COMM_WORLD)
A.setSizes(((PETSc.DECIDE, N), (PETSc.DECIDE, N)))
A.setType(PETSc.Mat.Type.AIJ)
A.setFromOptions()  # -mat_type evchyb, gpuauto, aijcusparse, ...
rstart, rend = A.getOwnershipRange()

# This rank's rows: 4 on the diagonal, -1 to each neighbour inside the square.
row = np.arange(rstart, rend, dtype=PETSc.IntType)
i, j = row // n, row % n
rows, cols = [row], [row]
vals = [np.full(row.size, 4.0)]
for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
    inside = (i + di >= 0) & (i + di < n) & (j + dj >= 0) & (j + dj < n)
    rows.append(row[inside])
    cols.append(((i + di) * n + (j + dj))[inside].astype(PETSc.IntType))
    vals.append(np.full(int(inside.sum()), -1.0))
A.setPreallocationCOO(np.concatenate(rows), np.concatenate(cols))
A.setValuesCOO(np.concatenate(vals))  # the layout's values, written on the device for our types

x, b = A.createVecs()
b.set(1.0 / (n + 1) ** 2)
ksp = PETSc.KSP().create(PETSc.COMM_WORLD)
ksp.setOperators(A)
ksp.setType(PETSc.KSP.Type.CG)
ksp.setTolerances(rtol=1e-8)
ksp.setFromOptions()
ksp.setConvergenceHistory()
ksp.solve(b, x)

reasons = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if not k.startswith("_")}
PETSc.Sys.Print(f"type {A.getType()}, {N} unknowns: {reasons.get(ksp.getConvergedReason())} in {ksp.getIterationNumber()} iterations, "
                f"max u = {x.max()[1]:.10f}")
if opts.getBool("history", False):
    for k, r in enumerate(ksp.getConvergenceHistory()):
        PETSc.Sys.Print(f"residual {k} {r:.16e}")
if gpuformats.is_type(A):
    s = gpuformats.statistics(A)["local"]
    PETSc.Sys.Print(f"layout {s['layout']} on {s['backend']}: {s['bytes'] / s['csr_bytes']:.3f}x the bytes of CSR per product")
