"""Launch semantics: the pointer element type is checked against the parameter, grids may be
functions of the configuration, launches follow PyTorch's current stream (torch.cuda.stream(s),
CUDA-graph capture and replay), and the package's metadata. The GPU tests run where a CUDA device
and torch are usable (scripts/gpu-test)."""

import os
import pathlib
import subprocess
import sys

import pytest

import tritonc

KERNELS = pathlib.Path(tritonc.kernels_dir())
_GPU = tritonc.cuda_available()

AXPY = """
__global__ void axpy(float *X, float *Y, float a, int N) {
  int off[BLOCK] = get_program_id(0) * BLOCK + 0 ... BLOCK;
  bool m[BLOCK] = off < N;
  float *px[BLOCK] = X + off;
  float *py[BLOCK] = Y + off;
  *?(m) py = a * *?(m) px + *?(m) py;
}
"""


def test_the_package_has_a_version_and_its_kernels():
    assert tritonc.__version__.count(".") == 2
    assert tritonc.version().startswith(tritonc.__version__ + "+")
    assert (KERNELS / "matmul.tc").is_file() and (KERNELS / "common.h").is_file()


def test_importing_tritonc_does_not_import_torch():
    code = "import sys, tritonc; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


class _FakeTensor:
    """A CUDA tensor as far as the argument conversion can tell, with a given dtype name."""

    is_cuda = True

    def __init__(self, dtype):
        self.dtype = dtype

    def get_device(self):
        return 0

    def data_ptr(self):
        return 4096


class _DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


def test_a_tensor_of_the_wrong_element_type_is_a_type_error_naming_the_parameter():
    k = tritonc.compile(str(KERNELS / "transpose.tc"))  # transpose(f32* X, f32* Y, ...)
    half = _FakeTensor(_DType("torch.float16"))
    with pytest.raises(TypeError, match=r"argument 1 \(Y\) has element type torch.float16, "
                                        r"the parameter is f32\*"):
        k.launch((1, 1), _FakeTensor(_DType("torch.float32")), half, 64, 64, 64, 64)
    with pytest.raises(TypeError, match=r"argument 0 \(X\) has element type int32"):
        k[(1, 1)](_FakeTensor(_DType("int32")), 0, 64, 64, 64, 64)


def test_a_grid_function_sees_the_arguments_and_the_configuration():
    k = tritonc.compile(AXPY, defines={"BLOCK": [64, 128]}, num_warps=[2, 4], config=3)
    assert k.meta == {"BLOCK": 128, "num_warps": 4, "num_stages": 3}
    seen = []

    def grid(meta):
        seen.append(meta)
        return (tritonc.cdiv(meta["N"], meta["BLOCK"]),)

    launched = []
    k.launch = lambda g, *args, stream=None: launched.append((g, args, stream))
    k[grid](0, 0, 1.0, 1000, stream=7)
    assert seen == [{"BLOCK": 128, "num_warps": 4, "num_stages": 3, "X": 0, "Y": 0, "a": 1.0,
                     "N": 1000}]
    assert launched == [((8,), (0, 0, 1.0, 1000), 7)]


def test_the_cache_command_reports_and_clears(tmp_path):
    tritonc_tool = os.environ.get("TRITONC")
    if not tritonc_tool:
        pytest.skip("needs the tritonc tool ($TRITONC)")
    env = dict(os.environ, TRITONC_CACHE_DIR=str(tmp_path), TRITONC_CACHE_MAX_BYTES="1048576")
    k = subprocess.run([sys.executable, "-c", f"import tritonc; tritonc.compile({str(KERNELS / 'transpose.tc')!r})"],
                       env=env, check=True)
    assert k.returncode == 0
    info = subprocess.run([tritonc_tool, "cache", "--info"], env=env, capture_output=True,
                          text=True, check=True).stdout
    assert f"directory: {tmp_path}" in info
    assert "entries: 2" in info  # the PTX and the metadata of the generic variant
    assert "cap: 1.0 MiB" in info
    cleared = subprocess.run([tritonc_tool, "cache", "--clear"], env=env, capture_output=True,
                             text=True, check=True).stdout
    assert cleared.startswith("removed 2 files")
    info = subprocess.run([tritonc_tool, "cache", "--info"], env=env, capture_output=True,
                          text=True, check=True).stdout
    assert "entries: 0" in info


#
# On the GPU
#

def _torch():
    torch = pytest.importorskip("torch", reason="the launch tests use torch tensors")
    if not _GPU or not torch.cuda.is_available():
        pytest.skip("needs a CUDA device")
    return torch


def _axpy(torch, n=1 << 20):
    k = tritonc.compile(AXPY, defines={"BLOCK": 1024}, num_warps=4)
    x = torch.randn(n, device="cuda")
    y = torch.randn(n, device="cuda")
    return k, x, y, n


def test_launches_follow_torchs_current_stream_under_concurrent_work():
    torch = _torch()
    k, x, y, n = _axpy(torch)
    expected = 3 * x + y
    side = torch.cuda.Stream()
    # The side stream is held back by a long GPU-side wait: a launch that went to the default
    # stream instead would run before the inputs it reads are written on the side stream.
    with torch.cuda.stream(side):
        torch.cuda._sleep(50_000_000)
        x2 = x.clone()
        y2 = y.clone()
        k[(n // 1024,)](x2, y2, 3.0, n)  # stream=None: torch's current stream, `side`
        done = torch.cuda.Event()
        done.record()
    # Meanwhile the default stream keeps busy with other work.
    noise = torch.randn(4096, 4096, device="cuda")
    for _ in range(5):
        noise = noise @ noise.T / 4096
    done.synchronize()
    torch.testing.assert_close(y2, expected)


def test_a_launch_is_captured_in_a_cuda_graph_and_replayed():
    torch = _torch()
    k, x, y, n = _axpy(torch)
    k[(n // 1024,)](x, y, 1.0, n)  # compiled and loaded before the capture
    torch.cuda.synchronize()
    y.zero_()
    graph = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        with torch.cuda.graph(graph):
            k[(n // 1024,)](x, y, 2.0, n)
    torch.cuda.synchronize()
    for replay in range(1, 4):
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(y, 2.0 * replay * x)


def test_a_wrong_dtype_tensor_is_refused_before_the_launch():
    torch = _torch()
    k, x, y, n = _axpy(torch)
    with pytest.raises(TypeError, match=r"argument 1 \(Y\) has element type torch.float16"):
        k[(1,)](x, y.half(), 1.0, n)


def test_a_kernel_runs_on_the_device_of_its_tensors():
    torch = _torch()
    if torch.cuda.device_count() < 2:
        pytest.skip("needs a second GPU")
    k, x0, _, n = _axpy(torch)
    x = x0.to("cuda:1")
    y = torch.ones(n, device="cuda:1")
    side = torch.cuda.Stream(device="cuda:1")
    with torch.cuda.stream(side):  # cuda:1's current stream
        k[(n // 1024,)](x, y, 2.0, n)
    side.synchronize()
    torch.testing.assert_close(y, 2 * x + 1)
    with pytest.raises(ValueError, match="is on cuda:0, an earlier argument on cuda:1"):
        k[(1,)](x, x0, 1.0, n)
