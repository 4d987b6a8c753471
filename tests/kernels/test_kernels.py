"""Numerical tests of the bundled Triton-C kernels (kernels/*.tc) on the interpreter.

Each test launches a kernel through `tritonc run --interpret` on fresh random inputs (see conftest.py for
the seed), with problem sizes that are not multiples of the tile sizes and padded leading dimensions, and
compares the result with a float64 numpy reference. Outputs and the padding of every buffer are poisoned
(NaN or a sentinel) before the launch, so unwritten outputs, stray writes and reads of padding show up.

The binary is $TRITONC, or build/tools/tritonc/tritonc in the repository.

With TRITONC_TEST_DEVICE=1 (scripts/gpu-test on a machine with a GPU) every launch runs on the GPU with
`tritonc run --device`, is checked against the reference like on the interpreter, and is also run on the
interpreter with the same inputs: the two must agree on every output buffer (integers exactly, floats up
to rounding differences of summation order). TRITONC_TEST_SANITIZER=memcheck|racecheck runs the device
launches under compute-sanitizer and fails on any report.
"""
import math
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "kernels"
TRITONC = os.environ.get("TRITONC", str(REPO / "build" / "tools" / "tritonc" / "tritonc"))
TIMEOUT_S = int(os.environ.get("TRITONC_TEST_TIMEOUT", "300"))
ON_DEVICE = os.environ.get("TRITONC_TEST_DEVICE", "") == "1"
SANITIZER = os.environ.get("TRITONC_TEST_SANITIZER", "")
# Agreement of GPU and interpreter results, per numpy dtype: (rtol, atol relative to the buffer's largest
# magnitude). Both sides round to the buffer's type; they may sum in different orders.
AGREEMENT = {np.float16: (4e-3, 4e-3), np.float32: (2e-5, 2e-5), np.float64: (1e-12, 1e-12)}

# Triton-C scalar type -> numpy dtype of its buffers (bfloat16 travels as its uint16 bit pattern).
NP_TYPES = {
    "bool": np.bool_,
    "char": np.int8,
    "unsigned char": np.uint8,
    "short": np.int16,
    "unsigned short": np.uint16,
    "int": np.int32,
    "unsigned": np.uint32,
    "long": np.int64,
    "unsigned long": np.uint64,
    "half": np.float16,
    "bfloat16": np.uint16,
    "float": np.float32,
    "double": np.float64,
}

# (rtol, atol) for comparing a result stored in TYPE with a float64 reference; atol is scaled by the
# magnitude the test expects (e.g. sqrt(K) for a dot product of K terms in [-1, 1]). half and bfloat16 allow
# about two units in the last place: references emulate every rounding to TYPE that the kernel does (see
# rounder()), so what remains is the final rounding plus float-versus-float64 accumulation.
TOLERANCES = {
    "half": (2e-3, 2e-3),
    "bfloat16": (1.6e-2, 1.6e-2),
    "float": (1e-5, 1e-5),
    "double": (1e-12, 1e-12),
}

BF16_NAN = np.uint16(0x7FC0)
INT_SENTINEL = -0x2152411  # poison of signed integer buffers (the type's minimum for char and short)


# ---------------------------------------------------------------------------------------------------------
# Launch helpers
# ---------------------------------------------------------------------------------------------------------


def cdiv(a, b):
    return (a + b - 1) // b


def define_args(defines):
    return [f"-D{k}={v}" for k, v in defines.items()]


def tritonc(args, stdin=None):
    """Runs tritonc with args; returns the CompletedProcess."""
    return subprocess.run([TRITONC] + args, input=stdin, capture_output=True, text=True,
                          timeout=TIMEOUT_S)


def format_cmd(cmd):
    return " ".join(f"'{c}'" if any(ch in c for ch in " ,:^[]") else c for c in cmd)


class Launcher:
    """Runs kernels through `tritonc run --interpret`, one fresh directory per launch."""

    def __init__(self, tmp_path, pipeline_args=(), same_bits_as_default=False, specialize=False,
                 default_args=()):
        """same_bits_as_default: also run each launch after the default passes (on the interpreter; or
        default_args) and require every output buffer to be identical byte for byte (a differential test
        of the passes in pipeline_args)."""
        self.tmp_path = tmp_path
        self.pipeline_args = list(pipeline_args)
        self.same_bits_as_default = same_bits_as_default
        self.default_args = list(default_args)
        # specialize: on the interpreter, run pipeline_args on the kernel's IR with the facts a GPU launch
        # specializes on (16-byte aligned buffers, integers that are multiples of 16) written into its
        # parameters, as the back end's passes see them (see specialized_ir).
        self.specialize = specialize
        self.count = 0

    def __call__(self, kernel, defines, grid, args, extra=(), computed_in=None):
        """args: list of (parameter name, value) in parameter order; a numpy array is passed as a .npy
        buffer, anything else as a literal. Returns {name: array after the launch} for every buffer.
        computed_in: the float type a kernel computes double data in (GPU/interpreter agreement then
        allows that type's rounding differences)."""
        self.count += 1
        workdir = self.tmp_path / f"launch{self.count}"
        indir, outdir = workdir / "in", workdir / "out"
        indir.mkdir(parents=True)
        outdir.mkdir()
        def command(mode, outdir, pipeline_args=self.pipeline_args):
            if self.specialize and pipeline_args is self.pipeline_args and mode == "--interpret":
                source = specialized_ir(kernel, defines, extra, args, workdir / "specialized.tir")
                cmd = [TRITONC, "run", str(source)]
                cmd += [e for e in extra if not e.startswith(("--passes=", "--config="))] + pipeline_args
            else:
                cmd = [TRITONC, "run", str(KERNELS / kernel)] + define_args(defines)
                cmd += list(extra) + pipeline_args
            cmd += ["--grid", ",".join(str(g) for g in grid), mode, "--out", str(outdir)]
            for name, value in args:
                if isinstance(value, np.ndarray):
                    path = indir / f"{name}.npy"
                    if not path.exists():
                        np.save(path, value)
                    cmd.append(str(path))
                elif isinstance(value, float):
                    cmd.append(repr(value))
                else:
                    cmd.append(str(int(value)))
            return cmd

        def run(cmd):
            if SANITIZER and "--device" in cmd:
                cmd = ["compute-sanitizer", "--tool", SANITIZER, "--error-exitcode", "3"] + cmd
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
            assert res.returncode == 0, (f"tritonc run failed (exit {res.returncode}):\n{format_cmd(cmd)}\n"
                                         f"{res.stdout}{res.stderr}")
            if SANITIZER and "--device" in cmd:
                # memcheck ends with "ERROR SUMMARY: 0 errors", racecheck with "RACECHECK SUMMARY: 0
                # hazards displayed (0 errors, 0 warnings)".
                report = res.stdout + res.stderr
                assert "ERROR SUMMARY: 0 errors" in report or "(0 errors, 0 warnings)" in report, report

        run(command("--device" if ON_DEVICE else "--interpret", outdir))
        ws_log = os.environ.get("TRITONC_WS_LOG", "")
        if ws_log and self.pipeline_args in (["--passes=" + WS_PASSES], ["--passes=" + WS_IR_PASSES]):
            source = command("--interpret", outdir)[2]
            opt = tritonc(["opt", source, self.pipeline_args[0], "--remarks=missed:warp-specialize"])
            log_warp_specialization(ws_log, kernel, defines, grid, "warp_specialize" in opt.stdout,
                                    opt.stderr)
        elif ws_log and self.pipeline_args in BACKEND_WS_VARIANTS.values():
            source = command("--interpret", outdir)[2]
            ptx = tritonc(["compile", source, "--emit=ptx", "--remarks=missed:warp-specialize"]
                          + [e for e in extra if not e.startswith(("--passes=", "--config="))]
                          + self.pipeline_args[1:])
            log_warp_specialization(ws_log, kernel, defines, grid, "setmaxnreg" in ptx.stdout, ptx.stderr,
                                    " ".join(self.pipeline_args[1:]))
        if self.same_bits_as_default and not ON_DEVICE:
            default_dir = workdir / "default"
            default_dir.mkdir()
            run(command("--interpret", default_dir, pipeline_args=self.default_args))
            for name, value in args:
                if isinstance(value, np.ndarray):
                    got, want = np.load(outdir / f"{name}.npy"), np.load(default_dir / f"{name}.npy")
                    assert got.tobytes() == want.tobytes(), (
                        f"{kernel} {name}: {' '.join(self.pipeline_args)} changes the result bits")
        if ON_DEVICE:
            interp_dir = workdir / "interp"
            interp_dir.mkdir()
            run(command("--interpret", interp_dir))
            for name, value in args:
                if isinstance(value, np.ndarray):
                    gpu, ref = np.load(outdir / f"{name}.npy"), np.load(interp_dir / f"{name}.npy")
                    if np.issubdtype(gpu.dtype, np.floating):
                        if computed_in == "tf32":  # tensor cores round f32 inputs to 10-bit mantissas
                            rtol, atol = 4e-3, 4e-3
                        else:
                            rtol, atol = AGREEMENT[np.float32 if computed_in == "float" and gpu.dtype == np.float64
                                                   else gpu.dtype.type]
                        finite = ref[np.isfinite(ref)]
                        scale = float(np.max(np.abs(finite))) if finite.size else 1.0
                        np.testing.assert_allclose(gpu, ref, rtol=rtol, atol=atol * max(scale, 1.0),
                                                   err_msg=f"{kernel} {name}: GPU and interpreter differ")
                    elif gpu.dtype == np.uint16 and defines.get("TYPE") == "bfloat16":
                        g = (gpu.astype(np.uint32) << 16).view(np.float32)
                        r = (ref.astype(np.uint32) << 16).view(np.float32)
                        finite = r[np.isfinite(r)]
                        scale = float(np.max(np.abs(finite))) if finite.size else 1.0
                        np.testing.assert_allclose(g, r, rtol=3e-2, atol=3e-2 * max(scale, 1.0),
                                                   err_msg=f"{kernel} {name}: GPU and interpreter differ")
                    else:
                        np.testing.assert_array_equal(
                            gpu, ref, err_msg=f"{kernel} {name}: GPU and interpreter differ")
        results = {}
        for name, value in args:
            if isinstance(value, np.ndarray):
                out = np.load(outdir / f"{name}.npy")
                assert out.dtype == value.dtype, f"{name}: dtype {out.dtype}, expected {value.dtype}"
                assert out.size == value.size, f"{name}: {out.size} elements, expected {value.size}"
                results[name] = out.reshape(value.shape)
        return results


def log_warp_specialization(path, kernel, defines, grid, split, remarks, options=""):
    """TRITONC_WS_LOG: one line per launch, whether warp-specialize split the kernel or why not."""
    why = re.findall(r"not warp-specialized: (.*) \[missed", remarks)
    with open(path, "a") as log:
        log.write(f"{kernel} {config_id(defines)} grid={grid}{' ' + options if options else ''} "
                  f"{'split' if split else 'declined: ' + (why[0] if why else 'no wgmma')}\n")


# Every launch runs twice: after the default pass pipeline and with no passes at all, so that a pass that
# changes a kernel's result fails against the reference even where the unoptimized IR is right.
# On the GPU, every launch also runs with 1, 2 and 8 warps per program (the layouts differ with the warp
# count); the interpreter ignores --num-warps, so these variants exist only in device mode.
WARP_VARIANTS = ["warps1", "warps2", "warps8"] if ON_DEVICE else []
def specialized_ir(kernel, defines, extra, args, path):
    """The kernel's IR straight out of IRGen (no passes) with the argument facts a GPU launch specializes
    on written into its parameters: `aligned(16)` on the pointers (the interpreter's buffers are 16-byte
    aligned), `multipleof(16)` on the integers the launch passes as multiples of 16 and `nonnegative` on
    those it passes >= 0 (runtime::specializationString). On the GPU the back end's passes run after that
    specialization; on the interpreter, passes that depend on it (bulk tensor copies need 16-byte aligned
    bases and strides, and non-negative coordinates) see the same facts this way."""
    compiled = tritonc(["compile", str(KERNELS / kernel)] + define_args(defines)
                       + [e for e in extra if not e.startswith("--passes=")] + ["--emit=ir", "--passes="])
    assert compiled.returncode == 0, compiled.stderr
    facts = []
    for _, value in args:
        if isinstance(value, np.ndarray):
            facts.append([" aligned(16)"])
        elif isinstance(value, float) or isinstance(value, (bool, np.bool_)):
            facts.append([])  # flags: 'N' whatever their value
        else:
            facts.append(([" multipleof(16)"] if int(value) % 16 == 0 else [])
                         + ([" nonnegative"] if int(value) >= 0 else []))

    def specialize(match):
        params = match.group(2).split(", ")
        if len(params) != len(facts):
            return match.group(0)
        for i, fact in enumerate(facts):
            if re.match(r"i1 ", params[i]):
                continue
            for f in fact:
                if f.split("(")[0] not in params[i]:
                    params[i] += f
        return match.group(1) + ", ".join(params) + match.group(3)

    text = re.sub(r"^(define kernel \S+ @[\w.]+\()(.*)(\) \{)$", specialize, compiled.stdout, flags=re.M)
    path.write_text(text)
    return path


# The default pipeline (transform::defaultPipeline()) followed by lower-tensor-descs (tensor descriptor
# accesses as masked gathers), simplifycfg and pipeline.
PIPELINED_PASSES = "peephole,constfold,cse,licm,cse,dce,lower-tensor-descs,simplifycfg,pipeline"
# ... and the pipelined dot operands as cp_async copies into shared-memory rings (GPU-level IR), each
# refill issued before the slot reads of its iteration (schedule-refills), the dots that read both operands
# from swizzled slots and run on wgmma (sm_90a, 4 warps) as wgmma on the slots (accelerate-dot,
# accumulator-init), ordered by the barriers insert-barriers places, with one group in flight across the
# back edge where the refills allow it (mma-in-flight, after the barriers as in the back end), placed in
# shared memory by allocate-shared.
RINGS_PASSES = (PIPELINED_PASSES + ",async-rings,schedule-refills,accelerate-dot{num-warps=4,wgmma},"
                "accumulator-init,insert-barriers,mma-in-flight,allocate-shared")
# ... and every tile's layout written into its type (coalesce for the global accesses, assign-layouts for the
# rest), with explicit convert_layout, and the barriers of the lowering's own scratch and global accesses
# (insert-barriers{lowering}, as the back end runs it last).
LAYOUTS_PASSES = RINGS_PASSES + ",coalesce,assign-layouts,insert-barriers{lowering}"
# The back end's list with --no-tma for 8 warps (two warpgroups; codegen::backendPasses,
# without schedule-refills): rings one slot deeper for the wgmma dots, the wgmma passes, the layouts, the
# barriers, then mma-in-flight, which sees the barrier at the top of the body and leaves each group in flight.
# On IR with the launch's facts (specialized_ir), as the back end sees it.
RINGS_W8_PASSES = (PIPELINED_PASSES + ",async-rings{num-warps=8,wgmma},accelerate-dot{num-warps=8,wgmma},"
                   "accumulator-init,cse,dce,coalesce{num-warps=8,wgmma},assign-layouts{num-warps=8,wgmma},"
                   "insert-barriers{num-warps=8,lowering},mma-in-flight{num-warps=8},allocate-shared")
# The rings filled by bulk tensor copies on mbarriers where their fills read boxes of one tensor
# (tensor-copies; remat-inductions first, as in the back end, so that pointers are affine in the loop
# counter), and epilogue stores as bulk tensor stores (tensor-stores); tensor descriptor loads as bulk
# tensor copies where their strides allow, and those feeding a dot in a loop as gathers whose rings
# tensor-copies fills with bulk tensor copies (lower-tensor-descs{tma,rings}). Both need the facts a GPU
# launch specializes on (16-byte aligned buffers and strides): the variant runs them on IR with those facts
# written into the parameters (specialized_ir).
TMA_PASSES = (PIPELINED_PASSES.replace("lower-tensor-descs,simplifycfg",
                                       "lower-tensor-descs{tma,rings},remat-inductions,simplifycfg")
              + ",async-rings,tensor-copies,tensor-stores,insert-barriers,allocate-shared")
# On the interpreter, every launch also runs after the default pipeline followed by simplifycfg and pipeline
# (loads feeding a dot issued iterations ahead; see test_pipeline_same_results), and after those and
# async-rings, schedule-refills, the wgmma passes and insert-barriers (the interpreter fails a wrong wait
# count, a missing barrier or proxy fence, or a slot refilled while a wgmma group in flight reads it), and
# after those and assign-layouts, and with bulk tensor copies and stores (the interpreter fails a wrong
# mbarrier phase, a missing wait or fence), and after the back end's 8-warp list for the wgmma loops with
# --no-tma (rings_w8). All must give the default pipeline's result bit for bit: a
# differential test of the passes over every bundled configuration.
# The back end's whole list as generatePTX runs it for sm_90a (codegen::backendPasses; `tritonc run
# --interpret --backend-passes`) with TMA on (async-rings, tensor-copies, accelerate-dot, accumulator-init,
# tensor-stores, coalesce, assign-layouts, insert-barriers, mma-in-flight, allocate-shared, with the target's facts and the
# launch's options), on IR with the launch's facts written into the parameters (specialized_ir). The back
# end pads tiles to powers of two first, which reassociates reductions over padded extents: the reference is
# the default pipeline followed by pad-tiles.
# The tma list with the wgmma passes (one group in flight across the back edge: mma-in-flight, for one
# warpgroup), then warp-specialize (not in the back end's list yet): a kernel whose wgmma loops read rings
# only bulk tensor copies fill becomes a producer partition issuing the fills and a consumer partition running
# the wgmmas and the epilogue, which the interpreter runs as coroutines (it fails a slot refilled while a
# wgmma reads it, a missing release, a deadlock); then the barriers per partition and allocate-shared over
# the fork. Other kernels run the same list unsplit. With TRITONC_WS_LOG=FILE each launch of this variant
# and of ws_ir (below) appends whether the pass split its kernel, or why not, to FILE.
WS_PASSES = (PIPELINED_PASSES.replace("lower-tensor-descs,simplifycfg",
                                      "lower-tensor-descs{tma,rings},remat-inductions,simplifycfg")
             + ",async-rings{num-warps=4,wgmma,trans},tensor-copies,accelerate-dot{num-warps=4,wgmma},"
             "accumulator-init,tensor-stores,cse,dce,mma-in-flight,warp-specialize,dce,insert-barriers,"
             "allocate-shared")
# The hand-written GPU-level kernels with TMA rings (tests/kernels/gpuir) after the default pipeline and
# warp-specialize (their groups left in flight go back one iteration later), placed in shared memory.
WS_IR_PASSES = "peephole,constfold,cse,licm,cse,dce,warp-specialize,dce,allocate-shared"
BACKEND_ARGS = ["--backend-passes"]
# The back end's whole list with its option --warp-specialize (`backend_ws`, and `backend_ws_w8` with 8
# consumer warps): the kernels the pass splits run a producer and a consumer partition, with one wgmma group
# in flight (mma-in-flight{warp-specialized} before the split), the others the list without the option.
# TRITONC_WS_LOG=FILE logs them as for `ws`.
BACKEND_WS_VARIANTS = {"backend_ws": BACKEND_ARGS + ["--warp-specialize"],
                       "backend_ws_w8": BACKEND_ARGS + ["--warp-specialize", "--num-warps=8"]}
PADDED_DEFAULT_ARGS = ["--passes=peephole,constfold,cse,licm,cse,dce,pad-tiles"]
PIPELINE_VARIANTS = [] if ON_DEVICE else ["pipelined", "rings", "layouts", "tma", "rings_w8", "backend"]
# On the GPU with TRITONC_TEST_RING_VARIANTS=1, every launch also runs compiled for sm_80 (mma.sync loops,
# whose cp.async rings are GPU-level IR from async-rings), and with the wgmma loops' rings filled by cp.async
# instead of bulk tensor copies (--no-tma: wgmma on the slots, MMAs in flight), also with 8 warps (two warpgroups: rings one slot deeper, the group in flight across the body's
# one barrier); the default (bulk tensor copies and stores from the passes) with 2 and 8 warps is
# WARP_VARIANTS': opt-in, to keep scripts/gpu-test within its time.
RING_VARIANTS = {"sm80": ["--arch=sm_80"],
                 "notma": ["--no-tma"],
                 "notma_w8": ["--no-tma", "--num-warps=8"]}
if not (ON_DEVICE and os.environ.get("TRITONC_TEST_RING_VARIANTS", "") == "1"):
    RING_VARIANTS = {}
LAUNCH_VARIANTS = (["optimized", "unoptimized"] + WARP_VARIANTS + PIPELINE_VARIANTS + list(RING_VARIANTS))
# The tests of kernels whose dot operands reach the dot through a `trans` (a transposed A or B, the weight
# gradient, sddmm) also run, on the interpreter, the back end's whole list for sm_80 (`backend80`): their
# operands' column-major rings are then read by mma.sync through ldmatrix (with `.trans` for A), where
# `backend` runs them through wgmma.
with_backend80 = pytest.mark.parametrize(
    "launch", LAUNCH_VARIANTS + ([] if ON_DEVICE else ["backend80"]), indirect=True)
# The kernels whose wgmma loops may read rings of bulk tensor copies also run WS_PASSES (`ws`) and the back
# end's list with --warp-specialize (BACKEND_WS_VARIANTS).
WS_VARIANTS = [] if ON_DEVICE else list(BACKEND_WS_VARIANTS)
with_warp_specialize = pytest.mark.parametrize(
    "launch", LAUNCH_VARIANTS + ([] if ON_DEVICE else ["ws"]) + WS_VARIANTS, indirect=True)
with_backend_ws = pytest.mark.parametrize("launch", LAUNCH_VARIANTS + WS_VARIANTS, indirect=True)
with_warp_specialize_ir = pytest.mark.parametrize(
    "launch", LAUNCH_VARIANTS + ([] if ON_DEVICE else ["ws_ir"]), indirect=True)
with_backend80_and_ws = pytest.mark.parametrize(
    "launch", LAUNCH_VARIANTS + ([] if ON_DEVICE else ["backend80", "ws"]) + WS_VARIANTS, indirect=True)
