"""Compile time of the 128×256×64 fp16 matmul (cold: fresh kernel cache, driver JIT cache off), split
into our phases and the PTX -> SASS step, and the `ptxas -v` / `cuobjdump --dump-sass` report of the
benchmarked kernels (registers, spills, HGMMA instructions)."""
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import torch

import tritonc
from common import KERNELS, find_tool
from measurements import REFERENCE_HOST_MS

MATMUL_DEFINES = {"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}
HOST_PHASES = ("preprocess", "parse", "irgen", "passes", "codegen", "cache")
# The PTX of this matmul as commit 9dc2b63 emitted it: a yardstick for the host's speed (its ptxas
# command-line time on the host of the 38th run is REFERENCE_HOST_MS).
REFERENCE_PTX = Path(__file__).resolve().parent / "reference" / "matmul_128x256x64_9dc2b63.ptx"


def cold_compile(results, repeats):
    """First use in this process (compile() and the first launch, through the fresh on-disk cache),
    then `repeats` more cold compiles without any cache; the medians are recorded per phase."""
    size = 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    c = torch.empty(size, size, device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    path = str(KERNELS / "matmul.tc")
    start = time.perf_counter()
    k = tritonc.compile(path, defines=MATMUL_DEFINES, num_warps=8, num_stages=3)
    compile_call = time.perf_counter() - start
    start = time.perf_counter()
    k[(size // 128, size // 256)](a, b, c, size, size, size, size, size, size)
    torch.cuda.synchronize()
    first_launch = time.perf_counter() - start
    spec = k.last_specialization
    first = k.timings(spec)
    s = results.scalars
    s["compile: tritonc.compile() call, first in process (generic variant) [ms]"] = compile_call * 1e3
    s["compile: first launch incl. specialized compile + load + run [ms]"] = first_launch * 1e3
    s["compile: first in process, total of the launched variant [ms]"] = first["total"] * 1e3

    samples = []
    for _ in range(repeats):
        kern = tritonc.compile(path, defines=MATMUL_DEFINES, num_warps=8, num_stages=3, cache=False)
        samples.append(kern.load(spec))
    # No cache here, so no cache phase.
    for phase in ("preprocess", "parse", "irgen", "passes", "codegen", "load", "total"):
        s[f"compile: {phase} (median of {repeats}) [ms]"] = statistics.median(t[phase] for t in samples) * 1e3
    host = statistics.median(sum(t[p] for p in HOST_PHASES) for t in samples)
    s["compile: our passes, host (preprocess..codegen) [ms]"] = host * 1e3
    load = s[f"compile: load (median of {repeats}) [ms]"]
    s["compile: PTX -> SASS in the driver (module load) [ms]"] = load
    s["compile: cold total, source -> loaded module [ms]"] = s[f"compile: total (median of {repeats}) [ms]"]

    ptxas = find_tool("ptxas", "TRITONC_PTXAS")
    if ptxas:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "matmul.ptx"
            src.write_text(k.variant_ptx(spec))
            # The same ptxas on a fixed PTX, interleaved: the host's speed, which moves the cold compile
            # by a third from one lent machine to the next.
            times = {src: [], REFERENCE_PTX: []}
            for _ in range(3):
                for ptx in times:
                    start = time.perf_counter()
                    subprocess.run([ptxas, f"-arch={k.arch}", str(ptx), "-o", str(Path(tmp) / "m.cubin")],
                                   check=True, capture_output=True)
                    times[ptx].append(time.perf_counter() - start)
            s["compile: ptxas command line on the same PTX (median of 3, for reference) [ms]"] = \
                statistics.median(times[src]) * 1e3
            s[f"compile: ptxas command line on {REFERENCE_PTX.name} (median of 3; "
              f"{REFERENCE_HOST_MS} ms on run 38's host) [ms]"] = statistics.median(times[REFERENCE_PTX]) * 1e3
    print("   " + "\n   ".join(f"{k_}: {v:.2f}" for k_, v in s.items() if k_.startswith("compile")))


def _ptxas_info(stderr):
    regs = re.search(r"Used (\d+) registers", stderr)
    stores = re.search(r"(\d+) bytes spill stores", stderr)
    loads = re.search(r"(\d+) bytes spill loads", stderr)
    return (int(regs.group(1)) if regs else None, int(stores.group(1)) if stores else None,
            int(loads.group(1)) if loads else None)


def ptxas_report(results, out_dir):
    """`ptxas -v` of every benchmarked kernel (the variant that was launched) and the number of HGMMA
    instructions in its SASS; writes ptxas.txt. Fails when the tools are missing."""
    ptxas, cuobjdump = find_tool("ptxas", "TRITONC_PTXAS"), find_tool("cuobjdump")
    if not ptxas or not cuobjdump:
        raise RuntimeError(f"ptxas ({ptxas}) or cuobjdump ({cuobjdump}) not found "
                           "(PATH, /usr/local/cuda/bin, $TRITONC_PTXAS)")
    seen = {}  # (kernel, specialization) -> (registers, spill stores, spill loads, HGMMA, info)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, kern, spec in results.kernels:
            shared = kern.variant_shared_mem(spec) if spec else kern.shared_mem
            key = (id(kern), spec)
            if key in seen:
                regs, stores, loads, hgmma, info = seen[key]
                results.ptxas.append((label, regs, stores, loads, shared, hgmma))
                lines.append(f"{label} [{spec or 'generic'}]: {info}")
                continue
            src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
            src.write_text(kern.variant_ptx(spec) if spec else kern.ptx)
            res = subprocess.run([ptxas, "-v", f"-arch={kern.arch}", str(src), "-o", str(cubin)],
                                 capture_output=True, text=True)
            if res.returncode != 0:
                raise RuntimeError(f"ptxas failed on {label}:\n{res.stderr}")
            regs, stores, loads = _ptxas_info(res.stderr)
            sass = subprocess.run([cuobjdump, "--dump-sass", str(cubin)], capture_output=True,
                                  text=True, check=True).stdout
            hgmma = sum(1 for line in sass.splitlines() if "HGMMA" in line)
            results.ptxas.append((label, regs, stores, loads, shared, hgmma))
            info = "; ".join(line.split("info    : ", 1)[-1].strip() for line in res.stderr.splitlines()
                             if "Used" in line or "spill" in line)
            info += f"; dynamic shared memory {shared} bytes; HGMMA in SASS: {hgmma}"
            seen[key] = (regs, stores, loads, hgmma, info)
            lines.append(f"{label} [{spec or 'generic'}]: {info}")
    (out_dir / "ptxas.txt").write_text("\n".join(lines) + "\n")
    for line in lines:
        print("   ptxas: " + line)

