"""Tutorial 5: convolution as an implicit matrix multiplication (kernels/conv.tc), used through
the tritonc.ops.conv2d operator, which torch's autograd differentiates (data and weight gradients
are matmuls through tritonc.ops.matmul).

    python3 docs/tutorials/05-convolution.py [--interpret]

Needs torch. On CPU tensors the operator runs on the interpreter (a small convolution checked
against torch in float64); on a GPU it benchmarks against cuDNN and writes conv2d.csv/.png."""
from common import parse_args, rate


def main():
    args = parse_args(__doc__.splitlines()[0])
    import torch
    from tritonc import ops
    x = torch.randn(1, 2, 7, 6, dtype=torch.float32)
    w = torch.randn(3, 2, 3, 3, dtype=torch.float32)
    got = ops.conv2d(x, w, stride=1, padding=1)
    ref = torch.nn.functional.conv2d(x.double(), w.double(), padding=1)
    torch.testing.assert_close(got.double(), ref, rtol=1e-5, atol=1e-5)
    print("interpreter: matches float64 torch")
    if not args.gpu:
        return
    from tritonc.testing import Benchmark, perf_report

    # NCHW runs kernels/conv.tc (the thesis' increments table); channels-last tensors run
    # kernels/conv_nhwc.tc, whose rows of A are contiguous channels copied asynchronously.
    torch.backends.cudnn.benchmark = True

    @perf_report(Benchmark(x_names=["channels"], x_vals=[16, 32, 64, 128, 256],
                           line_arg="provider",
                           line_vals=["tritonc", "tritonc-nhwc", "cuDNN", "cuDNN-nhwc"],
                           line_names=["tritonc (NCHW)", "tritonc (channels last)", "cuDNN (NCHW)",
                                       "cuDNN (channels last)"],
                           ylabel="TFLOP/s", plot_name="conv2d", args={"batch": 32, "size": 56}))
    def bench(batch, size, channels, provider):
        x = torch.randn(batch, channels, size, size, device="cuda", dtype=torch.float16)
        w = torch.randn(channels, channels, 3, 3, device="cuda", dtype=torch.float16)
        if provider.endswith("-nhwc"):
            x = x.to(memory_format=torch.channels_last)
            w = w.to(memory_format=torch.channels_last)
        if provider.startswith("cuDNN"):
            fn = lambda: torch.nn.functional.conv2d(x, w, padding=1)  # noqa: E731
        else:
            fn = lambda: ops.conv2d(x, w, padding=1)  # noqa: E731
        return rate(fn, 2 * batch * channels * channels * 9 * size * size * 1e-9)

    bench.run(save_path=args.save, print_data=True)


if __name__ == "__main__":
    main()
