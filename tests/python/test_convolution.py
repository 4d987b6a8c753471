"""tritonc.convolution: the host-side arithmetic of the convolution kernels (output sizes, conv.tc's
increment table, the argument lists and grids of conv.tc, conv_nhwc.tc and the backward kernels
conv_nhwc_dgrad.tc and conv_nhwc_wgrad.tc and their descriptor versions), checked against direct
definitions and by running the kernels on the interpreter against a float64 NumPy convolution and its
gradients.
Needs no torch (tritonc.ops and the benchmarks build on these functions)."""

import itertools
from pathlib import Path

import numpy as np
import pytest

import tritonc
from tritonc.convolution import ConvShape, nhwc_block_k, splitk_slices


def reference(x, wt, shape):
    """x: Z x CI x H x W, wt: CO x CI x R x S (float64) -> Z x CO x P x Q, by the definition."""
    (sh, sw), (ph, pw), (dh, dw) = shape.stride, shape.padding, shape.dilation
    out = np.zeros((shape.z, shape.co, shape.p, shape.q))
    for p, q, r, s in itertools.product(range(shape.p), range(shape.q), range(shape.r),
                                        range(shape.s)):
        h, w = p * sh - ph + r * dh, q * sw - pw + s * dw
        if 0 <= h < shape.h and 0 <= w < shape.w:
            out[:, :, p, q] += x[:, :, h, w] @ wt[:, :, r, s].T
    return out


def test_output_sizes_follow_the_definition():
    for h, r, stride, pad, dil in [(7, 3, 1, 1, 1), (8, 3, 2, 1, 1), (9, 2, 3, 0, 2), (5, 5, 1, 0, 1),
                                   (4, 3, 1, 0, 2)]:
        shape = ConvShape(1, 1, h, h, 1, r, r, (stride, stride), (pad, pad), (dil, dil))
        # Output rows: the p whose window fits in the padded input.
        fits = [p for p in range(h + 2 * pad) if p * stride + (r - 1) * dil < h + 2 * pad]
        assert shape.p == shape.q == len(fits)
        assert shape.m == shape.p * shape.q and shape.k == r * r


def test_the_increments_walk_every_filter_tap_in_ci_r_s_order():
    shape = ConvShape(1, 3, 6, 7, 1, 2, 3)
    strides = (100, 10, 1)  # lda_ci, lda_h, lda_w
    taps = [ci * 100 + r * 10 + s for ci in range(3) for r in range(2) for s in range(3)]
    for tk in (1, 2, 4, 8):
        table = shape.increments(tk, strides)
        assert len(table) == shape.k
        # Starting from tap i (< TK) and adding the increments reaches tap i + j * TK.
        for i in range(min(tk, shape.k)):
            offset = taps[i]
            for j in range(i, shape.k - tk, tk):
                offset += table[j]
                assert offset == taps[j + tk]


def test_conv_tc_refuses_dilation():
    shape = ConvShape(1, 1, 5, 5, 1, 3, 3, dilation=(2, 1))
    with pytest.raises(ValueError, match="dilation"):
        shape.increments(8, (25, 5, 1))


def test_block_k_is_the_largest_power_of_two_dividing_ci():
    assert [nhwc_block_k(ci, 32) for ci in (1, 3, 6, 16, 48, 64, 256)] == [1, 1, 2, 16, 16, 32, 32]
    assert nhwc_block_k(64, 8) == 8
    with pytest.raises(ValueError):
        nhwc_block_k(16, 0)


