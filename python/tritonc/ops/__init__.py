"""Operators on torch tensors built from the bundled kernels, registered as torch.library custom
ops (``torch.ops.tritonc.*``) with fake implementations, so that ``torch.compile`` traces them
without a graph break, and with autograd formulas:

    tritonc.ops.matmul(a, b)        C = A @ B for 2-D fp16 / bf16 / fp32 tensors, any transposition
                                    (a transposed view runs as TRANS_A / TRANS_B, no copy), autotuned
                                    per shape; allow_tf32=True lets fp32 use tensor cores
    tritonc.ops.softmax(x)          row softmax of a 2-D tensor
    tritonc.ops.conv2d(x, w, stride, padding, dilation)   convolution (implicit GEMM):
                                    channels_last input with the fastest of conv_nhwc.tc,
                                    conv_nhwc_desc.tc (stride 1) and matmul.tc (1x1, stride 1, no
                                    padding); NCHW input with the faster of conv.tc (no dilation)
                                    and those through channels_last copies; output in the
                                    input's memory format
    tritonc.ops.transpose(x)        the transpose of a 2-D tensor, materialized

On CUDA tensors the kernels run on the GPU; on CPU tensors on tritonc's interpreter (exact, slow:
for tests and small inputs). Gradients: matmul's are matmuls (through this op), softmax's is
computed from its output. conv2d's are the channels-last kernels conv_nhwc_dgrad.tc (data) and
conv_nhwc_wgrad.tc (weights), or at stride 1 their descriptor versions conv_nhwc_desc_dgrad.tc and
conv_nhwc_desc_wgrad.tc where those are faster, and the data gradient also as a forward convolution
(conv_nhwc_desc.tc with DGRAD=1, reading the filter flipped, or for a 1x1 filter a GEMM) where that
is, and for a 1x1 filter the weight gradient also as a split-K GEMM over the pixels (each kernel autotuned over its tiles, then the winners timed against each other once per
shape); for an NCHW input (there is no NCHW backward kernel) through channels_last copies, the
data gradient returned in NCHW.
"""

import functools
import time
from typing import List

import torch

import tritonc
from tritonc.convolution import ConvShape, nhwc_block_k, splitk_slices

__all__ = ["matmul", "softmax", "conv2d", "transpose"]

_DTYPES = {torch.float16: "half", torch.bfloat16: "bfloat16", torch.float32: "float"}


def _kernel_path(name):
    return f"{tritonc.kernels_dir()}/{name}"


def _device_of(t):
    """The CUDA ordinal to compile for (the kernels run on the tensor's device), or None: the
    interpreter, for CPU tensors."""
    return (t.device.index or 0) if t.is_cuda else None


def _row_operator(x, what, transposed, kernel_and_grid):
    """y = op(x) for a 2-D operator whose kernel takes (X, Y, M, N, ldx, ldy): x with unit column
    stride, y of x's shape (or transposed); kernel_and_grid(type_name, device, m, n) -> (the
    kernel, its grid), called only when x is not empty."""
    if x.dim() != 2:
        raise ValueError(f"tritonc.ops.{what}: expected a 2-D tensor, got {x.dim()}-D")
    type_name = _type_name(x, what)
    x = x if x.stride(1) == 1 else x.contiguous()
    m, n = x.shape
    y = torch.empty((n, m) if transposed else (m, n), dtype=x.dtype, device=x.device)
    if m and n:
        kernel, grid = kernel_and_grid(type_name, _device_of(x), m, n)
        kernel[grid](x, y, m, n, x.stride(0), y.stride(0))
    return y


def _type_name(t, what):
    if t.dtype not in _DTYPES:
        raise TypeError(f"tritonc.ops.{what}: {t.dtype} is not supported (float16, bfloat16, "
                        f"float32)")
    return _DTYPES[t.dtype]


#
# matmul
#

def _matmul_configs(dtype, allow_tf32):
    if dtype == torch.float32 and not allow_tf32:
        shapes = [(64, 64, 16, 4, 3), (128, 128, 16, 8, 3), (128, 64, 16, 4, 3)]
    else:
        shapes = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3),
                  (64, 128, 64, 4, 3), (64, 64, 32, 4, 3)]
    return [tritonc.Config({"TM": tm, "TN": tn, "TK": tk}, num_warps=w, num_stages=s)
            for tm, tn, tk, w, s in shapes]


@functools.lru_cache(maxsize=None)
def _matmul_tuner(type_name, trans_a, trans_b, allow_tf32, device):
    interpret = device is None
    dtype = {v: k for k, v in _DTYPES.items()}[type_name]
    configs = _matmul_configs(dtype, allow_tf32)
    if interpret:
        # Tuning on the interpreter measures nothing useful: one small configuration.
        configs = [tritonc.Config({"TM": 16, "TN": 16, "TK": 16})]
    return tritonc.autotune(_kernel_path("matmul.tc"), configs=configs, key=["M", "N", "K"],
                            defines={"TYPE": type_name, "TRANS_A": int(trans_a),
                                     "TRANS_B": int(trans_b)},
                            allow_tf32=allow_tf32, interpret=interpret, device=device,
                            progress=False)


def _operand(t):
    """(tensor, transposed, leading dimension) of a 2-D operand as the kernel reads it: row-major
    as it is, or column-major (a transposed view) through TRANS_*; anything else is copied."""
    if t.stride(1) == 1 and t.stride(0) >= max(1, t.shape[1]):
        return t, False, t.stride(0)
    if t.stride(0) == 1 and t.stride(1) >= max(1, t.shape[0]):
        return t, True, t.stride(1)
    t = t.contiguous()
    return t, False, t.stride(0)


@torch.library.custom_op("tritonc::matmul", mutates_args=())
def _matmul_op(a: torch.Tensor, b: torch.Tensor, allow_tf32: bool = False) -> torch.Tensor:
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"tritonc.ops.matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} "
                         f"do not multiply")
    if a.dtype != b.dtype:
        raise TypeError(f"tritonc.ops.matmul: {a.dtype} @ {b.dtype}: the dtypes differ")
    type_name = _type_name(a, "matmul")
    m, k = a.shape
    n = b.shape[1]
    c = torch.empty(m, n, dtype=a.dtype, device=a.device)
    if m == 0 or n == 0:
        return c
    if k == 0:
        return c.zero_()
    a, trans_a, lda = _operand(a)
    b, trans_b, ldb = _operand(b)
    tuner = _matmul_tuner(type_name, trans_a, trans_b, allow_tf32 and a.dtype == torch.float32,
                          _device_of(a))
    tuner[lambda meta: (tritonc.cdiv(m, meta["TM"]), tritonc.cdiv(n, meta["TN"]))](
        a, b, c, m, n, k, lda, ldb, c.stride(0))
    return c


