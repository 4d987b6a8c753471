"""The benchmark timer (bench/common.py) measures device time only: a host that stalls between the
launches must not reach the median. Needs torch and a CUDA GPU (it times CUDA events); without them
the module is skipped, as on the CI machine."""

import pathlib
import sys
import time

import pytest

torch = pytest.importorskip("torch", reason="the benchmark timer needs torch")
if not torch.cuda.is_available():
    pytest.skip("the benchmark timer measures CUDA events: needs a GPU", allow_module_level=True)

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import common  # noqa: E402


def test_a_stalled_host_does_not_reach_the_measurement():
    timer = common.Timer(warmup=1, runs=20)
    x = torch.empty(1024, device="cuda")

    def stalling_host():
        time.sleep(0.002)  # 2 ms on the host per run, against microseconds of device work
        x.zero_()

    assert timer(stalling_host) < 0.0005


def test_compare_rotates_the_providers_run_by_run():
    timer = common.Timer(warmup=1, runs=4)
    x = torch.empty(1024, device="cuda")
    calls = []

    def provider(name):
        def run():
            calls.append(name)
            x.zero_()
        return run

    seconds = timer.compare({"a": provider("a"), "b": provider("b")}, rounds=2, runs=4)
    assert set(seconds) == {"a", "b"}
    assert calls[:2] == ["a", "b"]  # the warm-up, one call each
    # Two turns of two runs each; the second turn starts with the other provider.
    assert calls[2:] == ["a", "b", "a", "b", "b", "a", "b", "a"]
    assert {name: len(times) for name, times in timer.last_samples.items()} == {"a": 4, "b": 4}
