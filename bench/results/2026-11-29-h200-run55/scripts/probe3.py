import sys, torch
sys.path.insert(0, "bench")
import torch.nn.functional as F
from common import Timer, compile_kernel, relative_error
from conv_suite import _problem
torch.backends.cudnn.benchmark = True
timer = Timer(warmup=5, runs=30)
CFGS = [(128, 256, 64, 8, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3), (64, 128, 64, 4, 3),
        (128, 64, 64, 4, 3), (128, 64, 64, 4, 4), (128, 64, 64, 4, 2), (128, 128, 64, 4, 2), (128, 128, 64, 4, 3),
        (128, 128, 32, 4, 4), (128, 128, 32, 4, 3), (64, 64, 64, 4, 3), (64, 256, 64, 4, 3), (128, 256, 64, 8, 2),
        (256, 64, 64, 8, 3), (256, 128, 64, 8, 3), (128, 256, 32, 8, 4), (64, 128, 64, 4, 4), (128, 64, 32, 4, 4)]
for dtype in (torch.float16,):
  for shape in [(32, 256, 64, 56, 56, 1, 1, 1, 0), (32, 256, 1024, 14, 14, 1, 1, 1, 0)]:
    cs, x, weight, ref = _problem(shape, dtype)
    xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
    out = torch.empty_like(ref).to(memory_format=torch.channels_last)
    a = xn.permute(0, 2, 3, 1).reshape(cs.m, cs.ci); b = weight.reshape(cs.co, cs.ci); c = out.permute(0, 2, 3, 1).view(cs.m, cs.co)
    runs = {"cudnn_nhwc": lambda: F.conv2d(xn, wn)}
    for tm, tn, tk, w, s in CFGS:
        if tn > cs.co: continue
        for kernel in ("matmul.tc", "matmul_grouped.tc"):
            d = {"TYPE": "half", "TM": tm, "TN": tn, "TK": tk, "TRANS_B": 1}
            if kernel != "matmul.tc": d["GROUP_M"] = 8
            try:
                kern = compile_kernel(kernel, d, w, s)
            except Exception as e:
                print(kernel, tm, tn, tk, w, s, "FAILED", str(e)[:200]); continue
            gm, gn = -(-cs.m // tm), -(-cs.co // tn)
            grid = (gm, gn) if kernel == "matmul.tc" else (gm * gn,)
            r = (lambda kern=kern, grid=grid: kern[grid](a, b, c, cs.m, cs.co, cs.ci, a.stride(0), b.stride(0), c.stride(0)))
            out.fill_(float("nan")); r(); torch.cuda.synchronize()
            e = relative_error(out, ref)
            if e > 1e-2: print("BAD", kernel, tm, tn, tk, w, s, e); continue
            runs[f"{kernel} {tm}x{tn}x{tk} w{w} s{s}"] = r
    sec = timer.compare(runs, rounds=3)
    fl = 2.0 * cs.m * cs.n * cs.k
    print(f"shape {shape}")
    for name, t in sorted(sec.items(), key=lambda kv: kv[1]):
        print(f"  {name}: {fl / t / 1e12:.1f} TFLOP/s  {t*1e6:.1f} us  {sec['cudnn_nhwc']/t:.2f}x", flush=True)
