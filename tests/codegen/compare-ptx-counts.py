#!/usr/bin/env python3
"""Compares the PTX of two option sets (or two compilers) over the configurations of check-kernels-ptx.py,
instruction family by family.

Every configuration that check-kernels-ptx.py assembles (the test suite's, the sweep's) is compiled for one
target twice, once with the options of --base (by the compiler --base-tritonc, default TRITONC) and once by
TRITONC with those of --other, and the second module is
assembled with ptxas (--warning-as-error; a serialized wgmma pipeline fails too) where its text differs from
the first's (check-kernels-ptx.py assembles the default). Per module it counts, in the text, the
bulk tensor loads and stores (cp.async.bulk.tensor), the mbarrier operations, the wgmma waits, bar.sync and
cp.async, wgmma and ldmatrix, the dynamic shared memory (a module over the target's limit where the first was not fails)
and the bytes of spill stores ptxas reports (both modules are assembled where they differ),
and prints every configuration whose counts differ, then how many differ in each family. It is a static
count (a loop body counts once), meant to find where two back-end paths make different decisions: an
option against the default (--other=...), or an earlier build against this one (--base-tritonc=...).

With --aligned, every configuration (but those the sweep already specializes) is compiled as a launch with
16-byte aligned buffers and integers that are non-negative multiples of 16 specializes it (--specialize=
D for a pointer, S for an integer), which is where the two paths' bulk tensor copies and stores take effect.
With --signed-base too, the first compilation's integers are multiples of 16 of unknown sign (D) and the
second's as above, and the options of both default to none: what the launch-checked sign buys.

Usage: compare-ptx-counts.py TRITONC PTXAS [--base OPTS] [--other OPTS] [--base-tritonc TRITONC]
                             [--arch ARCH] [--jobs N] [--only SUBSTRING] [--aligned [--signed-base]]
Last, per kernel file (family), how many of its configurations lose something in the second (fewer
bulk tensor copies, or fewer cp.async and no more bulk tensor copies; fewer wgmma; fewer bulk tensor
stores; more bar.sync; more spills).
The exit status is 1 if any module fails to compile or assemble.
"""
import argparse
import concurrent.futures
import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("check_kernels_ptx", HERE / "check-kernels-ptx.py")
check_kernels_ptx = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_kernels_ptx)

# (column, pattern counted per line of PTX)
FAMILIES = [
    ("tma_ld", re.compile(r"cp\.async\.bulk\.tensor\.\d+d\.shared::cluster\.global")),
    ("tma_st", re.compile(r"cp\.async\.bulk\.tensor\.\d+d\.global\.shared::cta")),
    ("mbar", re.compile(r"\bmbarrier\.(init|arrive|expect_tx|try_wait|test_wait)")),
    ("wg_wait", re.compile(r"wgmma\.wait_group")),
    ("bar", re.compile(r"\bbar\.sync\b")),
    ("cp.async", re.compile(r"cp\.async\.c[ag]\.")),
    ("wgmma", re.compile(r"\bwgmma\.mma_async\b")),
    ("ldmatrix", re.compile(r"\bldmatrix\.")),
]
# A loss of the second option set against the first, per module: fewer bulk tensor copies, or fewer cp.async
# without more bulk tensor copies (one bulk copy fills a whole slot where each thread issues cp.async of its
# own vectors, so a ring moved to the copy engine counts fewer copies), fewer wgmma or bulk tensor stores, or
# more bar.sync. Static counts: a rolled PTX loop counts its body once, so more is not always more work.
LOSSES = [
    ("async copies", lambda a, b: b["tma_ld"] < a["tma_ld"] or
     (b["cp.async"] < a["cp.async"] and b["tma_ld"] == a["tma_ld"])),
    ("wgmma", lambda a, b: b["wgmma"] < a["wgmma"]),
    ("tensor stores", lambda a, b: b["tma_st"] < a["tma_st"]),
    ("more bar.sync", lambda a, b: b["bar"] > a["bar"]),
    ("more spills", lambda a, b: b["spill_B"] > a["spill_B"]),
]


# The target's shared memory per program (codegen::sharedMemoryOfTarget): a module that needs more does
# not launch.
SHARED_LIMIT = {"sm_90a": 227 * 1024, "sm_80": 163 * 1024}


