"""Kernels on the CPU interpreter from Python: compile(..., interpret=True) and TRITONC_INTERPRET=1,
on NumPy arrays (and CPU torch tensors where torch is installed), with errors that name the
parameter. Needs no GPU."""

import numpy as np
import pytest

import tritonc
from kernel_sources import AXPY


# The same without the mask: the last program reads past the end of X.
AXPY_UNMASKED = """
__global__ void axpy(float *X, float *Y, float a, int N) {
  int off[128] = get_program_id(0) * 128 + 0 ... 128;
  float *px[128] = X + off;
  float *py[128] = Y + off;
  *py = a * *px + *py;
}
"""


def test_interpret_runs_on_numpy_arrays_in_place():
    k = tritonc.compile(AXPY, interpret=True)
    assert isinstance(k, tritonc.InterpretedKernel)
    assert k.signature.startswith("axpy(")
    x = np.arange(300, dtype=np.float32)
    y = np.ones(300, dtype=np.float32)
    k[(3,)](x, y, 2.0, 300)
    np.testing.assert_array_equal(y, 2 * np.arange(300, dtype=np.float32) + 1)


def test_the_environment_switches_compile_to_the_interpreter(monkeypatch):
    monkeypatch.setenv("TRITONC_INTERPRET", "1")
    k = tritonc.compile(AXPY)
    assert isinstance(k, tritonc.InterpretedKernel)
    x = np.full(10, 3, dtype=np.float32)
    y = np.zeros(10, dtype=np.float32)
    k[lambda meta: (tritonc.cdiv(meta["N"], 128),)](x, y, 1.0, 10)
    np.testing.assert_array_equal(y, x)


def test_an_out_of_bounds_access_names_the_parameter_and_the_index():
    k = tritonc.compile(AXPY_UNMASKED, interpret=True)
    # X is a view: the memory past its end belongs to the parent array, which the kernel was
    # not given, so nothing else the kernel may access can lie there.
    parent = np.zeros(1000, dtype=np.float32)
    x = parent[:200]
    y = np.zeros(256, dtype=np.float32)
    with pytest.raises(tritonc.LaunchError) as e:
        k[(2,)](x, y, 1.0, 200)
    message = str(e.value)
    assert "out-of-bounds read" in message
    assert "buffer 'X'" in message
    assert "index 200 of 200" in message
    assert "program (1,0,0)" in message


def test_a_wrong_element_type_is_a_type_error_naming_the_parameter():
    k = tritonc.compile(AXPY, interpret=True)
    with pytest.raises(TypeError, match="'Y'.*float64"):
        k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float64), 1.0, 4)
    with pytest.raises(TypeError, match=r"argument 2 \(a\)"):
        k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), "one", 4)
    with pytest.raises(TypeError, match="host array"):
        k[(1,)](np.zeros(4, np.float32), [0.0] * 4, 1.0, 4)


def test_strided_views_are_reached_through_their_strides():
    src = """
    __global__ void col(float *X, float *Y, int ld) {
      int r[4] = 0 ... 4;
      float *px[4] = X + r * ld;
      float *py[4] = Y + r;
      *py = *px;
    }
    """
    k = tritonc.compile(src, interpret=True)
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    out = np.zeros(4, dtype=np.float32)
    k[(1,)](a[:, 1], out, 4)  # a column: a view with stride 4 elements
    np.testing.assert_array_equal(out, a[:, 1])


def test_cpu_torch_tensors():
    torch = pytest.importorskip("torch", reason="CPU tensors need torch")
    k = tritonc.compile(AXPY, interpret=True)
    x = torch.arange(130, dtype=torch.float32)
    y = torch.zeros(130, dtype=torch.float32)
    k[(2,)](x, y, 0.5, 130)
    assert torch.equal(y, 0.5 * x)
