"""Convolution and unaligned-GEMM benchmarks (issue 28's shapes), recording where the loads whose
addresses are not affine in the loop (the convolution's increments table) or not 16-byte aligned (odd
row strides) stand against the peers.

conv: fp16 2-D convolutions as implicit GEMMs with `kernels/conv.tc` (NCHW input, the filter as a
(CI*R*S) x CO matrix, the thesis' table of address increments ADELTA), autotuned per shape over a few
tiles and checked against torch first, against `torch.nn.functional.conv2d` with
`cudnn.benchmark = True` in NCHW and in channels_last (NHWC) layout; the faster of the two is the
"cuDNN" peer. Shapes: 3x3, pad 1, stride 1 at Z = 1 and Z = 32, and stride-2 and 1x1 layers of ResNet-50.

conv_nhwc: the same shapes with `kernels/conv_nhwc.tc` on channels_last input and output (the filter as
an (R*S*CI) x CO matrix in the order (r, s, ci), TK dividing CI, no table), autotuned, checked and
timed against the same two cuDNN layouts. Sizes and argument lists come from `tritonc.convolution`.
On stride-1 shapes the same autotuning also tries `kernels/conv_nhwc_desc.tc` (tensor descriptors,
PyTorch's channels_last weight as its filter: both operands in rings of bulk tensor copies feeding
wgmma; also 8 x 8-pixel tiles, and where the output tiles leave SMs idle split-K ones: SPLIT slices of
the k-steps per tile), each candidate checked against torch on a poisoned output first.
conv_bf16: the same in bfloat16 (fp32 accumulation), over the same candidates.

conv_dgrad, conv_wgrad: the data and weight gradients of the same fp16 convolutions with
`kernels/conv_nhwc_dgrad.tc` (the stride phases in grid axis 2) and `kernels/conv_nhwc_wgrad.tc` (its
reduction over the output pixels split into slices), on channels_last tensors, autotuned, checked
against torch and timed against cuDNN's `torch.ops.aten.convolution_backward` computing that gradient
alone, in NCHW and in channels_last layout (the faster of the two is the peer). For stride-1 shapes the
autotuner also times the descriptor kernels `kernels/conv_nhwc_desc_dgrad.tc` (a k-step is a box of DY at
the tap's shifted pixels and a box of the channels_last filter as it is) and
`kernels/conv_nhwc_desc_wgrad.tc` (a k-step is a rectangle of output pixels: boxes of DY and X) and keeps
the fastest of all; for 1x1 layers the weight gradient also times matmul_splitk.tc (DY's pixels transposed
times X's, split over the pixels). Where the data gradient is a forward convolution (stride 1:
ConvShape.dgrad_as_forward) it also times conv_nhwc_desc.tc's forward candidates with DGRAD=1 on DY (the
filter read flipped, channels exchanged, as it is), and for 1x1 layers matmul.tc on DY's pixels by the
filter rows as they are.

1x1 layers in conv_nhwc and conv_bf16: at stride 1 without padding the GEMM `kernels/matmul.tc` (the
channels_last pixels by the transposed filter rows, no copy) is tuned with the convolution kernels, and
"tritonc config" names the kernel that won.

With WARP_SPECIALIZE set (the default; bench.py --no-ws-candidates clears it) conv_nhwc_desc.tc's unsplit
candidates (with DGRAD=1 in the data gradient too) are also tried
compiled with warp_specialize=True (a producer warpgroup issues the bulk tensor copies, the candidate's
warps run the wgmmas; "ws" after its name): the autotuner picks whichever is faster.

unaligned: fp16 C = A·B with row strides that are not multiples of 16 bytes (no bulk tensor copies
possible), `kernels/matmul.tc` autotuned, against upstream Triton's tutorial matmul and cuBLAS; and the
same candidates compiled with register_stages = num_stages (the pipelining rule before it: loads that
cannot be copied asynchronously issued as far ahead as the copies, held in registers), autotuned and
timed in the same comparison as "tritonc, regs ahead"."""
from dataclasses import dataclass, replace

import torch
import torch.nn.functional as F

import tritonc
from common import DTYPE_NAMES, KERNELS, MatmulConfig, compile_kernel, relative_error
from matmul_suite import _checker, _matmul_builder, _matmul_defines, _matmul_launcher, autotune
from tritonc.convolution import ConvShape

# (Z, CI, CO, H, W, R, S, stride, pad)
CONV_SHAPES = [
    (1, 64, 64, 56, 56, 3, 3, 1, 1), (1, 256, 256, 56, 56, 3, 3, 1, 1),
    (1, 1024, 1024, 56, 56, 3, 3, 1, 1), (1, 256, 256, 8, 8, 3, 3, 1, 1),
    (1, 256, 256, 32, 32, 3, 3, 1, 1), (1, 256, 256, 128, 128, 3, 3, 1, 1),
    (32, 64, 64, 56, 56, 3, 3, 1, 1), (32, 256, 256, 56, 56, 3, 3, 1, 1),
    (32, 256, 256, 8, 8, 3, 3, 1, 1), (32, 256, 256, 32, 32, 3, 3, 1, 1),
    # ResNet-50: conv3_1's 3x3 stride 2, a 1x1 reduction and a 1x1 expansion.
    (32, 128, 128, 56, 56, 3, 3, 2, 1), (32, 256, 64, 56, 56, 1, 1, 1, 0),
    (32, 256, 1024, 14, 14, 1, 1, 1, 0),
]
QUICK_CONV_SHAPES = [(1, 64, 64, 56, 56, 3, 3, 1, 1), (1, 256, 256, 8, 8, 3, 3, 1, 1)]
# The descriptor kernels' candidates also warp-specialized (DescCandidate.ws); bench.py --no-ws-candidates
# turns it off.
WARP_SPECIALIZE = True
# (TM, TN, TK, warps, stages). ptxas -v (sm_90a) reports no spills for any of these; 128x64x32 with 4
# warps (188 bytes) and 128x256x64 with 8 (180 bytes) spilled.
CONV_CONFIGS = [(64, 64, 32, 4, 3), (128, 64, 32, 8, 3), (64, 128, 32, 4, 3), (128, 128, 32, 8, 3),
                (128, 128, 64, 8, 3), (64, 64, 64, 4, 3), (64, 256, 32, 8, 3)]
