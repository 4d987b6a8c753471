"""On the GPU: a Triton-C kernel with tensor descriptors launched through the Python module. On sm_90a its
aligned loads become bulk tensor copies, whose tensor maps the launcher encodes from the arguments at each
launch; with tma=False (and on sm_80) they are masked gathers. Both must give the reference's result, with
the zero fill of the descriptor as the padding and the store clipped at the extents."""
from pathlib import Path

import pytest

import tritonc

torch = pytest.importorskip("torch", reason="the test launches on torch tensors")
if not tritonc.cuda_available() or not torch.cuda.is_available():
    pytest.skip("needs a CUDA device", allow_module_level=True)

KERNEL = Path(__file__).resolve().parents[2] / "kernels" / "box_filter_desc.tc"


def box_filter(x):
    """3x3 sums over an H x W x C image with zero padding, in float."""
    padded = torch.nn.functional.pad(x.float(), (0, 0, 1, 1, 1, 1))
    h, w = x.shape[0], x.shape[1]
    return sum(padded[dh:dh + h, dw:dw + w] for dh in range(3) for dw in range(3))


@pytest.mark.parametrize("tma", [True, False], ids=["tma", "gathers"])
@pytest.mark.parametrize("h,w,c", [(37, 45, 48), (8, 16, 16), (5, 3, 16)])
def test_box_filter_desc_on_the_gpu(tma, h, w, c):
    k = tritonc.compile(str(KERNEL), defines={"TYPE": "half", "TH": 4, "TW": 8, "TC": 16}, tma=tma)
    x = torch.randn(h, w, c, device="cuda", dtype=torch.float16)
    y = torch.full((h + 1, w, c), float("nan"), device="cuda", dtype=torch.float16)
    grid = ((h + 3) // 4, (w + 7) // 8, (c + 15) // 16)
    for _ in range(2):  # the second launch reuses the encoded tensor maps
        k[grid](x, y, h, w, c, w * c, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(y[:h].float(), box_filter(x), rtol=2e-3, atol=2e-2)
    assert torch.isnan(y[h:]).all(), "the store wrote past the image"
    # The launch's variant: every pointer and stride here is a multiple of 16 (bytes, elements).
    spec = k.last_specialization
    ptx = k.variant_ptx(spec)
    if tma and k.arch == "sm_90a":
        assert spec.startswith("DD") and spec.endswith("DD"), spec
        assert "cp.async.bulk.tensor.3d" in ptx
    else:
        assert "cp.async.bulk.tensor" not in ptx
    assert "cp.async.bulk.tensor" not in k.ptx  # the generic variant gathers
    # A second image of another size: the maps are encoded again from the new arguments.
    x2 = torch.randn(h + 3, w, c, device="cuda", dtype=torch.float16)
    y2 = torch.zeros(h + 3, w, c, device="cuda", dtype=torch.float16)
    k[((h + 6) // 4, grid[1], grid[2])](x2, y2, h + 3, w, c, w * c, c)
    torch.cuda.synchronize()
    torch.testing.assert_close(y2.float(), box_filter(x2), rtol=2e-3, atol=2e-2)
