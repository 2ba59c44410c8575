"""python/gpuformats against the plugin's C API and PETSc's own views, every type, and its error paths.
Prints "ok"/"not ok" per check (test/run.sh counts them). One rank; the backend is the machine's
(host without a GPU, cuda with one)."""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import tempfile

import gpuformats

PETSc = gpuformats.init(sys.argv)
import numpy as np

results = {"ok": 0, "not ok": 0}


def check(name, cond, why=""):
    status = "ok" if cond else "not ok"
    results[status] += 1
    print(f"{status} {name}" + (f": {why}" if why and not cond else ""), flush=True)


def raises(fn, exc, text):
    try:
        fn()
    except exc as e:
        return text in str(e)
    return False


def laplacian(n):
    """The 2D 5-point Laplacian of n x n as a SeqAIJ matrix (a stencil: every type takes it)."""
    N = n * n
    A = PETSc.Mat().createAIJ([N, N], nnz=5, comm=PETSc.COMM_SELF)
    for r in range(N):
        i, j = divmod(r, n)
        A.setValue(r, r, 4.0)
        for c, ok in ((r - n, i > 0), (r + n, i < n - 1), (r - 1, j > 0), (r + 1, j < n - 1)):
            if ok:
                A.setValue(r, c, -1.0)
    A.assemble()
    return A


def ascii_info(A):
    """What -mat_view ::ascii_info prints for A."""
    fd, path = tempfile.mkstemp(suffix=".txt")
    os.close(fd)
    v = PETSc.Viewer().createASCII(path, comm=A.getComm())
    v.pushFormat(PETSc.Viewer.Format.ASCII_INFO)
    A.view(v)
    v.popFormat()
    v.destroy()
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    return text


def product_diff(A, B):
    """max |A x - B x| / max |B x| for a random x."""
    x = A.createVecRight()
    x.setRandom()
    ya, xb, yb = A.createVecLeft(), B.createVecRight(), B.createVecLeft()
    x.copy(xb)
    A.mult(x, ya)
    B.mult(xb, yb)
    a, b = ya.getArray(readonly=True), yb.getArray(readonly=True)
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


aij = laplacian(17)
N, nnz = aij.getSize()[0], int(aij.getInfo()["nz_used"])
check("api.is_type.aij", gpuformats.is_type(aij) is False)

for t in gpuformats.TYPES:
    A = aij.convert(t, PETSc.Mat())  # petsc4py converts in place unless given the result
    check(f"api.is_type.{t}", gpuformats.is_type(A) is True)
    check(f"api.type_name.{t}", A.getType() == "seqaij" + t, A.getType())
    gpuformats.sync(A)
    s = gpuformats.statistics(A)
    loc = s["local"]
    check(f"api.statistics.type.{t}", s["type"] == "seqaij" + t, s["type"])
    check(f"api.statistics.shape.{t}", loc["built"] and loc["rows"] == N and loc["cols"] == N and loc["nonzeros"] == nnz, str(loc))
    check(f"api.statistics.bytes.{t}", loc["bytes"] == gpuformats.get_bytes(A) > 0, f"{loc['bytes']} vs {gpuformats.get_bytes(A)}")
    # the C API's statistics against PETSc's -mat_view ::ascii_info of the same matrix
    info = ascii_info(A)
    m_bytes = re.search(r"(\d+) bytes read per product", info)
    m_counts = re.search(r"(\d+) builds, (\d+) values-only refreshes, (\d+) in-place edits, (\d+) products", info)
    m_nnz = re.search(r"(\d+) nonzeros, (\d+) stored slots", info)
    check(f"api.statistics_match_ascii_info.{t}",
          m_bytes and m_counts and m_nnz and int(m_bytes.group(1)) == loc["bytes"] and int(m_nnz.group(2)) == loc["stored_slots"] and
          [int(g) for g in m_counts.groups()] == [loc["builds"], loc["refreshes"], loc["edits"], loc["products"]],
          f"{info!r} vs {loc}")
    check(f"api.statistics.layout.{t}", isinstance(loc["layout_stats"], dict) and loc["layout"] in info, loc.get("layout", ""))
    times = gpuformats.last_times(A)
    on_cuda = loc["backend"] == "cuda"
    check(f"api.last_times.{t}", set(times) == {"build_upload", "build_device", "refresh_upload", "refresh_device"} and
          ((times["build_upload"] is not None and times["build_upload"] >= 0) if on_cuda else all(v is None for v in times.values())), str(times))
    h = gpuformats.halo_times(A)
    check(f"api.halo_times_seq.{t}", h["path"] == "vecscatter" and h["products"] == 0, str(h))

    # an AIJ matrix to petsc4py: a device edit, then the host read brings the values back
    builds = loc["builds"]
    A.scale(2.0)
    ia, ja, va = A.getValuesCSR()
    ib, jb, vb = aij.getValuesCSR()
    check(f"api.scale_then_getValuesCSR.{t}", np.array_equal(ia, ib) and np.array_equal(ja, jb) and np.allclose(va, 2.0 * vb, rtol=0, atol=0))
    loc = gpuformats.statistics(A)["local"]
    check(f"api.statistics.edit_counts.{t}", loc["edits"] == 1 and loc["builds"] == builds and loc["to_host"] >= (1 if on_cuda else 0), str(loc))
    # new values through setValuesCSR: a values-only refresh at the next use, and the product follows
    A.setValuesCSR(ib, jb, 3.0 * vb)
    A.assemble()
    B = aij.copy()
    B.scale(3.0)
    d = product_diff(B, A)
    loc = gpuformats.statistics(A)["local"]
    check(f"api.setValuesCSR_refresh.{t}", d < 1e-14 and loc["refreshes"] >= 1 and loc["builds"] == builds, f"diff {d}, {loc}")
    C = A.convert("aij", PETSc.Mat())
    check(f"api.convert_back.{t}", C.getType() == "seqaij" and C.equal(B))
    gpuformats.set_backend(A, "host")
    check(f"api.backend.{t}", gpuformats.get_backend(A) == "host" and gpuformats.statistics(A)["backend"] == "host" and
          gpuformats.statistics(A)["local"]["backend"] == "host")
    for M in (A, B, C):
        M.destroy()

