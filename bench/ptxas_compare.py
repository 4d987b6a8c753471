"""PTX -> SASS time of the cold-compile benchmark's tile, our PTX next to upstream Triton's.

    TRITONC=build-py/tools/tritonc/tritonc python3 bench/ptxas_compare.py

Compiles the 128x256x64 fp16 matmul (8 warps, 3 stages) twice: with tritonc (kernels/matmul.tc, sizes
specialized as multiples of 16, as the benchmark launches it) and with Triton (the tutorial matmul of
bench/triton_peers.py, fresh TRITON_CACHE_DIR, timed from the call to the end of its first launch). Then it
times the ptxas command line on each PTX, interleaved, 7 runs per round, two rounds, and prints the median
and the minimum. Needs a GPU (for Triton), torch, triton and ptxas. Writes triton.ptx and tritonc.ptx to
$OUT (default /tmp).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import torch  # noqa: E402

import triton_peers  # noqa: E402

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
TRITONC = os.environ.get("TRITONC", str(ROOT / "build-py/tools/tritonc/tritonc"))


def ptxas_ms(path, runs=7):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([PTXAS, "-arch=sm_90a", str(path), "-o", os.devnull], check=True)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


def main():
    out = Path(os.environ.get("OUT", "/tmp"))
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    start = time.perf_counter()
    compiled = triton_peers._matmul.fn[(m // 128 * (n // 256),)](
        a, b, c, m, n, k, k, 1, n, 1, n, 1, BM=128, BN=256, BK=64, GROUP=8, num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    print(f"Triton cold compile + first launch, 128x256x64 w8 s3: {(time.perf_counter() - start) * 1e3:.1f} ms")
    (out / "triton.ptx").write_text(compiled.asm["ptx"])
    subprocess.run([TRITONC, "compile", str(ROOT / "kernels/matmul.tc"), "-DTYPE=half", "-DTM=128", "-DTN=256",
                    "-DTK=64", "--num-warps=8", "--num-stages=3", "--specialize=DDDDDDDDD", "--emit=ptx",
                    "-o", str(out / "tritonc.ptx")], check=True)
    for name in ("triton", "tritonc", "triton", "tritonc"):
        median, best = ptxas_ms(out / f"{name}.ptx")
        print(f"ptxas {name}.ptx: median {median:.1f} ms, min {best:.1f} ms")


if __name__ == "__main__":
    main()
