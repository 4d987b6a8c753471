import sys, torch
sys.path.insert(0, "bench")
import torch.nn.functional as F
from common import Timer, compile_kernel, relative_error, MatmulConfig
from conv_suite import DescCandidate, _desc_launch, _problem
from matmul_suite import _matmul_launcher
torch.backends.cudnn.benchmark = True
timer = Timer(warmup=5, runs=30)
def report(shape, runs, flops):
    sec = timer.compare(runs, rounds=3)
    print(f"shape {shape}")
    for name, t in sec.items():
        print(f"  {name}: {flops / t / 1e12:.1f} TFLOP/s  {t*1e6:.1f} us", flush=True)
# descriptor tiles without the W=56 waste
shape = (32, 256, 256, 56, 56, 3, 3, 1, 1)
cs, x, weight, ref = _problem(shape, torch.float16)
xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
y = torch.empty_like(ref).to(memory_format=torch.channels_last)
runs = {"cudnn_nhwc": lambda: F.conv2d(xn, wn, padding=1)}
for tp, tq, tn, w, s in [(8, 16, 256, 8, 3), (8, 8, 256, 4, 4), (8, 8, 256, 4, 3), (8, 8, 256, 8, 4), (16, 8, 256, 8, 3)]:
    cfg = DescCandidate("conv_nhwc_desc.tc", (("TP", tp), ("TQ", tq), ("TN", tn), ("TK", 64)), w, s)
    try:
        kern = compile_kernel(cfg.file, {"TYPE": "half", "ACC": "float", **dict(cfg.blocks)}, w, s)
        run = _desc_launch(cs, cfg, kern, xn, wn, y); run(); torch.cuda.synchronize()
        print(str(cfg), "err", relative_error(y, ref)); runs[str(cfg)] = run
    except Exception as e:
        print(str(cfg), "FAILED", str(e)[:300])
report(shape, runs, 2.0 * cs.m * cs.n * cs.k)
# 1x1 layers as GEMMs: A (M x CI), B^T = filter (CO x CI)
sms = torch.cuda.get_device_properties(0).multi_processor_count
for shape in [(32, 256, 64, 56, 56, 1, 1, 1, 0), (32, 256, 1024, 14, 14, 1, 1, 1, 0)]:
    cs, x, weight, ref = _problem(shape, torch.float16)
    xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
    m, n, k = cs.m, cs.co, cs.ci
    a = torch.randn(m, k, device="cuda", dtype=torch.float16); b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    runs = {"cudnn_nhwc": lambda: F.conv2d(xn, wn), "cublas": lambda: a @ b}
    for mc in [MatmulConfig("matmul", 128, 64, 64, 4, 3), MatmulConfig("matmul", 128, 128, 64, 4, 4), MatmulConfig("matmul", 128, 256, 64, 8, 3),
               MatmulConfig("persistent", 128, 64, 64, 4, 4), MatmulConfig("persistent", 128, 128, 64, 4, 4), MatmulConfig("persistent", 256, 64, 64, 8, 3),
               MatmulConfig("persistent", 128, 256, 64, 8, 3), MatmulConfig("streamk", 128, 128, 64, 4, 4), MatmulConfig("streamk", 128, 256, 64, 8, 3)]:
        if mc.tn > n: continue
        defines = {"TYPE": "half", "TM": mc.tm, "TN": mc.tn, "TK": mc.tk}
        if mc.kernel != "matmul": defines["GROUP_M"] = 8
        try:
            kern = compile_kernel(mc.file, defines, mc.warps, mc.stages)
            r = _matmul_launcher(kern, mc, a, b, c, m, n, k, k, n, n); r(); torch.cuda.synchronize()
            e = relative_error(c, a @ b)
            runs[f"{mc} err {e:.0e}"] = r
        except Exception as ex:
            print(mc, "FAILED", str(ex)[:300])
    report(shape, runs, 2.0 * m * n * k)
