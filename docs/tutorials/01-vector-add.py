"""Tutorial 1: vector addition. A Triton-C kernel is a single-threaded program over tiles: each
program instance adds one BLOCK-long tile of X and Y, with a mask for the tail.

    python3 docs/tutorials/01-vector-add.py [--interpret]

On the CPU interpreter (no GPU, or --interpret) it checks the result on NumPy arrays; on a GPU it
also benchmarks against torch and writes vector-add.csv/.png to docs/tutorials/plots."""
import numpy as np

import tritonc
from common import parse_args, rate

ADD = """
__global__ void add(float *X, float *Y, float *Z, int N) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;  // this program's tile of indices
  bool in[BLOCK] = off < N;                                 // the tail of the last tile is masked
  float *px[BLOCK] = X + off;
  float *py[BLOCK] = Y + off;
  float *pz[BLOCK] = Z + off;
  *?(in) pz = *?(in) px + *?(in) py;
}
"""


def grid(meta):
    return (tritonc.cdiv(meta["N"], meta["BLOCK"]),)


def main():
    args = parse_args(__doc__.splitlines()[0])
    # The same source runs on the interpreter, on NumPy arrays, in place.
    k = tritonc.compile(ADD, defines={"BLOCK": 256}, interpret=True)
    x = np.random.rand(1000).astype(np.float32)
    y = np.random.rand(1000).astype(np.float32)
    z = np.zeros_like(x)
    k[grid](x, y, z, x.size)
    np.testing.assert_array_equal(z, x + y)
    print("interpreter: the sums are exact")
    if not args.gpu:
        return
    import torch
    from tritonc.testing import Benchmark, perf_report
    add = tritonc.compile(ADD, defines={"BLOCK": 1024}, num_warps=4)

    @perf_report(Benchmark(x_names=["size"], x_vals=[2 ** i for i in range(12, 28, 2)],
                           x_log=True, line_arg="provider", line_vals=["tritonc", "torch"],
                           line_names=["tritonc", "torch"], ylabel="GB/s", plot_name="vector-add"))
    def bench(size, provider):
        x, y = torch.rand(size, device="cuda"), torch.rand(size, device="cuda")
        z = torch.empty_like(x)
        fn = (lambda: add[grid](x, y, z, size)) if provider == "tritonc" else \
            (lambda: torch.add(x, y, out=z))
        return rate(fn, 3 * x.numel() * x.element_size() * 1e-6)

    bench.run(save_path=args.save, print_data=True)


if __name__ == "__main__":
    main()
