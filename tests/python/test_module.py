"""Tests of the tritonc Python module.

Run with the module on the path:  export PYTHONPATH=$(scripts/build-python.sh); pytest tests/python
The tests at the top need no GPU. Those that launch kernels are defined only
where a CUDA device is usable (tritonc.cuda_available()); there they use
tritonc.DeviceBuffer with NumPy, and torch tensors.
"""

import atexit
import os
import pathlib
import re
import shutil
import tempfile

# A private kernel cache: set before tritonc creates its process-wide cache.
_CACHE = tempfile.mkdtemp(prefix="tritonc-pytest-cache-")
atexit.register(shutil.rmtree, _CACHE, True)
os.environ["TRITONC_CACHE_DIR"] = _CACHE

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import tritonc  # noqa: E402
from kernel_sources import AXPY  # noqa: E402

KERNELS = pathlib.Path(__file__).resolve().parents[2] / "kernels"
TRANSPOSE = KERNELS / "transpose.tc"
_GPU, _GPU_TEXT = tritonc.cuda_status()


def test_compile_file_gives_ptx_and_metadata():
    k = tritonc.compile(TRANSPOSE)
    assert ".visible .entry transpose(" in k.ptx
    assert k.name == "transpose"
    assert k.num_warps == 4
    assert k.shared_mem >= 0
    assert k.signature == "transpose(f32* X, f32* Y, i32 M, i32 N, i32 ldx, i32 ldy)"
    assert k.params == [("X", "f32*"), ("Y", "f32*"), ("M", "i32"), ("N", "i32"),
                        ("ldx", "i32"), ("ldy", "i32")]
    assert k.arch in ("sm_90a", "sm_80")
    if not _GPU:
        assert k.arch == "sm_90a"  # the back end's default target
    assert f".target {k.arch}" in k.ptx
    assert "transpose" in repr(k)
    # A str path works too.
    assert tritonc.compile(str(TRANSPOSE)).ptx == k.ptx


def test_a_warp_specialized_kernel_launches_its_partitions_warps():
    # tests/kernels/gpuir/matmul_ws.tir: a producer and two consumer warpgroups, each consumer laid out for
    # num_warps = 4; the kernel (and every launch of it) has the partitions' 12 warps.
    k = tritonc.compile(pathlib.Path(__file__).resolve().parents[1] / "kernels" / "gpuir" / "matmul_ws.tir",
                        num_warps=4, arch="sm_90a")
    assert k.num_warps == 12
    assert ".reqntid 384, 1, 1" in k.ptx


def test_a_lazy_kernel_compiles_only_the_variants_asked_for():
    k = tritonc.compile(TRANSPOSE, lazy=True, cache=False)
    # The front end alone: the parameters, no variant.
    assert k._impl.num_variants == 0
    assert k.name == "transpose"
    assert k.signature == "transpose(f32* X, f32* Y, i32 M, i32 N, i32 ldx, i32 ldy)"
    assert ".entry transpose(" in k.variant_ptx("DDDDDD")
    assert k._impl.num_variants == 1
    # The generic variant when asked for.
    assert k.ptx == tritonc.compile(TRANSPOSE, cache=False).ptx
    assert k._impl.num_variants == 2
    with pytest.raises(tritonc.CompileError, match="expected"):
        tritonc.compile("__global__ void k(int *X) { X = ; }", lazy=True)


def test_the_device_to_compile_for_is_a_cuda_ordinal():
    class Device:  # as torch.device("cpu") looks
        type, index = "cpu", None
    for bad in (-1, "cuda:0", True, Device()):
        with pytest.raises(ValueError, match="device must be a CUDA device"):
            tritonc.compile(TRANSPOSE, device=bad)
    assert tritonc.compile(TRANSPOSE, device=0).ptx == tritonc.compile(TRANSPOSE).ptx