# The tests whose masks along K change by element (aligned pointers, K not a multiple of 16) also run the
# back end's lists that fill A's ring by cp.async with a source size (a mask true on a prefix of each
# vector): sm_80's (`backend80`) and sm_90a's with --no-tma (`backend_notma`: wgmma on the slots).
with_cp_async_backends = pytest.mark.parametrize(
    "launch", LAUNCH_VARIANTS + ([] if ON_DEVICE else ["backend80", "backend_notma"]), indirect=True)
# The back end's whole lists on the interpreter (`tritonc run --interpret --backend-passes`), by variant.
BACKEND_VARIANTS = {"backend": [], "backend80": ["--arch=sm_80"], "backend_notma": ["--no-tma"]}


@pytest.fixture(params=LAUNCH_VARIANTS)
def launch(request, tmp_path):
    if request.param in RING_VARIANTS:
        return Launcher(tmp_path, RING_VARIANTS[request.param])
    if request.param.startswith("warps"):
        return Launcher(tmp_path, ["--num-warps=" + request.param[len("warps"):]])
    if request.param == "pipelined":
        return Launcher(tmp_path, ["--passes=" + PIPELINED_PASSES], same_bits_as_default=True)
    if request.param == "rings":
        return Launcher(tmp_path, ["--passes=" + RINGS_PASSES], same_bits_as_default=True)
    if request.param == "layouts":
        return Launcher(tmp_path, ["--passes=" + LAYOUTS_PASSES], same_bits_as_default=True)
    if request.param == "tma":
        return Launcher(tmp_path, ["--passes=" + TMA_PASSES], same_bits_as_default=True, specialize=True)
    if request.param == "ws_ir":
        return Launcher(tmp_path, ["--passes=" + WS_IR_PASSES], same_bits_as_default=True)
    if request.param == "ws":
        return Launcher(tmp_path, ["--passes=" + WS_PASSES], same_bits_as_default=True, specialize=True)
    if request.param == "rings_w8":
        return Launcher(tmp_path, ["--passes=" + RINGS_W8_PASSES], same_bits_as_default=True, specialize=True)
    if request.param in BACKEND_VARIANTS:
        return Launcher(tmp_path, BACKEND_ARGS + BACKEND_VARIANTS[request.param], same_bits_as_default=True,
                        specialize=True, default_args=PADDED_DEFAULT_ARGS)
    if request.param in BACKEND_WS_VARIANTS:
        return Launcher(tmp_path, BACKEND_WS_VARIANTS[request.param], same_bits_as_default=True,
                        specialize=True, default_args=PADDED_DEFAULT_ARGS)
    return Launcher(tmp_path, ["--passes="] if request.param == "unoptimized" else [])


# ---------------------------------------------------------------------------------------------------------
# Data helpers
# ---------------------------------------------------------------------------------------------------------


