"""Tutorial 4: transposition. kernels/transpose_checked.tc loads a TM x TN tile, transposes it
with `^` and stores it; the back end stages it through shared memory so that both the loads and
the stores are coalesced.

    python3 docs/tutorials/04-transpose.py [--interpret]

On the interpreter it checks a 50 x 70 transpose exactly; on a GPU it benchmarks against
torch's `x.t().contiguous()` and writes transpose.csv/.png."""
import numpy as np

import tritonc
from common import parse_args, rate


def grid(meta):
    return (tritonc.cdiv(meta["M"], meta["TM"]), tritonc.cdiv(meta["N"], meta["TN"]))


def main():
    args = parse_args(__doc__.splitlines()[0])
    path = tritonc.kernels_dir() + "/transpose_checked.tc"
    k = tritonc.compile(path, defines={"TM": 32, "TN": 32}, interpret=True)
    x = np.random.randn(50, 70).astype(np.float32)
    y = np.zeros((70, 50), np.float32)
    k[grid](x, y, 50, 70, 70, 50)
    np.testing.assert_array_equal(y, x.T)
    print("interpreter: exact")
    if not args.gpu:
        return
    import torch
    from tritonc.testing import Benchmark, perf_report
    kern = tritonc.compile(path, defines={"TM": 64, "TN": 64}, num_warps=4)

    @perf_report(Benchmark(x_names=["size"], x_vals=[1024 * i for i in range(1, 9)],
                           line_arg="provider", line_vals=["tritonc", "torch"],
                           line_names=["tritonc", "torch"], ylabel="GB/s", plot_name="transpose"))
    def bench(size, provider):
        x = torch.randn(size, size, device="cuda")
        y = torch.empty_like(x)
        fn = (lambda: kern[grid](x, y, size, size, size, size)) if provider == "tritonc" else \
            (lambda: y.copy_(x.t()))
        return rate(fn, 2 * x.numel() * x.element_size() * 1e-6)

    bench.run(save_path=args.save, print_data=True)


if __name__ == "__main__":
    main()