QUICK_CONV_CONFIGS = [(64, 64, 32, 4, 3)]
# conv_nhwc.tc: TK divides CI (every shape above has CI >= 64). ptxas -v (sm_90a) reports no
# spills for any of these.
# The two 4-stage tiles won Z = 1, 256 @ 56² (175 against 149 TFLOP/s at 3 stages) and Z = 32, 64 @ 56²
# in an exploration of more stages on the H200 (2026-11-28); 4 and 5 stages did not help the larger tiles.
# 128x64x64 with 2 stages (two programs per SM) won Z = 32, 64 @ 56² (K = 576, 9 k-steps) at 0.83x cuDNN
# against 0.78x for 128x64x32 s3 (2026-11-29).
CONV_NHWC_CONFIGS = [(64, 64, 32, 4, 3), (128, 64, 32, 4, 3), (128, 128, 32, 8, 3), (64, 128, 64, 4, 3),
                     (128, 128, 64, 8, 3), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4),
                     (64, 64, 64, 4, 4), (128, 64, 64, 4, 2)]
QUICK_CONV_NHWC_CONFIGS = [(64, 64, 32, 4, 3), (128, 128, 64, 8, 3)]
# conv_nhwc_desc.tc (tensor descriptors; stride 1, unsplit), tried in the same autotuning as conv_nhwc.tc:
# (TP, TQ, TN, TK, warps, stages), TP x TQ = 128 output pixels of one image per tile. On sm_90a its
# desc_loads become rings of bulk tensor copies (A: the [1, TP, TQ, 64] box of
# the image at the tap's shift, one 128-byte swizzled [128, 64] slot; B: the [TN, 1, 64] box of the
# channels_last filter in a column-major slot) feeding wgmma. ptxas -v (sm_90a): no spills (ctest
# conv_spills_ptxas).
CONV_NHWC_DESC_CONFIGS = [(8, 16, 128, 64, 8, 4), (8, 16, 256, 64, 8, 3), (8, 16, 128, 64, 4, 4),
                          (8, 16, 64, 64, 4, 4)]
QUICK_CONV_NHWC_DESC_CONFIGS = [(8, 16, 128, 64, 8, 4)]
# conv_nhwc_desc.tc for problems whose output tiles leave SMs idle (kernels/conv_nhwc_desc.tc's split-K):
# (TP, TQ, TN, TK, SPLIT, warps, stages), the split ones timed only where ConvShape.desc_split_worthwhile
# keeps them. 8 x 8 pixels fit the 8 x 8 images whole (an 8 x 16 tile computes half of it for nothing):
# Z = 32 there is 128 tiles of 64 channels or 64 of 128 (2 slices: 128 programs); Z = 1 is 4 tiles of 64
# channels or 8 of 32, its 36 k-steps (3 x 3 taps of 256 channels, TK 64) in 9 slices of 4 (all in flight
# with 4 stages) or 18 of 2. 8 x 16 tiles split 2 to 8 ways for 32 x 32 images (16 tiles of 128
# channels) and 56 x 56 ones of 64 or 256 channels (28 or 56 tiles).
CONV_NHWC_DESC_SMALL_CONFIGS = [
    (8, 8, 64, 64, 1, 4, 4), (8, 8, 128, 64, 1, 4, 4), (8, 8, 64, 64, 9, 4, 4), (8, 8, 64, 64, 18, 4, 3),
    (8, 8, 32, 64, 9, 4, 4), (8, 8, 32, 64, 18, 4, 3), (8, 8, 128, 64, 18, 4, 3), (8, 8, 128, 64, 2, 4, 4),
    (8, 16, 128, 64, 2, 8, 4), (8, 16, 128, 64, 4, 8, 4), (8, 16, 128, 64, 8, 8, 4), (8, 16, 64, 64, 4, 4, 4),
]
QUICK_CONV_NHWC_DESC_SMALL_CONFIGS = [(8, 8, 64, 64, 9, 4, 4)]
# conv_nhwc_desc.tc with BOXES images per tile (the TP x TQ rectangle in BOXES consecutive images, one
# [BOXES, TP, TQ, 64] box each k-step): (TP, TQ, TN, TK, SPLIT, BOXES, warps, stages), timed where BOXES
# divides Z (and the split ones where ConvShape.desc_split_worthwhile keeps them). 8 x 8 x 2 is a
# 128-pixel tile without idle rows on 56 x 56 images (8 x 16 rectangles compute 56 x 64 pixels: Z = 32 at
# TN = 256 is 896 programs instead of 784, issue 28) and on 8 x 8 ones (whole images, two per tile: Z = 32
# is 32 tiles of 128 channels or 64 of 64, in 4 or 2 slices 128 programs). The PTX of 8 x 8 x 2 x 256 w8
# s3 is that of 8 x 16 x 256 w8 s3 but for the tile's coordinates (lit conv-nhwc-desc-stores.test);
# ptxas -v (sm_90a): no spills.
CONV_NHWC_DESC_BOXES_CONFIGS = [(8, 8, 256, 64, 1, 2, 8, 3), (8, 8, 128, 64, 1, 2, 8, 4),
                                (8, 8, 128, 64, 1, 2, 4, 4), (8, 8, 64, 64, 1, 2, 4, 4),
                                (8, 8, 128, 64, 4, 2, 4, 4), (8, 8, 64, 64, 2, 2, 4, 4)]
QUICK_CONV_NHWC_DESC_BOXES_CONFIGS = [(8, 8, 128, 64, 1, 2, 4, 4)]
# conv_nhwc_dgrad.tc: TK divides CO. conv_nhwc_wgrad.tc: TK is the block of output pixels. ptxas -v
# (sm_90a) reports no spills for any of these (ctest conv_spills_ptxas). 128x256x64 w8 is the fastest
# tile of both at Z=32 256@56² in an exploration on the H200 (2026-11-28: dgrad 0.58x cuDNN against
# 0.47x for 64x128x64; wgrad 0.47x against 0.42x); 4 stages changed nothing there.
# 128x64x64 with 2 stages won Z = 32, 64 @ 56² (0.77x against 0.67x, 2026-11-29).
CONV_DGRAD_CONFIGS = [(64, 128, 64, 4, 3), (128, 128, 64, 4, 3), (128, 64, 32, 4, 3), (128, 128, 64, 8, 3),
                      (64, 64, 32, 4, 3), (128, 256, 64, 8, 3), (128, 64, 64, 4, 2)]
