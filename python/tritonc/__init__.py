"""tritonc: compile Triton-C kernels and launch them on CUDA tensors.

    import torch, tritonc
    k = tritonc.compile("kernels/transpose.tc", defines={"TM": 64, "TN": 64}, num_warps=4)
    k[(M // 64, N // 64)](x, y, M, N, x.stride(0), y.stride(0))

Pointer arguments are anything with ``data_ptr()`` (torch tensors), an
object with ``__cuda_array_interface__`` or ``__dlpack__`` (CUDA memory), an
int address, or None; scalars
are Python ints, floats and bools, converted to the kernel parameter's type.
Kernels run on CUDA device 0 in its primary context (the one PyTorch uses).
A compile error raises CompileError whose message holds the diagnostics
("file:line:col: error: ..."); launch problems raise LaunchError, bad
arguments TypeError or ValueError. Compiled kernels are cached in
$TRITONC_CACHE_DIR (default ~/.cache/tritonc).
"""

import operator as _operator
import os as _os

from . import _tritonc
from ._tritonc import CompileError, DeviceBuffer, LaunchError

__all__ = [
    "compile",
    "Kernel",
    "CompileError",
    "LaunchError",
    "DeviceBuffer",
    "cuda_available",
    "cuda_status",
    "synchronize",
    "version",
]


def version():
    """The compiler version (it enters the kernel cache key)."""
    return _tritonc.version()


def cuda_status():
    """(usable, text): whether a CUDA device can be used, with its name or the reason."""
    return _tritonc.cuda_status()


def cuda_available():
    """Whether kernels can be launched here."""
    return _tritonc.cuda_status()[0]


def synchronize():
    """Waits for all work on the device."""
    _tritonc.synchronize()


def _define_value(name, value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_define_value(name, v) for v in value) + "]"
    raise TypeError(f"define {name!r}: expected int, float, bool, str or a list, "
                    f"not {type(value).__name__}")


class Kernel:
    """A compiled kernel. Call it as ``k[grid](*args, stream=None)``."""

    def __init__(self, impl):
        self._impl = impl

    @property
    def ptx(self):
        """PTX of the generic variant (no argument specialization)."""
        return self._impl.ptx

    @property
    def name(self):
        return self._impl.name

    @property
    def shared_mem(self):
        """Dynamic shared memory of a launch, in bytes."""
        return self._impl.shared_mem

    @property
    def num_warps(self):
        return self._impl.num_warps

    @property
    def num_stages(self):
        """Software-pipelining depth the kernel was compiled with."""
        return self._impl.num_stages

    def timings(self, specialization=None):
        """Seconds spent in each phase of the compilation of a variant (None: the
        generic one, compiled at tritonc.compile; else a string such as "DDNN",
        compiled now if needed): {"preprocess", "parse", "irgen", "passes",
        "codegen", "cache", "load", "ptxas", "total"}. A phase that did not run is
        0 (a cache hit has only preprocess and cache; load is 0 until the variant
        is loaded by a launch or by load())."""
        return self._impl.timings(specialization)

    def load(self, specialization=None):
        """Loads a variant into the CUDA driver (its PTX -> SASS compilation)
        without launching it, and returns its timings() with "load" filled in.
        A launch with that specialization then starts at once. Raises LaunchError
        without a device."""
        return self._impl.load(specialization)

    @property
    def num_barriers(self):
        return self._impl.num_barriers

    @property
    def arch(self):
        """The target, "sm_90a" or "sm_80"."""
        return self._impl.arch

    @property
    def signature(self):
        """Like "transpose(f32* X, f32* Y, i32 M, ...)"."""
        return self._impl.signature

    @property
    def params(self):
        """[(name, type), ...] of the kernel's parameters."""
        return list(self._impl.params)

    @property
    def warnings(self):
        """Formatted warnings of the compilation ("" when none), followed by its
        remarks when ``compile(remarks=...)`` asked for them (see ``remarks``)."""
        return self._impl.warnings

    @property
    def remarks(self):
        """Formatted optimization remarks of the compilation ("file:line:col: remark:
        ..." with the source line), as ``compile(remarks=...)`` asked ("" when none)."""
        return self._impl.remarks

    @property
    def last_specialization(self):
        """Specialization of the last launch: one letter per argument, D where a
        pointer or integer is a multiple of 16 ("" when nothing was)."""
        return self._impl.last_specialization

    def variant_ptx(self, specialization):
        """PTX compiled for a specialization string such as "DDNN"."""
        return self._impl.variant_ptx(specialization)

    def variant_shared_mem(self, specialization):
        """Dynamic shared memory (bytes) of the variant for a specialization string; it can differ
        from the generic variant's (shared_mem), e.g. when vectorized loads become cp.async rings."""
        return self._impl.variant_shared_mem(specialization)

    def launch(self, grid, *args, stream=None):
        """Launches on a grid of 1 to 3 dimensions, asynchronously on ``stream``
        (None: the default stream; an int CUstream/cudaStream_t, or an object
        with ``cuda_stream`` such as torch.cuda.Stream)."""
        self._impl.launch(grid, args, stream)

    def __getitem__(self, grid):
        # Checked and converted once, in C++: calling the result launches
        # with no Python frame in between, as k[grid](...) is on every
        # launch's path.
        return self._impl.bind(grid)

    def __repr__(self):
        return (f"<tritonc.Kernel {self.signature} {self.arch} num_warps={self.num_warps} "
                f"num_stages={self.num_stages}>")


