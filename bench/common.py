"""Shared pieces of the benchmark harness: timing, results, configurations and tool lookup.

Timing method (every provider the same way): the work is warmed up, then each timed run writes a
256 MB buffer first (flushing the L2 cache), then records a CUDA event, runs the work and records a
second event. All runs are queued behind a GPU-side wait (torch.cuda._sleep) that lasts longer than
the host takes to queue them, so the device runs them back to back and no host time (launch
overhead, a stall of a busy host) leaks into the events; if queueing took longer than the wait, the
runs are repeated behind a longer one. The result is the median. The providers of one comparison
take their runs in rotation, in several turns (Timer.compare), so that clocks drifting as the GPU heats
up, or swinging at the power cap, weigh on all of them alike.
"""
import os
import shutil
import statistics
import time
from dataclasses import dataclass
from pathlib import Path

import torch

import tritonc
from gpu_state import GpuState

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
        self.flush_words = self.flush.view(torch.int64)
        self.flush_sum = torch.empty((), dtype=torch.int64, device="cuda")
        # GPU clock cycles per millisecond of torch.cuda._sleep, for sizing the wait.
        start, end = _event(), _event()
        start.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        torch.cuda.synchronize()
        self.sleep_cycles_per_ms = 10_000_000 / max(start.elapsed_time(end), 1e-3)
        # The GPU's temperature, clock and power during the last compare() (gpu_state.py): a ratio
        # measured under the power cap on a hot chip is recorded with the state that explains it.
        self.gpu = GpuState()
        self.last_gpu_state = {}
        # {name: device milliseconds of each run} of the last compare(), in the order they ran (turn
        # after turn), kept so that a surprising ratio can be looked into after the run.
        self.last_samples = {}

    def __call__(self, fn, runs=None, warmup=None):
        self._warm_up(fn, warmup)
        return statistics.median(self._samples({"": fn}, runs or self.runs)[""]) * 1e-3

    def compare(self, fns, rounds=3, clean=False, runs=None):
        """{name: median device time in seconds} of the callables in `fns`, timed in `rounds`
        turns (each a share of the runs) in which the providers take runs in rotation (A B C A B C
        ..., the order rotated from turn to turn), so that clocks drifting as the GPU heats up, or
        swinging at the power cap, weigh on every provider alike instead of on whichever is timed
        last. The L2 flush before each run writes a 256 MB buffer, which leaves L2 full of dirty
        lines; clean=True flushes by reading it instead (a clean L2, nothing to write back). runs:
        in all, per provider (default: the timer's)."""
        for fn in fns.values():
            self._warm_up(fn, None)
        per_turn = max(1, -(-(runs or self.runs) // rounds))
        names = list(fns)
        samples = {name: [] for name in names}
        with self.gpu.sample(period_s=0.05) as state:
            for turn in range(rounds):
                order = names[turn % len(names):] + names[:turn % len(names)]
                for name, times in self._samples({name: fns[name] for name in order}, per_turn,
                                                 clean).items():
                    samples[name] += times
        self.last_gpu_state, self.last_samples = state.summary(), samples
        return {name: statistics.median(times) * 1e-3 for name, times in samples.items()}

    def _warm_up(self, fn, warmup):
        for _ in range(self.warmup if warmup is None else warmup):
            fn()
        torch.cuda.synchronize()

    def _samples(self, fns, runs, clean=False):
        """{name: device milliseconds of each run}: `runs` runs of every callable in `fns`, in
        rotation, each after an L2 flush (see compare)."""
        events = [(name, fn, _event(), _event()) for _ in range(runs) for name, fn in fns.items()]
        wait_ms = 2.0
        for _attempt in range(4):
            wait_start, wait_end = _event(), _event()
            wait_start.record()
            torch.cuda._sleep(int(wait_ms * self.sleep_cycles_per_ms))
            wait_end.record()
            queued_at = time.perf_counter()
            for _name, fn, start, end in events:
                if clean:
                    torch.sum(self.flush_words, 0, out=self.flush_sum)
                else:
                    self.flush.zero_()
                start.record()
                fn()
                end.record()
            queue_ms = (time.perf_counter() - queued_at) * 1e3
            torch.cuda.synchronize()
            if queue_ms < wait_start.elapsed_time(wait_end):
                break
            wait_ms = 2 * queue_ms  # the host fell behind the device: queue again behind a longer wait
        out = {name: [] for name in fns}
        for name, _fn, start, end in events:
            out[name].append(start.elapsed_time(end))
        return out


def _event():
    return torch.cuda.Event(enable_timing=True)


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


def compile_kernel(file, defines, warps, stages=3, tma=True):
    return tritonc.compile(str(KERNELS / file), defines=defines, num_warps=warps, num_stages=stages,
                           tma=tma)


def relative_error(got, ref):
    ref = ref.float()
    return ((got.float() - ref).abs().max() / ref.abs().max().clamp_min(1e-30)).item()


def find_tool(name, env=None):
    """A CUDA tool: $env when set, else PATH, else /usr/local/cuda/bin; None when missing."""
    if env and os.environ.get(env):
        return os.environ[env]
    return shutil.which(name) or next(
        (p for p in (f"/usr/local/cuda/bin/{name}",) if os.access(p, os.X_OK)), None)