def f32_to_bf16_bits(x):
    """Rounds float values to bfloat16 (to nearest, ties to even) and returns their bit patterns."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    out = rounded.astype(np.uint16)
    out[np.isnan(np.asarray(x, dtype=np.float32))] = BF16_NAN
    return out


def bf16_bits_to_f64(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def encode(values, type_name):
    """float64 values -> buffer contents of type_name (rounded to the type)."""
    if type_name == "bfloat16":
        return f32_to_bf16_bits(np.asarray(values, dtype=np.float32))
    return np.asarray(values).astype(NP_TYPES[type_name])


def decode(buffer, type_name):
    """Buffer contents of type_name -> float64."""
    if type_name == "bfloat16":
        return bf16_bits_to_f64(buffer)
    return np.asarray(buffer).astype(np.float64)


def round_to(values, type_name):
    """The float64 values that survive a trip through type_name."""
    return decode(encode(values, type_name), type_name)


def rounder(type_name):
    """The rounding of one arithmetic operation done in type_name, for step-by-step references."""
    if type_name == "double":
        return lambda v: np.asarray(v, dtype=np.float64)
    return lambda v: round_to(np.asarray(v, dtype=np.float64), type_name)


def poisoned(shape, type_name):
    """A buffer of type_name filled with NaN (float types) or a sentinel (integers)."""
    dtype = NP_TYPES[type_name]
    if type_name == "bfloat16":
        return np.full(shape, BF16_NAN, dtype=np.uint16)
    if np.issubdtype(dtype, np.floating):
        return np.full(shape, np.nan, dtype=dtype)
    if dtype == np.bool_:
        return np.ones(shape, dtype=np.bool_)
    if np.issubdtype(dtype, np.unsignedinteger):
        return np.full(shape, np.iinfo(dtype).max, dtype=dtype)
    return np.full(shape, max(INT_SENTINEL, np.iinfo(dtype).min), dtype=dtype)


def is_poison(buffer, type_name):
    if type_name == "bfloat16":
        return buffer == BF16_NAN
    if np.issubdtype(buffer.dtype, np.floating):
        return np.isnan(buffer)
    return buffer == poisoned((1,), type_name)[0]


def padded_matrix(rng, rows, cols, ld, type_name, lo=-1.0, hi=1.0):
    """A rows x ld buffer whose first cols columns hold random values of type_name and whose padding is
    poisoned. Returns (buffer, float64 values as stored)."""
    buf = poisoned((rows, ld), type_name)
    if np.issubdtype(NP_TYPES[type_name], np.integer) and type_name != "bfloat16":
        values = rng.integers(int(lo), int(hi) + 1, size=(rows, cols)).astype(np.float64)
    else:
        values = round_to(rng.uniform(lo, hi, size=(rows, cols)), type_name)
    buf[:, :cols] = encode(values, type_name)
    return buf, values


def assert_close(actual_buffer, expected, type_name, scale=1.0, what="", computed_in=None):
    """Compares a buffer of type_name with a float64 reference; computed_in names the type the kernel
    computes in when it is less precise than type_name (softmax computes double data in float)."""
    rtol, atol = TOLERANCES[computed_in if computed_in and type_name == "double" else type_name]
    actual = decode(actual_buffer, type_name)
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol * scale, err_msg=what)


def assert_poison(buffer, type_name, what):
    assert np.all(is_poison(buffer, type_name)), f"{what}: padding was overwritten"


def not_multiple(rng, lo, hi, *tiles):
    """A random size in [lo, hi] that is not a multiple of any of the tiles."""
    while True:
        n = int(rng.integers(lo, hi + 1))
        if all(n % t for t in tiles):
            return n


# ---------------------------------------------------------------------------------------------------------
# Configurations. Each is (kernel file, defines); the numeric tests below run these, and test_ir_round_trip
# checks that each of them compiles, verifies after every pass and round-trips through the IR parser.
# ---------------------------------------------------------------------------------------------------------

# Seed-tutorial style macros for the four transposition variants of matmul.tc.
SEED_A = {
    False: {"USE_A": "a", "SHAPE_A": "TM,TK", "STRIDE_AK": "1", "STRIDE_AM": "lda",
            "BROADCAST_AK": "newaxis,:", "BROADCAST_AM": ":,newaxis"},
    True: {"USE_A": "^a", "SHAPE_A": "TK,TM", "STRIDE_AK": "lda", "STRIDE_AM": "1",
           "BROADCAST_AK": ":,newaxis", "BROADCAST_AM": "newaxis,:"},
}
SEED_B = {
    False: {"USE_B": "b", "SHAPE_B": "TK,TN", "STRIDE_BK": "ldb", "STRIDE_BN": "1",
            "BROADCAST_BK": ":,newaxis", "BROADCAST_BN": "newaxis,:"},
    True: {"USE_B": "^b", "SHAPE_B": "TN,TK", "STRIDE_BK": "1", "STRIDE_BN": "ldb",
           "BROADCAST_BK": "newaxis,:", "BROADCAST_BN": ":,newaxis"},
}

TRANSPOSE_CONFIGS = [
    {"TYPE": "float", "TM": 16, "TN": 16},
    {"TYPE": "half", "TM": 32, "TN": 16},
    {"TYPE": "double"},
]
TRANSPOSE_CHECKED_CONFIGS = [
    {"TYPE": "float", "TM": 16, "TN": 16},
    {"TYPE": "half", "TM": 16, "TN": 32},
    {"TYPE": "int", "TM": 32, "TN": 16},
]
# (defines, trans_a, trans_b)
MATMUL_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, False, False),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16, **SEED_A[False], **SEED_B[True]}, False, True),
    ({"TYPE": "double", "ACC": "double", "TM": 16, "TN": 16, "TK": 16, "TRANS_A": 1}, True, False),
    ({"TYPE": "float", "TM": 16, "TN": 32, "TK": 8, **SEED_A[True], **SEED_B[True]}, True, True),
    ({"TYPE": "bfloat16", "TM": 16, "TN": 16, "TK": 16, "TRANS_B": 1}, False, True),
    ({}, False, False),
    # Extents that are not powers of two (padded on the GPU, the extra K lanes zeroed in both operands).
    ({"TYPE": "float", "TM": 48, "TN": 16, "TK": 24}, False, False),
    ({"TYPE": "half", "TM": 32, "TN": 48, "TK": 48, "TRANS_B": 1}, False, True),
    # Tiles of 64+ rows take the wgmma path on sm_90a with 4 and 8 warps (every operand major-ness and
    # swizzle width: K rows of 32, 64 and 128 bytes, M-/N-major rows of 128 bytes).
    ({"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, False, False),
    ({"TYPE": "half", "TM": 128, "TN": 128, "TK": 64, "TRANS_B": 1}, False, True),
    ({"TYPE": "bfloat16", "TM": 64, "TN": 128, "TK": 32, "TRANS_A": 1}, True, False),
    # A transposed with 256-byte rows (two column blocks of the 128-byte swizzle): its column-major ring is
    # filled by bulk tensor copies, one box per column block, as B's row-major ring.
    ({"TYPE": "half", "TM": 128, "TN": 64, "TK": 32, "TRANS_A": 1}, True, False),
    ({"TYPE": "half", "TM": 128, "TN": 64, "TK": 16, **SEED_A[True], **SEED_B[True]}, True, True),
    ({"TYPE": "half", "TM": 64, "TN": 256, "TK": 64}, False, False),
    # f32 on FMA units with 4 x 4 blocks per thread (A staged transposed, 16-byte shared reads).
    ({"TYPE": "float", "TM": 64, "TN": 64, "TK": 16}, False, False),
    ({"TYPE": "float", "TM": 128, "TN": 64, "TK": 8, "TRANS_A": 1}, True, False),
    # On sm_80+ their pipelined loads fill shared rings with cp.async: A element by element into its
    # transposed slot unless it is loaded M-contiguous (TRANS_A), B in vectors unless loaded K-contiguous.
    ({"TYPE": "float", "TM": 64, "TN": 128, "TK": 16, "TRANS_B": 1}, False, True),
    ({"TYPE": "float", "TM": 128, "TN": 128, "TK": 32, **SEED_A[True], **SEED_B[True]}, True, True),
    # L2 eviction attributes: the batch-16 MLP tile streaming A (bulk tensor copies on sm_90a, cp.async
    # on sm_80) and writing C with a policy; register loads and stores of an FMA tile with both kinds.
    ({"TYPE": "half", "TM": 64, "TN": 16, "TK": 64, "TRANS_B": 1, "CACHE_A": "__evict_first",
      "CACHE_C": "__evict_last"}, False, True),
    ({"TYPE": "float", "TM": 32, "TN": 32, "TK": 16, "CACHE_A": "__evict_first",
      "CACHE_B": "__evict_last", "CACHE_C": "__evict_first"}, False, False),
]
MATMUL_GROUPED_CONFIGS = [
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 16, "GROUP_M": 2},
    {"TYPE": "half", "TM": 16, "TN": 16, "TK": 8, "GROUP_M": 3},
]
# (defines, programs): fewer programs than tiles (each loops over several, across K rings on the GPU)
# and more (the extra ones have no tile).
MATMUL_PERSISTENT_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "GROUP_M": 2}, 3),
    ({"TYPE": "half", "TM": 16, "TN": 32, "TK": 16, "GROUP_M": 3}, 1),
    ({"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, 2),
    ({"TYPE": "bfloat16", "TM": 128, "TN": 128, "TK": 64, "GROUP_M": 2}, 40),
    # Several tiles per program: on sm_90a each tile's staging borrows the ring slots that the next
    # tile's loads left empty, which the loads after it refill.
    ({"TYPE": "half", "TM": 128, "TN": 128, "TK": 64, "GROUP_M": 2}, 2),
    # FMA rings, A by cp.async and B by bulk tensor copies: the next tile's fill groups go into two
    # different slots of each ring with no barrier between them (SlotIndices: one index advanced once).
    ({"TYPE": "float", "TM": 128, "TN": 128, "TK": 32}, 2),
]
# (defines, programs): runs of K steps that start and end inside tiles, a program count that does not
# divide the steps, and more programs than steps (some with nothing to do).
MATMUL_STREAMK_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "GROUP_M": 2}, 3),
    ({"TYPE": "float", "TM": 32, "TN": 32, "TK": 8}, 7),
    ({"TYPE": "double", "ACC": "double", "TM": 16, "TN": 16, "TK": 16}, 5),
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, 64),
    # FMA dots of 4 x 4 blocks per thread (64 x 32 on 4 warps), the ring carried across the loop over
    # tiles refilled with no barrier between an iteration's reads and its refill (SlotIndices: a
    # carried start advanced twice); aligned (below), the accumulator stored and added in its own layout.
    ({"TYPE": "float", "TM": 64, "TN": 32, "TK": 16}, 5),
]
MATMUL_SPLITK_CONFIGS = [
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "TZ": 1},
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "TZ": 3},
    {"TYPE": "half", "TM": 16, "TN": 32, "TK": 16, "TZ": 2},
    {"TYPE": "double", "ACC": "double", "TM": 16, "TN": 16, "TK": 16, "TZ": 4},
    # A stored K x M (a 1x1 convolution's weight gradient: the output gradient's pixels are K)
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "TZ": 3, "TRANS_A": 1},
]
# (defines, (R, S), (pad_h, pad_w), (stride_h, stride_w))
CONV_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1)),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16}, (3, 3), (1, 2), (2, 2)),
    ({"TYPE": "double", "ACC": "double", "TM": 16, "TN": 16, "TK": 8}, (2, 3), (0, 1), (1, 2)),
]
# (defines, (R, S), (pad_h, pad_w), (stride_h, stride_w), (dil_h, dil_w), aligned); CI is a multiple of TK.
# aligned: CI, CO and every stride multiples of 16, which launches specialize: on sm_90a A's tiles are then
# cp.async copies and B's bulk tensor copies feeding wgmma (tests/lit/remarks/conv-nhwc.test).
CONV_NHWC_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16}, (2, 3), (1, 2), (2, 1), (2, 1), False),
    ({"TYPE": "bfloat16", "TM": 16, "TN": 32, "TK": 8}, (1, 1), (0, 0), (2, 2), (1, 1), False),
    ({"TYPE": "half", "TM": 64, "TN": 64, "TK": 16}, (3, 3), (1, 1), (1, 1), (1, 1), True),
    # A benchmarked tile (bench/conv_suite.py): A's pointer tile and mask built in the copy's layout.
    ({"TYPE": "half", "TM": 128, "TN": 64, "TK": 32}, (3, 3), (1, 1), (2, 2), (1, 1), True),
    # Split-K (SPLIT slices of the K blocks per tile): runs of unequal length (9 or 18 blocks in 3; 6 or 12
    # in 4), more slices than blocks (2 or 4 blocks in 5: empty slices add zeros), and a benchmarked
    # small-image tile (64 x 32, 9 slices) with its copies.
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "SPLIT": 3}, (3, 3), (1, 1), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16, "SPLIT": 4}, (2, 3), (0, 2), (2, 1), (1, 1), False),
    ({"TYPE": "double", "ACC": "double", "TM": 16, "TN": 16, "TK": 8, "SPLIT": 5}, (1, 2), (1, 0), (1, 3),
     (1, 1), False),
    ({"TYPE": "half", "TM": 64, "TN": 32, "TK": 16, "SPLIT": 9}, (3, 3), (1, 1), (1, 1), (1, 1), True),
]
# (defines, (R, S), (pad_h, pad_w), (stride_h, stride_w), (dil_h, dil_w), aligned); CO is a multiple of
# TK. Strides above 1 give phases of input pixels with different taps, and phases that no tap reaches (a 1x1
# filter at stride 2, an even dilation at stride 2) whose gradient is zero.
CONV_NHWC_DGRAD_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16}, (3, 3), (1, 2), (2, 2), (1, 1), False),
    ({"TYPE": "bfloat16", "TM": 16, "TN": 32, "TK": 8}, (1, 1), (0, 0), (2, 2), (1, 1), False),
    ({"TYPE": "half", "TM": 16, "TN": 16, "TK": 16}, (2, 3), (1, 0), (2, 3), (2, 1), False),
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, (3, 2), (2, 1), (3, 2), (2, 3), False),
    ({"TYPE": "half", "TM": 64, "TN": 64, "TK": 16}, (3, 3), (1, 1), (1, 1), (1, 1), True),
    ({"TYPE": "bfloat16", "TM": 128, "TN": 64, "TK": 32}, (3, 3), (1, 1), (2, 2), (1, 1), True),
]
# (defines, (R, S), (pad_h, pad_w), (stride_h, stride_w), (dil_h, dil_w), slices, aligned): slices of the
# reduction over output pixels (grid axis 2), more than one adding through the workspace.
CONV_NHWC_WGRAD_CONFIGS = [
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1), (1, 1), 1, False),
    ({"TYPE": "half", "TM": 32, "TN": 16, "TK": 16}, (2, 3), (1, 2), (2, 1), (2, 1), 3, False),
    ({"TYPE": "bfloat16", "TM": 16, "TN": 32, "TK": 8}, (1, 1), (0, 0), (2, 2), (1, 1), 2, False),
    ({"TYPE": "float", "TM": 16, "TN": 16, "TK": 16}, (3, 2), (2, 1), (3, 2), (1, 2), 9, False),
    ({"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}, (3, 3), (1, 1), (1, 1), (1, 1), 4, True),
    ({"TYPE": "bfloat16", "TM": 64, "TN": 128, "TK": 32}, (3, 3), (1, 1), (2, 2), (1, 1), 1, True),
]
# (defines, N): rows shorter than, a bit longer than, and several times the tile
SOFTMAX_CONFIGS = [
    ({"TYPE": "float", "TM": 4, "TN": 64}, 45),
    ({"TYPE": "float", "TM": 2, "TN": 16}, 45),
    ({"TYPE": "half", "TM": 4, "TN": 32}, 37),
    ({"TYPE": "double", "TM": 8, "TN": 16}, 10),
    # Extents that are not powers of two (padded to the next power on the GPU): rows of up to 1536 in one
    # chunk, as libraries pick with 8 warps; 96- and 48-column chunks over longer rows, 3 rows a program.
    ({"TYPE": "float", "TM": 2, "TN": 1536}, 1536),
    ({"TYPE": "float", "TM": 4, "TN": 1536}, 1100),
    ({"TYPE": "half", "TM": 2, "TN": 96}, 250),
    ({"TYPE": "float", "TM": 3, "TN": 48}, 100),
]
SDDMM_CONFIGS = [
    {"TYPE": "float", "BLOCK": 16, "TK": 16},
    {"TYPE": "half", "BLOCK": 16, "TK": 8},
    {"TYPE": "double", "ACC": "double", "BLOCK": 8, "TK": 16},
]
# BLOCK, TN; the widest block row holds several blocks, N is not a multiple of TN
DSD_CONFIGS = [
    {"TYPE": "float", "BLOCK": 16, "TN": 32},
    {"TYPE": "half", "BLOCK": 16, "TN": 16},
    {"TYPE": "double", "ACC": "double", "BLOCK": 8, "TN": 16},
]
BS_SOFTMAX_CONFIGS = [
    {"TYPE": "float", "BLOCK": 8, "TN": 32},
    {"TYPE": "float", "BLOCK": 8, "TN": 32, "APPLY_RPE": 1, "APPLY_MASK": 1},
    {"TYPE": "half", "BLOCK": 16, "TN": 64, "APPLY_MASK": 1},
    {"TYPE": "double", "BLOCK": 8, "TN": 32, "APPLY_RPE": 1},
]
REDUCE_CONFIGS = [
    {"TYPE": "float", "TM": 8, "TN": 16},
    {"TYPE": "half", "TM": 4, "TN": 64},
    # Not powers of two (padded on the GPU): sums, maxima, minima and atomics over 96 and 384 columns.
    {"TYPE": "float", "TM": 8, "TN": 96},
    {"TYPE": "float", "TM": 6, "TN": 384},
]
ELEMENTWISE_CONFIGS = [
    {"TYPE": "float", "TN": 32},
    {"TYPE": "half", "TN": 64},
    {"TYPE": "double", "TN": 16},
    {"TYPE": "bfloat16", "TN": 32},
    {"TYPE": "float", "TN": 48},
    {"TYPE": "half", "TN": 384},
]
CONTROL_CONFIGS = [{"TN": 16, "LIMIT": 100}, {"TN": 8, "LIMIT": 20, "BOUND": 3000}]
CONVERT_CONFIGS = [{"TN": 32}, {"TN": 16}]


def config_id(defines):
    return ",".join(f"{k}={v}" for k, v in defines.items()) or "defaults"


# ---------------------------------------------------------------------------------------------------------
# transpose.tc / transpose_checked.tc
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", TRANSPOSE_CONFIGS, ids=config_id)
def test_transpose(defines, rng, launch):
    check_transpose(defines, rng, launch, lambda: int(rng.integers(1, 6)))


def check_transpose(defines, rng, launch, padding):
    """Transposes a random M x N matrix (whole tiles) whose rows, and those of Y, are `padding()`
    elements longer, and checks Y and its poisoned padding."""
    ty = defines.get("TYPE", "float")
    tm, tn = defines.get("TM", 32), defines.get("TN", 32)
    m, n = tm * int(rng.integers(1, 4)), tn * int(rng.integers(1, 4))
    ldx, ldy = n + padding(), m + padding()
    x, xv = padded_matrix(rng, m, n, ldx, ty)
    y = poisoned((n, ldy), ty)
    out = launch("transpose.tc", defines, (m // tm, n // tn),
                 [("X", x), ("Y", y), ("M", m), ("N", n), ("ldx", ldx), ("ldy", ldy)])
    assert_close(out["Y"][:, :m], xv.T, ty, what="Y")
    assert_poison(out["Y"][:, m:], ty, "Y")


# Leading dimensions that are multiples of 16: the 16-byte vectors of both sides meet in shared memory
# with rows whose 16-byte chunks are swizzled (instead of padded) on the GPU.
TRANSPOSE_ALIGNED_CONFIGS = [
    {"TYPE": "half", "TM": 64, "TN": 64},
    {"TYPE": "float", "TM": 64, "TN": 64},
    {"TYPE": "bfloat16", "TM": 64, "TN": 32},
    {"TYPE": "double", "TM": 32, "TN": 32},
]


@pytest.mark.parametrize("defines", TRANSPOSE_ALIGNED_CONFIGS, ids=config_id)
def test_transpose_aligned(defines, rng, launch):
    check_transpose(defines, rng, launch, lambda: 16 * int(rng.integers(0, 2)))


@pytest.mark.parametrize("defines", TRANSPOSE_CHECKED_CONFIGS, ids=config_id)
def test_transpose_checked(defines, rng, launch):
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    m, n = not_multiple(rng, 20, 70, tm), not_multiple(rng, 20, 70, tn)
    ldx, ldy = n + int(rng.integers(1, 6)), m + int(rng.integers(1, 6))
    lo, hi = (-1000, 1000) if ty == "int" else (-1.0, 1.0)
    x, xv = padded_matrix(rng, m, n, ldx, ty, lo, hi)
    # one extra row after the end of Y catches writes past the last row
    y = poisoned((n + 1, ldy), ty)
    out = launch("transpose_checked.tc", defines, (cdiv(m, tm), cdiv(n, tn)),
                 [("X", x), ("Y", y), ("M", m), ("N", n), ("ldx", ldx), ("ldy", ldy)])
    if ty == "int":
        np.testing.assert_array_equal(out["Y"][:n, :m], xv.T.astype(np.int32))
    else:
        assert_close(out["Y"][:n, :m], xv.T, ty, what="Y")
    assert_poison(out["Y"][:n, m:], ty, "Y columns past M")
    assert_poison(out["Y"][n:], ty, "Y rows past N")
    np.testing.assert_array_equal(out["X"], x)


# ---------------------------------------------------------------------------------------------------------
# matmul.tc, matmul_grouped.tc, matmul_persistent.tc, matmul_streamk.tc, matmul_splitk.tc
# ---------------------------------------------------------------------------------------------------------


def run_matmul_tc(launch, defines, ty, tile, a, b, ldc):
    """Launches matmul.tc on a = (buffer, values, lda) and b = (buffer, values, ldb) into a poisoned C of
    row stride ldc, one program per tile = (TM, TN), and checks C against numpy and its padding."""
    (a, av, lda), (b, bv, ldb) = a, b
    m, k = av.shape
    n = bv.shape[1]
    c = poisoned((m, ldc), ty)
    out = launch("matmul.tc", defines, (cdiv(m, tile[0]), cdiv(n, tile[1])),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", lda),
                  ("ldb", ldb), ("ldc", ldc)])
    assert_close(out["C"][:, :n], av @ bv, ty, scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], ty, "C")


@with_backend80_and_ws
@pytest.mark.parametrize("defines,trans_a,trans_b", MATMUL_CONFIGS,
                         ids=[config_id(c[0]) for c in MATMUL_CONFIGS])
def test_matmul(defines, trans_a, trans_b, rng, launch):
    ty = defines.get("TYPE", "float")
    tm, tn, tk = defines.get("TM", 32), defines.get("TN", 32), defines.get("TK", 16)
    m, n = not_multiple(rng, 20, 75, tm), not_multiple(rng, 20, 75, tn)
    k = not_multiple(rng, tk + 1, 3 * tk + 5, tk)
    if trans_a:
        lda = m + int(rng.integers(1, 5))
        a, av = padded_matrix(rng, k, m, lda, ty)
        av = av.T
    else:
        lda = k + int(rng.integers(1, 5))
        a, av = padded_matrix(rng, m, k, lda, ty)
    if trans_b:
        ldb = k + int(rng.integers(1, 5))
        b, bv = padded_matrix(rng, n, k, ldb, ty)
        bv = bv.T
    else:
        ldb = n + int(rng.integers(1, 5))
        b, bv = padded_matrix(rng, k, n, ldb, ty)
    ldc = n + int(rng.integers(1, 5))
    run_matmul_tc(launch, defines, ty, (tm, tn), (a, av, lda), (b, bv, ldb), ldc)


# Sizes and leading dimensions that are multiples of 16: launches specialize them, loads vectorize along K
# even with the K mask, and on sm_90a the loads feeding wgmma become cp.async copies into shared rings.
MATMUL_ALIGNED_CONFIGS = [c for c in MATMUL_CONFIGS if c[0].get("TM", 32) >= 64]


@with_backend80_and_ws
@pytest.mark.parametrize("defines,trans_a,trans_b", MATMUL_ALIGNED_CONFIGS,
                         ids=[config_id(c[0]) for c in MATMUL_ALIGNED_CONFIGS])
def test_matmul_aligned(defines, trans_a, trans_b, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m, n = 16 * int(rng.integers(2, 2 * tm // 16 + 2)), 16 * int(rng.integers(2, 2 * tn // 16 + 2))
    k = 16 * int(rng.integers(1, 4 * tk // 16 + 2))
    pad = lambda: 16 * int(rng.integers(0, 2))
    if trans_a:
        lda = m + pad()
        a, av = padded_matrix(rng, k, m, lda, ty)
        av = av.T
    else:
        lda = k + pad()
        a, av = padded_matrix(rng, m, k, lda, ty)
    if trans_b:
        ldb = k + pad()
        b, bv = padded_matrix(rng, n, k, ldb, ty)
        bv = bv.T
    else:
        ldb = n + pad()
        b, bv = padded_matrix(rng, k, n, ldb, ty)
    ldc = n + pad()
    run_matmul_tc(launch, defines, ty, (tm, tn), (a, av, lda), (b, bv, ldb), ldc)


# Pointers and leading dimensions aligned (multiples of 16) but K not: the masks along K vary by element.
# Where K is the contiguous dimension (A, and B under TRANS_B) they are true on a prefix of each vector,
# which cp.async copies with a source size (`backend80`, `backend_notma`); on sm_90a with TMA on
# tensor-copies fills the rings, its boxes bounding K themselves (the copy engine zero-fills past the
# tensor map's extent; `backend`).
@with_cp_async_backends
@pytest.mark.parametrize("k", [40, 1000])
@pytest.mark.parametrize("defines,trans_a,trans_b", MATMUL_ALIGNED_CONFIGS,
                         ids=[config_id(c[0]) for c in MATMUL_ALIGNED_CONFIGS])
def test_matmul_aligned_k_masked(defines, trans_a, trans_b, k, rng, launch):
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    m, n = 16 * int(rng.integers(2, tm // 16 + 2)), 16 * int(rng.integers(2, tn // 16 + 2))
    kpad = 16 * cdiv(k, 16)
    lda = (m if trans_a else kpad) + 16 * int(rng.integers(0, 2))
    ldb = (kpad if trans_b else n) + 16 * int(rng.integers(0, 2))
    a, av = padded_matrix(rng, k, m, lda, ty) if trans_a else padded_matrix(rng, m, k, lda, ty)
    b, bv = padded_matrix(rng, n, k, ldb, ty) if trans_b else padded_matrix(rng, k, n, ldb, ty)
    av, bv = (av.T if trans_a else av), (bv.T if trans_b else bv)
    ldc = n + 16 * int(rng.integers(0, 2))
    run_matmul_tc(launch, defines, ty, (tm, tn), (a, av, lda), (b, bv, ldb), ldc)


@pytest.mark.parametrize("defines", [{"TYPE": "float", "TM": 32, "TN": 32, "TK": 16},
                                     {"TYPE": "float", "TM": 64, "TN": 32, "TK": 8}], ids=config_id)
def test_matmul_tf32(defines, rng, launch):
    """--allow-tf32: on the GPU, f32 dots run on tensor cores with inputs rounded to tf32 (about 3 decimal
    digits); the interpreter ignores the option and stays exact."""
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m, n = not_multiple(rng, 20, 75, tm), not_multiple(rng, 20, 75, tn)
    k = not_multiple(rng, tk + 1, 3 * tk + 5, tk)
    lda, ldb, ldc = k + int(rng.integers(1, 5)), n + int(rng.integers(1, 5)), n + int(rng.integers(1, 5))
    a, av = padded_matrix(rng, m, k, lda, "float")
    b, bv = padded_matrix(rng, k, n, ldb, "float")
    c = poisoned((m, ldc), "float")
    out = launch("matmul.tc", defines, (cdiv(m, tm), cdiv(n, tn)),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", lda),
                  ("ldb", ldb), ("ldc", ldc)], extra=["--allow-tf32"], computed_in="tf32")
    np.testing.assert_allclose(out["C"][:, :n], av @ bv, rtol=4e-3, atol=4e-3 * math.sqrt(k),
                               err_msg=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


@with_backend_ws
@pytest.mark.parametrize("defines", MATMUL_GROUPED_CONFIGS, ids=config_id)
def test_matmul_grouped(defines, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk, group = defines["TM"], defines["TN"], defines["TK"], defines["GROUP_M"]
    # enough tile rows for a last group shorter than GROUP_M
    while True:
        m = not_multiple(rng, 4 * tm, 6 * tm, tm)
        if cdiv(m, tm) % group:
            break
    n, k = not_multiple(rng, 20, 60, tn), not_multiple(rng, tk + 1, 3 * tk, tk)
    lda, ldb, ldc = k + int(rng.integers(1, 5)), n + int(rng.integers(1, 5)), n + int(rng.integers(1, 5))
    a, av = padded_matrix(rng, m, k, lda, ty)
    b, bv = padded_matrix(rng, k, n, ldb, ty)
    c = poisoned((m, ldc), ty)
    out = launch("matmul_grouped.tc", defines, (cdiv(m, tm) * cdiv(n, tn),),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("stride_am", lda),
                  ("stride_bk", ldb), ("stride_cm", ldc)])
    assert_close(out["C"][:, :n], av @ bv, ty, scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], ty, "C")


def check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc,
                     kernel="matmul_persistent.tc"):
    """Runs a matmul over a 1-D grid of `programs` (matmul_persistent.tc, or matmul_streamk.tc, which
    adds split tiles into C: C then starts at zero, its padding poisoned) on random M x K and K x N
    operands with those leading dimensions and checks C against the reference and its padding against
    the poison."""
    ty = defines["TYPE"]
    a, av = padded_matrix(rng, m, k, lda, ty)
    b, bv = padded_matrix(rng, k, n, ldb, ty)
    c = poisoned((m, ldc), ty)
    if kernel == "matmul_streamk.tc":
        c[:, :n] = 0
    out = launch(kernel, defines, (programs,),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("stride_am", lda),
                  ("stride_bk", ldb), ("stride_cm", ldc)])
    assert_close(out["C"][:, :n], av @ bv, ty, scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], ty, "C")


@with_warp_specialize
@pytest.mark.parametrize("defines,programs", MATMUL_PERSISTENT_CONFIGS,
                         ids=[config_id(c[0]) + f"-p{c[1]}" for c in MATMUL_PERSISTENT_CONFIGS])
def test_matmul_persistent(defines, programs, rng, launch):
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m, n = not_multiple(rng, 2 * tm, 3 * tm, tm), not_multiple(rng, tn + 1, 2 * tn, tn)
    k = not_multiple(rng, tk + 1, 3 * tk, tk)
    lda, ldb, ldc = k + int(rng.integers(1, 5)), n + int(rng.integers(1, 5)), n + int(rng.integers(1, 5))
    check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc)


@pytest.mark.parametrize("defines,programs", MATMUL_STREAMK_CONFIGS,
                         ids=[config_id(c[0]) + f"-p{c[1]}" for c in MATMUL_STREAMK_CONFIGS])
def test_matmul_streamk(defines, programs, rng, launch):
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m, n = not_multiple(rng, 2 * tm, 3 * tm, tm), not_multiple(rng, tn + 1, 2 * tn, tn)
    k = not_multiple(rng, 2 * tk + 1, 4 * tk, tk)
    lda, ldb, ldc = k + int(rng.integers(1, 5)), n + int(rng.integers(1, 5)), n + int(rng.integers(1, 5))
    check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc, kernel="matmul_streamk.tc")


# Sizes and strides that are multiples of 16, as the fp32 benchmark's: the FMA accumulator (4 x 4 blocks
# per thread) is stored, and added with red, in its own layout in 16-byte vectors (no conversion).
MATMUL_STREAMK_ALIGNED_CONFIGS = [c for c in MATMUL_STREAMK_CONFIGS if c[0]["TM"] >= 64]


@pytest.mark.parametrize("defines,programs", MATMUL_STREAMK_ALIGNED_CONFIGS,
                         ids=[config_id(c[0]) + f"-p{c[1]}" for c in MATMUL_STREAMK_ALIGNED_CONFIGS])
def test_matmul_streamk_aligned(defines, programs, rng, launch):
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m = 16 * int(rng.integers(2 * tm // 16 + 1, 3 * tm // 16))
    n = 16 * int(rng.integers(tn // 16 + 1, 2 * tn // 16 + 1))
    k = 16 * int(rng.integers(2 * tk // 16 + 1, 4 * tk // 16 + 1))
    pad = lambda: 16 * int(rng.integers(0, 2))
    lda, ldb, ldc = k + pad(), n + pad(), n + pad()
    check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc, kernel="matmul_streamk.tc")


# Sizes and strides that are multiples of 16: on sm_90a the operand rings fill through tensor maps and
# each tile's fp16/bf16 result leaves through shared memory with bulk tensor stores, while the next tile's
# loads are already in flight.
MATMUL_PERSISTENT_ALIGNED_CONFIGS = [c for c in MATMUL_PERSISTENT_CONFIGS if c[0]["TM"] >= 64]


@with_warp_specialize
@pytest.mark.parametrize("defines,programs", MATMUL_PERSISTENT_ALIGNED_CONFIGS,
                         ids=[config_id(c[0]) + f"-p{c[1]}" for c in MATMUL_PERSISTENT_ALIGNED_CONFIGS])
def test_matmul_persistent_aligned(defines, programs, rng, launch):
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m = 16 * int(rng.integers(2 * tm // 16 + 1, 3 * tm // 16))
    n = 16 * int(rng.integers(tn // 16 + 1, 2 * tn // 16))
    k = 16 * int(rng.integers(tk // 16 + 1, 3 * tk // 16))
    pad = lambda: 16 * int(rng.integers(0, 2))
    lda, ldb, ldc = k + pad(), n + pad(), n + pad()
    check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc)


# The same with K not a multiple of 16 (aligned pointers and strides): A's K mask changes by element; the
# rings are filled again on every tile, on sm_90a by bulk tensor copies with the next tile's prologue a tile
# ahead, on sm_80 and with --no-tma by cp.async with source sizes.
@with_cp_async_backends
@pytest.mark.parametrize("k", [40, 200])
@pytest.mark.parametrize("defines,programs", MATMUL_PERSISTENT_ALIGNED_CONFIGS,
                         ids=[config_id(c[0]) + f"-p{c[1]}" for c in MATMUL_PERSISTENT_ALIGNED_CONFIGS])
def test_matmul_persistent_aligned_k_masked(defines, programs, k, rng, launch):
    tm, tn = defines["TM"], defines["TN"]
    m = 16 * int(rng.integers(2 * tm // 16 + 1, 3 * tm // 16))
    n = 16 * int(rng.integers(tn // 16 + 1, 2 * tn // 16))
    pad = lambda: 16 * int(rng.integers(0, 2))
    lda, ldb, ldc = 16 * cdiv(k, 16) + pad(), n + pad(), n + pad()
    check_persistent(defines, programs, rng, launch, m, n, k, lda, ldb, ldc)


@pytest.mark.parametrize("programs", [1, 2])
def test_matmul_persistent_wide_tile_w8(programs, rng, tmp_path):
    """bench/matmul_suite.py's persistent fp16 tile, 128 x 256 x 64 with 8 warps, through the back end's
    whole list on the interpreter (`--backend-passes --num-warps=8`, on the launch's facts), bit for bit
    against the default pipeline: rings of 4 slots whose next tile's first fills are issued above the
    epilogue, and the epilogue's 64 KB tile staged in the two ring slots that prologue leaves free (the
    interpreter fails a fill of a slot a bulk store still reads, a missing barrier or a stale read). On
    the GPU the same tile, compiled by the back end, runs against the reference."""
    args = ["--num-warps=8"] if ON_DEVICE else BACKEND_ARGS + ["--num-warps=8"]
    launch = Launcher(tmp_path, args, same_bits_as_default=True, specialize=True,
                      default_args=PADDED_DEFAULT_ARGS)
    defines = {"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}
    m, n = 16 * int(rng.integers(9, 24)), 16 * int(rng.integers(17, 32))
    k = 16 * int(rng.integers(5, 12))
    pad = lambda: 16 * int(rng.integers(0, 2))
    check_persistent(defines, programs, rng, launch, m, n, k, k + pad(), n + pad(), n + pad())


@pytest.mark.parametrize("ty", ["half", "bfloat16"])
def test_matmul_no_columns(ty, rng, launch):
    """N = 0 with aligned strides: every store is masked off, so a bulk tensor store must not write its box
    (the launcher encodes a tensor map of zero extent as a one-element dummy)."""
    defines = {"TYPE": ty, "TM": 64, "TN": 64, "TK": 32}
    m, k, n, ldc = 64, 64, 0, 64
    a, _ = padded_matrix(rng, m, k, k, ty)
    b, _ = padded_matrix(rng, k, 16, 16, ty)
    c = poisoned((m, ldc), ty)
    out = launch("matmul.tc", defines, (1, 1),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", k), ("ldb", 16),
                  ("ldc", ldc)])
    assert_poison(out["C"], ty, "C with N = 0")


EMPTY_K_CONFIGS = [("matmul.tc", {"TYPE": "half", "TM": 128, "TN": 256, "TK": 64}),
                   ("matmul.tc", {"TYPE": "bfloat16", "TM": 64, "TN": 128, "TK": 64}),
                   ("matmul_persistent.tc", {"TYPE": "half", "TM": 128, "TN": 128, "TK": 64})]


@pytest.mark.parametrize("kernel,defines", EMPTY_K_CONFIGS,
                         ids=[k[:-3] + "-" + config_id(d) for k, d in EMPTY_K_CONFIGS])
def test_matmul_empty_k(kernel, defines, rng, launch):
    """K = 0 with aligned sizes: C is all zeros. On sm_90a the loop of in-flight MMAs never runs; its
    accumulator, which the first k-step would have zeroed itself (scale-d false), is zeroed on the path that
    skips the loop, or, where a bulk tensor store is its only reader, that store stages zeros instead of
    converting it (ZeroTripGuard.cpp)."""
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    m, n = 2 * tm, 2 * tn
    a, _ = padded_matrix(rng, m, 16, 16, ty)
    b, _ = padded_matrix(rng, 16, n, n, ty)
    c = poisoned((m, n), ty)
    if kernel == "matmul.tc":
        grid, strides = (2, 2), [("lda", 16), ("ldb", n), ("ldc", n)]
    else:
        grid, strides = (3,), [("stride_am", 16), ("stride_bk", n), ("stride_cm", n)]
    out = launch(kernel, defines, grid,
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", 0)] + strides)
    np.testing.assert_array_equal(decode(out["C"], ty), np.zeros((m, n)), err_msg="C with K = 0")


@pytest.mark.parametrize("n", [45, 40])
def test_matmul_ragged_columns(n, rng, launch):
    """Strides and pointers 16-byte aligned, N not a multiple of 16: the 3 (or 8) padding columns of each
    row of C share a 16-byte piece with its last columns and must stay untouched (the tensor engine stores
    whole 16-byte pieces, so such an N keeps st.global)."""
    defines = {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32}
    m, k, ldc = 64, 64, 48
    a, av = padded_matrix(rng, m, k, k, "half")
    b, bv = padded_matrix(rng, k, 64, 64, "half")
    c = poisoned((m, ldc), "half")
    out = launch("matmul.tc", defines, (1, 1),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", k), ("ldb", 64),
                  ("ldc", ldc)])
    assert_close(out["C"][:, :n], av @ bv[:, :n], "half", scale=math.sqrt(k), what=f"C, N={n}")
    assert_poison(out["C"][:, n:], "half", "C columns past N")


def splitk_operands(rng, ty, m, n, k, trans_a=False):
    """Padded leading dimensions, random M x K (with trans_a stored K x M) and K x N operands of type ty (with
    their float64 values, av M x K) and a poisoned M x ldc C: (lda, ldb, ldc, a, av, b, bv, c)."""
    lda, ldb, ldc = (m if trans_a else k) + int(rng.integers(1, 5)), n + int(rng.integers(1, 5)), \
        n + int(rng.integers(1, 5))
    if trans_a:
        a, atv = padded_matrix(rng, k, m, lda, ty)
        av = atv.T
    else:
        a, av = padded_matrix(rng, m, k, lda, ty)
    b, bv = padded_matrix(rng, k, n, ldb, ty)
    return lda, ldb, ldc, a, av, b, bv, poisoned((m, ldc), ty)


@pytest.mark.parametrize("defines", MATMUL_SPLITK_CONFIGS, ids=config_id)
def test_matmul_splitk(defines, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk, tz = defines["TM"], defines["TN"], defines["TK"], defines["TZ"]
    m, n = not_multiple(rng, 20, 45, tm), not_multiple(rng, 20, 45, tn)
    # with TZ == 4 and K < 3 * TK some slices are empty
    k = not_multiple(rng, 2 * tk + 1, 4 * tk + 10, tk)
    lda, ldb, ldc, a, av, b, bv, c = splitk_operands(rng, ty, m, n, k, defines.get("TRANS_A", 0))
    grid = (cdiv(m, tm), cdiv(n, tn), tz)
    locks = np.zeros(2 * grid[0] * grid[1], dtype=np.int32)
    alpha = 1.5
    out = launch("matmul_splitk.tc", defines, grid,
                 [("A", a), ("B", b), ("C", c), ("locks", locks), ("alpha", alpha), ("M", m), ("N", n),
                  ("K", k), ("lda", lda), ("ldb", ldb), ("ldc", ldc)])
    # the programs along axis 2 add their partial products in order, each sum rounded to TYPE
    r, slice_k = rounder(ty), cdiv(cdiv(k, tz), tk) * tk
    expected = np.zeros((m, n))
    for z in range(tz):
        lo, hi = z * slice_k, min(k, (z + 1) * slice_k)
        partial = alpha * (av[:, lo:hi] @ bv[lo:hi, :]) if lo < hi else np.zeros((m, n))
        expected = r(partial + expected) if z else r(partial)
    assert_close(out["C"][:, :n], expected, ty, scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], ty, "C")
    np.testing.assert_array_equal(out["locks"], 0, err_msg="locks and counters must be 0 on exit")


@pytest.mark.parametrize("defines", [
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "TZ": 3, "ATOMIC": 1},
    {"TYPE": "half", "CTYPE": "float", "TM": 64, "TN": 64, "TK": 32, "TZ": 5, "ATOMIC": 1},
    {"TYPE": "half", "CTYPE": "float", "TM": 64, "TN": 16, "TK": 64, "TZ": 3, "ATOMIC": 1, "TRANS_B": 1},
    # The covariance benchmark's form: A and B streamed past L2.
    {"TYPE": "half", "CTYPE": "float", "TM": 64, "TN": 64, "TK": 32, "TZ": 4, "ATOMIC": 1,
     "CACHE_A": "__evict_first", "CACHE_B": "__evict_first"},
], ids=config_id)
def test_matmul_splitk_atomic(defines, rng, launch):
    """ATOMIC=1: the K slices add their partial products into a zeroed C with atomic_add, in any order.
    TRANS_B=1 (the batch-16 MLP shape): B is stored N x K."""
    tm, tn, tk, tz = defines["TM"], defines["TN"], defines["TK"], defines["TZ"]
    m, n = not_multiple(rng, 20, 90, tm), not_multiple(rng, 20, 90, tn)
    k = not_multiple(rng, 2 * tk + 1, 6 * tk + 10, tk)
    trans_b = defines.get("TRANS_B", 0)
    lda, ldb, ldc = k + int(rng.integers(1, 5)), (k if trans_b else n) + int(rng.integers(1, 5)), \
        n + int(rng.integers(1, 5))
    a, av = padded_matrix(rng, m, k, lda, defines["TYPE"])
    if trans_b:
        b, btv = padded_matrix(rng, n, k, ldb, defines["TYPE"])
        bv = btv.T
    else:
        b, bv = padded_matrix(rng, k, n, ldb, defines["TYPE"])
    c = poisoned((m, ldc), "float")
    c[:, :n] = 0
    grid = (cdiv(m, tm), cdiv(n, tn), tz)
    out = launch("matmul_splitk.tc", defines, grid,
                 [("A", a), ("B", b), ("C", c), ("locks", np.zeros(2, dtype=np.int32)), ("alpha", 1.5),
                  ("M", m), ("N", n), ("K", k), ("lda", lda), ("ldb", ldb), ("ldc", ldc)])
    assert_close(out["C"][:, :n], 1.5 * (av @ bv), "float", scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


@pytest.mark.parametrize("defines", [
    {"TYPE": "float", "TM": 16, "TN": 16, "TK": 8, "TZ": 3, "ATOMIC": 2},
    # The covariance benchmark's form: half C straight from the float workspace, A and B streamed past L2.
    {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32, "TZ": 5, "ATOMIC": 2,
     "CACHE_A": "__evict_first", "CACHE_B": "__evict_first"},
    # bench/conv_suite.py's 1x1 weight gradient: A (the output gradient) stored K x M, read through `^a`
    {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32, "TZ": 5, "ATOMIC": 2, "TRANS_A": 1},
], ids=config_id)
def test_matmul_splitk_workspace(defines, rng, launch):
    """ATOMIC=2: the K slices add their partial products into a float workspace, and the last one to arrive
    at a tile writes C (poisoned on entry: no zeroing) and leaves the workspace and counters zero again."""
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    m, n = not_multiple(rng, 20, 90, tm), not_multiple(rng, 20, 90, tn)
    k = not_multiple(rng, 2 * tk + 1, 6 * tk + 10, tk)
    check_splitk_workspace(defines, launch, m, n, k,
                           splitk_operands(rng, defines["TYPE"], m, n, k, defines.get("TRANS_A", 0)))


@pytest.mark.parametrize("flags", [[], ["--no-tma"]], ids=["tma", "no-tma"])
def test_matmul_splitk_workspace_aligned(flags, rng, tmp_path):
    """The covariance benchmark's shape (64 x 64, aligned strides) with A and B marked __evict_first, with and
    without bulk tensor copies: without them, the hinted cp.async copies raised an illegal instruction on the
    H100 (the hint is now left off there)."""
    defines = {"TYPE": "half", "TM": 64, "TN": 64, "TK": 32, "TZ": 5, "ATOMIC": 2,
               "CACHE_A": "__evict_first", "CACHE_B": "__evict_first"}
    m = n = 64
    k = 640
    a, av = padded_matrix(rng, m, k, k, "half")
    b, bv = padded_matrix(rng, k, n, n, "half")
    operands = (k, n, n, a, av, b, bv, poisoned((m, n), "half"))
    check_splitk_workspace(defines, Launcher(tmp_path, flags), m, n, k, operands)


def check_splitk_workspace(defines, launch, m, n, k, operands):
    """Runs matmul_splitk.tc with ATOMIC=2 on `operands` (as splitk_operands returns them) and checks C, its
    poisoned padding, and that the counters and the workspace are zero on exit."""
    ty, tm, tn, tz = defines["TYPE"], defines["TM"], defines["TN"], defines["TZ"]
    lda, ldb, ldc, a, av, b, bv, c = operands
    grid = (cdiv(m, tm), cdiv(n, tn), tz)
    tiles = grid[0] * grid[1]
    out = launch("matmul_splitk.tc", defines, grid,
                 [("A", a), ("B", b), ("C", c), ("locks", np.zeros(tiles, dtype=np.int32)),
                  ("partials", np.zeros(tiles * tm * tn, dtype=np.float32)), ("alpha", 1.5),
                  ("M", m), ("N", n), ("K", k), ("lda", lda), ("ldb", ldb), ("ldc", ldc)])
    assert_close(out["C"][:, :n], 1.5 * (av @ bv), ty, scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], ty, "C")
    np.testing.assert_array_equal(out["locks"], 0, err_msg="counters must be 0 on exit")
    np.testing.assert_array_equal(out["partials"], 0, err_msg="the workspace must be 0 on exit")


# ---------------------------------------------------------------------------------------------------------
# conv.tc
# ---------------------------------------------------------------------------------------------------------


def conv_adelta(k_total, tk, r, s, lda_ci, lda_h, lda_w):
    """Listing 5.9 of the thesis: increment of A's offset from reduction index i to i + TK."""
    i = np.arange(k_total)

    def offset(j):
        return (j // (r * s)) * lda_ci + ((j // s) % r) * lda_h + (j % s) * lda_w

    return (offset(i + tk) - offset(i)).astype(np.int32)


def conv_reference(x, w, pad, stride, p, q, dil=(1, 1)):
    """x: Z x CI x H x W, w: CI x R x S x CO (float64) -> Z x CO x P x Q."""
    z, ci, h, wd = x.shape
    _, r, s, co = w.shape
    xp = np.zeros((z, ci, h + 2 * pad[0] + stride[0] * p, wd + 2 * pad[1] + stride[1] * q))
    xp[:, :, pad[0]:pad[0] + h, pad[1]:pad[1] + wd] = x
    out = np.zeros((z, co, p, q))
    for rr in range(r):
        for ss in range(s):
            h0, w0 = rr * dil[0], ss * dil[1]
            patch = xp[:, :, h0:h0 + stride[0] * p:stride[0], w0:w0 + stride[1] * q:stride[1]]
            out += np.einsum("zcpq,ck->zkpq", patch, w[:, rr, ss, :])
    return out


def strided_offsets(shape, strides):
    """Offsets of every element of a tensor of `shape` with `strides` (in elements), in row-major order."""
    grids = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    return sum(g * st for g, st in zip(grids, strides)).ravel()


def check_conv_output(buf, expected, strides, ty, k, what):
    """The elements of buf at `strides` match `expected` (a reduction of k terms); the rest is still poison."""
    where = strided_offsets(expected.shape, strides)
    assert_close(buf[where].reshape(expected.shape), expected, ty, scale=math.sqrt(k), what=what)
    untouched = np.ones(buf.size, dtype=bool)
    untouched[where] = False
    assert_poison(buf[untouched], ty, "C")


@pytest.mark.parametrize("defines,rs,pad,stride", CONV_CONFIGS,
                         ids=[config_id(c[0]) for c in CONV_CONFIGS])
def test_conv(defines, rs, pad, stride, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    r, s = rs
    z, ci, co = 2, int(rng.integers(3, 5)), not_multiple(rng, 3, 2 * tn - 1, tn)
    h, w = int(rng.integers(5, 10)), int(rng.integers(5, 10))
    p = (h + 2 * pad[0] - r) // stride[0] + 1
    q = (w + 2 * pad[1] - s) // stride[1] + 1
    m, n, k = z * p * q, co, ci * r * s
    # A: NCHW with padded strides (lda_w = 1)
    lda_w, lda_h = 1, w + int(rng.integers(0, 3))
    lda_ci = h * lda_h + int(rng.integers(0, 5))
    lda_z = ci * lda_ci + int(rng.integers(0, 5))
    xv = round_to(rng.uniform(-1, 1, size=(z, ci, h, w)), ty)
    a = poisoned(z * lda_z, ty)
    a[strided_offsets(xv.shape, (lda_z, lda_ci, lda_h, lda_w))] = encode(xv, ty).ravel()
    # B: (CI*R*S) x CO, row stride ldb
    ldb = co + int(rng.integers(1, 4))
    b, bv = padded_matrix(rng, k, co, ldb, ty)
    wv = bv.reshape(ci, r, s, co)
    # C: Z x CO x P x Q with padded strides
    ldc_p = q + int(rng.integers(0, 3))
    ldc_co = p * ldc_p + int(rng.integers(0, 3))
    ldc_z = co * ldc_co + int(rng.integers(0, 3))
    c = poisoned(z * ldc_z, ty)
    adelta = conv_adelta(k, tk, r, s, lda_ci, lda_h, lda_w)
    out = launch("conv.tc", defines, (cdiv(m, tm), cdiv(n, tn)),
                 [("A", a), ("B", b), ("C", c), ("ADELTA", adelta), ("M", m), ("N", n), ("K", k),
                  ("H", h), ("W", w), ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]),
                  ("pad_w", pad[1]), ("stride_h", stride[0]), ("stride_w", stride[1]),
                  ("lda_z", lda_z), ("lda_ci", lda_ci), ("lda_h", lda_h), ("lda_w", lda_w),
                  ("ldb", ldb), ("ldc_z", ldc_z), ("ldc_co", ldc_co), ("ldc_p", ldc_p)])
    expected = conv_reference(xv, wv, pad, stride, p, q)
    check_conv_output(out["C"], expected, (ldc_z, ldc_co, ldc_p, 1), ty, k,
                      f"C, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s}")


