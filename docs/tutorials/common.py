"""What the tutorials share: where to write plots, and whether to run on the GPU or on the CPU
interpreter (--interpret, or no usable GPU)."""
import argparse
import os

import tritonc

PLOTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plots")


def parse_args(description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--interpret", action="store_true",
                        help="run the correctness part on the CPU interpreter (no GPU needed)")
    parser.add_argument("--save", default=PLOTS, help="where the benchmark writes CSV and plots")
    args = parser.parse_args()
    args.gpu = not args.interpret and tritonc.cuda_available()
    if not args.gpu:
        args.interpret = True
    return args


def rate(fn, work):
    """(work / time, low, high) for perf_report's band: fn timed by tritonc.testing.do_bench
    (median and the 20% / 80% quantiles, in milliseconds); work is per millisecond, e.g. bytes *
    1e-6 for GB/s or flops * 1e-9 for TFLOP/s."""
    from tritonc.testing import do_bench
    ms, fast, slow = do_bench(fn, quantiles=[0.5, 0.2, 0.8])
    return work / ms, work / slow, work / fast
