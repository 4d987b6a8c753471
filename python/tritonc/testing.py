"""Timing and benchmark reports for kernels: ``do_bench``, ``perf_report`` / ``Benchmark``.

Timing method (``DeviceTimer``): every timed run first writes a 256 MB buffer (flushing the L2
cache), then records a CUDA event, runs the work and records a second event. All runs of a batch
are queued behind a GPU-side wait (``torch.cuda._sleep``) that lasts longer than the host takes to
queue them, so the device runs them back to back and no host time (launch overhead, a stalled host)
reaches the events; when queueing took longer than the wait, the batch is queued again behind a
longer one (once: work that itself waits for the device, such as a synchronizing copy, cannot be
covered by any wait, and is timed with those host gaps). A batch holds at most ``BATCH_RUNS`` runs: the driver queues about a thousand
operations per stream before a launch blocks the host, and a host blocked behind the wait would let
the device start the batch before it is queued, timing the host's stalls again. Results are medians
(or quantiles) of the per-run device times.

Needs torch with CUDA for the timing itself; ``perf_report`` needs only matplotlib for its plot
(the CSV is written without it). torch is imported on first use, not by ``import tritonc``.
"""

from __future__ import annotations

import csv
import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

__all__ = ["DeviceTimer", "do_bench", "summarize", "Benchmark", "perf_report", "Mark"]

#: Bytes written before each timed run to evict the previous run's data from L2 (50 MB on the
#: H100; 256 MB covers every current GPU with room to spare).
FLUSH_BYTES = 256 * 1024 * 1024

#: Runs queued behind one GPU-side wait. Each run queues a flush, two events and the work's
#: launches; 64 runs stay well inside the driver's launch queue (about 1,000 entries).
BATCH_RUNS = 64

#: The longest GPU-side wait a batch starts with. A batch whose queueing took longer (the first call
#: of a kernel compiles, an autotuner times its candidates) is queued again once behind a longer wait,
#: but later batches go back to at most this: the wait is device time each batch spends asleep, and a
#: single slow first call once made every later batch sleep for twice that call.
MAX_WAIT_MS = 50.0


def _torch():
    import torch  # noqa: PLC0415 - torch is optional for the package, needed only to time

    if not torch.cuda.is_available():
        raise RuntimeError("tritonc.testing times CUDA events: it needs torch with a CUDA device")
    return torch


