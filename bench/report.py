"""Output of a benchmark run: the table on stdout, sweep.csv, one PNG plot per family, and a markdown
entry (results.md) for bench/results/LOG.md, whose tables also replace the current ones in bench/RESULTS.md,
with ratios and pass/fail against the thresholds of issues 4 and 28."""
import csv
import json

from gpu_state import describe
from measurements import REFERENCE_HOST_MS, geomean

# The reference provider of each kind of family (ratios are ours / reference).
REFERENCES = ("cuBLAS", "copy")
# The families of bench/conv_suite.py, outside issue 4's checks.
ISSUE28_FAMILIES = ("conv ", "matmul half, unaligned")
# Issue 28's geomean checks over every shape of a convolution family against cuDNN at its best:
# (label, family, threshold).
CONV_GEOMEAN_CHECKS = (
    ("conv fp16 forward (conv_nhwc.tc)", "conv half (implicit GEMM, conv_nhwc.tc)", 1.0),
    ("conv bf16 forward (conv_nhwc.tc)", "conv bfloat16 (implicit GEMM, conv_nhwc.tc)", 1.0),
    ("conv fp16 data gradient (conv_nhwc_dgrad.tc)", "conv half data gradient (conv_nhwc_dgrad.tc)", 0.9),
    ("conv fp16 weight gradient (conv_nhwc_wgrad.tc)", "conv half weight gradient (conv_nhwc_wgrad.tc)", 0.9),
)


def families(results):
    return list(dict.fromkeys(p.family for p in results.points))


def _shapes(results, family):
    return list(dict.fromkeys(p.shape for p in results.points if p.family == family))


def _providers(results, family):
    return list(dict.fromkeys(p.provider for p in results.points if p.family == family))


def print_table(results):
    for fam in families(results):
        unit = next(p.unit for p in results.points if p.family == fam)
        print(f"\n{fam} ({unit})")
        providers = _providers(results, fam)
        print(f"  {'shape':14}" + "".join(f"{p:>10}" for p in providers) + "   ratios / config")
        for shape in _shapes(results, fam):
            row = f"  {shape:14}"
            for prov in providers:
                p = results.get(fam, shape, prov)
                row += f"{p.value:10.1f}" if p else f"{'-':>10}"
            ratios = [(prov, results.ratio(fam, shape, "tritonc", prov)) for prov in providers
                      if prov != "tritonc"]
            ratios = [f"{prov}: {r:.2f}x" for prov, r in ratios if r]
            ours = results.get(fam, shape, "tritonc")
            print(row + "   " + " ".join(ratios) + (f"  [{ours.config}]" if ours and ours.config else ""))
    if results.scalars:
        print()
        for name, value in results.scalars.items():
            print(f"  {name}: {value:.2f}")


