#!/usr/bin/env python3
"""No register spills in the benchmarked convolution kernels and unaligned-row GEMMs (issue 28).

Compiles kernels/conv.tc, kernels/conv_nhwc.tc and the backward kernels conv_nhwc_dgrad.tc and
conv_nhwc_wgrad.tc with an fp32 accumulator at every configuration of bench/conv_suite.py (CONV_CONFIGS,
CONV_NHWC_CONFIGS in fp16 and bf16, the split-K CONV_NHWC_SMALL_CONFIGS, CONV_DGRAD_CONFIGS and
CONV_WGRAD_CONFIGS in fp16, the descriptor kernels conv_nhwc_desc.tc, conv_nhwc_desc_dgrad.tc and
conv_nhwc_desc_wgrad.tc at CONV_NHWC_DESC_CONFIGS, the split-K CONV_NHWC_DESC_SMALL_CONFIGS, the
tiles of two images CONV_NHWC_DESC_BOXES_CONFIGS, CONV_DESC_DGRAD_CONFIGS and CONV_DESC_WGRAD_CONFIGS in
fp16 and bf16, conv_nhwc_desc.tc's three lists with DGRAD=1 in fp16, and the 1x1 weight gradient's split-K
GEMMs CONV_WGRAD_GEMM_CONFIGS, as the benchmark compiles them) and the backward kernels at tritonc.ops.conv2d's tiles (fp16, bf16 and fp32),
read without importing either file (they need torch), specialized as a launch on the benchmark's shapes is
(pointers, channel counts and the strides they make multiples of 16), assembles each with
`ptxas -v -arch=sm_90a` and fails when ptxas reports spill stores or loads, or when fewer configurations
than expected were read. The same for the unaligned-row GEMM candidates (UNALIGNED_CONFIGS: matmul.tc and
matmul_grouped.tc, fp16, specialized with every size and stride odd), whose 2-byte loads cannot be copied
asynchronously and stay in registers. And the descriptor kernels at tritonc.ops.conv2d's own tiles
(OPS_DESC_LISTS, fp16 and bf16, with the options ops compiles them with), and the GEMM candidates of 1x1
layers (CONV_GEMM_CONFIGS: matmul.tc with TRANS_B, fp16 and bf16);
a compile command already run for another list is not run again.

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
OPS = REPO / "python" / "tritonc" / "ops" / "__init__.py"
# One letter per parameter (D: a multiple of 16, N: anything), for 3x3 layers at 56x56 (W = 56 is not a
# multiple of 16, so neither is conv.tc's lda_h): see the kernels' parameter lists.
SPECIALIZATIONS = {
    # A B C ADELTA M N K H W R S P Q pad_h pad_w stride_h stride_w lda_z lda_ci lda_h lda_w ldb ldc_z ldc_co ldc_p
    "conv.tc": "DDDDDDDNNNNNNNNNNDDNNDDDN",
    # A B C M N H W CI R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_h lda_w ldb ldc_z ldc_p ldc_q
    # partials counters
    "conv_nhwc.tc": "DDDNDNNDNNNNNNNNNNDDDDDDDDD",
    # A B C Z H W CI CO R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_p lda_q ldb ldc_z ldc_h ldc_w
    "conv_nhwc_dgrad.tc": "DDDNNNDDNNNNNNNNNNDDDDDDD",
    # A B C counters partials Z H W CI CO R S P Q pad_h pad_w stride_h stride_w dil_h dil_w lda_z lda_p lda_q
    # ldb_z ldb_h ldb_w ldc
    "conv_nhwc_wgrad.tc": "DDDDDNNNDDNNNNNNNNNNDDDDDDD",
    # DY F DX counters partials Z H W CI CO R S P Q pad_h pad_w dil_h dil_w ldy_z ldy_p ldy_q ldf_co ldx_z
    # ldx_h ldx_w
    "conv_nhwc_desc_dgrad.tc": "DDDDDNNNDDNNNNNNNNDDDDDDD",
    # DY X DF counters partials Z H W CI CO R S P Q pad_h pad_w dil_h dil_w ldy_z ldy_p ldy_q ldx_z ldx_h
    # ldx_w ldf_co
    "conv_nhwc_desc_wgrad.tc": "DDDDDNNNDDNNNNNNNNDDDDDDD",
    # X F Y Z H W CI CO R S P Q pad_h pad_w dil_h dil_w ldx_z ldx_h ldx_w ldf_co ldy_z ldy_p ldy_q partials
    # counters
    "conv_nhwc_desc.tc": "DDDNNNDDNNNNNNNNDDDDDDDDD",
    # A B C locks partials alpha M N K lda ldb ldc (the 1x1 weight gradient's GEMM)
    "matmul_splitk.tc": "DDDDDNDDDDDD",
}
# A B C M N K lda ldb ldc, all sizes and strides odd (1000x3000x555 is as the compiler sees it).
UNALIGNED_SPECIALIZATION = "DDDNNNNNN"
UNALIGNED_KERNELS = {"matmul": ("matmul.tc", []), "grouped": ("matmul_grouped.tc", ["-DGROUP_M=8"])}
# (kernel, file, list, element types): the lists of tiles (TM, TN, TK, warps, stages) or, in the split-K
# list, (..., SPLIT) that are compiled for the GPU. tritonc.ops.conv2d's gradients run the backward
# kernels at its own tiles (conv_nhwc_dgrad.tc with a TK dividing CO, at most the tile's).
LISTS = [
    ("conv.tc", SUITE, "CONV_CONFIGS", ("half",)),
    ("conv_nhwc.tc", SUITE, "CONV_NHWC_CONFIGS", ("half", "bfloat16")),  # bench's conv_bf16 step too
    ("conv_nhwc.tc", SUITE, "CONV_NHWC_SMALL_CONFIGS", ("half", "bfloat16")),
    ("conv_nhwc_dgrad.tc", SUITE, "CONV_DGRAD_CONFIGS", ("half",)),
    ("conv_nhwc_wgrad.tc", SUITE, "CONV_WGRAD_CONFIGS", ("half",)),
    ("conv_nhwc_dgrad.tc", OPS, "_CONV_BACKWARD_TILES", ("half", "bfloat16")),
    ("conv_nhwc_wgrad.tc", OPS, "_CONV_BACKWARD_TILES", ("half", "bfloat16")),
    ("conv_nhwc_dgrad.tc", OPS, "_CONV_BACKWARD_FLOAT_TILES", ("float",)),
    ("conv_nhwc_wgrad.tc", OPS, "_CONV_BACKWARD_FLOAT_TILES", ("float",)),
]
# The descriptor kernels' lists (kernel, list, its block macros, element types[, more defines]): block sizes in
# the order of the macros, then warps and stages (their loads rings of bulk tensor copies, the default on
# sm_90a). The data gradient computed forward times conv_nhwc_desc.tc's candidates with DGRAD=1 (its filter
# boxes [TK, 1, TN]).
DESC_LISTS = [
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_CONFIGS", ("TP", "TQ", "TN", "TK"), ("half", "bfloat16")),
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_SMALL_CONFIGS", ("TP", "TQ", "TN", "TK", "SPLIT"),
     ("half", "bfloat16")),
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_BOXES_CONFIGS", ("TP", "TQ", "TN", "TK", "SPLIT", "BOXES"),
     ("half", "bfloat16")),
    ("conv_nhwc_desc_dgrad.tc", "CONV_DESC_DGRAD_CONFIGS", ("TP", "TQ", "TN", "TK"), ("half", "bfloat16")),
    ("conv_nhwc_desc_wgrad.tc", "CONV_DESC_WGRAD_CONFIGS", ("TP", "TQ", "TM", "TN"), ("half", "bfloat16")),
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_CONFIGS", ("TP", "TQ", "TN", "TK"), ("half",), ("-DDGRAD=1",)),
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_SMALL_CONFIGS", ("TP", "TQ", "TN", "TK", "SPLIT"), ("half",),
     ("-DDGRAD=1",)),
    ("conv_nhwc_desc.tc", "CONV_NHWC_DESC_BOXES_CONFIGS", ("TP", "TQ", "TN", "TK", "SPLIT", "BOXES"), ("half",),
     ("-DDGRAD=1",)),
    ("matmul_splitk.tc", "CONV_WGRAD_GEMM_CONFIGS", ("TM", "TN", "TK"), ("half",),
     ("-DTZ=8", "-DATOMIC=2", "-DTRANS_A=1")),
]
# tritonc.ops.conv2d's descriptor tiles (kernel, list in OPS, block macros[, more options]), as DESC_LISTS.
OPS_DESC_LISTS = [
    ("conv_nhwc_desc.tc", "_CONV_DESC_TILES", ("TP", "TQ", "TN", "TK", "SPLIT", "BOXES")),
    ("conv_nhwc_desc.tc", "_CONV_DESC_WS_TILES", ("TP", "TQ", "TN", "TK", "SPLIT", "BOXES"),
     ("--warp-specialize",)),
    ("matmul_splitk.tc", "_WGRAD_GEMM_TILES", ("TM", "TN", "TK"), ("-DTZ=8", "-DATOMIC=2", "-DTRANS_A=1")),
    ("conv_nhwc_desc_dgrad.tc", "_CONV_DESC_DGRAD_TILES", ("TP", "TQ", "TN", "TK")),
    ("conv_nhwc_desc_wgrad.tc", "_CONV_DESC_WGRAD_TILES", ("TP", "TQ", "TM", "TN")),
]
SPILLS = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def module_lists(path):
    """{name: value} of the module-level assignments of literals in path, and UNALIGNED_CONFIGS'
    MatmulConfig(kind, TM, TN, TK, warps, stages) calls as argument lists."""
    found = {}
    for node in ast.parse(path.read_text()).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        name = getattr(node.targets[0], "id", None)
        if name == "UNALIGNED_CONFIGS":
            found[name] = [[ast.literal_eval(a) for a in call.args] for call in node.value.elts]
            continue
        try:
            found[name] = ast.literal_eval(node.value)
        except ValueError:
            pass
    return found


def spills(ptxas, ptx, tmp):
    """[(spill stores, spill loads)] of ptxas -v on ptx, and its output."""
    out = subprocess.run([ptxas, "-v", "-arch=sm_90a", str(ptx), "-o", str(Path(tmp) / "k.o")],
                         capture_output=True, text=True, check=True).stderr
    return [(int(s), int(l)) for s, l in SPILLS.findall(out)], out


def commands(tritonc, lists, ptx):
    """(what, compile command) of every configuration."""
    for kernel, path, list_name, types in LISTS:
        for tm, tn, tk, warps, stages, *split in lists[path].get(list_name, []):
            split_define = [f"-DSPLIT={split[0]}"] if split else []
            for ty in types:
                yield (f"{kernel} {ty} {tm}x{tn}x{tk} w{warps} s{stages}"
                       + (f" split {split[0]}" if split else ""),
                       [tritonc, "compile", str(REPO / "kernels" / kernel), f"-DTYPE={ty}", "-DACC=float",
                        f"-DTM={tm}", f"-DTN={tn}", f"-DTK={tk}", *split_define, f"--num-warps={warps}",
                        f"--num-stages={stages}", f"--specialize={SPECIALIZATIONS[kernel]}", "--emit=ptx",
                        "-o", str(ptx)])
    for kernel, list_name, macros, types, *extra in DESC_LISTS:
        defines = extra[0] if extra else ()
        for *blocks, warps, stages in lists[SUITE].get(list_name, []):
            for ty in types:
                yield (f"{kernel} {ty} " + " ".join(f"{m}={b}" for m, b in zip(macros, blocks))
                       + f" w{warps} s{stages}" + "".join(f" {d[2:]}" for d in defines),
                       [tritonc, "compile", str(REPO / "kernels" / kernel), f"-DTYPE={ty}", "-DACC=float",
                        *(f"-D{m}={b}" for m, b in zip(macros, blocks)), *defines, f"--num-warps={warps}",
                        f"--num-stages={stages}", f"--specialize={SPECIALIZATIONS[kernel]}", "--emit=ptx", "-o", str(ptx)])
    for kind, tm, tn, tk, warps, stages in lists[SUITE].get("UNALIGNED_CONFIGS", []):
        kernel, extra = UNALIGNED_KERNELS[kind]
        yield (f"unaligned {kernel} {tm}x{tn}x{tk} w{warps} s{stages}",
               [tritonc, "compile", str(REPO / "kernels" / kernel), "-DTYPE=half", f"-DTM={tm}",
                f"-DTN={tn}", f"-DTK={tk}", *extra, f"--num-warps={warps}", f"--num-stages={stages}",
                f"--specialize={UNALIGNED_SPECIALIZATION}", "--emit=ptx", "-o", str(ptx)])
    for kernel, list_name, macros, *extra in OPS_DESC_LISTS:
        options = extra[0] if extra else ()
        for *blocks, warps, stages in lists[OPS].get(list_name, []):
            for ty in ("half", "bfloat16"):
                yield (f"ops {kernel} {ty} " + " ".join(f"{m}={b}" for m, b in zip(macros, blocks))
                       + f" w{warps} s{stages}" + "".join(f" {o}" for o in options),
                       [tritonc, "compile", str(REPO / "kernels" / kernel), f"-DTYPE={ty}", "-DACC=float",
                        *(f"-D{m}={b}" for m, b in zip(macros, blocks)), *options, f"--num-warps={warps}",
                        f"--num-stages={stages}", f"--specialize={SPECIALIZATIONS[kernel]}",
                        "--emit=ptx", "-o", str(ptx)])
    # A B C M N K lda ldb ldc of a 1x1 layer as a GEMM: Z*H*W, CO, CI and the strides multiples of 16.
    for tm, tn, tk, warps, stages in lists[SUITE].get("CONV_GEMM_CONFIGS", []):
        for ty in ("half", "bfloat16"):
            yield (f"1x1 GEMM matmul.tc {ty} {tm}x{tn}x{tk} w{warps} s{stages} TRANS_B",
                   [tritonc, "compile", str(REPO / "kernels" / "matmul.tc"), f"-DTYPE={ty}", "-DACC=float",
                    "-DTRANS_B=1", f"-DTM={tm}", f"-DTN={tn}", f"-DTK={tk}", f"--num-warps={warps}",
                    f"--num-stages={stages}", "--specialize=DDDDDDDDD", "--emit=ptx", "-o", str(ptx)])


def main():
    tritonc, ptxas = sys.argv[1], sys.argv[2]
    lists = {path: module_lists(path) for path in (SUITE, OPS)}
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        ptx = Path(tmp) / "k.ptx"
        compiled = set()
        for what, cmd in commands(tritonc, lists, ptx):
            if tuple(cmd) in compiled:  # the same tile in the benchmark's list and in ops'
                continue
            compiled.add(tuple(cmd))
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode != 0 and "bytes of shared memory" in res.stderr:
                # The compiler refuses a tile that no launch could run; the autotuners skip it
                # as they skip any candidate that does not compile.
                print(f"skipped: {what}: {res.stderr.strip().splitlines()[0]}")
                continue
            if res.returncode != 0:
                failures.append(f"{what}: does not compile\n  {' '.join(cmd)}\n{res.stderr}")
                continue
            found, out = spills(ptxas, ptx, tmp)
            if not found:
                failures.append(f"{what}: no spill line in ptxas -v's output:\n{out}")
            elif any(s or l for s, l in found):
                failures.append(f"{what}: {found[0][0]} bytes spill stores, {found[0][1]} bytes "
                                f"spill loads\n  {' '.join(cmd)}")
            else:
                print(f"ok: {what}, no spills")
            checked += 1
    wanted = ({(path, list_name) for _, path, list_name, _ in LISTS} | {(SUITE, "UNALIGNED_CONFIGS")}
              | {(SUITE, entry[1]) for entry in DESC_LISTS}
              | {(OPS, entry[1]) for entry in OPS_DESC_LISTS} | {(SUITE, "CONV_GEMM_CONFIGS")})
    missing = sorted(name for path, name in wanted if name not in lists[path])
    if missing or checked < 70:
        failures.append(f"only {checked} configurations read from {SUITE} and {OPS}; lists missing: "
                        f"{missing}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