def test_conv_nchw_arguments_run_on_the_interpreter():
    rng = np.random.default_rng(1)
    shape = ConvShape(2, 3, 7, 6, 5, 3, 2, stride=(2, 1), padding=(1, 0))
    tm, tn, tk = 16, 16, 8
    x = rng.uniform(-1, 1, (shape.z, shape.ci, shape.h, shape.w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    b = np.ascontiguousarray(wt.reshape(shape.co, shape.k).T)  # (CI*R*S) x CO
    y = np.full((shape.z, shape.co, shape.p, shape.q), np.nan, dtype=np.float32)
    delta = np.array(shape.increments(tk, (shape.h * shape.w, shape.w, 1)), dtype=np.int32)
    kernel = tritonc.compile(f"{tritonc.kernels_dir()}/conv.tc", interpret=True,
                             defines={"TYPE": "float", "TM": tm, "TN": tn, "TK": tk})
    x_strides = (shape.ci * shape.h * shape.w, shape.h * shape.w, shape.w, 1)
    y_strides = (shape.co * shape.p * shape.q, shape.p * shape.q, shape.q)
    kernel[shape.grid(tm, tn)](*shape.nchw_arguments(x.ravel(), b.ravel(), y.ravel(), delta,
                                                     x_strides, shape.co, y_strides))
    expected = reference(x.astype(np.float64), wt.astype(np.float64), shape)
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)


def test_split_k_is_a_candidate_where_the_tiles_leave_sms_idle():
    small = ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1))  # M = 64, N = 256, 36 blocks of 64
    assert [small.nhwc_split_worthwhile(64, 32, 64, split, 132) for split in (1, 9, 18, 36)] == \
        [True, True, True, False]
    assert not small.nhwc_split_worthwhile(64, 32, 16, 36, 132)  # 288 programs: three waves
    large = ConvShape(32, 256, 56, 56, 256, 3, 3, padding=(1, 1))
    assert not large.nhwc_split_worthwhile(128, 128, 64, 2, 132)
    assert small.nhwc_workspace(64, 32, 1) == (0, 0)
    assert small.nhwc_workspace(64, 32, 9) == (8 * 9 * 64 * 32, 8)
    assert small.grid(64, 32) == (1, 8) and small.grid(64, 32, 9) == (1, 8, 9)


@pytest.mark.parametrize("stride,padding,dilation,split", [((1, 1), (1, 1), (1, 1), 1),
                                                            ((2, 1), (0, 2), (1, 2), 1),
                                                            ((1, 2), (1, 1), (2, 1), 4)])
def test_conv_nhwc_arguments_run_on_the_interpreter(stride, padding, dilation, split):
    rng = np.random.default_rng(2)
    shape = ConvShape(2, 12, 7, 8, 9, 3, 2, stride, padding, dilation)
    tm, tn, tk = 16, 16, nhwc_block_k(12, 8)
    assert tk == 4
    x = rng.uniform(-1, 1, (shape.z, shape.ci, shape.h, shape.w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    b = np.ascontiguousarray(wt.transpose(2, 3, 1, 0).reshape(shape.k, shape.co))  # (r, s, ci) x CO
    y = np.full((shape.z, shape.p, shape.q, shape.co), np.nan, dtype=np.float32)
    kernel = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc.tc", interpret=True,
                             defines={"TYPE": "float", "TM": tm, "TN": tn, "TK": tk, "SPLIT": split})
    x_strides = (shape.h * shape.w * shape.ci, shape.w * shape.ci, shape.ci)
    y_strides = (shape.p * shape.q * shape.co, shape.q * shape.co, shape.co)
    partials, counters = shape.nhwc_workspace(tm, tn, split)
    partials = np.full(max(partials, 1), np.nan, dtype=np.float32)
    counters = np.zeros(max(counters, 1), dtype=np.int32)
    kernel[shape.grid(tm, tn, split)](*shape.nhwc_arguments(x_nhwc.ravel(), b.ravel(), y.ravel(),
                                                            x_strides, shape.co, y_strides,
                                                            partials, counters))
    assert not counters.any()
    expected = reference(x.astype(np.float64), wt.astype(np.float64), shape)
    np.testing.assert_allclose(y.transpose(0, 3, 1, 2), expected, rtol=1e-5, atol=1e-5)


def backward_reference(x, wt, dy, shape):
    """The gradients of reference(): (DX, Z x CI x H x W; DW, CO x CI x R x S) for DY, Z x CO x P x Q,
    by the definition."""
    (sh, sw), (ph, pw), (dh, dw) = shape.stride, shape.padding, shape.dilation
    dx, dwt = np.zeros_like(x), np.zeros_like(wt)
    for p, q, r, s in itertools.product(range(shape.p), range(shape.q), range(shape.r),
                                        range(shape.s)):
        h, w = p * sh - ph + r * dh, q * sw - pw + s * dw
        if 0 <= h < shape.h and 0 <= w < shape.w:
            dx[:, :, h, w] += dy[:, :, p, q] @ wt[:, :, r, s]
            dwt[:, :, r, s] += dy[:, :, p, q].T @ x[:, :, h, w]
    return dx, dwt


def test_wgrad_slices_fill_the_machine_but_stay_long():
    shape = ConvShape(1, 256, 56, 56, 256, 3, 3, padding=(1, 1))
    # 2 x 18 tiles of 128 x 128; 3136 pixels are 98 blocks of 32: CDIV(264, 36) = 8 slices.
    assert shape.wgrad_slices(128, 128, 32, 264) == 8
    assert ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1)).wgrad_slices(128, 128, 32, 264) == 1
    assert ConvShape(1, 1024, 56, 56, 1024, 3, 3).wgrad_slices(128, 128, 32, 264) == 1
    assert ConvShape(2, 40, 7, 9, 16, 3, 3, stride=(2, 3)).dgrad_grid(16, 32) == (2, 2, 6)