QUICK_CONV_DGRAD_CONFIGS = [(64, 128, 64, 4, 3)]
CONV_WGRAD_CONFIGS = [(128, 128, 32, 8, 3), (128, 128, 64, 8, 3), (64, 128, 64, 4, 3), (128, 64, 32, 4, 3),
                      (128, 256, 64, 8, 3)]
QUICK_CONV_WGRAD_CONFIGS = [(128, 128, 32, 8, 3)]
# The descriptor kernels, stride 1 only. conv_nhwc_desc_dgrad.tc: (TP, TQ, TN, TK, warps, stages), the
# GEMM tile (TP*TQ) x TN x TK; conv_nhwc_desc_wgrad.tc: (TP, TQ, TM, TN, warps, stages), the tile
# TM x TN x (TP*TQ). TP x TQ is 8 x 8 or 8 x 16 pixels (56, 32 and 8 are multiples of 8: no empty rows;
# 14 x 14 leaves a quarter of an 8 x 8 rectangle idle at the edge). ptxas -v (sm_90a) reports no spills
# for any of these (ctest conv_spills_ptxas). The 8-warp 128 x 256 tiles and the 8 x 16 x 128 x 128 weight
# gradient tile need 258-322 KB of shared memory (rings, and an epilogue conversion's scratch beside
# them): the compiler refuses them, and the driver refused them at launch before.
CONV_DESC_DGRAD_CONFIGS = [(8, 8, 128, 64, 4, 3), (8, 16, 128, 64, 8, 3), (8, 16, 64, 64, 4, 3),
                           (8, 16, 128, 32, 4, 4), (8, 8, 64, 64, 4, 4)]
QUICK_CONV_DESC_DGRAD_CONFIGS = [(8, 16, 128, 64, 8, 3)]
CONV_DESC_WGRAD_CONFIGS = [(8, 8, 128, 128, 8, 3), (8, 8, 64, 128, 4, 3), (8, 8, 128, 128, 4, 3),
                           (8, 8, 64, 64, 4, 4)]
QUICK_CONV_DESC_WGRAD_CONFIGS = [(8, 8, 128, 128, 8, 3)]
# 1x1 layers at stride 1 without padding in conv_wgrad: DW (CO x CI) = DY^T X, a GEMM whose K is the Z*H*W
# pixels, with matmul_splitk.tc (TRANS_A: DY's pixel rows read as ^a; ATOMIC=2: the K slices add through a
# float workspace, the last one writes DW). (TM, TN, TK, warps, stages); the slices (TZ) per shape:
# ConvShape.gemm_wgrad_slices (about two programs per SM). ptxas -v (sm_90a, fp16): no spills (ctest conv_spills_ptxas).
CONV_WGRAD_GEMM_CONFIGS = [(128, 128, 64, 4, 4), (64, 128, 64, 4, 4), (128, 256, 64, 8, 3), (64, 64, 64, 4, 4)]
QUICK_CONV_WGRAD_GEMM_CONFIGS = [(128, 128, 64, 4, 4)]
# (TM, TN, TK, warps, stages, SPLIT): small tiles and split-K for problems whose output tiles leave SMs
# idle, timed only where ConvShape.nhwc_split_worthwhile keeps them (kernels/conv_nhwc.tc; why each
# should win a shape is in the commit that added them). ptxas -v (sm_90a): no spills.
CONV_NHWC_SMALL_CONFIGS = [(64, 32, 64, 4, 3, 1), (64, 32, 64, 4, 3, 9), (64, 32, 64, 4, 3, 18),
                           (64, 64, 64, 4, 3, 2), (64, 64, 64, 4, 3, 4), (64, 64, 64, 4, 3, 9),
                           (64, 128, 64, 4, 3, 2), (64, 128, 64, 4, 3, 4), (128, 128, 64, 8, 3, 2),
                           # a K block of a small problem takes a memory round trip (0.4-0.8 us, run
                           # 48): a fourth stage keeps one more in flight where slices stay long
                           (64, 64, 64, 4, 4, 4), (64, 128, 64, 4, 4, 2), (64, 128, 64, 4, 4, 4)]
QUICK_CONV_NHWC_SMALL_CONFIGS = [(64, 32, 64, 4, 3, 9)]
# 1x1 convolutions at stride 1 without padding as GEMMs in conv_nhwc (and conv_bf16): matmul.tc with
# TRANS_B (the CO x CI filter rows read transposed), (TM, TN, TK, warps, stages), tritonc.ops.matmul's
# 16-bit tiles (TK = 64: 128-byte rows, loaded by bulk tensor copies). ptxas -v (sm_90a, fp16 and bf16,
# sizes and strides multiples of 16): no spills (ctest conv_spills_ptxas).
# Two stages leave room for two programs per SM, which hides the prologue and epilogue of the short K
# loops (K = CI = 256): on an H200, 128x128x64 w4 s2 ran the Z32 256->1024 14x14 layer at 1.01x cuDNN
# (128x256x64 w8 s3: 0.79x) and 128x64x64 w4 s2 the Z32 256->64 56x56 one at 0.90x (64x64x32 conv_nhwc:
# 0.80x), scratch/probe3 of the 2026-11-29 session, results/LOG.md.
CONV_GEMM_CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3), (64, 128, 64, 4, 3),
                     (128, 128, 64, 4, 2), (128, 64, 64, 4, 2)]
QUICK_CONV_GEMM_CONFIGS = [(128, 128, 64, 8, 3)]

# (M, N, K) whose row strides (K for A, N for B and C, in fp16) are not multiples of 8 elements.
UNALIGNED_SHAPES = [(1000, 3000, 555), (2047, 2049, 1023)]
# Every candidate's loads are 2-byte ld.global (one address per contiguous run of a thread's elements,
# the rest immediate offsets): TK = 32 (upstream Triton's choice for these shapes) halves them per
# iteration. matmul.tc 128x128x64 w4 and 128x256x64 w8 spill at any pipelining depth (416 and 8 B: 255
# registers), so they are not candidates. The last two are upstream Triton's picks in run 50 (64x256x32
# w4 s4 at 1000x3000x555, 128x64x32 w4 s4 at 2047x2049x1023) in the grouped kernel, as its tutorial
# kernel groups the programs. ptxas -v (sm_90a, specialized as these launches): no spills in any (ctest
# conv_spills_ptxas).
UNALIGNED_CONFIGS = [
    MatmulConfig("matmul", 128, 128, 64, 8, 3), MatmulConfig("matmul", 64, 128, 64, 4, 4),
    MatmulConfig("grouped", 128, 128, 64, 8, 4), MatmulConfig("grouped", 128, 256, 64, 8, 3),
    MatmulConfig("matmul", 64, 256, 32, 4, 4), MatmulConfig("matmul", 128, 64, 32, 4, 4),
    MatmulConfig("grouped", 128, 128, 32, 8, 4), MatmulConfig("grouped", 64, 256, 32, 4, 4),
    MatmulConfig("grouped", 128, 64, 32, 4, 4),
]


