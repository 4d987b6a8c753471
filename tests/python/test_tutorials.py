"""The tutorials (docs/tutorials) run: their correctness parts on the CPU interpreter here (the GPU
tier runs them whole, benchmarks and plots included)."""
import importlib.util
import pathlib
import subprocess
import sys

import pytest

import tritonc

TUTORIALS = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tutorials"
SCRIPTS = sorted(p.name for p in TUTORIALS.glob("0*.py"))
NEEDS_TORCH = {"05-convolution.py"}


def test_every_tutorial_is_listed():
    assert SCRIPTS == ["01-vector-add.py", "02-fused-softmax.py", "03-matmul.py",
                       "04-transpose.py", "05-convolution.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_tutorial_runs_on_the_interpreter(script, tmp_path):
    if script in NEEDS_TORCH and importlib.util.find_spec("torch") is None:
        pytest.skip("this tutorial uses torch")
    out = subprocess.run([sys.executable, str(TUTORIALS / script), "--interpret", "--save",
                          str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "interpreter:" in out.stdout


@pytest.mark.skipif(not tritonc.cuda_available(), reason="the benchmarks need a GPU")
@pytest.mark.parametrize("script", SCRIPTS)
def test_the_tutorial_benchmarks_and_plots_on_the_gpu(script):
    pytest.importorskip("torch", reason="the benchmarks compare against torch")
    out = subprocess.run([sys.executable, str(TUTORIALS / script)], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    name = {"01-vector-add.py": "vector-add", "02-fused-softmax.py": "softmax",
            "03-matmul.py": "matmul", "04-transpose.py": "transpose",
            "05-convolution.py": "conv2d"}[script]
    assert (TUTORIALS / "plots" / f"{name}.csv").is_file()
