"""tritonc benchmarks on the GPU, next to the peers measured in the same process and run.

    export PYTHONPATH=$(scripts/build-python.sh)
    python3 bench/bench.py [--out DIR] [--quick]

Timing: CUDA events around each launch, median of many timed runs after warm-up, fresh random inputs
(not zeros); the L2 cache is flushed before every timed run by writing a 256 MB buffer. Peers: torch.matmul
(cuBLAS; TF32 off for fp32) and a device-to-device copy of the same bytes (torch's copy_) for the
memory-bound kernels. Prints a table and writes results.csv plus ptxas.txt (registers, spills and shared
memory of the benchmarked kernels from `ptxas -v`) into DIR.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

import tritonc

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"


class Timer:
    def __init__(self, warmup=5, runs=30):
        self.warmup, self.runs = warmup, runs
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")

    def __call__(self, fn):
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(self.runs):
            self.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
        times.sort()
        return times[len(times) // 2] * 1e-3  # seconds


def matmul_kernel(dtype, tm, tn, tk, num_warps):
    name = {torch.float16: "half", torch.float32: "float"}[dtype]
    defines = {"TYPE": name, "TM": tm, "TN": tn, "TK": tk}
    return tritonc.compile(str(KERNELS / "matmul.tc"), defines=defines, num_warps=num_warps), defines


def bench_matmul(timer, size, dtype, config, rows, kernels):
    torch.backends.cuda.matmul.allow_tf32 = False
    m = n = k = size
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    c = torch.empty(m, n, device="cuda", dtype=dtype)
    tm, tn, tk, warps = config
    kern, _ = matmul_kernel(dtype, tm, tn, tk, warps)
    grid = ((m + tm - 1) // tm, (n + tn - 1) // tn)
    run = lambda: kern[grid](a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))
    run()
    ref = torch.matmul(a.float(), b.float())
    err = (c.float() - ref).abs().max().item() / ref.abs().max().item()
    assert err < (2e-2 if dtype == torch.float16 else 1e-4), f"matmul {size} {dtype}: relative error {err}"
    flops = 2.0 * m * n * k
    ours = flops / timer(run) / 1e12
    peer = flops / timer(lambda: torch.matmul(a, b, out=c)) / 1e12
    label = f"matmul {str(dtype).split('.')[-1]} {size}^3 (TM={tm} TN={tn} TK={tk} warps={warps})"
    rows.append((label, "TFLOP/s", ours, "cuBLAS", peer))
    kernels.append((label, kern))


def bench_transpose(timer, size, dtype, config, rows, kernels):
    tm, tn, warps = config
    name = {torch.float16: "half", torch.float32: "float"}[dtype]
    kern = tritonc.compile(str(KERNELS / "transpose.tc"), defines={"TYPE": name, "TM": tm, "TN": tn},
                           num_warps=warps)
    x = torch.randn(size, size, device="cuda", dtype=dtype)
    y = torch.empty(size, size, device="cuda", dtype=dtype)
    grid = ((size + tm - 1) // tm, (size + tn - 1) // tn)
    run = lambda: kern[grid](x, y, size, size, x.stride(0), y.stride(0))
    run()
    assert torch.equal(y, x.t()), "transpose: wrong result"
    moved = 2.0 * x.numel() * x.element_size()
    ours = moved / timer(run) / 1e9
    dst = torch.empty_like(x)
    copy = moved / timer(lambda: dst.copy_(x)) / 1e9
    label = f"transpose {str(dtype).split('.')[-1]} {size}^2 (TM={tm} TN={tn} warps={warps})"
    rows.append((label, "GB/s", ours, "device copy", copy))
    kernels.append((label, kern))


def ptxas_report(out_dir, entries):
    """`ptxas -v` of each benchmarked kernel's PTX (specialized as the benchmark launched it)."""
    lines = []
    for label, kern in entries:
        ptx = kern.variant_ptx(kern.last_specialization) if kern.last_specialization else kern.ptx
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(ptx)
        res = subprocess.run(["ptxas", "-v", f"-arch={kern.arch}", f.name, "-o", os.devnull],
                             capture_output=True, text=True)
        os.unlink(f.name)
        info = [l.split("info    : ", 1)[-1] for l in res.stderr.splitlines()
                if "Used" in l or "spill" in l]
        lines.append(f"{label}: " + "; ".join(s.strip() for s in info) +
                     f"; dynamic shared memory {kern.shared_mem} bytes")
    (out_dir / "ptxas.txt").write_text("\n".join(lines) + "\n")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.environ.get("OUT", "bench-out"))
    parser.add_argument("--quick", action="store_true", help="fewer timed runs")
    args = parser.parse_args()
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    timer = Timer(runs=10 if args.quick else 30)
    torch.manual_seed(0)
    rows, kernels = [], []
    bench_matmul(timer, 4096, torch.float16, (128, 128, 32, 8), rows, kernels)
    bench_matmul(timer, 4096, torch.float32, (64, 64, 16, 4), rows, kernels)
    bench_transpose(timer, 8192, torch.float16, (64, 64, 4), rows, kernels)
    bench_transpose(timer, 8192, torch.float32, (64, 64, 4), rows, kernels)

    props = torch.cuda.get_device_properties(0)
    print(f"device: {props.name}, torch {torch.__version__}, tritonc {tritonc.version()}")
    print(f"{'benchmark':62} {'tritonc':>10} {'peer':>10}  ratio")
    for label, unit, ours, peer_name, peer in rows:
        print(f"{label:62} {ours:10.1f} {peer:10.1f}  {ours / peer:5.2f}x {peer_name} ({unit})")
    with open(out_dir / "results.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["benchmark", "unit", "tritonc", "peer", "peer_value", "ratio"])
        for label, unit, ours, peer_name, peer in rows:
            w.writerow([label, unit, f"{ours:.2f}", peer_name, f"{peer:.2f}", f"{ours / peer:.3f}"])
    # The other main kernels, not timed yet: their generic variant (no argument specialization).
    for name, defines in [("conv.tc", {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}),
                          ("matmul_splitk.tc", {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32, "TZ": 4}),
                          ("softmax.tc", {"TYPE": "half", "TM": 4, "TN": 1024}),
                          ("blocksparse_softmax.tc", {"TYPE": "half", "BLOCK": 16, "TN": 64})]:
        kern = tritonc.compile(str(KERNELS / name), defines=defines, num_warps=4)
        desc = " ".join(f"{k}={v}" for k, v in defines.items())
        kernels.append((f"{name} {desc} warps=4 (generic)", kern))
    for line in ptxas_report(out_dir, kernels):
        print("ptxas:", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
