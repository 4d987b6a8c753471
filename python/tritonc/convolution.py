"""Host-side arithmetic of the bundled convolution kernels, shared by ``tritonc.ops.conv2d``, the
benchmarks and the tests, so that no caller computes it again (and none needs torch for it):

    shape = ConvShape(z, ci, h, w, co, r, s, stride=(1, 1), padding=(1, 1), dilation=(1, 1))
    shape.p, shape.q, shape.m, shape.n, shape.k   output size and the implicit GEMM's M x N x K
    shape.increments(tk, (lda_ci, lda_h, lda_w))  conv.tc's ADELTA table (NCHW input)
    shape.nchw_arguments(x, b, y, delta, ...)     conv.tc's argument list
    nhwc_block_k(ci, largest)                     a TK for conv_nhwc.tc (a power of two dividing CI)
    shape.nhwc_arguments(x, b, y, ..., partials, counters)   conv_nhwc.tc's argument list
    shape.grid(tm, tn)                            the launch grid of conv.tc (conv_nhwc.tc: split=)
    shape.nhwc_workspace(tm, tn, split)           sizes of conv_nhwc.tc's split-K workspace
    shape.nhwc_split_worthwhile(tm, tn, tk, split, sms)   whether a split-K tile is worth timing
    shape.dgrad_grid(tm, tn)                      conv_nhwc_dgrad.tc's grid (a layer per stride phase)
    shape.dgrad_arguments(dy, b, dx, ...)         conv_nhwc_dgrad.tc's argument list
    shape.wgrad_slices(tm, tn, tk, programs)      conv_nhwc_wgrad.tc's split of its reduction
    shape.wgrad_grid(tm, tn, slices)              its grid, and wgrad_workspace(tm, tn) its workspace sizes
    shape.wgrad_arguments(dy, x, dw, ...)         conv_nhwc_wgrad.tc's argument list
    shape.desc_grid(tp, tq, tn, split, boxes)     conv_nhwc_desc.tc's grid (stride 1, SPLIT = split,
                                                  BOXES = boxes)
    shape.desc_workspace(tp, tq, tn, split, boxes)   sizes of its split-K workspace
    shape.desc_split_worthwhile(tp, tq, tn, tk, split, sms, boxes)   whether its split-K tile is worth
                                                  timing
    shape.desc_arguments(x, f, y, ..., partials, counters)    its argument list
    shape.desc_dgrad_slices(tp, tq, tn, tk, programs)   conv_nhwc_desc_dgrad.tc's split of its k-steps
    shape.desc_dgrad_grid(tp, tq, tn, slices)     its grid (stride 1), desc_dgrad_workspace its workspace
    shape.desc_dgrad_arguments(dy, f, dx, ...)    its argument list
    shape.desc_wgrad_slices(tm, tn, tp, tq, programs)   conv_nhwc_desc_wgrad.tc's split of its reduction
                                                  (its grid and workspace are wgrad_grid's and
                                                  wgrad_workspace's)
    shape.desc_wgrad_arguments(dy, x, df, ...)    its argument list
    shape.gemm_wgrad_slices(tm, tn, tk, programs) the K slices of a 1x1 weight gradient as a split-K GEMM
                                                  (matmul_splitk.tc: DY^T X, K the Z*H*W pixels)
    splitk_slices(m, n, k, tm, tn, tk, programs)  the same rule for any split-K GEMM
    shape.dgrad_is_forward()                      whether the data gradient is a forward convolution
    shape.dgrad_as_forward()                      that forward convolution's shape (output gradient in,
                                                  input gradient out: conv_nhwc_desc.tc with DGRAD=1)

Strides are in elements. conv.tc reads its filter as a (CI*R*S) x CO matrix whose rows are in the
order (ci, r, s); conv_nhwc.tc as an (R*S*CI) x CO matrix in the order (r, s, ci). The data gradient
conv_nhwc_dgrad.tc reads it as an (R*S*CO) x CI matrix in the order (r, s, k); the weight gradient
conv_nhwc_wgrad.tc writes a CO x (R*S*CI) matrix in the order (r, s, ci) (a channels_last filter). The C++ API has
the same functions in ``tritonc/driver/Convolution.h`` (the desc_ ones take a DescConvShape there, a
shape checked once for stride 1; their argument lists are the scalars after the pointers). The descriptor kernels
(conv_nhwc_desc*.tc, stride 1) read and write the filter in PyTorch's channels_last order, CO x R x S x CI,
as it is: they need no copy of it and no table.
"""