# --- errors of this module, and PETSc's errors as petsc4py.PETSc.Error with PETSc's message ---
E = gpuformats.GPUFormatsError
A = aij.convert("evchyb", PETSc.Mat())
check("api.error.not_ours", raises(lambda: gpuformats.statistics(aij), E, "not a gpuformats type"))
check("api.error.not_a_mat", raises(lambda: gpuformats.sync("A"), E, "takes a petsc4py Mat"))
check("api.error.destroyed", raises(lambda: gpuformats.sync(PETSc.Mat()), E, "not created"))
check("api.error.backend_name", raises(lambda: gpuformats.set_backend(A, "gpu"), E, "not one of auto, host, cuda"))
check("api.error.halo_name", raises(lambda: gpuformats.set_halo(A, "shm"), E, "not one of auto, nccl, mpi, vecscatter, ipc"))
# the C function's own check, past the module's
check("api.error.petsc_message",
      raises(lambda: gpuformats._call("MatGPUFormatsGetHaloTimes", ctypes.c_void_p(aij.handle), None, None, None, None, None),
             PETSc.Error, "matrix type seqaij is not a gpuformats type"))
# after a PETSc error from us, petsc4py's own errors still carry their own message
try:
    PETSc.Mat().create(PETSc.COMM_SELF).setType("nosuchtype")
    check("api.error.petsc4py_after", False, "no error")
except PETSc.Error as e:
    check("api.error.petsc4py_after", "nosuchtype" in str(e) and "is not a gpuformats type" not in str(e), str(e))


def child(code, env=None):
    """Runs code in a new interpreter (this one's path and environment); returns (rc, output)."""
    p = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **(env or {})), capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout + p.stderr


rc, out = child("import gpuformats; gpuformats.init([])", {"GPUFORMATS_LIB": "/nonexistent/libgpuformats.so"})
check("api.error.plugin_missing", rc != 0 and "GPUFORMATS_LIB=/nonexistent/libgpuformats.so is not a file" in out, out[-300:])
rc, out = child("import sys; sys.modules['petsc4py'] = None\nimport gpuformats; gpuformats.init([])")
check("api.error.petsc4py_missing", rc != 0 and "petsc4py is not importable" in out and "make python" in out, out[-300:])
rc, out = child("import petsc4py; petsc4py.__version__ = '3.25.0'\nimport gpuformats; gpuformats.init([])")
check("api.error.petsc4py_version", rc != 0 and "petsc4py 3.25.0 is not for PETSc 3.26" in out, out[-300:])
rc, out = child("import gpuformats; gpuformats.sync(None)")
check("api.error.before_init", rc != 0 and "call gpuformats.init() first" in out, out[-300:])
# petsc4py built against another PETSc: its library beside the plugin's (another soname), or one
# that lacks what the plugin needs (undefined symbols): clear errors, not a crash. Simulated with
# two small libraries compiled here.
tmp = tempfile.mkdtemp()
cc = shutil.which("cc") or shutil.which("gcc")
with open(os.path.join(tmp, "e.c"), "w") as f:
    f.write("extern int PetscSymbolNoPETScHas(void);\nint gf_probe(void) { return PetscSymbolNoPETScHas(); }\n")
with open(os.path.join(tmp, "p.c"), "w") as f:
    f.write("int gf_probe(void) { return 0; }\n")
built = cc and subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(tmp, "libpetsc.so.3.25"), os.path.join(tmp, "p.c")], capture_output=True).returncode == 0 \
    and subprocess.run([cc, "-shared", "-fPIC", "-o", os.path.join(tmp, "libbroken.so"), os.path.join(tmp, "e.c")], capture_output=True).returncode == 0
if built:
    rc, out = child(f"import ctypes; ctypes.CDLL({os.path.join(tmp, 'libpetsc.so.3.25')!r})\nimport gpuformats; gpuformats.init([])")
    check("api.error.two_petscs", rc != 0 and "two PETSc libraries are loaded" in out and "libpetsc.so.3.25" in out, out[-300:])
    rc, out = child("import gpuformats; gpuformats.init([])", {"GPUFORMATS_LIB": os.path.join(tmp, "libbroken.so")})
    check("api.error.plugin_does_not_load", rc != 0 and "does not load beside petsc4py" in out and "PetscSymbolNoPETScHas" in out, out[-300:])
else:
    check("api.error.mismatch_libraries_built", False, f"no C compiler ({cc}) to build the simulated libraries")
shutil.rmtree(tmp)
# PETSc started by petsc4py first: init() registers the types then
rc, out = child("import petsc4py; petsc4py.init([]); from petsc4py import PETSc\nimport gpuformats; gpuformats.init()\n"
                "A = PETSc.Mat().createAIJ([4, 4], nnz=1)\n"
                "[A.setValue(i, i, 1.0) for i in range(4)]; A.assemble(); B = A.convert('pjds'); print('type', B.getType(), gpuformats.is_type(B))")
check("api.init_after_petsc4py", rc == 0 and "type seqaijpjds True" in out, out[-300:])

print(f"# python api: {results['ok']} passed, {results['not ok']} failed")
