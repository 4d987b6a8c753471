#!/usr/bin/env python3
"""No register spills in the benchmarked convolution kernels and unaligned-row GEMMs (issue 28).

Compiles kernels/conv.tc and kernels/conv_nhwc.tc, fp16 with an fp32 accumulator, at every configuration
of bench/conv_suite.py (CONV_CONFIGS, CONV_NHWC_CONFIGS and the split-K CONV_NHWC_SMALL_CONFIGS, read
without importing it: it needs torch),
specialized as a launch on the benchmark's shapes is (pointers, channel counts and the strides they make
multiples of 16), assembles each with `ptxas -v -arch=sm_90a` and fails when ptxas reports spill stores or
loads, or when fewer configurations than expected were read. The same for the unaligned-row GEMM
candidates (UNALIGNED_CONFIGS: matmul.tc and matmul_grouped.tc, fp16, specialized with every size and
stride odd), whose 2-byte loads cannot be copied asynchronously and stay in registers.

Usage: check-conv-spills.py TRITONC PTXAS
"""
import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUITE = REPO / "bench" / "conv_suite.py"
# One letter per parameter (D: a multiple of 16, N: anything), for 3x3 layers at 56x56 (W = 56 is not a
# multiple of 16, so neither is conv.tc's lda_h): see the kernels' parameter lists.
SPECIALIZATIONS = {
    # A B C ADELTA M N K H W R S P Q pad_h pad_w stride_h stride_w lda_z lda_ci lda_h lda_w ldb ldc_z ldc_co ldc_p
    "conv.tc": "DDDDDDDNNNNNNNNNNDDNNDDDN",
    # A B C M N H W CI R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_h lda_w ldb ldc_z ldc_p ldc_q
    # partials counters
    "conv_nhwc.tc": "DDDNDNNDNNNNNNNNNNDDDDDDDDD",
}
# A B C M N K lda ldb ldc, all sizes and strides odd (1000x3000x555 is as the compiler sees it).
UNALIGNED_SPECIALIZATION = "DDDNNNNNN"
UNALIGNED_KERNELS = {"matmul": ("matmul.tc", []), "grouped": ("matmul_grouped.tc", ["-DGROUP_M=8"])}
# (kernel, list): entries are (TM, TN, TK, warps, stages) or, in the split-K list, (..., SPLIT).
LISTS = [("conv.tc", "CONV_CONFIGS"), ("conv_nhwc.tc", "CONV_NHWC_CONFIGS"),
         ("conv_nhwc.tc", "CONV_NHWC_SMALL_CONFIGS")]
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def suite_configs():
    """{list name: [(TM, TN, TK, warps, stages), ...]} from the module-level assignments."""
    found = {}
    for node in ast.parse(SUITE.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = getattr(node.targets[0], "id", None)
            if name in {list_name for _, list_name in LISTS}:
                found[name] = ast.literal_eval(node.value)
            elif name == "UNALIGNED_CONFIGS":  # MatmulConfig(kind, TM, TN, TK, warps, stages) calls
                found[name] = [[ast.literal_eval(a) for a in call.args] for call in node.value.elts]
    return found


def spills(ptxas, ptx, tmp):
    """[(spill stores, spill loads)] of ptxas -v on ptx, and its output."""
    out = subprocess.run([ptxas, "-v", "-arch=sm_90a", str(ptx), "-o", str(Path(tmp) / "k.o")],
                         capture_output=True, text=True, check=True).stderr
    return [(int(s), int(l)) for s, l in SPILLS.findall(out)], out


def commands(tritonc, configs, ptx):
    """(what, compile command) of every configuration."""
    for kernel, list_name in LISTS:
        for tm, tn, tk, warps, stages, *split in configs.get(list_name, []):
            split_define = [f"-DSPLIT={split[0]}"] if split else []
            yield (f"{kernel} {tm}x{tn}x{tk} w{warps} s{stages}" + (f" split {split[0]}" if split else ""),
                   [tritonc, "compile", str(REPO / "kernels" / kernel), "-DTYPE=half", "-DACC=float",
                    f"-DTM={tm}", f"-DTN={tn}", f"-DTK={tk}", *split_define, f"--num-warps={warps}",
                    f"--num-stages={stages}", f"--specialize={SPECIALIZATIONS[kernel]}", "--emit=ptx",
                    "-o", str(ptx)])
    for kind, tm, tn, tk, warps, stages in configs.get("UNALIGNED_CONFIGS", []):
        kernel, extra = UNALIGNED_KERNELS[kind]
        yield (f"unaligned {kernel} {tm}x{tn}x{tk} w{warps} s{stages}",
               [tritonc, "compile", str(REPO / "kernels" / kernel), "-DTYPE=half", f"-DTM={tm}",
                f"-DTN={tn}", f"-DTK={tk}", *extra, f"--num-warps={warps}", f"--num-stages={stages}",
                f"--specialize={UNALIGNED_SPECIALIZATION}", "--emit=ptx", "-o", str(ptx)])


def main():
    tritonc, ptxas = sys.argv[1], sys.argv[2]
    configs = suite_configs()
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        ptx = Path(tmp) / "k.ptx"
        for what, cmd in commands(tritonc, configs, ptx):
            subprocess.run(cmd, check=True)
            found, out = spills(ptxas, ptx, tmp)
            if not found:
                failures.append(f"{what}: no spill line in ptxas -v's output:\n{out}")
            elif any(s or l for s, l in found):
                failures.append(f"{what}: {found[0][0]} bytes spill stores, {found[0][1]} bytes "
                                f"spill loads\n  {' '.join(cmd)}")
            else:
                print(f"ok: {what}, no spills")
            checked += 1
    missing = sorted(({list_name for _, list_name in LISTS} | {"UNALIGNED_CONFIGS"}) - set(configs))
    if missing or checked < 10:
        failures.append(f"only {checked} configurations read from {SUITE}; lists missing: {missing}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