class DeviceTimer:
    """Per-run device times of callables, in milliseconds, without host time (see the module)."""

    def __init__(self, flush_bytes: int = FLUSH_BYTES):
        torch = _torch()
        self._torch = torch
        self.flush = torch.empty(flush_bytes, dtype=torch.uint8, device="cuda")
        self.flush_words = self.flush.view(torch.int64)
        self.flush_sum = torch.empty((), dtype=torch.int64, device="cuda")
        # GPU clock cycles per millisecond of torch.cuda._sleep, to size the wait.
        start, end = self._event(), self._event()
        start.record()
        torch.cuda._sleep(10_000_000)
        end.record()
        torch.cuda.synchronize()
        self.sleep_cycles_per_ms = 10_000_000 / max(start.elapsed_time(end), 1e-3)
        self.wait_ms = 2.0  # the GPU-side wait before a batch; grows when the host is slow

    def _event(self):
        return self._torch.cuda.Event(enable_timing=True)

    def warm_up(self, fn: Callable[[], Any], runs: int) -> None:
        for _ in range(runs):
            fn()
        self._torch.cuda.synchronize()

    def samples(self, fns: Dict[str, Callable[[], Any]], runs: int, clean: bool = False,
                before_each: Optional[Callable[[], Any]] = None) -> Dict[str, List[float]]:
        """{name: device milliseconds of each run}: ``runs`` runs of every callable in ``fns``, in
        rotation (A B A B ...), each after an L2 flush. The flush writes a buffer, leaving L2 full
        of dirty lines; clean=True flushes by reading it instead. before_each runs (untimed) before
        every run, e.g. to zero an accumulator or drop gradients."""
        out: Dict[str, List[float]] = {name: [] for name in fns}
        per_batch = max(1, BATCH_RUNS // len(fns))
        for first in range(0, runs, per_batch):
            batch = self._batch(fns, min(per_batch, runs - first), clean, before_each)
            for name, times in batch.items():
                out[name].extend(times)
        return out

    def _batch(self, fns: Dict[str, Callable[[], Any]], runs: int, clean: bool,
               before_each: Optional[Callable[[], Any]]) -> Dict[str, List[float]]:
        """One batch of ``samples``, queued behind one GPU-side wait."""
        torch = self._torch
        events = [(name, fn, self._event(), self._event()) for _ in range(runs)
                  for name, fn in fns.items()]
        wait_ms = self.wait_ms
        # A second attempt behind a wait twice as long as the queueing took. Should that fail too,
        # the work itself waits for the device (a synchronizing copy, .item()): no wait covers it,
        # and the times of that attempt are kept.
        for _attempt in range(2):
            wait_start, wait_end = self._event(), self._event()
            wait_start.record()
            torch.cuda._sleep(int(wait_ms * self.sleep_cycles_per_ms))
            wait_end.record()
            queued_at = time.perf_counter()
            for _name, fn, start, end in events:
                if before_each is not None:
                    before_each()
                if clean:
                    torch.sum(self.flush_words, 0, out=self.flush_sum)
                else:
                    self.flush.zero_()
                start.record()
                fn()
                end.record()
            queue_ms = (time.perf_counter() - queued_at) * 1e3
            torch.cuda.synchronize()
            # The next batch starts with a wait that covers this queueing time twice over (never
            # less than 2 ms, never more than MAX_WAIT_MS).
            self.wait_ms = min(MAX_WAIT_MS, max(2.0, 2 * queue_ms))
            if queue_ms < wait_start.elapsed_time(wait_end):
                break
            wait_ms = 2 * queue_ms  # the host fell behind the device: queue again, longer wait
        out: Dict[str, List[float]] = {name: [] for name in fns}
        for name, _fn, start, end in events:
            out[name].append(start.elapsed_time(end))
        return out


_TIMER: Optional[DeviceTimer] = None


def _default_timer() -> DeviceTimer:
    global _TIMER
    if _TIMER is None:
        _TIMER = DeviceTimer()
    return _TIMER


def summarize(times: Sequence[float], quantiles: Optional[Sequence[float]] = None,
              return_mode: str = "median"):
    """The statistic do_bench returns from per-run times: the quantiles when given (a list, or one
    value for one quantile), else the median / mean / min / max / all."""
    if not times:
        raise ValueError("no timed runs")
    if quantiles is not None:
        ordered = sorted(times)
        out = [_quantile(ordered, q) for q in quantiles]
        return out[0] if len(out) == 1 else out
    modes = {"median": statistics.median, "mean": statistics.fmean, "min": min, "max": max,
             "all": list}
    if return_mode not in modes:
        raise ValueError(f"return_mode must be one of {sorted(modes)}, not {return_mode!r}")
    return modes[return_mode](times)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default method)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"quantiles must lie in [0, 1], not {q}")
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def do_bench(fn: Callable[[], Any], warmup: float = 25, rep: float = 100,
             grad_to_none: Optional[Sequence[Any]] = None,
             quantiles: Optional[Sequence[float]] = None, return_mode: str = "median",
             clean_l2: bool = False, timer: Optional[DeviceTimer] = None):
    """Device time of ``fn()`` in milliseconds: the median over runs (return_mode "mean", "min",
    "max", "all" for the others; ``quantiles=[0.5, 0.2, 0.8]`` for those instead).

    warmup and rep are budgets in milliseconds, as in upstream Triton: one run is timed to
    estimate the cost, then about warmup ms of untimed runs and rep ms of timed ones (at least 5
    and at most 1000) follow. grad_to_none: tensors whose .grad is dropped before every run (so
    that a backward pass does not accumulate). Every run follows an L2 flush (see the module)."""
    timer = timer or _default_timer()
    before_each = None
    if grad_to_none:
        def before_each():
            for t in grad_to_none:
                t.grad = None
    # One untimed call first: a kernel's first call may compile it or tune it (host work of seconds)
    # and belongs to no batch.
    if before_each is not None:
        before_each()
    fn()
    _torch().cuda.synchronize()
    estimate = statistics.median(timer.samples({"": fn}, 5, before_each=before_each)[""])
    estimate = max(estimate, 1e-4)
    timer.warm_up(fn, max(1, int(warmup / estimate)))
    runs = max(5, min(1000, int(rep / estimate)))
    times = timer.samples({"": fn}, runs, clean=clean_l2, before_each=before_each)[""]
    return summarize(times, quantiles, return_mode)


#
# Benchmark reports
#

