#!/usr/bin/env python3
"""The wgmma loops of GPU-level IR against the planner's, per kernel configuration, on sm_90a.

For every configuration of check-kernels-ptx.py (the test suite's and the sweep's), compiles the kernel for
sm_90a twice without bulk tensor copies: as the lowering's planner makes its rings (`--no-tma
--no-explicit-rings`, which also leaves the mma.sync loops to it) and as GPU-level IR (`--no-tma`, the
default list: async-rings, accelerate-dot, accumulator-init, insert-barriers, mma-in-flight), assembles the second with ptxas (`--warning-as-error`; a module whose wgmma pipeline ptxas
serializes fails too), and compares what decides the loop's overlap:

  wait0, wait>0   `wgmma.wait_group 0` and `wgmma.wait_group N` with N > 0 (a group in flight; the
                  planner's rolled k-step loop waits N = k-steps x in-flight dots, the IR's waits 1)
  bar             `bar.sync`
  copies          `cp.async.{cg,ca}` instructions
  slots           the slot counts of the rings, from the remarks (`async-copy` for the planner's rings,
                  `async-rings` for GPU-level IR's)

With --aligned, every configuration is compiled as a launch with 16-byte aligned pointers and integer
arguments that are multiples of 16 specializes it (`--specialize`, D for each pointer and integer parameter
of the kernel, N for the others), the case where cp.async copies 16 bytes and the rings exist; without,
as written (most configurations then copy narrower vectors, and both forms leave their loads to registers).

Configurations whose two modules are the same text are counted, not listed (the flag changes only loops
with rings). The others are listed with both columns; rows that differ in those counts are marked.
The exit status is 1 if a compilation or ptxas fails, not for a difference (the differences are to be
explained, see docs/BACKEND-NOTES.md).

Usage: compare-wgmma-rings.py TRITONC PTXAS [--jobs N] [--only SUBSTRING] [--aligned]
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
PLANNER = ["--no-tma", "--no-explicit-rings"]
EXPLICIT = ["--no-tma"]
REMARKS = ["--remarks=passed:async-copy,async-rings"]


def load_checker():
    spec = importlib.util.spec_from_file_location("check_kernels_ptx", HERE / "check-kernels-ptx.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counts(ptx, remarks):
    waits = [int(n) for n in re.findall(r"wgmma\.wait_group\.sync\.aligned (\d+);", ptx)]
    slots = {int(n) for n in re.findall(r"ring of (\d+) shared-memory slots", remarks)}
    slots |= {int(n) for n in re.findall(r"rings of (\d+) slots", remarks)}
    return {
        "wait0": sum(1 for n in waits if n == 0),
        "wait>0": sum(1 for n in waits if n > 0),
        "bar": len(re.findall(r"\bbar\.sync\b", ptx)),
        "copies": len(re.findall(r"\bcp\.async\.c[ag]\.", ptx)),
        "slots": ",".join(map(str, sorted(slots))) or "-",
    }


def aligned_launch(config, tritonc, checker):
    """--specialize for the first kernel of the configuration as an aligned launch (none where the
    configuration specializes already or has nothing to specialize)."""
    if any(o.startswith("--specialize") for o in config.options):
        return []
    spec = checker.aligned_specialization(config, tritonc)
    return [spec] if spec else []


def compile_ptx(config, tritonc, options, out):
    cmd = config.compile_cmd(tritonc, "sm_90a") + options + REMARKS + ["-o", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0:
        raise RuntimeError(f"tritonc failed:\n  {shlex.join(cmd)}\n{res.stderr.rstrip()}")
    return out.read_text(), res.stderr


def compare(config, index, tritonc, ptxas, tmp, loss_text):
    planner_ptx, planner_remarks = compile_ptx(config, tritonc, PLANNER, Path(tmp) / f"{index}.p.ptx")
    explicit_file = Path(tmp) / f"{index}.x.ptx"
    explicit_ptx, explicit_remarks = compile_ptx(config, tritonc, EXPLICIT, explicit_file)
    res = subprocess.run([ptxas, "-arch=sm_90a", "--warning-as-error", "-o", "/dev/null", str(explicit_file)],
                         capture_output=True, text=True, timeout=600)
    if res.returncode != 0 or loss_text in res.stdout + res.stderr:
        cmd = shlex.join(config.compile_cmd(tritonc, "sm_90a") + EXPLICIT)
        raise RuntimeError(f"ptxas failed on:\n  {cmd}\n{(res.stdout + res.stderr).rstrip()}")
    if planner_ptx == explicit_ptx:
        return None
    return counts(planner_ptx, planner_remarks), counts(explicit_ptx, explicit_remarks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tritonc")
    parser.add_argument("ptxas")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", default="", help="only configurations whose description contains this")
    parser.add_argument("--aligned", action="store_true", help="compile each as an aligned launch")
    args = parser.parse_args()
    tritonc = os.path.abspath(args.tritonc)
    checker = load_checker()
    configs, _ = checker.collect(tritonc)
    configs = [c for c in configs if args.only in c.describe()]
    if args.aligned:
        configs = [checker.Config(c.kernel, c.defines, c.options + aligned_launch(c, tritonc, checker), c.origin)
                   for c in configs]
        unique = {c.key(): c for c in configs}
        configs = list(unique.values())
    rows, failures, same = [], [], 0
    with tempfile.TemporaryDirectory(prefix="tritonc-wgmma-rings-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = {pool.submit(compare, c, i, tritonc, args.ptxas, tmp, checker.PERFORMANCE_LOSS): c
                       for i, c in enumerate(configs)}
            for future in concurrent.futures.as_completed(futures):
                config = futures[future]
                try:
                    result = future.result()
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    failures.append(f"{config.describe()}: {e}")
                    continue
                if result is None:
                    same += 1
                else:
                    rows.append((config.describe(), *result))
    keys = ["wait0", "wait>0", "bar", "copies", "slots"]
    print("| configuration | " + " | ".join(f"{k} planner / IR" for k in keys) + " | |")
    print("|---|" + "---|" * (len(keys) + 1))
    for what, planner, explicit in sorted(rows):
        differs = [k for k in keys if planner[k] != explicit[k]]
        cells = " | ".join(f"{planner[k]} / {explicit[k]}" for k in keys)
        print(f"| {what} | {cells} | {'differs: ' + ', '.join(differs) if differs else ''} |")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    print(f"\n{len(configs)} sm_90a configurations{' (aligned launches)' if args.aligned else ''}: "
          f"{same} with the same PTX, {len(rows)} different (listed), {len(failures)} failed; ptxas "
          f"accepted {same + len(rows)} modules compiled with --no-tma")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