from dataclasses import dataclass
from typing import List, Sequence, Tuple


def _cdiv(a, b):
    return (a + b - 1) // b


@dataclass(frozen=True)
class ConvShape:
    """A 2-D convolution of Z images of CI x H x W by CO filters of CI x R x S (groups = 1)."""
    z: int
    ci: int
    h: int
    w: int
    co: int
    r: int
    s: int
    stride: Tuple[int, int] = (1, 1)
    padding: Tuple[int, int] = (0, 0)
    dilation: Tuple[int, int] = (1, 1)

    def __post_init__(self):
        for name in ("z", "ci", "h", "w", "co"):
            if getattr(self, name) < 0:
                raise ValueError(f"ConvShape: {name} = {getattr(self, name)} is negative")
        if self.r < 1 or self.s < 1:
            raise ValueError(f"ConvShape: the filter is {self.r} x {self.s}")
        if min(self.stride) < 1 or min(self.dilation) < 1 or min(self.padding) < 0:
            raise ValueError(f"ConvShape: stride {self.stride}, dilation {self.dilation} and "
                             f"padding {self.padding} must be positive (padding non-negative)")

    @property
    def p(self):
        """Output rows."""
        extent = self.dilation[0] * (self.r - 1) + 1
        return max(0, (self.h + 2 * self.padding[0] - extent) // self.stride[0] + 1)

    @property
    def q(self):
        """Output columns."""
        extent = self.dilation[1] * (self.s - 1) + 1
        return max(0, (self.w + 2 * self.padding[1] - extent) // self.stride[1] + 1)

    @property
    def m(self):
        """Rows of the implicit GEMM: one per output pixel, Z * P * Q."""
        return self.z * self.p * self.q

    @property
    def n(self):
        return self.co

    @property
    def k(self):
        """The reduction: CI * R * S filter taps."""
        return self.ci * self.r * self.s

    def grid(self, tm, tn, split=1):
        """The launch grid; split > 1 (conv_nhwc.tc's SPLIT) adds the K slices as axis 2."""
        tiles = (_cdiv(self.m, tm), _cdiv(self.n, tn))
        return tiles if split == 1 else tiles + (split,)

    def nhwc_workspace(self, tm, tn, split):
        """(ACC elements of `partials`, ints of `counters`) that conv_nhwc.tc with SPLIT = split
        needs: SPLIT partial TM x TN tiles and one counter per output tile; (0, 0) unsplit."""
        return _split_workspace(_cdiv(self.m, tm) * _cdiv(self.n, tn), tm * tn, split)

    def nhwc_split_worthwhile(self, tm, tn, tk, split, sms):
        """Whether conv_nhwc.tc at TM x TN with SPLIT = split is worth timing on a GPU of `sms`
        multiprocessors: always unsplit; split only where the output tiles alone leave SMs idle,
        every slice gets at least two K blocks (a slice of one cannot overlap its loads), and the
        programs fit in two waves (each slice adds TM x TN ACC of workspace traffic)."""
        return _split_worthwhile(_cdiv(self.m, tm) * _cdiv(self.n, tn),
                                 self.r * self.s * (self.ci // tk), split, sms)

    def increments(self, tk, x_strides: Sequence[int]) -> List[int]:
        """conv.tc's ADELTA (the thesis' listing 5.9): for reduction index i = (ci, r, s), how far
        A's offset moves from i to i + TK; x_strides = (lda_ci, lda_h, lda_w). One entry per
        index of K; the entries past K - TK point beyond the filter and are masked off."""
        if self.dilation != (1, 1):
            raise ValueError("conv.tc has no dilation: use conv_nhwc.tc")
        lda_ci, lda_h, lda_w = x_strides
        rs = self.r * self.s

        def offset(j):
            return (j // rs) * lda_ci + ((j // self.s) % self.r) * lda_h + (j % self.s) * lda_w

        return [offset(i + tk) - offset(i) for i in range(self.k)]

    def nchw_arguments(self, x, b, y, delta, x_strides: Sequence[int], ldb,
                       y_strides: Sequence[int]):
        """conv.tc's arguments after its pointers x (NCHW input), b (the (CI*R*S) x CO filter,
        row stride ldb), y (NCHW output) and delta (increments(TK, ...)); x_strides =
        (lda_z, lda_ci, lda_h, lda_w), y_strides = (ldc_z, ldc_co, ldc_p) (q has stride 1)."""
        if self.dilation != (1, 1):
            raise ValueError("conv.tc has no dilation: use conv_nhwc.tc")
        (sh, sw), (ph, pw) = self.stride, self.padding
        return (x, b, y, delta, self.m, self.n, self.k, self.h, self.w, self.r, self.s, self.p,
                self.q, ph, pw, sh, sw, *x_strides, ldb, *y_strides)

    def nhwc_arguments(self, x, b, y, x_strides: Sequence[int], ldb, y_strides: Sequence[int],
                       partials, counters):
        """conv_nhwc.tc's arguments: its pointers x (NHWC input, channels contiguous), b (the
        (R*S*CI) x CO filter, row stride ldb) and y (NHWC output, channels contiguous);
        x_strides = (lda_z, lda_h, lda_w), y_strides = (ldc_z, ldc_p, ldc_q); the split-K
        workspace last (nhwc_workspace's sizes; any buffers when SPLIT is 1, counters zero)."""
        (sh, sw), (ph, pw), (dh, dw) = self.stride, self.padding, self.dilation
        return (x, b, y, self.m, self.n, self.h, self.w, self.ci, self.r, self.s, self.p, self.q,
                ph, pw, sh, sw, dh, dw, *x_strides, ldb, *y_strides, partials, counters)

    def dgrad_grid(self, tm, tn):
        """conv_nhwc_dgrad.tc's grid: the input pixels of the largest stride phase in TM rows, CI in TN
        columns, a layer per phase."""
        (sh, sw) = self.stride
        pixels = self.z * _cdiv(self.h, sh) * _cdiv(self.w, sw)
        return (_cdiv(pixels, tm), _cdiv(self.ci, tn), sh * sw)

    def dgrad_arguments(self, dy, b, dx, dy_strides: Sequence[int], ldb, dx_strides: Sequence[int]):
        """conv_nhwc_dgrad.tc's arguments after its pointers dy (NHWC output gradient), b (the
        (R*S*CO) x CI filter, rows (r, s, k), row stride ldb) and dx (NHWC input gradient);
        dy_strides = (lda_z, lda_p, lda_q), dx_strides = (ldc_z, ldc_h, ldc_w)."""
        return (dy, b, dx, self.z, self.h, self.w, self.ci, self.co, self.r, self.s, self.p, self.q,
                *self.padding, *self.stride, *self.dilation, *dy_strides, ldb, *dx_strides)

    def wgrad_slices(self, tm, tn, tk, programs, min_blocks=8):
        """How many slices conv_nhwc_wgrad.tc splits its reduction over the Z*P*Q output pixels into:
        enough for about `programs` programs in all, each slice at least min_blocks K blocks long (a
        shorter one spends more on adding its workspace tile than it reduces); at least 1."""
        tiles = _cdiv(self.co, tm) * self.r * self.s * _cdiv(self.ci, tn)
        return _reduction_slices(tiles, _cdiv(self.m, tk), programs, min_blocks)

    def wgrad_grid(self, tm, tn, slices):
        return (_cdiv(self.co, tm), self.r * self.s * _cdiv(self.ci, tn), slices)

    def wgrad_workspace(self, tm, tn):
        """(counters, partials): the sizes, in ints and in float accumulators, of the workspace that
        conv_nhwc_wgrad.tc's slices add through (zero on entry, zero again on exit)."""
        tiles = _cdiv(self.co, tm) * self.r * self.s * _cdiv(self.ci, tn)
        return tiles, tiles * tm * tn

    def wgrad_arguments(self, dy, x, dw, counters, partials, dy_strides: Sequence[int],
                        x_strides: Sequence[int], ldc):
        """conv_nhwc_wgrad.tc's arguments after its pointers dy (NHWC output gradient), x (NHWC
        input), dw (CO x (R*S*CI), row stride ldc), counters and partials (wgrad_workspace);
        dy_strides = (lda_z, lda_p, lda_q), x_strides = (ldb_z, ldb_h, ldb_w)."""
        return (dy, x, dw, counters, partials, self.z, self.h, self.w, self.ci, self.co, self.r,
                self.s, self.p, self.q, *self.padding, *self.stride, *self.dilation, *dy_strides,
                *x_strides, ldc)

    def _require_stride_one(self, kernel):
        if self.stride != (1, 1):
            raise ValueError(f"{kernel} has stride 1 only (the shape's stride is {self.stride})")

    def _desc_tiles(self, tp, tq, tn, boxes):
        """conv_nhwc_desc.tc's output tiles: rectangles of output pixels times channel blocks, for
        every `boxes` images (the last ones may reach past Z)."""
        self._require_stride_one("conv_nhwc_desc.tc")
        return _cdiv(self.p, tp) * _cdiv(self.q, tq) * _cdiv(self.co, tn) * _cdiv(self.z, boxes)

    def desc_grid(self, tp, tq, tn, split=1, boxes=1):
        """conv_nhwc_desc.tc's grid: TP x TQ rectangles of output pixels, CO in TN channels, the
        SPLIT = split slices of the k-steps of each BOXES = boxes images in the layers."""
        self._require_stride_one("conv_nhwc_desc.tc")
        return (_cdiv(self.p, tp) * _cdiv(self.q, tq), _cdiv(self.co, tn), _cdiv(self.z, boxes) * split)

    def desc_workspace(self, tp, tq, tn, split, boxes=1):
        """(ACC elements of `partials`, ints of `counters`) that conv_nhwc_desc.tc with SPLIT = split
        and BOXES = boxes needs: SPLIT partial tiles of BOXES * TP * TQ x TN and one counter per
        output tile (zero on entry, zero again on exit); (0, 0) unsplit."""
        return _split_workspace(self._desc_tiles(tp, tq, tn, boxes), boxes * tp * tq * tn, split)

    def desc_split_worthwhile(self, tp, tq, tn, tk, split, sms, boxes=1):
        """Whether conv_nhwc_desc.tc at TP x TQ x TN x TK with SPLIT = split and BOXES = boxes is
        worth timing on a GPU of `sms` multiprocessors: nhwc_split_worthwhile's rule over its output
        tiles and its R * S * CDIV(CI, TK) k-steps."""
        return _split_worthwhile(self._desc_tiles(tp, tq, tn, boxes),
                                 self.r * self.s * _cdiv(self.ci, tk), split, sms)

    def desc_arguments(self, x, f, y, x_strides: Sequence[int], ldf_co, y_strides: Sequence[int],
                       partials, counters):
        """conv_nhwc_desc.tc's arguments: its pointers x (NHWC input), f (the CO x R x S x CI filter,
        output channels ldf_co apart) and y (NHWC output); x_strides = (ldx_z, ldx_h, ldx_w),
        y_strides = (ldy_z, ldy_p, ldy_q); the split-K workspace last (desc_workspace's sizes; any
        buffers when SPLIT is 1)."""
        self._require_stride_one("conv_nhwc_desc.tc")
        return (x, f, y, self.z, self.h, self.w, self.ci, self.co, self.r, self.s, self.p, self.q,
                *self.padding, *self.dilation, *x_strides, ldf_co, *y_strides, partials, counters)

    def _desc_dgrad_tiles(self, tp, tq, tn):
        self._require_stride_one("conv_nhwc_desc_dgrad.tc")
        return _cdiv(self.h, tp) * _cdiv(self.w, tq) * _cdiv(self.ci, tn) * self.z

    def desc_dgrad_slices(self, tp, tq, tn, tk, programs, min_blocks=4):
        """How many slices conv_nhwc_desc_dgrad.tc splits its R * S * CDIV(CO, TK) k-steps into: enough
        for about `programs` programs in all, each slice at least min_blocks k-steps long; at least 1."""
        return _reduction_slices(self._desc_dgrad_tiles(tp, tq, tn),
                                 self.r * self.s * _cdiv(self.co, tk), programs, min_blocks)

    def desc_dgrad_grid(self, tp, tq, tn, slices=1):
        """conv_nhwc_desc_dgrad.tc's grid: TP x TQ rectangles of input pixels, CI in TN channels, the
        slices of each image's k-steps in the layers."""
        self._require_stride_one("conv_nhwc_desc_dgrad.tc")
        return (_cdiv(self.h, tp) * _cdiv(self.w, tq), _cdiv(self.ci, tn), self.z * slices)

    def desc_dgrad_workspace(self, tp, tq, tn):
        """(counters, partials): the sizes, in ints and in float accumulators, of the workspace that
        conv_nhwc_desc_dgrad.tc's slices add through (zero on entry, zero again on exit)."""
        tiles = self._desc_dgrad_tiles(tp, tq, tn)
        return tiles, tiles * tp * tq * tn

    def desc_dgrad_arguments(self, dy, f, dx, counters, partials, dy_strides: Sequence[int], ldf_co,
                             dx_strides: Sequence[int]):
        """conv_nhwc_desc_dgrad.tc's arguments: its pointers dy (NHWC output gradient), f (the CO x R x S
        x CI filter, output channels ldf_co apart), dx (NHWC input gradient), counters and partials
        (desc_dgrad_workspace); dy_strides = (ldy_z, ldy_p, ldy_q), dx_strides = (ldx_z, ldx_h,
        ldx_w)."""
        self._require_stride_one("conv_nhwc_desc_dgrad.tc")
        return (dy, f, dx, counters, partials, self.z, self.h, self.w, self.ci, self.co, self.r, self.s,
                self.p, self.q, *self.padding, *self.dilation, *dy_strides, ldf_co, *dx_strides)

    def gemm_wgrad_slices(self, tm, tn, tk, programs):
        """The K slices (matmul_splitk.tc's TZ) of the weight gradient of a 1x1 convolution at stride 1
        without padding as a GEMM, DW (CO x CI) = DY^T X over the Z*H*W pixels: splitk_slices."""
        return splitk_slices(self.co, self.ci, self.m, tm, tn, tk, programs)

    def dgrad_is_forward(self):
        """Whether the data gradient is the forward convolution dgrad_as_forward describes: stride 1
        and, per axis, padding at most dil * (R - 1) (the forward one's padding is the difference)."""
        return self.stride == (1, 1) and all(
            pad <= dil * (taps - 1)
            for pad, dil, taps in zip(self.padding, self.dilation, (self.r, self.s)))

    def dgrad_as_forward(self):
        """The data gradient as a forward convolution (stride 1 only, dgrad_is_forward): the output
        gradient (Z x CO x P x Q) is its input, the input gradient (Z x CI x H x W) its output, its
        filter this one flipped in both taps with the channels exchanged (conv_nhwc_desc.tc with DGRAD=1
        reads this one's channels_last filter so, as it is), its padding dil * (R - 1) - pad."""
        if not self.dgrad_is_forward():
            raise ValueError(f"the data gradient of stride {self.stride}, padding {self.padding}, "
                             f"dilation {self.dilation} and a {self.r} x {self.s} filter is not a "
                             f"forward convolution (stride 1 and padding at most dil * (R - 1) are)")
        padding = tuple(dil * (taps - 1) - pad
                        for pad, dil, taps in zip(self.padding, self.dilation, (self.r, self.s)))
        return ConvShape(self.z, self.co, self.p, self.q, self.ci, self.r, self.s, (1, 1), padding,
                         self.dilation)

    def desc_wgrad_slices(self, tm, tn, tp, tq, programs, min_blocks=4):
        """How many slices conv_nhwc_desc_wgrad.tc splits its reduction over the Z * CDIV(P, TP) *
        CDIV(Q, TQ) rectangles of output pixels into: enough for about `programs` programs in all, each
        slice at least min_blocks rectangles long (a shorter one spends more on adding its workspace
        tile than it reduces); at least 1."""
        self._require_stride_one("conv_nhwc_desc_wgrad.tc")
        tiles = _cdiv(self.co, tm) * self.r * self.s * _cdiv(self.ci, tn)
        rects = self.z * _cdiv(self.p, tp) * _cdiv(self.q, tq)
        return _reduction_slices(tiles, rects, programs, min_blocks)

    def desc_wgrad_arguments(self, dy, x, df, counters, partials, dy_strides: Sequence[int],
                             x_strides: Sequence[int], ldf_co):
        """conv_nhwc_desc_wgrad.tc's arguments: its pointers dy (NHWC output gradient), x (NHWC input),
        df (the CO x R x S x CI filter gradient, output channels ldf_co apart), counters and partials
        (wgrad_workspace(TM, TN)); dy_strides = (ldy_z, ldy_p, ldy_q), x_strides = (ldx_z, ldx_h,
        ldx_w)."""
        self._require_stride_one("conv_nhwc_desc_wgrad.tc")
        return (dy, x, df, counters, partials, self.z, self.h, self.w, self.ci, self.co, self.r, self.s,
                self.p, self.q, *self.padding, *self.dilation, *dy_strides, *x_strides, ldf_co)


def _split_workspace(tiles, tile_elements, split):
    """(partials, counters) of a deterministic split-K over `tiles` output tiles: split partial tiles
    each and a counter; (0, 0) unsplit."""
    if split == 1:
        return 0, 0
    return tiles * split * tile_elements, tiles


def _split_worthwhile(tiles, blocks, split, sms):
    """Whether `split` slices of `blocks` reduction steps over `tiles` output tiles are worth timing
    on `sms` multiprocessors (nhwc_split_worthwhile's rule)."""
    if split == 1:
        return True
    return tiles < sms and 2 * split <= blocks and tiles * split <= 2 * sms


def splitk_slices(m, n, k, tm, tn, tk, programs, min_blocks=4):
    """How many slices a split-K GEMM of M x N x K at TM x TN x TK splits K into: enough for about
    `programs` programs in all, each slice at least min_blocks k-steps of TK; at least 1."""
    return _reduction_slices(_cdiv(m, tm) * _cdiv(n, tn), k // tk, programs, min_blocks)


def _reduction_slices(tiles, steps, programs, min_blocks):
    """Slices of a reduction of `steps` steps over `tiles` output tiles: enough for about `programs`
    programs, each at least min_blocks steps long; at least 1 (Convolution.cpp's reductionSlices)."""
    if tiles < 1:
        return 1
    return max(1, min(_cdiv(programs, tiles), steps // max(1, min_blocks)))


def nhwc_block_k(ci, largest):
    """The TK of conv_nhwc.tc for CI channels: the largest power of two that divides CI, at most
    `largest` (the kernel needs TK to divide CI; 16-bit tensor cores want a multiple of 16)."""
    if ci < 0 or largest < 1:
        raise ValueError(f"nhwc_block_k: CI = {ci} must not be negative, largest = {largest} "
                         f"must be positive")
    tk = 1
    while tk * 2 <= largest and ci % (tk * 2) == 0:
        tk *= 2
    return tk