@pytest.mark.parametrize("stride,padding,dilation", [((1, 1), (1, 1), (1, 1)),
                                                      ((2, 3), (1, 2), (1, 2)),
                                                      ((2, 2), (0, 0), (2, 1))])
def test_conv_nhwc_backward_arguments_run_on_the_interpreter(stride, padding, dilation):
    rng = np.random.default_rng(3)
    shape = ConvShape(2, 12, 8, 9, 8, 3, 2, stride, padding, dilation)
    tm, tn = 16, 16
    x = rng.uniform(-1, 1, (shape.z, shape.ci, shape.h, shape.w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    dy = rng.uniform(-1, 1, (shape.z, shape.co, shape.p, shape.q)).astype(np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    dy_nhwc = np.ascontiguousarray(dy.transpose(0, 2, 3, 1))
    x_strides = (shape.h * shape.w * shape.ci, shape.w * shape.ci, shape.ci)
    dy_strides = (shape.p * shape.q * shape.co, shape.q * shape.co, shape.co)
    dx_expected, dw_expected = backward_reference(x.astype(np.float64), wt.astype(np.float64),
                                                  dy.astype(np.float64), shape)

    tk = nhwc_block_k(shape.co, 8)
    b = np.ascontiguousarray(wt.transpose(2, 3, 0, 1).reshape(-1, shape.ci))  # (r, s, k) x CI
    dx = np.full((shape.z, shape.h, shape.w, shape.ci), np.nan, dtype=np.float32)
    dgrad = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_dgrad.tc", interpret=True,
                            defines={"TYPE": "float", "TM": tm, "TN": tn, "TK": tk})
    dgrad[shape.dgrad_grid(tm, tn)](*shape.dgrad_arguments(dy_nhwc.ravel(), b.ravel(), dx.ravel(),
                                                           dy_strides, shape.ci, x_strides))
    np.testing.assert_allclose(dx.transpose(0, 3, 1, 2), dx_expected, rtol=1e-5, atol=1e-5)

    tk = 8
    slices = shape.wgrad_slices(tm, tn, tk, 8, min_blocks=1)
    assert slices > 1
    counters, partials = shape.wgrad_workspace(tm, tn)
    counters, partials = np.zeros(counters, dtype=np.int32), np.zeros(partials, dtype=np.float32)
    dw = np.full((shape.co, shape.r, shape.s, shape.ci), np.nan, dtype=np.float32)
    wgrad = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_wgrad.tc", interpret=True,
                            defines={"TYPE": "float", "TM": tm, "TN": tn, "TK": tk})
    wgrad[shape.wgrad_grid(tm, tn, slices)](*shape.wgrad_arguments(
        dy_nhwc.ravel(), x_nhwc.ravel(), dw.ravel(), counters, partials, dy_strides, x_strides,
        shape.r * shape.s * shape.ci))
    np.testing.assert_allclose(dw.transpose(0, 3, 1, 2), dw_expected, rtol=1e-5, atol=1e-5)
    assert not counters.any() and not partials.any()


def test_desc_backward_helpers_need_stride_one():
    shape = ConvShape(1, 256, 56, 56, 256, 3, 3, padding=(1, 1))
    # 2 x 18 tiles of 128 x 128; 49 rectangles of 8 x 8: CDIV(264, 36) = 8 slices, 49 // 4 = 12 allowed.
    assert shape.desc_wgrad_slices(128, 128, 8, 8, 264) == 8
    assert ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1)).desc_wgrad_slices(128, 128, 8, 8, 264) == 1
    assert ConvShape(2, 40, 7, 9, 16, 3, 3).desc_dgrad_grid(4, 8, 32) == (4, 2, 2)
    assert ConvShape(2, 40, 7, 9, 16, 3, 3).desc_dgrad_grid(4, 8, 32, 3) == (4, 2, 6)
    # 8 x 8 pixels, 256 channels: 2 tiles of 64 x 128; 9 taps x 4 blocks of 64 channels = 36 k-steps: 9.
    assert ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1)).desc_dgrad_slices(8, 8, 128, 64, 264) == 9
    assert shape.desc_dgrad_slices(8, 16, 128, 64, 264) == 5  # 7 x 4 x 2 = 56 tiles: CDIV(264, 56) = 5
    assert ConvShape(32, 256, 56, 56, 256, 3, 3).desc_dgrad_slices(8, 16, 128, 64, 264) == 1
    strided = ConvShape(2, 40, 7, 9, 16, 3, 3, stride=(2, 1))
    for call in (lambda: strided.desc_dgrad_grid(4, 8, 32), lambda: strided.desc_dgrad_workspace(4, 8, 32),
                 lambda: strided.desc_wgrad_slices(16, 16, 4, 4, 8)):
        with pytest.raises(ValueError, match="stride 1 only"):
            call()


