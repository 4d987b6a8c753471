"""tritonc benchmarks on the GPU, next to the peers measured in the same process and run (issue 4).

    bash bench/run.sh [--sweep] [--quick] [--only matmul,softmax,...]     # builds, then runs this
    python3 bench/bench.py [--out DIR] [--quick] [--only ...] [--launch-bin PATH]

Measures, in order: the cold compile of the 128x256x64 fp16 matmul by phase; the host launch overhead
(Python here, C++ through bench_launch_overhead); fp16/bf16 matmul at 1024-8192 (autotuned) against
cuBLAS and upstream Triton's tutorial matmul; fp32 matmul without TF32 against cuBLAS; the thesis shapes
(batch-16 MLP C = A·Bᵀ, 64x64xK covariance with split-K); transposition and fused softmax against
copy bandwidth, torch and Triton; `ptxas -v` and HGMMA counts of every benchmarked kernel.
Writes to DIR (default $OUT, else bench-out): sweep.csv, ptxas.csv, ptxas.txt, one PNG per family and
results.md (an entry for bench/results/LOG.md, with pass/fail against the issue's thresholds; its
tables replace the current ones in bench/RESULTS.md). A family
that fails is reported loudly and the run goes on; the exit status is then 1.
Timing method: see bench/common.py.
"""
import argparse
import ast
import datetime
import faulthandler
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STEPS = ("compile", "launch", "matmul", "fp32", "mlp", "covariance", "transpose", "softmax", "conv", "conv_nhwc",
         "conv_bf16", "conv_dgrad", "conv_wgrad", "unaligned", "ptxas")


def parse_args():
    p = argparse.ArgumentParser(description="tritonc benchmarks (issue 4)")
    p.add_argument("--out", default=os.environ.get("OUT", "bench-out"), help="output directory")
    p.add_argument("--quick", action="store_true",
                   help="fewer sizes and configurations (still >= 20 timed runs per point)")
    p.add_argument("--sweep", action="store_true",
                   help="the full sweep (the default; kept for `bench/run.sh --sweep`)")
    p.add_argument("--only", default="", help="comma-separated steps: " + ",".join(STEPS))
    p.add_argument("--runs", type=int, default=30, help="timed runs per point (at least 20)")
    # Single driver JITs of one PTX on a lent host spread 68-210 ms (an H100 host, 2026-11-27): more
    # than five samples for a stable median.
    p.add_argument("--compile-repeats", type=int, default=11, help="cold compiles for the medians")
    p.add_argument("--launch-bin", default=os.environ.get("BENCH_LAUNCH_BIN", ""),
                   help="bench_launch_overhead program (default: build-py/bench/bench_launch_overhead)")
    p.add_argument("--compile-option", action="append", default=[], metavar="NAME=VALUE",
                   help="a tritonc.compile keyword for every kernel (a Python literal, e.g. "
                        "register_stages=3), to time a back-end option against the default; repeatable")
    p.add_argument("--no-ws-candidates", dest="ws_candidates", action="store_false",
                   help="the convolution steps' autotuners do not also try conv_nhwc_desc.tc's unsplit "
                        "candidates with warp_specialize=True (bench/conv_suite.py WARP_SPECIALIZE; tried by "
                        "default since run 57, where they won 2 of 13 forward shapes)")
    p.add_argument("--no-triton", action="store_true",
                   help="do not treat a missing upstream Triton as a failure")
    p.add_argument("--time-limit", type=float, default=450,
                   help="seconds after which a hung run prints every thread's stack and exits (0: none); "
                        "the outputs written after each step stay")
    args = p.parse_args()
    args.only = [s for s in args.only.split(",") if s]
    unknown = [s for s in args.only if s not in STEPS]
    if unknown:
        p.error(f"unknown step(s) {', '.join(unknown)}; known: {', '.join(STEPS)}")
    return args


