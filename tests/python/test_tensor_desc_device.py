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
        assert spec.startswith("DD") and spec.endswith("SS"), spec
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


CONV = KERNEL.parent / "conv_nhwc_desc.tc"


CONV_SHAPES = [(2, 64, 128, 13, 19, 1, 1), (1, 96, 200, 30, 17, 2, 2), (3, 64, 64, 5, 7, 1, 1),
               (1, 64, 176, 9, 21, 1, 1)]


@pytest.mark.parametrize("warps,tq,tn,stages,split,boxes", [
    (4, 16, 128, 4, 1, 1), (8, 16, 128, 4, 1, 1), (8, 16, 256, 3, 1, 1), (4, 16, 128, 4, 4, 1),
    (8, 8, 256, 3, 1, 2), (4, 8, 128, 4, 1, 2), (4, 8, 128, 4, 4, 2)])
@pytest.mark.parametrize("z,ci,co,h,w,pad,dil", CONV_SHAPES)
def test_conv_nhwc_desc_rings_on_the_gpu(warps, tq, tn, stages, split, boxes, z, ci, co, h, w, pad, dil):
    """kernels/conv_nhwc_desc.tc at bench/conv_suite.py's 8x16x128x64 and 8x16x256x64 tiles (the default
    wgmma rings): on sm_90a both operands are rings of bulk tensor copies (4-D boxes of the image
    at each tap's shift, the padding their zero fill; 3-D boxes of the channels_last filter into
    column-major slots) feeding wgmma. Channels past CI (96 against TK = 64) and output channels past CO
    (200, 176, 64 against TN) are the copies' zero fill and the store's clipping; images smaller than the
    tile too. Where CO is a multiple of 16 (the launch specializes on it: the copy engine writes whole
    16-byte pieces of a row) the output tile leaves by bulk tensor stores of Y's box, clipped by the
    engine at P, Q and CO (tensor-stores), with no st.global; CO = 200 keeps the masked stores. With
    SPLIT = 4 the k-steps are split over grid axis 2, the slices' partial tiles added by the last one
    through the workspace (st.global and ld.global of it), whose store is still the bulk tensor store.
    With BOXES = 2 (8 x 8 rectangles in two images, bench/conv_suite.py's CONV_NHWC_DESC_BOXES_CONFIGS)
    the boxes are [2, 8, 8, 64] and [2, 8, 8, TN]; an odd Z has the last tile's second image past the
    end (zero fill, stores clipped)."""
    k = tritonc.compile(str(CONV), defines={"TYPE": "half", "ACC": "float", "TP": 8, "TQ": tq, "TN": tn,
                                            "TK": 64, "SPLIT": split, "BOXES": boxes},
                        num_warps=warps, num_stages=stages)
    r = s = 3
    x = torch.randn(z, ci, h, w, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    f = (torch.randn(co, ci, r, s, device="cuda", dtype=torch.float16) / (9 * ci) ** 0.5).to(
        memory_format=torch.channels_last)
    ref = torch.nn.functional.conv2d(x.float(), f.float(), padding=pad, dilation=dil)
    p, q = ref.shape[2], ref.shape[3]
    y = torch.full((z, co, p, q), float("nan"), device="cuda", dtype=torch.float16).to(
        memory_format=torch.channels_last)
    grid = ((p + 7) // 8 * ((q + tq - 1) // tq), (co + tn - 1) // tn, (z + boxes - 1) // boxes * split)
    tiles = grid[0] * grid[1] * grid[2] // split
    partials = torch.full((tiles * split * boxes * 8 * tq * tn,), float("nan"), device="cuda")  # any contents
    counters = torch.zeros(tiles, device="cuda", dtype=torch.int32)
    k[grid](x, f, y, z, h, w, ci, co, r, s, p, q, pad, pad, dil, dil, x.stride(0), x.stride(2), x.stride(3),
            f.stride(0), y.stride(0), y.stride(2), y.stride(3), partials, counters)
    torch.cuda.synchronize()
    torch.testing.assert_close(y.float(), ref, rtol=1e-2, atol=2e-2)
    assert not counters.any(), "the counters must be zero again on exit"
    ptx = k.variant_ptx(k.last_specialization)
    if k.arch == "sm_90a":
        assert "cp.async.bulk.tensor.4d" in ptx and "cp.async.bulk.tensor.3d" in ptx
        assert "wgmma.mma_async" in ptx and ("ld.global" in ptx) == (split > 1)
        bulk_stores = "cp.async.bulk.tensor.4d.global.shared::cta" in ptx
        assert bulk_stores == (co % 16 == 0) and ("st.global" in ptx) == (co % 16 != 0 or split > 1)