def write_csv(results, out_dir):
    with open(out_dir / "sweep.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["family", "shape", "provider", "unit", "value", "config"])
        for p in results.points:
            w.writerow([p.family, p.shape, p.provider, p.unit, f"{p.value:.3f}", p.config])
        for name, value in results.scalars.items():
            w.writerow(["scalar", name, "tritonc", "", f"{value:.4f}", ""])
    with open(out_dir / "ptxas.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "registers", "spill_stores", "spill_loads", "shared_bytes", "hgmma"])
        for row in results.ptxas:
            w.writerow(row)
    (out_dir / "comparisons.json").write_text(json.dumps(
        {label: {"gpu": results.gpu_states.get(label, {}), "samples_ms": samples}
         for label, samples in results.samples.items()}, indent=1))


def plot(results, out_dir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib unavailable, no plots")
        return []
    files = []
    for fam in families(results):
        fig, ax = plt.subplots(figsize=(5.5, 3.5))
        for prov in _providers(results, fam):
            pts = [p for p in results.points if p.family == fam and p.provider == prov]
            ax.plot([p.shape for p in pts], [p.value for p in pts], marker="o", label=prov)
        ax.set_title(fam)
        ax.set_xlabel("size")
        ax.set_ylabel(next(p.unit for p in results.points if p.family == fam))
        ax.legend()
        fig.tight_layout()
        name = "".join(ch if ch.isalnum() else "_" for ch in fam).strip("_") + ".png"
        fig.savefig(out_dir / name, dpi=100)
        plt.close(fig)
        files.append(name)
    return files


def _fmt(value, digits=2):
    return "—" if value is None else f"{value:.{digits}f}"


def checks(results):
    """(check, measured text, threshold text, True/False/None) for each 'must show' item of issue 4, and
    issue 28's convolution geomeans and spills."""
    out = []

    def ratio_check(text, fam, shape, peer, need, strict=False):
        r = results.ratio(fam, shape, "tritonc", peer)
        ok = None if r is None else (r > need if strict else r >= need)
        need_text = f"{'>' if strict else '≥'} {need:.2f}×"
        out.append((text, _fmt(r) + "×" if r else "not measured", need_text, ok))

    for name, label in (("half", "fp16"), ("bfloat16", "bf16")):
        fam = f"matmul {name}"
        for size in ("4096", "8192"):
            ratio_check(f"{label} GEMM {size}³ vs cuBLAS", fam, size, "cuBLAS", 0.95)
        ratios = [results.ratio(fam, s, "tritonc", "cuBLAS") for s in ("1024", "2048", "4096", "8192")]
        g = geomean(ratios) if all(ratios) else None
        out.append((f"{label} GEMM geomean 1024–8192 vs cuBLAS", _fmt(g) + "×" if g else "not measured",
                    "≥ 0.90×", None if g is None else g >= 0.90))
        for size in ("4096", "8192"):
            ratio_check(f"{label} GEMM {size}³ vs Triton tutorial matmul", fam, size, "triton", 1.10)
    for size in ("4096", "8192"):
        ratio_check(f"fp32 GEMM {size}³ (FMA) vs cuBLAS without TF32", "matmul float (no TF32)", size,
                    "cuBLAS", 0.90)
    for n in ("N=4096", "N=8192"):
        ratio_check(f"MLP C = A·Bᵀ {n} vs cuBLAS", "MLP half (C = A·Bᵀ, B 16×N)", n, "cuBLAS", 1.0)
    for k in ("K=16384", "K=131072"):
        ratio_check(f"covariance 64×64×{k[2:]} vs cuBLAS", "covariance half (64x64xK, split-K)", k,
                    "cuBLAS", 1.0)
    for name in ("half", "float"):
        for size in ("8192^2", "16384^2"):
            ratio_check(f"transpose {name} {size} vs copy", f"transpose {name}", size, "copy", 0.90)
    for shape in ("4096x4096", "8192x8192", "32768x1024"):
        ratio_check(f"softmax fp16 {shape} vs copy", "softmax half", shape, "copy", 0.85)
        ratio_check(f"softmax fp16 {shape} vs torch.softmax", "softmax half", shape, "torch", 1.0,
                    strict=True)

    for label, fam, need in CONV_GEOMEAN_CHECKS:
        ratios = [results.ratio(fam, shape, "tritonc", "cuDNN") for shape in _shapes(results, fam)]
        g = geomean(ratios) if ratios and all(ratios) else None
        text = "not measured" if g is None else f"{_fmt(g)}× ({_fmt(min(ratios))}–{_fmt(max(ratios))}×, " \
            f"{len(ratios)} shapes)"
        out.append((f"{label} geomean vs cuDNN", text, f"≥ {need:.2f}×", None if g is None else g >= need))
    conv_kernels = [r for r in results.ptxas if r[0].startswith("conv ")]
    conv_spills = [r for r in conv_kernels if (r[2] or 0) + (r[3] or 0) > 0]
    out.append(("no spills (ptxas -v) in the benchmarked conv kernels",
                f"{len(conv_spills)} of {len(conv_kernels)} spill" if conv_kernels else "not measured",
                "0", None if not conv_kernels else not conv_spills))

    half = [r for r in results.ptxas if r[0].startswith("matmul half")]
    out.append(("HGMMA in the SASS of the fp16 matmuls",
                ", ".join(str(r[5]) for r in half) or "not measured", "> 0 in each",
                None if not half else all(r[5] > 0 for r in half)))
    # Issue 4's kernels; the convolution and unaligned-GEMM steps (issue 28) are reported in the tables.
    issue4 = [r for r in results.ptxas if not r[0].startswith(ISSUE28_FAMILIES)]
    spills = [r for r in issue4 if (r[2] or 0) + (r[3] or 0) > 0]
    out.append(("no spills (ptxas -v) in the benchmarked kernels",
                f"{len(spills)} of {len(issue4)} spill" if issue4 else "not measured",
                "0", None if not issue4 else not spills))
    s = results.scalars
    total = next((v for k, v in s.items() if k.startswith("compile: cold total")), None)
    # Both host-side checks move with the lent host's speed: the text carries the yardstick PTX's
    # ptxas time and cuLaunchKernel's own cost measured in the same run.
    yardstick = next((v for k, v in s.items() if k.startswith("compile: ptxas command line on matmul_")),
                     None)
    text = _fmt(total, 1) + " ms" if total is not None else "not measured"
    if total is not None and yardstick is not None:
        text += f" (yardstick PTX {_fmt(yardstick, 1)} ms on this host, {REFERENCE_HOST_MS} on run 38's)"
    out.append(("cold compile 128×256×64 fp16 matmul, source -> loaded module", text,
                "≤ 100 ms (aim 50)", None if total is None else total <= 100))
    cpp = s.get("launch: C++ JitKernel::launch [us]")
    floor = s.get("launch: C++ cuLaunchKernel [us]")
    text = _fmt(cpp) + " µs" if cpp else "not measured"
    if cpp and floor:
        text += f" (cuLaunchKernel alone {_fmt(floor)} µs)"
    out.append(("host launch overhead, C++ (JitKernel)", text, "≤ 5 µs", None if cpp is None else cpp <= 5))
    py = s.get("launch: Python tritonc k[grid](x) [us]")
    out.append(("host launch overhead, Python (k[grid](x))", _fmt(py) + " µs" if py else "not measured",
                "≤ 10 µs", None if py is None else py <= 10))
    return out


def markdown(results, meta, plots):
    md = [f"## {meta['date']} — {meta['device']} (`bash bench/run.sh {meta['args']}`)", "",
          f"- Device: **{meta['device']}**, CUDA driver {meta['driver']}, torch {meta['torch']}, "
          f"triton {meta['triton']}, tritonc {meta['tritonc']}. Commit `{meta['commit']}`. "
          f"Run time {meta['elapsed']:.0f} s." + (f" Host: {meta['host']}." if meta.get("host") else "")
          + (f" GPU at the start: {meta['gpu_start']}." if meta.get("gpu_start") else ""),
          "- Method: every provider in the same process on the same fresh `torch.randn` inputs; CUDA "
          "events, median of "
          f"{meta['runs']} timed runs after warm-up, the providers of one comparison in rotation run by run "
          "(the square and fp32 GEMMs: 5× the runs in 10 turns), L2 flushed (256 MB write) before each run. "
          "tritonc matmuls autotuned per shape (configuration in the tables); cold cache "
          "(fresh `TRITONC_CACHE_DIR`, `CUDA_CACHE_DISABLE=1`).", ""]
    for fam in families(results):
        shapes = _shapes(results, fam)
        unit = next(p.unit for p in results.points if p.family == fam)
        providers = _providers(results, fam)
        md.append(f"| {fam}, {unit} | " + " | ".join(shapes) + " |")
        md.append("|---|" + "---:|" * len(shapes))
        for prov in providers:
            vals = [results.get(fam, s, prov) for s in shapes]
            md.append(f"| {prov} | " + " | ".join(_fmt(v.value, 0 if v and v.value >= 100 else 2)
                                                   if v else "—" for v in vals) + " |")
        for prov in providers:
            if prov == "tritonc":
                continue
            rs = [results.ratio(fam, s, "tritonc", prov) for s in shapes]
            cells = [_fmt(r) + "×" if r else "—" for r in rs]
            md.append(f"| tritonc / {prov} | " + " | ".join(cells) + " |")
        cfgs = [results.get(fam, s, "tritonc") for s in shapes]
        if any(c and c.config for c in cfgs):
            md.append("| tritonc config | " + " | ".join(c.config if c else "—" for c in cfgs) + " |")
        md.append("")
    if results.gpu_states:
        md += ["GPU during each recorded comparison with the peers (NVML, medians over the timed turns, "
               "idle gaps included; every clock-limit reason seen):", ""]
        md += [f"- {label}: {describe(summary)}" for label, summary in results.gpu_states.items()]
        md.append("")
    if results.scalars:
        md += ["| compile time, launch overhead, MLP after a clean L2 flush | value |", "|---|---:|"]
        md += [f"| {k} | {v:.2f} |" for k, v in results.scalars.items()]
        md.append("")
    if results.ptxas:
        md += ["| kernel (`ptxas -v`) | registers | spills (stores/loads) | dynamic shared memory | HGMMA |",
               "|---|---:|---:|---:|---:|"]
        md += [f"| {r[0]} | {r[1]} | {r[2]} B / {r[3]} B | {r[4]} B | {r[5]} |" for r in results.ptxas]
        md.append("")
    md += ["### Thresholds of issues 4 and 28", "", "| check | measured | needed | result |", "|---|---:|---:|---|"]
    for text, measured, need, ok in checks(results):
        verdict = "—" if ok is None else ("PASS" if ok else "**FAIL**")
        md.append(f"| {text} | {measured} | {need} | {verdict} |")
    md.append("")
    if results.failures:
        md += ["Failures in this run:", ""] + [f"- {f}" for f in results.failures] + [""]
    if results.notes:
        md += ["Notes:", ""] + [f"- {n}" for n in results.notes] + [""]
    if plots:
        md.append(" ".join(f"![{p[:-4]}](results/{meta['results_dir']}/{p})" for p in plots))
        md.append("")
    return "\n".join(md)
