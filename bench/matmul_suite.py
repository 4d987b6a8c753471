"""Matrix-multiplication benchmarks: square fp16/bf16 sweeps, fp32 without TF32 (FMA path), and the
thesis shapes (batch-16 MLP C = A·Bᵀ and the 64×64×K covariance with split-K). Our kernels are
autotuned per shape over a few configurations, as Triton's autotune does: every candidate is checked
against torch first, timed with a short run, and the best one is timed again with the full method and
recorded with its configuration."""
from dataclasses import dataclass

import torch

import tritonc
from common import (DTYPE_NAMES, MatmulConfig, compile_kernel, relative_error)

SQUARE_SIZES = (1024, 2048, 4096, 8192)
QUICK_SQUARE_SIZES = (1024, 2048)
TUNE_RUNS = 10
# The square GEMMs' three fastest candidates are timed again against each other, interleaved: the
# clocks drift as the GPU heats up (most at 8192³), and with one 10-run timing per candidate, one after
# the other, the drift can decide between candidates that lie within a few percent.
SQUARE_FINALISTS = 3
# The MLP and covariance kernels take 10-60 us and their candidates lie within a few percent of each
# other: more runs per candidate, for the cost of a few milliseconds.
SHORT_TUNE_RUNS = 40
# The recorded comparison with the peers: five times the runs, the providers in rotation run by run,
# in ten turns. At 8192³ the chip sits at its power cap and the clocks swing (per-turn medians of one
# kernel spread 650-770 TFLOP/s in an H100 probe); with 30 runs in three turns of one provider each,
# back-to-back measurements of the same kernels gave ratios to Triton of 1.14-1.27×. At 4096³ (below
# the cap) the turns agree within 1%. Costs about 1 s per size at 8192³.
PEER_ROUNDS = 10
PEER_RUNS_FACTOR = 5

# Candidates for fp16/bf16 (wgmma path). The grouped kernel orders programs like the Triton peer.
# 128x256x64 with 8 warps has no 4-stage candidate: its rings hold 3 stages (the back end clamps 4 to 3).
HALF_CONFIGS = [
    MatmulConfig("matmul", 128, 256, 64, 8, 3),
    MatmulConfig("matmul", 128, 128, 64, 4, 3), MatmulConfig("matmul", 128, 128, 64, 4, 4),
    MatmulConfig("matmul", 128, 128, 64, 8, 3), MatmulConfig("matmul", 128, 128, 64, 8, 4),
    MatmulConfig("matmul", 64, 128, 64, 4, 3), MatmulConfig("matmul", 64, 128, 64, 4, 4),
    MatmulConfig("grouped", 128, 256, 64, 8, 3), MatmulConfig("grouped", 128, 128, 64, 8, 4),
    MatmulConfig("persistent", 128, 256, 64, 8, 3),
]
QUICK_HALF_CONFIGS = [MatmulConfig("matmul", 128, 256, 64, 8, 3), MatmulConfig("matmul", 128, 128, 64, 4, 3)]

# fp32 without TF32: FMA. TK = 16 halves the barriers per fma but needs the grouped order (spot runs at
# 4096^3, TFLOP/s: 256x128x16 s3 plain 37.2, grouped 46.6, stream-K 46.8; 256x128x8 s4 plain 45.8).
FLOAT_CONFIGS = [
    MatmulConfig("matmul", 256, 128, 8, 8, 4), MatmulConfig("matmul", 256, 128, 8, 8, 3),
    MatmulConfig("matmul", 128, 256, 8, 8, 4), MatmulConfig("matmul", 128, 256, 16, 8, 3),
    MatmulConfig("matmul", 256, 128, 16, 8, 3), MatmulConfig("matmul", 128, 128, 16, 8, 3),
    MatmulConfig("matmul", 64, 64, 16, 4, 3), MatmulConfig("grouped", 256, 128, 8, 8, 4),
    MatmulConfig("grouped", 256, 128, 16, 8, 3), MatmulConfig("grouped", 256, 128, 16, 8, 4),
    MatmulConfig("streamk", 256, 128, 16, 8, 3), MatmulConfig("streamk", 256, 128, 16, 8, 4),
]
QUICK_FLOAT_CONFIGS = [MatmulConfig("matmul", 64, 64, 16, 4, 3)]