# ---------------------------------------------------------------------------------------------------------
# conv_nhwc.tc
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines,rs,pad,stride,dil,aligned", CONV_NHWC_CONFIGS,
                         ids=[config_id(c[0]) + ("-aligned" if c[5] else "") for c in CONV_NHWC_CONFIGS])
def test_conv_nhwc(defines, rs, pad, stride, dil, aligned, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    r, s = rs
    unit = 16 if aligned else 1  # what strides and padding are multiples of
    z, ci = 2, tk * int(rng.integers(1, 3))
    co = 16 * int(rng.integers(1, 2 * tn // 16)) if aligned else not_multiple(rng, 3, 2 * tn - 1, tn)
    h, w = int(rng.integers(5, 10)), int(rng.integers(5, 10))
    p = (h + 2 * pad[0] - dil[0] * (r - 1) - 1) // stride[0] + 1
    q = (w + 2 * pad[1] - dil[1] * (s - 1) - 1) // stride[1] + 1
    m, n, k = z * p * q, co, r * s * ci
    # A: NHWC with padded strides (channels contiguous)
    lda_w = ci + unit * int(rng.integers(0, 3))
    lda_h = w * lda_w + unit * int(rng.integers(0, 5))
    lda_z = h * lda_h + unit * int(rng.integers(0, 5))
    xv = round_to(rng.uniform(-1, 1, size=(z, h, w, ci)), ty)
    a = poisoned(z * lda_z, ty)
    a[strided_offsets(xv.shape, (lda_z, lda_h, lda_w, 1))] = encode(xv, ty).ravel()
    # B: (R*S*CI) x CO in the order (r, s, ci), row stride ldb
    ldb = co + unit * int(rng.integers(1, 4))
    b, bv = padded_matrix(rng, k, co, ldb, ty)
    wv = bv.reshape(r, s, ci, co).transpose(2, 0, 1, 3)
    # C: Z x P x Q x CO with padded strides
    ldc_q = co + unit * int(rng.integers(0, 3))
    ldc_p = q * ldc_q + unit * int(rng.integers(0, 3))
    ldc_z = p * ldc_p + unit * int(rng.integers(0, 3))
    c = poisoned(z * ldc_z, ty)
    # Split-K: poisoned partial tiles (each slice writes its whole tile before any is read), zero counters.
    split = defines.get("SPLIT", 1)
    tiles = cdiv(m, tm) * cdiv(n, tn)
    partials = poisoned(tiles * split * tm * tn, defines.get("ACC", "float"))
    out = launch("conv_nhwc.tc", defines, (cdiv(m, tm), cdiv(n, tn), split),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("H", h), ("W", w), ("CI", ci),
                  ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]), ("pad_w", pad[1]),
                  ("stride_h", stride[0]), ("stride_w", stride[1]), ("dil_h", dil[0]), ("dil_w", dil[1]),
                  ("lda_z", lda_z), ("lda_h", lda_h), ("lda_w", lda_w), ("ldb", ldb),
                  ("ldc_z", ldc_z), ("ldc_p", ldc_p), ("ldc_q", ldc_q), ("partials", partials),
                  ("counters", np.zeros(tiles, dtype=np.int32))])
    expected = conv_reference(xv.transpose(0, 3, 1, 2), wv, pad, stride, p, q, dil).transpose(0, 2, 3, 1)
    check_conv_output(out["C"], expected, (ldc_z, ldc_p, ldc_q, 1), ty, k,
                      f"C, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} dilation={dil} split={split}")
    np.testing.assert_array_equal(out["counters"], 0, err_msg="counters must be 0 on exit")


# ---------------------------------------------------------------------------------------------------------
# conv_nhwc_dgrad.tc and conv_nhwc_wgrad.tc
# ---------------------------------------------------------------------------------------------------------


def nhwc_tensor(rng, shape, ty, unit):
    """A Z x H x W x C tensor of random values of ty in a poisoned buffer whose strides are padded by
    multiples of unit. Returns (buffer, float64 values, (ld_z, ld_h, ld_w))."""
    z, h, w, c = shape
    ld_w = c + unit * int(rng.integers(0, 3))
    ld_h = w * ld_w + unit * int(rng.integers(0, 5))
    ld_z = h * ld_h + unit * int(rng.integers(0, 5))
    values = round_to(rng.uniform(-1, 1, size=shape), ty)
    buf = poisoned(z * ld_z, ty)
    buf[strided_offsets(shape, (ld_z, ld_h, ld_w, 1))] = encode(values, ty).ravel()
    return buf, values, (ld_z, ld_h, ld_w)


def conv_backward_problem(rng, rs, pad, stride, dil):
    """Odd image sizes for which the convolution has an output: (Z, H, W, P, Q)."""
    while True:
        h, w = int(rng.integers(5, 11)), int(rng.integers(5, 11))
        p = (h + 2 * pad[0] - dil[0] * (rs[0] - 1) - 1) // stride[0] + 1
        q = (w + 2 * pad[1] - dil[1] * (rs[1] - 1) - 1) // stride[1] + 1
        if p > 0 and q > 0:
            return 2, h, w, p, q


def padded_windows(x, pad, stride, dil, p, q, r, s):
    """x: Z x H x W x C (float64) zero-padded by pad and on past the last pixel any tap of the P x Q outputs
    reads, so that every tap_window of it is P x Q."""
    z, h, w, c = x.shape
    xp = np.zeros((z, h + 2 * pad[0] + stride[0] * p + dil[0] * r, w + 2 * pad[1] + stride[1] * q + dil[1] * s, c))
    xp[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w] = x
    return xp


def tap_window(xp, stride, dil, p, q, rr, ss):
    """The Z x P x Q x C view of padded_windows' image that tap (rr, ss) reads (writes through it scatter)."""
    h0, w0 = rr * dil[0], ss * dil[1]
    return xp[:, h0:h0 + stride[0] * p:stride[0], w0:w0 + stride[1] * q:stride[1]]


def conv_dgrad_reference(dy, wt, shape, pad, stride, dil):
    """dy: Z x P x Q x CO, wt: R x S x CO x CI (float64) -> DX, Z x H x W x CI."""
    z, h, w = shape
    _, p, q, _ = dy.shape
    r, s, _, ci = wt.shape
    dxp = padded_windows(np.zeros((z, h, w, ci)), pad, stride, dil, p, q, r, s)
    for rr in range(r):
        for ss in range(s):
            tap_window(dxp, stride, dil, p, q, rr, ss)[...] += np.einsum("zpqk,kc->zpqc", dy, wt[rr, ss])
    return dxp[:, pad[0]:pad[0] + h, pad[1]:pad[1] + w]


def conv_wgrad_reference(dy, x, rs, pad, stride, dil):
    """dy: Z x P x Q x CO, x: Z x H x W x CI (float64) -> DW, CO x R x S x CI."""
    _, p, q, co = dy.shape
    r, s = rs
    xp = padded_windows(x, pad, stride, dil, p, q, r, s)
    out = np.zeros((co, r, s, x.shape[3]))
    for rr in range(r):
        for ss in range(s):
            out[:, rr, ss] = np.einsum("zpqk,zpqc->kc", dy, tap_window(xp, stride, dil, p, q, rr, ss))
    return out


def conv_geometry_args(ci, co, rs, p, q, pad, stride, dil):
    return [("CO", co), ("R", rs[0]), ("S", rs[1]), ("P", p), ("Q", q), ("pad_h", pad[0]),
            ("pad_w", pad[1]), ("stride_h", stride[0]), ("stride_w", stride[1]), ("dil_h", dil[0]),
            ("dil_w", dil[1])]


@pytest.mark.parametrize("defines,rs,pad,stride,dil,aligned", CONV_NHWC_DGRAD_CONFIGS,
                         ids=[config_id(c[0]) + ("-aligned" if c[5] else "") for c in CONV_NHWC_DGRAD_CONFIGS])