@_matmul_op.register_fake
def _(a, b, allow_tf32=False):
    return a.new_empty(a.shape[0], b.shape[1])


def _matmul_backward(ctx, grad):
    a, b = ctx.saved_tensors
    grad_a = _matmul_op(grad, b.t(), ctx.allow_tf32) if ctx.needs_input_grad[0] else None
    grad_b = _matmul_op(a.t(), grad, ctx.allow_tf32) if ctx.needs_input_grad[1] else None
    return grad_a, grad_b, None


def _matmul_setup(ctx, inputs, output):
    a, b, allow_tf32 = inputs
    ctx.save_for_backward(a, b)
    ctx.allow_tf32 = allow_tf32


_matmul_op.register_autograd(_matmul_backward, setup_context=_matmul_setup)


def matmul(a, b, allow_tf32=False):
    """C = A @ B on 2-D tensors of one dtype (float16, bfloat16, float32)."""
    return _matmul_op(a, b, allow_tf32)


#
# softmax
#

@functools.lru_cache(maxsize=None)
def _softmax_kernel(type_name, n, device):
    tn = 1 << max(4, (n - 1).bit_length()) if n <= 4096 else 1024
    return tritonc.compile(_kernel_path("softmax.tc"),
                           defines={"TYPE": type_name, "TM": 4 if tn <= 1024 else 1, "TN": tn},
                           num_warps=4, interpret=device is None, device=device)


@torch.library.custom_op("tritonc::softmax", mutates_args=())
def _softmax_op(x: torch.Tensor) -> torch.Tensor:
    return _row_operator(x, "softmax", False, lambda type_name, device, m, n: (
        _softmax_kernel(type_name, n, device), lambda meta: (tritonc.cdiv(m, meta["TM"]),)))


@_softmax_op.register_fake
def _(x):
    return torch.empty_like(x)


def _softmax_backward(ctx, grad):
    (y,) = ctx.saved_tensors
    # d/dx softmax: y * (g - sum(g * y)) per row, in float32 for 16-bit inputs.
    g32, y32 = grad.float(), y.float()
    return (y32 * (g32 - (g32 * y32).sum(dim=1, keepdim=True))).to(y.dtype)


_softmax_op.register_autograd(_softmax_backward,
                              setup_context=lambda ctx, inputs, output:
                              ctx.save_for_backward(output))


def softmax(x):
    """Row softmax of a 2-D tensor (float16, bfloat16, float32); the arithmetic is float32."""
    return _softmax_op(x)


#
# transpose
#

@functools.lru_cache(maxsize=None)
def _transpose_kernel(type_name, device):
    return tritonc.compile(_kernel_path("transpose_checked.tc"),
                           defines={"TYPE": type_name, "TM": 32, "TN": 32}, num_warps=4,
                           interpret=device is None, device=device)


@torch.library.custom_op("tritonc::transpose", mutates_args=())
def _transpose_op(x: torch.Tensor) -> torch.Tensor:
    return _row_operator(x, "transpose", True, lambda type_name, device, m, n: (
        _transpose_kernel(type_name, device), (tritonc.cdiv(m, 32), tritonc.cdiv(n, 32))))


@_transpose_op.register_fake
def _(x):
    return x.new_empty(x.shape[1], x.shape[0])


_transpose_op.register_autograd(lambda ctx, grad: _transpose_op(grad),
                                setup_context=lambda ctx, inputs, output: None)


def transpose(x):
    """x.t() materialized by the transpose kernel (float16, bfloat16, float32)."""
    return _transpose_op(x)


#
# conv2d
#

@functools.lru_cache(maxsize=None)
def _conv_kernel(type_name, device):
    tk = 8 if type_name == "float" else 16
    interpret = device is None
    tm, tn = (16, 16) if interpret else (32, 32)
    return tritonc.compile(_kernel_path("conv.tc"),
                           defines={"TYPE": type_name, "TM": tm, "TN": tn, "TK": tk},
                           num_warps=4, interpret=interpret, device=device), tk


# (TM, TN, num_warps, num_stages, SPLIT) of conv_nhwc.tc: the tiles that won a shape of
# bench/conv_suite.py (run 48) for 16-bit types, small tiles and split-K (SPLIT K slices per tile) for
# problems whose output tiles leave SMs idle (timed only there: _conv_nhwc_candidates), and two small
# FMA tiles for float.
_CONV_NHWC_TILES = [(64, 128, 4, 3, 1), (128, 128, 4, 3, 1), (128, 64, 4, 3, 1), (64, 64, 4, 3, 1),
                    (128, 256, 8, 3, 1), (128, 64, 4, 2, 1), (64, 32, 4, 3, 1), (64, 32, 4, 3, 9), (64, 32, 4, 3, 18),
                    (64, 64, 4, 3, 4), (64, 128, 4, 3, 2), (64, 128, 4, 3, 4)]
_CONV_NHWC_FLOAT_TILES = [(64, 64, 4, 3, 1), (32, 64, 4, 3, 1), (32, 64, 4, 3, 4)]
# On the interpreter (tuning measures nothing there): one tile, unsplit and split.
_CONV_NHWC_INTERPRETER_TILES = [(16, 16, 4, 3, 1), (16, 16, 4, 3, 2)]


def _conv_nhwc_candidates(configs, shape, tk, sms):
    """The configurations worth timing for shape: split-K ones only where
    ConvShape.nhwc_split_worthwhile keeps them (every one on the interpreter, sms None)."""
    return [c for c in configs if sms is None or shape.nhwc_split_worthwhile(
        c.defines["TM"], c.defines["TN"], tk, c.defines["SPLIT"], sms)]


def _shape_of_arguments(named):
    """The ConvShape of conv_nhwc.tc's named arguments (for the tuner's prune)."""
    z = named["M"] // max(1, named["P"] * named["Q"])
    return ConvShape(z, named["CI"], named["H"], named["W"], named["N"], named["R"], named["S"],
                     (named["stride_h"], named["stride_w"]), (named["pad_h"], named["pad_w"]),
                     (named["dil_h"], named["dil_w"]))