@dataclass
class Benchmark:
    """One report of ``perf_report``: the function is called once per (x, line) pair with
    ``{x_name: x, line_arg: line, **args}`` and returns a number, or a tuple (value, low, high)
    drawn as a band. The report is a table (CSV) and a plot of value against x, one line per
    line_vals entry."""
    x_names: List[str]
    x_vals: List[Any]
    line_arg: str
    line_vals: List[Any]
    line_names: List[str]
    plot_name: str
    args: Dict[str, Any] = field(default_factory=dict)
    xlabel: str = ""
    ylabel: str = ""
    x_log: bool = False
    y_log: bool = False
    styles: Optional[List[Any]] = None

    def __post_init__(self):
        if len(self.line_names) != len(self.line_vals):
            raise ValueError(f"{self.plot_name}: {len(self.line_vals)} line_vals but "
                             f"{len(self.line_names)} line_names")
        if not self.x_names:
            raise ValueError(f"{self.plot_name}: x_names is empty")


class Mark:
    """A function with its benchmarks; ``run()`` measures and writes the reports."""

    def __init__(self, fn: Callable[..., Any], benchmarks):
        self.fn = fn
        self.benchmarks = [benchmarks] if isinstance(benchmarks, Benchmark) else list(benchmarks)

    def _table(self, bench: Benchmark, kwargs: Dict[str, Any]):
        """Rows [x, v1, v1_low, v1_high, v2, ...] for each x."""
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, (list, tuple)) and len(bench.x_names) > 1 else \
                [x] * len(bench.x_names)
            x_args = dict(zip(bench.x_names, xs))
            row = [x]
            for line in bench.line_vals:
                value = self.fn(**x_args, **{bench.line_arg: line}, **bench.args, **kwargs)
                if isinstance(value, (list, tuple)):
                    mid, low, high = (list(value) + [value[0], value[0]])[:3]
                else:
                    mid = low = high = value
                row += [mid, low, high]
            rows.append(row)
        return rows

    def run(self, save_path: Optional[str] = None, print_data: bool = False,
            show_plots: bool = False, **kwargs):
        """Runs every benchmark; with save_path, writes <plot_name>.csv and (with matplotlib)
        <plot_name>.png there. Returns {plot_name: rows}."""
        results = {}
        for bench in self.benchmarks:
            rows = self._table(bench, kwargs)
            results[bench.plot_name] = rows
            header = [bench.x_names[0]] + [f"{n}{suffix}" for n in bench.line_names
                                           for suffix in ("", " (low)", " (high)")]
            if print_data:
                print(f"{bench.plot_name}:")
                print("  " + ", ".join(header))
                for row in rows:
                    print("  " + ", ".join(_fmt(v) for v in row))
            if save_path:
                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w",
                          newline="") as f:
                    writer = csv.writer(f)
                    writer.writerow(header)
                    writer.writerows(rows)
            if save_path or show_plots:
                _plot(bench, rows, save_path, show_plots)
        return results


def _fmt(v):
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _plot(bench: Benchmark, rows, save_path, show):
    try:
        import matplotlib  # noqa: PLC0415 - optional
        if not show:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        if show:
            raise
        return  # the CSV carries the data; the plot needs matplotlib (pip install tritonc[plot])
    fig, ax = plt.subplots()
    xs = [r[0] for r in rows]
    for i, name in enumerate(bench.line_names):
        mid = [r[1 + 3 * i] for r in rows]
        low = [r[2 + 3 * i] for r in rows]
        high = [r[3 + 3 * i] for r in rows]
        style = bench.styles[i] if bench.styles else None
        kwargs = {"color": style[0], "linestyle": style[1]} if style else {}
        ax.plot(xs, mid, label=name, **kwargs)
        if low != mid or high != mid:
            ax.fill_between(xs, low, high, alpha=0.2, **({"color": style[0]} if style else {}))
    ax.set_xlabel(bench.xlabel or bench.x_names[0])
    ax.set_ylabel(bench.ylabel)
    ax.set_title(bench.plot_name)
    if bench.x_log:
        ax.set_xscale("log")
    if bench.y_log:
        ax.set_yscale("log")
    ax.legend()
    ax.grid(True, alpha=0.3)
    if save_path:
        fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"), dpi=120,
                    bbox_inches="tight")
    if show:
        plt.show()
    plt.close(fig)


def perf_report(benchmarks):
    """Decorator: ``@perf_report(Benchmark(...))`` (or a list of them) turns a function into a
    Mark whose ``run(save_path=..., print_data=True)`` measures it and writes CSV and plots."""
    def wrap(fn):
        return Mark(fn, benchmarks)
    return wrap
