"""Tests of the benchmark report (bench/report.py): the issue-4 checks and the markdown fragment, on
synthetic results. Needs neither torch nor a GPU (the measurements themselves run on the device)."""

import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

import measurements  # noqa: E402
import report  # noqa: E402


def _results():
    r = measurements.Results()
    for name in ("half", "bfloat16"):
        fam = f"matmul {name}"
        for size, ours, cublas, triton in ((1024, 200, 230, 120), (2048, 600, 620, 560),
                                           (4096, 760, 770, 660), (8192, 700, 690, 600)):
            r.add(fam, size, "tritonc", "TFLOP/s", ours, "matmul.tc 128x256x64 w8 s3")
            r.add(fam, size, "cuBLAS", "TFLOP/s", cublas)
            r.add(fam, size, "triton", "TFLOP/s", triton)
    for size, ours, cublas in ((4096, 45.0, 51.0), (8192, 47.0, 50.0)):
        r.add("matmul float (no TF32)", size, "tritonc", "TFLOP/s", ours)
        r.add("matmul float (no TF32)", size, "cuBLAS", "TFLOP/s", cublas)
    for shape, ours, torch_, copy in (("4096x4096", 2300, 1200, 2500), ("8192x8192", 2500, 1000, 2900),
                                      ("32768x1024", 2000, 2039, 2700)):
        r.add("softmax half", shape, "tritonc", "GB/s", ours)
        r.add("softmax half", shape, "torch", "GB/s", torch_)
        r.add("softmax half", shape, "copy", "GB/s", copy)
    r.scalars["compile: cold total, source -> loaded module [ms]"] = 120.0
    r.scalars["launch: C++ JitKernel::launch [us]"] = 3.0
    r.ptxas.append(("matmul half 4096^3: matmul.tc", 168, 0, 0, 98304, 96))
    r.ptxas.append(("conv", 255, 756, 756, 33792, 0))
    return r


def _check(checks, text):
    matches = [c for c in checks if c[0] == text]
    assert len(matches) == 1, (text, [c[0] for c in checks])
    return matches[0]


def test_ratios_and_thresholds():
    checks = report.checks(_results())
    assert _check(checks, "fp16 GEMM 4096³ vs cuBLAS")[3] is True  # 760 / 770 = 0.987
    assert _check(checks, "fp16 GEMM 8192³ vs cuBLAS")[1] == "1.01×"
    geo = _check(checks, "fp16 GEMM geomean 1024–8192 vs cuBLAS")
    assert geo[3] is True and geo[2] == "≥ 0.90×"
    assert _check(checks, "bf16 GEMM 4096³ vs Triton tutorial matmul")[3] is True  # 1.15
    assert _check(checks, "bf16 GEMM 8192³ vs Triton tutorial matmul")[3] is True  # 1.17
    assert _check(checks, "fp32 GEMM 4096³ (FMA) vs cuBLAS without TF32")[3] is False  # 0.88
    assert _check(checks, "fp32 GEMM 8192³ (FMA) vs cuBLAS without TF32")[3] is True  # 0.94
    # Not measured is neither a pass nor a failure.
    mlp = _check(checks, "MLP C = A·Bᵀ N=4096 vs cuBLAS")
    assert mlp[1] == "not measured" and mlp[3] is None
    # Faster than torch.softmax is strict; 2000 / 2039 is not faster.
    assert _check(checks, "softmax fp16 4096x4096 vs torch.softmax")[3] is True
    assert _check(checks, "softmax fp16 32768x1024 vs torch.softmax")[3] is False
    assert _check(checks, "softmax fp16 8192x8192 vs copy")[3] is True  # 0.862
    assert _check(checks, "HGMMA in the SASS of the fp16 matmuls")[3] is True
    assert _check(checks, "no spills (ptxas -v) in the benchmarked kernels")[3] is False
    assert _check(checks, "cold compile 128×256×64 fp16 matmul, source -> loaded module")[3] is False
    assert _check(checks, "host launch overhead, C++ (JitKernel)")[3] is True
    assert _check(checks, "host launch overhead, Python (k[grid](x))")[3] is None


def test_host_speed_context():
    """The host-side checks show the run's yardstick PTX time and cuLaunchKernel's own cost, when
    measured; the pass/fail stays on the figure itself."""
    r = _results()
    name = "cold compile 128×256×64 fp16 matmul, source -> loaded module"
    assert _check(report.checks(r), name)[1] == "120.0 ms"
    r.scalars["compile: ptxas command line on matmul_128x256x64_9dc2b63.ptx (median of 3) [ms]"] = 82.04
    r.scalars["launch: C++ cuLaunchKernel [us]"] = 2.5
    checks = report.checks(r)
    compile_check = _check(checks, name)
    assert compile_check[1] == "120.0 ms (yardstick PTX 82.0 ms on this host, 106.3 on run 38's)"
    assert compile_check[3] is False
    launch = _check(checks, "host launch overhead, C++ (JitKernel)")
    assert launch[1] == "3.00 µs (cuLaunchKernel alone 2.50 µs)" and launch[3] is True


