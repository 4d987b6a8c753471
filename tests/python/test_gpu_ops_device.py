"""On the GPU: tritonc.ops compiles for the device of its tensors (its target and shared memory),
not device 0's, on every visible device."""

import pytest

import tritonc

torch = pytest.importorskip("torch", reason="tritonc.ops works on torch tensors")
if not tritonc.cuda_available() or not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

from tritonc import ops  # noqa: E402


def test_operators_compile_for_the_device_of_their_tensors(monkeypatch):
    devices = []
    compile_kernel = tritonc.compile

    def recording(*args, **kwargs):
        devices.append(kwargs.get("device"))
        return compile_kernel(*args, **kwargs)

    monkeypatch.setattr(tritonc, "compile", recording)
    for cached in (ops._softmax_kernel, ops._transpose_kernel, ops._matmul_tuner):
        cached.cache_clear()
    for index in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(index)
        target = "sm_90a" if (major, minor) == (9, 0) else "sm_80"
        x = torch.randn(64, 100, device=f"cuda:{index}")
        torch.testing.assert_close(ops.softmax(x), torch.softmax(x, dim=1))
        torch.testing.assert_close(ops.transpose(x), x.t())
        a = torch.randn(64, 32, device=f"cuda:{index}", dtype=torch.float16)
        torch.testing.assert_close(ops.matmul(a, a.t()), (a.float() @ a.float().t()).half(),
                                   rtol=1e-2, atol=1e-2)
        assert devices and set(devices) == {index}, devices
        assert ops._softmax_kernel("float", 100, index).arch == target
        devices.clear()