def counts(ptx):
    """The count of each family, then the largest dynamic shared memory of a kernel in KB."""
    lines = ptx.splitlines()
    smem = max((int(b) for b in re.findall(r"dynamic shared memory: (\d+) bytes", ptx)), default=0)
    return tuple(sum(1 for line in lines if pattern.search(line)) for _, pattern in FAMILIES) + (
        (smem + 1023) // 1024,)


def compile_ptx(config, arch, options, tritonc):
    """(PTX, None) or (None, failure report)."""
    cmd = config.compile_cmd(tritonc, arch) + options
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=check_kernels_ptx.TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return None, f"tritonc timed out: {shlex.join(cmd)}"
    if res.returncode != 0 or not res.stdout:
        return None, f"tritonc failed: {shlex.join(cmd)}\n{res.stderr.rstrip()}"
    return res.stdout, None


def assemble(ptx, arch, ptxas, path, what):
    """(bytes of spill stores over the module's kernels, None), or (0, a failure report)."""
    path.write_text(ptx)
    try:
        asm = subprocess.run([ptxas, f"-arch={arch}", "--warning-as-error", "-v", "-o", "/dev/null", str(path)],
                             capture_output=True, text=True, timeout=check_kernels_ptx.TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 0, f"ptxas timed out: {what}"
    if asm.returncode != 0 or check_kernels_ptx.PERFORMANCE_LOSS in asm.stdout + asm.stderr:
        return 0, f"ptxas failed: {what}\n{(asm.stdout + asm.stderr).rstrip()}"
    return sum(int(n) for n in re.findall(r"(\d+) bytes spill stores", asm.stdout + asm.stderr)), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tritonc")
    parser.add_argument("ptxas")
    parser.add_argument("--base", default="", help="options of the first compilation (default: none)")
    parser.add_argument("--base-tritonc", help="the compiler of the first compilation (default: TRITONC)")
    parser.add_argument("--other", default="", help="options of the second (default: none)")
    parser.add_argument("--arch", default="sm_90a", choices=check_kernels_ptx.ARCHS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="only configurations whose description contains this")
    parser.add_argument("--aligned", action="store_true",
                        help="specialize every configuration as a launch with aligned sizes would")
    parser.add_argument("--signed-base", action="store_true",
                        help="with --aligned: the first compilation's integers have no sign (D, not S)")
    args = parser.parse_args()
    if args.signed_base and not args.aligned:
        parser.error("--signed-base needs --aligned")
    tritonc = os.path.abspath(args.tritonc)
    base_tritonc = os.path.abspath(args.base_tritonc) if args.base_tritonc else tritonc
    base, other = shlex.split(args.base), shlex.split(args.other)
    # Per configuration, options of the first compilation added after its own (a later --specialize wins).
    base_specs = {}
    configs, _ = check_kernels_ptx.collect(tritonc)
    configs = [c for c in configs if args.only in c.describe()]
    if args.aligned:
        specialized = []
        for c in configs:
            if any(o.startswith("--specialize") for o in c.options):
                continue
            spec = check_kernels_ptx.aligned_specialization(c, tritonc)
            if spec:
                specialized.append(check_kernels_ptx.Config(c.kernel, c.defines, c.options + [spec], c.origin))
                if args.signed_base:
                    base_specs[specialized[-1].key()] = [
                        check_kernels_ptx.aligned_specialization(c, tritonc, integer="D")]
        configs = specialized

    def both(config):
        """(config, base counts, other counts, identical text, failure reports)."""
        base_options = base + base_specs.get(config.key(), [])
        (pa, fa), (pb, fb) = (compile_ptx(config, args.arch, o, t)
                              for o, t in ((base_options, base_tritonc), (other, tritonc)))
        fails = [f for f in (fa, fb) if f]
        if fails or pa == pb:
            # Identical text needs assembling once; check-kernels-ptx.py does it for the default.
            return config, None, None, not fails, fails
        with tempfile.TemporaryDirectory(prefix="tritonc-compare-") as tmp:
            what = shlex.join(config.compile_cmd(tritonc, args.arch) + other)
            spills_b, f = assemble(pb, args.arch, args.ptxas, Path(tmp) / "other.ptx", what)
            if f:
                fails.append(f)
            spills_a, f = assemble(pa, args.arch, args.ptxas, Path(tmp) / "base.ptx",
                                   shlex.join(config.compile_cmd(base_tritonc, args.arch) + base_options))
            if f:
                fails.append(f)
        ca, cb = counts(pa) + (spills_a,), counts(pb) + (spills_b,)
        if cb[-2] * 1024 > SHARED_LIMIT[args.arch] >= ca[-2] * 1024:
            fails.append(f"{cb[-2]} KB of shared memory, more than {args.arch} has: {what}")
        return config, ca, cb, False, fails

    differ, failures, identical, same_counts = [], [], 0, 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for config, ca, cb, same, fails in pool.map(both, configs):
            failures += fails
            identical += same
            if ca and cb and ca != cb:
                differ.append((config.describe(), ca, cb))
            elif ca and cb:
                same_counts += 1
    names = [name for name, _ in FAMILIES] + ["smem_KB", "spill_B"]
    print(" ".join(f"{n:>9}" for n in names) + "  configuration")
    for what, ca, cb in sorted(differ):
        cells = [f"{x}->{y}" if x != y else str(x) for x, y in zip(ca, cb)]
        print(" ".join(f"{c:>9}" for c in cells) + "  " + what)
    per_family = [sum(1 for _, ca, cb in differ if ca[i] != cb[i]) for i in range(len(names))]
    signs = " (aligned integers D against S)" if args.signed_base else ""
    compilers = f" ({base_tritonc} against {tritonc})" if base_tritonc != tritonc else ""
    print(f"{len(configs)} configurations for {args.arch}, base '{args.base}' against '{args.other}'{signs}"
          f"{compilers}: "
          f"{identical} identical PTX, {same_counts} other PTX with the same counts, {len(differ)} differ ("
          + ", ".join(f"{n} {k}" for n, k in zip(names, per_family)) + f"); "
          f"{len(failures)} failed")
    by_kernel = {}
    for what, ca, cb in differ:
        a, b = dict(zip(names, ca)), dict(zip(names, cb))
        lost = by_kernel.setdefault(what.split()[0], {name: 0 for name, _ in LOSSES})
        for name, test in LOSSES:
            lost[name] += test(a, b)
    losing = {k: v for k, v in sorted(by_kernel.items()) if any(v.values())}
    print("losses by kernel (configurations): " +
          ("; ".join(f"{k}: " + ", ".join(f"{n} {c}" for n, c in v.items() if c) for k, v in losing.items())
           or "none"))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
