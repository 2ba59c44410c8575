"""An mpi4py program with our mpi type (run on 2 ranks by test_examples.py): gpuformats.init with
an mpi4py communicator, the distributed product against AIJ's, and the mpi statistics. Rank 0
prints "ok"/"not ok" lines."""
from mpi4py import MPI

import gpuformats

world = MPI.COMM_WORLD.Split(0, MPI.COMM_WORLD.rank)  # congruent to MPI's world, yet another communicator
PETSc = gpuformats.init([], comm=world)  # PETSc's world is then this one, as petsc4py.init(comm=) makes it
import numpy as np

comm = PETSc.COMM_WORLD
lines = []
lines.append(("mpi4py.comm", MPI.Comm.Compare(comm.tompi4py(), world) == MPI.IDENT, "PETSc's world is not the communicator given"))
n = 30
N = n * n
A = PETSc.Mat().createAIJ(((PETSc.DECIDE, N), (PETSc.DECIDE, N)), nnz=(5, 2), comm=comm)
r0, r1 = A.getOwnershipRange()
for r in range(r0, r1):
    i, j = divmod(r, n)
    A.setValue(r, r, 4.0 + 0.01 * r)  # not symmetric in value: a wrong halo shows
    for c, inside in ((r - n, i > 0), (r + n, i < n - 1), (r - 1, j > 0), (r + 1, j < n - 1)):
        if inside:
            A.setValue(r, c, -1.0 - 0.001 * c)
A.assemble()
B = A.convert("evchyb", PETSc.Mat())
x = A.createVecRight()
x.setArray(np.sin(np.arange(r0, r1, dtype=float)))
ya, yb = A.createVecLeft(), B.createVecLeft()
xb = B.createVecRight()
x.copy(xb)
A.mult(x, ya)
B.mult(xb, yb)
local = float(np.max(np.abs(ya.getArray(readonly=True) - yb.getArray(readonly=True)), initial=0.0))
diff = world.allreduce(local, op=MPI.MAX)  # reduced by mpi4py itself
lines.append(("mpi4py.product_matches_aij", diff <= 1e-13, f"max difference {diff}"))
# the product's exchange chosen from Python: our own MPI pattern, the same product
gpuformats.set_halo(B, "mpi")
yb.set(0.0)
B.mult(xb, yb)
local = float(np.max(np.abs(ya.getArray(readonly=True) - yb.getArray(readonly=True)), initial=0.0))
diff = world.allreduce(local, op=MPI.MAX)
path = gpuformats.halo_times(B)["path"]
lines.append(("mpi4py.set_halo_mpi", diff <= 1e-13 and path == "mpi", f"path {path}, max difference {diff}"))
s = gpuformats.statistics(B)  # collective
sizes = world.gather(s["local"]["rows"], root=0)
lines.append(("mpi4py.statistics", s["type"] == "mpiaijevchyb" and "off_process" in s and s["off_process"]["built"] and "halo" in s,
              str({k: s[k] for k in ("type", "halo") if k in s})))
if world.rank == 0:
    lines.append(("mpi4py.rows_cover", sum(sizes) == N, str(sizes)))
    for name, ok, why in lines:
        print(("ok " if ok else "not ok ") + name + (f": {why}" if why and not ok else ""), flush=True)
