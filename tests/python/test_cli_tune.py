"""`tritonc tune` on the GPU: every configuration of the tuning lists compiled in parallel, timed on
the .npy arguments, the best printed; `tritonc run` of the best configuration then computes the
transpose. Needs the tool ($TRITONC) and a GPU (scripts/gpu-test sets both)."""

import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

import tritonc

TRITONC = os.environ.get("TRITONC")
KERNELS = pathlib.Path(tritonc.kernels_dir())

pytestmark = [pytest.mark.skipif(not TRITONC, reason="needs the tritonc tool ($TRITONC)"),
              pytest.mark.skipif(not tritonc.cuda_available(), reason="needs a CUDA device")]


def test_tune_prints_every_configuration_and_the_best(tmp_path):
    m, n = 1024, 768
    x = np.random.rand(m, n).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.zeros((n, m), np.float32))
    space = ["-DTM=[32,64]", "-DTN=[32,64]", "--num-warps=[4,8]"]
    args = [str(tmp_path / "x.npy"), str(tmp_path / "y.npy"), str(m), str(n), str(n), str(m)]
    out = subprocess.run([TRITONC, "tune", str(KERNELS / "transpose.tc"), *space, "--grid",
                          f"cdiv({m},TM),cdiv({n},TN)", "--runs", "10", *args],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    timed = [line for line in lines if re.match(r"configuration \d+: .*: [0-9.e-]+ ms$", line)]
    assert len(timed) == 8, out.stdout
    assert "compiled 8/8" in out.stderr and "timed 8/8, best so far" in out.stderr
    best = re.match(r"best: configuration (\d+): (.*) \(([0-9.e-]+) ms\)$", lines[-1])
    assert best, out.stdout
    times = [float(line.rsplit(": ", 1)[1].split()[0]) for line in timed]
    assert float(best.group(3)) == min(times)
    # The best configuration computes the transpose.
    tuned = dict(part.split("=") for part in best.group(2).split())
    grid = f"{m // int(tuned['TM'])},{n // int(tuned['TN'])}"
    run = subprocess.run([TRITONC, "run", str(KERNELS / "transpose.tc"), *space,
                          f"--config={best.group(1)}", "--device", "--grid", grid, "--out",
                          str(tmp_path / "out"), *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "Y.npy"), x.T)
