import sys, torch
sys.path.insert(0, "bench")
import torch.nn.functional as F
from common import Timer, compile_kernel, relative_error
from conv_suite import _problem
torch.backends.cudnn.benchmark = True
timer = Timer(warmup=5, runs=40)
t1 = torch.zeros(1, device="cuda")
mode = sys.argv[1] if len(sys.argv) > 1 else "time"
for shape in [(1, 256, 256, 8, 8, 3, 3, 1, 1), (1, 256, 256, 32, 32, 3, 3, 1, 1)]:
    cs, x, weight, ref = _problem(shape, torch.float16)
    xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
    bmat = weight.permute(2, 3, 1, 0).reshape(cs.k, cs.co).contiguous()
    out = torch.empty(cs.z, cs.co, cs.p, cs.q, device="cuda", dtype=torch.float16, memory_format=torch.channels_last)
    runs = {"empty add": lambda: t1.add_(1), "cudnn": lambda: F.conv2d(xn, wn, padding=1)}
    cfgs = [(64, 32, 64, 4, 3, 9), (64, 32, 64, 4, 4, 9), (64, 32, 64, 4, 2, 9), (64, 64, 64, 4, 3, 4), (64, 64, 64, 4, 4, 4),
            (64, 32, 64, 4, 3, 18), (64, 64, 64, 4, 2, 9), (64, 64, 64, 4, 3, 9), (64, 32, 64, 4, 3, 36), (64, 64, 64, 4, 2, 18),
            (64, 32, 64, 4, 3, 1), (64, 64, 64, 4, 3, 1), (64, 32, 32, 4, 3, 9), (64, 32, 32, 4, 4, 18)]
    for tm, tn, tk, w, s, split in cfgs:
        part, cnt = cs.nhwc_workspace(tm, tn, split)
        args = cs.nhwc_arguments(xn, bmat, out, (xn.stride(0), xn.stride(2), xn.stride(3)), bmat.stride(0),
                                 (out.stride(0), out.stride(2), out.stride(3)),
                                 torch.empty(max(part, 1), device="cuda", dtype=torch.float32),
                                 torch.zeros(max(cnt, 1), device="cuda", dtype=torch.int32))
        d = {"TYPE": "half", "ACC": "float", "TM": tm, "TN": tn, "TK": tk}
        if split > 1: d["SPLIT"] = split
        try:
            kern = compile_kernel("conv_nhwc.tc", d, w, s)
        except Exception as e:
            print("FAILED", tm, tn, tk, w, s, split, str(e)[:200]); continue
        grid = cs.grid(tm, tn, split)
        r = (lambda kern=kern, grid=grid, args=args: kern[grid](*args))
        out.fill_(float("nan")); r(); torch.cuda.synchronize()
        e = relative_error(out, ref)
        if not e < 2e-2: print("BAD", tm, tn, tk, w, s, split, e); continue
        runs[f"{tm}x{tn}x{tk} w{w} s{s} split{split}"] = r
    if mode == "ncu":
        for _ in range(3):
            for r in runs.values(): r()
        torch.cuda.synchronize(); continue
    sec = timer.compare(runs, rounds=3)
    fl = 2.0 * cs.m * cs.n * cs.k
    print(f"shape {shape}")
    for name, t in sorted(sec.items(), key=lambda kv: kv[1]):
        print(f"  {name}: {fl / t / 1e12:.1f} TFLOP/s  {t*1e6:.2f} us  {sec['cudnn']/t:.2f}x", flush=True)