def _desc_launch(cs, cfg, kern, x_nhwc, w_nhwc, y):
    """A run of conv_nhwc_desc.tc: X and Y channels_last, the filter PyTorch's channels_last weight
    (CO, R, S, CI in memory) read as CO x (R*S) x CI; a split candidate (its SPLIT block) with its own
    workspace (partials of any contents, counters zero: the kernel leaves them zero)."""
    tp, tq, tn = cfg.block("TP"), cfg.block("TQ"), cfg.block("TN")
    split, boxes = dict(cfg.blocks).get("SPLIT", 1), dict(cfg.blocks).get("BOXES", 1)
    partials, counters = cs.desc_workspace(tp, tq, tn, split, boxes)
    args = cs.desc_arguments(x_nhwc, w_nhwc, y, (x_nhwc.stride(0), x_nhwc.stride(2), x_nhwc.stride(3)),
                             w_nhwc.stride(0), (y.stride(0), y.stride(2), y.stride(3)),
                             torch.empty(max(partials, 1), device="cuda", dtype=torch.float32),
                             torch.zeros(max(counters, 1), device="cuda", dtype=torch.int32))
    grid = cs.desc_grid(tp, tq, tn, split, boxes)
    return lambda: kern[grid](*args)


def shape_label(z, ci, co, h, w, r, s, stride, pad):
    label = f"Z{z} {ci}->{co} {h}x{w} {r}x{s}"
    return label + (f" s{stride}" if stride != 1 else "")


@dataclass(frozen=True)
class DescCandidate:
    """A configuration of another kernel than the step's for _tune_against_cudnn (a descriptor kernel,
    or matmul.tc for a 1x1 convolution): its file, its block macros as (name, value) pairs, warps, stages,
    whether its reduction is split into slices (as many as the ConvShape's desc_*_slices choose for the
    GPU) and whether it is compiled with warp_specialize=True (ws)."""
    file: str
    blocks: tuple
    warps: int
    stages: int
    split: bool = False
    ws: bool = False

    def block(self, name):
        return dict(self.blocks)[name]

    def __str__(self):
        return (f"{self.file} " + " ".join(f"{name}={value}" for name, value in self.blocks)
                + f" w{self.warps} s{self.stages}" + (" split" if self.split else "")
                + (" ws" if self.ws else ""))


def _with_warp_specialized(candidates):
    """candidates, and with WARP_SPECIALIZE conv_nhwc_desc.tc's unsplit ones also warp-specialized: the
    split ones and the dgrad and wgrad descriptor kernels take their loops' bounds from a semaphore's
    atomic (their slices), which the pass declines (they would compile as without the option)."""
    if not WARP_SPECIALIZE:
        return candidates
    return candidates + [replace(c, ws=True) for c in candidates
                         if c.file == "conv_nhwc_desc.tc" and "SPLIT" not in dict(c.blocks)]


def _desc_candidates(cs, file, macros, configs, split=None):
    """DescCandidates of `file` from configs (block sizes in the order of macros, then warps and stages),
    none unless the shape has stride 1 (the descriptor kernels' only one). With split(candidate) given,
    each candidate whose split has more than one slice is also timed split (the wgrad kernel always
    splits where it can: its slices are its only way to fill the GPU)."""
    if cs.stride != (1, 1):
        return []
    found = [DescCandidate(file, tuple(zip(macros, cfg[:-2])), *cfg[-2:]) for cfg in configs]
    if split is not None:
        found += [DescCandidate(c.file, c.blocks, c.warps, c.stages, True) for c in found if split(c) > 1]
    return _with_warp_specialized(found)


def _forward_desc_candidates(cs, quick, sms):
    """conv_nhwc_desc.tc's candidates for cs: stride 1 and no dilation (a box reads consecutive
    pixels), TK dividing CI and TN up to max(CO, 64); the small-problem tiles too, the split ones only
    where ConvShape.desc_split_worthwhile keeps them on `sms` multiprocessors; the tiles of BOXES images
    where BOXES divides Z (no idle image in the last tile)."""
    if cs.dilation != (1, 1) or cs.stride != (1, 1):
        return []
    unsplit = QUICK_CONV_NHWC_DESC_CONFIGS if quick else CONV_NHWC_DESC_CONFIGS
    configs = [c[:4] + (1,) + c[4:] for c in unsplit]
    configs += QUICK_CONV_NHWC_DESC_SMALL_CONFIGS if quick else CONV_NHWC_DESC_SMALL_CONFIGS
    configs = [c[:5] + (1,) + c[5:] for c in configs]  # (TP, TQ, TN, TK, SPLIT, BOXES, warps, stages)
    configs += [c for c in (QUICK_CONV_NHWC_DESC_BOXES_CONFIGS if quick else CONV_NHWC_DESC_BOXES_CONFIGS)
                if cs.z % c[5] == 0]
    configs = [c for c in configs if cs.ci % c[3] == 0 and c[2] <= max(64, cs.co)
               and cs.desc_split_worthwhile(*c[:5], sms, c[5])]
    # SPLIT and BOXES named only where not 1 (the kernel's defaults)
    return _with_warp_specialized([
        DescCandidate("conv_nhwc_desc.tc", tuple(zip(("TP", "TQ", "TN", "TK"), c[:4]))
                      + tuple((name, v) for name, v in (("SPLIT", c[4]), ("BOXES", c[5])) if v > 1),
                      *c[6:]) for c in configs])


def _problem(shape, dtype):
    """The ConvShape of a CONV_SHAPES entry, random NCHW input and filter, and torch's result."""
    z, ci, co, h, w, r, s, stride, pad = shape
    cs = ConvShape(z, ci, h, w, co, r, s, (stride, stride), (pad, pad))
    x = torch.randn(z, ci, h, w, device="cuda", dtype=dtype)
    weight = torch.randn(co, ci, r, s, device="cuda", dtype=dtype) / (cs.k ** 0.5)
    return cs, x, weight, F.conv2d(x, weight, stride=stride, padding=pad)