@functools.lru_cache(maxsize=None)
def _conv_nhwc_tuner(type_name, tk, device):
    """conv_nhwc.tc autotuned per shape (TK, which must divide CI, is fixed by the caller)."""
    interpret = device is None
    if interpret:
        tiles, sms = _CONV_NHWC_INTERPRETER_TILES, None
    else:
        tiles = _CONV_NHWC_FLOAT_TILES if type_name == "float" else _CONV_NHWC_TILES
        sms = torch.cuda.get_device_properties(device).multi_processor_count
    configs = [tritonc.Config({"TM": tm, "TN": tn, "SPLIT": split}, num_warps=w, num_stages=st)
               for tm, tn, w, st, split in tiles]
    tuner = tritonc.autotune(_kernel_path("conv_nhwc.tc"), configs=configs,
                             key=["M", "N", "CI", "R", "S", "stride_h", "stride_w", "dil_h",
                                  "dil_w"],
                             prune=lambda cs, named: _conv_nhwc_candidates(
                                 cs, _shape_of_arguments(named), tk, sms),
                             defines={"TYPE": type_name, "TK": tk}, interpret=interpret,
                             device=device, progress=False)
    return tuner, configs, sms


# Workspaces that are zero between launches (the kernels leave them zero: split-K counters, the weight
# gradient's counters and partial sums), per device, stream and dtype: launches on one stream run one
# after the other, on two streams they could overlap. Kept, not allocated and zeroed at every call.
_ZEROED_WORKSPACES = {}


def _zeroed_workspace(device, count, dtype=torch.int32):
    key = (device, torch.cuda.current_stream(device).cuda_stream if device.type == "cuda" else 0, dtype)
    workspace = _ZEROED_WORKSPACES.get(key)
    if workspace is None or workspace.numel() < count:
        workspace = torch.zeros(max(count, 1), dtype=dtype, device=device)
        _ZEROED_WORKSPACES[key] = workspace
    return workspace


@functools.lru_cache(maxsize=256)
def _conv_increments(ci, r, s, stride_c, stride_h, stride_w, tk, device):
    """conv.tc's ADELTA table for one input shape and layout, made once: built on the host, its copy
    to the device would otherwise wait for the device at every call."""
    shape = ConvShape(1, ci, 1, 1, 1, r, s)
    table = shape.increments(tk, (stride_c, stride_h, stride_w))
    return torch.tensor(table, dtype=torch.int32).to(device)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _is_channels_last(x):
    """Whether x is laid out NHWC (and not also NCHW, as 1x1 images or one channel are)."""
    return x.is_contiguous(memory_format=torch.channels_last) and not x.is_contiguous()


# The kernel chosen per problem (key) among those that compute it: each one's autotuner picks its
# tile, then the winners are timed against each other once per key in this process (the tile choices
# are persisted by the autotuners; this one is cheap to make again: a launch and a timing per kernel).
_KERNEL_CHOICES = {}


def _kernel_bench(name, launch, interpret):
    """Milliseconds of launch() (name is the kernel's, for tests that force a choice): do_bench on the
    GPU; on the interpreter one wall-clock run (it is exact and slow, and the timing means little)."""
    if interpret:
        start = time.perf_counter()
        launch()
        return (time.perf_counter() - start) * 1e3
    from tritonc.testing import do_bench  # noqa: PLC0415
    return do_bench(launch, warmup=5, rep=20)


def _run_fastest(key, launchers, interpret):
    """Runs the fastest of launchers ({kernel name: a callable that computes the result}) for key and
    returns its name. The first call with a key launches each one (tuning its tiles), times it, and
    keeps the winner; every launcher writes the whole result, and the winner runs last. A kernel none
    of whose tiles compiles and launches (its autotuner's RuntimeError) is left out while another one
    remains: a back-end limit of one candidate kernel must not take the operator down."""
    name = _KERNEL_CHOICES.get(key)
    if name is None:
        if len(launchers) > 1:
            usable, failure = {}, None
            for n, launch in launchers.items():
                try:
                    launch()  # tunes the kernel's tiles for these arguments
                    usable[n] = launch
                except RuntimeError as error:
                    if not str(error).startswith("autotune: no configuration"):
                        raise
                    failure = error
            if not usable:
                raise failure
            times = {n: _kernel_bench(n, launch, interpret) for n, launch in usable.items()}
            name = min(times, key=times.get)
        else:
            name = next(iter(launchers))
        _KERNEL_CHOICES[key] = name
    launchers[name]()
    return name


# The descriptor kernels (stride 1) on the GPU, 16-bit types, at bench/conv_suite.py's tiles; ctest
# conv_spills_ptxas checks these lists for spills too. conv_nhwc_desc.tc: (TP, TQ, TN, TK, SPLIT,
# BOXES, warps, stages), the benchmark's CONV_NHWC_DESC_CONFIGS (8 x 16 = 128 output pixels per tile,
# unsplit), a few of its CONV_NHWC_DESC_SMALL_CONFIGS (8 x 8 pixels, and split-K ones timed only
# where the output tiles leave SMs idle: ConvShape.desc_split_worthwhile) and of its
# CONV_NHWC_DESC_BOXES_CONFIGS (8 x 8 pixels in two images, timed where 2 divides Z); conv_nhwc_desc_dgrad.tc:
# (TP, TQ, TN, TK, ...), CONV_DESC_DGRAD_CONFIGS; conv_nhwc_desc_wgrad.tc: (TP, TQ, TM, TN, ...),
# CONV_DESC_WGRAD_CONFIGS.
_CONV_DESC_TILES = [(8, 16, 128, 64, 1, 1, 8, 4), (8, 16, 256, 64, 1, 1, 8, 3), (8, 16, 128, 64, 1, 1, 4, 4),
                    (8, 16, 64, 64, 1, 1, 4, 4), (8, 8, 64, 64, 1, 1, 4, 4), (8, 8, 64, 64, 9, 1, 4, 4),
                    (8, 8, 64, 64, 18, 1, 4, 3), (8, 16, 128, 64, 2, 1, 8, 4), (8, 16, 128, 64, 4, 1, 8, 4),
                    (8, 8, 256, 64, 1, 2, 8, 3), (8, 8, 128, 64, 1, 2, 4, 4)]
# conv_nhwc_desc.tc's tiles also compiled with warp_specialize=True (a producer warpgroup issues the bulk
# tensor copies, the tile's warps run the wgmmas): the split candidates that won shapes in run 57 of
# bench/conv_suite.py (Z = 1, 64 and 256 channels at 56 x 56, forward and data gradient). ptxas -v (sm_90a):
# no spills (ctest conv_spills_ptxas).
_CONV_DESC_WS_TILES = [(8, 8, 64, 64, 1, 1, 4, 4), (8, 8, 128, 64, 1, 1, 4, 4)]
_CONV_DESC_DGRAD_TILES = [(8, 8, 128, 64, 4, 3), (8, 16, 128, 64, 8, 3), (8, 16, 64, 64, 4, 3),
                          (8, 16, 128, 32, 4, 4), (8, 8, 64, 64, 4, 4)]