def git_commit(repo):
    if os.environ.get("BENCH_COMMIT"):
        return os.environ["BENCH_COMMIT"]
    try:
        head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main():
    args = parse_args()
    start = time.perf_counter()
    if args.time_limit > 0:
        faulthandler.dump_traceback_later(args.time_limit, exit=True)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Before CUDA initializes and before tritonc creates its kernel cache: compiles in this run are
    # cold (a fresh cache directory, and the driver's own PTX JIT cache off).
    os.environ["TRITONC_CACHE_DIR"] = tempfile.mkdtemp(prefix="tritonc-bench-cache-")
    os.environ["CUDA_CACHE_DISABLE"] = "1"

    try:
        import torch

        import tritonc
    except ImportError as e:
        print(f"bench: {e} (needs torch, and the tritonc module on PYTHONPATH: bench/run.sh builds it)",
              file=sys.stderr)
        return 1
    import compile_suite
    import conv_suite
    import gpu_state
    import matmul_suite
    import memory_suite
    import report
    from common import EXTRA_COMPILE_OPTIONS, MIN_RUNS, REPO, Timer
    from measurements import Results, run_step

    for option in args.compile_option:
        name, _, value = option.partition("=")
        EXTRA_COMPILE_OPTIONS[name] = ast.literal_eval(value)
    conv_suite.WARP_SPECIALIZE = args.ws_candidates

    if not torch.cuda.is_available() or not tritonc.cuda_available():
        print(f"bench: no usable CUDA device (torch: {torch.cuda.is_available()}, tritonc: "
              f"{tritonc.cuda_status()[1]})", file=sys.stderr)
        return 1
    wanted = lambda step: not args.only or step in args.only
    results = Results()
    try:
        import triton
        import triton_peers
        triton_version = triton.__version__
    except ImportError as e:
        print(f"!! upstream Triton unavailable ({e}): its columns are left out", flush=True)
        triton_peers, triton_version = None, "missing"
        if not args.no_triton:
            results.failures.append(f"upstream Triton unavailable: {e}")

    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    timer = Timer(warmup=5, runs=max(args.runs, MIN_RUNS))
    print(f"device: {props.name}; {tritonc.cuda_status()[1]}; torch {torch.__version__}; "
          f"triton {triton_version}; tritonc {tritonc.version()}"
          + (f"; compile options {EXTRA_COMPILE_OPTIONS}" if EXTRA_COMPILE_OPTIONS else ""), flush=True)

    date = datetime.date.today().isoformat()
    device_tag = "".join(ch if ch.isalnum() else "-" for ch in props.name.lower()).strip("-")
    meta = {"date": date, "device": props.name, "driver": tritonc.cuda_status()[1],
            "torch": torch.__version__, "triton": triton_version, "tritonc": tritonc.version(),
            "commit": git_commit(REPO), "elapsed": 0.0, "runs": timer.runs,
            "args": os.environ.get("BENCH_ARGS", " ".join(sys.argv[1:])),
            "results_dir": f"{date}-{device_tag}", "host": host_description(),
            "gpu_start": gpu_state.describe(timer.gpu.read())}

    def save(plots=()):
        """Writes what is measured so far, so that a run cut short still leaves its results."""
        meta["elapsed"] = time.perf_counter() - start
        report.write_csv(results, out_dir)
        (out_dir / "results.md").write_text(report.markdown(results, meta, list(plots)))

    repeats = 2 if args.quick else args.compile_repeats
    steps = [
        ("compile", "cold compile", compile_suite.cold_compile, (results, repeats)),
        ("launch", "launch overhead", run_launch_overhead, (results, args, triton_peers, REPO)),
        ("matmul", "matmul fp16/bf16", matmul_suite.square, (results, timer, triton_peers, args.quick)),
        ("fp32", "matmul fp32", matmul_suite.fp32, (results, timer, args.quick)),
        ("mlp", "MLP", matmul_suite.mlp, (results, timer, args.quick)),
        ("covariance", "covariance", matmul_suite.covariance, (results, timer, args.quick)),
        ("transpose", "transpose", memory_suite.transpose, (results, timer, args.quick)),
        ("softmax", "softmax", memory_suite.softmax, (results, timer, triton_peers, args.quick)),
        ("conv", "convolution", conv_suite.conv, (results, timer, args.quick)),
        ("conv_nhwc", "convolution, channels last", conv_suite.conv_nhwc, (results, timer, args.quick)),
        ("conv_bf16", "convolution bf16, channels last", conv_suite.conv_bf16, (results, timer, args.quick)),
        ("conv_dgrad", "convolution data gradient", conv_suite.conv_dgrad, (results, timer, args.quick)),
        ("conv_wgrad", "convolution weight gradient", conv_suite.conv_wgrad, (results, timer, args.quick)),
        ("unaligned", "matmul with unaligned rows", conv_suite.unaligned,
         (results, timer, triton_peers, args.quick)),
        ("ptxas", "ptxas/SASS report", compile_suite.ptxas_report, (results, out_dir)),
    ]
    for key, name, fn, fn_args in steps:
        if wanted(key) and (key != "ptxas" or results.kernels):
            run_step(results, name, fn, *fn_args)
            save()

    report.print_table(results)
    plots = report.plot(results, out_dir)
    save(plots)
    print("\nchecks against the issues' thresholds (4, 28):")
    for text, measured, need, ok in report.checks(results):
        verdict = "PASS" if ok else ("FAIL" if ok is False else "----")
        print(f"  {verdict}  {text}: {measured} (needed {need})")
    print(f"\nwrote {out_dir}/results.md, sweep.csv, ptxas.csv, ptxas.txt and {len(plots)} plots; "
          f"total {meta['elapsed']:.0f} s")
    if results.failures:
        print(f"\n{len(results.failures)} FAILURE(S):", file=sys.stderr)
        for f in results.failures:
            print("  " + f, file=sys.stderr)
        return 1
    return 0


def host_description():
    """'Intel(R) Xeon(R) Processor, 16 CPUs': the cold compile's PTX -> SASS step runs on the host, and
    its time follows the host's CPU."""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        model = ""
    return f"{model or 'unknown CPU'}, {os.cpu_count()} CPUs"


def run_launch_overhead(results, args, triton_peers, repo):
    import launch_overhead

    launches = 5000 if args.quick else 20000
    for name, us in launch_overhead.launch_overhead(launches, 5, triton_peers).items():
        results.scalars[f"launch: Python {name} [us]"] = us
    binary = Path(args.launch_bin or repo / "build-py" / "bench" / "bench_launch_overhead")
    if not binary.exists():
        raise RuntimeError(f"the C++ launch benchmark {binary} is missing (bench/run.sh builds it; "
                           "or pass --launch-bin)")
    launch, phases, _ = launch_overhead.cpp_launch_overhead(binary, launches)
    names = {"jit": "C++ JitKernel::launch", "runtime": "C++ runtime::Kernel::launch",
             "driver": "C++ cuLaunchKernel"}
    for key, name in names.items():
        results.scalars[f"launch: {name} [us]"] = launch[key]
    results.scalars["compile: empty kernel, C++ cold (source -> loaded) [ms]"] = phases.get("total", 0.0)
    for key, value in results.scalars.items():
        if key.startswith("launch:"):
            print(f"   {key}: {value:.2f}")


if __name__ == "__main__":
    sys.exit(main())
