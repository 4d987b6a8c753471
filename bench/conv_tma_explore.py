"""Exploration for issue 28: the forward NHWC convolution with its A tiles as bulk tensor copies (TMA,
tests/kernels/gpuir/conv_nhwc_tma*.tir, written by gen_conv_nhwc_tma.py) against the cp.async gathers of
kernels/conv_nhwc.tc and against cuDNN (channels_last, cudnn.benchmark = True), fp16 (or bf16 with
--dtype bfloat16), on issue 28's shapes. Not a bench.py step: it prints one table and records nothing.

    export PYTHONPATH=$(scripts/build-python.sh)
    python3 bench/conv_tma_explore.py                 # all shapes (meant to take under 5 minutes)
    python3 bench/conv_tma_explore.py --quick         # two shapes
    python3 bench/conv_tma_explore.py --shapes 0,3 --tma 1x8x16:256,2x8x8:128,1x8x8:128:4

For each shape every candidate runs once and is checked against torch (relative max error < 2e-2;
a wrong one is reported and left out), then the correct ones are timed interleaved with cuDNN
(bench/common.py's Timer: L2 flushed before each run, CUDA events, GPU-side wait so that no host time
leaks in, median of --runs runs after warm-up, in --rounds turns). TMA candidates are
TZxTPxTQ:TN:WARPS (images x output rows x output columns per tile, output channels, warps), 4
stages, each as --variants: B N-major (a wgmma per 64 output channels) with either epilogue (masked
st.global, bulk tensor stores), and B K-major (one wgmma of N = TN) with st.global; by default the two
128-pixel tiles that waste the fewest output pixels on the shape with 8 warps, each with the two
widest of TN 64, 128, 256 up to CO, and where those tiles leave SMs idle the best 64-pixel tile with
4 warps too. conv_nhwc.tc runs its best large configurations
(128x256x64 and 128x128x64 with 8 warps, 128x64x32 with 4 where CO is 64; 3 stages;
bench/conv_suite.py's list) and reports the fastest. On stride-1 shapes kernels/conv_nhwc_desc.tc, the
same route written in Triton-C with tensor descriptors (DESC_CONFIGS: TPxTQ output pixels x TN x TK),
runs too.
"""
import argparse
import importlib.util
import math
import sys
import tempfile
import time
from pathlib import Path

import torch
import torch.nn.functional as F

import tritonc
from tritonc.convolution import ConvShape

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from common import KERNELS, Timer, relative_error  # noqa: E402

GPUIR = BENCH.parent / "tests" / "kernels" / "gpuir"
_spec = importlib.util.spec_from_file_location("gen_conv_nhwc_tma", GPUIR / "gen_conv_nhwc_tma.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

# (Z, CI, CO, H, W, R, S, stride, pad): issue 28's shapes at Z = 1 and 32, and ResNet-50's stride-2 3x3
# and 1x1 layers (bench/conv_suite.py's CONV_SHAPES without 1024 @ 56² and 256 @ 128²).
SHAPES = [
    (1, 64, 64, 56, 56, 3, 3, 1, 1), (1, 256, 256, 56, 56, 3, 3, 1, 1), (1, 256, 256, 8, 8, 3, 3, 1, 1),
    (1, 256, 256, 32, 32, 3, 3, 1, 1), (32, 64, 64, 56, 56, 3, 3, 1, 1), (32, 256, 256, 56, 56, 3, 3, 1, 1),
    (32, 256, 256, 8, 8, 3, 3, 1, 1), (32, 256, 256, 32, 32, 3, 3, 1, 1),
    (32, 128, 128, 56, 56, 3, 3, 2, 1), (32, 256, 64, 56, 56, 1, 1, 1, 0),
    (32, 256, 1024, 14, 14, 1, 1, 1, 0),
]
QUICK_SHAPES = [1, 2]
# --dtype: (torch type, element type of the generated kernels); conv_nhwc.tc's TYPE is the name.
DTYPES = {"half": (torch.float16, "f16"), "bfloat16": (torch.bfloat16, "bf16")}
# Spatial tiles of 128 output pixels (TZ, TP, TQ) the default candidates are chosen from.
TILES_128 = [(1, 8, 16), (1, 4, 32), (1, 16, 8), (2, 8, 8), (2, 4, 16), (4, 4, 8)]
TILES_64 = [(1, 8, 8), (1, 4, 16), (1, 2, 32), (2, 4, 8)]
# conv_nhwc.tc: (TM, TN, TK, warps, stages), those with TN up to max(CO, 64) (bench/conv_suite.py's list).
NHWC_CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 3), (128, 64, 32, 4, 3)]
# conv_nhwc_desc.tc (tensor descriptors; stride 1): (TP, TQ, TN, TK, warps, stages), those with TN up to
# max(CO, 64): bench/conv_suite.py's candidates (rings of bulk tensor copies feeding wgmma, the default on
# sm_90a).
DESC_CONFIGS = [(8, 16, 128, 64, 8, 4), (8, 16, 256, 64, 8, 3), (8, 16, 128, 64, 4, 4), (8, 16, 64, 64, 4, 4)]


