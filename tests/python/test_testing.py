"""tritonc.testing: do_bench's statistics and perf_report's CSV and plot (CPU), and do_bench on the
GPU (device time only: a stalled host does not reach it)."""

import csv
import time

import pytest

import tritonc
from tritonc import testing


def test_summarize_median_mean_and_quantiles():
    times = [4.0, 1.0, 3.0, 2.0, 10.0]
    assert testing.summarize(times) == 3.0
    assert testing.summarize(times, return_mode="mean") == 4.0
    assert testing.summarize(times, return_mode="min") == 1.0
    # Linear interpolation between order statistics, as numpy.quantile.
    assert testing.summarize(times, quantiles=[0.5, 0.25, 0.875]) == [3.0, 2.0, 7.0]
    assert testing.summarize(times, quantiles=[0.5]) == 3.0
    with pytest.raises(ValueError, match="return_mode"):
        testing.summarize(times, return_mode="average")
    with pytest.raises(ValueError, match="quantiles"):
        testing.summarize(times, quantiles=[1.5])


def _report():
    calls = []

    @testing.perf_report(testing.Benchmark(
        x_names=["size"], x_vals=[1, 2, 4], line_arg="provider", line_vals=["a", "b"],
        line_names=["A", "B"], plot_name="demo", ylabel="ms", args={"scale": 10}))
    def bench(size, provider, scale):
        calls.append((size, provider, scale))
        base = size * scale
        return base if provider == "a" else (base + 1, base, base + 2)

    return bench, calls


def test_perf_report_writes_the_table_as_csv(tmp_path):
    bench, calls = _report()
    results = bench.run(save_path=str(tmp_path))
    assert calls == [(1, "a", 10), (1, "b", 10), (2, "a", 10), (2, "b", 10), (4, "a", 10),
                     (4, "b", 10)]
    with open(tmp_path / "demo.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["size", "A", "A (low)", "A (high)", "B", "B (low)", "B (high)"]
    assert rows[1:] == [["1", "10", "10", "10", "11", "10", "12"],
                        ["2", "20", "20", "20", "21", "20", "22"],
                        ["4", "40", "40", "40", "41", "40", "42"]]
    assert results["demo"][2] == [4, 40, 40, 40, 41, 40, 42]


def test_perf_report_draws_the_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs matplotlib (pip install tritonc[plot])")
    bench, _ = _report()
    bench.run(save_path=str(tmp_path))
    png = (tmp_path / "demo.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


def test_benchmark_checks_its_lines():
    with pytest.raises(ValueError, match="line_names"):
        testing.Benchmark(x_names=["n"], x_vals=[1], line_arg="p", line_vals=["a", "b"],
                          line_names=["A"], plot_name="bad")


def _gpu_torch():
    torch = pytest.importorskip("torch", reason="do_bench times CUDA events through torch")
    if not torch.cuda.is_available() or not tritonc.cuda_available():
        pytest.skip("do_bench needs a CUDA device")
    return torch


def test_do_bench_measures_device_time_not_a_stalled_host():
    torch = _gpu_torch()
    x = torch.empty(1024, device="cuda")

    def stalling_host():
        time.sleep(0.002)  # 2 ms on the host per run against microseconds of device work
        x.zero_()

    assert testing.do_bench(stalling_host, warmup=1, rep=20) < 0.5


def test_do_bench_after_a_slow_first_call_keeps_batches_short():
    # The first call of a kernel compiles or tunes it. do_bench once queued every later batch behind
    # a GPU-side wait twice as long as that call (the conv tutorial's sweep then seemed to hang);
    # now the first call is untimed and the wait stays within testing.MAX_WAIT_MS.
    torch = _gpu_torch()
    x = torch.empty(1024, device="cuda")
    calls = []

    def slow_first_call():
        if not calls:
            time.sleep(1.0)
        calls.append(1)
        x.zero_()

    timer = testing.DeviceTimer()
    started = time.perf_counter()
    assert testing.do_bench(slow_first_call, warmup=1, rep=20, timer=timer) < 0.5
    assert timer.wait_ms <= testing.MAX_WAIT_MS
    assert time.perf_counter() - started < 10.0


def test_do_bench_orders_small_and_large_work_and_returns_quantiles():
    torch = _gpu_torch()
    small = torch.empty(1 << 12, device="cuda")
    large = torch.empty(1 << 26, device="cuda")
    t_small = testing.do_bench(lambda: small.zero_(), rep=20)
    t_large = testing.do_bench(lambda: large.zero_(), rep=20)
    assert t_large > 10 * t_small
    med, lo, hi = testing.do_bench(lambda: large.zero_(), rep=20, quantiles=[0.5, 0.1, 0.9])
    assert lo <= med <= hi
