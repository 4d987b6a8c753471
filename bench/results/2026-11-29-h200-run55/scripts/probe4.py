import sys, torch
sys.path.insert(0, "bench")
import conv_suite as cv
import matmul_suite
from common import Timer
from measurements import Results
orig = cv.autotune
def loud_autotune(results, timer, what, candidates, build, check, **kw):
    seen = []
    def b2(cfg):
        kern, run = build(cfg)
        seen.append((cfg, run))
        return kern, run
    best = orig(results, timer, what, candidates, b2, check, **kw)
    rows = []
    for cfg, run in seen:
        try:
            rows.append((timer(run, runs=20, warmup=2), str(cfg)))
        except Exception as e:
            pass
    for t, c in sorted(rows)[:8]:
        print(f"     {what}: {c}: {t*1e6:.1f} us", flush=True)
    return best
cv.autotune = loud_autotune
which = sys.argv[1]
cv.CONV_SHAPES = [(32, 64, 64, 56, 56, 3, 3, 1, 1), (32, 256, 256, 56, 56, 3, 3, 1, 1), (32, 256, 256, 8, 8, 3, 3, 1, 1),
                  (32, 128, 128, 56, 56, 3, 3, 2, 1), (1, 256, 256, 32, 32, 3, 3, 1, 1)]
cv.CONV_NHWC_CONFIGS += [(128, 64, 32, 4, 2), (128, 64, 64, 4, 2), (128, 128, 64, 4, 2), (64, 128, 64, 4, 2),
                         (128, 128, 32, 4, 2), (128, 128, 32, 4, 3), (64, 64, 64, 4, 2)]
cv.CONV_NHWC_DESC_CONFIGS += [(8, 16, 128, 64, 4, 2), (8, 16, 128, 64, 4, 3), (8, 16, 64, 64, 4, 2), (8, 16, 64, 64, 4, 3),
                              (8, 8, 128, 64, 4, 2), (8, 16, 256, 64, 8, 2)]
cv.CONV_NHWC_SMALL_CONFIGS += [(64, 64, 64, 4, 2, 4), (64, 128, 64, 4, 2, 4), (128, 128, 64, 4, 2, 2),
                               (128, 128, 64, 4, 2, 4), (64, 64, 64, 4, 2, 9)]
cv.CONV_DGRAD_CONFIGS += [(128, 128, 64, 4, 2), (64, 128, 64, 4, 2), (128, 64, 64, 4, 2), (128, 256, 64, 8, 2)]
cv.CONV_WGRAD_CONFIGS += [(128, 128, 64, 4, 2), (64, 128, 64, 4, 2), (128, 128, 32, 4, 2), (128, 256, 64, 8, 2)]
cv.CONV_DESC_DGRAD_CONFIGS += [(8, 16, 128, 64, 4, 2), (8, 8, 128, 64, 4, 2), (8, 16, 64, 64, 4, 2)]
cv.CONV_DESC_WGRAD_CONFIGS += [(8, 8, 128, 128, 4, 2), (8, 8, 64, 128, 4, 2), (8, 16, 128, 128, 4, 2)]
results = Results(); timer = Timer(warmup=5, runs=30)
getattr(cv, which)(results, timer, False)
for p in results.points:
    pass