def label(z, ci, co, h, w, r, s, stride, pad):
    return f"Z{z} {ci}->{co} {h}x{w} {r}x{s}" + (f" s{stride}" if stride != 1 else "")


def waste(tile, z, p, q):
    tz, tp, tq = tile
    return math.ceil(z / tz) * tz * math.ceil(p / tp) * tp * math.ceil(q / tq) * tq / (z * p * q)


def least_waste(tiles, cs, count):
    return sorted(tiles, key=lambda t: (waste(t, cs.z, cs.p, cs.q), tiles.index(t)))[:count]


def default_tma_candidates(cs, sms):
    """(tile, TN, warps): the two 128-pixel tiles that waste the least, with the two widest TN up to
    CO (64 at least); where those leave SMs idle, also the best 64-pixel tile with 4 warps."""
    widths = [tn for tn in (64, 128, 256) if tn <= max(64, cs.co)][-2:]
    out = [(t, tn, 8) for t in least_waste(TILES_128, cs, 2) for tn in widths]
    tile = out[0][0]
    programs = math.ceil(cs.z / tile[0]) * math.ceil(cs.p / tile[1]) * math.ceil(cs.q / tile[2])
    if programs * math.ceil(cs.co / widths[-1]) < sms:
        out += [(t, tn, 4) for t in least_waste(TILES_64, cs, 1) for tn in widths]
    return out


def parse_tma(text):
    """TZxTPxTQ:TN[:WARPS] (8 warps by default)."""
    parts = text.split(":")
    warps = int(parts[2]) if len(parts) > 2 else 8
    return tuple(int(v) for v in parts[0].split("x")), int(parts[1]), warps


_compiled = {}