def test_options_reach_the_back_end():
    k = tritonc.compile(TRANSPOSE, defines={"TM": 64, "TN": 16}, num_warps=8, arch="sm_80")
    assert k.num_warps == 8
    assert k.arch == "sm_80"
    assert ".target sm_80" in k.ptx
    # Tuning lists pick a configuration.
    k2 = tritonc.compile(TRANSPOSE, defines={"TM": [32, 64]}, config=1, arch="sm_80")
    assert ".target sm_80" in k2.ptx
    with pytest.raises(tritonc.CompileError, match="configurations; select one"):
        tritonc.compile(TRANSPOSE, defines={"TM": [32, 64]})


def test_wgmma_loops_get_rings_as_gpu_level_ir():
    # The wgmma loops' cp.async rings are GPU-level IR: without bulk tensor copies, an aligned sm_90a matmul
    # gets one commit group per iteration (async-rings: cp.async.wait_group 1 with 3 stages); wgmma on the
    # slots, one group in flight across the back edge (mma-in-flight).
    opts = dict(defines={"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, arch="sm_90a", tma=False, cache=False)
    default = tritonc.compile(KERNELS / "matmul.tc", **opts).variant_ptx("D" * 9)
    assert "wgmma.mma_async" in default and "wgmma.wait_group.sync.aligned 1;" in default
    assert "cp.async.wait_group 1;" in default and "cp.async.wait_group 2;" not in default


def test_mma_sync_loops_get_rings_as_gpu_level_ir():
    # sm_80: async-rings makes the rings (one commit group per iteration, wait_group 1).
    opts = dict(defines={"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, arch="sm_80", cache=False)
    default = tritonc.compile(KERNELS / "matmul.tc", **opts).variant_ptx("D" * 9)
    assert "cp.async.wait_group 1;" in default and "cp.async.wait_group 2;" not in default
    with pytest.raises(TypeError):
        tritonc.compile(KERNELS / "matmul.tc", explicit_rings=False, **opts)


def test_warp_specialize_option():
    # warp_specialize=True: the aligned variant of a TMA-ring wgmma matmul is split into a producer warpgroup
    # and the kernel's 4 warps as consumers (8 warps launched, register budgets set); off by default.
    opts = dict(defines={"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, arch="sm_90a", cache=False)
    split = tritonc.compile(KERNELS / "matmul.tc", warp_specialize=True, **opts).variant_ptx("D" * 9)
    assert ".reqntid 256, 1, 1" in split and "setmaxnreg.dec.sync.aligned.u32 40;" in split
    assert "setmaxnreg" not in tritonc.compile(KERNELS / "matmul.tc", **opts).variant_ptx("D" * 9)
    # It needs sm_90a with bulk tensor copies: the compiler's own usage error, as a ValueError.
    for other in (dict(arch="sm_80"), dict(arch="sm_90a", tma=False)):
        with pytest.raises(ValueError, match="warp_specialize needs sm_90a with bulk tensor copies"):
            tritonc.compile(KERNELS / "matmul.tc", warp_specialize=True, cache=False,
                            defines=opts["defines"], **other)


def test_trans_operands_in_async_rings():
    # B stored N x K (TRANS_B) reaches the wgmma dot through a `trans`: async-rings rings it in column-major
    # slots (one commit group per iteration, wait_group 1).
    opts = dict(defines={"TYPE": "half", "TM": 64, "TN": 64, "TK": 32, "TRANS_B": 1}, arch="sm_90a", tma=False,
                cache=False)
    default = tritonc.compile(KERNELS / "matmul.tc", **opts).variant_ptx("D" * 9)
    assert "cp.async.wait_group 1;" in default and "cp.async.wait_group 2;" not in default
    assert "wgmma.mma_async" in default


def test_compile_source_text():
    k = tritonc.compile(AXPY)
    assert k.signature == "axpy(f32* X, f32* Y, f32 a, i32 N)"
    assert ".visible .entry axpy(" in k.ptx


TWO_KERNELS = """
__global__ void first(float *X) { *X = 1; }
__global__ void second(float *X, int N) { *X = N; }
"""


def test_compile_picks_a_kernel_by_name():
    assert tritonc.compile(TWO_KERNELS).name == "first"
    k = tritonc.compile(TWO_KERNELS, kernel="second")
    assert k.name == "second"
    assert k.signature == "second(f32* X, i32 N)"
    with pytest.raises(tritonc.CompileError,
                       match=r"<source>:2:\d+: error: no kernel named 'third' \(kernels: 'first', 'second'\)"):
        tritonc.compile(TWO_KERNELS, kernel="third")


def test_debug_compiles_print_and_assert():
    src = AXPY.replace("*?(m) py = a", 'print("a = %f", a);\n  assert(a > 0, "a");\n  *?(m) py = a')
    release, debug = tritonc.compile(src), tritonc.compile(src, debug=True)
    assert "vprintf" not in release.ptx and "__assertfail" not in release.ptx
    assert release.ptx == tritonc.compile(AXPY).ptx
    assert "call (tritonc_ret), vprintf" in debug.ptx and "__assertfail" in debug.ptx


def test_compile_errors_carry_locations():
    src = "__global__ void k(float *X) {\n  *X = y;\n}\n"
    with pytest.raises(tritonc.CompileError) as info:
        tritonc.compile(src, name="bad.tc")
    assert re.search(r"bad\.tc:2:\d+: error: ", str(info.value)), str(info.value)
    assert isinstance(info.value, RuntimeError)
    with pytest.raises(tritonc.CompileError, match=r"<source>:2:\d+: error: "):
        tritonc.compile(src)
    # Errors in a file name the file.
    with pytest.raises(tritonc.CompileError, match=r"transpose\.tc:\d+:\d+: error: "):
        tritonc.compile(TRANSPOSE, defines={"TYPE": "floatx"})


def test_bad_options():
    with pytest.raises(FileNotFoundError):
        tritonc.compile(KERNELS / "no-such-kernel.tc")
    with pytest.raises(ValueError, match="num_warps must be 1, 2, 4, 8 or 16, not 3"):
        tritonc.compile(TRANSPOSE, num_warps=3)
    with pytest.raises(ValueError, match="unknown target 'sm_70'"):
        tritonc.compile(TRANSPOSE, arch="sm_70")
    with pytest.raises(TypeError, match="define 'TM'"):
        tritonc.compile(TRANSPOSE, defines={"TM": object()})


def test_num_stages():
    k = tritonc.compile(TRANSPOSE)
    assert k.num_stages == 3
    assert "num_stages=3" in repr(k)
    assert tritonc.compile(TRANSPOSE, num_stages=1).num_stages == 1
    assert tritonc.compile(TRANSPOSE, num_stages=np.int64(8)).num_stages == 8
    # A list is tuned like a define list; config picks (last list fastest).
    k2 = tritonc.compile(TRANSPOSE, num_stages=[2, 4], num_warps=[4, 8], config=1)
    assert (k2.num_stages, k2.num_warps) == (4, 4)
    k3 = tritonc.compile(TRANSPOSE, num_stages=(2, 4), num_warps=[4, 8], config=2)
    assert (k3.num_stages, k3.num_warps) == (2, 8)
    with pytest.raises(tritonc.CompileError, match="configurations; select one"):
        tritonc.compile(TRANSPOSE, num_stages=[2, 4])
    with pytest.raises(ValueError, match="num_stages must be 1 to 8, not 9"):
        tritonc.compile(TRANSPOSE, num_stages=9)
    # The compiler's check (as for tritonc compile): the same message for 0 as for 9.
    with pytest.raises(ValueError, match="num_stages must be 1 to 8, not 0"):
        tritonc.compile(TRANSPOSE, num_stages=0)
    with pytest.raises(ValueError, match="num_stages must be a non-negative 32-bit int, not -1"):
        tritonc.compile(TRANSPOSE, num_stages=-1)
    with pytest.raises(TypeError, match="num_stages must be an int or a list of ints, not float"):
        tritonc.compile(TRANSPOSE, num_stages=2.5)
    with pytest.raises(TypeError, match="num_stages must be an int or a list of ints, not bool"):
        tritonc.compile(TRANSPOSE, num_stages=True)
    # Every value of a list is checked, whichever configuration is selected.
    with pytest.raises(ValueError, match=re.escape(
            "num_stages must be 1 to 8, not 9 (in the list num_stages=[3,9])")):
        tritonc.compile(TRANSPOSE, num_stages=[3, 9], config=0)


SHOWS_OPTIONS = """
#if defined(TRITONC_NUM_WARPS) || defined(TRITONC_NUM_STAGES)
__global__ void visible(float *X) { *X = 1.0f; }
#else
__global__ void hidden(float *X) { *X = 1.0f; }
#endif
"""


def test_options_are_not_macros():
    # num_warps / num_stages reach the back end, never the preprocessor: on the GPU path and on
    # the interpreter, tuned or not.
    k = tritonc.compile(SHOWS_OPTIONS, num_warps=[4, 8], num_stages=[2, 4], config=3)
    assert k.name == "hidden"
    assert (k.num_warps, k.num_stages) == (8, 4)
    assert (k.meta["num_warps"], k.meta["num_stages"]) == (8, 4)
    assert ".reqntid 256, 1, 1" in k.ptx
    assert tritonc.compile(SHOWS_OPTIONS, num_warps=8, interpret=True).name == "hidden"
    # The retired macros point to the options.
    with pytest.raises(tritonc.CompileError, match=re.escape(
            "-DTRITONC_NUM_WARPS=8 does not set the warp count: use --num-warps=8 "
            "(num_warps= in Python)")):
        tritonc.compile(SHOWS_OPTIONS, defines={"TRITONC_NUM_WARPS": 8})


def test_option_errors_come_from_the_compiler():
    # One message per rule, the same as the CLI's and the C++ API's (validateBackendOptions);
    # the interpreter path checks them too, so that a call valid there is valid on the GPU.
    for interpret in (False, True):
        with pytest.raises(ValueError, match=r"^num_warps must be 1, 2, 4, 8 or 16, not 3$"):
            tritonc.compile(TRANSPOSE, num_warps=3, interpret=interpret)
        with pytest.raises(ValueError, match=re.escape(
                "num_warps must be 1, 2, 4, 8 or 16, not 5 (in the list num_warps=[4,5])")):
            tritonc.compile(TRANSPOSE, num_warps=[4, 5], config=0, interpret=interpret)
    with pytest.raises(ValueError, match="num_warps: the list is empty"):
        tritonc.compile(TRANSPOSE, num_warps=[])


def test_compile_timings():
    # No cache: every phase of the compilation runs.
    k = tritonc.compile(TRANSPOSE, cache=False)
    t = k.timings()
    assert set(t) == {"preprocess", "parse", "irgen", "passes", "codegen", "cache", "load",
                      "ptxas", "total"}
    for phase in ("preprocess", "parse", "irgen", "passes", "codegen"):
        assert t[phase] > 0, (phase, t)
    assert t["cache"] == 0 and t["load"] == 0 and t["ptxas"] == 0
    assert abs(t["total"] - sum(v for p, v in t.items() if p != "total")) < 1e-9
    # A specialization is compiled on request and has its own timings.
    assert k.timings("DDDDDD")["codegen"] > 0
    if not _GPU:
        with pytest.raises(tritonc.LaunchError, match="^no CUDA driver: "):
            k.load("DDDDDD")


def test_specialized_variants():
    k = tritonc.compile(TRANSPOSE)
    assert ".visible .entry transpose(" in k.variant_ptx("DDDDNN")
    with pytest.raises(tritonc.CompileError, match="specialization 'DD' has 2 letters"):
        k.variant_ptx("DD")


def test_variant_shared_memory():
    # A 128x128x64 fp16 matmul with sizes specialized as multiples of 16 copies its operands into
    # shared rings (3 stages of 16 KB + 16 KB): its variant needs more shared memory than the generic one.
    k = tritonc.compile(str(KERNELS / "matmul.tc"), num_warps=4,
                        defines={"TYPE": "half", "TM": 128, "TN": 128, "TK": 64})
    assert k.variant_shared_mem("DDDDDDDDD") >= 3 * 32 * 1024 > k.shared_mem


def test_argument_errors_before_any_device_work():
    k = tritonc.compile(TRANSPOSE)
    with pytest.raises(TypeError, match=r"takes 6 arguments, 2 given; signature: transpose\("):
        k[(1, 1)](0, 0)
    with pytest.raises(ValueError, match=r"argument 2 \(M\) is float, the parameter is i32"):
        k.launch((1, 1), 0, 0, 1.5, 64, 64, 64)
    with pytest.raises(ValueError, match=r"argument 0 \(X\) is str, the parameter is a pointer"):
        k.launch(1, "x", 0, 64, 64, 64, 64)
    with pytest.raises(OverflowError, match=r"argument 3 \(N\) does not fit i32"):
        k.launch(1, 0, 0, 64, 2**32, 64, 64)
    with pytest.raises(ValueError, match="grid dimensions must be positive"):
        k[(0, 1)](0, 0, 64, 64, 64, 64)
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        k[(1, 1, 1, 1)](0, 0, 64, 64, 64, 64)
    with pytest.raises(TypeError, match="stream must be None, an int"):
        k.launch(1, 0, 0, 64, 64, 64, 64, stream="s")
    with pytest.raises(TypeError, match="stream must be None, an int"):
        k[(1, 1)](0, 0, 64, 64, 64, 64, stream="s")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'strem'; it takes the kernel's arguments"):
        k[(1, 1)](0, 0, 64, 64, 64, 64, strem=None)

    class HostTensor:
        is_cuda = False

        def data_ptr(self):
            return 4096

    with pytest.raises(ValueError, match="tensor in host memory"):
        k.launch(1, HostTensor(), 0, 64, 64, 64, 64)

    class OtherGpuTensor:  # torch's way of naming the device: get_device()
        is_cuda = True

        def get_device(self):
            return 1

        def data_ptr(self):
            return 4096

    class GpuZeroTensor(OtherGpuTensor):
        def get_device(self):
            return 0

    # Tensors name their device; one launch runs on one device.
    with pytest.raises(ValueError, match=r"argument 1 \(Y\) is on cuda:0, an earlier argument "
                                         r"on cuda:1"):
        k[(1, 1)](OtherGpuTensor(), GpuZeroTensor(), 64, 64, 64, 64)
    # k[grid] checks the grid when it is bound, before any argument is seen.
    with pytest.raises(ValueError, match=r"grid dimensions must be positive ints, got \(True, 1\)"):
        k[(True, 1)]
    # A NumPy array speaks DLPack from host memory.
    with pytest.raises(ValueError, match=r"argument 1 \(Y\) is an array in host memory"):
        k.launch(1, 0, np.zeros(4, np.float32), 64, 64, 64, 64)


def test_device_status_is_consistent():
    assert tritonc.cuda_available() == _GPU
    k = tritonc.compile(TRANSPOSE)
    if _GPU:
        assert "sm_" in _GPU_TEXT
        return
    assert _GPU_TEXT.startswith("no CUDA driver: "), _GPU_TEXT
    with pytest.raises(tritonc.LaunchError, match="^no CUDA driver: "):
        k[(2, 2)](0, 0, 64, 64, 64, 64)
    with pytest.raises(tritonc.LaunchError, match="^no CUDA driver: "):
        tritonc.DeviceBuffer(16)


# Launch tests: defined only where a CUDA device is usable.
if _GPU:

    def _upload(array):
        buf = tritonc.DeviceBuffer(array.nbytes)
        buf.upload(array.tobytes())
        return buf

    def test_transpose_device_buffers():
        rng = np.random.default_rng(0)
        m, n = 128, 96
        x = rng.standard_normal((m, n), dtype=np.float32)
        bx = _upload(x)
        by = _upload(np.full((n, m), np.nan, dtype=np.float32))
        k = tritonc.compile(TRANSPOSE)
        k[(m // 32, n // 32)](bx, by, m, n, n, m)
        assert k.last_specialization == "DDSSSS"
        tritonc.synchronize()
        y = np.frombuffer(by.download(), dtype=np.float32).reshape(n, m)
        np.testing.assert_array_equal(y, x.T)

    def test_transpose_torch_on_a_stream():
        import torch

        m, n = 256, 64
        x = torch.randn(m, n, device="cuda")
        y = torch.full((n, m), float("nan"), device="cuda")
        k = tritonc.compile(TRANSPOSE, defines={"TM": 64, "TN": 32}, num_warps=8)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        k[(m // 64, n // 32)](x, y, m, n, x.stride(0), y.stride(0), stream=stream)
        stream.synchronize()
        torch.testing.assert_close(y, x.t(), rtol=0, atol=0)
        with pytest.raises(ValueError, match="tensor in host memory"):
            k[(1, 1)](x.cpu(), y, m, n, n, m)

    def test_load_times_the_driver_compile():
        k = tritonc.compile(TRANSPOSE, cache=False)
        t = k.load("DDDDDD")
        assert t["load"] > 0 and t["codegen"] > 0
        assert k.timings("DDDDDD")["load"] == t["load"]
        assert k._impl.num_variants == 2

    def test_scalars_and_odd_sizes_torch():
        import torch

        n = 1000  # not a multiple of the tile: masks and a 'U' specialization (n >= 0)
        x = torch.randn(n, device="cuda")
        y = torch.randn(n, device="cuda")
        expected = 2.5 * x + y
        k = tritonc.compile(AXPY, num_warps=4)
        k[((n + 127) // 128,)](x, y, 2.5, n, stream=torch.cuda.current_stream().cuda_stream)
        torch.cuda.synchronize()
        assert k.last_specialization == "DDNU"
        torch.testing.assert_close(y, expected)

    @pytest.mark.parametrize("dtype", ["half", "bfloat16"])
    def test_wgmma_matmuls_at_scale(dtype):
        """The benchmarked fp16/bf16 configurations on 2048 x 2048 x 2048, all SMs busy and 32 K steps:
        ring refills racing in-flight MMAs (the slot reuse rules of AsyncCopies.cpp and EarlyRefill.cpp)
        show up here as wrong sums, which the small kernel tests of tests/kernels rarely provoke."""
        import torch

        ty = {"half": torch.float16, "bfloat16": torch.bfloat16}[dtype]
        size = 2048
        a = torch.randn(size, size, device="cuda", dtype=ty)
        b = torch.randn(size, size, device="cuda", dtype=ty)
        ref = (a.float() @ b.float())
        # (file, TM, TN, TK, warps, stages)
        configs = [("matmul.tc", 64, 128, 64, 4, 3), ("matmul.tc", 64, 128, 64, 4, 4),
                   ("matmul.tc", 128, 128, 64, 4, 3), ("matmul.tc", 128, 128, 64, 8, 3),
                   ("matmul.tc", 128, 256, 64, 8, 3), ("matmul_persistent.tc", 128, 256, 64, 8, 3)]
        for file, tm, tn, tk, warps, stages in configs:
            c = torch.full((size, size), float("nan"), device="cuda", dtype=ty)
            kern = tritonc.compile(KERNELS / file, num_warps=warps, num_stages=stages,
                                   defines={"TYPE": dtype, "TM": tm, "TN": tn, "TK": tk})
            tiles = (size // tm, size // tn)
            grid = (min(132, tiles[0] * tiles[1]),) if file == "matmul_persistent.tc" else tiles
            for _ in range(3):
                kern[grid](a, b, c, size, size, size, size, size, size)
            torch.cuda.synchronize()
            err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
            assert err < 2e-2, f"{file} {tm}x{tn}x{tk} w{warps} s{stages}: relative error {err:.3g}"

    @pytest.mark.parametrize("dtype", ["half", "bfloat16"])
    def test_sm80_matmuls_on_rings(dtype):
        """sm_80 code (mma.sync, operands copied into shared rings with cp.async), run here through the
        driver's JIT: pipelined K loops of 2 to 4 stages, aligned and ragged sizes (masked copies), and
        an operand under `trans` (staged from registers) next to one in a ring: A (TRANS_A, B then
        read from its slot at offset 0, not after the staged A) or B (TRANS_B)."""
        import torch

        ty = {"half": torch.float16, "bfloat16": torch.bfloat16}[dtype]
        # (TM, TN, TK, warps, stages, TRANS_A, TRANS_B)
        configs = [(64, 64, 32, 4, 3, 0, 0), (128, 128, 32, 8, 4, 0, 0), (32, 32, 16, 4, 2, 0, 0),
                   (64, 64, 32, 4, 3, 0, 1), (64, 128, 32, 2, 3, 1, 0)]
        # Tile multiples; multiples of 16 (16-byte copies, ragged tiles: masked copies); odd sizes
        # (no 16-byte vectors: staged from registers).
        for m, n, k in ((512, 384, 640), (336, 288, 528), (333, 290, 517)):
            a = torch.randn(m, k, device="cuda", dtype=ty)
            b = torch.randn(k, n, device="cuda", dtype=ty)
            ref = a.float() @ b.float()
            for tm, tn, tk, warps, stages, trans_a, trans_b in configs:
                kern = tritonc.compile(KERNELS / "matmul.tc", arch="sm_80", num_warps=warps,
                                       num_stages=stages,
                                       defines={"TYPE": dtype, "TM": tm, "TN": tn, "TK": tk,
                                                "TRANS_A": trans_a, "TRANS_B": trans_b})
                aa = a.t().contiguous() if trans_a else a
                bb = b.t().contiguous() if trans_b else b
                c = torch.full((m, n), float("nan"), device="cuda", dtype=ty)
                kern[((m + tm - 1) // tm, (n + tn - 1) // tn)](aa, bb, c, m, n, k, m if trans_a else k,
                                                               k if trans_b else n, n)
                torch.cuda.synchronize()
                if m % 16 == 0:
                    assert "cp.async.cg.shared.global" in kern.variant_ptx(kern.last_specialization)
                err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
                assert err < 2e-2, (f"{m}x{n}x{k} {tm}x{tn}x{tk} w{warps} s{stages} "
                                    f"TA{trans_a} TB{trans_b}: {err:.3g}")

    def test_bf16_atomic_add_by_compare_and_swap():
        """sm_80 code (run here through the driver's JIT) adds bf16 atomically with a compare-and-swap
        loop: 64 programs add 1 to the same 128 elements, so the loops race on every element. Small
        integers are exact in bf16, so the sums must be exact, and the old values each program saw
        at one element must be 0, 1, ..., 63 in some order."""
        import torch

        src = """
        __global__ void count(bfloat16 *C, bfloat16 *OLD, bfloat16 *TOTAL) {
          int r[128] = 0 ... 128;
          bfloat16 one[128] = 1;
          atomic_add(C + r, one);
          bfloat16 old[128] = atomic_add(C + 128 + r, one);
          *(OLD + get_program_id(0) * 128 + r) = old;
          bfloat16 s = 1.0;
          atomic_add(TOTAL, s);
        }
        """
        kern = tritonc.compile(src, name="count.tc", arch="sm_80")
        assert "atom.global.cas.b16" in kern.ptx
        c = torch.zeros(256, device="cuda", dtype=torch.bfloat16)
        old = torch.full((64, 128), float("nan"), device="cuda", dtype=torch.bfloat16)
        total = torch.zeros(1, device="cuda", dtype=torch.bfloat16)
        kern[(64,)](c, old, total)
        torch.cuda.synchronize()
        assert torch.equal(c, torch.full_like(c, 64))
        assert total.item() == 64
        seen = old.float().sort(dim=0).values
        assert torch.equal(seen, torch.arange(64, device="cuda").float()[:, None].expand(64, 128))

    def test_fma_dot_with_one_operand_in_a_ring():
        """An f32 dot on FMA units whose A comes from a cp.async ring while B, scaled (so no plain load),
        is staged from registers into scratch after the ring: both operand paths in one loop, and K not a
        multiple of the tile."""
        import torch

        m, n, k = 128, 64, 88
        a = torch.randn(m, k, device="cuda")
        b = torch.randn(k, n, device="cuda")
        c = torch.full((m, n), float("nan"), device="cuda")
        kern = tritonc.compile(KERNELS / "matmul.tc", num_warps=4,
                               defines={"TM": 64, "TN": 64, "TK": 16, "USE_B": "(b * 2)"})
        kern[(m // 64, n // 64)](a, b, c, m, n, k, k, n, n)
        torch.cuda.synchronize()
        torch.testing.assert_close(c, a @ (2 * b), rtol=1e-4, atol=1e-4)
        ptx = kern.variant_ptx(kern.last_specialization)
        assert "cp.async.ca.shared.global" in ptx and "st.shared.v4.f32" in ptx

    def test_fma_rings_after_scratch_over_them():
        """Two pipelined f32 loops; between them a conversion through scratch that overlaps the rings
        (tests/lit/codegen/rings-after-scratch.tc): the second loop's copies must wait for it."""
        import torch

        source = (pathlib.Path(__file__).resolve().parents[1] / "lit/codegen/rings-after-scratch.tc").read_text()
        k = 80
        a = torch.randn(64, k, device="cuda")
        b = torch.randn(k, 64, device="cuda")
        c = torch.full((64, 64), float("nan"), device="cuda")
        kern = tritonc.compile(source, num_warps=4)
        kern[(1,)](a, b, c, k)
        torch.cuda.synchronize()
        torch.testing.assert_close(c, 2 * (a @ b), rtol=1e-4, atol=1e-4)


def test_compile_remarks():
    # The K loop of matmul.tc, specialized nowhere: the loop is pipelined (a passed remark), the
    # operand loads are not known to be aligned (missed remarks, at their source lines).
    defines = {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}
    k = tritonc.compile(KERNELS / "matmul.tc", defines=defines, arch="sm_90a", cache=False,
                        remarks="all")
    assert re.search(r"matmul\.tc:\d+:\d+: remark: loop pipelined with 3 stages", k.remarks)
    assert "[missed:async-rings]" in k.remarks
    assert "error" not in k.remarks
    only_dot = tritonc.compile(KERNELS / "matmul.tc", defines=defines, arch="sm_90a", cache=False,
                               remarks="passed:dot")
    assert only_dot.remarks.count("remark:") == 1
    assert "dot computed with wgmma" in only_dot.remarks
    assert tritonc.compile(KERNELS / "matmul.tc", defines=defines, arch="sm_90a",
                           cache=False).remarks == ""
    missed = tritonc.compile(KERNELS / "matmul.tc", defines=defines, arch="sm_90a", cache=False,
                             remarks=True)
    assert "[passed:" not in missed.remarks and "[missed:async-rings]" in missed.remarks
    with pytest.raises(ValueError, match="unknown remark pass 'pipelin'"):
        tritonc.compile(KERNELS / "matmul.tc", defines=defines, remarks="missed:pipelin")


def test_cache_stats_count_the_lookups_of_a_compile():
    # The GPU autotune tests read these counters in a fresh process (tritonc.cache_stats).
    before = tritonc.cache_stats()
    tritonc.compile(KERNELS / "transpose.tc", defines={"TM": 32, "TN": 32}, arch="sm_80")
    after = tritonc.cache_stats()
    assert set(after) == {"memory_hits", "disk_hits", "misses", "stores", "corrupt_entries"}
    assert sum(after.values()) > sum(before.values())
