"""gpuformats for petsc4py: load the plugin, and call its C API on a petsc4py ``Mat``.

    import gpuformats
    PETSc = gpuformats.init(sys.argv)   # petsc4py.init(...) with -dll_append <libgpuformats.so>
    A = PETSc.Mat().createAIJ(...); A.setType("evchyb")   # or -mat_type evchyb and A.setFromOptions()
    gpuformats.statistics(A)            # the layout statistics of -mat_view ::ascii_info, as a dict

A gpuformats matrix is an AIJ matrix to petsc4py (``getValuesCSR``, ``setValuesCSR``, ``convert``,
``setPreallocationCOO`` / ``setValuesCOO`` all work). The functions below take a petsc4py ``Mat``
and call the C functions of ``gpuformats.h`` through ctypes; a PETSc error comes back as
``petsc4py.PETSc.Error`` with PETSc's message, a wrong use of this module as ``GPUFormatsError``.
"""

import ctypes
import json
import os
import sys

__all__ = ["GPUFormatsError", "TYPES", "library_path", "init", "is_type", "sync", "get_bytes",
           "last_times", "halo_times", "statistics", "set_backend", "get_backend", "set_halo"]

TYPES = ("evchyb", "pjds", "pellr", "suraa", "gpuauto")  # -mat_type names; seqaij<t> / mpiaij<t> below them
_BACKENDS = ("auto", "host", "cuda")                      # MatGPUFormatsBackend, in its order
_HALOS = ("auto", "nccl", "mpi", "vecscatter", "ipc")            # MatGPUFormatsHalo, in its order
_PETSC_SERIES = "3.26"                                    # the PETSc the plugin is built for

_lib = None     # the plugin, once loaded
_petsc = None   # petsc4py.PETSc, once initialized through init()


class GPUFormatsError(RuntimeError):
    """The plugin or petsc4py is missing or mismatched, or a call was given the wrong object."""


def library_path():
    """The path of libgpuformats.so: $GPUFORMATS_LIB, else the one beside this package (an
    installation: <prefix>/lib/gpuformats/ next to <prefix>/lib/libgpuformats.so), else the
    repository's lib/ (python/gpuformats/ -> lib/)."""
    env = os.environ.get("GPUFORMATS_LIB")
    if env:
        if not os.path.isfile(env):
            raise GPUFormatsError(f"GPUFORMATS_LIB={env} is not a file; point it at libgpuformats.so (build it with `make`)")
        return os.path.abspath(env)
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "libgpuformats.so"), os.path.join(here, "..", "..", "lib", "libgpuformats.so")):
        if os.path.isfile(cand):
            return os.path.normpath(cand)
    raise GPUFormatsError(f"libgpuformats.so not found beside {here}: build it with `make` in the gpuformats "
                          "repository, or set GPUFORMATS_LIB to its path")


def _import_petsc4py():
    try:
        import petsc4py
    except ImportError as e:
        raise GPUFormatsError("petsc4py is not importable: `make python` builds petsc4py 3.26.1 against the PETSc the "
                              "plugin uses, and `make -s pythonpath` prints the PYTHONPATH that finds it") from e
    version = getattr(petsc4py, "__version__", "unknown")
    if not version.startswith(_PETSC_SERIES + "."):
        raise GPUFormatsError(f"petsc4py {version} is not for PETSc {_PETSC_SERIES}, which the plugin is built for: "
                              "use petsc4py built against that PETSc (`make python`)")
    return petsc4py


def _libpetsc_in_process():
    """The PETSc libraries mapped into this process (their real paths)."""
    found = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if os.path.basename(path).startswith("libpetsc.so"):
                    found.add(os.path.realpath(path))
    except OSError:  # no /proc: nothing to compare
        pass
    return found


def _load_plugin(path, petsc4py):
    """Loads the plugin into the process beside petsc4py's PETSc, before PETSc starts, and checks that
    both use one PETSc library."""
    global _lib
    if _lib is not None:
        return _lib
    petsc4py.lib.ImportPETSc(None)  # petsc4py's libpetsc first: the plugin then binds to it
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as e:
        raise GPUFormatsError(f"{path} does not load beside petsc4py (built with PETSc at "
                              f"{petsc4py.get_config().get('PETSC_DIR')}): {e}. Build petsc4py against the PETSc "
                              "the plugin was built with (`make python`)") from e
    petscs = _libpetsc_in_process()
    if len(petscs) > 1:
        raise GPUFormatsError("two PETSc libraries are loaded, petsc4py's and the plugin's: " + ", ".join(sorted(petscs)) +
                              ". Build petsc4py against the PETSc the plugin was built with (`make python`)")
    _declare(lib)
    _lib = lib
    return lib


