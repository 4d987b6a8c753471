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
    calls, providers = _recording_providers("a", "b")
    seconds = timer.compare(providers, rounds=2, runs=4)
    assert set(seconds) == {"a", "b"}
    assert calls[:2] == ["a", "b"]  # the warm-up, one call each
    # Two turns of two runs each; the second turn starts with the other provider. A turn is queued
    # again, whole, when the host fell behind the GPU-side wait (a slow host: it failed that way on
    # the H100's host once), so each turn may appear more than once.
    assert _turns(calls[2:]) == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
    assert {name: len(times) for name, times in timer.last_samples.items()} == {"a": 4, "b": 4}


def test_a_turn_the_host_fell_behind_in_is_queued_again_whole():
    timer = common.Timer(warmup=1, runs=4)
    timer.sleep_cycles_per_ms = 0  # no GPU-side wait: the host always falls behind, two attempts
    calls, providers = _recording_providers("a", "b")
    timer.compare(providers, rounds=2, runs=4)
    assert calls[2:] == ["a", "b", "a", "b"] * 2 + ["b", "a", "b", "a"] * 2
    assert {name: len(times) for name, times in timer.last_samples.items()} == {"a": 4, "b": 4}


def _recording_providers(*names):
    """Providers that each launch a small kernel and append their name to the returned list."""
    x = torch.empty(1024, device="cuda")
    calls = []

    def provider(name):
        def run():
            calls.append(name)
            x.zero_()
        return run

    return calls, {name: provider(name) for name in names}


def _turns(calls, per_turn=4):
    """The distinct turns in order, each attempt of a turn collapsed into one."""
    assert len(calls) % per_turn == 0, calls
    turns = []
    for i in range(0, len(calls), per_turn):
        if not turns or turns[-1] != calls[i:i + per_turn]:
            turns.append(calls[i:i + per_turn])
    return turns