@pytest.mark.parametrize("padding,dilation", [((1, 1), (1, 1)), ((2, 0), (1, 2))])
def test_conv_nhwc_desc_backward_arguments_run_on_the_interpreter(padding, dilation):
    rng = np.random.default_rng(5)
    shape = ConvShape(2, 12, 8, 9, 8, 3, 2, (1, 1), padding, dilation)
    tp, tq, tm, tn = 4, 4, 16, 16
    x = rng.uniform(-1, 1, (shape.z, shape.ci, shape.h, shape.w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    dy = rng.uniform(-1, 1, (shape.z, shape.co, shape.p, shape.q)).astype(np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    dy_nhwc = np.ascontiguousarray(dy.transpose(0, 2, 3, 1))
    f = np.ascontiguousarray(wt.transpose(0, 2, 3, 1))  # CO x R x S x CI, as PyTorch's channels_last
    x_strides = (shape.h * shape.w * shape.ci, shape.w * shape.ci, shape.ci)
    dy_strides = (shape.p * shape.q * shape.co, shape.q * shape.co, shape.co)
    ldf_co = shape.r * shape.s * shape.ci
    dx_expected, dw_expected = backward_reference(x.astype(np.float64), wt.astype(np.float64),
                                                  dy.astype(np.float64), shape)

    tk = 8
    slices = shape.desc_dgrad_slices(tp, tq, tn, tk, 64, min_blocks=1)
    assert slices > 1
    counters, partials = shape.desc_dgrad_workspace(tp, tq, tn)
    counters, partials = np.zeros(counters, dtype=np.int32), np.zeros(partials, dtype=np.float32)
    dx = np.full((shape.z, shape.h, shape.w, shape.ci), np.nan, dtype=np.float32)
    dgrad = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_desc_dgrad.tc", interpret=True,
                            defines={"TYPE": "float", "TP": tp, "TQ": tq, "TN": tn, "TK": tk})
    dgrad[shape.desc_dgrad_grid(tp, tq, tn, slices)](*shape.desc_dgrad_arguments(
        dy_nhwc.ravel(), f.ravel(), dx.ravel(), counters, partials, dy_strides, ldf_co, x_strides))
    np.testing.assert_allclose(dx.transpose(0, 3, 1, 2), dx_expected, rtol=1e-5, atol=1e-5)
    assert not counters.any() and not partials.any()

    slices = shape.desc_wgrad_slices(tm, tn, tp, tq, 8, min_blocks=1)
    assert slices > 1
    counters, partials = shape.wgrad_workspace(tm, tn)
    counters, partials = np.zeros(counters, dtype=np.int32), np.zeros(partials, dtype=np.float32)
    df = np.full((shape.co, shape.r, shape.s, shape.ci), np.nan, dtype=np.float32)
    wgrad = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_desc_wgrad.tc", interpret=True,
                            defines={"TYPE": "float", "TP": tp, "TQ": tq, "TM": tm, "TN": tn})
    wgrad[shape.wgrad_grid(tm, tn, slices)](*shape.desc_wgrad_arguments(
        dy_nhwc.ravel(), x_nhwc.ravel(), df.ravel(), counters, partials, dy_strides, x_strides, ldf_co))
    np.testing.assert_allclose(df.transpose(0, 3, 1, 2), dw_expected, rtol=1e-5, atol=1e-5)
    assert not counters.any() and not partials.any()


def test_the_1x1_weight_gradient_gemm_splits_its_pixels():
    # 1024 x 256 output in 128 x 128 tiles: 16 tiles, CDIV(264, 16) = 17 slices of 6272 pixels (at
    # least 4 k-steps of 64 each: 24 allowed).
    assert ConvShape(32, 256, 14, 14, 1024, 1, 1).gemm_wgrad_slices(128, 128, 64, 264) == 17
    # 64 x 256 in 2 tiles: 132 slices of 100352 pixels (392 allowed).
    assert ConvShape(32, 256, 56, 56, 64, 1, 1).gemm_wgrad_slices(128, 128, 64, 264) == 132
    # Few pixels: each slice keeps 4 k-steps (2 * 8 * 8 = 128 pixels, 2 slices of 64); at least 1.
    assert ConvShape(2, 64, 8, 8, 64, 1, 1).gemm_wgrad_slices(64, 64, 16, 264) == 2
    assert splitk_slices(64, 64, 10, 64, 64, 16, 264) == 1


def test_dgrad_as_forward_shapes():
    shape = ConvShape(2, 16, 7, 6, 8, 3, 2, (1, 1), (2, 0), (1, 2))
    forward = shape.dgrad_as_forward()
    # P = 7 + 4 - 2 = 9 and Q = 6 - 2 = 4 pixels of 8 channels in; 7 x 6 of 16 out.
    assert (forward.ci, forward.co, forward.h, forward.w) == (8, 16, 9, 4)
    assert (forward.padding, forward.dilation, forward.p, forward.q) == ((0, 2), (1, 2), 7, 6)
    for other in (ConvShape(2, 16, 7, 6, 8, 3, 2, (1, 1), (2, 3), (1, 2)),  # pad_w past 2 * (2 - 1)
                  ConvShape(2, 16, 7, 6, 8, 3, 2, (2, 1), (1, 0))):
        assert not other.dgrad_is_forward()
        with pytest.raises(ValueError, match="not a forward convolution"):
            other.dgrad_as_forward()


@pytest.mark.parametrize("padding,dilation", [((1, 1), (1, 1)), ((2, 0), (1, 2))])
def test_dgrad_as_forward_runs_on_the_interpreter(padding, dilation):
    """conv_nhwc_desc.tc with DGRAD=1 on the output gradient and the filter as it is (the launch of
    dgrad_as_forward's desc_grid and desc_arguments) gives the data gradient."""
    rng = np.random.default_rng(7)
    shape = ConvShape(2, 12, 8, 9, 10, 3, 2, (1, 1), padding, dilation)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    dy = rng.uniform(-1, 1, (shape.z, shape.co, shape.p, shape.q)).astype(np.float32)
    dx_expected, _ = backward_reference(np.zeros((shape.z, shape.ci, shape.h, shape.w)),
                                        wt.astype(np.float64), dy.astype(np.float64), shape)
    f = np.ascontiguousarray(wt.transpose(0, 2, 3, 1))  # CO x R x S x CI, as PyTorch's channels_last

    forward = shape.dgrad_as_forward()
    tp, tq, tn, tk = 4, 4, 8, 8
    dy_nhwc = np.ascontiguousarray(dy.transpose(0, 2, 3, 1))
    dx = np.full((shape.z, shape.h, shape.w, shape.ci), np.nan, dtype=np.float32)
    conv = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_desc.tc", interpret=True,
                           defines={"TYPE": "float", "TP": tp, "TQ": tq, "TN": tn, "TK": tk, "DGRAD": 1})
    conv[forward.desc_grid(tp, tq, tn)](*forward.desc_arguments(
        dy_nhwc.ravel(), f.ravel(), dx.ravel(), (shape.p * shape.q * shape.co, shape.q * shape.co, shape.co),
        shape.r * shape.s * shape.ci, (shape.h * shape.w * shape.ci, shape.w * shape.ci, shape.ci),
        np.zeros(1, dtype=np.float32), np.zeros(1, dtype=np.int32)))
    np.testing.assert_allclose(dx.transpose(0, 3, 1, 2), dx_expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("split,boxes", [(1, 1), (5, 1), (1, 2), (5, 2)])
def test_conv_nhwc_desc_arguments_run_on_the_interpreter(split, boxes):
    """desc_grid, desc_workspace and desc_arguments launch conv_nhwc_desc.tc, unsplit and with 5 slices
    of its 3 * 2 * CDIV(12, 8) = 12 k-steps (runs of 2 and 3) adding through the workspace; with BOXES = 2
    on 3 images (the last tile's second image past Z)."""
    rng = np.random.default_rng(6)
    shape = ConvShape(1 + boxes, 12, 7, 9, 10, 3, 2, (1, 1), (1, 0), (2, 1))
    tp, tq, tn, tk = 4, 4, 8, 8
    x = rng.uniform(-1, 1, (shape.z, shape.ci, shape.h, shape.w)).astype(np.float32)
    wt = rng.uniform(-1, 1, (shape.co, shape.ci, shape.r, shape.s)).astype(np.float32)
    x_nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    f = np.ascontiguousarray(wt.transpose(0, 2, 3, 1))  # CO x R x S x CI, as PyTorch's channels_last
    y = np.full((shape.z, shape.p, shape.q, shape.co), np.nan, dtype=np.float32)
    partials, counters = shape.desc_workspace(tp, tq, tn, split, boxes)
    partials = np.full(max(partials, 1), np.nan, dtype=np.float32)  # any contents
    counters = np.zeros(max(counters, 1), dtype=np.int32)
    defines = {"TYPE": "float", "TP": tp, "TQ": tq, "TN": tn, "TK": tk, "SPLIT": split, "BOXES": boxes}
    kernel = tritonc.compile(f"{tritonc.kernels_dir()}/conv_nhwc_desc.tc", interpret=True, defines=defines)
    kernel[shape.desc_grid(tp, tq, tn, split, boxes)](*shape.desc_arguments(
        x_nhwc.ravel(), f.ravel(), y.ravel(), (shape.h * shape.w * shape.ci, shape.w * shape.ci, shape.ci),
        shape.r * shape.s * shape.ci, (shape.p * shape.q * shape.co, shape.q * shape.co, shape.co), partials,
        counters))
    np.testing.assert_allclose(y.transpose(0, 3, 1, 2), reference(x.astype(np.float64), wt.astype(np.float64),
                                                                   shape), rtol=1e-5, atol=1e-5)
    assert not counters.any(), "the counters must be zero again on exit"
    with pytest.raises(ValueError, match="stride 1 only"):
        ConvShape(1, 8, 8, 8, 8, 3, 3, stride=(1, 2)).desc_grid(4, 4, 8)


def test_desc_split_is_worth_timing_only_where_the_tiles_leave_multiprocessors_idle():
    """conv_nhwc_desc.tc's split-K candidates on 132 SMs. 256 @ 8x8 (3x3, TK 64: 36 k-steps) at 8x8 pixels x
    64 channels is 4 tiles: 18 slices still give each two k-steps, 19 do not. At Z = 32 it is 128 tiles: 2
    slices fit in two waves (256 programs), 3 do not; 32 channels make 256 tiles, no idle SM to fill."""
    small = ConvShape(1, 256, 8, 8, 256, 3, 3, padding=(1, 1))
    assert small.desc_split_worthwhile(8, 8, 64, 64, 1, 132)
    assert small.desc_split_worthwhile(8, 8, 64, 64, 18, 132)
    assert not small.desc_split_worthwhile(8, 8, 64, 64, 19, 132)
    batch = ConvShape(32, 256, 8, 8, 256, 3, 3, padding=(1, 1))
    assert batch.desc_split_worthwhile(8, 8, 64, 64, 2, 132)
    assert not batch.desc_split_worthwhile(8, 8, 64, 64, 3, 132)
    assert not batch.desc_split_worthwhile(8, 8, 32, 64, 2, 132)
    assert batch.desc_split_worthwhile(8, 8, 32, 64, 1, 132)
    assert small.desc_workspace(8, 8, 64, 1) == (0, 0)
    assert small.desc_workspace(8, 8, 64, 9) == (4 * 9 * 8 * 8 * 64, 4)


LAUNCH_TABLE = Path(__file__).resolve().parents[1] / "unit" / "driver" / "Inputs" / "conv-desc-launches.txt"


def _launch_table():
    """The lines of tests/unit/driver/Inputs/conv-desc-launches.txt as (line number, kernel, groups of
    ints): the launches that Convolution.h's functions are checked against too (driver_tests)."""
    for number, text in enumerate(LAUNCH_TABLE.read_text().splitlines(), 1):
        if text.strip() and not text.startswith("#"):
            kernel, rest = text.split(None, 1)
            yield number, kernel, [[int(v) for v in group.split()] for group in rest.split("|")]


def test_desc_launches_match_the_table_the_cpp_library_is_checked_against():
    lines = list(_launch_table())
    assert len(lines) >= 12
    for number, kernel, (s, tiles, lds, launch, arguments) in lines:
        shape = ConvShape(*s[:7], (1, 1), tuple(s[7:9]), tuple(s[9:11]))
        if kernel == "forward":
            tp, tq, tn, tk, split, sms, *boxes = tiles  # BOXES last where not 1
            boxes = boxes[0] if boxes else 1
            got = [int(shape.desc_split_worthwhile(tp, tq, tn, tk, split, sms, boxes)),
                   *shape.desc_grid(tp, tq, tn, split, boxes),
                   *shape.desc_workspace(tp, tq, tn, split, boxes)]
            got_args = shape.desc_arguments("X", "F", "Y", lds[0:3], lds[3], lds[4:7], "p", "c")[3:-2]
        elif kernel == "dgrad":
            tp, tq, tn, tk, programs = tiles
            slices = shape.desc_dgrad_slices(tp, tq, tn, tk, programs)
            got = [slices, *shape.desc_dgrad_grid(tp, tq, tn, slices),
                   *shape.desc_dgrad_workspace(tp, tq, tn)]
            got_args = shape.desc_dgrad_arguments("DY", "F", "DX", "c", "p", lds[0:3], lds[3], lds[4:7])[5:]
        else:
            assert kernel == "wgrad", f"line {number}: unknown kernel {kernel}"
            tm, tn, tp, tq, programs = tiles
            slices = shape.desc_wgrad_slices(tm, tn, tp, tq, programs)
            got = [slices, *shape.wgrad_grid(tm, tn, slices), *shape.wgrad_workspace(tm, tn)]
            got_args = shape.desc_wgrad_arguments("DY", "X", "DF", "c", "p", lds[0:3], lds[3:6], lds[6])[5:]
        assert (got, list(got_args)) == (launch, arguments), f"conv-desc-launches.txt:{number}"