def _declare(lib):
    c = ctypes
    protos = {
        "GPUFormatsInitializePackage": [],
        "MatGPUFormatsIsType": [c.c_void_p, c.POINTER(c.c_int)],
        "MatGPUFormatsSync": [c.c_void_p],
        "MatGPUFormatsGetBytes": [c.c_void_p, c.POINTER(c.c_int64)],
        "MatGPUFormatsGetLastTimes": [c.c_void_p] + [c.POINTER(c.c_double)] * 4,
        "MatGPUFormatsGetHaloTimes": [c.c_void_p, c.POINTER(c.c_int), c.POINTER(c.c_int32)] + [c.POINTER(c.c_double)] * 3,
        "MatGPUFormatsGetStatistics": [c.c_void_p, c.POINTER(c.c_char_p)],
        "MatGPUFormatsSetBackend": [c.c_void_p, c.c_int],
        "MatGPUFormatsGetBackend": [c.c_void_p, c.POINTER(c.c_int)],
        "MatGPUFormatsSetHalo": [c.c_void_p, c.c_int],
        "PetscPushErrorHandler": [c.c_void_p, c.c_void_p],  # from libpetsc, through the plugin's link
        "PetscPopErrorHandler": [],
    }
    for name, args in protos.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, c.c_int


def init(args=None, comm=None):
    """Initializes PETSc through petsc4py with the plugin loaded (-dll_append), and returns
    petsc4py.PETSc. ``args`` and ``comm`` are petsc4py.init's: the command line (a list such as
    sys.argv, or a string) and the MPI communicator. Where PETSc is already initialized, the plugin
    is loaded and registered now instead (GPUFormatsInitializePackage)."""
    global _petsc
    path = library_path()
    petsc4py = _import_petsc4py()
    import petsc4py.lib
    already = "petsc4py.PETSc" in sys.modules and sys.modules["petsc4py.PETSc"].Sys.isInitialized()
    _load_plugin(path, petsc4py)
    if not already:
        if isinstance(args, str):
            import shlex
            args = shlex.split(args)
        petsc4py.init(petsc4py.lib.getInitArgs(list(args or [])) + ["-dll_append", path], comm=comm)
    from petsc4py import PETSc
    if PETSc.IntType().itemsize != 4 or PETSc.ScalarType().dtype.kind != "f" or PETSc.RealType().itemsize != 8:
        raise GPUFormatsError("the plugin needs PETSc with 32-bit PetscInt and real double scalars; this petsc4py's "
                              f"PETSc has {PETSc.IntType().dtype}, {PETSc.ScalarType().dtype}")
    _petsc = PETSc
    if already:  # -dll_append comes too late: register the types now
        _call("GPUFormatsInitializePackage")
    return PETSc


_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


def _call(name, *args):
    """Calls a C function of the plugin; a PETSc error raises petsc4py.PETSc.Error with PETSc's
    traceback and message, as petsc4py's own calls do."""
    if _lib is None or _petsc is None:
        raise GPUFormatsError("call gpuformats.init() first: it loads the plugin and starts PETSc")
    lines = []

    def handler(comm, line, func, file, n, p, mess, ctx):
        lines.insert(0, f"{(func or b'?').decode()}() at {(file or b'?').decode()}:{line}")
        if mess and p == 0:  # PETSC_ERROR_INITIAL: where the error was raised, with its message
            lines.append(mess.decode(errors="replace"))
        return n

    cb = _ERROR_HANDLER(handler)
    _lib.PetscPushErrorHandler(ctypes.cast(cb, ctypes.c_void_p), None)
    try:
        ierr = getattr(_lib, name)(*args)
    finally:
        _lib.PetscPopErrorHandler()
    if ierr:
        err = _petsc.Error(ierr)
        err._traceback[:] = lines
        raise err


