"""Shared pieces of the benchmark harness: timing, results, configurations and tool lookup.

Timing method (every provider the same way): the work is warmed up, then each timed run writes a
256 MB buffer first (flushing the L2 cache, and giving the host a head start so that launch overhead
does not leak into the measurement), then records a CUDA event, runs the work and records a second
event. All runs are queued back to back and synchronized once; the result is the median.
"""
import os
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

import torch

import tritonc

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"

# Timed runs per measurement: never fewer than 20 (the method), also in --quick.
MIN_RUNS = 20

DTYPE_NAMES = {torch.float16: "half", torch.bfloat16: "bfloat16", torch.float32: "float"}


class Timer:
    """Median device time of a callable, in seconds."""

    def __init__(self, warmup=5, runs=30):
        self.warmup, self.runs = warmup, max(runs, 1)
        self.flush = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")

    def __call__(self, fn, runs=None, warmup=None):
        runs = runs or self.runs
        for _ in range(self.warmup if warmup is None else warmup):
            fn()
        torch.cuda.synchronize()
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(runs)]
        for start, end in events:
            self.flush.zero_()
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in events) * 1e-3


@dataclass(frozen=True)
class MatmulConfig:
    """One candidate of the autotuning step."""
    kernel: str  # "matmul" (matmul.tc) or "grouped" (matmul_grouped.tc, GROUP_M=8)
    tm: int
    tn: int
    tk: int
    warps: int
    stages: int

    def __str__(self):
        name = "matmul.tc" if self.kernel == "matmul" else "matmul_grouped.tc"
        return f"{name} {self.tm}x{self.tn}x{self.tk} w{self.warps} s{self.stages}"


def compile_kernel(file, defines, warps, stages=3):
    return tritonc.compile(str(KERNELS / file), defines=defines, num_warps=warps, num_stages=stages)


def relative_error(got, ref):
    ref = ref.float()
    return ((got.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def find_tool(name, env=None):
    """A CUDA tool: $env when set, else PATH, else /usr/local/cuda/bin; None when missing."""
    if env and os.environ.get(env):
        return os.environ[env]
    return shutil.which(name) or next(
        (p for p in (f"/usr/local/cuda/bin/{name}",) if os.access(p, os.X_OK)), None)