def test_conv_nhwc_dgrad(defines, rs, pad, stride, dil, aligned, rng, launch):
    ty = defines["TYPE"]
    tm, tn, tk = defines["TM"], defines["TN"], defines["TK"]
    r, s = rs
    unit = 16 if aligned else 1
    z, h, w, p, q = conv_backward_problem(rng, rs, pad, stride, dil)
    co = tk * int(rng.integers(1, 3))
    ci = 16 * int(rng.integers(1, 2 * tn // 16)) if aligned else not_multiple(rng, 3, 2 * tn - 1, tn)
    a, dyv, (lda_z, lda_p, lda_q) = nhwc_tensor(rng, (z, p, q, co), ty, unit)
    # B: (R*S*CO) x CI in the order (r, s, k), row stride ldb
    ldb = ci + unit * int(rng.integers(1, 4))
    b, bv = padded_matrix(rng, r * s * co, ci, ldb, ty)
    ldc_w = ci + unit * int(rng.integers(0, 3))
    ldc_h = w * ldc_w + unit * int(rng.integers(0, 3))
    ldc_z = h * ldc_h + unit * int(rng.integers(0, 3))
    c = poisoned(z * ldc_z, ty)
    grid = (cdiv(z * cdiv(h, stride[0]) * cdiv(w, stride[1]), tm), cdiv(ci, tn), stride[0] * stride[1])
    out = launch("conv_nhwc_dgrad.tc", defines, grid,
                 [("A", a), ("B", b), ("C", c), ("Z", z), ("H", h), ("W", w), ("CI", ci)]
                 + conv_geometry_args(ci, co, rs, p, q, pad, stride, dil)
                 + [("lda_z", lda_z), ("lda_p", lda_p), ("lda_q", lda_q), ("ldb", ldb), ("ldc_z", ldc_z),
                    ("ldc_h", ldc_h), ("ldc_w", ldc_w)])
    expected = conv_dgrad_reference(dyv, bv.reshape(r, s, co, ci), (z, h, w), pad, stride, dil)
    check_conv_output(out["C"], expected, (ldc_z, ldc_h, ldc_w, 1), ty, r * s * co,
                      f"DX, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} stride={stride} dilation={dil}")


@with_backend80
@pytest.mark.parametrize("defines,rs,pad,stride,dil,slices,aligned", CONV_NHWC_WGRAD_CONFIGS,
                         ids=[config_id(c[0]) + f"-slices{c[5]}" + ("-aligned" if c[6] else "")
                              for c in CONV_NHWC_WGRAD_CONFIGS])
def test_conv_nhwc_wgrad(defines, rs, pad, stride, dil, slices, aligned, rng, launch):
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    r, s = rs
    unit = 16 if aligned else 1
    z, h, w, p, q = conv_backward_problem(rng, rs, pad, stride, dil)
    if aligned:
        ci, co = 16 * int(rng.integers(1, 2 * tn // 16)), 16 * int(rng.integers(1, 2 * tm // 16))
    else:
        ci, co = not_multiple(rng, 3, 2 * tn - 1, tn), not_multiple(rng, 3, 2 * tm - 1, tm)
    a, dyv, (lda_z, lda_p, lda_q) = nhwc_tensor(rng, (z, p, q, co), ty, unit)
    b, xv, (ldb_z, ldb_h, ldb_w) = nhwc_tensor(rng, (z, h, w, ci), ty, unit)
    # C: CO x (R*S*CI), columns in the order (r, s, c)
    ldc = r * s * ci + unit * int(rng.integers(1, 4))
    c = poisoned((co, ldc), ty)
    tiles = cdiv(co, tm) * r * s * cdiv(ci, tn)
    out = launch("conv_nhwc_wgrad.tc", defines, (cdiv(co, tm), r * s * cdiv(ci, tn), slices),
                 [("A", a), ("B", b), ("C", c), ("counters", np.zeros(tiles, dtype=np.int32)),
                  ("partials", np.zeros(tiles * tm * tn, dtype=np.float32)), ("Z", z), ("H", h), ("W", w),
                  ("CI", ci)]
                 + conv_geometry_args(ci, co, rs, p, q, pad, stride, dil)
                 + [("lda_z", lda_z), ("lda_p", lda_p), ("lda_q", lda_q), ("ldb_z", ldb_z),
                    ("ldb_h", ldb_h), ("ldb_w", ldb_w), ("ldc", ldc)])
    expected = conv_wgrad_reference(dyv, xv, rs, pad, stride, dil).reshape(co, r * s * ci)
    assert_close(out["C"][:, :r * s * ci], expected, ty, scale=math.sqrt(z * p * q),
                 what=f"DW, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} stride={stride} slices={slices}")
    assert_poison(out["C"][:, r * s * ci:], ty, "DW")
    np.testing.assert_array_equal(out["counters"], 0, err_msg="counters must be 0 on exit")
    np.testing.assert_array_equal(out["partials"], 0, err_msg="the workspace must be 0 on exit")


# ---------------------------------------------------------------------------------------------------------
# softmax.tc
# ---------------------------------------------------------------------------------------------------------


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("defines,n", SOFTMAX_CONFIGS, ids=[config_id(c[0]) for c in SOFTMAX_CONFIGS])
def test_softmax(defines, n, rng, launch):
    ty, tm = defines["TYPE"], defines["TM"]
    m = not_multiple(rng, 3, 13, tm)
    ldx, ldy = n + int(rng.integers(1, 5)), n + int(rng.integers(1, 5))
    x, xv = padded_matrix(rng, m, n, ldx, ty, -4.0, 4.0)
    y = poisoned((m + 1, ldy), ty)
    out = launch("softmax.tc", defines, (cdiv(m, tm),), computed_in="float",
                 args=[("X", x), ("Y", y), ("M", m), ("N", n), ("ldx", ldx), ("ldy", ldy)])
    assert_close(out["Y"][:m, :n], softmax_rows(xv), ty, what=f"Y, M={m} N={n}", computed_in="float")
    assert_poison(out["Y"][:m, n:], ty, "Y columns past N")
    assert_poison(out["Y"][m:], ty, "Y rows past M")


# ---------------------------------------------------------------------------------------------------------
# blocksparse_sddmm.tc, blocksparse_softmax.tc
# ---------------------------------------------------------------------------------------------------------


def random_layout(rng, heads, nblocks, density=0.5):
    """A heads x nblocks x nblocks 0/1 layout with at least one non-zero block per block row."""
    layout = rng.random((heads, nblocks, nblocks)) < density
    for h in range(heads):
        for bm in range(nblocks):
            if not layout[h, bm].any():
                layout[h, bm, rng.integers(nblocks)] = True
    return layout


@with_backend80
@pytest.mark.parametrize("defines", SDDMM_CONFIGS, ids=config_id)
def test_blocksparse_sddmm(defines, rng, launch):
    ty, block, tk = defines["TYPE"], defines["BLOCK"], defines["TK"]
    z, heads, nblocks = 2, 2, 3
    length = nblocks * block
    d = not_multiple(rng, tk + 1, 3 * tk, tk)
    layout = random_layout(rng, heads, nblocks)
    coo = np.argwhere(layout).astype(np.int32)  # rows of (h, bm, bn)
    nnz = len(coo)
    lda, ldb = d + int(rng.integers(1, 4)), d + int(rng.integers(1, 4))
    stride_ha, stride_hb = length * lda + 3, length * ldb
    stride_za, stride_zb = heads * stride_ha + 1, heads * stride_hb + 5
    av = round_to(rng.uniform(-1, 1, size=(z, heads, length, d)), ty)
    bv = round_to(rng.uniform(-1, 1, size=(z, heads, length, d)), ty)
    a, b = poisoned(z * stride_za, ty), poisoned(z * stride_zb, ty)
    for zi in range(z):
        for hi in range(heads):
            for row in range(length):
                a[zi * stride_za + hi * stride_ha + row * lda:][:d] = encode(av[zi, hi, row], ty)
                b[zi * stride_zb + hi * stride_hb + row * ldb:][:d] = encode(bv[zi, hi, row], ty)
    stride_zc = nnz * block * block + 7
    c = poisoned(z * stride_zc, ty)
    out = launch("blocksparse_sddmm.tc", defines, (nnz, z),
                 [("A", a), ("B", b), ("C", c), ("LUT", coo.ravel()), ("D", d), ("stride_za", stride_za),
                  ("stride_ha", stride_ha), ("lda", lda), ("stride_zb", stride_zb),
                  ("stride_hb", stride_hb), ("ldb", ldb), ("stride_zc", stride_zc)])
    dense = np.einsum("zhmd,zhnd->zhmn", av, bv)
    got = out["C"].reshape(z, stride_zc)
    for zi in range(z):
        blocks = got[zi, :nnz * block * block].reshape(nnz, block, block)
        for i, (hi, bm, bn) in enumerate(coo):
            expected = dense[zi, hi, bm * block:(bm + 1) * block, bn * block:(bn + 1) * block]
            assert_close(blocks[i], expected, ty, scale=math.sqrt(d), what=f"block {i} of batch {zi}")
        assert_poison(got[zi, nnz * block * block:], ty, "C")


def blocksparse_dsd_lut(layout):
    """Headers (size, offset) per (head, block row), then 2 ints per block: id, column. Block ids number
    the non-zero blocks in np.argwhere order (the order of A's blocks)."""
    heads, nblocks, _ = layout.shape
    base = 2 * heads * nblocks
    headers, entries, block_id = [], [], 0
    for h in range(heads):
        for bm in range(nblocks):
            cols = [int(bn) for bn in np.flatnonzero(layout[h, bm])]
            headers += [len(cols), base + len(entries)]
            for bn in cols:
                entries += [block_id, bn]
                block_id += 1
    return np.array(headers + entries, dtype=np.int32)


@pytest.mark.parametrize("defines", DSD_CONFIGS, ids=config_id)
def test_blocksparse_dsd(defines, rng, launch):
    ty, block, tn = defines["TYPE"], defines["BLOCK"], defines["TN"]
    z, heads, nblocks = 2, 2, 4
    length = nblocks * block
    n = not_multiple(rng, tn + 1, 3 * tn, tn)
    layout = random_layout(rng, heads, nblocks)
    layout[0, 0, :] = True  # one block row with every block: the loop runs nblocks times
    layout[1, 1, :] = False  # and one without any: the loop does not run
    coo = np.argwhere(layout)
    nnz = len(coo)
    lut = blocksparse_dsd_lut(layout)
    stride_za = nnz * block * block + 5
    av = round_to(rng.uniform(-1, 1, size=(z, nnz, block, block)), ty)
    a = poisoned(z * stride_za, ty)
    for zi in range(z):
        a[zi * stride_za:][:nnz * block * block] = encode(av[zi].ravel(), ty)
    ldb, ldc = n + int(rng.integers(1, 4)), n + int(rng.integers(1, 4))
    stride_hb, stride_hc = length * ldb + 3, length * ldc + 1
    stride_zb, stride_zc = heads * stride_hb + 2, heads * stride_hc + 4
    bv = round_to(rng.uniform(-1, 1, size=(z, heads, length, n)), ty)
    b = poisoned(z * stride_zb, ty)
    for zi in range(z):
        for hi in range(heads):
            for row in range(length):
                b[zi * stride_zb + hi * stride_hb + row * ldb:][:n] = encode(bv[zi, hi, row], ty)
    c = poisoned(z * stride_zc, ty)
    out = launch("blocksparse_dsd.tc", defines, (heads * nblocks, cdiv(n, tn), z),
                 [("A", a), ("B", b), ("C", c), ("LUT", lut), ("NBLOCKS", nblocks), ("N", n),
                  ("stride_za", stride_za), ("stride_zb", stride_zb), ("stride_hb", stride_hb),
                  ("ldb", ldb), ("stride_zc", stride_zc), ("stride_hc", stride_hc), ("ldc", ldc)])
    got = out["C"]
    written = np.zeros(c.size, dtype=bool)
    for zi in range(z):
        dense = np.zeros((heads, length, length))
        for i, (h, bm, bn) in enumerate(coo):
            dense[h, bm * block:(bm + 1) * block, bn * block:(bn + 1) * block] = av[zi, i]
        expected = np.einsum("hml,hln->hmn", dense, bv[zi])
        for hi in range(heads):
            for row in range(length):
                at = zi * stride_zc + hi * stride_hc + row * ldc
                assert_close(got[at:at + n], expected[hi, row], ty, scale=math.sqrt(length),
                             what=f"C row {row} of head {hi}, batch {zi}")
                written[at:at + n] = True
    assert_poison(got[~written], ty, "C")


def blocksparse_softmax_lut(layout):
    """Headers (size, offset) per (head, block row), then 4 ints per block: id, column, row, head.
    Block ids number the non-zero blocks in np.argwhere order (the order of X's blocks)."""
    heads, nblocks, _ = layout.shape
    ids = {tuple(int(v) for v in hbm): i for i, hbm in enumerate(np.argwhere(layout))}
    base = 2 * heads * nblocks
    headers, entries = [], []
    for h in range(heads):
        for bm in range(nblocks):
            cols = [int(bn) for bn in np.flatnonzero(layout[h, bm])]
            headers += [len(cols), base + len(entries)]
            for bn in cols:
                entries += [ids[(h, bm, bn)], bn, bm, h]
    return np.array(headers + entries, dtype=np.int32)


@pytest.mark.parametrize("defines", BS_SOFTMAX_CONFIGS, ids=config_id)
def test_blocksparse_softmax(defines, rng, launch):
    ty, block, tn = defines["TYPE"], defines["BLOCK"], defines["TN"]
    rpe, use_mask = "APPLY_RPE" in defines, "APPLY_MASK" in defines
    z, heads = 2, 2
    nblocks = tn // block  # the widest block row must fit in TN
    length = nblocks * block
    layout = random_layout(rng, heads, nblocks)
    coo = np.argwhere(layout)
    nnz = len(coo)
    lut = blocksparse_softmax_lut(layout)
    stride_zx = nnz * block * block + 3
    xv = round_to(rng.uniform(-2, 2, size=(z, nnz, block, block)), ty)
    x = poisoned(z * stride_zx, ty)
    for zi in range(z):
        x[zi * stride_zx:][:nnz * block * block] = encode(xv[zi].ravel(), ty)
    # relative position embedding Z x H x L x L (padded rows) and L x L 0/1 mask
    stride_sp = length + 1
    stride_hp = length * stride_sp
    stride_zp = heads * stride_hp + 2
    pv = round_to(rng.uniform(-1, 1, size=(z, heads, length, length)), ty)
    p = poisoned(z * stride_zp, ty)
    for zi in range(z):
        for hi in range(heads):
            for row in range(length):
                p[zi * stride_zp + hi * stride_hp + row * stride_sp:][:length] = encode(pv[zi, hi, row], ty)
    stride_zm = length + 3
    maskv = (rng.random((length, length)) < 0.8).astype(np.float64)
    # keep at least one unmasked element in every row of every non-zero block row
    for (h, bm, bn) in coo:
        maskv[bm * block:(bm + 1) * block, bn * block] = 1
    mask = poisoned((length, stride_zm), ty)
    mask[:, :length] = encode(maskv, ty)
    scale = 0.75
    out = launch("blocksparse_softmax.tc", defines, (heads * nblocks * block, z), computed_in="float",
                 args=[("X", x), ("P", p), ("MASK", mask), ("LUT", lut), ("scale", scale),
                  ("stride_zx", stride_zx), ("stride_zp", stride_zp), ("stride_hp", stride_hp),
                  ("stride_sp", stride_sp), ("stride_zm", stride_zm)])
    # dense reference: -inf outside the layout
    got = out["X"]
    for zi in range(z):
        dense = np.full((heads, length, length), -np.inf)
        for i, (h, bm, bn) in enumerate(coo):
            dense[h, bm * block:(bm + 1) * block, bn * block:(bn + 1) * block] = xv[zi, i]
        r = rounder(ty)
        dense = r(dense * scale)
        if rpe:
            dense = r(dense + pv[zi])
        if use_mask:
            dense = dense + np.where(maskv == 0, -np.inf, 0.0)
        expected = softmax_rows(dense)
        blocks = got[zi * stride_zx:][:nnz * block * block].reshape(nnz, block, block)
        for i, (h, bm, bn) in enumerate(coo):
            ref = expected[h, bm * block:(bm + 1) * block, bn * block:(bn + 1) * block]
            assert_close(blocks[i], ref, ty, what=f"block {i} of batch {zi}", computed_in="float")
        if zi + 1 < z:
            assert_poison(got[zi * stride_zx + nnz * block * block:(zi + 1) * stride_zx], ty, "X")
    np.testing.assert_array_equal(out["LUT"], lut)


# ---------------------------------------------------------------------------------------------------------
# reduce.tc
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", REDUCE_CONFIGS, ids=config_id)
def test_reduce(defines, rng, launch):
    ty, tm = defines["TYPE"], defines["TM"]
    m, n = not_multiple(rng, 20, 45, tm), int(rng.integers(20, 50))
    ldx = n + int(rng.integers(1, 5))
    x, xv = padded_matrix(rng, m, n, ldx, ty, -2.0, 2.0)
    grid = cdiv(m, tm)
    rowsum, rowmax, rowmin = (poisoned(m + 1, "float") for _ in range(3))
    colsum = np.zeros(n, dtype=np.float32)
    total = np.zeros(1, dtype=np.float32)
    pmin = poisoned(grid, "float")
    tn = defines["TN"]
    cnt = np.zeros(tn, dtype=np.int32)
    out = launch("reduce.tc", defines, (grid,),
                 [("X", x), ("ROWSUM", rowsum), ("ROWMAX", rowmax), ("ROWMIN", rowmin),
                  ("COLSUM", colsum), ("TOTAL", total), ("PMIN", pmin), ("CNT", cnt), ("M", m),
                  ("N", n), ("ldx", ldx)])
    assert_close(out["ROWSUM"][:m], xv.sum(axis=1), "float", scale=n, what="ROWSUM")
    assert_close(out["ROWMAX"][:m], xv.max(axis=1), "float", what="ROWMAX")
    assert_close(out["ROWMIN"][:m], xv.min(axis=1), "float", what="ROWMIN")
    for name in ("ROWSUM", "ROWMAX", "ROWMIN"):
        assert_poison(out[name][m:], "float", name)
    assert_close(out["COLSUM"], xv.sum(axis=0), "float", scale=m, what="COLSUM")
    assert_close(out["TOTAL"], [xv.sum()], "float", scale=m * n, what="TOTAL")
    pad = np.full(grid * tm - m, np.inf)
    assert_close(out["PMIN"], np.concatenate([xv.min(axis=1), pad]).reshape(grid, tm).min(axis=1),
                 "float", what="PMIN")
    expected_cnt = [m * sum(1 for c in range(0, n, tn) if c + j < n) for j in range(tn)]
    np.testing.assert_array_equal(out["CNT"], expected_cnt, err_msg="CNT")


# ---------------------------------------------------------------------------------------------------------
# elementwise.tc
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", ELEMENTWISE_CONFIGS, ids=config_id)
def test_elementwise(defines, rng, launch):
    ty, tn = defines["TYPE"], defines["TN"]
    n = not_multiple(rng, 40, 100, tn)
    xv = round_to(rng.uniform(0.1, 4.0, size=n), ty)
    wv = round_to(rng.uniform(-3.0, 3.0, size=n), ty)
    wv[:4] = round_to([-1.5, -0.5, 0.0, 2.0], ty)  # integral, halves and the NAN/INFINITY branches
    x, w = encode(xv, ty), encode(wv, ty)
    zbuf = poisoned(15 * n + 1, ty)
    out = launch("elementwise.tc", defines, (cdiv(n, tn),), [("X", x), ("W", w), ("Z", zbuf), ("N", n)])
    r = rounder(ty)  # every operation rounds to TYPE
    expected = [
        np.exp(wv), np.log(xv), np.sqrt(xv), 1 / np.sqrt(xv), np.sin(wv), np.cos(wv), np.tanh(wv),
        np.abs(wv), np.floor(wv), np.ceil(wv), xv * wv + 0.5, np.maximum(xv, wv), np.minimum(xv, wv),
        np.where(wv < -1, np.nan, np.where(wv > 1, np.inf, wv)),
        r(r(-xv + r(wv * 2)) - r(xv / r(r(wv * wv) + 1))),
    ]
    names = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "abs", "floor", "ceil", "fma", "max",
             "min", "select", "arith"]
    got = out["Z"][:15 * n].reshape(15, n)
    for row, (name, ref) in enumerate(zip(names, expected)):
        assert_close(got[row], ref, ty, scale=4.0 if name == "arith" else 1.0, what=name)
    assert_poison(out["Z"][15 * n:], ty, "Z")


# ---------------------------------------------------------------------------------------------------------
# readback.tc (tests/kernels): global memory written and read back by other threads of a program
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", [{"TN": 1024}, {"TN": 4096}], ids=["1024", "4096"])
def test_readback_other_threads(defines, rng, launch):
    """Fails on the GPU without the barriers of lib/codegen/GlobalOrdering.cpp: the reversed read then
    sees other threads' elements of Y before their stores (poison), or after the last store (4x)."""
    tn, programs = defines["TN"], 64
    x = rng.uniform(1.0, 2.0, size=tn * programs).astype(np.float32)
    y = poisoned(tn * programs, "float")
    out = launch(str(Path(__file__).parent / "readback.tc"), defines, (programs,), [("X", x), ("Y", y)])
    expected = 2 * x.reshape(programs, tn)[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(out["Y"], expected)


# ---------------------------------------------------------------------------------------------------------
# nested_masked_load.tc (tests/kernels): loads inside ?: arms at the end of a buffer
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", [{"TN": 64}, {"TN": 48}], ids=["64", "48"])
def test_nested_masked_load(defines, rng, launch):
    """X, Y and IDX hold exactly N elements and the last program's tile runs past them: an unmasked nested
    load is an out-of-bounds read (interpreter error, memcheck report)."""
    tn = defines["TN"]
    n = not_multiple(rng, 100, 200, tn)
    x = rng.uniform(-1.0, 1.0, size=n).astype(np.float32)
    y = rng.uniform(-1.0, 1.0, size=n).astype(np.float32)
    idx = rng.integers(0, n, size=n).astype(np.int32)
    z = poisoned(5 * n, "float")
    out = launch(str(Path(__file__).parent / "nested_masked_load.tc"), defines, (cdiv(n, tn),),
                 [("X", x), ("Y", y), ("IDX", idx), ("Z", z), ("N", n)])
    r = np.arange(n)
    expected = [np.exp(x.astype(np.float64)) * 2, y + 1.0, x[idx], 10 + np.where(r % 2 == 0, x, y), 6.0 * y]
    got = out["Z"].reshape(5, n)
    for row, ref in enumerate(expected):
        assert_close(got[row], ref, "float", what=f"Z row {row}")


# ---------------------------------------------------------------------------------------------------------
# desc_control.tc (tests/kernels): tensor descriptor loads under branches and loops
# ---------------------------------------------------------------------------------------------------------


def test_desc_control(rng, launch):
    """Each program takes its own path (FLAGS): a load or not, 0 to 3 loop iterations alternating two
    loads. The tma variant lowers them to bulk tensor copies, whose mbarrier phases follow the path."""
    n, ld = 29, 32
    programs = cdiv(n, 8)
    x, xv = padded_matrix(rng, n, n, ld, "float")
    flags = rng.permutation(np.arange(8, dtype=np.int32))[:programs]
    y = poisoned((n + 1, ld), "float")
    out = launch(str(Path(__file__).parent / "desc_control.tc"), {}, (programs,),
                 [("X", x), ("Y", y), ("FLAGS", flags), ("N", n), ("ld", ld)])
    padded = np.zeros((n + 40, n + 40))
    padded[20:20 + n, 20:20 + n] = xv

    def block(r, c):
        return padded[20 + r:28 + r, 20 + c:36 + c]

    expected = np.full((n + 1, ld), np.nan)
    for pid, flag in enumerate(flags):
        acc = block(pid * 8, 0) if flag & 1 else np.zeros((8, 16))
        for i in range(flag >> 1):
            acc = acc + block(pid * 8 - 3, i * 16 - 5) if i % 2 == 0 else acc - block(pid * 8 + 5, i)
        acc = acc + block(pid * 8, 3)
        rows = min(8, n - pid * 8)
        expected[pid * 8:pid * 8 + rows, :16] = acc[:rows]
    written = ~np.isnan(expected)
    assert_close(out["Y"][written], expected[written], "float", scale=4.0, what="Y")
    assert_poison(out["Y"][~written], "float", "Y outside the stored blocks")


# ---------------------------------------------------------------------------------------------------------
# print_assert.tc (tests/kernels): print and assert with --debug
# ---------------------------------------------------------------------------------------------------------


def run_print_assert(tmp_path, fail_at):
    x = np.arange(12, dtype=np.float32) / 4
    np.save(tmp_path / "x.npy", x)
    cmd = [TRITONC, "run", str(Path(__file__).parent / "print_assert.tc"), "--debug", "--grid", "2",
           "--device" if ON_DEVICE else "--interpret", str(tmp_path / "x.npy"), "12", str(fail_at)]
    if SANITIZER:
        cmd = ["compute-sanitizer", "--tool", SANITIZER] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)


def test_print(tmp_path):
    """One line per program and one per element, each with the program id (and the element's index); on
    the GPU the lines come through vprintf in any order."""
    res = run_print_assert(tmp_path, -1)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = [l for l in res.stdout.splitlines() if l.startswith("pid")]
    expected = [f"pid ({p}, 0, 0): N = 12" for p in range(2)]
    expected += [f"pid ({p}, 0, 0) idx ({i}): r = {8 * p + i}, x = {(8 * p + i) / 4 if 8 * p + i < 12 else -1:.2f}"
                 for p in range(2) for i in range(8)]
    assert sorted(lines) == sorted(expected), res.stdout


def test_assert(tmp_path):
    """A failed assert stops the launch with its message (the interpreter names file:line and the lane; the
    GPU's __assertfail the line, block and thread)."""
    res = run_print_assert(tmp_path, 9)
    assert res.returncode != 0
    report = res.stdout + res.stderr
    assert "element FAIL_AT reached" in report, report
    if not ON_DEVICE:
        assert "print_assert.tc:9:3" in report and "(lane (1))" in report and "program (1,0,0)" in report, report


# ---------------------------------------------------------------------------------------------------------
# control.tc
# ---------------------------------------------------------------------------------------------------------


def collatz_steps(x, limit):
    steps = 0
    while x != 1 and steps < limit:
        x = x // 2 if x % 2 == 0 else 3 * x + 1
        steps += 1
    return steps


def is_prime(x):
    return x >= 2 and all(x % d for d in range(2, math.isqrt(x) + 1))


@pytest.mark.parametrize("defines", CONTROL_CONFIGS, ids=config_id)
def test_control(defines, rng, launch):
    tn, limit = defines["TN"], defines["LIMIT"]
    n = not_multiple(rng, 20, 45, tn)
    xs = rng.integers(1, 1000, size=n).astype(np.int32)
    xs[:3] = [1, 2, 27]  # 27 takes 111 Collatz steps
    grid = cdiv(n, tn)
    outbuf = poisoned(4 * n + 1, "int")
    halv, rounds = poisoned(grid, "int"), poisoned(grid, "int")
    tacc = poisoned(n + 1, "int")
    out = launch("control.tc", defines, (grid,), [("X", xs), ("OUT", outbuf), ("HALV", halv),
                                                   ("TACC", tacc), ("ROUNDS", rounds), ("N", n)])
    expected = []
    for x in xs.tolist():
        expected += [collatz_steps(x, limit), sum(int(ch) for ch in str(x)),
                     sum(j for j in range(x % 64) if j % 3), int(is_prime(x))]
    np.testing.assert_array_equal(out["OUT"][:4 * n], expected)
    assert_poison(out["OUT"][4 * n:], "int", "OUT")
    padded = np.concatenate([xs, np.zeros(grid * tn - n, dtype=np.int32)]).reshape(grid, tn)
    np.testing.assert_array_equal(out["HALV"], [int(v).bit_length() for v in padded.max(axis=1)])
    bound = defines.get("BOUND", 20000)
    for pid in range(grid):
        acc, r = np.zeros(tn, dtype=np.int64), 0
        while True:
            r += 1
            if r % 3 and ((acc := acc + padded[pid] * r).max() > bound):
                break
            if r >= 20:
                break
        lo, hi = pid * tn, min(n, pid * tn + tn)
        np.testing.assert_array_equal(out["TACC"][lo:hi], acc[:hi - lo], err_msg=f"TACC of program {pid}")
        assert out["ROUNDS"][pid] == r, f"ROUNDS of program {pid}"
    assert_poison(out["TACC"][n:], "int", "TACC")


# ---------------------------------------------------------------------------------------------------------
# convert.tc
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("defines", CONVERT_CONFIGS, ids=config_id)
def test_convert(defines, rng, launch):
    tn = defines["TN"]
    n = not_multiple(rng, 40, 70, tn)
    i8 = rng.integers(-128, 128, size=n).astype(np.int8)
    u8 = rng.integers(0, 256, size=n).astype(np.uint8)
    i16 = rng.integers(-300, 301, size=n).astype(np.int16)
    u16 = rng.integers(0, 65536, size=n).astype(np.uint16)
    i32 = rng.integers(-2**31 + 1, 2**31, size=n).astype(np.int32)
    i32[:4] = [0, -1, 7, -15]
    u32 = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    u32[:2] = [3, 2**32 - 1]
    i64 = rng.integers(-2**50, 2**50, size=n).astype(np.int64)
    u64 = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64)
    u64[:2] = [5, 2**63 + 11]
    b = rng.random(n) < 0.5
    f16 = rng.uniform(-10, 10, size=n).astype(np.float16)
    bf16 = f32_to_bf16_bits(rng.uniform(-10, 10, size=n))
    f32 = rng.uniform(-3, 3, size=n).astype(np.float32)
    f32[:3] = [0.0, 2.5, -2.5]
    f64 = rng.uniform(-3, 3, size=n)
    outs = {
        "OUT": poisoned(19 * n, "double"), "O8": poisoned(n, "char"), "OU16": poisoned(n, "unsigned short"),
        "OU32": poisoned(n, "unsigned"), "OF16": poisoned(n, "half"), "OBF16": poisoned(n, "bfloat16"),
        "OB": np.zeros(n, dtype=np.bool_), "OI64": poisoned(n, "long"),
    }
    args = [("I8", i8), ("U8", u8), ("I16", i16), ("U16", u16), ("I32", i32), ("U32", u32), ("I64", i64),
            ("U64", u64), ("B", b), ("F16", f16), ("BF16", bf16), ("F32", f32), ("F64", f64)]
    args += list(outs.items()) + [("N", n)]
    out = launch("convert.tc", defines, (cdiv(n, tn),), args)

    I = lambda v: v.astype(np.int64)  # noqa: E731 - exact integer arithmetic
    trunc_div = lambda a, d: np.trunc(a / d).astype(np.int64)  # noqa: E731 - C division
    f32_64 = f32.astype(np.float64)
    expected = [
        I(i8) + I(u8), I(i16) * I(u16), trunc_div(I(i32), 7), I(i32) - 7 * trunc_div(I(i32), 7),
        I(i32) >> 3, I(u32) >> 3, I(u32) // 5, I(i64) * 3 - 1, (u64 // np.uint64(3)).astype(np.float64),
        np.where(b, f16.astype(np.float64), bf16_bits_to_f64(bf16)), f32_64 * f64,
        (f16 + f16).astype(np.float64), (~I(i32) & 0xFF0) | (I(i32) ^ 21),
        (I(i8) < I(u8)) + 2 * (i32 != 0) + 4 * (f32 >= 0.5) + 8 * ((i8 < 0) | (u8 > 200)) + 16 * ~b
        + 32 * (u64 >= 2**63),
        np.trunc(f32 * np.float32(10)), (i32.astype(np.float32) * np.float32(0.5)).astype(np.float64),
        np.abs(I(i32)), np.maximum(I(i32), 1000), np.minimum(I(u32), 7),
    ]
    names = ["i8+u8", "i16*u16", "i32/7", "i32%7", "i32>>3", "u32>>3", "u32/5", "i64*3-1", "u64/3",
             "select", "f32*f64", "f16+f16", "bitwise", "compare", "(int)f32", "(float)i32", "abs",
             "max", "min"]
    got = out["OUT"].reshape(19, n)
    for row, (name, ref) in enumerate(zip(names, expected)):
        np.testing.assert_array_equal(got[row], np.asarray(ref).astype(np.float64), err_msg=name)
    np.testing.assert_array_equal(out["O8"], i32.astype(np.int8), err_msg="(char)i32")
    np.testing.assert_array_equal(out["OU16"], i32.astype(np.uint16), err_msg="implicit i32 -> ushort")
    np.testing.assert_array_equal(out["OU32"], i8.astype(np.int64).astype(np.uint32), err_msg="(unsigned)i8")
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(out["OF16"], (f32 * np.float32(30000)).astype(np.float16),
                                      err_msg="float -> half")
    np.testing.assert_array_equal(out["OBF16"], f32_to_bf16_bits(f32), err_msg="float -> bfloat16")
    np.testing.assert_array_equal(out["OB"], f32 != 0, err_msg="float -> bool")
    np.testing.assert_array_equal(out["OI64"], I(i32) * I(i32) + I(u32), err_msg="(long)i32 * i32 + u32")


def test_matmul_tuning_list(rng, launch):
    """-DTM=[...] -DTN=[...] tuning lists: --list-configs enumerates the cross product (last list fastest)
    and every configuration, selected with --config=N, computes the same product."""
    defines = {"TYPE": "float", "TM": "[16,32]", "TN": "[16, 32]", "TK": 8}
    listed = tritonc(["compile", str(KERNELS / "matmul.tc")] + define_args(defines) + ["--list-configs"])
    assert listed.returncode == 0, listed.stderr
    configs = [line for line in listed.stdout.splitlines() if line.strip()]
    assert configs == ["0: TM=16 TN=16", "1: TM=16 TN=32", "2: TM=32 TN=16", "3: TM=32 TN=32"]
    m, n, k = 37, 45, 29
    a, av = padded_matrix(rng, m, k, k + 3, "float")
    b, bv = padded_matrix(rng, k, n, n + 1, "float")
    for index, line in enumerate(configs):
        tile = dict(item.split("=") for item in line.split(": ")[1].split())
        tm, tn = int(tile["TM"]), int(tile["TN"])
        out = launch("matmul.tc", defines, (cdiv(m, tm), cdiv(n, tn)),
                     [("A", a), ("B", b), ("C", poisoned((m, n + 2), "float")), ("M", m), ("N", n),
                      ("K", k), ("lda", k + 3), ("ldb", n + 1), ("ldc", n + 2)],
                     extra=[f"--config={index}"])
        assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(k), what=line)
        assert_poison(out["C"][:, n:], "float", "C")


# ---------------------------------------------------------------------------------------------------------
# Loop pipelining (simplifycfg,pipeline after the default pipeline): same results as without
# ---------------------------------------------------------------------------------------------------------

# (kernel, defines, trans_a, trans_b): the hand-prefetch form (matmul.tc) with every transposition, and
# the tutorial form (matmul_grouped.tc, matmul_splitk.tc).
PIPELINE_CONFIGS = [
    ("matmul.tc", {"TYPE": ty, "TM": 16, "TN": 32, "TK": 16, "TRANS_A": int(ta), "TRANS_B": int(tb)}, ta, tb)
    for ty in ("float", "half") for ta in (False, True) for tb in (False, True)
] + [
    (kernel, {"TYPE": ty, "TM": 16, "TN": 16, "TK": 16, **extra}, False, False)
    for kernel, extra in (("matmul_grouped.tc", {"GROUP_M": 2}), ("matmul_splitk.tc", {"TZ": 2}))
    for ty in ("float", "half")
]


@pytest.mark.parametrize("kernel,defines,trans_a,trans_b", PIPELINE_CONFIGS,
                         ids=[f"{c[0]}:{config_id(c[1])}" for c in PIPELINE_CONFIGS])
@pytest.mark.parametrize("k", [70, 5])
def test_pipeline_same_results(kernel, defines, trans_a, trans_b, k, rng, tmp_path):
    """The pipelined kernel (loads feeding the dot issued 2 iterations ahead) computes the same output as
    the kernel without pipelining, bit for bit on the interpreter, for K not a multiple of TK and K < TK."""
    compiled = tritonc(["compile", str(KERNELS / kernel)] + define_args(defines) + ["--emit=ir", "--verify-each",
                                                                                    "--passes=" + PIPELINED_PASSES])
    assert compiled.returncode == 0, compiled.stderr
    assert ".next = masked_load" in compiled.stdout, "the loop was not pipelined"
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    m, n = 37, 45
    lda = m + 1 if trans_a else k + 3
    ldb = k + 2 if trans_b else n + 1
    ldc = n + 2
    a, _ = padded_matrix(rng, k, m, lda, ty) if trans_a else padded_matrix(rng, m, k, lda, ty)
    b, _ = padded_matrix(rng, n, k, ldb, ty) if trans_b else padded_matrix(rng, k, n, ldb, ty)
    c = poisoned((m, ldc), ty)
    grid = (cdiv(m, tm), cdiv(n, tn))
    args = [("A", a), ("B", b), ("C", c)]
    if kernel == "matmul_grouped.tc":
        grid = (grid[0] * grid[1],)
    if kernel == "matmul_splitk.tc":
        grid = grid + (defines["TZ"],)
        args += [("locks", np.zeros(2 * grid[0] * grid[1], dtype=np.int32)), ("alpha", 1.5)]
    args += [("M", m), ("N", n), ("K", k), ("lda", lda), ("ldb", ldb), ("ldc", ldc)]
    expected = Launcher(tmp_path / "default")(kernel, defines, grid, args)
    got = Launcher(tmp_path / "pipelined", ["--passes=" + PIPELINED_PASSES])(kernel, defines, grid, args)
    for name, value in expected.items():
        if ON_DEVICE and np.issubdtype(value.dtype, np.floating):  # GPU programs may sum in other orders
            rtol, atol = AGREEMENT[value.dtype.type]
            np.testing.assert_allclose(got[name], value, rtol=rtol, atol=atol * math.sqrt(k), err_msg=name)
        else:
            np.testing.assert_array_equal(got[name].view(np.uint8), value.view(np.uint8), err_msg=name)


# ---------------------------------------------------------------------------------------------------------
# box_filter_desc.tc: tensor descriptors (desc_load with offsets below zero and past the extents, desc_store
# clipped at the extents). On the interpreter the `launch` variants run desc_load natively (optimized,
# unoptimized), as masked gathers (pipelined, rings, layouts: lower-tensor-descs) and as bulk tensor copies
# where the strides allow (tma: lower-tensor-descs{tma}), each bit for bit against the native run.
# ---------------------------------------------------------------------------------------------------------

# (defines, pixel stride ldw: "aligned" pads C to a multiple of 16 elements, as bulk tensor copies need;
# "odd" leaves it at C + 1, so that only gathers can read it)
BOX_FILTER_DESC_CONFIGS = [
    ({"TYPE": "float", "TH": 4, "TW": 8, "TC": 16}, "aligned"),
    ({"TYPE": "half", "TH": 2, "TW": 16, "TC": 32}, "aligned"),
    ({"TYPE": "half", "TH": 8, "TW": 4, "TC": 16}, "odd"),
    ({"TYPE": "double", "ACC": "double", "TH": 4, "TW": 4, "TC": 8}, "odd"),
]


@pytest.mark.parametrize("defines,stride", BOX_FILTER_DESC_CONFIGS,
                         ids=[f"{config_id(d)},{s}" for d, s in BOX_FILTER_DESC_CONFIGS])
def test_box_filter_desc(defines, stride, rng, launch):
    ty = defines["TYPE"]
    th, tw, tc = defines["TH"], defines["TW"], defines["TC"]
    h, w, c = not_multiple(rng, 5, 19, th), not_multiple(rng, 5, 23, tw), not_multiple(rng, 3, 40, tc)
    ldw = cdiv(c, 16) * 16 if stride == "aligned" else c + 1
    ldh = w * ldw
    x, xv = padded_matrix(rng, h * w, c, ldw, ty)
    xv = xv.reshape(h, w, c)
    # one pixel row after the end of Y catches writes past the image
    y = poisoned(((h + 1) * w, ldw), ty)
    out = launch("box_filter_desc.tc", defines, (cdiv(h, th), cdiv(w, tw), cdiv(c, tc)),
                 [("X", x), ("Y", y), ("H", h), ("W", w), ("C", c), ("ldh", ldh), ("ldw", ldw)])
    padded = np.zeros((h + 2, w + 2, c))
    padded[1:-1, 1:-1] = xv
    expected = sum(padded[1 + dh:1 + dh + h, 1 + dw:1 + dw + w] for dh in (-1, 0, 1) for dw in (-1, 0, 1))
    got = out["Y"][:h * w]
    assert_close(got[:, :c].reshape(h, w, c), expected, ty, scale=3.0, what="Y")
    assert_poison(got[:, c:], ty, "Y channels past C")
    assert_poison(out["Y"][h * w:], ty, "Y rows past H")
    np.testing.assert_array_equal(out["X"], x)


def crsk_filter(rng, shape, ty, unit):
    """A CO x R x S x CI filter (PyTorch's channels-last order: taps CI apart) of random values of ty in a
    poisoned buffer whose output channels are ldf_co apart, padded by a multiple of unit. Returns (buffer,
    float64 values, ldf_co)."""
    co, r, s, ci = shape
    ldf_co = r * s * ci + unit * int(rng.integers(0, 3))
    values = round_to(rng.uniform(-1, 1, size=shape), ty)
    buf = poisoned(co * ldf_co, ty)
    buf[strided_offsets((co, r * s, ci), (ldf_co, ci, 1))] = encode(values, ty).ravel()
    return buf, values, ldf_co


def poisoned_nhwc(rng, shape, ty, unit):
    """A poisoned buffer for a Z x H x W x C output whose strides are padded by multiples of unit. Returns
    (buffer, (ld_z, ld_h, ld_w))."""
    z, h, w, c = shape
    ld_w = c + unit * int(rng.integers(0, 3))
    ld_h = w * ld_w + unit * int(rng.integers(0, 3))
    ld_z = h * ld_h + unit * int(rng.integers(0, 3))
    return poisoned(z * ld_z, ty), (ld_z, ld_h, ld_w)


# (defines, (R, S), (pad_h, pad_w), (dil_h, dil_w), aligned): channels and output channels that the blocks do
# not divide (zero fill past CI, stores clipped past CO); "aligned" strides (multiples of 16 elements, CI
# too) let the tma variant read X and F with bulk tensor copies.
CONV_NHWC_DESC_CONFIGS = [
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TP": 2, "TQ": 8, "TN": 16, "TK": 16}, (2, 3), (1, 2), (2, 1), True),
    ({"TYPE": "bfloat16", "TP": 4, "TQ": 4, "TN": 32, "TK": 8}, (1, 1), (0, 0), (1, 1), False),
    # A 64-pixel tile (wgmma on sm_90a): in the backend and tma variants both loads are rings of bulk
    # tensor copies, the filter's in column-major slots (the dot reads it through `^`).
    ({"TYPE": "half", "TP": 4, "TQ": 16, "TN": 64, "TK": 32}, (3, 3), (1, 1), (1, 1), True),
    # bench/conv_suite.py's 128-pixel tile (a 128 x 64 slot of 128-byte rows; 8 warps in rings_w8)
    ({"TYPE": "half", "TP": 8, "TQ": 16, "TN": 128, "TK": 64}, (3, 3), (1, 1), (1, 1), True),
    # Split-K (SPLIT slices of the k-steps per tile, grid axis 2 holding Z * SPLIT layers): runs of
    # unequal length (9 or 18 k-steps in 4; 6 or 12 in 5), more slices than k-steps (1 or 2 in 3: empty
    # slices add zeros), double with a double accumulator, and bench/conv_suite.py's small-image tile
    # (8 x 8 pixels, 9 slices) with its bulk tensor copies and store in the tma and backend variants.
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8, "SPLIT": 4}, (3, 3), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TP": 2, "TQ": 8, "TN": 16, "TK": 16, "SPLIT": 5}, (2, 3), (1, 2), (2, 1), True),
    ({"TYPE": "bfloat16", "TP": 4, "TQ": 4, "TN": 32, "TK": 8, "SPLIT": 3}, (1, 1), (0, 0), (1, 1), False),
    ({"TYPE": "double", "ACC": "double", "TP": 4, "TQ": 2, "TN": 8, "TK": 8, "SPLIT": 2}, (2, 2), (0, 2),
     (1, 2), False),
    ({"TYPE": "half", "TP": 8, "TQ": 8, "TN": 64, "TK": 64, "SPLIT": 9}, (3, 3), (1, 1), (1, 1), True),
    # BOXES images per tile (the rectangle in images z .. z + BOXES - 1, one box of them each k-step, grid
    # axis 2 CDIV(Z, BOXES) * SPLIT layers), on Z = 2 * BOXES + 1 images: the last tile's boxes but the first
    # reach past the last image (zero fill, stores dropped), and a tile at the wrong image leaves some image
    # unwritten. Odd sizes, padding, dilation, split, and bench/conv_suite.py's
    # 8 x 8 rectangle in two images (128 pixels: wgmma, bulk tensor copies and store in the tma and backend
    # variants), 4 images (two past the end) as one 64-pixel tile.
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8, "BOXES": 2}, (3, 3), (1, 1), (1, 1), False),
    ({"TYPE": "half", "TP": 2, "TQ": 8, "TN": 16, "TK": 16, "BOXES": 2}, (2, 3), (1, 2), (2, 1), True),
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8, "BOXES": 2, "SPLIT": 4}, (3, 3), (1, 1), (1, 1),
     False),
    ({"TYPE": "half", "TP": 8, "TQ": 8, "TN": 64, "TK": 64, "BOXES": 2}, (3, 3), (1, 1), (1, 1), True),
    ({"TYPE": "half", "TP": 4, "TQ": 4, "TN": 64, "TK": 32, "BOXES": 4}, (3, 3), (0, 1), (1, 2), True),
    # DGRAD: F is another convolution's filter (CI x R x S x CO), read flipped with the channels exchanged
    # ([TK, 1, TN] boxes at tap R * S - 1 - t): odd sizes, padding and dilation; the aligned wgmma tile (its B
    # slot row-major); BOXES and SPLIT with it.
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8, "DGRAD": 1}, (3, 2), (2, 1), (1, 2), False),
    ({"TYPE": "half", "TP": 4, "TQ": 16, "TN": 64, "TK": 32, "DGRAD": 1}, (3, 3), (1, 1), (1, 1), True),
    ({"TYPE": "half", "TP": 8, "TQ": 8, "TN": 64, "TK": 64, "BOXES": 2, "SPLIT": 3, "DGRAD": 1}, (3, 3), (1, 1),
     (1, 1), True),
]