# Batch-16 MLP, C (N×16) = A (N×N) · Bᵀ (B is 16×N): memory-bound, so small TM for enough programs.
MLP_CONFIGS = [
    MatmulConfig("matmul", 32, 16, 128, 4, 3), MatmulConfig("matmul", 32, 16, 128, 2, 4),
    MatmulConfig("matmul", 64, 16, 64, 4, 3), MatmulConfig("matmul", 64, 16, 128, 4, 4),
    MatmulConfig("matmul", 128, 16, 64, 4, 4), MatmulConfig("matmul", 16, 16, 128, 1, 4),
    # Deeper pipelines: with N = 4096 only 64 programs stream A, each needs more bytes in flight.
    MatmulConfig("matmul", 64, 16, 128, 4, 6), MatmulConfig("matmul", 64, 16, 128, 4, 8),
    MatmulConfig("matmul", 64, 16, 256, 4, 4), MatmulConfig("matmul", 64, 16, 256, 4, 3),
    MatmulConfig("matmul", 64, 16, 128, 4, 5),
]
QUICK_MLP_CONFIGS = [MatmulConfig("matmul", 64, 16, 64, 4, 3)]


@dataclass(frozen=True)
class MlpSplitKConfig:
    """The MLP shape on matmul_splitk.tc (TRANS_B=1, ATOMIC=1): TZ programs per 64 rows of C."""
    tk: int
    tz: int
    stages: int

    def __str__(self):
        return (f"matmul_splitk.tc TRANS_B=1 64x16x{self.tk} TZ={self.tz} w4 s{self.stages} "
                "CACHE_A=__evict_first")


# With N = 4096 matmul.tc has only 64 programs; splitting K gives every SM a share of A.
MLP_SPLITK_CONFIGS = [MlpSplitKConfig(tk, tz, st) for tk in (64, 128, 256) for tz in (2, 3, 4)
                      for st in (3, 4)]


@dataclass(frozen=True)
class SplitKConfig:
    tz: int
    tk: int
    warps: int
    stages: int
    tma: bool = True  # False: the operand rings fill with cp.async instead of bulk tensor copies

    def __str__(self):
        return (f"matmul_splitk.tc 64x64x{self.tk} TZ={self.tz} w{self.warps} s{self.stages} ATOMIC=2 "
                "CACHE_A=CACHE_B=__evict_first" + ("" if self.tma else " no-TMA"))


