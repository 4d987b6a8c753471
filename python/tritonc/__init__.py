"""tritonc: compile Triton-C kernels and launch them on CUDA tensors.

    import torch, tritonc
    k = tritonc.compile("kernels/transpose.tc", defines={"TM": 64, "TN": 64}, num_warps=4)
    k[(M // 64, N // 64)](x, y, M, N, x.stride(0), y.stride(0))

Pointer arguments are anything with ``data_ptr()`` (torch tensors), an
object with ``__cuda_array_interface__`` or ``__dlpack__`` (CUDA memory), an
int address, or None; a tensor whose element type differs from the
parameter's (an fp32 tensor for a ``half*``) is a TypeError naming the
parameter. Scalars are Python ints, floats and bools, converted to the kernel
parameter's type. The grid is a tuple of 1 to 3 ints, or a callable
``lambda meta: ...`` given the kernel's arguments by parameter name and the
configuration's defines (``meta["TM"]``). Launches go to PyTorch's current
stream when torch is loaded (``torch.cuda.stream(s)`` and CUDA-graph capture
work), else to the default stream; ``stream=`` overrides it.
Kernels run on the device of their tensors (cuda:N; device 0 when no
argument tells), in that device's primary context (the one PyTorch uses).
``compile(..., interpret=True)`` or ``TRITONC_INTERPRET=1`` runs kernels on
the CPU interpreter instead, on NumPy arrays and CPU tensors.
``tritonc.autotune`` picks the fastest of several configurations;
``tritonc.testing.do_bench`` times a callable on the GPU.
A compile error raises CompileError whose message holds the diagnostics
("file:line:col: error: ..."); launch problems raise LaunchError, bad
arguments TypeError or ValueError. Compiled kernels are cached in
$TRITONC_CACHE_DIR (default ~/.cache/tritonc).
"""

import operator as _operator
import os as _os

from . import _tritonc
from ._tritonc import CompileError, DeviceBuffer, LaunchError

__version__ = _tritonc.__version__

__all__ = [
    "__version__",
    "compile",
    "kernels_dir",
    "autotune",
    "Config",
    "cdiv",
    "cache_stats",
    "InterpretedKernel",
    "Kernel",
    "CompileError",
    "LaunchError",
    "DeviceBuffer",
    "cuda_available",
    "cuda_status",
    "synchronize",
    "version",
]


def kernels_dir():
    """The folder of the bundled kernels (matmul.tc, softmax.tc, ...): $TRITONC_KERNELS_DIR when
    set, else the copy installed with the package."""
    return _os.environ.get("TRITONC_KERNELS_DIR") or _os.path.join(_os.path.dirname(__file__),
                                                                   "kernels")


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


def cache_stats():
    """This process's kernel-cache lookups: {"memory_hits", "disk_hits", "misses", "stores",
    "corrupt_entries"} (a process that compiles nothing has no misses)."""
    return _tritonc.cache_stats()


