#!/usr/bin/env python3
"""ptxas validation of the bundled kernels: every configuration the kernel test suite uses, and a sweep.

Compiles each configuration to PTX with `tritonc compile --emit=ptx` for sm_90a and sm_80 and assembles it
with `ptxas -arch=<arch> --warning-as-error`. The configurations are

  - every (kernel, defines) of ALL_CONFIGS in tests/kernels/test_kernels.py, the tuning-list configurations
    of its test_matmul_tuning_list (selected with --config=N), and every kernel without any -D, all at the
    default num_warps;
  - a sweep: every test-suite configuration (its tile sizes) with num_warps 1, 2 and 8 too; per kernel,
    default tile sizes with num_warps 1, 2, 4, 8 and, where the kernel has a TYPE macro, TYPE half,
    bfloat16 and float; the dot kernels at larger tiles (LARGE_TILES); every test-suite configuration of
    a dot kernel specialized for aligned sizes (aligned_suite_configs); and the benchmarked matmul tiles
    specialized for aligned sizes, with and without bulk tensor copies (ALIGNED_TILES).

A module also fails when ptxas reports that it serializes the wgmma pipeline (info C7514).

The test-suite configurations are read from test_kernels.py without importing it (it needs numpy and
pytest; this script uses the standard library only): the module-level assignments ALL_CONFIGS depends on
are evaluated on their own. Every failure is printed with a shell command that reproduces it; the exit
status is 1 if any configuration fails.

With --suite-only, only the test-suite configurations (no sweep): the sanitizer build's ctest runs that,
as the compiler under AddressSanitizer is several times slower and the release build runs the sweep.

With --options, every compilation also gets those tritonc options (e.g. --options="--explicit-rings --no-tma"
checks the back end's explicit rings over the same configurations); --arch limits it to one target.

Usage: check-kernels-ptx.py TRITONC PTXAS [--jobs N] [--keep DIR] [--options OPTS] [--arch ARCH]
                           [--suite-only]
"""
import argparse
import ast
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "kernels"
TEST_KERNELS = REPO / "tests" / "kernels" / "test_kernels.py"
ARCHS = ("sm_90a", "sm_80")
SWEEP_WARPS = (1, 2, 4, 8)
SWEEP_TYPES = ("half", "bfloat16", "float")
# Tile sizes of the performance range (the suite's are small so the interpreter stays fast), each with the
# num_warps it would run with: (kernels, tile, num_warps). Not conv: ptxas takes 5 s (64 x 64) to 10 s
# (128 x 128) per module of it, half of this script's time; its suite and sweep configurations stay.
MATMULS = ("matmul.tc", "matmul_grouped.tc", "matmul_persistent.tc", "matmul_splitk.tc")
LARGE_TILES = [
    (MATMULS, {"TM": 64, "TN": 64, "TK": 32}, 4),
    (MATMULS, {"TM": 128, "TN": 128, "TK": 32}, 8),
]
# The benchmarked shapes, specialized as the launcher does for aligned sizes (aligned pointers, integers
# non-negative multiples of 16): the path with shared rings (bulk tensor copies, or cp.async with --no-tma)
# and MMAs in flight.
ALIGNED = "--specialize=DDDSSSSSS"
ALIGNED_TILES = [
    ({"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}, 8),
    ({"TYPE": "bfloat16", "TM": 128, "TN": 128, "TK": 64}, 4),
]
TIMEOUT_S = 300
# tritonc options added to every compilation (--options).
EXTRA_OPTIONS = []
# ptxas "info" lines that are failures all the same: C7510-C7515 say it serializes the wgmma pipeline
# (the code still works, several times slower), e.g. C7514 for an accumulator read and C7515 for one
# written by another instruction while MMAs may be in flight.
PERFORMANCE_LOSS = "wgmma.mma_async instructions are serialized"

# A module ptxas must reject (an undeclared register): shows that this ptxas really checks what it is given.
BAD_PTX = """.version 8.0
.target {arch}
.address_size 64
.visible .entry bad()
{{
	add.s32 %r1, %r2, 1;
	ret;
}}
"""


def names_loaded(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def load_suite_lists(path):
    """Returns (ALL_CONFIGS, tuning-list defines of test_matmul_tuning_list) from test_kernels.py."""
    tree = ast.parse(path.read_text(), str(path))
    assigns = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            assigns[stmt.targets[0].id] = stmt
    if "ALL_CONFIGS" not in assigns:
        raise SystemExit(f"error: {path} has no module-level ALL_CONFIGS")
    # ALL_CONFIGS and the module-level lists it is built from, in file order.
    needed, todo = set(), ["ALL_CONFIGS"]
    while todo:
        name = todo.pop()
        if name in needed or name not in assigns:
            continue
        needed.add(name)
        todo.extend(names_loaded(assigns[name].value))
    body = [s for s in tree.body if isinstance(s, ast.Assign) and s in [assigns[n] for n in needed]]
    namespace = {}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)

    tuning = None
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "test_matmul_tuning_list":
            for inner in ast.walk(stmt):
                if (isinstance(inner, ast.Assign) and isinstance(inner.targets[0], ast.Name)
                        and inner.targets[0].id == "defines"):
                    tuning = ast.literal_eval(inner.value)
                    break
    return namespace["ALL_CONFIGS"], tuning


class Config:
    """One kernel compilation: kernel file, -D definitions, extra tritonc options."""

    def __init__(self, kernel, defines, options=(), origin=""):
        self.kernel = kernel
        self.defines = {str(k): str(v) for k, v in defines.items()}
        self.options = list(options)
        self.origin = origin

    def key(self):
        return (self.kernel, tuple(sorted(self.defines.items())), tuple(sorted(self.options)))

    def compile_cmd(self, tritonc, arch):
        cmd = [tritonc, "compile", str(KERNELS / self.kernel)]
        cmd += [f"-D{k}={v}" for k, v in self.defines.items()]
        return cmd + self.options + ["--emit=ptx", f"--arch={arch}"]

    def describe(self):
        parts = [f"{k}={v}" for k, v in self.defines.items()] + self.options
        return f"{self.kernel} {' '.join(parts) or '(defaults)'}"


def list_configs(tritonc, kernel, defines):
    """The --config indices of a tuning-list compilation."""
    cmd = [tritonc, "compile", str(KERNELS / kernel)] + [f"-D{k}={v}" for k, v in defines.items()]
    res = subprocess.run(cmd + ["--list-configs"], capture_output=True, text=True, timeout=TIMEOUT_S)
    if res.returncode != 0:
        raise SystemExit(f"error: --list-configs failed:\n{shlex.join(cmd)} --list-configs\n{res.stderr}")
    return [line.split(":")[0] for line in res.stdout.splitlines() if line.strip()]


def collect(tritonc):
    all_configs, tuning = load_suite_lists(TEST_KERNELS)
    kernel_files = sorted(p.name for p in KERNELS.glob("*.tc"))
    configs = [Config(k, d, origin="suite") for k, d in all_configs]
    if tuning is not None:
        configs += [Config("matmul.tc", tuning, [f"--config={i}"], "suite")
                    for i in list_configs(tritonc, "matmul.tc", tuning)]
    configs += [Config(k, {}, origin="suite") for k in kernel_files]
    configs += [Config(c.kernel, c.defines, c.options + [f"--num-warps={w}"], "sweep")
                for c in list(configs) for w in SWEEP_WARPS if w != 4]
    for kernel in kernel_files:
        has_type = re.search(r"\bTYPE\b", (KERNELS / kernel).read_text()) is not None
        for warps in SWEEP_WARPS:
            for ty in SWEEP_TYPES if has_type else (None,):
                configs.append(Config(kernel, {"TYPE": ty} if ty else {}, [f"--num-warps={warps}"], "sweep"))
    for kernels, tile, warps in LARGE_TILES:
        for kernel in kernels:
            for ty in SWEEP_TYPES:
                configs.append(Config(kernel, {"TYPE": ty, **tile}, [f"--num-warps={warps}"], "sweep"))
    configs += aligned_suite_configs(all_configs, tritonc)
    for tile, warps in ALIGNED_TILES:
        for extra in ([], ["--no-tma"]):
            configs.append(Config("matmul.tc", tile, [f"--num-warps={warps}", ALIGNED] + extra, "sweep"))
            configs.append(Config("matmul_persistent.tc", tile, [f"--num-warps={warps}", ALIGNED] + extra,
                                  "sweep"))
    unique, seen = [], set()
    for c in configs:
        # num_warps 4 is the default: the same compilation as without --num-warps
        k = c.key()
        k = (k[0], k[1], tuple(o for o in k[2] if o != "--num-warps=4"))
        if k not in seen:
            seen.add(k)
            unique.append(c)
    missing = set(kernel_files) - {k for k, _ in all_configs}
    if missing:
        raise SystemExit(f"error: ALL_CONFIGS has no configuration of {', '.join(sorted(missing))}")
    return unique, sum(1 for c in unique if c.origin == "suite")


def aligned_suite_configs(all_configs, tritonc):
    """The test suite's dot kernels at its tile sizes, specialized as a launch with aligned pointers and
    sizes specializes them: the path with shared rings even at small tiles (an FMA dot's `trans` operand
    at TK=8 was ringed into slots no cp.async can fill, found only on such launches)."""
    out, seen = [], set()
    for kernel, defines in all_configs:
        if "@" not in (KERNELS / kernel).read_text():
            continue
        config = Config(kernel, defines, origin="sweep")
        if config.key() in seen:
            continue
        seen.add(config.key())
        specialize = aligned_specialization(config, tritonc)
        if specialize:
            out.append(Config(kernel, defines, [specialize], "sweep"))
    return out


def check(config, arch, tritonc, ptxas, outdir, index):
    """Compiles and assembles one configuration for one arch; returns (None or a failure report, seconds)."""
    start = time.monotonic()
    try:
        report = compile_and_assemble(config, arch, tritonc, ptxas, outdir, index)
    except subprocess.TimeoutExpired as e:
        report = f"timed out after {TIMEOUT_S} s:\n  {shlex.join(e.cmd)}"
    return report, time.monotonic() - start


def compile_and_assemble(config, arch, tritonc, ptxas, outdir, index):
    ptx_file = Path(outdir) / f"{index:04d}-{config.kernel[:-3]}.{arch}.ptx"
    cmd = config.compile_cmd(tritonc, arch) + EXTRA_OPTIONS
    assemble = [ptxas, f"-arch={arch}", "--warning-as-error", "-o", "/dev/null"]
    # The reproducer writes the module to the current folder (outdir is gone unless --keep).
    repro = f"{shlex.join(cmd)} > {ptx_file.name} && {shlex.join(assemble + [ptx_file.name])}"
    assemble.append(str(ptx_file))
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if res.returncode != 0 or not res.stdout:
        return f"tritonc failed (exit {res.returncode}):\n  {repro}\n{res.stderr.rstrip()}"
    ptx_file.write_text(res.stdout)
    if f".target {arch}" not in res.stdout:
        return f"the PTX does not target {arch}:\n  {repro}"
    res = subprocess.run(assemble, capture_output=True, text=True, timeout=TIMEOUT_S)
    if res.returncode != 0:
        return f"ptxas failed (exit {res.returncode}):\n  {repro}\n{(res.stdout + res.stderr).rstrip()}"
    if PERFORMANCE_LOSS in res.stdout + res.stderr:
        return f"ptxas reports a performance loss:\n  {repro}\n{(res.stdout + res.stderr).rstrip()}"
    return None


def aligned_specialization(config, tritonc, integer="S"):
    """--specialize=... as a launch with every pointer 16-byte aligned and every integer a non-negative
    multiple of 16 (sizes, strides) specializes the configuration's kernel (its first), or None when it has
    no such parameter (used by compare-ptx-counts.py). integer="D" leaves the
    integers' sign unknown (multiples of 16 alone)."""
    cmd = [tritonc, "compile", str(KERNELS / config.kernel)]
    cmd += [f"-D{k}={v}" for k, v in config.defines.items()]
    cmd += [o for o in config.options if o.startswith("--config=")] + ["--emit=ir", "--passes="]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
    match = re.search(r"^define kernel \S+ @[\w.]+\((.*)\) \{$", res.stdout, flags=re.M)
    if res.returncode != 0 or not match or not match.group(1):
        return None
    letters = ["D" if re.match(r"\S+\* ", p) else integer if re.match(r"i(8|16|32|64) ", p) else "N"
               for p in match.group(1).split(", ")]
    return f"--specialize={''.join(letters)}" if set(letters) != {"N"} else None


def ptxas_rejects_bad_module(ptxas, outdir):
    for arch in ARCHS:
        bad = Path(outdir) / f"bad.{arch}.ptx"
        bad.write_text(BAD_PTX.format(arch=arch))
        res = subprocess.run([ptxas, f"-arch={arch}", "--warning-as-error", "-o", "/dev/null", str(bad)],
                             capture_output=True, text=True, timeout=TIMEOUT_S)
        if res.returncode == 0:
            return f"{ptxas} accepted a module with an undeclared register ({bad})"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tritonc")
    parser.add_argument("ptxas")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", help="write the PTX modules to this folder and keep them")
    parser.add_argument("--options", default="", help="tritonc options added to every compilation")
    parser.add_argument("--arch", choices=ARCHS, help="only this target")
    parser.add_argument("--suite-only", action="store_true",
                        help="only the test-suite configurations, not the num_warps/TYPE/tile sweep")
    args = parser.parse_args()
    tritonc, ptxas = os.path.abspath(args.tritonc), args.ptxas
    EXTRA_OPTIONS[:] = shlex.split(args.options)
    archs = (args.arch,) if args.arch else ARCHS

    start = time.monotonic()
    configs, suite = collect(tritonc)
    if args.suite_only:
        configs = [c for c in configs if c.origin == "suite"]
    with tempfile.TemporaryDirectory(prefix="tritonc-ptxas-") as tmp:
        outdir = args.keep or tmp
        os.makedirs(outdir, exist_ok=True)
        bad = ptxas_rejects_bad_module(ptxas, outdir)
        if bad:
            print(f"FAIL: {bad}", file=sys.stderr)
            return 1
        jobs = [(c, arch, i) for i, c in enumerate(configs) for arch in archs]
        failures, seconds = [], []
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(check, c, arch, tritonc, ptxas, outdir, i): (c, arch)
                       for c, arch, i in jobs}
            for future in concurrent.futures.as_completed(futures):
                c, arch = futures[future]
                report, took = future.result()
                seconds.append((took, f"{c.describe()} [{arch}]"))
                if report:
                    failures.append((c.describe(), arch, report))
    elapsed = time.monotonic() - start
    print("slowest: " + "; ".join(f"{what} {took:.1f} s" for took, what in sorted(seconds)[::-1][:3]))
    for what, arch, report in sorted(failures):
        print(f"FAIL: {what} [{arch}] {report}\n", file=sys.stderr)
    print(f"{len(configs)} kernel configurations ({suite} from the test suite, {len(configs) - suite} "
          f"from the num_warps/TYPE/tile sweep) x {len(archs)} archs"
          f"{' with ' + args.options if args.options else ''} assembled: "
          f"{len(jobs) - len(failures)} passed, {len(failures)} failed in {elapsed:.1f} s "
          f"with {args.jobs} jobs")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
