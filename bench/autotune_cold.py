"""The first call of an autotuned fp16 matmul in a fresh process with empty caches: tritonc.autotune
over 6 configurations of kernels/matmul.tc against upstream Triton's @triton.autotune over its 6
(bench/triton_peers.py), each in its own subprocess, timed from the call to the result on the
host (compiling every candidate, PTX -> SASS, timing them, the launch). Then the same again in a
second process that reuses the caches (tritonc: no compile, no tuning).

    python3 bench/autotune_cold.py [--size 4096] [--json out.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The six candidates (TM, TN, TK, num_warps, num_stages), also of bench/autotune_split.py.
SHAPES = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3),
          (128, 128, 64, 8, 4), (64, 128, 64, 4, 3)]

# The tritonc side, also run by tests/python/test_gpu_autotune.py. tune_seconds splits the tune
# into the parallel compile (front end, PTX, PTX -> SASS) and the timing of the candidates.
TRITONC = r"""
import json, time, torch, tritonc
size = SIZE
a = torch.randn(size, size, device="cuda", dtype=torch.float16)
b = torch.randn(size, size, device="cuda", dtype=torch.float16)
c = torch.empty(size, size, device="cuda", dtype=torch.float16)
torch.cuda.synchronize()
configs = [tritonc.Config({"TM": tm, "TN": tn, "TK": tk}, num_warps=w, num_stages=s)
           for tm, tn, tk, w, s in SHAPES]
start = time.perf_counter()
tuned = tritonc.autotune(tritonc.kernels_dir() + "/matmul.tc", configs=configs, key=["M", "N", "K"],
                         defines={"TYPE": "half"}, progress=False)
tuned[lambda m: (tritonc.cdiv(m["M"], m["TM"]), tritonc.cdiv(m["N"], m["TN"]))](
    a, b, c, size, size, size, size, size, size)
torch.cuda.synchronize()
seconds = time.perf_counter() - start
ref = a.float() @ b.float()
error = ((c.float() - ref).abs().max() / ref.abs().max()).item()
print(json.dumps({"seconds": seconds, "error": error, "config": tuned.best_config.describe(),
                  "stats": tuned.stats, "phases": tuned.tune_seconds,
                  "cache": tritonc.cache_stats()}))
""".replace("SHAPES", repr(SHAPES))

TRITON = r"""
import sys, time, torch
sys.path.insert(0, HERE)
import triton_peers
size = SIZE
a = torch.randn(size, size, device="cuda", dtype=torch.float16)
b = torch.randn(size, size, device="cuda", dtype=torch.float16)
c = torch.empty(size, size, device="cuda", dtype=torch.float16)
torch.cuda.synchronize()
start = time.perf_counter()
triton_peers.matmul(a, b, c)
torch.cuda.synchronize()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "config": triton_peers.matmul_config(a, b)}))
"""


def run(code, env):
    code = "import json\n" + code
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TRITONC_CACHE_DIR=cache + "/tritonc", TRITON_CACHE_DIR=cache + "/triton")
        tritonc_code = TRITONC.replace("SIZE", str(args.size))
        results["tritonc cold"] = run(tritonc_code, env)
        results["tritonc warm"] = run(tritonc_code, env)
        try:
            triton_code = TRITON.replace("SIZE", str(args.size)).replace("HERE", repr(str(HERE)))
            results["triton cold"] = run(triton_code, env)
            results["triton warm"] = run(triton_code, env)
        except RuntimeError as e:
            results["triton"] = {"error": str(e).strip().splitlines()[-1]}
    for name, r in results.items():
        if "seconds" in r:
            phases = "".join(f", {k} {v * 1e3:.1f} ms" for k, v in r.get("phases", {}).items())
            print(f"{name:14s} {r['seconds'] * 1e3:9.1f} ms  {r.get('config', '')}{phases}")
        else:
            print(f"{name:14s} {r}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
