"""Spot check of matmul.tc configurations against cuBLAS, outside the full sweep.

    export PYTHONPATH=$(scripts/build-python.sh)
    python3 bench/spot_matmul.py --dtype float --sizes 4096,8192 --configs 128x128x16w8s2,64x64x32w4s2

Each configuration is [p|G|S]TMxTNxTKwWARPSsSTAGES[c][g][_GN][@OPTION=VALUE+...]: a prefix "p" for
matmul_persistent.tc (one program per SM at most, tiles spread evenly as bench/matmul_suite.py launches
it), "G" for matmul_grouped.tc, "S" for matmul_streamk.tc (one program per SM, C zeroed inside the timed
call, as bench/matmul_suite.py launches it), a suffix "c" to fill the operand buffers with cp.async
instead of bulk tensor copies (tma=False), "g" to write C with st.global instead of bulk tensor stores
(tma_store=False), "_G4" for GROUP_M=4 (grouped, stream-K and persistent kernels only; 8 by default for
grouped and stream-K), "@..." for other
options of tritonc.compile (e.g. @register_stages=3); e.g.
p128x256x64w8s3g_G4, or G256x128x16w8s3 against G256x128x16w8s3@register_stages=3, or the fp32 stream-K
tile S256x128x16w8s3 against S256x128x16w8s3c. Same timer as bench.py
(bench/common.py): fresh torch.randn inputs, CUDA events, L2 flushed before each run; TF32 off for float.
--k K makes the GEMMs SIZE x SIZE x K instead of cubes, A's rows padded to a multiple of 16 elements (so
pointers and strides stay aligned while K need not be: e.g. --sizes 4096 --k 4104).
cuBLAS and the configurations are timed interleaved (Timer.compare: --rounds turns of --runs runs in
all, median). Each result is checked against torch (relative max error printed) before it is timed.
--warp-specialize times every configuration also with warp_specialize=True (as CONFIG@warp_specialize=True,
side by side): the note says whether the launched variant was split ("ws": its PTX sets register budgets)
and the driver's registers and spill bytes per thread.
"""
import argparse
import re
import time
from pathlib import Path

import torch

import tritonc
from common import Timer

KERNELS = Path(__file__).resolve().parents[1] / "kernels"
DTYPES = {"half": torch.float16, "bfloat16": torch.bfloat16, "float": torch.float32}


def parse_config(text):
    m = re.fullmatch(r"([pGS]?)(\d+)x(\d+)x(\d+)w(\d+)s(\d+)(c?)(g?)(?:_G(\d+))?(?:@(.+))?", text)
    if not m:
        raise ValueError(f"bad configuration {text!r}: expected "
                         "[p|G|S]TMxTNxTKwWARPSsSTAGES[c][g][_GN][@OPTION=VALUE+...]")
    tm, tn, tk, warps, stages = (int(g) for g in m.groups()[1:6])
    options = {}
    for item in (m.group(10).split("+") if m.group(10) else []):
        name, _, value = item.partition("=")
        options[name] = {"True": True, "False": False}.get(value, int(value) if value.isdigit() else value)
    group_m = m.group(9) or ("8" if m.group(1) in ("G", "S") else None)
    return dict(persistent=m.group(1) == "p", grouped=m.group(1) == "G", streamk=m.group(1) == "S",
                tm=tm, tn=tn, tk=tk, warps=warps, stages=stages, tma=m.group(7) != "c",
                tma_store=m.group(8) != "g", group_m=group_m, options=options)


def launcher(cfg, dtype_name, a, b, c, size, k, lda):
    file = ("matmul_persistent.tc" if cfg["persistent"] else
            "matmul_grouped.tc" if cfg["grouped"] else
            "matmul_streamk.tc" if cfg["streamk"] else "matmul.tc")
    defines = {"TYPE": dtype_name, "TM": cfg["tm"], "TN": cfg["tn"], "TK": cfg["tk"]}
    if cfg["group_m"]:
        defines["GROUP_M"] = int(cfg["group_m"])
    kern = tritonc.compile(str(KERNELS / file), num_warps=cfg["warps"], num_stages=cfg["stages"],
                           defines=defines, **{"tma": cfg["tma"], "tma_store": cfg["tma_store"],
                                               **cfg["options"]})
    gm, gn = -(-size // cfg["tm"]), -(-size // cfg["tn"])
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    if cfg["streamk"]:
        # The split tiles are added into C, which must start at zero.
        def run():
            c.zero_()
            kern[(sms,)](a, b, c, size, size, k, lda, size, size)
        return kern, run
    if cfg["persistent"]:
        grid = (-(-gm * gn // -(-gm * gn // sms)),)
    elif cfg["grouped"]:
        grid = (gm * gn,)
    else:
        grid = (gm, gn)
    return kern, lambda: kern[grid](a, b, c, size, size, k, lda, size, size)


def variant_note(kern):
    """Whether the variant the launches run was warp-specialized, its registers and spills."""
    spec = kern.last_specialization
    attrs = kern.attributes(spec)
    split = "setmaxnreg" in kern.variant_ptx(spec)
    return (f"{'ws, ' if split else ''}{attrs['num_regs']} registers"
            f"{', %d spill bytes' % attrs['local_bytes'] if attrs['local_bytes'] else ''}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="half")
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--configs", default="128x256x64w8s3")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--k", type=int, default=None,
                    help="K of SIZE x SIZE x K GEMMs (default: SIZE); A's rows padded to 16 elements")
    ap.add_argument("--warp-specialize", action="store_true",
                    help="also time every configuration with warp_specialize=True")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = DTYPES[args.dtype]
    timer = Timer(warmup=3, runs=args.runs)
    try:
        texts = args.configs.split(",")
        if args.warp_specialize:
            texts = [t for text in texts
                     for t in (text, text + ("+" if "@" in text else "@") + "warp_specialize=True")]
        configs = {text: parse_config(text) for text in texts}
    except ValueError as e:
        ap.error(str(e))
    for size in (int(s) for s in args.sizes.split(",")):
        k = args.k or size
        lda = k if args.k is None else -(-k // 16) * 16
        a_rows = torch.randn(size, lda, device="cuda", dtype=dtype)  # A: its first k columns
        a = a_rows[:, :k]
        b = torch.randn(k, size, device="cuda", dtype=dtype)
        ref = (a @ b).float()
        flops = 2.0 * size * size * k
        runs = {"cuBLAS": lambda: a @ b}
        notes = {}
        for text, cfg in configs.items():
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            kern, run = launcher(cfg, args.dtype, a_rows, b, c, size, k, lda)
            torch.cuda.synchronize()
            start = time.perf_counter()
            run()  # compiles the specialized variant and loads it (cold with a fresh cache)
            torch.cuda.synchronize()
            first_ms = (time.perf_counter() - start) * 1e3
            err = ((c.float() - ref).abs().max() / ref.abs().max()).item()
            notes[text] = (f"relative error {err:.1e}, first launch {first_ms:.0f} ms, "
                           f"{variant_note(kern)}")
            runs[text] = run
        times = timer.compare(runs, rounds=args.rounds)
        print(f"{args.dtype} {size}^3:" if k == size else f"{args.dtype} {size}x{size}x{k}:")
        for name, seconds in times.items():
            extra = f" ({notes[name]})" if name in notes else ""
            print(f"  {name}: {flops / seconds / 1e12:.1f} TFLOP/s{extra}", flush=True)


if __name__ == "__main__":
    main()
