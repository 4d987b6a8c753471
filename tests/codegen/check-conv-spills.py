#!/usr/bin/env python3
"""No register spills in the benchmarked convolution kernels (issue 28).

Compiles kernels/conv.tc, kernels/conv_nhwc.tc and the backward kernels conv_nhwc_dgrad.tc and
conv_nhwc_wgrad.tc with an fp32 accumulator, fp16 (and conv_nhwc.tc also bf16), at every configuration
of bench/conv_suite.py (CONV_CONFIGS, CONV_NHWC_CONFIGS, CONV_DGRAD_CONFIGS and CONV_WGRAD_CONFIGS, read
without importing it: it needs torch),
specialized as a launch on the benchmark's shapes is (pointers, channel counts and the strides they make
multiples of 16), assembles each with `ptxas -v -arch=sm_90a` and fails when ptxas reports spill stores or
loads, or when fewer configurations than expected were read.

Usage: check-conv-spills.py TRITONC PTXAS
"""
import ast
import itertools
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
    "conv_nhwc.tc": "DDDNDNNDNNNNNNNNNNDDDDDDD",
    # A B C Z H W CI CO R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_p lda_q ldb ldc_z ldc_h ldc_w
    "conv_nhwc_dgrad.tc": "DDDNNNDDNNNNNNNNNNDDDDDDD",
    # A B C counters partials Z H W CI CO R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_p lda_q
    # ldb_z ldb_h ldb_w ldc
    "conv_nhwc_wgrad.tc": "DDDDDNNNDDNNNNNNNNNNDDDDDDD",
}
LISTS = {"conv.tc": "CONV_CONFIGS", "conv_nhwc.tc": "CONV_NHWC_CONFIGS",
         "conv_nhwc_dgrad.tc": "CONV_DGRAD_CONFIGS", "conv_nhwc_wgrad.tc": "CONV_WGRAD_CONFIGS"}
# The element types each kernel is benchmarked in (bench/conv_suite.py's conv_bf16 step: conv_nhwc.tc).
TYPES = {"conv_nhwc.tc": ("half", "bfloat16")}
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def suite_configs():
    """{list name: [(TM, TN, TK, warps, stages), ...]} from the module-level assignments."""
    found = {}
    for node in ast.parse(SUITE.read_text()).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = getattr(node.targets[0], "id", None)
            if name in LISTS.values():
                found[name] = ast.literal_eval(node.value)
    return found


def main():
    tritonc, ptxas = sys.argv[1], sys.argv[2]
    configs = suite_configs()
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for kernel, list_name in LISTS.items():
            for (tm, tn, tk, warps, stages), ty in itertools.product(configs.get(list_name, []),
                                                                     TYPES.get(kernel, ("half",))):
                ptx = Path(tmp) / "k.ptx"
                cmd = [tritonc, "compile", str(REPO / "kernels" / kernel), f"-DTYPE={ty}", "-DACC=float",
                       f"-DTM={tm}", f"-DTN={tn}", f"-DTK={tk}", f"--num-warps={warps}",
                       f"--num-stages={stages}", f"--specialize={SPECIALIZATIONS[kernel]}", "--emit=ptx",
                       "-o", str(ptx)]
                what = f"{kernel} {ty} {tm}x{tn}x{tk} w{warps} s{stages}"
                subprocess.run(cmd, check=True)
                out = subprocess.run([ptxas, "-v", "-arch=sm_90a", str(ptx), "-o", str(Path(tmp) / "k.o")],
                                     capture_output=True, text=True, check=True).stderr
                spills = [(int(s), int(l)) for s, l in SPILLS.findall(out)]
                if not spills:
                    failures.append(f"{what}: no spill line in ptxas -v's output:\n{out}")
                elif any(s or l for s, l in spills):
                    failures.append(f"{what}: {spills[0][0]} bytes spill stores, {spills[0][1]} bytes "
                                    f"spill loads\n  {' '.join(cmd)}")
                else:
                    print(f"ok: {what}, no spills")
                checked += 1
    if checked < 30:
        failures.append(f"only {checked} configurations read from {SUITE}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
