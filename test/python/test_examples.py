"""examples/python against the reference: poisson.py's residual history with each type equals the
reference's (AIJ on the host; aijcusparse with CUDA vectors on a GPU) on the given rank counts, and
compare.py's table has every type with AIJ's product. Prints "ok"/"not ok" per check.

    python3 test/python/test_examples.py [--ranks "1 2"] [--types "evchyb pjds"] [--gpu] [--mpiexec mpiexec]
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--ranks", default="1 2")
ap.add_argument("--types", default="evchyb pjds pellr suraa gpuauto")
ap.add_argument("--gpu", action="store_true")
ap.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", "mpiexec"))
ap.add_argument("--out", default=os.path.join(ROOT, "build", "test-output"))
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)
failed = 0


def check(name, cond, why=""):
    global failed
    failed += not cond
    print(("ok " if cond else "not ok ") + name + (f": {why}" if why and not cond else ""), flush=True)


def run(name, np_, script, opts):
    cmd = [args.mpiexec, "-n", str(np_), sys.executable, os.path.join(ROOT, "examples", "python", script)] + opts
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    with open(os.path.join(args.out, f"python.{name}.log"), "w") as f:
        f.write(" ".join(cmd) + "\n" + p.stdout + p.stderr)
    return p.returncode, p.stdout + p.stderr


def history(out):
    its = re.search(r"(CONVERGED_\w+|DIVERGED_\w+|-?\d+) in (\d+) iterations", out)
    return (its.group(2) if its else None), [float(v) for v in re.findall(r"^residual \d+ (\S+)$", out, re.M)]


vec = ["-vec_type", "cuda"] if args.gpu else []
ref_type = "aijcusparse" if args.gpu else "aij"
for np_ in args.ranks.split():
    base = ["-n", "40", "-history"] + vec
    rc, out = run(f"poisson.np{np_}.{ref_type}", np_, "poisson.py", base + ["-mat_type", ref_type])
    ref_its, ref_hist = history(out)
    check(f"python.poisson.np{np_}.reference", rc == 0 and ref_its and len(ref_hist) == int(ref_its) + 1, out[-400:])
    for t in args.types.split():
        rc, out = run(f"poisson.np{np_}.{t}", np_, "poisson.py", base + ["-mat_type", t])
        its, hist = history(out)
        close = len(hist) == len(ref_hist) and all(abs(a - b) <= 1e-8 * max(abs(b), 1e-300) for a, b in zip(hist, ref_hist))
        check(f"python.poisson.np{np_}.{t} # {its} iterations", rc == 0 and its == ref_its and close,
              f"rc {rc}, {its} vs {ref_its} iterations" + (f"; {out[-400:]}" if rc else ""))
        want = f"type {'mpi' if np_ != '1' else 'seq'}aij{t}"
        check(f"python.poisson.np{np_}.{t}.layout", want in out and re.search(r"^layout .* on (cuda|host): ", out, re.M) is not None, out[-300:])

# an mpi4py program (init with its communicator), where this interpreter has mpi4py
if "2" in args.ranks.split():
    has = subprocess.run([sys.executable, "-c", "import mpi4py"], capture_output=True).returncode == 0
    if has:
        cmd = [args.mpiexec, "-n", "2", sys.executable, os.path.join(ROOT, "test", "python", "mpi4py_check.py")]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        got = re.findall(r"^(ok|not ok) (\S+)", p.stdout, re.M)
        for status, name in got:
            check(f"python.{name}", status == "ok", p.stdout[-300:])
        check("python.mpi4py.ran", p.returncode == 0 and len(got) == 5, (p.stdout + p.stderr)[-400:])
    else:
        print("ok python.mpi4py # SKIP mpi4py is not importable by " + sys.executable)

rc, out = run("compare", 1, "compare.py", ["-n", "60", "-reps", "3", "-types", ",".join(args.types.split())] + vec)
rows = {m.group(1): float(m.group(2)) for m in re.finditer(r"^(\w+) .* (\d\.\d+e[-+]\d+)$", out, re.M) if m.group(1) in [ref_type] + args.types.split()}
check("python.compare.rows", rc == 0 and sorted(rows) == sorted([ref_type] + args.types.split()), out[-400:])
check("python.compare.products_match_aij", rc == 0 and rows and all(d <= 1e-13 for d in rows.values()), str(rows))
print(f"# python examples: {failed} failed")
sys.exit(1 if failed else 0)