@with_warp_specialize
@pytest.mark.parametrize("defines,rs,pad,dil,aligned", CONV_NHWC_DESC_CONFIGS,
                         ids=[config_id(c[0]) for c in CONV_NHWC_DESC_CONFIGS])
def test_conv_nhwc_desc(defines, rs, pad, dil, aligned, rng, launch):
    ty = defines["TYPE"]
    tp, tq, tn, tk = defines["TP"], defines["TQ"], defines["TN"], defines["TK"]
    r, s = rs
    unit = 16 if aligned else 1
    boxes = defines.get("BOXES", 1)
    z = 2 if boxes == 1 else 2 * boxes + 1
    ci = 16 * int(rng.integers(1, 3)) if aligned else not_multiple(rng, 3, 2 * tk - 1, tk)
    # Aligned with wide blocks: CO a multiple of 16 channels that TN does not divide, so that the tma and
    # backend variants store Y's box by bulk tensor stores clipped at CO (tensor-stores).
    co = (16 * not_multiple(rng, 1, (2 * tn - 1) // 16, tn // 16) if aligned and tn > 16
          else not_multiple(rng, 3, 2 * tn - 1, tn))
    h, w = int(rng.integers(5, 10)), int(rng.integers(5, 10))
    p, q = h + 2 * pad[0] - dil[0] * (r - 1), w + 2 * pad[1] - dil[1] * (s - 1)
    x, xv, (ldx_z, ldx_h, ldx_w) = nhwc_tensor(rng, (z, h, w, ci), ty, unit)
    if defines.get("DGRAD"):
        # The filter the kernel convolves with, CO x R x S x CI, is F's flipped taps, channels exchanged.
        f, fv, ldf_co = crsk_filter(rng, (ci, r, s, co), ty, unit)
        fv = fv[:, ::-1, ::-1, :].transpose(3, 1, 2, 0)
    else:
        f, fv, ldf_co = crsk_filter(rng, (co, r, s, ci), ty, unit)
    y, (ldy_z, ldy_p, ldy_q) = poisoned_nhwc(rng, (z, p, q, co), ty, unit)
    # Split-K: poisoned partial tiles (each slice writes its whole tile before any is read), zero counters.
    split = defines.get("SPLIT", 1)
    grid = (cdiv(p, tp) * cdiv(q, tq), cdiv(co, tn), cdiv(z, boxes) * split)
    tiles = grid[0] * grid[1] * cdiv(z, boxes)
    partials = poisoned(tiles * split * boxes * tp * tq * tn, defines.get("ACC", "float"))
    out = launch("conv_nhwc_desc.tc", defines, grid,
                 [("X", x), ("F", f), ("Y", y), ("Z", z), ("H", h), ("W", w), ("CI", ci), ("CO", co),
                  ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]), ("pad_w", pad[1]),
                  ("dil_h", dil[0]), ("dil_w", dil[1]), ("ldx_z", ldx_z), ("ldx_h", ldx_h), ("ldx_w", ldx_w),
                  ("ldf_co", ldf_co), ("ldy_z", ldy_z), ("ldy_p", ldy_p), ("ldy_q", ldy_q),
                  ("partials", partials), ("counters", np.zeros(tiles, dtype=np.int32))])
    expected = conv_reference(xv.transpose(0, 3, 1, 2), fv.transpose(3, 1, 2, 0), pad, (1, 1), p, q,
                              dil).transpose(0, 2, 3, 1)
    check_conv_output(out["Y"], expected, (ldy_z, ldy_p, ldy_q, 1), ty, r * s * ci,
                      f"Y, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} pad={pad} dilation={dil} split={split}")
    np.testing.assert_array_equal(out["counters"], 0, err_msg="counters must be 0 on exit")