def cdiv(a, b):
    """Ceiling division, for grids: cdiv(1000, 128) == 8."""
    return -(-a // b)


def _define_value(name, value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_define_value(name, v) for v in value) + "]"
    raise TypeError(f"define {name!r}: expected int, float, bool, str or a list, "
                    f"not {type(value).__name__}")


def _meta_value(text):
    """A define's text as the Python value a grid function wants: int, float, else str."""
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return text


class _MetaGridLauncher:
    """k[lambda meta: ...]: the grid is computed at each call from the arguments by parameter
    name and the kernel's configuration (defines, num_warps, num_stages)."""

    def __init__(self, kernel, grid_fn):
        self._kernel, self._grid_fn = kernel, grid_fn
        self._names = [name for name, _ in kernel.params]

    def __call__(self, *args, stream=None):
        meta = dict(self._kernel.meta)
        meta.update(zip(self._names, args))
        self._kernel.launch(self._grid_fn(meta), *args, stream=stream)


class _KernelBase:
    """What compiled and interpreted kernels share: the compile arguments (for autotune), the
    configuration as a dict (``meta``) and grids given as functions."""

    def __init__(self, impl, compile_args):
        self._impl = impl
        self._compile_args = compile_args
        self._meta = None

    @property
    def meta(self):
        """{define: value} of the compiled configuration, with num_warps and num_stages."""
        if self._meta is None:
            args = self._compile_args
            _, warps_list = _back_end_option("num_warps", args["num_warps"])
            _, stages_list = _back_end_option("num_stages", args["num_stages"])
            configs = _tritonc.list_configs(args["define_list"], warps_list, stages_list)
            defines, warps, stages, _ = configs[args["config"] or 0]
            meta = {name: _meta_value(value) for name, value in defines}
            meta["num_warps"] = args["num_warps"] if warps is None else warps
            meta["num_stages"] = args["num_stages"] if stages is None else stages
            self._meta = meta
        return self._meta

    @property
    def name(self):
        return self._impl.name

    @property
    def signature(self):
        """Like "transpose(f32* X, f32* Y, i32 M, ...)"."""
        return self._impl.signature

    @property
    def params(self):
        """[(name, type), ...] of the kernel's parameters."""
        return list(self._impl.params)

    def __getitem__(self, grid):
        if callable(grid):
            return _MetaGridLauncher(self, grid)
        return self._bind(grid)


class InterpretedKernel(_KernelBase):
    """A kernel run on the CPU interpreter: ``k[grid](*args)`` runs every program instance
    before it returns, on host arrays (NumPy arrays, CPU tensors) that it reads and writes in
    place. An out-of-bounds access raises LaunchError naming the parameter and the index."""

    def launch(self, grid, *args, stream=None):
        self._impl.launch(grid, args)

    def _bind(self, grid):
        return lambda *args, stream=None: self._impl.launch(grid, args)

    def __repr__(self):
        return f"<tritonc.InterpretedKernel {self.signature}>"


class Kernel(_KernelBase):
    """A compiled kernel. Call it as ``k[grid](*args, stream=None)``."""

    @property
    def ptx(self):
        """PTX of the generic variant (no argument specialization)."""
        return self._impl.ptx

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

    def load(self, specialization=None, device=0):
        """Loads a variant into the CUDA driver of device ``device`` (its PTX -> SASS
        compilation) without launching it, and returns its timings() with "load" filled
        in. A launch with that specialization then starts at once. Raises LaunchError
        without a device."""
        return self._impl.load(specialization, device)

    def attributes(self, specialization=None, device=0):
        """The driver's figures for a variant as loaded on device ``device`` (loading it first):
        {"num_regs", "local_bytes" (per thread: spills and local arrays), "static_shared_bytes",
        "max_threads"}. Raises LaunchError without a device."""
        return self._impl.attributes(specialization, device)

    @property
    def num_barriers(self):
        return self._impl.num_barriers

    @property
    def arch(self):
        """The target, "sm_90a" or "sm_80"."""
        return self._impl.arch

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
        pointer is a multiple of 16 (an integer: a negative multiple), S where an integer
        is a non-negative multiple of 16, U where it is otherwise non-negative, N for
        anything else ("" when nothing was specialized)."""
        return self._impl.last_specialization

    def variant_ptx(self, specialization):
        """PTX compiled for a specialization string such as "DDNN"."""
        return self._impl.variant_ptx(specialization)

    def variant_shared_mem(self, specialization):
        """Dynamic shared memory (bytes) of the variant for a specialization string; it can differ
        from the generic variant's (shared_mem), e.g. when vectorized loads become cp.async rings."""
        return self._impl.variant_shared_mem(specialization)

    def specialization(self, *args):
        """The variant a launch with these arguments uses ("" for the generic one; else one
        letter per argument as in ``last_specialization``)."""
        return self._impl.specialization(args)

    def launch(self, grid, *args, stream=None):
        """Launches on a grid of 1 to 3 dimensions, asynchronously on ``stream``
        (None: PyTorch's current stream when torch is loaded, else the default
        stream; an int CUstream/cudaStream_t, or an object with ``cuda_stream``
        such as torch.cuda.Stream)."""
        self._impl.launch(grid, args, stream)

    def _bind(self, grid):
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


def _back_end_option(what, value):
    """(value, values) of num_warps or num_stages: an int and no list, or a list (the options'
    own dimension of the tuning space) and its first value. Only the Python types are checked
    here; the values are checked by the compiler, as for the command line."""
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{what}: the list is empty")
        ints = [_int_option(what, v) for v in value]
        return ints[0], ints
    return _int_option(what, value), []


def _int_option(what, value):
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int or a list of ints, not bool")
    try:
        n = _operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an int or a list of ints, not "
                        f"{type(value).__name__}") from None
    if not 0 <= n < 2**32:
        # What the compiler's unsigned option can hold; it checks the range itself.
        raise ValueError(f"{what} must be a non-negative 32-bit int, not {n}")
    return n


def _device_index(device):
    """The CUDA ordinal of compile's device= (None: 0; an int; a torch.device or anything with
    .index and .type "cuda")."""
    if device is None:
        return 0
    if getattr(device, "type", "cuda") != "cuda":
        raise ValueError(f"device must be a CUDA device, not {device}")
    index = getattr(device, "index", device)
    if index is None:
        return 0
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise ValueError(f"device must be a CUDA device ordinal, not {device!r}")
    return index


