"""tritonc.autotune's logic on the CPU interpreter with a fake timer: the choice, the skipped
candidates, prune and reset_to_zero, the key, and the choice persisted so that a second process
compiles and times nothing. Needs no GPU (the GPU tier times real candidates:
test_gpu_package.py)."""

import json
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

import tritonc

SCALE = """
#if BLOCK > 128
#error BLOCK is too large for this kernel
#endif
__global__ void scale(float *X, float *Y, float a, int N) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < N;
  float *px[BLOCK] = X + off;
  float *py[BLOCK] = Y + off;
  *?(m) py = a * *?(m) px + *?(m) py;
}
"""

CONFIGS = [tritonc.Config({"BLOCK": 32}), tritonc.Config({"BLOCK": 64}, num_warps=2),
           tritonc.Config({"BLOCK": 128}, num_warps=8)]


class FakeBench:
    """Returns the given milliseconds in order (the candidates are timed in order); records the
    callables it timed and calls each once, as a real timer would."""

    def __init__(self, times):
        self.times, self.calls = list(times), 0

    def __call__(self, fn):
        fn()
        self.calls += 1
        return self.times.pop(0)


def _grid(meta):
    return (tritonc.cdiv(meta["N"], meta["BLOCK"]),)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    # tritonc's cache directory is fixed at import; the tuner's records follow cache_dir().
    monkeypatch.setattr(tritonc._tritonc, "cache_dir", lambda: str(tmp_path))
    return tmp_path


def _tuner(bench, **kwargs):
    return tritonc.autotune(SCALE, configs=CONFIGS, key=["N"], do_bench=bench, interpret=True,
                            progress=False, **kwargs)


def test_the_fastest_candidate_is_chosen_and_launched(cache):
    bench = FakeBench([3.0, 1.0, 2.0])
    tuned = _tuner(bench, reset_to_zero=["Y"])
    x = np.arange(100, dtype=np.float32)
    y = np.full(100, 7, dtype=np.float32)  # zeroed before every run (reset_to_zero)
    tuned[_grid](x, y, 2.0, 100)
    assert tuned.best_config == CONFIGS[1]
    np.testing.assert_array_equal(y, 2 * x)
    assert tuned.stats == {"tuned": 1, "compiled": 3, "benchmarked": 3, "from_disk": 0}
    assert bench.calls == 3
    # The same key again: nothing is tuned.
    tuned[_grid](x, y, 2.0, 100)
    assert tuned.stats["tuned"] == 1 and bench.calls == 3
    # Another key value is tuned on its own.
    bench.times = [1.0, 2.0, 3.0]
    tuned[_grid](x[:50], y[:50], 2.0, 50)
    assert tuned.stats["tuned"] == 2 and tuned.best_config == CONFIGS[0]
    records = list((cache / "autotune").glob("*.json"))
    assert len(records) == 2
    assert {json.loads(r.read_text())["config"] for r in records} == {
        CONFIGS[0].describe(), CONFIGS[1].describe()}


def test_the_phases_of_a_tuning_are_timed(cache):
    def slow_bench(fn):
        fn()
        time.sleep(0.02)
        return 1.0
    tuned = _tuner(slow_bench)
    x = np.arange(100, dtype=np.float32)
    tuned[_grid](x, np.zeros(100, dtype=np.float32), 2.0, 100)
    assert set(tuned.tune_seconds) == {"compile", "benchmark"}
    assert tuned.tune_seconds["benchmark"] >= 3 * 0.02
    assert tuned.tune_seconds["compile"] > 0


def test_candidates_timed_as_they_finish_compiling_give_the_same_choice(cache):
    # As on the GPU: each candidate is timed once it is ready, in whatever order they finish.
    by_block = {32: 3.0, 64: 1.0, 128: 2.0}

    def bench(fn):
        fn()
        kernel = fn.__defaults__[0]  # run(kernel=..., g=...)
        return by_block[kernel.meta["BLOCK"]]
    tuned = _tuner(bench, reset_to_zero=["Y"])
    tuned._overlap = True
    x = np.arange(100, dtype=np.float32)
    y = np.zeros(100, dtype=np.float32)
    tuned[_grid](x, y, 2.0, 100)
    assert tuned.best_config == CONFIGS[1]
    assert list(tuned.timings.values()) == [3.0, 1.0, 2.0]
    assert tuned.stats == {"tuned": 1, "compiled": 3, "benchmarked": 3, "from_disk": 0}
    np.testing.assert_array_equal(y, 2 * x)


def test_a_candidate_that_does_not_compile_is_skipped(cache):
    configs = CONFIGS + [tritonc.Config({"BLOCK": 256})]
    bench = FakeBench([5.0, 4.0, 3.0])
    tuned = tritonc.autotune(SCALE, configs=configs, key=["N"], do_bench=bench, interpret=True,
                             progress=False, reset_to_zero=["Y"])
    x = np.ones(40, dtype=np.float32)
    y = np.zeros(40, dtype=np.float32)
    tuned[_grid](x, y, 1.0, 40)
    assert tuned.best_config == CONFIGS[2]
    assert tuned.timings[configs[3]] == float("inf")
    assert bench.calls == 3
    np.testing.assert_array_equal(y, x)