# The backward passes through descriptors (stride 1): (defines, (R, S), (pad_h, pad_w), (dil_h, dil_w),
# slices, aligned) as above, the reduction's channels not a multiple of the block (zero fill past CO in the
# data gradient), padding larger than the dilated filter's reach (2 > dil * (S - 1) = 1: DY's boxes start
# past its edges), slices of the k-steps (grid axis 2), more than one adding through the workspace, and
# "aligned" strides and channels (multiples of 16 elements) for the tma variant's bulk copies.
CONV_NHWC_DESC_DGRAD_CONFIGS = [
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8}, (3, 3), (1, 1), (1, 1), 1, False),
    ({"TYPE": "half", "TP": 2, "TQ": 8, "TN": 16, "TK": 16}, (3, 2), (2, 1), (2, 1), 4, True),
    ({"TYPE": "bfloat16", "TP": 4, "TQ": 4, "TN": 32, "TK": 8}, (1, 1), (0, 0), (1, 1), 2, False),
    ({"TYPE": "half", "TP": 4, "TQ": 8, "TN": 16, "TK": 16}, (2, 2), (0, 2), (1, 1), 1, False),
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TN": 16, "TK": 8}, (3, 3), (2, 1), (1, 2), 3, False),
    # wgmma-sized and aligned, one slice: the tma and backend variants store DX's box by a bulk tensor store
    ({"TYPE": "half", "TP": 4, "TQ": 16, "TN": 64, "TK": 32}, (3, 3), (1, 1), (1, 1), 1, True),
]


@with_backend_ws
@pytest.mark.parametrize("defines,rs,pad,dil,slices,aligned", CONV_NHWC_DESC_DGRAD_CONFIGS,
                         ids=[config_id(c[0]) + f"-slices{c[4]}" for c in CONV_NHWC_DESC_DGRAD_CONFIGS])
def test_conv_nhwc_desc_dgrad(defines, rs, pad, dil, slices, aligned, rng, launch):
    ty = defines["TYPE"]
    tp, tq, tn, tk = defines["TP"], defines["TQ"], defines["TN"], defines["TK"]
    r, s = rs
    unit = 16 if aligned else 1
    z, h, w, p, q = conv_backward_problem(rng, rs, pad, (1, 1), dil)
    ci = 16 * int(rng.integers(1, 2 * tn // 16)) if aligned else not_multiple(rng, 3, 2 * tn - 1, tn)
    co = 16 * int(rng.integers(1, 3)) if aligned else not_multiple(rng, 3, 2 * tk - 1, tk)
    dy, dyv, (ldy_z, ldy_p, ldy_q) = nhwc_tensor(rng, (z, p, q, co), ty, unit)
    f, fv, ldf_co = crsk_filter(rng, (co, r, s, ci), ty, unit)
    dx, (ldx_z, ldx_h, ldx_w) = poisoned_nhwc(rng, (z, h, w, ci), ty, unit)
    grid = (cdiv(h, tp) * cdiv(w, tq), cdiv(ci, tn), z * slices)
    tiles = grid[0] * grid[1] * z
    out = launch("conv_nhwc_desc_dgrad.tc", defines, grid,
                 [("DY", dy), ("F", f), ("DX", dx), ("counters", np.zeros(tiles, dtype=np.int32)),
                  ("partials", np.zeros(tiles * tp * tq * tn, dtype=np.float32)), ("Z", z), ("H", h),
                  ("W", w), ("CI", ci), ("CO", co), ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]),
                  ("pad_w", pad[1]), ("dil_h", dil[0]), ("dil_w", dil[1]), ("ldy_z", ldy_z), ("ldy_p", ldy_p),
                  ("ldy_q", ldy_q), ("ldf_co", ldf_co), ("ldx_z", ldx_z), ("ldx_h", ldx_h), ("ldx_w", ldx_w)])
    expected = conv_dgrad_reference(dyv, fv.transpose(1, 2, 0, 3), (z, h, w), pad, (1, 1), dil)
    check_conv_output(out["DX"], expected, (ldx_z, ldx_h, ldx_w, 1), ty, r * s * co,
                      f"DX, CI={ci} H={h} W={w} CO={co} R={r} S={s} pad={pad} dilation={dil} slices={slices}")
    for name, buf in (("DY", dy), ("F", f)):
        np.testing.assert_array_equal(out[name], buf, err_msg=f"{name} must be left as it was")
    np.testing.assert_array_equal(out["counters"], 0, err_msg="counters must be 0 on exit")
    np.testing.assert_array_equal(out["partials"], 0, err_msg="the workspace must be 0 on exit")


# (defines, (R, S), (pad_h, pad_w), (dil_h, dil_w), slices, aligned): CO and CI that the blocks do not
# divide (zero fill past them, stores clipped), rectangles past P and Q, and slices of the reduction over
# the rectangles (grid axis 2), more than one adding through the workspace; the last has more slices than
# rectangles (empty slices add zeros).
CONV_NHWC_DESC_WGRAD_CONFIGS = [
    ({"TYPE": "float", "TP": 4, "TQ": 4, "TM": 16, "TN": 16}, (3, 3), (1, 1), (1, 1), 1, False),
    ({"TYPE": "half", "TP": 2, "TQ": 8, "TM": 16, "TN": 16}, (3, 2), (2, 1), (2, 1), 3, True),
    ({"TYPE": "bfloat16", "TP": 4, "TQ": 4, "TM": 16, "TN": 32}, (1, 1), (0, 0), (1, 1), 2, False),
    ({"TYPE": "float", "TP": 4, "TQ": 8, "TM": 32, "TN": 16}, (2, 3), (2, 0), (1, 2), 9, False),
    # wgmma-sized and aligned, one slice: the tma and backend variants store DF's box by a bulk tensor store
    ({"TYPE": "half", "TP": 4, "TQ": 16, "TM": 64, "TN": 64}, (3, 3), (1, 1), (1, 1), 1, True),
    # dY's rows of 128 channels (256 bytes): its column-major ring is two column blocks of the 128-byte
    # swizzle, which bulk tensor copies fill one box per block (sm_90a, aligned); TN = 16 keeps the
    # 1-warp sweep of check-kernels-ptx.py quick for ptxas
    ({"TYPE": "half", "TP": 4, "TQ": 8, "TM": 128, "TN": 16}, (1, 2), (0, 1), (1, 1), 1, True),
]


@with_backend_ws
@pytest.mark.parametrize("defines,rs,pad,dil,slices,aligned", CONV_NHWC_DESC_WGRAD_CONFIGS,
                         ids=[config_id(c[0]) + f"-slices{c[4]}" for c in CONV_NHWC_DESC_WGRAD_CONFIGS])
def test_conv_nhwc_desc_wgrad(defines, rs, pad, dil, slices, aligned, rng, launch):
    ty = defines["TYPE"]
    tm, tn = defines["TM"], defines["TN"]
    r, s = rs
    unit = 16 if aligned else 1
    z, h, w, p, q = conv_backward_problem(rng, rs, pad, (1, 1), dil)
    if aligned:
        ci, co = 16 * int(rng.integers(1, 2 * tn // 16)), 16 * int(rng.integers(1, 2 * tm // 16))
    else:
        ci, co = not_multiple(rng, 3, 2 * tn - 1, tn), not_multiple(rng, 3, 2 * tm - 1, tm)
    dy, dyv, (ldy_z, ldy_p, ldy_q) = nhwc_tensor(rng, (z, p, q, co), ty, unit)
    x, xv, (ldx_z, ldx_h, ldx_w) = nhwc_tensor(rng, (z, h, w, ci), ty, unit)
    ldf_co = r * s * ci + unit * int(rng.integers(0, 3))
    df = poisoned(co * ldf_co, ty)
    tiles = cdiv(co, tm) * r * s * cdiv(ci, tn)
    out = launch("conv_nhwc_desc_wgrad.tc", defines, (cdiv(co, tm), r * s * cdiv(ci, tn), slices),
                 [("DY", dy), ("X", x), ("DF", df), ("counters", np.zeros(tiles, dtype=np.int32)),
                  ("partials", np.zeros(tiles * tm * tn, dtype=np.float32)), ("Z", z), ("H", h), ("W", w),
                  ("CI", ci), ("CO", co), ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]),
                  ("pad_w", pad[1]), ("dil_h", dil[0]), ("dil_w", dil[1]), ("ldy_z", ldy_z), ("ldy_p", ldy_p),
                  ("ldy_q", ldy_q), ("ldx_z", ldx_z), ("ldx_h", ldx_h), ("ldx_w", ldx_w), ("ldf_co", ldf_co)])
    expected = conv_wgrad_reference(dyv, xv, rs, pad, (1, 1), dil).reshape(co, r * s, ci)
    check_conv_output(out["DF"], expected, (ldf_co, ci, 1), ty, z * p * q,
                      f"DF, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} pad={pad} dilation={dil} "
                      f"slices={slices}")
    np.testing.assert_array_equal(out["counters"], 0, err_msg="counters must be 0 on exit")
    np.testing.assert_array_equal(out["partials"], 0, err_msg="the workspace must be 0 on exit")


# ---------------------------------------------------------------------------------------------------------
# Every configuration above: IR round trip and pass verification; every kernel file: compiles without -D
# and documents itself.
# ---------------------------------------------------------------------------------------------------------

ALL_CONFIGS = (
    [("transpose.tc", d) for d in TRANSPOSE_CONFIGS]
    + [("transpose_checked.tc", d) for d in TRANSPOSE_CHECKED_CONFIGS]
    + [("matmul.tc", c[0]) for c in MATMUL_CONFIGS]
    + [("matmul_grouped.tc", d) for d in MATMUL_GROUPED_CONFIGS]
    + [("matmul_persistent.tc", c[0]) for c in MATMUL_PERSISTENT_CONFIGS]
    + [("matmul_streamk.tc", c[0]) for c in MATMUL_STREAMK_CONFIGS]
    + [("matmul_splitk.tc", d) for d in MATMUL_SPLITK_CONFIGS]
    + [("conv.tc", c[0]) for c in CONV_CONFIGS]
    + [("conv_nhwc.tc", c[0]) for c in CONV_NHWC_CONFIGS]
    + [("conv_nhwc_dgrad.tc", c[0]) for c in CONV_NHWC_DGRAD_CONFIGS]
    + [("conv_nhwc_wgrad.tc", c[0]) for c in CONV_NHWC_WGRAD_CONFIGS]
    + [("softmax.tc", c[0]) for c in SOFTMAX_CONFIGS]
    + [("blocksparse_sddmm.tc", d) for d in SDDMM_CONFIGS]
    + [("blocksparse_dsd.tc", d) for d in DSD_CONFIGS]
    + [("blocksparse_softmax.tc", d) for d in BS_SOFTMAX_CONFIGS]
    + [("reduce.tc", d) for d in REDUCE_CONFIGS]
    + [("elementwise.tc", d) for d in ELEMENTWISE_CONFIGS]
    + [("control.tc", d) for d in CONTROL_CONFIGS]
    + [("convert.tc", d) for d in CONVERT_CONFIGS]
    + [("box_filter_desc.tc", c[0]) for c in BOX_FILTER_DESC_CONFIGS]
    + [("conv_nhwc_desc.tc", c[0]) for c in CONV_NHWC_DESC_CONFIGS]
    + [("conv_nhwc_desc_dgrad.tc", c[0]) for c in CONV_NHWC_DESC_DGRAD_CONFIGS]
    + [("conv_nhwc_desc_wgrad.tc", c[0]) for c in CONV_NHWC_DESC_WGRAD_CONFIGS]
)
KERNEL_FILES = sorted(p.name for p in KERNELS.glob("*.tc"))


@pytest.mark.parametrize("kernel,defines", ALL_CONFIGS,
                         ids=[f"{k}:{config_id(d)}" for k, d in ALL_CONFIGS])
def test_ir_round_trip(kernel, defines):
    src = str(KERNELS / kernel)
    # after the default pipeline, and straight out of IRGen (more phis, undefs and casts)
    for pipeline in ([], ["--passes="]):
        compiled = tritonc(["compile", src] + define_args(defines) + ["--emit=ir"] + pipeline)
        assert compiled.returncode == 0, compiled.stderr
        assert "define" in compiled.stdout
        reparsed = tritonc(["opt", "-", "--passes="], stdin=compiled.stdout)
        assert reparsed.returncode == 0, reparsed.stderr
        assert reparsed.stdout == compiled.stdout, f"print -> parse -> print is not the identity {pipeline}"
    verified = tritonc(["compile", src] + define_args(defines) + ["--verify-each"])
    assert verified.returncode == 0, verified.stderr
    assert verified.stderr == "", verified.stderr


@pytest.mark.parametrize("kernel", KERNEL_FILES)
def test_kernel_defaults_and_header(kernel):
    text = (KERNELS / kernel).read_text()
    assert text.startswith(f"// {kernel} - "), "header comment must start with '// <file> - <summary>'"
    header = text[:text.index("#include")]
    for field in ("Grid:", "Macros:"):
        assert field in header, f"header comment lacks '{field}'"
    compiled = tritonc(["compile", str(KERNELS / kernel), "--emit=ir"])
    assert compiled.returncode == 0, compiled.stderr


# ---------------------------------------------------------------------------------------------------------
# Hand-written GPU-level IR (tests/kernels/gpuir/*.tir): explicit shared buffers, cp_async with commit
# groups and waits, barriers, local_load. The interpreter checks the schedule (a read of a slot whose copy
# is still pending, or a missing barrier, is an error there); on the GPU the same files run through the
# back end's lowering of these operations (LowerAsync.cpp) and must agree with the interpreter.
# ---------------------------------------------------------------------------------------------------------

GPUIR = Path(__file__).resolve().parent / "gpuir"


@pytest.mark.parametrize("rows", [1, 48, 100, 150])
def test_gpuir_ring_copy(rows, rng, launch):
    warps = [a for a in launch.pipeline_args if a.startswith("--num-warps=")]
    if warps and warps[0] != "--num-warps=4":
        # ring_copy.tir names a 4-warp layout (#cols): with another warp count the back end refuses it at
        # the value (on the H100, 1 and 2 warps left a quarter and a half of the rows uncopied).
        r = subprocess.run([TRITONC, "compile", str(GPUIR / "ring_copy.tir"), "--emit=ptx", "-o", os.devnull,
                            warps[0]], capture_output=True, text=True)
        assert r.returncode == 1, r.stderr
        assert "spreads the tile over 4 warps, but the kernel runs with" in r.stderr, r.stderr
        assert "ring_copy.tir:" in r.stderr, r.stderr
        return
    x = rng.uniform(-1.0, 1.0, size=(rows, 32)).astype(np.float32)
    y = poisoned((rows + 5, 32), "float")
    out = launch(str(GPUIR / "ring_copy.tir"), {}, (cdiv(rows, 48),), [("X", x), ("Y", y), ("R", rows)])
    np.testing.assert_array_equal(out["Y"][:rows], x)
    assert_poison(out["Y"][rows:], "float", "Y past R")


@pytest.mark.parametrize("n", [1, 3])
def test_gpuir_shared_reuse(n, rng, launch):
    """allocate-shared places %after over the bytes of the loop's buffers (checked in the PTX: 2 KiB less
    shared memory), and the kernel computes the same on the GPU and the interpreter as with one buffer after another.
    Variants that set their own --passes run it unplaced."""
    def shared_bytes(passes):
        ptx = subprocess.run([TRITONC, "compile", str(GPUIR / "shared_reuse.tir"), passes, "--emit=ptx",
                              "--arch=sm_80", "-o", "-"], capture_output=True, text=True)
        assert ptx.returncode == 0, ptx.stderr
        return int(re.search(r"// dynamic shared memory: (\d+) bytes", ptx.stdout).group(1))
    # The layout conversions' scratch follows the buffers either way.
    assert shared_bytes("--passes=allocate-shared") == shared_bytes("--passes=") - 2048
    x = rng.uniform(-1.0, 1.0, size=(16, 32)).astype(np.float32)
    acc, y = x.copy(), None
    for _ in range(n):
        y, acc = acc, acc + x
    out = launch(str(GPUIR / "shared_reuse.tir"), {}, (1,), [("X", x), ("Y", poisoned((16, 32), "float")),
                                                              ("n", n)], extra=["--passes=allocate-shared"])
    np.testing.assert_array_equal(out["Y"], y + x)


# (M, N, K): N and K multiples of 8 (16-byte copies), M anything.
GPUIR_MATMUL_SHAPES = [(64, 64, 32), (96, 80, 72), (130, 136, 200), (17, 8, 8)]


# accelerate-dot, accumulator-init and mma-in-flight as the back end runs them after async-rings (sm_90a).
WGMMA_PASSES = "--passes=accelerate-dot{num-warps=4,wgmma},accumulator-init,mma-in-flight"


@pytest.mark.parametrize("shape", GPUIR_MATMUL_SHAPES + [(64, 64, 0)],
                         ids=["x".join(map(str, s)) for s in GPUIR_MATMUL_SHAPES + [(64, 64, 0)]])
def test_gpuir_matmul_ring_wgmma_passes(shape, rng, launch):
    """matmul_ring_wgmma.tir after accelerate-dot, accumulator-init and mma-in-flight: wgmma on the ring slots
    (fenced for the async proxy), use_acc false on the first k-step, one group in flight across the back
    edge, refilling the slot the previous k-step read; K = 0 leaves zeros. Variants that set their own
    --passes or another target run it unrewritten."""
    if "--arch=sm_80" in launch.pipeline_args or any(a.startswith("--num-warps=") for a in launch.pipeline_args):
        return  # the passes write 4-warp wgmma layouts, which sm_80 and other warp counts refuse
    rewritten = subprocess.run([TRITONC, "opt", str(GPUIR / "matmul_ring_wgmma.tir"), WGMMA_PASSES],
                               capture_output=True, text=True)
    assert rewritten.returncode == 0, rewritten.stderr
    assert "wgmma_wait 1" in rewritten.stdout and "splat f32 undef" in rewritten.stdout, rewritten.stdout
    m, n, k = shape
    lda, ldb, ldc = k + 8, n + 16, n + 3
    a, av = padded_matrix(rng, m, k, lda, "half")
    b, bv = padded_matrix(rng, k, n, ldb, "half")
    out = launch(str(GPUIR / "matmul_ring_wgmma.tir"), {}, (cdiv(m, 64), cdiv(n, 64)),
                 [("A", a), ("B", b), ("C", poisoned((m, ldc), "float")), ("M", m), ("N", n), ("K", k),
                  ("lda", lda), ("ldb", ldb), ("ldc", ldc)], extra=[WGMMA_PASSES])
    assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(max(k, 1)), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


@pytest.mark.parametrize("form", ["mma", "wgmma"])
@pytest.mark.parametrize("shape", GPUIR_MATMUL_SHAPES, ids=["x".join(map(str, s)) for s in GPUIR_MATMUL_SHAPES])
def test_gpuir_matmul_ring(form, shape, rng, launch):
    """matmul_ring_mma.tir keeps its slots row-major (mma.sync reads them with ldmatrix), matmul_ring_wgmma.tir
    in the wgmma swizzle modes (wgmma reads them through descriptors); either runs on either unit."""
    m, n, k = shape
    lda, ldb, ldc = k + 8, n + 16, n + 3
    a, av = padded_matrix(rng, m, k, lda, "half")
    b, bv = padded_matrix(rng, k, n, ldb, "half")
    c = poisoned((m, ldc), "float")
    out = launch(str(GPUIR / f"matmul_ring_{form}.tir"), {}, (cdiv(m, 64), cdiv(n, 64)),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", lda), ("ldb", ldb),
                  ("ldc", ldc)])
    assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


