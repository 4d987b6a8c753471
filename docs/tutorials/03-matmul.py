"""Tutorial 3: matrix multiplication. kernels/matmul.tc computes a TM x TN tile of C per program,
accumulating TK-wide slices of A and B with `@`; on sm_90a the loads become bulk tensor copies
feeding wgmma. tritonc.autotune picks the tile per shape.

    python3 docs/tutorials/03-matmul.py [--interpret]

On the interpreter it checks a small float32 product against NumPy in float64; on a GPU it
benchmarks the autotuned fp16 matmul against cuBLAS (torch.matmul) and writes matmul.csv/.png."""
import numpy as np

import tritonc
from common import parse_args, rate


def grid(meta):
    return (tritonc.cdiv(meta["M"], meta["TM"]), tritonc.cdiv(meta["N"], meta["TN"]))


def main():
    args = parse_args(__doc__.splitlines()[0])
    path = tritonc.kernels_dir() + "/matmul.tc"
    k = tritonc.compile(path, defines={"TM": 16, "TN": 16, "TK": 8}, interpret=True)
    m, n, kk = 40, 24, 20
    a = np.random.randn(m, kk).astype(np.float32)
    b = np.random.randn(kk, n).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    k[grid](a, b, c, m, n, kk, kk, n, n)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    print("interpreter: matches float64 NumPy")
    if not args.gpu:
        return
    import torch
    from tritonc.testing import Benchmark, perf_report
    configs = [tritonc.Config({"TM": 128, "TN": 256, "TK": 64}, num_warps=8, num_stages=3),
               tritonc.Config({"TM": 128, "TN": 128, "TK": 64}, num_warps=4, num_stages=4),
               tritonc.Config({"TM": 128, "TN": 128, "TK": 64}, num_warps=8, num_stages=3),
               tritonc.Config({"TM": 64, "TN": 128, "TK": 64}, num_warps=4, num_stages=3)]
    mm = tritonc.autotune(path, configs=configs, key=["M", "N", "K"], defines={"TYPE": "half"})

    @perf_report(Benchmark(x_names=["size"], x_vals=[512 * i for i in range(1, 17)],
                           line_arg="provider", line_vals=["tritonc", "cuBLAS"],
                           line_names=["tritonc", "cuBLAS"], ylabel="TFLOP/s", plot_name="matmul"))
    def bench(size, provider):
        a = torch.randn(size, size, device="cuda", dtype=torch.float16)
        b = torch.randn(size, size, device="cuda", dtype=torch.float16)
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        if provider == "tritonc":
            fn = lambda: mm[grid](a, b, c, size, size, size, size, size, size)
            fn()
            torch.testing.assert_close(c, a @ b, rtol=1e-2, atol=size * 1e-3)
        else:
            fn = lambda: torch.matmul(a, b, out=c)
        return rate(fn, 2 * size ** 3 * 1e-9)

    bench.run(save_path=args.save, print_data=True)


if __name__ == "__main__":
    main()
