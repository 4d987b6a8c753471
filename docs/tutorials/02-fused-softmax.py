"""Tutorial 2: fused softmax. kernels/softmax.tc normalizes TM rows per program in registers:
one read and one write of the matrix, where an unfused softmax reads it three times.

    python3 docs/tutorials/02-fused-softmax.py [--interpret]

On the interpreter it checks a 37 x 45 softmax against NumPy in float64; on a GPU it also
benchmarks against torch.softmax and writes softmax.csv/.png."""
import numpy as np

import tritonc
from common import parse_args, rate


def main():
    args = parse_args(__doc__.splitlines()[0])
    path = tritonc.kernels_dir() + "/softmax.tc"
    k = tritonc.compile(path, defines={"TM": 4, "TN": 64}, interpret=True)
    x = np.random.randn(37, 45).astype(np.float32)
    y = np.zeros_like(x)
    k[lambda meta: (tritonc.cdiv(meta["M"], meta["TM"]),)](x, y, 37, 45, 45, 45)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    print("interpreter: matches float64 NumPy")
    if not args.gpu:
        return
    import torch
    from tritonc.testing import Benchmark, perf_report

    @perf_report(Benchmark(x_names=["N"], x_vals=[256 * i for i in range(1, 17)],
                           line_arg="provider", line_vals=["tritonc", "torch"],
                           line_names=["tritonc", "torch"], ylabel="GB/s", plot_name="softmax",
                           args={"M": 4096}))
    def bench(M, N, provider):
        x = torch.randn(M, N, device="cuda")
        y = torch.empty_like(x)
        if provider == "tritonc":
            tn = 1 << (N - 1).bit_length()
            kern = tritonc.compile(path, defines={"TM": 1, "TN": tn}, num_warps=4 if tn <= 1024 else 8)
            fn = lambda: kern[(M,)](x, y, M, N, N, N)
        else:
            fn = lambda: torch.softmax(x, dim=1)
        return rate(fn, 2 * x.numel() * x.element_size() * 1e-6)

    bench.run(save_path=args.save, print_data=True)


if __name__ == "__main__":
    main()
