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


def sweep(timer, out_dir):
    """Sizes x providers for the families of issue 4; prints ratios, writes sweep.csv and PNG plots."""
    try:
        import triton_peers
    except ImportError as e:  # upstream Triton missing: its columns are left out, and said so
        print(f"sweep: upstream Triton unavailable ({e})")
        triton_peers = None
    points = []  # (family, size label, provider, unit, value)
    torch.backends.cuda.matmul.allow_tf32 = False
    for dtype in (torch.float16, torch.bfloat16):
        name = {torch.float16: "half", torch.bfloat16: "bfloat16"}[dtype]
        kern = tritonc.compile(str(KERNELS / "matmul.tc"),
                               defines={"TYPE": name, "TM": 128, "TN": 128, "TK": 32}, num_warps=8)
        family = f"matmul {name}"
        for size in (1024, 2048, 4096, 8192):
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            flops = 2.0 * size ** 3
            grid = (size // 128, size // 128)
            run = lambda: kern[grid](a, b, c, size, size, size, size, size, size)
            points.append((family, size, "tritonc", "TFLOP/s", flops / timer(run) / 1e12))
            points.append((family, size, "cuBLAS", "TFLOP/s",
                           flops / timer(lambda: torch.matmul(a, b, out=c)) / 1e12))
            if triton_peers:
                points.append((family, size, "triton", "TFLOP/s",
                               flops / timer(lambda: triton_peers.matmul(a, b, c)) / 1e12))
    kern = tritonc.compile(str(KERNELS / "softmax.tc"), defines={"TYPE": "half", "TM": 1, "TN": 1024},
                           num_warps=4)
    for rows, cols in ((4096, 4096), (8192, 8192), (32768, 1024)):
        x = torch.randn(rows, cols, device="cuda", dtype=torch.float16)
        y = torch.empty_like(x)
        moved = 2.0 * x.numel() * x.element_size()
        label = f"{rows}x{cols}"
        run = lambda: kern[(rows,)](x, y, rows, cols, x.stride(0), y.stride(0))
        run()
        err = (y.float() - torch.softmax(x.float(), dim=1)).abs().max().item()
        assert err < 1e-2, f"softmax {label}: max error {err}"
        points.append(("softmax half", label, "tritonc", "GB/s", moved / timer(run) / 1e9))
        points.append(("softmax half", label, "torch", "GB/s",
                       moved / timer(lambda: torch.softmax(x, dim=1)) / 1e9))
        if triton_peers:
            points.append(("softmax half", label, "triton", "GB/s",
                           moved / timer(lambda: triton_peers.softmax(x, y)) / 1e9))
        points.append(("softmax half", label, "copy", "GB/s",
                       moved / timer(lambda: y.copy_(x)) / 1e9))
    for dtype in (torch.float16, torch.float32):
        name = {torch.float16: "half", torch.float32: "float"}[dtype]
        kern = tritonc.compile(str(KERNELS / "transpose.tc"), defines={"TYPE": name, "TM": 64, "TN": 64},
                               num_warps=4)
        for size in (8192, 16384):
            x = torch.randn(size, size, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            moved = 2.0 * x.numel() * x.element_size()
            run = lambda: kern[(size // 64, size // 64)](x, y, size, size, size, size)
            points.append((f"transpose {name}", size, "tritonc", "GB/s", moved / timer(run) / 1e9))
            points.append((f"transpose {name}", size, "copy", "GB/s",
                           moved / timer(lambda: y.copy_(x)) / 1e9))
    with open(out_dir / "sweep.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["family", "size", "provider", "unit", "value"])
        for fam, size, prov, unit, value in points:
            w.writerow([fam, size, prov, unit, f"{value:.2f}"])
    families = sorted({p[0] for p in points})
    for fam in families:
        rows = [p for p in points if p[0] == fam]
        sizes = list(dict.fromkeys(p[1] for p in rows))
        line = f"{fam:16}"
        for size in sizes:
            got = {p[2]: p[4] for p in rows if p[1] == size}
            ref = got.get("cuBLAS") or got.get("copy")
            ratio = f" ({got['tritonc'] / ref:.2f}x)" if ref else ""
            line += f"  {size}: " + " ".join(f"{k}={v:.0f}" for k, v in got.items()) + ratio
        print(line)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("sweep: matplotlib unavailable, no plots")
        return
    for fam in families:
        rows = [p for p in points if p[0] == fam]
        fig, ax = plt.subplots(figsize=(5, 3.5))
        for prov in dict.fromkeys(p[2] for p in rows):
            xs = [str(p[1]) for p in rows if p[2] == prov]
            ax.plot(xs, [p[4] for p in rows if p[2] == prov], marker="o", label=prov)
        ax.set_title(fam)
        ax.set_xlabel("size")
        ax.set_ylabel(rows[0][3])
        ax.legend()
        fig.tight_layout()
        fig.savefig(out_dir / (fam.replace(" ", "_") + ".png"), dpi=100)
        plt.close(fig)


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
    parser.add_argument("--sweep", action="store_true",
                        help="also sweep sizes against cuBLAS, torch and upstream Triton; writes sweep.csv "
                             "and one PNG plot per family")
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
    if args.sweep:
        sweep(timer, out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