_CONV_DESC_WGRAD_TILES = [(8, 8, 128, 128, 8, 3), (8, 8, 64, 128, 4, 3), (8, 8, 128, 128, 4, 3),
                          (8, 8, 64, 64, 4, 4)]
# On the interpreter: one small tile each (TK = 8 must divide the channels of the reduction), the
# forward one unsplit and split.
_CONV_DESC_INTERPRETER_TILES = {"conv_nhwc_desc.tc": [(4, 4, 8, 8, 1, 1, 4, 3), (4, 4, 8, 8, 3, 1, 4, 3),
                                                      (4, 4, 8, 8, 1, 2, 4, 3)],
                                "conv_nhwc_desc_dgrad.tc": [(4, 4, 8, 8, 4, 3)],
                                "conv_nhwc_desc_wgrad.tc": [(4, 4, 8, 8, 4, 3)]}
# Each kernel's block macros in its tiles' order (then warps and stages), and the parameters (reduced
# channels, output channels) the tile sizes are pruned against: TK divides the reduced channels (no idle
# tensor-core columns), and the output channel blocks are at most max(64, the channels).
_CONV_DESC_KERNELS = {
    "conv_nhwc_desc.tc": (("TP", "TQ", "TN", "TK", "SPLIT", "BOXES"), _CONV_DESC_TILES,
                          ("CI", {"TN": "CO"})),
    "conv_nhwc_desc_dgrad.tc": (("TP", "TQ", "TN", "TK"), _CONV_DESC_DGRAD_TILES, ("CO", {"TN": "CI"})),
    "conv_nhwc_desc_wgrad.tc": (("TP", "TQ", "TM", "TN"), _CONV_DESC_WGRAD_TILES,
                                (None, {"TM": "CO", "TN": "CI"})),
}
_CONV_DESC_KEY = ["Z", "H", "W", "CI", "CO", "R", "S", "pad_h", "pad_w", "dil_h", "dil_w"]


def _desc_tile_fits(kernel, defines, channels):
    """Whether a tile (its defines) of a descriptor kernel is worth timing for channels = {"CI": ..,
    "CO": ..} (the rule of _CONV_DESC_KERNELS)."""
    _, _, (reduced, blocks) = _CONV_DESC_KERNELS[kernel]
    if "TK" in defines and reduced and channels[reduced] % defines["TK"]:
        return False
    return all(defines[macro] <= max(64, channels[dim]) for macro, dim in blocks.items())


def _multiprocessors(device):
    """The SM count of a CUDA device; None on the interpreter (device None)."""
    return None if device is None else torch.cuda.get_device_properties(device).multi_processor_count


def _desc_split_fits(defines, shape, sms):
    """Whether a conv_nhwc_desc.tc tile (its defines) is worth timing for shape on `sms`
    multiprocessors: BOXES images per tile only where BOXES divides Z (no idle image in the last
    tile); unsplit always, split where ConvShape.desc_split_worthwhile keeps it (every tile on the
    interpreter, sms None). The other descriptor kernels have neither SPLIT nor BOXES."""
    split, boxes = defines.get("SPLIT", 1), defines.get("BOXES", 1)
    if shape.z % boxes:
        return False
    return split == 1 or sms is None or shape.desc_split_worthwhile(
        defines["TP"], defines["TQ"], defines["TN"], defines["TK"], split, sms, boxes)


def _desc_shape_of_arguments(named):
    """The ConvShape of a descriptor kernel's named arguments (stride 1; for the tuner's prune)."""
    return ConvShape(named["Z"], named["CI"], named["H"], named["W"], named["CO"], named["R"],
                     named["S"], (1, 1), (named["pad_h"], named["pad_w"]),
                     (named["dil_h"], named["dil_w"]))


def _desc_candidates(kernel, configs, shape, sms):
    """The configurations of a descriptor kernel worth timing for shape on `sms` multiprocessors."""
    channels = {"CI": shape.ci, "CO": shape.co}
    return [c for c in configs if _desc_tile_fits(kernel, c.defines, channels)
            and _desc_split_fits(c.defines, shape, sms)]


@functools.lru_cache(maxsize=None)
def _conv_desc_tuner(kernel, type_name, device, dgrad=False):
    """A descriptor kernel autotuned per shape, or None where it has no tiles (float on the GPU);
    dgrad: conv_nhwc_desc.tc with DGRAD=1 (a data gradient computed forward)."""
    interpret = device is None
    if interpret:
        tiles = _CONV_DESC_INTERPRETER_TILES[kernel]
    elif type_name == "float":
        return None
    else:
        tiles = _CONV_DESC_KERNELS[kernel][1]
    macros = _CONV_DESC_KERNELS[kernel][0]
    n = len(macros)
    configs = [tritonc.Config(dict(zip(macros, tile[:n])), num_warps=tile[n], num_stages=tile[n + 1])
               for tile in tiles]
    # Warp specialization needs sm_90a's bulk tensor copies (a usage error elsewhere).
    if not interpret and kernel == "conv_nhwc_desc.tc" and torch.cuda.get_device_capability(device)[0] == 9:
        configs += [tritonc.Config(dict(zip(macros, tile[:n])), num_warps=tile[n], num_stages=tile[n + 1],
                                   warp_specialize=True) for tile in _CONV_DESC_WS_TILES]
    sms = _multiprocessors(device)
    return tritonc.autotune(_kernel_path(kernel), configs=configs, key=_CONV_DESC_KEY,
                            prune=lambda cs, named: _desc_candidates(
                                kernel, cs, _desc_shape_of_arguments(named), sms),
                            defines={"TYPE": type_name, "ACC": "float", **({"DGRAD": 1} if dgrad else {})},
                            interpret=interpret, device=device, progress=False)


def _desc_tuner_for(kernel, shape, type_name, device, dgrad=False):
    """The descriptor kernel's tuner where it can compute shape (stride 1, channels: a tensor
    descriptor has no empty extent) with a tile that fits its channels, else None."""
    if shape.stride != (1, 1) or 0 in (shape.ci, shape.co):
        return None
    tuner = _conv_desc_tuner(kernel, type_name, device, dgrad)
    channels = {"CI": shape.ci, "CO": shape.co}
    if tuner is None or not any(_desc_tile_fits(kernel, c.defines, channels) for c in tuner.configs):
        return None
    return tuner


def _run_with_desc(layouts, launchers, desc_kernel, desc_launch, shape, type_name, t):
    """Runs the fastest of launchers and, where it can compute shape, the descriptor kernel
    desc_kernel (desc_launch(its tuner)), for tensors on t's device; layouts (the pass and its
    operands' strides) and shape are the key of the choice."""
    device = _device_of(t)
    desc = _desc_tuner_for(desc_kernel, shape, type_name, device)
    if desc is not None:
        launchers = dict(launchers, **{desc_kernel: lambda: desc_launch(desc)})
    return _run_fastest((layouts, device, type_name, shape), launchers, device is None)