def test_prune_limits_the_candidates(cache):
    bench = FakeBench([2.0, 1.0])
    tuned = _tuner(bench, prune=lambda configs, args: [c for c in configs
                                                       if c.defines["BLOCK"] <= args["N"]])
    x = np.ones(64, dtype=np.float32)
    y = np.zeros(64, dtype=np.float32)
    tuned[_grid](x, y, 1.0, 64)
    assert set(tuned.timings) == {CONFIGS[0], CONFIGS[1]}
    assert tuned.best_config == CONFIGS[1]


def test_the_tuning_space_of_compile_define_lists(cache):
    k = tritonc.compile(SCALE, defines={"BLOCK": [32, 64]}, num_warps=[1, 2], interpret=True,
                        config=0)
    bench = FakeBench([4.0, 3.0, 1.0, 2.0])
    tuned = tritonc.autotune(k, key=["N"], do_bench=bench, progress=False, reset_to_zero=["Y"])
    x = np.ones(70, dtype=np.float32)
    y = np.zeros(70, dtype=np.float32)
    tuned[_grid](x, y, 1.0, 70)
    assert [c.describe() for c in tuned.configs] == [
        "BLOCK=32 num_warps=1 num_stages=3", "BLOCK=32 num_warps=2 num_stages=3",
        "BLOCK=64 num_warps=1 num_stages=3", "BLOCK=64 num_warps=2 num_stages=3"]
    assert tuned.best_config.describe() == "BLOCK=64 num_warps=1 num_stages=3"
    np.testing.assert_array_equal(y, x)


def test_unknown_key_names_are_reported(cache):
    tuned = tritonc.autotune(SCALE, configs=CONFIGS, key=["M"], interpret=True, progress=False)
    with pytest.raises(ValueError, match=r"\['M'\] are not parameters"):
        tuned[_grid](np.ones(4, np.float32), np.ones(4, np.float32), 1.0, 4)


PROCESS = """
import os, sys
import numpy as np
import tritonc
sys.path.insert(0, os.environ["TEST_DIR"])
from test_autotune import SCALE, CONFIGS, _grid, FakeBench

bench = FakeBench(TIMES)
tuned = tritonc.autotune(SCALE, configs=CONFIGS, key=["N"], do_bench=bench, interpret=True,
                         progress=False, reset_to_zero=["Y"])
x = np.arange(100, dtype=np.float32); y = np.zeros(100, dtype=np.float32)
tuned[_grid](x, y, 2.0, 100)
assert (y == 2 * x).all()
print(tuned.stats, tuned.best_config.describe())
"""


def test_a_second_process_compiles_and_tunes_nothing(tmp_path):
    env = dict(os.environ, TRITONC_CACHE_DIR=str(tmp_path),
               TEST_DIR=str(pathlib.Path(__file__).parent), TRITONC_PRINT_AUTOTUNING="1")
    first = subprocess.run([sys.executable, "-c", PROCESS.replace("TIMES", "[3.0, 1.0, 2.0]")],
                           env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert "'tuned': 1, 'compiled': 3, 'benchmarked': 3" in first.stdout
    # No times at all: FakeBench fails if the second process times anything.
    second = subprocess.run([sys.executable, "-c", PROCESS.replace("TIMES", "[]")], env=env,
                            capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert ("{'tuned': 0, 'compiled': 0, 'benchmarked': 0, 'from_disk': 1} "
            "BLOCK=64 num_warps=2 num_stages=3") in second.stdout
    assert "tritonc.autotune: scale key {'N': 100}: BLOCK=64" in second.stderr


def test_configs_may_set_warp_specialize(cache):
    # A Config carries the back-end option warp_specialize (None: the kernel's own); it is named in the
    # description (and the persisted choice) only when set, so other configurations' records stay valid.
    assert tritonc.Config({"BLOCK": 64}, num_warps=4).describe() == "BLOCK=64 num_warps=4 num_stages=3"
    both = [tritonc.Config({"BLOCK": 64}, num_warps=4, warp_specialize=flag) for flag in (False, True)]
    assert [c.describe() for c in both] == ["BLOCK=64 num_warps=4 num_stages=3 warp_specialize=0",
                                            "BLOCK=64 num_warps=4 num_stages=3 warp_specialize=1"]
    assert both[0] != both[1]
    tuned = tritonc.autotune(SCALE, configs=both, key=["N"], interpret=True, progress=False,
                             do_bench=FakeBench([2.0, 1.0]), reset_to_zero=["Y"])
    x = np.ones(64, dtype=np.float32)
    y = np.zeros(64, dtype=np.float32)
    tuned[_grid](x, y, 2.0, 64)
    assert tuned.best_config == both[1]
    np.testing.assert_array_equal(y, 2 * x)