def _against_cudnn(results, timer, family, label, cs, x, weight, run, cfg_text):
    """Times run against cuDNN in NCHW and in NHWC (channels_last), interleaved, and records
    tritonc and the faster cuDNN layout."""
    _record_against_cudnn(results, timer, family, label, cs, run, cfg_text, *_forward_peers(cs, x, weight))


def _forward_peers(cs, x, weight):
    """cuDNN's convolution of the NCHW x and weight, and of their channels_last copies."""
    stride, pad = cs.stride[0], cs.padding[0]
    x_nhwc = x.to(memory_format=torch.channels_last)
    w_nhwc = weight.to(memory_format=torch.channels_last)
    return (lambda: F.conv2d(x, weight, stride=stride, padding=pad),
            lambda: F.conv2d(x_nhwc, w_nhwc, stride=stride, padding=pad))


def _tune_against_cudnn(results, timer, family, label, cs, kernel, dtype, candidates, launch, check, peers):
    """Autotunes `kernel` (fp32 accumulation) over candidates (TM, TN, TK, warps, stages[, SPLIT]) and
    DescCandidates (another kernel file each), launch(cfg, compiled kernel) -> a callable that runs it
    once, check as autotune's; records the fastest correct configuration against cuDNN's peers = (nchw,
    nhwc)."""
    def build(cfg):
        if isinstance(cfg, DescCandidate):
            defines = {"TYPE": DTYPE_NAMES[dtype], "ACC": "float", **dict(cfg.blocks)}
            kern = compile_kernel(cfg.file, defines, cfg.warps, cfg.stages,
                                  **({"warp_specialize": True} if cfg.ws else {}))
            return kern, launch(cfg, kern)
        tm, tn, tk, warps, stages = cfg[:5]
        defines = {"TYPE": DTYPE_NAMES[dtype], "ACC": "float", "TM": tm, "TN": tn, "TK": tk}
        if len(cfg) > 5:
            defines["SPLIT"] = cfg[5]
        kern = compile_kernel(kernel, defines, warps, stages)
        return kern, launch(cfg, kern)

    cfg, kern, run = autotune(results, timer, f"{family} {label}", candidates, build, check)
    if isinstance(cfg, DescCandidate):
        cfg_text = str(cfg)
    else:
        cfg_text = f"{kernel} " + "{}x{}x{} w{} s{}".format(*cfg[:5])
        cfg_text += f" split {cfg[5]}" if len(cfg) > 5 and cfg[5] > 1 else ""
    results.add_kernel(f"{family} {label}: {cfg_text}", kern)
    _record_against_cudnn(results, timer, family, label, cs, run, cfg_text, *peers)


