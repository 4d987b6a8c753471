"""Host launch overhead of an empty kernel from Python: tritonc (`k[grid](x)`), upstream Triton and
torch for reference, plus the C++ numbers of bench_launch_overhead (bench/launch_overhead.cpp).

Each provider is warmed up, then timed in rounds of N back-to-back launches with the host clock around
the launch loop only (the device is synchronized once per round, after the clock stops); the result is
the median over the rounds, in microseconds per launch.

    python3 bench/launch_overhead.py [--launches N] [--rounds R] [--cpp PATH/bench_launch_overhead]
"""
import argparse
import re
import statistics
import subprocess
import sys
import time

EMPTY = "__global__ void empty(float *X) {}\n"


def _per_launch_us(fn, launches, rounds, synchronize):
    for _ in range(min(launches, 2000)):
        fn()
    synchronize()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(launches):
            fn()
        stop = time.perf_counter()
        synchronize()
        samples.append((stop - start) / launches * 1e6)
    return statistics.median(samples)


def launch_overhead(launches=20000, rounds=5, triton_peers=None):
    """{provider: microseconds per launch} measured in this process."""
    import torch

    import tritonc

    x = torch.empty(64, device="cuda")
    k = tritonc.compile(EMPTY, name="empty.tc")
    sync = torch.cuda.synchronize
    out = {"tritonc k[grid](x)": _per_launch_us(lambda: k[(1,)](x), launches, rounds, sync)}
    out["tritonc k.launch(grid, x)"] = _per_launch_us(lambda: k.launch((1, 1, 1), x), launches,
                                                      rounds, sync)
    if triton_peers:
        out["triton empty[grid](x)"] = _per_launch_us(lambda: triton_peers.empty(x), launches,
                                                      rounds, sync)
    out["torch.empty(0) (no kernel)"] = _per_launch_us(lambda: torch.empty(0, device="cuda"),
                                                       launches, rounds, sync)
    y = torch.empty(16, device="cuda")
    out["torch y.zero_() (one small kernel)"] = _per_launch_us(y.zero_, launches, rounds, sync)
    return out


def cpp_launch_overhead(binary, launches=20000, rounds=7):
    """Runs bench_launch_overhead; returns ({'jit'|'runtime'|'driver': us}, {phase: ms}, output).
    Raises RuntimeError with its output when it fails."""
    res = subprocess.run([str(binary), "--launches", str(launches), "--rounds", str(rounds)],
                         capture_output=True, text=True, timeout=300)
    text = res.stdout + res.stderr
    if res.returncode != 0:
        raise RuntimeError(f"{binary} failed (exit status {res.returncode}):\n{text}")
    launch = {m.group(1): float(m.group(2))
              for m in re.finditer(r"^(\w+): ([0-9.]+) us/launch", res.stdout, re.M)}
    phases = {m.group(1): float(m.group(2))
              for m in re.finditer(r"^compile (\w+): ([0-9.]+) ms", res.stdout, re.M)}
    if not {"jit", "runtime", "driver"} <= launch.keys():
        raise RuntimeError(f"{binary}: unexpected output:\n{text}")
    return launch, phases, text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpp", help="path of the bench_launch_overhead program (C++ numbers)")
    args = parser.parse_args()
    try:
        import triton_peers
    except ImportError as e:
        print(f"upstream Triton unavailable ({e}); its column is left out")
        triton_peers = None
    for name, us in launch_overhead(args.launches, args.rounds, triton_peers).items():
        print(f"python {name}: {us:.2f} us/launch")
    if args.cpp:
        launch, _, _ = cpp_launch_overhead(args.cpp, args.launches)
        for name, us in launch.items():
            print(f"c++ {name}: {us:.2f} us/launch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
