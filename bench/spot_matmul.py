"""Spot check of matmul.tc configurations against cuBLAS, outside the full sweep.

    export PYTHONPATH=$(scripts/build-python.sh)
    python3 bench/spot_matmul.py --dtype float --sizes 4096,8192 --configs 128x128x16w8s2,64x64x32w4s2

Each configuration is TMxTNxTKwWARPSsSTAGES, with a suffix "c" to fill the operand buffers with cp.async
instead of bulk tensor copies (tma=False), e.g. 128x256x64w8s3c. Same timer as bench.py (bench/common.py):
fresh torch.randn inputs, CUDA events, median of --runs timed runs after warm-up, L2 flushed before each
run; TF32 off for float. The result is checked against torch (relative max error printed) before it is timed.
"""
import argparse
import re
import time
from pathlib import Path

import torch

import tritonc
from common import Timer

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
DTYPES = {"half": torch.float16, "bfloat16": torch.bfloat16, "float": torch.float32}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="half")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--configs", default="128x256x64w8s3")
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = DTYPES[args.dtype]
    timer = Timer(warmup=3, runs=args.runs)
    configs = []
    for text in args.configs.split(","):
        m = re.fullmatch(r"(\d+)x(\d+)x(\d+)w(\d+)s(\d+)(c?)", text)
        if not m:
            ap.error(f"bad configuration {text!r}: expected TMxTNxTKwWARPSsSTAGES[c]")
        configs.append(tuple(int(g) for g in m.groups()[:5]) + (m.group(6) != "c",))
    for size in (int(s) for s in args.sizes.split(",")):
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        ref = (a @ b).float()
        flops = 2.0 * size**3
        print(f"{args.dtype} {size}^3: cuBLAS {flops / timer(lambda: a @ b) / 1e12:.1f} "
              "TFLOP/s", flush=True)
        for tm, tn, tk, warps, stages, tma in configs:
            kern = tritonc.compile(str(KERNELS / "matmul.tc"), num_warps=warps, num_stages=stages,
                                   defines={"TYPE": args.dtype, "TM": tm, "TN": tn, "TK": tk}, tma=tma)
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            run = lambda: kern[((size + tm - 1) // tm, (size + tn - 1) // tn)](a, b, c, size, size, size, size,
                                                                              size, size)
            torch.cuda.synchronize()
            start = time.perf_counter()
            run()  # compiles the specialized variant and loads it (cold with a fresh cache)
            torch.cuda.synchronize()
            first_ms = (time.perf_counter() - start) * 1e3
            err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
            tflops = flops / timer(run) / 1e12
            print(f"  {tm}x{tn}x{tk} w{warps} s{stages}{'' if tma else ' cp.async'}: {tflops:.1f} TFLOP/s (relative error {err:.1e}, first launch {first_ms:.0f} ms)",
                  flush=True)


if __name__ == "__main__":
    main()
