"""Shared pieces of the benchmark harness: timing, results, configurations and tool lookup.

Timing method (every provider the same way, tritonc.testing.DeviceTimer): the work is warmed up,
then each timed run writes a 256 MB buffer first (flushing the L2 cache), then records a CUDA event,
runs the work and records a second event. All runs are queued behind a GPU-side wait
(torch.cuda._sleep) that lasts longer than the host takes to queue them, so the device runs them
back to back and no host time (launch overhead, a stall of a busy host) leaks into the events; if
queueing took longer than the wait, the runs are repeated behind a longer one. The result is the
median. The providers of one comparison
take their runs in rotation, in several turns (Timer.compare), so that clocks drifting as the GPU heats
up, or swinging at the power cap, weigh on all of them alike.
"""
import os
import shutil
import statistics
from dataclasses import dataclass
from pathlib import Path

import torch

import tritonc
from tritonc.testing import DeviceTimer
from gpu_state import GpuState

REPO = Path(__file__).resolve().parents[1]
KERNELS = REPO / "kernels"

# Timed runs per measurement: never fewer than 20 (the method), also in --quick.
MIN_RUNS = 20

DTYPE_NAMES = {torch.float16: "half", torch.bfloat16: "bfloat16", torch.float32: "float"}


class Timer(DeviceTimer):
    """Median device time of a callable, in seconds. The per-run timing (L2 flush, GPU-side wait,
    events) is the package's (tritonc.testing.DeviceTimer, behind tritonc.testing.do_bench); this
    adds the rotation of several providers and the GPU state of a comparison."""

    def __init__(self, warmup=5, runs=30):
        super().__init__()
        self.warmup, self.runs = warmup, max(runs, 1)
        # The GPU's temperature, clock and power during the last compare() (gpu_state.py): a ratio
        # measured under the power cap on a hot chip is recorded with the state that explains it.
        self.gpu = GpuState()
        self.last_gpu_state = {}
        # {name: device milliseconds of each run} of the last compare(), in the order they ran (turn
        # after turn), kept so that a surprising ratio can be looked into after the run.
        self.last_samples = {}

    def __call__(self, fn, runs=None, warmup=None):
        self.warm_up(fn, self.warmup if warmup is None else warmup)
        return statistics.median(self.samples({"": fn}, runs or self.runs)[""]) * 1e-3

    def compare(self, fns, rounds=3, clean=False, runs=None):
        """{name: median device time in seconds} of the callables in `fns`, timed in `rounds`
        turns (each a share of the runs) in which the providers take runs in rotation (A B C A B C
        ..., the order rotated from turn to turn), so that clocks drifting as the GPU heats up, or
        swinging at the power cap, weigh on every provider alike instead of on whichever is timed
        last. The L2 flush before each run writes a 256 MB buffer, which leaves L2 full of dirty
        lines; clean=True flushes by reading it instead (a clean L2, nothing to write back). runs:
        in all, per provider (default: the timer's)."""
        for fn in fns.values():
            self.warm_up(fn, self.warmup)
        per_turn = max(1, -(-(runs or self.runs) // rounds))
        names = list(fns)
        samples = {name: [] for name in names}
        with self.gpu.sample(period_s=0.05) as state:
            for turn in range(rounds):
                order = names[turn % len(names):] + names[:turn % len(names)]
                for name, times in self.samples({name: fns[name] for name in order}, per_turn,
                                                clean).items():
                    samples[name] += times
        self.last_gpu_state, self.last_samples = state.summary(), samples
        return {name: statistics.median(times) * 1e-3 for name, times in samples.items()}


@dataclass(frozen=True)
class MatmulConfig:
    """One candidate of the autotuning step."""
    # "matmul" (matmul.tc), "grouped" (matmul_grouped.tc, GROUP_M=8), "persistent"
    # (matmul_persistent.tc, GROUP_M=8, one program per SM) or "streamk" (matmul_streamk.tc,
    # GROUP_M=8, one program per SM; C zeroed first, inside the timed call)
    kernel: str
    tm: int
    tn: int
    tk: int
    warps: int
    stages: int

    @property
    def file(self):
        return {"matmul": "matmul.tc", "grouped": "matmul_grouped.tc",
                "persistent": "matmul_persistent.tc", "streamk": "matmul_streamk.tc"}[self.kernel]

    def __str__(self):
        return f"{self.file} {self.tm}x{self.tn}x{self.tk} w{self.warps} s{self.stages}"


# Options every kernel compiled through compile_kernel gets on top of its own, from bench.py's command
# line (--compile-option NAME=VALUE), so that a back-end option can be timed against the peers before it
# becomes the default.
EXTRA_COMPILE_OPTIONS = {}


def compile_kernel(file, defines, warps, stages=3, tma=True, **options):
    """options: tritonc.compile's, over EXTRA_COMPILE_OPTIONS (a kernel that needs one sets it)."""
    return tritonc.compile(str(KERNELS / file), defines=defines, num_warps=warps, num_stages=stages,
                           tma=tma, **{**EXTRA_COMPILE_OPTIONS, **options})


def relative_error(got, ref):
    ref = ref.float()
    return ((got.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def find_tool(name, env=None):
    """A CUDA tool: $env when set, else PATH, else /usr/local/cuda/bin; None when missing."""
    if env and os.environ.get(env):
        return os.environ[env]
    return shutil.which(name) or next(
        (p for p in (f"/usr/local/cuda/bin/{name}",) if os.access(p, os.X_OK)), None)