def check_gpuir_matmul(kernel, shape, rng, launch, tile, ldc_pad, extra=(), poison=True):
    """Launches a hand-written C = A @ B kernel (f16 operands, f32 C, tiles of `tile` = (rows, columns))
    on padded A and B and a poisoned C (rows ldc_pad elements longer than N) and checks C against numpy
    and, with `poison`, that the padding is untouched."""
    m, n, k = shape
    lda, ldb, ldc = k + 8, n + 16, n + ldc_pad
    a, av = padded_matrix(rng, m, k, lda, "half")
    b, bv = padded_matrix(rng, k, n, ldb, "half")
    c = poisoned((m, ldc), "float")
    out = launch(str(kernel), {}, (cdiv(m, tile[0]), cdiv(n, tile[1])),
                 [("A", a), ("B", b), ("C", c), ("M", m), ("N", n), ("K", k), ("lda", lda), ("ldb", ldb),
                  ("ldc", ldc)], extra=list(extra))
    assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(max(k, 1)), what=f"C, M={m} N={n} K={k}")
    if poison:
        assert_poison(out["C"][:, n:], "float", "C")


def refuses_other_targets(path, launch, warps, warps_error):
    """For a hand-written sm_90a kernel laid out for `warps` warps, under a launch variant for sm_80 or
    another warp count: checks that compiling it is a located error (warps_error: the message for the other
    warp count) and returns True; returns False where the variant runs the kernel."""
    warp_args = [a for a in launch.pipeline_args if a.startswith("--num-warps=")]
    sm80 = "--arch=sm_80" in launch.pipeline_args
    if not sm80 and (not warp_args or warp_args[-1] == f"--num-warps={warps}"):
        return False
    res = subprocess.run([TRITONC, "compile", str(path), "--emit=ptx", "-o", os.devnull, f"--num-warps={warps}"]
                         + launch.pipeline_args, capture_output=True, text=True)
    assert res.returncode == 1, res.stderr
    assert f"{path.name}:" in res.stderr, res.stderr
    assert ("need sm_90a" if sm80 else warps_error) in res.stderr, res.stderr
    return True


@with_warp_specialize_ir
@pytest.mark.parametrize("form", ["wgmma", "store"])
@pytest.mark.parametrize("shape", GPUIR_MATMUL_SHAPES, ids=["x".join(map(str, s)) for s in GPUIR_MATMUL_SHAPES])
def test_gpuir_matmul_tma(form, shape, rng, launch):
    """Hopper's asynchronous units in GPU-level IR (LowerHopper.cpp): matmul_tma_wgmma.tir fills rings by bulk
    tensor copies waited for on mbarriers (phase parity), multiplies with wgmma (use_acc false on the first
    k-step) and keeps one wgmma group in flight; matmul_tma_store.tir also writes C through a shared slot
    and a bulk tensor store (fence_proxy_async, tma_store_wait). The copy engine zero-fills and clips at M,
    N and K. Both name 4 warps and need sm_90a: other warp counts and sm_80 are located errors."""
    kernel = GPUIR / f"matmul_tma_{form}.tir"
    if refuses_other_targets(kernel, launch, 4, "spreads the tile over 4 warps, but the kernel runs with"):
        return
    # Tensor maps need 16-byte strides: the leading dimensions of A and B (and of C for the bulk store).
    check_gpuir_matmul(kernel, shape, rng, launch, (64, 64), 4 if form == "store" else 3)


# (M, N, K) of the warp-specialized matmul: 128 x 64 tiles; K = 232 takes 8 k-steps (the four-slot rings
# wrap once), K = 8 one, K = 0 none (zeros).
GPUIR_WS_SHAPES = [(128, 64, 64), (200, 136, 232), (17, 8, 8), (130, 72, 520), (64, 64, 0)]


@pytest.mark.parametrize("shape", GPUIR_WS_SHAPES, ids=["x".join(map(str, s)) for s in GPUIR_WS_SHAPES])
def test_gpuir_matmul_ws(shape, rng, launch):
    """matmul_ws.tir, warp-specialized as the vendor libraries' Hopper GEMMs are (docs/WARP-SPECIALIZATION.md):
    a producer warpgroup fills four-slot rings with bulk tensor copies, each slot guarded by a full and an
    empty mbarrier, and two consumer warpgroups multiply their halves of a 128 x 64 tile with wgmma, one group
    in flight, each releasing a slot after the wait that retires its reader; setmaxnreg moves registers from
    the producer (40) to the consumers (232). The kernel launches the partitions' 12 warps whatever num_warps
    is (checked in the PTX and the launch); its consumers' layouts are for 4 warps, so other warp counts and
    sm_80 are located errors."""
    kernel = GPUIR / "matmul_ws.tir"
    if refuses_other_targets(kernel, launch, 4, "tiles in a partition need num_warps warps"):
        return
    ptx = subprocess.run([TRITONC, "compile", str(kernel), "--emit=ptx", "-o", "-"], capture_output=True, text=True)
    assert ptx.returncode == 0, ptx.stderr
    assert ".reqntid 384, 1, 1" in ptx.stdout and ".maxnreg 168" in ptx.stdout, ptx.stdout[:2000]
    check_gpuir_matmul(kernel, shape, rng, launch, (128, 64), 3)


TUTORIAL_SHAPES = GPUIR_MATMUL_SHAPES + [(40, 16, 0)]


@pytest.mark.parametrize("form", ["planned", "passes"])
@pytest.mark.parametrize("shape", TUTORIAL_SHAPES, ids=["x".join(map(str, s)) for s in TUTORIAL_SHAPES])
def test_gpuir_matmul_tutorial(form, shape, rng, launch):
    """matmul_tutorial.tir, a K loop in the tutorial form, as written (the back end plans its copies) and
    after the passes its `; passes:` line names: tensor-copies fills async-rings' rings by bulk tensor copies
    on mbarriers, tensor-stores writes C by a bulk tensor store (checked in the sm_90a PTX). On sm_80 those
    are a located error. Variants that set their own --passes run it as they say. K = 0: C is zeros."""
    kernel = GPUIR / "matmul_tutorial.tir"
    passes = re.search(r"^; passes: (.*)$", kernel.read_text(), re.M).group(1)
    extra = ["--passes=" + passes] if form == "passes" else []
    if form == "passes":
        if "--arch=sm_80" in launch.pipeline_args:
            r = subprocess.run([TRITONC, "compile", str(kernel), "--emit=ptx", "-o", os.devnull] + extra
                               + launch.pipeline_args, capture_output=True, text=True)
            assert r.returncode == 1, r.stderr
            assert f"{kernel.name}:" in r.stderr and "bulk tensor copies need sm_90a" in r.stderr, r.stderr
            return
        ptx = subprocess.run([TRITONC, "compile", str(kernel), "--emit=ptx", "--arch=sm_90a", "-o", "-"] + extra,
                             capture_output=True, text=True)
        assert ptx.returncode == 0, ptx.stderr
        assert "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" in ptx.stdout
        assert "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" in ptx.stdout
        assert "cp.async.cg" not in ptx.stdout and "cp.async.ca" not in ptx.stdout
    # The kernel declares its leading dimensions multiples of 8 (16-byte rows for the tensor maps).
    check_gpuir_matmul(kernel, shape, rng, launch, (64, 64), 8, extra=extra, poison=False)
def test_gpuir_own_elements(rng, launch):
    """own_elements.tir: each thread reads back and overwrites its own elements of a slot with no barrier (one
    #blocked layout holding each element once on 4 warps): insert-barriers places none, the interpreter
    allows it, and on the GPU TRITONC_TEST_SANITIZER=racecheck must find no hazard."""
    warps = [a for a in launch.pipeline_args if a.startswith("--num-warps=")]
    if warps and warps[0] != "--num-warps=4":
        pytest.skip("the kernel names a 4-warp layout (test_gpuir_ring_copy checks the error)")
    placed = tritonc(["opt", str(GPUIR / "own_elements.tir"), "--passes=insert-barriers"])
    assert placed.returncode == 0, placed.stderr
    assert "barrier" not in placed.stdout
    x = rng.uniform(-1.0, 1.0, size=(16, 32)).astype(np.float32)
    out = launch(str(GPUIR / "own_elements.tir"), {}, (1,), [("X", x), ("Y", poisoned((16, 32), "float"))])
    np.testing.assert_array_equal(out["Y"], (x + x) + x)


def placed_barriers(name, passes, tmp_path):
    """tests/kernels/gpuir/NAME without its barriers and proxy fences, rewritten by PASSES (which end with
    insert-barriers, placing them again)."""
    kept = [line for line in (GPUIR / name).read_text().splitlines(keepends=True)
            if line.strip() not in ("barrier", "fence_proxy_async")]
    stripped, placed = tmp_path / f"stripped-{name}", tmp_path / f"placed-{name}"
    stripped.write_text("".join(kept))
    r = tritonc(["opt", str(stripped), "--passes=" + passes, "-o", str(placed)])
    assert r.returncode == 0, r.stderr
    return placed


PLACED_BARRIERS = [("ring_copy.tir", "insert-barriers"), ("matmul_ring_mma.tir", "insert-barriers"),
                   ("matmul_tma_store.tir", "insert-barriers"),
                   ("matmul_ring_mma.tir", "schedule-refills,insert-barriers"),
                   ("matmul_ring_wgmma.tir", "schedule-refills,insert-barriers")]


@pytest.mark.parametrize("name,passes", PLACED_BARRIERS,
                         ids=[f"{n[:-4]}-{p.split(',')[0]}" for n, p in PLACED_BARRIERS])
def test_gpuir_placed_barriers(name, passes, rng, launch, tmp_path):
    """Hand-written kernels with the barriers and fences of insert-barriers instead of their own (the same
    but for matmul_tma_store's refill barrier, which moves into the refill block: see
    tests/lit/insert-barriers/gpuir-kernels.test), and the cp.async rings also with their refills issued
    before the slot reads (schedule-refills): the same results on the interpreter (which fails a missing
    barrier or a slot overwritten while read) and the GPU; under TRITONC_TEST_SANITIZER=racecheck, no
    hazard."""
    warps = [a for a in launch.pipeline_args if a.startswith("--num-warps=")]
    if warps and warps[0] != "--num-warps=4":
        pytest.skip("the kernel names 4-warp layouts (test_gpuir_ring_copy checks the error)")
    if name == "matmul_tma_store.tir" and "--arch=sm_80" in launch.pipeline_args:
        pytest.skip("bulk tensor copies need sm_90a (test_gpuir_matmul_tma checks the error)")
    kernel = placed_barriers(name, passes, tmp_path)
    if passes.startswith("schedule-refills"):
        # the refill moved: the first copy after the body's wait comes before the first slot read
        body = kernel.read_text().split("\nbody:\n")[1]
        assert body.index("cp_async %") < body.index("local_load"), body
    kernel = str(kernel)
    if name == "ring_copy.tir":
        x = rng.uniform(-1.0, 1.0, size=(100, 32)).astype(np.float32)
        out = launch(kernel, {}, (cdiv(100, 48),), [("X", x), ("Y", poisoned((105, 32), "float")), ("R", 100)])
        np.testing.assert_array_equal(out["Y"][:100], x)
        return
    m, n, k = 96, 80, 72
    lda, ldb, ldc = k + 8, n + 16, n + 4
    a, av = padded_matrix(rng, m, k, lda, "half")
    b, bv = padded_matrix(rng, k, n, ldb, "half")
    out = launch(kernel, {}, (cdiv(m, 64), cdiv(n, 64)),
                 [("A", a), ("B", b), ("C", poisoned((m, ldc), "float")), ("M", m), ("N", n), ("K", k),
                  ("lda", lda), ("ldb", ldb), ("ldc", ldc)])
    assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


@pytest.mark.parametrize("shape", [(96, 80, 72), (17, 8, 8)], ids=["96x80x72", "17x8x8"])
def test_gpuir_accumulator_init(shape, rng, launch, tmp_path):
    """matmul_tma_wgmma.tir with use_acc the constant true (its zero accumulator counts on every k-step) after
    accumulator-init, which makes the first k-step ignore the accumulator instead and enters the loop with an
    undefined one. Variants that set their own --passes run it unrewritten."""
    if "--arch=sm_80" in launch.pipeline_args or any(a.startswith("--num-warps=") for a in launch.pipeline_args):
        return  # refused as in test_gpuir_matmul_tma
    text = (GPUIR / "matmul_tma_wgmma.tir").read_text()
    kernel = tmp_path / "matmul_tma_use_acc_true.tir"
    kernel.write_text(text.replace("%d = wgmma %ca, %cb, %acc, %use", "%d = wgmma %ca, %cb, %acc, i1 true"))
    rewritten = subprocess.run([TRITONC, "opt", str(kernel), "--passes=accumulator-init"], capture_output=True,
                               text=True)
    assert rewritten.returncode == 0 and "splat f32 undef" in rewritten.stdout, rewritten.stderr
    m, n, k = shape
    lda, ldb, ldc = k + 8, n + 16, n + 3
    a, av = padded_matrix(rng, m, k, lda, "half")
    b, bv = padded_matrix(rng, k, n, ldb, "half")
    out = launch(str(kernel), {}, (cdiv(m, 64), cdiv(n, 64)),
                 [("A", a), ("B", b), ("C", poisoned((m, ldc), "float")), ("M", m), ("N", n), ("K", k),
                  ("lda", lda), ("ldb", ldb), ("ldc", ldc)], extra=["--passes=accumulator-init"])
    assert_close(out["C"][:, :n], av @ bv, "float", scale=math.sqrt(k), what=f"C, M={m} N={n} K={k}")
    assert_poison(out["C"][:, n:], "float", "C")


# Forward NHWC convolution with its operand tiles as bulk tensor copies (gen_conv_nhwc_tma.py writes the
# kernels): A as 4-D boxes of the image whose traversal strides are the convolution's stride and whose
# padding is the copy engine's zero fill, B as 3-D boxes of the filter. The committed files are the stride-1
# 128 x 128 and 128 x 256 tiles (8 warps), the latter also with a K-major B; other configurations are generated
# here.
def conv_tma_generator():
    import importlib.util
    spec = importlib.util.spec_from_file_location("gen_conv_nhwc_tma", GPUIR / "gen_conv_nhwc_tma.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpuir_conv_tma_files_are_generated():
    gen = conv_tma_generator()
    for name, cfg in gen.COMMITTED.items():
        assert (GPUIR / name).read_text() == gen.generate(**cfg), \
            f"{name} is stale: run python3 tests/kernels/gpuir/gen_conv_nhwc_tma.py"


# (kernel: a committed file or a generated configuration, (Z, H, W, CI, CO), (R, S), pad, dil). CI and CO
# are multiples of 8 (16-byte tensor map strides) but not of 64, so that the copy engine's zero fill ends
# the last channel block; P and Q are not multiples of the tile, so that the epilogue's masks cut it.
CONV_TMA_CASES = [
    ("conv_nhwc_tma_128x128.tir", (2, 9, 13, 24, 72), (3, 3), (1, 1), (1, 1)),
    ("conv_nhwc_tma_128x256.tir", (1, 10, 11, 72, 40), (3, 3), (1, 2), (2, 1)),
    (dict(tile=(2, 4, 8), tn=64, warps=4, stages=3, stride=(2, 2)), (3, 11, 14, 16, 24), (3, 3), (1, 1),
     (1, 1)),
    (dict(tile=(1, 8, 16), tn=128, warps=8, stages=4, stride=(2, 2)), (2, 15, 17, 40, 136), (1, 1),
     (0, 0), (1, 1)),
    (dict(tile=(1, 8, 16), tn=128, warps=8, stages=2, stride=(2, 1)), (1, 12, 9, 8, 8), (5, 3), (2, 1),
     (1, 2)),
    (dict(tile=(1, 8, 16), tn=128, warps=8, stages=3, stride=(1, 1), dtype="bf16"), (2, 7, 12, 40, 48),
     (3, 3), (1, 1), (1, 1)),
    # Bulk tensor stores in the epilogue (clipped by the copy engine), four channel blocks through a ring
    # of three slots, and a stride-2 one with 4 warps.
    (dict(tile=(1, 8, 16), tn=256, warps=8, stages=3, stride=(1, 1), store="tma"), (2, 9, 13, 24, 200),
     (3, 3), (1, 1), (1, 1)),
    (dict(tile=(2, 4, 8), tn=64, warps=4, stages=3, stride=(2, 2), store="tma"), (3, 11, 14, 16, 24), (3, 3),
     (1, 1), (1, 1)),
    # K-major B: the filter CO x (R*S) x CI in column-major [64, TN] slots, one wgmma of N = TN.
    ("conv_nhwc_tma_128x256_kmajor.tir", (2, 9, 13, 24, 200), (3, 3), (1, 1), (1, 1)),
    (dict(tile=(2, 4, 8), tn=128, warps=4, stages=3, stride=(2, 2), b_major="k"), (3, 11, 14, 16, 136),
     (3, 3), (1, 1), (2, 1)),
]


def conv_tma_case_id(case):
    kernel, shape, rs, pad, dil = case
    name = kernel[len("conv_nhwc_tma_"):-len(".tir")] if isinstance(kernel, str) else \
        "{}x{}-s{}{}{}{}{}".format(math.prod(kernel["tile"]), kernel["tn"], *kernel["stride"],
                                   "-" + kernel["dtype"] if "dtype" in kernel else "",
                                   "-tmastore" if kernel.get("store") == "tma" else "",
                                   "-kmajor" if kernel.get("b_major") == "k" else "")
    return f"{name}-{'x'.join(map(str, shape))}-r{rs[0]}s{rs[1]}"


@with_warp_specialize_ir
@pytest.mark.parametrize("case", CONV_TMA_CASES, ids=[conv_tma_case_id(c) for c in CONV_TMA_CASES])
def test_gpuir_conv_tma(case, rng, launch, tmp_path):
    """conv_nhwc_tma*.tir against the float64 reference (and, on the GPU, the interpreter): padding and
    strides of every tensor padded by multiples of 8 elements, filled with poison (NaN) that a copy past an
    extent would spread, odd image sizes, stride 2 through traversal strides, dilation, 1x1 and 5x3
    filters, 2 to 4 stages, f16 and bf16, masked st.global and bulk tensor store epilogues, N-major and
    K-major B. On the GPU with another warp count or sm_80 the kernel is a located error."""
    kernel, (z, h, w, ci, co), (r, s), pad, dil = case
    gen = conv_tma_generator()
    if isinstance(kernel, str):
        cfg, path = gen.COMMITTED[kernel], GPUIR / kernel
    else:
        cfg, path = kernel, tmp_path / f"conv_nhwc_tma_{conv_tma_case_id(case)}.tir"
        path.write_text(gen.generate(**cfg))
    stride, warps = cfg["stride"], cfg["warps"]
    ty = "bfloat16" if cfg.get("dtype") == "bf16" else "half"
    # The launcher compares bf16 outputs (uint16 buffers) with the interpreter's by value when TYPE says
    # so; .tir files ignore the define.
    defines = {"TYPE": ty}
    if refuses_other_targets(path, launch, warps, f"spreads the tile over {warps} warps, but the kernel runs with"):
        return
    p = (h + 2 * pad[0] - dil[0] * (r - 1) - 1) // stride[0] + 1
    q = (w + 2 * pad[1] - dil[1] * (s - 1) - 1) // stride[1] + 1
    x, xv, (ldx_z, ldx_h, ldx_w) = nhwc_tensor(rng, (z, h, w, ci), ty, 8)
    # The filter as (R*S) x CI x CO, or CO x (R*S) x CI for a K-major B, with padded strides.
    wv = round_to(rng.uniform(-1, 1, size=(r * s, ci, co)), ty)
    if cfg.get("b_major") == "k":
        ldw_tap = ci + 8 * int(rng.integers(0, 3))
        ldw_co = r * s * ldw_tap + 8 * int(rng.integers(0, 3))
        wt = poisoned(co * ldw_co, ty)
        wt[strided_offsets((co, r * s, ci), (ldw_co, ldw_tap, 1))] = encode(wv.transpose(2, 0, 1), ty).ravel()
        filter_strides = [("ldw_co", ldw_co), ("ldw_tap", ldw_tap)]
    else:
        ldw_ci = co + 8 * int(rng.integers(0, 3))
        ldw_tap = ci * ldw_ci + 8 * int(rng.integers(0, 3))
        wt = poisoned(r * s * ldw_tap, ty)
        wt[strided_offsets(wv.shape, (ldw_tap, ldw_ci, 1))] = encode(wv, ty).ravel()
        filter_strides = [("ldw_tap", ldw_tap), ("ldw_ci", ldw_ci)]
    ldy_q = co + 8 * int(rng.integers(0, 3))
    ldy_p = q * ldy_q + 8 * int(rng.integers(0, 3))
    ldy_z = p * ldy_p + 8 * int(rng.integers(0, 3))
    y = poisoned(z * ldy_z, ty)
    out = launch(str(path), defines, gen.grid(cfg, z, p, q, co),
                 [("X", x), ("Wt", wt), ("Y", y), ("Z", z), ("H", h), ("W", w), ("CI", ci), ("CO", co),
                  ("R", r), ("S", s), ("P", p), ("Q", q), ("pad_h", pad[0]), ("pad_w", pad[1]),
                  ("dil_h", dil[0]), ("dil_w", dil[1]), ("ldx_z", ldx_z), ("ldx_h", ldx_h), ("ldx_w", ldx_w),
                  *filter_strides, ("ldy_z", ldy_z), ("ldy_p", ldy_p), ("ldy_q", ldy_q)],
                 extra=[f"--num-warps={warps}"])
    # conv_reference takes Z x CI x H x W and CI x R x S x CO.
    wref = wv.reshape(r, s, ci, co).transpose(2, 0, 1, 3)
    expected = conv_reference(xv.transpose(0, 3, 1, 2), wref, pad, stride, p, q, dil).transpose(0, 2, 3, 1)
    check_conv_output(out["Y"], expected, (ldy_z, ldy_p, ldy_q, 1), ty, r * s * ci,
                      f"Y, Z={z} CI={ci} H={h} W={w} CO={co} R={r} S={s} stride={stride} dilation={dil}")
