import sys, torch
sys.path.insert(0, "bench")
from common import compile_kernel, MatmulConfig
from conv_suite import DescCandidate, _desc_launch, _problem
from matmul_suite import _matmul_launcher
cs, x, weight, ref = _problem((32, 256, 256, 56, 56, 3, 3, 1, 1), torch.float16)
xn = x.to(memory_format=torch.channels_last); wn = weight.to(memory_format=torch.channels_last)
y = torch.empty_like(ref).to(memory_format=torch.channels_last)
cfg = DescCandidate("conv_nhwc_desc.tc", (("TP", 8), ("TQ", 16), ("TN", 256), ("TK", 64)), 8, 3)
kern = compile_kernel(cfg.file, {"TYPE": "half", "ACC": "float", **dict(cfg.blocks)}, 8, 3)
run = _desc_launch(cs, cfg, kern, xn, wn, y)
m, n, k = cs.m, cs.n, cs.k
a = torch.randn(m, k, device="cuda", dtype=torch.float16); b = torch.randn(k, n, device="cuda", dtype=torch.float16)
c = torch.empty(m, n, device="cuda", dtype=torch.float16)
mc = MatmulConfig("matmul", 128, 256, 64, 8, 3)
g = _matmul_launcher(compile_kernel(mc.file, {"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}, 8, 3), mc, a, b, c, m, n, k, k, n, n)
for _ in range(3):
    run(); g()
torch.cuda.synchronize()