def _is_file(path_or_source):
    if isinstance(path_or_source, _os.PathLike):
        return True
    if "\n" in path_or_source or "{" in path_or_source:
        return False
    return True


def _back_end_option(what, value, define, define_list):
    """An int option, or a list that joins the tuning space as ``define`` (then
    the int returned is a placeholder the configuration overrides)."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{what}: the list is empty")
        ints = [_int_option(what, v) for v in value]
        define_list.append((define, _define_value(define, ints)))
        return ints[0]
    return _int_option(what, value)


def _int_option(what, value):
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int or a list of ints, not bool")
    try:
        n = _operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int or a list of ints, not "
                        f"{type(value).__name__}") from None
    if not 0 < n < 2**31:
        raise ValueError(f"{what} must be positive, not {n}")
    return n


def compile(path_or_source, defines=None, num_warps=4, arch=None, include_dirs=(),
            config=None, allow_tf32=False, name=None, cache=True, num_stages=3, tma=True,
            tma_store=True, remarks=False):
    """Compiles a Triton-C kernel for the GPU.

    path_or_source: a path (str or os.PathLike) to a .tc file, or Triton-C source
    text (anything with a newline or a brace). defines: {"TM": 64, ...}; a list
    value is a tuning list, and then ``config`` picks the configuration.
    num_warps: 1, 2, 4, 8 or 16. num_stages: software-pipelining depth of loops
    feeding a dot, 1 to 8 (1: no pipelining; sm_90a lowers it to what the shared
    operand buffers hold). Either may be a list, tuned like a
    define list (TRITONC_NUM_WARPS, TRITONC_NUM_STAGES; ``config`` picks).
    arch: "sm_90a" or "sm_80"; None picks the device's target (sm_90a without a
    device). name: the file name shown in diagnostics for source text. cache:
    use the on-disk kernel cache. tma: on sm_90a, fill the shared buffers of
    tensor-core operands with bulk tensor copies where the loads allow it (False:
    cp.async). tma_store: on sm_90a, with tma, write 2-D tiles of 16-bit elements
    with bulk tensor stores where the pointers and the code after the store allow
    it (False: st.global). remarks: True (or "missed") records why optimizations
    were declined, "passed" which applied, "all" both; ":pipeline,dot,..." after the
    kind limits them to some passes (as ``tritonc compile --remarks``); they are
    in ``Kernel.remarks``. Needs no GPU; raises CompileError on errors,
    ValueError on out-of-range options.
    """
    text = None
    if _is_file(path_or_source):
        path = _os.fspath(path_or_source)
        if not _os.path.isfile(path):
            raise FileNotFoundError(f"no such kernel file: {path!r}")
    else:
        text = path_or_source
        path = name or "<source>"
    define_list = [(str(k), _define_value(k, v)) for k, v in (defines or {}).items()]
    warps = _back_end_option("num_warps", num_warps, "TRITONC_NUM_WARPS", define_list)
    stages = _back_end_option("num_stages", num_stages, "TRITONC_NUM_STAGES", define_list)
    impl = _tritonc.compile(path, text, define_list, [_os.fspath(d) for d in include_dirs],
                            warps, stages, arch, config, bool(allow_tf32), bool(cache),
                            bool(tma), bool(tma_store),
                            "missed" if remarks is True else (remarks or ""))
    return Kernel(impl)
