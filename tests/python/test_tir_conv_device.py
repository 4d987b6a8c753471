"""On an sm_90a GPU: a hand-written GPU-level IR kernel (.tir) compiles through tritonc.compile and
launches on torch tensors, with its tensor maps (4-D, traversal strides) encoded from the arguments
at launch: tests/kernels/gpuir/conv_nhwc_tma_128x128.tir against torch's convolution, and a stride-2
kernel, one with bulk tensor stores and one reading the channels_last weight as a K-major B from its
generator (the path bench/conv_tma_explore.py times)."""
import importlib.util
from pathlib import Path

import pytest

import tritonc

torch = pytest.importorskip("torch", reason="the kernel runs on torch tensors")
if not tritonc.cuda_available() or not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)
if torch.cuda.get_device_capability() != (9, 0):
    pytest.skip("bulk tensor copies and wgmma need sm_90a", allow_module_level=True)

import torch.nn.functional as F  # noqa: E402

GPUIR = Path(__file__).resolve().parents[1] / "kernels" / "gpuir"


def generator():
    spec = importlib.util.spec_from_file_location("gen_conv_nhwc_tma", GPUIR / "gen_conv_nhwc_tma.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stride,pad,store,b_major", [(1, 1, "st", "n"), (2, 1, "st", "n"), (1, 1, "tma", "n"),
                                                       (2, 1, "st", "k")])
def test_tir_conv_launches_on_torch_tensors(stride, pad, store, b_major, tmp_path):
    gen = generator()
    cfg = dict(tile=(1, 8, 16), tn=128, warps=8, stages=4, stride=(stride, stride), store=store,
               b_major=b_major)
    path = GPUIR / "conv_nhwc_tma_128x128.tir"
    if stride != 1 or store != "st" or b_major != "n":
        path = tmp_path / "conv_nhwc_tma_variant.tir"
        path.write_text(gen.generate(**cfg))
    kern = tritonc.compile(str(path), num_warps=8)
    z, ci, co, h, w, r, s = 2, 72, 136, 19, 23, 3, 3
    torch.manual_seed(0)
    x = torch.randn(z, ci, h, w, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    weight = torch.randn(co, ci, r, s, device="cuda", dtype=torch.float16) / (ci * r * s) ** 0.5
    ref = F.conv2d(x, weight, stride=stride, padding=pad)
    p, q = ref.shape[2:]
    if b_major == "k":  # the channels_last weight as CO x (R*S) x CI
        wt = weight.to(memory_format=torch.channels_last)
        ldw = (wt.stride(0), wt.stride(3))
    else:  # (R*S) x CI x CO
        wt = weight.permute(2, 3, 1, 0).reshape(r * s, ci, co).contiguous()
        ldw = (wt.stride(0), wt.stride(1))
    y = torch.full_like(ref, float("nan")).to(memory_format=torch.channels_last)
    kern[gen.grid(cfg, z, p, q, co)](x, wt, y, z, h, w, ci, co, r, s, p, q, pad, pad, 1, 1, x.stride(0),
                                     x.stride(2), x.stride(3), *ldw, y.stride(0), y.stride(2), y.stride(3))
    torch.testing.assert_close(y, ref, rtol=2e-2, atol=2e-2)