def test_markdown_fragment():
    r = _results()
    r.failures.append("covariance: RuntimeError: boom")
    meta = {"date": "2026-11-22", "device": "NVIDIA H100 80GB HBM3", "driver": "13.0", "torch": "2.11",
            "triton": "3.6.0", "tritonc": "0.1.0", "commit": "abc1234", "elapsed": 312.0, "runs": 30,
            "args": "--sweep", "results_dir": "2026-11-22-h100"}
    md = report.markdown(r, meta, ["matmul_half.png"])
    assert md.startswith("## 2026-11-22 — NVIDIA H100 80GB HBM3 (`bash bench/run.sh --sweep`)")
    assert "| matmul half, TFLOP/s | 1024 | 2048 | 4096 | 8192 |" in md
    assert "| tritonc / cuBLAS | 0.87× | 0.97× | 0.99× | 1.01× |" in md
    assert "| tritonc config | matmul.tc 128x256x64 w8 s3 |" in md
    assert "| fp32 GEMM 4096³ (FMA) vs cuBLAS without TF32 | 0.88× | ≥ 0.90× | **FAIL** |" in md
    assert "| MLP C = A·Bᵀ N=4096 vs cuBLAS | not measured | ≥ 1.00× | — |" in md
    assert "- covariance: RuntimeError: boom" in md
    assert "![matmul_half](results/2026-11-22-h100/matmul_half.png)" in md
    assert "GPU during each recorded comparison" not in md  # no NVML readings, no section


def test_markdown_records_the_host_and_the_gpu_state():
    r = _results()
    r.note_gpu_state("matmul half 8192", {"temp_c": 61.0, "sm_mhz": 1575.0, "power_w": 690.4,
                                          "limits": ["power cap"]})
    r.note_gpu_state("matmul half 4096", {})  # a compare without readings records nothing
    meta = {"date": "2026-11-26", "device": "H100", "driver": "13.0", "torch": "2.11", "triton": "3.6.0",
            "tritonc": "0.1.0", "commit": "abc1234", "elapsed": 80.0, "runs": 30, "args": "--sweep",
            "results_dir": "x", "host": "Intel(R) Xeon(R) Processor, 16 CPUs", "gpu_start": "38 C, 345 MHz, 75 W"}
    md = report.markdown(r, meta, [])
    assert "Host: Intel(R) Xeon(R) Processor, 16 CPUs. GPU at the start: 38 C, 345 MHz, 75 W." in md
    assert "- matmul half 8192: 61 C, 1575 MHz, 690 W (power cap)" in md
    assert "matmul half 4096:" not in md


def test_failing_step_is_recorded_and_the_run_goes_on(capsys):
    r = measurements.Results()

    def broken():
        raise ValueError("no such kernel")

    measurements.run_step(r, "broken step", broken)
    measurements.run_step(r, "good step", lambda: r.add("f", 1, "tritonc", "GB/s", 1.0))
    assert r.failures == ["broken step: ValueError: no such kernel"]
    assert r.get("f", 1, "tritonc").value == 1.0
    assert "!! broken step FAILED: ValueError: no such kernel" in capsys.readouterr().out


def test_conv_geomean_checks():
    """Issue 28: the geomean over a convolution family's shapes against cuDNN at its best, with its
    range; a family that did not run is not measured; a spilling conv kernel fails its own check."""
    r = _results()
    fam = "conv half data gradient (conv_nhwc_dgrad.tc)"
    for shape, ours in (("a", 83.0), ("b", 100.0)):
        r.add(fam, shape, "tritonc", "TFLOP/s", ours)
        r.add(fam, shape, "cuDNN", "TFLOP/s", 100.0)
    checks = report.checks(r)
    dgrad = _check(checks, "conv fp16 data gradient (conv_nhwc_dgrad.tc) geomean vs cuDNN")
    assert dgrad[1] == "0.91× (0.83–1.00×, 2 shapes)" and dgrad[3] is True
    assert _check(checks, "conv bf16 forward (conv_nhwc.tc) geomean vs cuDNN")[3] is None
    assert _check(checks, "no spills (ptxas -v) in the benchmarked conv kernels")[3] is None
    r.ptxas.append(("conv half data gradient (conv_nhwc_dgrad.tc) a: 64x64", 200, 8, 8, 0, 0))
    assert _check(report.checks(r), "no spills (ptxas -v) in the benchmarked conv kernels")[3] is False
