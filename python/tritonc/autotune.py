"""Autotuning: pick the fastest of several configurations of a kernel, once per key.

    matmul = tritonc.autotune(
        configs=[tritonc.Config({"TM": 128, "TN": 256, "TK": 64}, num_warps=8, num_stages=3),
                 tritonc.Config({"TM": 128, "TN": 128, "TK": 64}, num_warps=4, num_stages=4)],
        key=["M", "N", "K"], defines={"TYPE": "half"})(tritonc.kernels_dir() + "/matmul.tc")
    matmul[lambda meta: (tritonc.cdiv(M, meta["TM"]), tritonc.cdiv(N, meta["TN"]))](a, b, c, M, N, K, ...)

The first call with new values of the ``key`` arguments tunes: every candidate (``prune`` may
drop some for the arguments at hand) is compiled and loaded into the driver in parallel, on every
core (the compiler and the driver's PTX -> SASS step run with the GIL released; only the variant
these arguments launch is compiled, see ``compile(lazy=True)``); as each one is ready (so that
timing overlaps the compilation of the others), it is launched once
to check for errors (candidates that fail to compile or launch are skipped), then timed with
``tritonc.testing.do_bench``; the arguments in ``reset_to_zero`` are zeroed before every run. The
choice is kept in memory and persisted under the kernel cache directory
($TRITONC_CACHE_DIR/autotune), keyed by the kernel's source, its options, the candidates, the key
values, the device and the compiler version: a later process with the same key compiles only the
chosen configuration (a kernel cache hit) and times nothing. While tuning, progress goes to
stderr when it is a terminal (``progress=`` overrides); ``TRITONC_PRINT_AUTOTUNING=1`` prints
each choice.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from . import _tritonc

__all__ = ["Config", "Autotuner", "autotune"]


class Config:
    """One candidate: defines (merged over the kernel's own), warps and pipeline stages, and
    warp_specialize (None: the kernel's compile option; True or False: this candidate's)."""

    def __init__(self, defines: Optional[Dict[str, Any]] = None, num_warps: int = 4,
                 num_stages: int = 3, warp_specialize: Optional[bool] = None):
        self.defines = dict(defines or {})
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.warp_specialize = warp_specialize

    def describe(self) -> str:
        parts = [f"{k}={v}" for k, v in self.defines.items()]
        parts += [f"num_warps={self.num_warps}", f"num_stages={self.num_stages}"]
        # Only when set: the descriptions (and persisted choices) of other configs stay as they were.
        if self.warp_specialize is not None:
            parts.append(f"warp_specialize={int(bool(self.warp_specialize))}")
        return " ".join(parts)

    def __repr__(self):
        return f"Config({self.describe()})"

    def __eq__(self, other):
        return isinstance(other, Config) and self.describe() == other.describe()

    def __hash__(self):
        return hash(self.describe())


def _configs_of_space(define_list, warps, warps_list, stages, stages_list) -> List[Config]:
    """The configurations of a tuning space (define lists, num_warps/num_stages lists; the
    values warps and stages where they are not tuned)."""
    out = []
    for defines, w, s, _ in _tritonc.list_configs(define_list, warps_list, stages_list):
        out.append(Config(dict(defines), warps if w is None else w, stages if s is None else s))
    return out


def _source_identity(path_or_source) -> str:
    """What the persisted choice depends on in the source: the text of a file (not only its
    name), or the source text itself."""
    text = path_or_source
    if isinstance(path_or_source, os.PathLike) or ("\n" not in str(path_or_source)
                                                   and "{" not in str(path_or_source)):
        path = os.path.abspath(os.fspath(path_or_source))
        with open(path, "rb") as f:
            return path + ":" + hashlib.sha256(f.read()).hexdigest()
    return "text:" + hashlib.sha256(text.encode()).hexdigest()


def _key_value(value):
    """How an argument enters the key: its dtype for a tensor, its value for a scalar."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return "tensor:" + str(dtype)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return type(value).__name__


def _wall_clock_bench(fn):
    """Milliseconds of fn() by the host clock (the interpreter runs synchronously)."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


class Autotuner:
    """A kernel tuned over configurations; launch it as ``tuned[grid](*args, stream=None)``."""

    def __init__(self, compile_options: Dict[str, Any], configs: Optional[Sequence[Config]],
                 key: Sequence[str], prune: Optional[Callable] = None,
                 reset_to_zero: Sequence[str] = (), do_bench: Optional[Callable] = None,
                 warmup: float = 5, rep: float = 20, progress: Optional[bool] = None):
        from . import _back_end_option, _define_value, _interpret_default  # noqa: PLC0415
        self._options = dict(compile_options)
        self._interpret = self._options.get("interpret")
        if self._interpret is None:
            self._interpret = _interpret_default()
        if configs is None:
            # The tuning space of the kernel's own define, num_warps and num_stages lists.
            define_list = [(str(k), _define_value(k, v))
                           for k, v in self._options.get("defines", {}).items()]
            warps = _back_end_option("num_warps", self._options.get("num_warps", 4))
            stages = _back_end_option("num_stages", self._options.get("num_stages", 3))
            configs = _configs_of_space(define_list, *warps, *stages)
            self._options["defines"] = {}
        if not configs:
            raise ValueError("autotune: no configurations")
        self.configs = list(configs)
        self.key = list(key)
        self.prune = prune
        self.reset_to_zero = list(reset_to_zero)
        self._do_bench = do_bench
        self._warmup, self._rep = warmup, rep
        self._progress = sys.stderr.isatty() if progress is None else progress
        self._chosen: Dict[Any, Any] = {}  # key values -> (Config, kernel)
        self._param_names: Optional[List[str]] = None
        self._source_id = _source_identity(self._options["path_or_source"])
        #: What the tuner did in this process: tunings, candidates compiled, timings, and
        #: choices read back from disk.
        self.stats = {"tuned": 0, "compiled": 0, "benchmarked": 0, "from_disk": 0}
        #: {Config: milliseconds} of the last tuning (inf for a candidate that failed).
        self.timings: Dict[Config, float] = {}
        #: Wall-clock seconds of the last tuning's phases: "compile" (until every candidate was
        #: compiled and loaded into the driver, in parallel) and "benchmark" (launching each
        #: once, then timing it; on the GPU it overlaps the compilation of later candidates).
        self.tune_seconds: Dict[str, float] = {}
        # Time candidates as they finish compiling (on the GPU), not in their order.
        self._overlap = not self._interpret
        self._compiled_count = 0
        self.best_config: Optional[Config] = None

    # Compilation

    def _compile(self, config: Config):
        """The candidate's kernel, lazily compiled: the tuner launches one specialization of it,
        and the generic variant (front end and PTX of the unspecialized code, most of the
        host's work) would go unused."""
        from . import compile as compile_kernel  # noqa: PLC0415
        options = dict(self._options)
        options["lazy"] = True
        defines = dict(options.pop("defines", {}))
        defines.update(config.defines)
        options.pop("num_warps", None)
        options.pop("num_stages", None)
        if config.warp_specialize is not None:
            options["warp_specialize"] = bool(config.warp_specialize)
        return compile_kernel(options.pop("path_or_source"), defines=defines,
                              num_warps=config.num_warps, num_stages=config.num_stages,
                              **options)

    def _names(self) -> List[str]:
        """The parameter names (for key, reset_to_zero and prune), from the front end only."""
        if self._param_names is None:
            path = self._options["path_or_source"]
            from . import _define_value, _is_file  # noqa: PLC0415
            is_file = _is_file(path)
            defines = dict(self._options.get("defines", {}))
            defines.update(self.configs[0].defines)
            impl = _tritonc.compile_for_interpreter(
                os.fspath(path) if is_file else (self._options.get("name") or "<source>"),
                None if is_file else path,
                [(str(k), _define_value(k, v)) for k, v in defines.items()],
                list(self._options.get("include_dirs", ())), None)
            self._param_names = [name for name, _ in impl.params]
            missing = [n for n in self.key + self.reset_to_zero if n not in self._param_names]
            if missing:
                raise ValueError(f"autotune: {missing} are not parameters of {impl.signature}")
        return self._param_names

    # Persistence

    def _device(self) -> str:
        if self._interpret:
            return "interpreter"
        from . import _device_index  # noqa: PLC0415
        usable, text = _tritonc.cuda_status(_device_index(self._options.get("device")))
        return text if usable else "no-device"

    def _record_path(self, key_values, candidates) -> str:
        options = {k: v for k, v in self._options.items() if k != "path_or_source"}
        identity = json.dumps({"source": self._source_id, "options": options,
                               "configs": [c.describe() for c in candidates],
                               "key": list(key_values), "device": self._device(),
                               "compiler": _tritonc.version()}, sort_keys=True, default=str)
        digest = hashlib.sha256(identity.encode()).hexdigest()
        return os.path.join(_tritonc.cache_dir() or os.path.expanduser("~/.cache/tritonc"),
                            "autotune", digest + ".json")

    @staticmethod
    def _read_record(path, candidates) -> Optional[Config]:
        try:
            with open(path) as f:
                record = json.load(f)
            config = candidates[record["index"]]
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None
        return config if config.describe() == record.get("config") else None

    @staticmethod
    def _write_record(path, candidates, best, timings):
        record = {"index": candidates.index(best), "config": best.describe(),
                  "timings_ms": {c.describe(): t for c, t in timings.items()}}
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump(record, f, indent=1)
            os.replace(tmp, path)  # readers never see half a record
        except OSError:
            pass  # a read-only cache: the choice stays in this process

    # Tuning

    def _say(self, text, end="\n"):
        if self._progress:
            print(text, end=end, file=sys.stderr, flush=True)

    def _zero(self, named):
        for name in self.reset_to_zero:
            value = named[name]
            if hasattr(value, "zero_"):
                value.zero_()
            else:
                value[...] = 0

    def _launch(self, kernel, grid, args, stream):
        kernel[grid](*args, stream=stream)

    def _compiled(self, candidates, args):
        """Yields (config, kernel or None, error) for every candidate as it is compiled and loaded
        into the driver, in parallel on every core. On the GPU in the order they finish: timing
        the first ones overlaps the compilation of the rest (the timer measures on the device,
        so host work elsewhere does not reach it); on the interpreter in the candidates' order.
        Sets tune_seconds["compile"] to the wall time until the last one was ready."""
        from . import _device_index  # noqa: PLC0415
        device = _device_index(self._options.get("device"))
        start = time.perf_counter()

        def build(config):
            try:
                kernel = self._compile(config)
                if not self._interpret:
                    kernel.load(kernel.specialization(*args), device)
                result = config, kernel, None
            except (_tritonc.CompileError, _tritonc.LaunchError, ValueError, TypeError) as e:
                result = config, None, str(e).splitlines()[0] if str(e) else type(e).__name__
            return result, time.perf_counter()

        workers = max(1, min(len(candidates), os.cpu_count() or 1))
        finished = []
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            futures = [pool.submit(build, config) for config in candidates]
            ready = concurrent.futures.as_completed(futures) if self._overlap else futures
            for future in ready:
                result, at = future.result()
                finished.append(at)
                self._compiled_count += 1
                yield result
        self.tune_seconds["compile"] = max(finished) - start
        self.stats["compiled"] += len(candidates)

    def _show_progress(self, timed, total, best):
        self._say(f"\rtritonc.autotune: compiled {self._compiled_count}/{total}, timed "
                  f"{timed}/{total}" + (f", best so far {best[0]:.4g} ms ({best[1].describe()})"
                                        if best else ""), end="")

    def _tune(self, candidates, grid, args, named, stream):
        from . import synchronize  # noqa: PLC0415
        bench = self._do_bench
        if bench is None:
            if self._interpret:
                bench = _wall_clock_bench
            else:
                from .testing import do_bench  # noqa: PLC0415
                def bench(fn):
                    return do_bench(fn, warmup=self._warmup, rep=self._rep)
        self.timings = {}
        best = None
        failures = []
        self.tune_seconds = {"compile": 0.0, "benchmark": 0.0}
        self._compiled_count = 0
        for i, (config, kernel, error) in enumerate(self._compiled(candidates, args), 1):
            start = time.perf_counter()
            if kernel is None:
                failures.append(f"{config}: {error}")
                self._say(f"\ntritonc.autotune: {failures[-1]}")
                self.timings[config] = float("inf")
                continue
            g = grid(dict(kernel.meta, **named)) if callable(grid) else grid

            def run(kernel=kernel, g=g):
                self._zero(named)
                self._launch(kernel, g, args, stream)
            try:
                run()
                if not self._interpret:
                    synchronize()
            except (_tritonc.LaunchError, ValueError, TypeError) as e:
                failures.append(f"{config}: {str(e).splitlines()[0] if str(e) else e!r}")
                self._say(f"\ntritonc.autotune: {failures[-1]}")
                self.timings[config] = float("inf")
                continue
            ms = bench(run)
            self.stats["benchmarked"] += 1
            self.timings[config] = ms
            if best is None or ms < best[0]:
                best = (ms, config, kernel)
            self.tune_seconds["benchmark"] += time.perf_counter() - start
            self._show_progress(i, len(candidates), best)
        self._say("")
        # The candidates' order, not the order they were timed in.
        self.timings = {c: self.timings[c] for c in candidates}
        if best is None:
            raise RuntimeError("autotune: no configuration compiled and launched: " +
                               "; ".join(failures))
        self.stats["tuned"] += 1
        return best[1], best[2]

    def _select(self, grid, args, stream):
        names = self._names()
        if len(args) != len(names):
            raise TypeError(f"autotuned kernel takes {len(names)} arguments, {len(args)} given")
        named = dict(zip(names, args))
        key_values = tuple(_key_value(named[k]) for k in self.key)
        chosen = self._chosen.get(key_values)
        if chosen is not None:
            return chosen, named
        candidates = self.configs
        if self.prune is not None:
            candidates = list(self.prune(list(self.configs), named))
            if not candidates:
                raise ValueError("autotune: prune left no configuration")
        path = self._record_path(key_values, candidates)
        config = self._read_record(path, candidates)
        if config is not None:
            chosen = (config, self._compile(config))
            self.stats["from_disk"] += 1
        else:
            chosen = self._tune(candidates, grid, args, named, stream)
            self._write_record(path, candidates, chosen[0], self.timings)
        self.best_config = chosen[0]
        if os.environ.get("TRITONC_PRINT_AUTOTUNING", "0") not in ("", "0"):
            print(f"tritonc.autotune: {chosen[1].name} key {dict(zip(self.key, key_values))}: "
                  f"{chosen[0].describe()}", file=sys.stderr, flush=True)
        self._chosen[key_values] = chosen
        return chosen, named

    def run(self, grid, *args, stream=None):
        """Tunes for the key of args if needed, then launches the chosen kernel."""
        (config, kernel), named = self._select(grid, args, stream)
        self._zero(named)
        g = grid(dict(kernel.meta, **named)) if callable(grid) else grid
        self._launch(kernel, g, args, stream)

    def __getitem__(self, grid):
        return lambda *args, stream=None: self.run(grid, *args, stream=stream)

    def kernel_for(self, *args):
        """The kernel chosen for these arguments' key; KeyError until a launch with that key
        has tuned it."""
        names = self._names()
        key_values = tuple(_key_value(dict(zip(names, args))[k]) for k in self.key)
        return self._chosen[key_values][1]


def autotune(kernel=None, *, configs: Optional[Iterable[Config]] = None, key: Sequence[str] = (),
             prune: Optional[Callable] = None, reset_to_zero: Sequence[str] = (),
             do_bench: Optional[Callable] = None, warmup: float = 5, rep: float = 20,
             progress: Optional[bool] = None, **compile_options):
    """An Autotuner over ``configs`` for a kernel: a path or source text (compiled with
    ``compile_options``, as tritonc.compile takes them), or a Kernel from tritonc.compile (its
    options are reused; without configs, its define, num_warps and num_stages lists are the
    candidates). Usable as ``autotune(configs=..., key=...)(kernel)`` or
    ``autotune(kernel, configs=..., key=...)``.

    key: parameter names whose values (dtypes for tensors) select a tuning. prune(configs,
    args_by_name) -> the configs worth timing for those arguments. reset_to_zero: parameter
    names of buffers zeroed before each timed run and before the launch (accumulators).
    warmup, rep: do_bench's budgets per candidate in milliseconds (smaller than do_bench's own
    defaults: the L2 flush and the GPU-side wait keep short measurements steady, and a cold tune
    should take a fraction of a second). do_bench(fn) -> milliseconds replaces
    tritonc.testing.do_bench (e.g. in tests)."""
    def wrap(target):
        options = dict(compile_options)
        if hasattr(target, "_compile_args"):
            base = dict(target._compile_args)
            base.pop("define_list", None)
            base.pop("config", None)
            base.update(options)
            options = base
        else:
            options["path_or_source"] = target
        return Autotuner(options, None if configs is None else list(configs), key, prune,
                         reset_to_zero, do_bench, warmup, rep, progress)

    return wrap if kernel is None else wrap(kernel)