def _channels_last_filter(w):
    """The filter as the descriptor kernels read it: CO x R x S x CI, channels contiguous (PyTorch's
    channels_last weight as it is, any other a copy)."""
    return w.permute(0, 2, 3, 1).contiguous()


def _nhwc_strides(t):
    """(batch, row, column) strides of an NCHW-indexed tensor whose channels are contiguous."""
    return t.stride(0), t.stride(2), t.stride(3)


def _conv2d_nhwc(x, w, shape, type_name):
    """A channels_last input, output channels_last: the fastest of conv_nhwc.tc, conv_nhwc_desc.tc
    (stride 1) and, for a 1x1 filter at stride 1 without padding, a GEMM (matmul.tc)."""
    y = torch.empty(shape.z, shape.co, shape.p, shape.q, dtype=x.dtype, device=x.device,
                    memory_format=torch.channels_last)
    if y.numel() == 0:
        return y
    launchers = {"conv_nhwc.tc": lambda: _conv2d_nhwc_gathers(x, w, y, shape, type_name)}
    if _conv_is_gemm(x, shape):
        launchers["matmul.tc"] = lambda: _conv2d_gemm(x, w, y, shape, type_name, _device_of(x))
    _run_with_desc(("forward", x.stride(), w.stride()), launchers, "conv_nhwc_desc.tc",
                   lambda desc: _conv2d_nhwc_desc(desc, x, w, y, shape), shape, type_name, x)
    return y


def _conv2d_nhwc_desc(tuner, x, w, y, shape):
    """conv_nhwc_desc.tc: boxes of the input at each tap's shift and of the channels_last filter; small
    images split their k-steps into SPLIT slices, and a tile may take its rectangle in BOXES images."""
    f = _channels_last_filter(w)
    # A workspace for the largest split candidate (the tuner times them all with these arguments): the
    # partial tiles of any contents, the counters zero (the kernel leaves them zero).
    sms = _multiprocessors(_device_of(x))
    candidates = _desc_candidates("conv_nhwc_desc.tc", tuner.configs, shape, sms)
    partials, counters = (max(sizes) for sizes in zip(*(
        shape.desc_workspace(c.defines["TP"], c.defines["TQ"], c.defines["TN"], c.defines["SPLIT"],
                             c.defines["BOXES"])
        for c in candidates)))
    args = shape.desc_arguments(x, f, y, _nhwc_strides(x), f.stride(0), _nhwc_strides(y),
                                torch.empty(max(partials, 1), dtype=torch.float32, device=x.device),
                                _zeroed_workspace(x.device, counters))
    tuner[lambda meta: shape.desc_grid(meta["TP"], meta["TQ"], meta["TN"], meta["SPLIT"], meta["BOXES"])](
        *args)


def _conv_is_gemm(x, shape):
    """Whether the convolution is a GEMM of the input's pixels by the filter: 1x1, stride 1, no
    padding (dilation changes nothing), and the channels_last input dense (pixels CI apart); CI > 0
    (matmul.tc takes a positive K)."""
    return ((shape.r, shape.s, shape.stride, shape.padding) == (1, 1, (1, 1), (0, 0))
            and shape.ci > 0 and x.is_contiguous(memory_format=torch.channels_last))


def _conv2d_gemm(x, w, y, shape, type_name, device):
    """Y (Z*H*W x CO) = X (Z*H*W x CI) @ ^F (F: the CO x CI filter rows, read transposed by
    matmul.tc's TRANS_B), with ops.matmul's tuned configurations; y's matrix is a view of it."""
    a = x.permute(0, 2, 3, 1).reshape(shape.m, shape.ci)
    b = w.reshape(shape.co, shape.ci)
    _pixel_gemm(a, b, y, True, type_name, device)


def _conv2d_dgrad_gemm(grad, w, dx, shape, type_name, device):
    """The data gradient of a 1x1 convolution at stride 1 without padding: DX (Z*H*W x CI) =
    DY (Z*P*Q x CO) @ F (the CO x CI filter rows as they are)."""
    a = grad.permute(0, 2, 3, 1).reshape(shape.m, shape.co)
    _pixel_gemm(a, w.reshape(shape.co, shape.ci), dx, False, type_name, device)


def _pixel_gemm(a, b, y, trans_b, type_name, device):
    """y's pixels (a view of the channels_last y as Z*H*W x C) = a @ b, b read transposed from its rows
    with trans_b (matmul.tc's TRANS_B), with ops.matmul's tuned configurations."""
    m, k = a.shape
    n = y.shape[1]
    b = b if b.stride(1) == 1 else b.contiguous()
    c = y.permute(0, 2, 3, 1).view(m, n)
    tuner = _matmul_tuner(type_name, False, trans_b, False, device)
    tuner[lambda meta: (tritonc.cdiv(m, meta["TM"]), tritonc.cdiv(n, meta["TN"]))](
        a, b, c, m, n, k, a.stride(0), b.stride(0), c.stride(0))


def _conv2d_nhwc_gathers(x, w, y, shape, type_name):
    """conv_nhwc.tc: rows of the input gathered per filter tap, the filter as a matrix."""
    tk = nhwc_block_k(shape.ci, 8 if type_name == "float" else 64)
    tuner, configs, sms = _conv_nhwc_tuner(type_name, tk, _device_of(x))
    # The filter as an (R*S*CI) x CO matrix, rows in the order (r, s, ci).
    b = w.permute(2, 3, 1, 0).reshape(shape.r * shape.s * shape.ci, shape.co).contiguous()
    # A workspace for the largest split-K candidate (the tuner times them all with these arguments).
    partials, counters = (max(sizes) for sizes in zip(*(
        shape.nhwc_workspace(c.defines["TM"], c.defines["TN"], c.defines["SPLIT"])
        for c in _conv_nhwc_candidates(configs, shape, tk, sms))))
    args = shape.nhwc_arguments(x, b, y, (x.stride(0), x.stride(2), x.stride(3)), b.stride(0),
                                (y.stride(0), y.stride(2), y.stride(3)),
                                torch.empty(max(partials, 1), dtype=torch.float32, device=x.device),
                                _zeroed_workspace(x.device, counters))
    tuner[lambda meta: shape.grid(meta["TM"], meta["TN"], meta["SPLIT"])](*args)


