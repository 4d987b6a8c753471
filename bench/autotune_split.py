"""Where the cold 6-candidate autotune of bench/autotune_cold.py spends its time, on the GPU: each
part measured in a fresh process with an empty kernel cache, so that nothing is warm.

  1. the tune end to end, split by tritonc.autotune into its parallel compile and the timing
     (again with TRITONC_SASS=driver: PTX -> SASS by the driver's JIT instead of ptxas processes);
  2. per candidate, serially: front end + PTX of the generic variant (which tritonc.compile makes
     and the tune never launches) and of the launched one (every argument a multiple of 16), and
     the launched variant's PTX -> SASS (as a launch loads it: ptxas where found, whose cubin the
     cache keeps, else the driver's JIT);
  3. the host compile of the six candidates serially and in six threads (the GIL is released),
     with the generic variant and without it (lazy, as the tuner compiles them);
  4. PTX -> SASS of the six launched variants serially and in six threads, as a launch loads them
     and by cuModuleLoadData (TRITONC_SASS=driver): whether the driver compiles in parallel;
  5. the same six PTX modules assembled by ptxas processes, serially and all at once, where
     ptxas is found ($TRITONC_PTXAS, PATH, /usr/local/cuda/bin).

    python3 bench/autotune_split.py [--size 4096] [--json out.json]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import autotune_cold  # noqa: E402

# Compiles the candidates (and their launched variants) and reports per-candidate times; MODE
# picks what the process measures.
PARTS = r"""
import concurrent.futures, json, os, sys, time, torch, tritonc
size, mode, ptx_dir = SIZE, MODE, PTX_DIR
a = torch.randn(size, size, device="cuda", dtype=torch.float16)
b = torch.randn(size, size, device="cuda", dtype=torch.float16)
c = torch.empty(size, size, device="cuda", dtype=torch.float16)
args = (a, b, c, size, size, size, size, size, size)
# The driver initialized and one tiny kernel loaded first: start-up is not part of any phase.
warm = tritonc.compile(tritonc.kernels_dir() + "/transpose.tc", defines={"TM": 32, "TN": 32})
warm.load()

def generic(shape, lazy=False):
    tm, tn, tk, w, s = shape
    return tritonc.compile(tritonc.kernels_dir() + "/matmul.tc", num_warps=w, num_stages=s,
                           defines={"TYPE": "half", "TM": tm, "TN": tn, "TK": tk}, lazy=lazy)

def timed(fn, *xs):
    start = time.perf_counter()
    out = fn(*xs)
    return out, time.perf_counter() - start

def run_all(fn, items, parallel):
    start = time.perf_counter()
    if parallel:
        with concurrent.futures.ThreadPoolExecutor(len(items)) as pool:
            out = list(pool.map(fn, items))
    else:
        out = [fn(x) for x in items]
    return out, time.perf_counter() - start

out = {}
if mode == "serial":
    rows = []
    for shape in SHAPES:
        k, generic_s = timed(generic, shape)
        spec = k.specialization(*args)
        _, variant_s = timed(k.variant_ptx, spec)
        _, load_s = timed(k.load, spec)
        rows.append({"shape": shape, "generic": generic_s, "variant": variant_s, "load": load_s,
                     "generic_codegen": k.timings()["codegen"],
                     "variant_codegen": k.timings(spec)["codegen"]})
    out["rows"] = rows
elif mode.startswith("host"):
    def build(shape):
        k = generic(shape, lazy="lazy" in mode)
        k.variant_ptx(k.specialization(*args))
        return k
    _, out["wall"] = run_all(build, SHAPES, mode.endswith("parallel"))
else:  # load-serial / load-parallel: compile everything first, then time the loads
    kernels = [generic(shape) for shape in SHAPES]
    specs = [k.specialization(*args) for k in kernels]
    for i, (k, spec) in enumerate(zip(kernels, specs)):
        ptx = k.variant_ptx(spec)
        if ptx_dir:
            with open(os.path.join(ptx_dir, f"candidate{i}.ptx"), "w") as f:
                f.write(ptx)
    loads, out["wall"] = run_all(lambda i: kernels[i].load(specs[i])["load"], range(len(kernels)),
                                 mode == "load-parallel")
    out["sum"] = sum(loads)