def splitk_configs(k, quick):
    """Slices of 128 to 2048 K each (the atomic forms need many programs to fill the GPU), each with
    bulk tensor copies and with cp.async: a slice of a few K steps pays the bulk copies' set-up (the
    tensor map, one thread's copies and mbarriers) without the loop to hide it (at K = 16384 on the
    H100 the fastest cp.async candidates ran 9.6-10.0 us, the fastest bulk-copy ones 10.2-10.4 us)."""
    if quick:
        return [SplitKConfig(max(1, k // 1024), 64, 4, 3)]
    shapes = ([(tz, 64, s) for tz in (k // 2048, k // 1024, k // 512, k // 256, k // 128) for s in (2, 3)] +
              [(tz, 128, s) for tz in (k // 1024, k // 512, k // 256, k // 128) for s in (2, 3)])
    return [SplitKConfig(tz, tk, 4, s, tma) for tma in (True, False) for tz, tk, s in shapes if tz >= 2]


def _matmul_defines(dtype, cfg, extra=None):
    defines = {"TYPE": DTYPE_NAMES[dtype], "TM": cfg.tm, "TN": cfg.tn, "TK": cfg.tk}
    if cfg.kernel in ("grouped", "persistent", "streamk"):
        defines["GROUP_M"] = 8
    defines.update(extra or {})
    return defines


def _matmul_launcher(kern, cfg, a, b, c, m, n, k, lda, ldb, ldc):
    gm, gn = (m + cfg.tm - 1) // cfg.tm, (n + cfg.tn - 1) // cfg.tn
    sms = torch.cuda.get_device_properties(a.device).multi_processor_count
    if cfg.kernel == "matmul":
        grid = (gm, gn)
    elif cfg.kernel == "persistent":
        # As few rounds as one program per SM allows, spread evenly: 512 tiles on 132 SMs take 4
        # rounds, so 128 programs of 4 tiles each (ran 0.6% faster than 132 programs of 3 or 4).
        rounds = -(-gm * gn // sms)
        grid = (-(-gm * gn // rounds),)
    elif cfg.kernel == "streamk":
        # One program per SM; the split tiles are added into C, which must start at zero: the
        # zeroing is part of the timed call.
        grid = (sms,)

        def run():
            c.zero_()
            kern[grid](a, b, c, m, n, k, lda, ldb, ldc)
        return run
    else:
        grid = (gm * gn,)
    return lambda: kern[grid](a, b, c, m, n, k, lda, ldb, ldc)


def _matmul_builder(dtype, compiled, a, b, c, m, n, k, lda, ldb, ldc):
    """build(cfg) -> (kernel, run) for autotune: C = A·B with the candidate's kernel, each
    configuration compiled once into `compiled`."""
    def build(cfg):
        if cfg not in compiled:
            compiled[cfg] = compile_kernel(cfg.file, _matmul_defines(dtype, cfg), cfg.warps, cfg.stages)
        kern = compiled[cfg]
        return kern, _matmul_launcher(kern, cfg, a, b, c, m, n, k, lda, ldb, ldc)
    return build


def autotune(results, timer, what, candidates, build, check, runs=TUNE_RUNS, finalists=1):
    """build(cfg) -> (kernel, run); check(run) -> None, or what is wrong with the result the run left.
    Returns (cfg, kernel, run) of the fastest correct candidate, each timed with `runs` runs.
    Candidates that do not compile or launch are skipped (and said so); a wrong result is a failure.
    With finalists > 1, the fastest few are timed again against each other, interleaved
    (Timer.compare) with twice the runs, and the fastest of that decides: for candidates that lie
    within the noise or the clock drift of one short timing each."""
    timed = []
    for cfg in candidates:
        try:
            kern, run = build(cfg)
            run()
            torch.cuda.synchronize()
        except (tritonc.CompileError, tritonc.LaunchError, ValueError) as e:
            msg = f"{what}: {cfg} skipped: {str(e).splitlines()[0]}"
            print("   " + msg, flush=True)
            results.notes.append(msg)
            continue
        err = check(run)
        if err is not None:
            msg = f"{what}: {cfg} gives a wrong result ({err})"
            print("!! " + msg, flush=True)
            results.failures.append(msg)
            continue
        timed.append((timer(run, runs=runs, warmup=2), cfg, kern, run))
    if not timed:
        raise RuntimeError(f"{what}: no configuration compiled, launched and computed correctly")
    timed.sort(key=lambda entry: entry[0])
    if finalists > 1 and len(timed) > 1:
        final = timed[:finalists]
        seconds = timer.compare({str(cfg): run for _, cfg, _, run in final}, runs=2 * runs)
        timed = sorted(final, key=lambda entry: seconds[str(entry[1])])
    return timed[0][1], timed[0][2], timed[0][3]


def _checker(c, ref, tol):
    """A check of the C that the run checked just left."""
    def check(_run):
        err = relative_error(c, ref)
        return None if err < tol else f"relative error {err:.3g} >= {tol}"
    return check


def square(results, timer, triton_peers, quick):
    """fp16 and bf16 C = A·B at square sizes: tritonc (autotuned) vs cuBLAS vs Triton."""
    torch.backends.cuda.matmul.allow_tf32 = False
    candidates = QUICK_HALF_CONFIGS if quick else HALF_CONFIGS
    for dtype in (torch.float16, torch.bfloat16):
        family = f"matmul {DTYPE_NAMES[dtype]}"
        compiled = {}
        for size in QUICK_SQUARE_SIZES if quick else SQUARE_SIZES:
            a = torch.randn(size, size, device="cuda", dtype=dtype)
            b = torch.randn(size, size, device="cuda", dtype=dtype)
            c = torch.empty(size, size, device="cuda", dtype=dtype)
            ref = torch.matmul(a, b)
            flops = 2.0 * size ** 3
            build = _matmul_builder(dtype, compiled, a, b, c, size, size, size, size, size, size)

            tol = 2e-2 if dtype == torch.float16 else 3e-2
            cfg, kern, run = autotune(results, timer, f"{family} {size}", candidates, build,
                                      _checker(c, ref, tol), finalists=SQUARE_FINALISTS)
            results.add_kernel(f"{family} {size}^3: {cfg}", kern)
            out = torch.empty_like(c)
            providers = {"tritonc": run, "cuBLAS": lambda: torch.matmul(a, b, out=out)}
            if triton_peers:
                triton_peers.matmul(a, b, out)  # autotunes Triton's kernel, then checks it
                err = relative_error(out, ref)
                assert err < tol, f"Triton matmul {family} {size}: relative error {err}"
                providers["triton"] = lambda: triton_peers.matmul(a, b, out)
            seconds = timer.compare(providers, rounds=PEER_ROUNDS, runs=PEER_RUNS_FACTOR * timer.runs)
            results.note_comparison(f"{family} {size}", timer)
            results.add(family, size, "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, str(cfg))
            results.add(family, size, "cuBLAS", "TFLOP/s", flops / seconds["cuBLAS"] / 1e12)
            if triton_peers:
                results.add(family, size, "triton", "TFLOP/s", flops / seconds["triton"] / 1e12,
                            triton_peers.matmul_config(a, b))


def fp32(results, timer, quick):
    """fp32 C = A·B without TF32 (FMA path) vs cuBLAS with TF32 disabled."""
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = torch.float32
    family = "matmul float (no TF32)"
    compiled = {}
    for size in (1024,) if quick else (4096, 8192):
        a = torch.randn(size, size, device="cuda", dtype=dtype)
        b = torch.randn(size, size, device="cuda", dtype=dtype)
        c = torch.empty(size, size, device="cuda", dtype=dtype)
        ref = torch.matmul(a, b)
        flops = 2.0 * size ** 3
        build = _matmul_builder(dtype, compiled, a, b, c, size, size, size, size, size, size)

        cfg, kern, run = autotune(results, timer, f"{family} {size}",
                                  QUICK_FLOAT_CONFIGS if quick else FLOAT_CONFIGS, build,
                                  _checker(c, ref, 1e-3), finalists=SQUARE_FINALISTS)
        results.add_kernel(f"{family} {size}^3: {cfg}", kern)
        out = torch.empty_like(c)
        seconds = timer.compare({"tritonc": run, "cuBLAS": lambda: torch.matmul(a, b, out=out)},
                                rounds=PEER_ROUNDS, runs=PEER_RUNS_FACTOR * timer.runs)
        results.note_comparison(f"{family} {size}", timer)
        results.add(family, size, "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, str(cfg))
        results.add(family, size, "cuBLAS", "TFLOP/s", flops / seconds["cuBLAS"] / 1e12)


def mlp(results, timer, quick):
    """Batch-16 MLP, fp16: C = A·Bᵀ with A N×N and B 16×N vs A @ B.T: matmul.tc with TRANS_B=1, or
    matmul_splitk.tc (TRANS_B=1, ATOMIC=1), whose slices add into a float C that the timed run zeroes
    first (as for the covariance); the faster of the two autotuned kernels is recorded."""
    family = "MLP half (C = A·Bᵀ, B 16×N)"
    compiled = {}
    for n in (4096,) if quick else (4096, 8192):
        a = torch.randn(n, n, device="cuda", dtype=torch.float16)
        b = torch.randn(16, n, device="cuda", dtype=torch.float16)
        c = torch.empty(n, 16, device="cuda", dtype=torch.float16)
        ref = a @ b.t()
        flops = 2.0 * n * n * 16

        def build(cfg):
            if cfg not in compiled:
                # Each element of A is read by one program (N = 16 <= TN): stream it past L2.
                defines = _matmul_defines(torch.float16, cfg, {"TRANS_B": 1, "CACHE_A": "__evict_first"})
                compiled[cfg] = compile_kernel("matmul.tc", defines, cfg.warps, cfg.stages)
            kern = compiled[cfg]
            # B is stored N_out x K (16 x n): ldb = n; C is n x 16.
            return kern, _matmul_launcher(kern, cfg, a, b, c, n, 16, n, n, n, 16)

        cfg, kern, run = autotune(results, timer, f"{family} N={n}",
                                  QUICK_MLP_CONFIGS if quick else MLP_CONFIGS, build,
                                  _checker(c, ref, 2e-2), runs=SHORT_TUNE_RUNS)
        label = f"{cfg} TRANS_B=1 CACHE_A=__evict_first"
        if not quick:
            t = timer(run)
            c32 = torch.empty(n, 16, device="cuda", dtype=torch.float32)
            locks = torch.zeros(2, device="cuda", dtype=torch.int32)

            def build_split(scfg):
                if scfg not in compiled:
                    defines = {"TYPE": "half", "CTYPE": "float", "ATOMIC": 1, "TRANS_B": 1, "TM": 64,
                               "TN": 16, "TK": scfg.tk, "TZ": scfg.tz, "CACHE_A": "__evict_first"}
                    compiled[scfg] = compile_kernel("matmul_splitk.tc", defines, 4, scfg.stages)
                skern = compiled[scfg]

                def split_run():
                    c32.zero_()
                    skern[((n + 63) // 64, 1, scfg.tz)](a, b, c32, locks, 1.0, n, 16, n, n, n, 16)
                return skern, split_run

            scfg, skern, srun = autotune(results, timer, f"{family} N={n} split-K", MLP_SPLITK_CONFIGS,
                                         build_split, _checker(c32, ref, 2e-2), runs=SHORT_TUNE_RUNS)
            ts = timer(srun)
            if ts < t:
                cfg, kern, run, t, label = scfg, skern, srun, ts, str(scfg)
        results.add_kernel(f"MLP half N={n}: {label}", kern)
        out = torch.empty_like(c)
        bt = b.t()
        cublas = lambda: torch.matmul(a, bt, out=out)  # noqa: E731
        # Short kernels (20-60 us): three times the runs, interleaved with the peer like the GEMMs.
        seconds = timer.compare({"tritonc": run, "cuBLAS": cublas}, runs=3 * timer.runs)
        results.note_comparison(f"{family} N={n}", timer)
        results.add(family, f"N={n}", "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, label)
        results.add(family, f"N={n}", "cuBLAS", "TFLOP/s", flops / seconds["cuBLAS"] / 1e12)
        if not quick:
            # The same two after a flush that leaves L2 clean: what __evict_first gains above is the
            # write-back of the dirty lines the usual flush leaves, which A's lines no longer force.
            clean = timer.compare({"tritonc": run, "cuBLAS": cublas}, clean=True, runs=3 * timer.runs)
            for prov, secs in clean.items():
                results.scalars[f"MLP N={n}, clean L2 flush: {prov} [TFLOP/s]"] = flops / secs / 1e12


def covariance(results, timer, quick):
    """64×64×K fp16 (A 64×K, B K×64) with matmul_splitk.tc vs torch.matmul, both writing a half C. The
    slices add their partial products with atomic_add into a float workspace, and the last slice to
    arrive writes C and clears the workspace (ATOMIC=2): no zeroing launch, no lock."""
    family = "covariance half (64x64xK, split-K)"
    compiled = {}
    counters = torch.zeros(1, device="cuda", dtype=torch.int32)
    partials = torch.zeros(64 * 64, device="cuda", dtype=torch.float32)
    for k in (16384,) if quick else (16384, 131072):
        a = torch.randn(64, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, 64, device="cuda", dtype=torch.float16)
        c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
        ref = a @ b
        flops = 2.0 * 64 * 64 * k

        def build(cfg):
            if cfg not in compiled:
                # One tile of C: every element of A and B is read by one program only.
                defines = {"TYPE": "half", "ATOMIC": 2, "TM": 64, "TN": 64, "TK": cfg.tk, "TZ": cfg.tz,
                           "CACHE_A": "__evict_first", "CACHE_B": "__evict_first"}
                compiled[cfg] = compile_kernel("matmul_splitk.tc", defines, cfg.warps, cfg.stages, cfg.tma)
            kern = compiled[cfg]

            def run():
                kern[(1, 1, cfg.tz)](a, b, c, counters, partials, 1.0, 64, 64, k, k, 64, 64)
            return kern, run

        def check(run):
            # One more run into a poisoned C: a workspace or counter left dirty by the runs before shows.
            c.fill_(float("nan"))
            run()
            err = relative_error(c, ref)
            return None if err < 3e-2 else f"relative error {err:.3g}"

        cfg, kern, run = autotune(results, timer, f"{family} K={k}", splitk_configs(k, quick), build, check,
                                  runs=SHORT_TUNE_RUNS, finalists=4)
        results.add_kernel(f"covariance half K={k}: {cfg}", kern)
        out = torch.empty(64, 64, device="cuda", dtype=torch.float16)
        # Short kernels (10-30 us): three times the runs, interleaved with the peer like the GEMMs.
        seconds = timer.compare({"tritonc": run, "cuBLAS": lambda: torch.matmul(a, b, out=out)},
                                runs=3 * timer.runs)
        results.note_comparison(f"{family} K={k}", timer)
        err = check(run)
        if err is not None:
            results.failures.append(f"{family} K={k}: {cfg} wrong after the timed runs ({err})")
        results.add(family, f"K={k}", "tritonc", "TFLOP/s", flops / seconds["tritonc"] / 1e12, str(cfg))
        results.add(family, f"K={k}", "cuBLAS", "TFLOP/s", flops / seconds["cuBLAS"] / 1e12)