def _interpret_default():
    return _os.environ.get("TRITONC_INTERPRET", "0") not in ("", "0")


def compile(path_or_source, defines=None, num_warps=4, arch=None, include_dirs=(),
            config=None, allow_tf32=False, name=None, cache=True, num_stages=3, tma=True,
            tma_store=True, interpret=None, kernel=None, debug=False, remarks=False, device=None,
            lazy=False, register_stages=2, warp_specialize=False):
    """Compiles a Triton-C kernel for the GPU.

    path_or_source: a path (str or os.PathLike) to a .tc file, or Triton-C source
    text (anything with a newline or a brace). defines: {"TM": 64, ...}; a list
    value is a tuning list, and then ``config`` picks the configuration.
    num_warps: 1, 2, 4, 8 or 16. num_stages: software-pipelining depth of loops
    feeding a dot, 1 to 8 (1: no pipelining; sm_90a lowers it to what the shared
    operand buffers hold). Either may be a list, tuned like a define list
    (``config`` picks; the options follow the defines in the configuration
    order, num_stages fastest); they are options of the back end, never
    macros the kernel can see.
    arch: "sm_90a" or "sm_80"; None picks the device's target (sm_90a without a
    device). name: the file name shown in diagnostics for source text. cache:
    use the on-disk kernel cache. tma: on sm_90a, fill the shared buffers of
    tensor-core operands with bulk tensor copies where the loads allow it (False:
    cp.async). tma_store: on sm_90a, with tma, write 2-D tiles of 16-bit elements
    with bulk tensor stores where the pointers and the code after the store allow
    it (False: st.global). interpret: run on the CPU interpreter (an
    InterpretedKernel; None: $TRITONC_INTERPRET=1). kernel: the name of the
    kernel to launch when the source defines several (default: the only one,
    else the first __global__; an unknown name is a CompileError listing the
    kernels). debug: compile ``print`` and ``assert`` (otherwise they generate
    no code). remarks: True (or "missed") records why optimizations were
    declined, "passed" which applied, "all" both; ":pipeline,dot,..." after the
    kind limits them to some passes (as ``tritonc compile --remarks``); they are
    in ``Kernel.remarks``. device: the CUDA device (an int, or a torch.device such as
    ``x.device``) whose target and shared memory the code is for when arch is None
    (None: device 0); the kernel still launches on its tensors' device. lazy: run only
    the front end now and compile each variant when first launched, loaded or asked for
    (the generic one too: ptx, shared_mem), so that back-end errors surface there. Needs
    no GPU; raises CompileError on errors, ValueError on out-of-range options (checked
    by the compiler, with the messages of ``tritonc compile``). register_stages: the
    pipelining depth (1 to 8) of the dot operand loads the back end cannot copy
    asynchronously (odd row strides of 16-bit data), which stay in registers: 2 issues
    them one iteration ahead; num_stages or more as far as the copies. warp_specialize: on
    sm_90a with tma, a producer warpgroup issues the bulk tensor copies and the num_warps
    consumer warps run the wgmmas and the epilogue (the kernel launches 4 more warps); a
    kernel the compiler cannot split compiles as without it (``remarks`` says why); a
    ValueError elsewhere.
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
    warps, warps_list = _back_end_option("num_warps", num_warps)
    stages, stages_list = _back_end_option("num_stages", num_stages)
    includes = [_os.fspath(d) for d in include_dirs]
    compile_args = dict(path_or_source=path_or_source, defines=dict(defines or {}),
                        num_warps=num_warps, num_stages=num_stages, arch=arch,
                        include_dirs=tuple(includes), config=config, allow_tf32=allow_tf32,
                        name=name, cache=cache, tma=tma, tma_store=tma_store,
                        interpret=interpret, kernel=kernel, debug=debug, remarks=remarks,
                        device=device, lazy=lazy, define_list=define_list,
                        register_stages=register_stages, warp_specialize=warp_specialize)
    if _interpret_default() if interpret is None else interpret:
        impl = _tritonc.compile_for_interpreter(path, text, define_list, includes, config,
                                                str(kernel or ""), bool(debug), warps, stages,
                                                warps_list, stages_list)
        return InterpretedKernel(impl, compile_args)
    impl = _tritonc.compile(path, text, define_list, includes, warps, stages, arch, config,
                            bool(allow_tf32), bool(cache), bool(tma), bool(tma_store),
                            str(kernel or ""), bool(debug),
                            "missed" if remarks is True else (remarks or ""),
                            _device_index(device), bool(lazy), warps_list, stages_list,
                            int(register_stages), bool(warp_specialize))
    return Kernel(impl, compile_args)


from .autotune import Config, autotune  # noqa: E402 - autotune builds on compile