def _handle(A, what):
    if _petsc is None:
        raise GPUFormatsError("call gpuformats.init() first: it loads the plugin and starts PETSc")
    if not isinstance(A, _petsc.Mat):
        raise GPUFormatsError(f"gpuformats.{what} takes a petsc4py Mat, not {type(A).__name__}")
    if not A.handle:
        raise GPUFormatsError(f"gpuformats.{what}: the Mat is not created (or destroyed)")
    return ctypes.c_void_p(A.handle)


def is_type(A):
    """Whether A is of a gpuformats type (any format, seq or mpi): MatGPUFormatsIsType."""
    flg = ctypes.c_int()
    _call("MatGPUFormatsIsType", _handle(A, "is_type"), ctypes.byref(flg))
    return bool(flg.value)


def _ours(A, what):
    h = _handle(A, what)
    if not is_type(A):
        raise GPUFormatsError(f"gpuformats.{what}: the matrix is of type '{A.getType()}', not a gpuformats type "
                              f"({', '.join(TYPES)}; A.setType('evchyb') or A.convert('evchyb'))")
    return h


def sync(A):
    """Brings the layout up to date with the AIJ values now, as the next product would (collective)."""
    _call("MatGPUFormatsSync", _ours(A, "sync"))


def get_bytes(A):
    """Bytes one product reads from the stored layout(s) on this rank."""
    b = ctypes.c_int64()
    _call("MatGPUFormatsGetBytes", _ours(A, "get_bytes"), ctypes.byref(b))
    return b.value


def last_times(A):
    """Seconds of the last build and values-only refresh on this rank, as a dict of build_upload,
    build_device, refresh_upload, refresh_device; None where not measured (host backend, none yet)."""
    t = [ctypes.c_double() for _ in range(4)]
    _call("MatGPUFormatsGetLastTimes", _ours(A, "last_times"), *[ctypes.byref(x) for x in t])
    keys = ("build_upload", "build_device", "refresh_upload", "refresh_device")
    return {k: (None if x.value < 0 else x.value) for k, x in zip(keys, t)}


def halo_times(A):
    """An mpi type's halo exchange on this rank: path, products measured, and the seconds of the
    halo, the local product and the exposed wait (-mat_gpuformats_halo_measure)."""
    used, n = ctypes.c_int(), ctypes.c_int32()
    t = [ctypes.c_double() for _ in range(3)]
    _call("MatGPUFormatsGetHaloTimes", _ours(A, "halo_times"), ctypes.byref(used), ctypes.byref(n), *[ctypes.byref(x) for x in t])
    return {"path": _HALOS[used.value], "products": n.value, "halo_s": t[0].value, "local_s": t[1].value, "exposed_s": t[2].value}


def statistics(A):
    """The layout statistics of -mat_view ::ascii_info on this rank, as a dict (collective: the
    layout is brought up to date first). MatGPUFormatsGetStatistics's man page lists the keys."""
    s = ctypes.c_char_p()
    _call("MatGPUFormatsGetStatistics", _ours(A, "statistics"), ctypes.byref(s))
    return json.loads(s.value.decode())


def set_backend(A, backend):
    """Where A's products run: 'auto', 'host' or 'cuda' (-mat_gpuformats_backend)."""
    if backend not in _BACKENDS:
        raise GPUFormatsError(f"gpuformats.set_backend: backend '{backend}' is not one of {', '.join(_BACKENDS)}")
    _call("MatGPUFormatsSetBackend", _ours(A, "set_backend"), _BACKENDS.index(backend))


def get_backend(A):
    """The backend option of A: 'auto', 'host' or 'cuda'."""
    b = ctypes.c_int()
    _call("MatGPUFormatsGetBackend", _ours(A, "get_backend"), ctypes.byref(b))
    return _BACKENDS[b.value]


def set_halo(A, halo):
    """How an mpi type's products gather the ghost values: 'auto', 'nccl', 'mpi', 'vecscatter' or 'ipc'
    (-mat_gpuformats_halo; collective)."""
    if halo not in _HALOS:
        raise GPUFormatsError(f"gpuformats.set_halo: halo '{halo}' is not one of {', '.join(_HALOS)}")
    _call("MatGPUFormatsSetHalo", _ours(A, "set_halo"), _HALOS.index(halo))