# (TM, TN, TK, num_warps, num_stages) of the backward kernels on the GPU; TK must divide CO in
# conv_nhwc_dgrad.tc, so there it is fixed by the caller and only (TM, TN, warps, stages) count.
_CONV_BACKWARD_TILES = [(128, 128, 64, 8, 3), (128, 64, 32, 4, 3), (64, 128, 64, 4, 3),
                        (64, 64, 32, 4, 3), (128, 64, 64, 4, 2)]
# ptxas -v (sm_90a) reports no spills for any of these (ctest conv_spills_ptxas); conv_nhwc_dgrad.tc
# spilled 20 bytes at 64 x 64 x 8 in float with 4 warps.
_CONV_BACKWARD_FLOAT_TILES = [(64, 64, 8, 8, 3), (32, 64, 8, 4, 3)]
_CONV_BACKWARD_INTERPRETER_TILES = [(16, 16, 16, 4, 3)]


def _conv_backward_tiles(type_name, device):
    if device is None:
        return _CONV_BACKWARD_INTERPRETER_TILES
    return _CONV_BACKWARD_FLOAT_TILES if type_name == "float" else _CONV_BACKWARD_TILES


_CONV_BACKWARD_KEY = ["Z", "H", "W", "CI", "CO", "R", "S", "stride_h", "stride_w", "dil_h", "dil_w"]


@functools.lru_cache(maxsize=None)
def _conv_backward_tuner(kernel, type_name, tk, device):
    """conv_nhwc_dgrad.tc (tk: its TK, dividing CO) or conv_nhwc_wgrad.tc (tk None: TK is tuned)."""
    configs = [tritonc.Config({"TM": tm, "TN": tn} if tk else {"TM": tm, "TN": tn, "TK": k},
                              num_warps=w, num_stages=st)
               for tm, tn, k, w, st in _conv_backward_tiles(type_name, device)]
    defines = {"TYPE": type_name, **({"TK": tk} if tk else {})}
    return tritonc.autotune(_kernel_path(kernel), configs=configs, key=_CONV_BACKWARD_KEY,
                            defines=defines, interpret=device is None, device=device,
                            progress=False)


def _conv2d_nhwc_dgrad(grad, w, shape, type_name):
    """The data gradient of a channels_last convolution, channels_last: the fastest of
    conv_nhwc_dgrad.tc, and at stride 1 conv_nhwc_desc_dgrad.tc and the gradient computed as a
    forward convolution (_dgrad_as_forward_launchers)."""
    dx = torch.empty(shape.z, shape.ci, shape.h, shape.w, dtype=grad.dtype, device=grad.device,
                     memory_format=torch.channels_last)
    if dx.numel() == 0:
        return dx
    if grad.numel() == 0:
        return dx.zero_()
    launchers = {"conv_nhwc_dgrad.tc": lambda: _conv2d_nhwc_dgrad_gathers(grad, w, dx, shape,
                                                                           type_name)}
    launchers.update(_dgrad_as_forward_launchers(grad, w, dx, shape, type_name))
    _run_with_desc(("dgrad", grad.stride(), w.stride()), launchers, "conv_nhwc_desc_dgrad.tc",
                   lambda desc: _conv2d_desc_dgrad(desc, grad, w, dx, shape), shape, type_name, grad)
    return dx


# The names of the data gradient's launchers that compute it as a forward convolution.
DGRAD_FORWARD = "conv_nhwc_desc.tc DGRAD=1"
DGRAD_GEMM = "matmul.tc"


def _dgrad_as_forward_launchers(grad, w, dx, shape, type_name):
    """Where the data gradient is a forward convolution (ConvShape.dgrad_as_forward): the forward
    descriptor kernel with DGRAD=1 on the output gradient (it reads the filter flipped, as it is), and
    for a 1x1 filter without padding the GEMM of the output gradient's pixels by the filter rows as they
    are (no copy either)."""
    if not shape.dgrad_is_forward():
        return {}
    forward = shape.dgrad_as_forward()
    device = _device_of(grad)
    launchers = {}
    if _conv_is_gemm(grad, forward):
        launchers[DGRAD_GEMM] = lambda: _conv2d_dgrad_gemm(grad, w, dx, shape, type_name, device)
    desc = _desc_tuner_for("conv_nhwc_desc.tc", forward, type_name, device, dgrad=True)
    if desc is not None:
        launchers[DGRAD_FORWARD] = lambda: _conv2d_nhwc_desc(desc, grad, w, dx, forward)
    return launchers


def _conv2d_nhwc_dgrad_gathers(grad, w, dx, shape, type_name):
    """conv_nhwc_dgrad.tc: a layer per stride phase, the filter as an (R*S*CO) x CI matrix."""
    tk = nhwc_block_k(shape.co, 8 if type_name == "float" else 64)
    tuner = _conv_backward_tuner("conv_nhwc_dgrad.tc", type_name, tk, _device_of(grad))
    # The filter as an (R*S*CO) x CI matrix, rows in the order (r, s, k).
    b = w.permute(2, 3, 0, 1).reshape(shape.r * shape.s * shape.co, shape.ci).contiguous()
    args = shape.dgrad_arguments(grad, b, dx, _nhwc_strides(grad), b.stride(0), _nhwc_strides(dx))
    tuner[lambda meta: shape.dgrad_grid(meta["TM"], meta["TN"])](*args)


def _reduction_programs(t):
    """How many programs a split reduction aims at: two per multiprocessor; a few on the interpreter,
    so that tests add through the workspace."""
    return 2 * torch.cuda.get_device_properties(t.device).multi_processor_count if t.is_cuda else 4


def _conv2d_desc_dgrad(tuner, grad, w, dx, shape):
    """conv_nhwc_desc_dgrad.tc: boxes of the output gradient at each tap's shift and of the
    channels_last filter; small images split their k-steps into slices."""
    f = _channels_last_filter(w)
    sizes = [shape.desc_dgrad_workspace(c.defines["TP"], c.defines["TQ"], c.defines["TN"])
             for c in tuner.configs]
    counters = _zeroed_workspace(grad.device, max(size[0] for size in sizes))
    partials = _zeroed_workspace(grad.device, max(size[1] for size in sizes), torch.float32)
    programs, min_blocks = _reduction_programs(grad), 1 if _device_of(grad) is None else 4
    args = shape.desc_dgrad_arguments(grad, f, dx, counters, partials, _nhwc_strides(grad),
                                      f.stride(0), _nhwc_strides(dx))

    def grid(meta):
        tp, tq, tn = meta["TP"], meta["TQ"], meta["TN"]
        return shape.desc_dgrad_grid(tp, tq, tn, shape.desc_dgrad_slices(tp, tq, tn, meta["TK"],
                                                                          programs, min_blocks))
    tuner[grid](*args)


