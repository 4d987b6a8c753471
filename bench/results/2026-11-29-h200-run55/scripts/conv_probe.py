"""Probe: Z32 256@56^2 3x3 conv descriptor kernel vs the same-shape GEMM vs cuDNN (timing only)."""
import sys, torch
sys.path.insert(0, "bench")
import torch.nn.functional as F
from common import Timer, compile_kernel, relative_error
from conv_suite import DescCandidate, _desc_launch, _problem
from matmul_suite import _matmul_launcher
from common import MatmulConfig
torch.backends.cudnn.benchmark = True
timer = Timer(warmup=5, runs=30)
which = sys.argv[1] if len(sys.argv) > 1 else "all"
for shape in [(32, 256, 256, 56, 56, 3, 3, 1, 1), (32, 256, 256, 32, 32, 3, 3, 1, 1)]:
    cs, x, weight, ref = _problem(shape, torch.float16)
    xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
    y = torch.empty_like(ref).to(memory_format=torch.channels_last)
    runs = {"cudnn_nhwc": lambda: F.conv2d(xn, wn, padding=1)}
    for tp, tq, tn, w, s in [(8, 16, 256, 8, 3), (8, 16, 256, 8, 4), (8, 16, 128, 4, 4), (8, 16, 128, 8, 4), (16, 16, 128, 8, 3)]:
        cfg = DescCandidate("conv_nhwc_desc.tc", (("TP", tp), ("TQ", tq), ("TN", tn), ("TK", 64)), w, s)
        try:
            kern = compile_kernel(cfg.file, {"TYPE": "half", "ACC": "float", **dict(cfg.blocks)}, w, s)
            run = _desc_launch(cs, cfg, kern, xn, wn, y); run(); torch.cuda.synchronize()
            print(str(cfg), "err", relative_error(y, ref))
            runs[str(cfg)] = run
        except Exception as e:
            print(str(cfg), "FAILED", str(e)[:300])
    m, n, k = cs.m, cs.n, cs.k
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(k, n, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    runs["cublas"] = lambda: a @ b
    for mc in [MatmulConfig("matmul", 128, 256, 64, 8, 3), MatmulConfig("persistent", 128, 256, 64, 8, 3), MatmulConfig("persistent", 128, 128, 64, 4, 4)]:
        defines = {"TYPE": "half", "TM": mc.tm, "TN": mc.tn, "TK": mc.tk}
        if mc.kernel != "matmul":
            defines["GROUP_M"] = 8
        kern = compile_kernel(mc.file, defines, mc.warps, mc.stages)
        runs["gemm " + str(mc)] = _matmul_launcher(kern, mc, a, b, c, m, n, k, k, n, n)
    sec = timer.compare(runs, rounds=3)
    flops = 2.0 * m * n * k
    print(f"shape {shape} M={m} N={n} K={k}")
    for name, t in sec.items():
        print(f"  {name}: {flops / t / 1e12:.1f} TFLOP/s  {t*1e6:.1f} us")