def _record_against_cudnn(results, timer, family, label, cs, run, cfg_text, nchw, nhwc):
    """Times run against cuDNN's nchw() and nhwc() (the same result in either layout), interleaved,
    and records tritonc and the faster cuDNN layout; every one of them does 2*M*N*K flops."""
    err = relative_error(nhwc(), nchw())
    assert err < 1e-2, f"cuDNN NHWC differs from NCHW by {err} at {label}"
    providers = {"tritonc": run, "cuDNN NCHW": nchw, "cuDNN NHWC": nhwc}
    seconds = timer.compare(providers, rounds=3)
    results.note_comparison(f"{family} {label}", timer)
    flops = 2.0 * cs.m * cs.n * cs.k
    results.add(family, label, "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, cfg_text)
    best = min(("cuDNN NCHW", "cuDNN NHWC"), key=lambda name: seconds[name])
    results.add(family, label, "cuDNN", "TFLOP/s", flops / seconds[best] / 1e12, best[6:])


def conv(results, timer, quick):
    torch.backends.cudnn.benchmark = True
    dtype = torch.float16
    family = "conv half (implicit GEMM, conv.tc)"
    for shape in QUICK_CONV_SHAPES if quick else CONV_SHAPES:
        cs, x, weight, ref = _problem(shape, dtype)
        bmat = weight.reshape(cs.co, cs.k).t().contiguous()  # (CI*R*S) x CO, rows (ci, r, s)
        out = torch.empty(cs.z, cs.co, cs.p, cs.q, device="cuda", dtype=dtype)
        label = shape_label(*shape)
        tables = {}

        def build(cfg):
            tm, tn, tk, warps, stages = cfg
            kern = compile_kernel("conv.tc", {"TYPE": "half", "ACC": "float", "TM": tm, "TN": tn, "TK": tk},
                                  warps, stages)
            if tk not in tables:  # the library's increment table (tritonc.convolution)
                tables[tk] = torch.tensor(cs.increments(tk, x.stride()[1:]), dtype=torch.int32,
                                          device=x.device)
            args = cs.nchw_arguments(x, bmat, out, tables[tk], x.stride(), bmat.stride(0),
                                     out.stride()[:3])
            grid = cs.grid(tm, tn)
            return kern, lambda: kern[grid](*args)

        cfg, kern, run = autotune(results, timer, f"{family} {label}",
                                  QUICK_CONV_CONFIGS if quick else CONV_CONFIGS, build,
                                  _checker(out, ref, 2e-2))
        cfg_text = "conv.tc {}x{}x{} w{} s{}".format(*cfg)
        results.add_kernel(f"{family} {label}: {cfg_text}", kern)
        _against_cudnn(results, timer, family, label, cs, x, weight, run, cfg_text)


def _is_gemm_shape(cs):
    """Whether cs is a 1x1 convolution at stride 1 without padding: a GEMM of the Z*H*W x CI channels_last
    pixels by the CO x CI filter rows."""
    return (cs.r, cs.s, cs.stride, cs.padding) == (1, 1, (1, 1), (0, 0))


def _gemm_candidates(cs, quick, trans_b=True):
    """matmul.tc candidates of a GEMM-shaped convolution (none otherwise), the filter rows transposed
    (TRANS_B) for the forward one, as they are for the data gradient (trans_b False)."""
    if not _is_gemm_shape(cs):
        return []
    return [DescCandidate("matmul.tc", (("TM", tm), ("TN", tn), ("TK", tk))
                          + ((("TRANS_B", 1),) if trans_b else ()), warps, stages)
            for tm, tn, tk, warps, stages in (QUICK_CONV_GEMM_CONFIGS if quick else CONV_GEMM_CONFIGS)]


def _with_gemm(launch, cs, x_nhwc, weight, out):
    """launch(cfg, kern) of conv_nhwc, and for the matmul.tc candidates the GEMM: X (Z*H*W x CI, views of
    the channels_last input and output) by the NCHW filter's CO x CI rows into Y (Z*P*Q x CO). Other
    shapes have no GEMM candidates, and their filters no CO x CI view."""
    if not _is_gemm_shape(cs):
        return launch
    a = x_nhwc.permute(0, 2, 3, 1).reshape(cs.m, cs.ci)
    b = weight.reshape(cs.co, cs.ci)
    c = out.permute(0, 2, 3, 1).view(cs.m, cs.co)

    def launch_or_gemm(cfg, kern):
        if not (isinstance(cfg, DescCandidate) and cfg.file == "matmul.tc"):
            return launch(cfg, kern)
        out.fill_(float("nan"))  # the check sees only what this candidate writes
        grid = (-(-cs.m // cfg.block("TM")), -(-cs.co // cfg.block("TN")))
        return lambda: kern[grid](a, b, c, cs.m, cs.co, cs.ci, a.stride(0), b.stride(0), c.stride(0))
    return launch_or_gemm


def conv_nhwc(results, timer, quick, dtype=torch.float16):
    """The channels-last kernel (conv_nhwc.tc: A's rows copied with cp.async, B by TMA) over the
    same shapes, on channels_last input and output, against the same cuDNN peers."""
    torch.backends.cudnn.benchmark = True
    family = f"conv {DTYPE_NAMES[dtype]} (implicit GEMM, conv_nhwc.tc)"
    for shape in QUICK_CONV_SHAPES if quick else CONV_SHAPES:
        cs, x, weight, ref = _problem(shape, dtype)
        x_nhwc = x.to(memory_format=torch.channels_last)
        # The filter as an (R*S*CI) x CO matrix, rows in the order (r, s, ci).
        bmat = weight.permute(2, 3, 1, 0).reshape(cs.k, cs.co).contiguous()
        out = torch.empty(cs.z, cs.co, cs.p, cs.q, device="cuda", dtype=dtype,
                          memory_format=torch.channels_last)
        label = shape_label(*shape)
        # TK must divide CI: configurations whose TK does not are left out for this shape; split-K ones
        # where the shape's output tiles fill the GPU. One workspace holds the largest split's partials.
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        small = QUICK_CONV_NHWC_SMALL_CONFIGS if quick else CONV_NHWC_SMALL_CONFIGS
        candidates = [c + (1,) for c in (QUICK_CONV_NHWC_CONFIGS if quick else CONV_NHWC_CONFIGS)]
        candidates = [c for c in candidates + small
                      if cs.ci % c[2] == 0 and cs.nhwc_split_worthwhile(c[0], c[1], c[2], c[5], sms)]
        partials, counters = (max(sizes) for sizes in zip(*(cs.nhwc_workspace(c[0], c[1], c[5])
                                                             for c in candidates)))
        args = cs.nhwc_arguments(x_nhwc, bmat, out, (x_nhwc.stride(0), x_nhwc.stride(2), x_nhwc.stride(3)),
                                 bmat.stride(0), (out.stride(0), out.stride(2), out.stride(3)),
                                 torch.empty(max(partials, 1), device="cuda", dtype=torch.float32),
                                 torch.zeros(max(counters, 1), device="cuda", dtype=torch.int32))

        # conv_nhwc_desc.tc too where a box can read the window (stride 1), with PyTorch's channels_last
        # weight as its filter. Every candidate starts on a poisoned output, so that one which writes
        # nothing cannot pass on the previous one's result.
        candidates += _forward_desc_candidates(cs, quick, sms)
        w_nhwc = weight.to(memory_format=torch.channels_last)

        def launch(cfg, kern):
            out.fill_(float("nan"))
            if isinstance(cfg, DescCandidate):
                return _desc_launch(cs, cfg, kern, x_nhwc, w_nhwc, out)
            grid = cs.grid(cfg[0], cfg[1], cfg[5])
            return lambda: kern[grid](*args)

        # A 1x1 layer at stride 1 is a GEMM too: matmul.tc's candidates join the same tuning.
        candidates += _gemm_candidates(cs, quick)
        launch = _with_gemm(launch, cs, x_nhwc, weight, out)
        _tune_against_cudnn(results, timer, family, label, cs, "conv_nhwc.tc", dtype, candidates, launch,
                            _checker(out, ref, 2e-2), _forward_peers(cs, x, weight))


def conv_bf16(results, timer, quick):
    """conv_nhwc over the same shapes in bfloat16."""
    conv_nhwc(results, timer, quick, torch.bfloat16)


def _cudnn_gradient(cs, dy, x, weight, which):
    """cuDNN's data (which 0) or weight (which 1) gradient alone, with the tensors' layout."""
    mask = [which == 0, which == 1, False]
    return lambda: torch.ops.aten.convolution_backward(
        dy, x, weight, None, list(cs.stride), list(cs.padding), list(cs.dilation), False, [0, 0], 1,
        mask)[which]


def _backward_problem(shape, dtype):
    """A CONV_SHAPES entry's ConvShape, input, filter and output gradient (NCHW and channels_last),
    and cuDNN's two gradients in each layout."""
    cs, x, weight, ref = _problem(shape, dtype)
    dy = torch.randn_like(ref)
    nchw = (dy, x, weight)
    nhwc = tuple(t.to(memory_format=torch.channels_last) for t in nchw)
    peers = [(_cudnn_gradient(cs, *nchw, which), _cudnn_gradient(cs, *nhwc, which)) for which in (0, 1)]
    return cs, nhwc, peers


def conv_dgrad(results, timer, quick):
    """The data gradient with conv_nhwc_dgrad.tc (DY's rows copied with cp.async, the filter's by
    bulk tensor copies, one grid layer per stride phase) against cuDNN's, both layouts."""
    torch.backends.cudnn.benchmark = True
    dtype = torch.float16
    family = "conv half data gradient (conv_nhwc_dgrad.tc)"
    programs = 2 * torch.cuda.get_device_properties(0).multi_processor_count
    for shape in QUICK_CONV_SHAPES if quick else CONV_SHAPES:
        cs, (dy, x, weight), peers = _backward_problem(shape, dtype)
        ref = peers[0][0]()
        # The filter as an (R*S*CO) x CI matrix, rows in the order (r, s, k).
        bmat = weight.permute(2, 3, 0, 1).reshape(cs.r * cs.s * cs.co, cs.ci).contiguous()
        dx = torch.empty_like(x)  # channels_last
        label = shape_label(*shape)
        args = cs.dgrad_arguments(dy, bmat, dx, (dy.stride(0), dy.stride(2), dy.stride(3)), bmat.stride(0),
                                  (dx.stride(0), dx.stride(2), dx.stride(3)))
        candidates = [c for c in (QUICK_CONV_DGRAD_CONFIGS if quick else CONV_DGRAD_CONFIGS)
                      if cs.co % c[2] == 0]

        def desc_slices(cfg):
            return cs.desc_dgrad_slices(cfg.block("TP"), cfg.block("TQ"), cfg.block("TN"), cfg.block("TK"),
                                        programs)

        candidates += _desc_candidates(cs, "conv_nhwc_desc_dgrad.tc", ("TP", "TQ", "TN", "TK"),
                                       QUICK_CONV_DESC_DGRAD_CONFIGS if quick else CONV_DESC_DGRAD_CONFIGS,
                                       desc_slices)
        forward = _dgrad_as_forward(cs, quick, programs // 2)
        candidates += forward.candidates

        def launch(cfg, kern):
            dx.fill_(float("nan"))  # the check sees only what this candidate writes
            if isinstance(cfg, DescCandidate) and (cfg.file == "matmul.tc" or dict(cfg.blocks).get("DGRAD")):
                return forward.launch(cfg, kern, dy, weight, dx)
            if isinstance(cfg, DescCandidate):
                tp, tq, tn = cfg.block("TP"), cfg.block("TQ"), cfg.block("TN")
                # The workspace of the slices (zero on entry; the kernel leaves it zero).
                counters, partials = cs.desc_dgrad_workspace(tp, tq, tn)
                counters = torch.zeros(counters if cfg.split else 1, dtype=torch.int32, device="cuda")
                partials = torch.zeros(partials if cfg.split else 1, dtype=torch.float32, device="cuda")
                # The descriptor kernel reads the channels_last filter (CO x R x S x CI in memory) as it is.
                desc_args = cs.desc_dgrad_arguments(
                    dy, weight, dx, counters, partials, (dy.stride(0), dy.stride(2), dy.stride(3)),
                    weight.stride(0), (dx.stride(0), dx.stride(2), dx.stride(3)))
                grid = cs.desc_dgrad_grid(tp, tq, tn, desc_slices(cfg) if cfg.split else 1)
                return lambda: kern[grid](*desc_args)
            grid = cs.dgrad_grid(cfg[0], cfg[1])
            return lambda: kern[grid](*args)

        _tune_against_cudnn(results, timer, family, label, cs, "conv_nhwc_dgrad.tc", dtype, candidates,
                            launch, _checker(dx, ref, 2e-2), peers[0])


@dataclass
class _DgradAsForward:
    """The data gradient of a stride-1 convolution as a forward one (ConvShape.dgrad_as_forward):
    conv_nhwc_desc.tc's candidates with DGRAD=1 on the output gradient (the filter read flipped as it
    is, no copy), and for a 1x1 filter without padding matmul.tc's (DY's pixels by the filter rows as
    they are)."""
    cs: ConvShape
    candidates: list

    def launch(self, cfg, kern, dy, weight, dx):
        fcs = self.cs.dgrad_as_forward()
        if cfg.file == "matmul.tc":
            a = dy.permute(0, 2, 3, 1).reshape(self.cs.m, self.cs.co)
            b = weight.reshape(self.cs.co, self.cs.ci)
            c = dx.permute(0, 2, 3, 1).view(fcs.m, self.cs.ci)
            grid = (-(-fcs.m // cfg.block("TM")), -(-self.cs.ci // cfg.block("TN")))
            return lambda: kern[grid](a, b, c, fcs.m, self.cs.ci, self.cs.co, a.stride(0), b.stride(0),
                                      c.stride(0))
        # weight is channels_last: CO x R x S x CI in memory, the filter DGRAD reads (CO apart rows)
        return _desc_launch(fcs, cfg, kern, dy, weight, dx)


def _dgrad_as_forward(cs, quick, sms):
    """The _DgradAsForward of cs (no candidates where its data gradient is not a forward convolution)."""
    if not cs.dgrad_is_forward():
        return _DgradAsForward(cs, [])
    fcs = cs.dgrad_as_forward()
    return _DgradAsForward(cs, [replace(c, blocks=c.blocks + (("DGRAD", 1),))
                                for c in _forward_desc_candidates(fcs, quick, sms)]
                           + _gemm_candidates(fcs, quick, trans_b=False))


def _wgrad_gemm_candidates(cs, quick, sms):
    """matmul_splitk.tc candidates of a 1x1 weight gradient at stride 1 without padding (none otherwise)."""
    if not _is_gemm_shape(cs):
        return []
    return [DescCandidate("matmul_splitk.tc", (("TM", tm), ("TN", tn), ("TK", tk),
                                               ("TZ", cs.gemm_wgrad_slices(tm, tn, tk, 2 * sms)),
                                               ("ATOMIC", 2), ("TRANS_A", 1)), warps, stages)
            for tm, tn, tk, warps, stages in
            (QUICK_CONV_WGRAD_GEMM_CONFIGS if quick else CONV_WGRAD_GEMM_CONFIGS)]


def _wgrad_gemm_launch(cs, cfg, kern, dy, x, dw):
    """A run of a matmul_splitk.tc candidate: DW (CO x CI, the 1x1 filter's rows) = DY^T (DY's pixel rows
    as a K x CO matrix) times X's pixel rows (K x CI), its workspace zero on entry (left zero)."""
    tm, tn = cfg.block("TM"), cfg.block("TN")
    a = dy.permute(0, 2, 3, 1).reshape(cs.m, cs.co)
    b = x.permute(0, 2, 3, 1).reshape(cs.m, cs.ci)
    grid = (-(-cs.co // tm), -(-cs.ci // tn), cfg.block("TZ"))
    counters, partials = cs.wgrad_workspace(tm, tn)  # a 1x1 filter: the GEMM's tiles
    counters = torch.zeros(counters, dtype=torch.int32, device="cuda")
    partials = torch.zeros(partials, dtype=torch.float32, device="cuda")
    return lambda: kern[grid](a, b, dw, counters, partials, 1.0, cs.co, cs.ci, cs.m, a.stride(0), b.stride(0),
                              dw.stride(0))


def conv_wgrad(results, timer, quick):
    """The weight gradient with conv_nhwc_wgrad.tc (DY's and X's rows copied with cp.async, the
    reduction over output pixels split into slices that add through a workspace) against cuDNN's,
    both layouts."""
    torch.backends.cudnn.benchmark = True
    dtype = torch.float16
    family = "conv half weight gradient (conv_nhwc_wgrad.tc)"
    programs = 2 * torch.cuda.get_device_properties(0).multi_processor_count
    for shape in QUICK_CONV_SHAPES if quick else CONV_SHAPES:
        cs, (dy, x, weight), peers = _backward_problem(shape, dtype)
        ref = peers[1][0]()
        # DW as a CO x (R*S*CI) matrix, columns (r, s, ci): viewed as CO x CI x R x S for the check.
        dw = torch.empty(cs.co, cs.r, cs.s, cs.ci, device="cuda", dtype=dtype)
        label = shape_label(*shape)

        def launch(cfg, kern):
            dw.fill_(float("nan"))  # the check sees only what this candidate writes
            if isinstance(cfg, DescCandidate) and cfg.file == "matmul_splitk.tc":
                return _wgrad_gemm_launch(cs, cfg, kern, dy, x, dw)
            desc = isinstance(cfg, DescCandidate)
            tm, tn = (cfg.block("TM"), cfg.block("TN")) if desc else cfg[:2]
            # The workspace of the slices (zero on entry; the kernel leaves it zero).
            counters, partials = cs.wgrad_workspace(tm, tn)
            counters = torch.zeros(counters, dtype=torch.int32, device="cuda")
            partials = torch.zeros(partials, dtype=torch.float32, device="cuda")
            dy_strides = (dy.stride(0), dy.stride(2), dy.stride(3))
            x_strides = (x.stride(0), x.stride(2), x.stride(3))
            if desc:  # DW is CO x R x S x CI: the filter gradient in channels_last order
                args = cs.desc_wgrad_arguments(dy, x, dw, counters, partials, dy_strides, x_strides,
                                               dw.stride(0))
                slices = cs.desc_wgrad_slices(tm, tn, cfg.block("TP"), cfg.block("TQ"), programs)
            else:
                args = cs.wgrad_arguments(dy, x, dw, counters, partials, dy_strides, x_strides, dw.stride(0))
                slices = cs.wgrad_slices(tm, tn, cfg[2], programs)
            grid = cs.wgrad_grid(tm, tn, slices)
            return lambda: kern[grid](*args)

        candidates = list(QUICK_CONV_WGRAD_CONFIGS if quick else CONV_WGRAD_CONFIGS)
        candidates += _desc_candidates(cs, "conv_nhwc_desc_wgrad.tc", ("TP", "TQ", "TM", "TN"),
                                       QUICK_CONV_DESC_WGRAD_CONFIGS if quick else CONV_DESC_WGRAD_CONFIGS)
        candidates += _wgrad_gemm_candidates(cs, quick, programs // 2)
        _tune_against_cudnn(results, timer, family, label, cs, "conv_nhwc_wgrad.tc", dtype, candidates,
                            launch, _checker(dw.permute(0, 3, 1, 2), ref, 2e-2), peers[1])


def _regs_ahead_builder(dtype, a, b, c, m, n, k):
    """build(cfg) for autotune: the candidate compiled with register_stages = num_stages, the rule
    before register_stages (dot operand loads that stay in registers issued as far ahead as the
    asynchronous copies), to time against the default (one iteration ahead) in the same run."""
    def build(cfg):
        kern = tritonc.compile(str(KERNELS / cfg.file), defines=_matmul_defines(dtype, cfg),
                               num_warps=cfg.warps, num_stages=cfg.stages, register_stages=cfg.stages)
        return kern, _matmul_launcher(kern, cfg, a, b, c, m, n, k, k, n, n)
    return build


def unaligned(results, timer, triton_peers, quick):
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = torch.float16
    family = f"matmul {DTYPE_NAMES[dtype]}, unaligned rows"
    for m, n, k in UNALIGNED_SHAPES[:1] if quick else UNALIGNED_SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        ref = torch.matmul(a, b)
        flops = 2.0 * m * n * k
        label = f"{m}x{n}x{k}"
        build = _matmul_builder(dtype, {}, a, b, c, m, n, k, k, n, n)

        candidates = UNALIGNED_CONFIGS[:2] if quick else UNALIGNED_CONFIGS
        cfg, kern, run = autotune(results, timer, f"{family} {label}", candidates, build,
                                  _checker(c, ref, 2e-2))
        results.add_kernel(f"{family} {label}: {cfg}", kern)
        old_cfg, old_kern, old_run = autotune(results, timer, f"{family} {label}, regs ahead", candidates,
                                              _regs_ahead_builder(dtype, a, b, c, m, n, k),
                                              _checker(c, ref, 2e-2))
        results.add_kernel(f"{family} {label}: {old_cfg} register_stages={old_cfg.stages}", old_kern)
        out = torch.empty_like(c)
        providers = {"tritonc": run, "tritonc, regs ahead": old_run,
                     "cuBLAS": lambda: torch.matmul(a, b, out=out)}
        if triton_peers:
            triton_peers.matmul(a, b, out)
            err = relative_error(out, ref)
            assert err < 2e-2, f"Triton matmul {label}: relative error {err}"
            providers["triton"] = lambda: triton_peers.matmul(a, b, out)
        seconds = timer.compare(providers, rounds=3)
        results.note_comparison(f"{family} {label}", timer)
        results.add(family, label, "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, str(cfg))
        results.add(family, label, "tritonc, regs ahead", "TFLOP/s",
                    flops / seconds["tritonc, regs ahead"] / 1e12, f"{old_cfg} register_stages={old_cfg.stages}")
        results.add(family, label, "cuBLAS", "TFLOP/s", flops / seconds["cuBLAS"] / 1e12)
        if triton_peers:
            results.add(family, label, "triton", "TFLOP/s", flops / seconds["triton"] / 1e12,
                        triton_peers.matmul_config(a, b))
