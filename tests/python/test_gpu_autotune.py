"""On the GPU: a cold 6-candidate autotune of the fp16 matmul (parallel compile, real timing) and
a second process that compiles and tunes nothing; a warm process's first launch of the big matmul
loads the cached cubin (no driver JIT) and computes the right product. Each scenario runs in fresh
processes with a private cache. bench/autotune_cold.py measures the same cold tune against upstream
Triton's."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

import tritonc

torch = pytest.importorskip("torch", reason="the GPU autotune tests use torch tensors")
if not tritonc.cuda_available() or not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

# The cold tune of bench/autotune_cold.py (tritonc's side), at 4096^3.
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
import autotune_cold  # noqa: E402
import autotune_split  # noqa: E402

TUNE = autotune_cold.TRITONC.replace("SIZE", "4096")

FIRST_LAUNCH = r"""
import json, time, torch, tritonc
size = 4096
a = torch.randn(size, size, device="cuda", dtype=torch.float16)
b = torch.randn(size, size, device="cuda", dtype=torch.float16)
c = torch.empty(size, size, device="cuda", dtype=torch.float16)
torch.cuda.synchronize()
start = time.perf_counter()
k = tritonc.compile(tritonc.kernels_dir() + "/matmul.tc",
                    defines={"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}, num_warps=8)
k[(size // 128, size // 256)](a, b, c, size, size, size, size, size, size)
torch.cuda.synchronize()
seconds = time.perf_counter() - start
spec = k.specialization(a, b, c, size, size, size, size, size, size)
ref = a.float() @ b.float()
error = ((c.float() - ref).abs().max() / ref.abs().max()).item()
print(json.dumps({"seconds": seconds, "load": k.timings(spec)["load"], "error": error,
                  "cache": tritonc.cache_stats()}))
"""


def _run(code, cache, **extra_env):
    env = dict(os.environ, TRITONC_CACHE_DIR=str(cache), **extra_env)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    print(result)
    return result


def test_a_cold_tune_then_a_second_process_that_tunes_nothing(tmp_path):
    cold = _run(TUNE, tmp_path)
    assert cold["error"] < 1e-2
    assert cold["stats"] == {"tuned": 1, "compiled": 6, "benchmarked": 6, "from_disk": 0}
    warm = _run(TUNE, tmp_path)
    assert warm["stats"] == {"tuned": 0, "compiled": 0, "benchmarked": 0, "from_disk": 1}
    assert warm["config"] == cold["config"]
    # Nothing compiled: every kernel-cache lookup hit the disk.
    assert warm["cache"]["misses"] == 0 and warm["cache"]["stores"] == 0, warm["cache"]
    # The cold tune's time (issue 27's goal: <= 0.5 s) is a host-side time: it is judged against its
    # yardstick, upstream Triton's cold tune in the same process run, by bench/autotune_cold.py (a
    # gpu-test step), not by an absolute bound here. The warm process must not tune at all.
    assert warm["seconds"] < cold["seconds"], (warm, cold)


def test_a_warm_process_launches_the_big_matmul_without_the_driver_jit(tmp_path):
    # The wgmma/TMA matmul from a cubin the driver's JIT linker made: it faulted with
    # CUDA_ERROR_MISALIGNED_ADDRESS while its mbarriers were a static shared array.
    cold = _run(FIRST_LAUNCH, tmp_path)
    warm = _run(FIRST_LAUNCH, tmp_path)
    assert cold["error"] < 1e-2 and warm["error"] < 1e-2, (cold["error"], warm["error"])
    assert warm["cache"]["misses"] == 0, warm["cache"]
    # The cubin came from the cache: loading it is far below the driver's PTX -> SASS (~100 ms).
    assert warm["load"] < 0.2 * cold["load"], (cold["load"], warm["load"])
    assert warm["seconds"] <= 0.010, f"first launch in a warm process: {warm['seconds']:.4f} s"


SOFTMAX_VARIANT = r"""
import json, torch, tritonc
n = 8192
x = torch.randn(n, n, device="cuda", dtype=torch.float16)
y = torch.empty_like(x)
k = tritonc.compile(tritonc.kernels_dir() + "/softmax.tc", defines={"TYPE": "half", "TM": 1, "TN": n},
                    num_warps=8)
k[(n,)](x, y, n, n, n, n)
spec = k.specialization(x, y, n, n, n, n)
error = (y.float() - torch.softmax(x.float(), 1)).abs().max().item()
print(json.dumps({"regs": k.attributes(spec)["num_regs"], "ptx": k.variant_ptx(spec), "arch": k.arch,
                  "error": error}))
"""


@pytest.mark.skipif(autotune_split.find_ptxas() is None,
                    reason="needs ptxas ($TRITONC_PTXAS, PATH or /usr/local/cuda/bin) for the reference")
@pytest.mark.parametrize("sass", ["default", "driver"])
def test_launched_variants_run_whole_program_sass(tmp_path, sass):
    # The driver's JIT linker (cuLink*), which once filled the cubin cache, compiles PTX as relocatable
    # code: this softmax took 72 registers instead of 64 and ran 1.3x slower. A variant loaded from
    # the cache (default) or by the driver's JIT (TRITONC_SASS=driver) must match ptxas's registers.
    env = {} if sass == "default" else {"TRITONC_SASS": "driver"}
    got = _run(SOFTMAX_VARIANT, tmp_path, **env)
    assert got["error"] < 1e-2, got["error"]
    ptx = tmp_path / "variant.ptx"
    ptx.write_text(got["ptx"])
    out = subprocess.run([autotune_split.find_ptxas(), f"-arch={got['arch']}", "-v", str(ptx), "-o",
                          os.devnull], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    regs = int(re.search(r"Used (\d+) registers", out.stderr).group(1))
    assert got["regs"] == regs, (got["regs"], regs)