def _conv2d_nhwc_wgrad(grad, x, shape, type_name):
    """The weight gradient of a channels_last convolution: CO x CI x R x S in channels_last layout,
    the faster of conv_nhwc_wgrad.tc and (stride 1) conv_nhwc_desc_wgrad.tc."""
    dw = torch.empty(shape.co, shape.r, shape.s, shape.ci, dtype=grad.dtype, device=grad.device)
    if dw.numel() == 0:
        return dw.permute(0, 3, 1, 2)
    if grad.numel() == 0:
        return dw.zero_().permute(0, 3, 1, 2)
    launchers = {"conv_nhwc_wgrad.tc": lambda: _conv2d_nhwc_wgrad_gathers(grad, x, dw, shape,
                                                                           type_name)}
    gemm = _wgrad_gemm_tuner(type_name, _device_of(grad)) if _conv_is_gemm(x, shape) else None
    if gemm is not None and shape.co > 0:
        launchers[WGRAD_GEMM] = lambda: _conv2d_wgrad_gemm(gemm, grad, x, dw, shape)
    _run_with_desc(("wgrad", grad.stride(), x.stride()), launchers, "conv_nhwc_desc_wgrad.tc",
                   lambda desc: _conv2d_desc_wgrad(desc, grad, x, dw, shape), shape, type_name, grad)
    return dw.permute(0, 3, 1, 2)


# The weight gradient of a 1x1 convolution at stride 1 without padding as a GEMM, DW (CO x CI) = DY^T X
# over the Z*H*W pixels: matmul_splitk.tc with TRANS_A (DY's pixel rows read as ^a) and ATOMIC=2 (the K
# slices add through a float workspace, the last one writes DW). (TM, TN, TK, warps, stages), 16-bit
# types on the GPU (bench/conv_suite.py's CONV_WGRAD_GEMM_CONFIGS but the 8-warp one); each tile with
# the listed slice count nearest below ConvShape.gemm_wgrad_slices' (the tuner's prune).
WGRAD_GEMM = "matmul_splitk.tc"
_WGRAD_GEMM_TILES = [(128, 128, 64, 4, 4), (64, 128, 64, 4, 4), (64, 64, 64, 4, 4)]
_WGRAD_GEMM_INTERPRETER_TILES = [(16, 16, 16, 4, 3)]
_WGRAD_GEMM_SLICES = (1, 2, 4, 8, 16, 32, 64, 128)


@functools.lru_cache(maxsize=None)
def _wgrad_gemm_tuner(type_name, device):
    """matmul_splitk.tc for 1x1 weight gradients, autotuned per shape; None for float on the GPU."""
    interpret = device is None
    if not interpret and type_name == "float":
        return None
    programs = 4 if interpret else 2 * torch.cuda.get_device_properties(device).multi_processor_count
    tiles = _WGRAD_GEMM_INTERPRETER_TILES if interpret else _WGRAD_GEMM_TILES
    configs = [tritonc.Config({"TM": tm, "TN": tn, "TK": tk, "TZ": tz}, num_warps=w, num_stages=st)
               for tm, tn, tk, w, st in tiles for tz in _WGRAD_GEMM_SLICES]

    def prune(candidates, named):
        def wanted(c):
            d = c.defines
            rule = splitk_slices(named["M"], named["N"], named["K"], d["TM"], d["TN"], d["TK"], programs)
            return d["TZ"] == max(z for z in _WGRAD_GEMM_SLICES if z <= rule)
        return [c for c in candidates if wanted(c)]
    return tritonc.autotune(_kernel_path("matmul_splitk.tc"), configs=configs, key=["M", "N", "K"],
                            prune=prune, defines={"TYPE": type_name, "ATOMIC": 2, "TRANS_A": 1},
                            interpret=interpret, device=device, progress=False)


def _conv2d_wgrad_gemm(tuner, grad, x, dw, shape):
    """DW (CO x CI, the 1x1 filter's rows) = DY^T X: DY's and X's pixel rows (views of the dense
    channels_last tensors), the workspace for the largest tiling kept zero between launches."""
    a = grad.permute(0, 2, 3, 1).reshape(shape.m, shape.co)
    b = x.permute(0, 2, 3, 1).reshape(shape.m, shape.ci)
    c = dw.view(shape.co, shape.ci)
    # A 1x1 filter: conv_nhwc_wgrad.tc's workspace sizes are the GEMM's (a counter and a tile per tile).
    sizes = [shape.wgrad_workspace(cfg.defines["TM"], cfg.defines["TN"]) for cfg in tuner.configs]
    counters = _zeroed_workspace(grad.device, max(tiles for tiles, _ in sizes))
    partials = _zeroed_workspace(grad.device, max(elements for _, elements in sizes), torch.float32)
    tuner[lambda meta: (tritonc.cdiv(shape.co, meta["TM"]), tritonc.cdiv(shape.ci, meta["TN"]), meta["TZ"])](
        a, b, c, counters, partials, 1.0, shape.co, shape.ci, shape.m, a.stride(0), b.stride(0),
        c.stride(0))


def _wgrad_workspace(grad, shape, tiles):
    """The workspace of a sliced weight gradient, large enough for every (TM, TN) of tiles (zero
    again on exit)."""
    sizes = [shape.wgrad_workspace(tm, tn) for tm, tn in tiles]
    return (_zeroed_workspace(grad.device, max(size[0] for size in sizes)),
            _zeroed_workspace(grad.device, max(size[1] for size in sizes), torch.float32))


def _conv2d_nhwc_wgrad_gathers(grad, x, dw, shape, type_name):
    """conv_nhwc_wgrad.tc: its reduction over the output pixels split into slices."""
    device = _device_of(grad)
    tuner = _conv_backward_tuner("conv_nhwc_wgrad.tc", type_name, None, device)
    counters, partials = _wgrad_workspace(
        grad, shape, [(tm, tn) for tm, tn, *_ in _conv_backward_tiles(type_name, device)])
    programs = _reduction_programs(grad)
    args = shape.wgrad_arguments(grad, x, dw, counters, partials, _nhwc_strides(grad),
                                 _nhwc_strides(x), dw.stride(0))
    tuner[lambda meta: shape.wgrad_grid(meta["TM"], meta["TN"], shape.wgrad_slices(
        meta["TM"], meta["TN"], meta["TK"], programs, 2 if device is None else 8))](*args)