def tma_kernel(cfg, tmpdir):
    """The compiled kernel of generator configuration cfg (dict), written once per configuration."""
    key = tuple(sorted(cfg.items()))
    if key not in _compiled:
        path = tmpdir / ("conv_nhwc_tma_{}x{}x{}_{}_w{}s{}_st{}{}_{}_{}_{}.tir".format(
            *cfg["tile"], cfg["tn"], cfg["warps"], cfg["stages"], *cfg["stride"], cfg["dtype"], cfg["store"],
            cfg["b_major"]))
        path.write_text(gen.generate(**cfg))
        _compiled[key] = tritonc.compile(str(path), num_warps=cfg["warps"])
    return _compiled[key]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="two shapes")
    ap.add_argument("--shapes", help="comma-separated indices into SHAPES")
    ap.add_argument("--tma", help="TMA candidates TZxTPxTQ:TN[:WARPS],... (default: chosen per shape)")
    ap.add_argument("--stages", type=int, default=4)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="half")
    ap.add_argument("--variants", default="n:st,n:tma,k:st",
                    help="B layout and epilogue of each TMA candidate: n (filter (R*S) x CI x CO, a wgmma "
                         "per 64 output channels) or k (CO x (R*S) x CI, PyTorch's channels_last weight, one "
                         "wgmma of N = TN); st (masked st.global) or tma (bulk tensor stores, n only)")
    ap.add_argument("--budget", type=float, default=230,
                    help="seconds: no shape is started after this (default 230, to end within 5 minutes)")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    torch.backends.cudnn.benchmark = True
    timer = Timer(warmup=5, runs=args.runs)
    tmpdir = Path(tempfile.mkdtemp(prefix="conv_tma_explore"))
    indices = [int(i) for i in args.shapes.split(",")] if args.shapes else (
        QUICK_SHAPES if args.quick else range(len(SHAPES)))
    dtype, tir_type = DTYPES[args.dtype]
    started = time.perf_counter()
    rows = []
    for index in indices:
        if time.perf_counter() - started > args.budget:
            print(f"!! budget of {args.budget:.0f} s spent: shape {index} and later ones left out", flush=True)
            break
        z, ci, co, h, w, r, s, stride, pad = shape = SHAPES[index]
        cs = ConvShape(z, ci, h, w, co, r, s, (stride, stride), (pad, pad))
        name = label(*shape)
        x = torch.randn(z, ci, h, w, device="cuda", dtype=dtype)
        weight = torch.randn(co, ci, r, s, device="cuda", dtype=dtype) / (cs.k ** 0.5)
        x_nhwc = x.to(memory_format=torch.channels_last)
        w_nhwc = weight.to(memory_format=torch.channels_last)
        ref = F.conv2d(x, weight, stride=stride, padding=pad)
        flops = 2.0 * cs.m * cs.n * cs.k
        runs, notes = {}, {}

        def add(provider, run, out=None):
            """Runs provider once into out (poisoned first; None: run() returns its result) and
            keeps it for timing if it matches torch."""
            if out is not None:
                out.fill_(float("nan"))
            try:
                result = run()
                torch.cuda.synchronize()
            except (tritonc.LaunchError, tritonc.CompileError) as e:
                print(f"!! {name}: {provider} does not run: {str(e).splitlines()[0]}", flush=True)
                return
            err = relative_error(result if out is None else out, ref)
            if not err < 2e-2:  # NaN too
                print(f"!! {name}: {provider} is wrong (relative error {err:.2e}); left out", flush=True)
                return
            runs[provider], notes[provider] = run, f"err {err:.1e}"

        # TMA kernels: X as (Z, H, W, CI) with its channels_last strides, the filter as (R*S) x CI x CO.
        wt = weight.permute(2, 3, 1, 0).reshape(r * s, ci, co).contiguous()
        sms = torch.cuda.get_device_properties(0).multi_processor_count
        candidates = ([parse_tma(t) for t in args.tma.split(",")] if args.tma
                      else default_tma_candidates(cs, sms))
        variants = [v.split(":") for v in args.variants.split(",")]
        for (tile, tn, warps), (b_major, store) in [(c, v) for c in candidates for v in variants]:
            cfg = dict(tile=tile, tn=tn, warps=warps, stages=args.stages, stride=(stride, stride),
                       dtype=tir_type, store=store, b_major=b_major)
            provider = "TMA {}x{}x{}:{}:w{}:{}-{}".format(*tile, tn, warps, b_major, store)
            try:
                kern = tma_kernel(cfg, tmpdir)
            except (tritonc.CompileError, AssertionError) as e:  # AssertionError: the generator refuses it
                why = (str(e) or type(e).__name__).splitlines()[0]
                print(f"   {name}: {provider} does not compile: {why}", flush=True)
                continue
            y = torch.empty(z, co, cs.p, cs.q, device="cuda", dtype=dtype, memory_format=torch.channels_last)
            # K-major B reads the channels_last weight (CO, R, S, CI in memory) as CO x (R*S) x CI.
            filt = ((w_nhwc, w_nhwc.stride(0), w_nhwc.stride(3)) if b_major == "k"
                    else (wt, wt.stride(0), wt.stride(1)))
            kargs = (x_nhwc, filt[0], y, z, h, w, ci, co, r, s, cs.p, cs.q, pad, pad, 1, 1,
                     x_nhwc.stride(0), x_nhwc.stride(2), x_nhwc.stride(3), filt[1], filt[2],
                     y.stride(0), y.stride(2), y.stride(3))
            grid = gen.grid(cfg, z, cs.p, cs.q, co)
            add(provider, lambda kern=kern, grid=grid, kargs=kargs: kern[grid](*kargs), y)

        # conv_nhwc.tc (cp.async gathers of A's rows), the filter as (R*S*CI) x CO.
        bmat = weight.permute(2, 3, 1, 0).reshape(cs.k, co).contiguous()
        for tm, tn, tk, warps, stages in [c for c in NHWC_CONFIGS if c[1] <= max(64, co)]:
            provider = f"conv_nhwc.tc {tm}x{tn}x{tk}"
            try:
                kern = tritonc.compile(str(KERNELS / "conv_nhwc.tc"), num_warps=warps, num_stages=stages,
                                       defines={"TYPE": args.dtype, "ACC": "float", "TM": tm, "TN": tn,
                                                "TK": tk})
            except tritonc.CompileError as e:
                why = (str(e) or type(e).__name__).splitlines()[0]
                print(f"   {name}: {provider} does not compile: {why}", flush=True)
                continue
            y = torch.empty(z, co, cs.p, cs.q, device="cuda", dtype=dtype, memory_format=torch.channels_last)
            kargs = cs.nhwc_arguments(x_nhwc, bmat, y, (x_nhwc.stride(0), x_nhwc.stride(2), x_nhwc.stride(3)),
                                      bmat.stride(0), (y.stride(0), y.stride(2), y.stride(3)),
                                      torch.empty(1, device="cuda", dtype=torch.float32),
                                      torch.zeros(1, device="cuda", dtype=torch.int32))
            grid = cs.grid(tm, tn, 1)
            add(provider, lambda kern=kern, grid=grid, kargs=kargs: kern[grid](*kargs), y)

        # conv_nhwc_desc.tc: the channels_last weight (CO, R, S, CI in memory) read as CO x (R*S) x CI.
        for tp, tq, tn, tk, warps, stages in [c for c in DESC_CONFIGS if stride == 1 and c[2] <= max(64, co)]:
            provider = f"conv_nhwc_desc.tc {tp}x{tq}x{tn}x{tk}:w{warps}s{stages}"
            try:
                kern = tritonc.compile(str(KERNELS / "conv_nhwc_desc.tc"), num_warps=warps, num_stages=stages,
                                       defines={"TYPE": args.dtype, "ACC": "float", "TP": tp, "TQ": tq,
                                                "TN": tn, "TK": tk})
            except tritonc.CompileError as e:
                why = (str(e) or type(e).__name__).splitlines()[0]
                print(f"   {name}: {provider} does not compile: {why}", flush=True)
                continue
            y = torch.empty(z, co, cs.p, cs.q, device="cuda", dtype=dtype, memory_format=torch.channels_last)
            kargs = cs.desc_arguments(x_nhwc, w_nhwc, y, x_nhwc.stride()[:1] + x_nhwc.stride()[2:],
                                      w_nhwc.stride(0), y.stride()[:1] + y.stride()[2:],
                                      torch.empty(1, device="cuda", dtype=torch.float32),
                                      torch.zeros(1, device="cuda", dtype=torch.int32))
            grid = cs.desc_grid(tp, tq, tn)
            add(provider, lambda kern=kern, grid=grid, kargs=kargs: kern[grid](*kargs), y)

        add("cuDNN NHWC", lambda: F.conv2d(x_nhwc, w_nhwc, stride=stride, padding=pad))
        seconds = timer.compare(runs, rounds=args.rounds)
        tflops = {p: flops / t / 1e12 for p, t in seconds.items()}
        cudnn = tflops.get("cuDNN NHWC")
        best_tma = max((p for p in tflops if p.startswith("TMA")), key=tflops.get, default=None)
        best_nhwc = max((p for p in tflops if p.startswith("conv_nhwc.tc")), key=tflops.get, default=None)
        best_desc = max((p for p in tflops if p.startswith("conv_nhwc_desc")), key=tflops.get, default=None)
        print(f"{name}  ({time.perf_counter() - started:.0f} s)", flush=True)
        for p in sorted(tflops, key=tflops.get, reverse=True):
            ratio = f"{tflops[p] / cudnn:.2f}x cuDNN" if cudnn else ""
            print(f"    {p:<28} {tflops[p]:7.1f} TFLOP/s  {ratio:>12}  {notes[p]}", flush=True)
        rows.append((name, best_tma, best_nhwc, best_desc, tflops))

    print(f"\n{'shape':<29} {'best TMA (TFLOP/s, x cuDNN)':<38} {'conv_nhwc.tc (x cuDNN)':<28} "
          f"{'conv_nhwc_desc.tc (x cuDNN)':<36} cuDNN")
    ratios = {"TMA": [], "nhwc": [], "desc": []}
    for name, best_tma, best_nhwc, best_desc, tflops in rows:
        cudnn = tflops.get("cuDNN NHWC", float("nan"))
        cells = []
        for key, p in (("TMA", best_tma), ("nhwc", best_nhwc), ("desc", best_desc)):
            if p is None:
                cells.append("-")
                continue
            ratios[key].append(tflops[p] / cudnn)
            cells.append(f"{tflops[p]:6.1f} ({tflops[p] / cudnn:.2f}x) {p.split(' ', 1)[1]}")
        print(f"{name:<29} {cells[0]:<38} {cells[1]:<28} {cells[2]:<36} {cudnn:6.1f}")
    for key, values in ratios.items():
        if values:
            print(f"geomean {key} / cuDNN: {math.exp(sum(map(math.log, values)) / len(values)):.2f}x "
                  f"over {len(values)} shapes")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