print(json.dumps(out))
"""


def run(code, env):
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def part(mode, size, env, ptx_dir=""):
    with tempfile.TemporaryDirectory() as cache:
        code = (PARTS.replace("SIZE", str(size)).replace("MODE", repr(mode))
                .replace("PTX_DIR", repr(ptx_dir)).replace("SHAPES", repr(autotune_cold.SHAPES)))
        return run(code, dict(env, TRITONC_CACHE_DIR=cache))


def find_ptxas():
    for candidate in (os.environ.get("TRITONC_PTXAS"), shutil.which("ptxas"),
                      "/usr/local/cuda/bin/ptxas"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def ptxas_times(ptxas, files):
    """Seconds to assemble every file for sm_90a, one process after the other and all at once."""
    def command(f):
        return [ptxas, "-arch=sm_90a", str(f), "-o", str(f.with_suffix(".cubin"))]
    start = time.perf_counter()
    for f in files:
        subprocess.run(command(f), check=True, capture_output=True)
    serial = time.perf_counter() - start
    start = time.perf_counter()
    procs = [subprocess.Popen(command(f), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for f in files]
    if any(p.wait() for p in procs):
        raise RuntimeError("ptxas failed")
    return serial, time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--json")
    args = parser.parse_args()
    env = dict(os.environ)
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        tune = autotune_cold.TRITONC.replace("SIZE", str(args.size))
        results["tune"] = run("import json\n" + tune, dict(env, TRITONC_CACHE_DIR=cache))
    ptxas = find_ptxas()
    if ptxas:
        with tempfile.TemporaryDirectory() as cache:
            results["tune with the driver's JIT"] = run("import json\n" + tune, dict(
                env, TRITONC_CACHE_DIR=cache, TRITONC_SASS="driver"))
    for name, t in results.items():
        print(f"1. cold {name} {t['seconds'] * 1e3:.1f} ms: "
              + ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in t["phases"].items())
              + f", the rest (front end for the key, launch) "
              f"{(t['seconds'] - sum(t['phases'].values())) * 1e3:.1f} ms; chose {t['config']}")

    results["serial"] = part("serial", args.size, env)["rows"]
    print("2. per candidate, serially (ms): generic variant (codegen) | launched variant "
          "(codegen) | its PTX -> SASS (driver)")
    for r in results["serial"]:
        ms = {k: v * 1e3 for k, v in r.items() if k != "shape"}
        print(f"   {str(tuple(r['shape'])):22s} {ms['generic']:7.1f} ({ms['generic_codegen']:6.1f})"
              f" | {ms['variant']:6.1f} ({ms['variant_codegen']:5.1f}) | {ms['load']:7.1f}")

    modes = ("host-serial", "host-parallel", "host-lazy-serial", "host-lazy-parallel")
    host = {m: part(m, args.size, env)["wall"] for m in modes}
    results["host"] = host
    print(f"3. host compile of the six, generic + launched variant: serial "
          f"{host['host-serial'] * 1e3:.1f} ms, 6 threads {host['host-parallel'] * 1e3:.1f} ms; "
          f"launched variant only (lazy, as the tuner): serial {host['host-lazy-serial'] * 1e3:.1f}"
          f" ms, 6 threads {host['host-lazy-parallel'] * 1e3:.1f} ms")

    results["load"] = {}
    for route, extra in (("as launched (ptxas where found, cubin cached)", {}),
                         ("cuModuleLoadData (TRITONC_SASS=driver)", {"TRITONC_SASS": "driver"})):
        serial = part("load-serial", args.size, dict(env, **extra))
        parallel = part("load-parallel", args.size, dict(env, **extra))
        results["load"][route] = {"serial": serial, "parallel": parallel}
        print(f"4. PTX -> SASS of the six, {route}: serial {serial['wall'] * 1e3:.1f} ms, "
              f"6 threads {parallel['wall'] * 1e3:.1f} ms wall (each load summed: "
              f"{parallel['sum'] * 1e3:.1f} ms)")

    if ptxas:
        with tempfile.TemporaryDirectory() as ptx_dir:
            part("load-serial", args.size, env, ptx_dir)
            serial, parallel = ptxas_times(ptxas, sorted(Path(ptx_dir).glob("*.ptx")))
        results["ptxas"] = {"path": ptxas, "serial": serial, "parallel": parallel}
        print(f"5. ptxas ({ptxas}) on the six: serial {serial * 1e3:.1f} ms, "
              f"six processes at once {parallel * 1e3:.1f} ms")
    else:
        print("5. ptxas not found: skipped")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
