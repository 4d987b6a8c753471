"""Times every fp32 (FMA) candidate of bench/matmul_suite.py at 4096^3 against cuBLAS, interleaved."""
import sys, torch
sys.path.insert(0, "bench")
from common import Timer, relative_error
from matmul_suite import FLOAT_CONFIGS, _matmul_builder
torch.backends.cuda.matmul.allow_tf32 = False
n = 4096
a, b = torch.randn(n, n, device="cuda"), torch.randn(n, n, device="cuda")
c = torch.zeros(n, n, device="cuda")
ref = a @ b
build = _matmul_builder(torch.float32, {}, a, b, c, n, n, n, n, n, n)
fns = {"cuBLAS": lambda: torch.mm(a, b)}
for cfg in FLOAT_CONFIGS:
    try:
        _, run = build(cfg)
        run(); torch.cuda.synchronize()
        print(f"{cfg}: relative error {relative_error(c, ref):.1e}", flush=True)
        fns[str(cfg)] = run
    except Exception as e:
        print(f"{cfg}: {type(e).__name__}: {str(e)[:200]}", flush=True)
times = Timer(runs=30).compare(fns, rounds=3)
for name, t in sorted(times.items(), key=lambda kv: kv[1]):
    print(f"{name}: {2 * n**3 / t / 1e12:.1f} TFLOP/s", flush=True)