def _conv2d_desc_wgrad(tuner, grad, x, dw, shape):
    """conv_nhwc_desc_wgrad.tc: a k-step is a rectangle of output pixels (boxes of the output
    gradient and of the input at the tap's shift); dw is CO x R x S x CI, as it writes it."""
    counters, partials = _wgrad_workspace(grad, shape, [(c.defines["TM"], c.defines["TN"])
                                                        for c in tuner.configs])
    programs, min_blocks = _reduction_programs(grad), 1 if _device_of(grad) is None else 4
    args = shape.desc_wgrad_arguments(grad, x, dw, counters, partials, _nhwc_strides(grad),
                                      _nhwc_strides(x), dw.stride(0))
    tuner[lambda meta: shape.wgrad_grid(meta["TM"], meta["TN"], shape.desc_wgrad_slices(
        meta["TM"], meta["TN"], meta["TP"], meta["TQ"], programs, min_blocks))](*args)


@torch.library.custom_op("tritonc::conv2d", mutates_args=())
def _conv2d_op(x: torch.Tensor, w: torch.Tensor, stride: List[int], padding: List[int],
               dilation: List[int]) -> torch.Tensor:
    if x.dim() != 4 or w.dim() != 4 or x.shape[1] != w.shape[1]:
        raise ValueError(f"tritonc.ops.conv2d: input {tuple(x.shape)} and filter "
                         f"{tuple(w.shape)} do not fit (NCHW and CO x CI x R x S)")
    type_name = _type_name(x, "conv2d")
    z, ci, h, wd = x.shape
    co, _, r, s = w.shape
    shape = ConvShape(z, ci, h, wd, co, r, s, tuple(stride), tuple(padding), tuple(dilation))
    if _is_channels_last(x):
        return _conv2d_nhwc(x, w, shape, type_name)
    x = x.contiguous()
    y = torch.empty(z, co, shape.p, shape.q, dtype=x.dtype, device=x.device)
    if y.numel() == 0:
        return y
    # The channels-last kernels through copies of the input and the output (the input's copy outside
    # the timed choice would hide its cost); conv.tc has no dilation.
    launchers = {"channels_last": lambda: y.copy_(_conv2d_nhwc(
        x.contiguous(memory_format=torch.channels_last), w, shape, type_name))}
    if tuple(dilation) == (1, 1):
        launchers["conv.tc"] = lambda: _conv2d_nchw(x, w, y, shape, type_name)
    device = _device_of(x)
    _run_fastest(("forward-nchw", x.stride(), w.stride(), device, type_name, shape), launchers,
                 device is None)
    return y


def _conv2d_nchw(x, w, y, shape, type_name):
    """conv.tc: the thesis' kernel on NCHW tensors, its filter as a (CI*R*S) x CO matrix and the
    address increments of the reduction from a table."""
    kernel, tk = _conv_kernel(type_name, _device_of(x))
    b = w.reshape(shape.co, shape.k).t().contiguous()
    delta = _conv_increments(shape.ci, shape.r, shape.s, x.stride(1), x.stride(2), x.stride(3), tk,
                             x.device)
    args = shape.nchw_arguments(x, b, y, delta, x.stride(), b.stride(0), y.stride()[:3])
    kernel[shape.grid(kernel.meta["TM"], kernel.meta["TN"])](*args)


@_conv2d_op.register_fake
def _(x, w, stride, padding, dilation):
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    p = (x.shape[2] + 2 * ph - dh * (w.shape[2] - 1) - 1) // sh + 1
    q = (x.shape[3] + 2 * pw - dw * (w.shape[3] - 1) - 1) // sw + 1
    layout = torch.channels_last if _is_channels_last(x) else torch.contiguous_format
    return torch.empty(x.shape[0], w.shape[0], p, q, dtype=x.dtype, device=x.device,
                       memory_format=layout)


def _conv2d_backward(ctx, grad):
    """The channels-last backward kernels, for an NCHW input through channels_last copies of it and
    of the output gradient, its data gradient returned in NCHW again (there is no NCHW backward
    kernel; unfold / fold and matmuls, before, held the CI*R*S x Z*P*Q unfolded input)."""
    x, w = ctx.saved_tensors
    z, ci, h, wd = x.shape
    co, _, r, s = w.shape
    shape = ConvShape(z, ci, h, wd, co, r, s, ctx.stride, ctx.padding, ctx.dilation)
    type_name = _type_name(x, "conv2d")
    nchw = not _is_channels_last(x)
    grad = grad.contiguous(memory_format=torch.channels_last)
    grad_x = grad_w = None
    if ctx.needs_input_grad[0]:
        grad_x = _conv2d_nhwc_dgrad(grad, w, shape, type_name)
        grad_x = grad_x.contiguous() if nchw else grad_x
    if ctx.needs_input_grad[1]:
        x = x.contiguous(memory_format=torch.channels_last)
        grad_w = _conv2d_nhwc_wgrad(grad, x, shape, type_name)
        grad_w = grad_w.contiguous(memory_format=torch.channels_last
                                   if _is_channels_last(w) else torch.contiguous_format)
    return grad_x, grad_w, None, None, None


def _conv2d_setup(ctx, inputs, output):
    x, w, stride, padding, dilation = inputs
    ctx.save_for_backward(x, w)
    ctx.stride, ctx.padding, ctx.dilation = tuple(stride), tuple(padding), tuple(dilation)


_conv2d_op.register_autograd(_conv2d_backward, setup_context=_conv2d_setup)


def conv2d(x, w, stride=1, padding=0, dilation=1):
    """Convolution of x (Z x CI x H x W) with w (CO x CI x R x S), no bias; stride, padding and
    dilation as in torch.nn.functional.conv2d (an int or a pair). A channels_last x runs the
    fastest of the channels-last kernels for its shape (conv_nhwc.tc; at stride 1 also the
    descriptor kernel conv_nhwc_desc.tc, and for a 1x1 filter without padding a GEMM, matmul.tc)
    and gives a channels_last result, and its gradients run the channels-last backward kernels
    (conv_nhwc_dgrad.tc, conv_nhwc_wgrad.tc, at stride 1 also conv_nhwc_desc_dgrad.tc and
    conv_nhwc_desc_wgrad.tc, and the data gradient as a forward convolution: conv_nhwc_desc.tc with
    DGRAD=1, or for a 1x1 filter a GEMM, and the 1x1 weight gradient as a split-K GEMM,
    matmul_splitk.tc; the fastest of each). Any other layout is made contiguous
    (NCHW) and runs the faster of conv.tc (the thesis' kernel; no dilation) and the channels-last
    kernels through a channels_last copy of x, the result an NCHW tensor either way; its gradients
    run the channels-last backward kernels the same way (there is no NCHW backward kernel)."""
    return _conv2d_op(x, w, list(_pair(stride)), list(_pair(padding)), list(_pair(dilation)))
