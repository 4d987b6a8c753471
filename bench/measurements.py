"""Results of a benchmark run and the bookkeeping around them. Needs neither torch nor a GPU, so that
the report can be tested anywhere (tests/python/test_bench_report.py)."""
import math
import time
import traceback
from dataclasses import dataclass, field

# ptxas command-line time of the cold-compile yardstick PTX (bench/reference/) on the host of run 38
# (bench/RESULTS.md), the reference for judging a lent host's speed.
REFERENCE_HOST_MS = 106.3


@dataclass
class Point:
    """One measurement: family ("matmul half"), shape label, provider, unit and value."""
    family: str
    shape: str
    provider: str
    unit: str
    value: float
    config: str = ""


@dataclass
class Results:
    points: list = field(default_factory=list)
    # Named scalar results that are not size sweeps: compile phases, launch overheads.
    scalars: dict = field(default_factory=dict)
    # (kernel label, registers, spill stores, spill loads, shared bytes, HGMMA count or None)
    ptxas: list = field(default_factory=list)
    # Kernels whose ptxas/SASS report is wanted: (label, tritonc.Kernel, specialization launched).
    kernels: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    # What the GPU's clocks were doing while the peers were compared: {label: NVML summary} (see
    # bench/gpu_state.py; empty without NVML), and every timed run of those comparisons:
    # {label: {provider: [ms, ...]}} (comparisons.json).
    gpu_states: dict = field(default_factory=dict)
    samples: dict = field(default_factory=dict)

    def add(self, family, shape, provider, unit, value, config=""):
        self.points.append(Point(family, str(shape), provider, unit, value, config))
        print(f"   {family} {shape} {provider}: {value:.2f} {unit}" + (f"  [{config}]" if config else ""),
              flush=True)
        return value

    def add_kernel(self, label, kern):
        """Records a benchmarked kernel with the specialization it was just launched with."""
        self.kernels.append((label, kern, kern.last_specialization))

    def note_comparison(self, label, timer):
        """Keeps the GPU state and the samples of the timer's last compare() under `label`."""
        self.note_gpu_state(label, timer.last_gpu_state)
        self.samples[label] = timer.last_samples

    def note_gpu_state(self, label, summary):
        if summary:
            self.gpu_states[label] = summary

    def get(self, family, shape, provider):
        for p in self.points:
            if p.family == family and p.shape == str(shape) and p.provider == provider:
                return p
        return None

    def ratio(self, family, shape, ours, peer):
        a, b = self.get(family, shape, ours), self.get(family, shape, peer)
        return a.value / b.value if a and b and b.value > 0 else None


def run_step(results, name, fn, *args):
    """Runs one family of measurements; a failure is printed loudly and recorded, and the run goes
    on with the next family (the exit status reports it at the end)."""
    start = time.perf_counter()
    print(f"== {name}", flush=True)
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - every failure must be reported, none may stop the run
        print(f"!! {name} FAILED: {type(e).__name__}: {e}", flush=True)
        traceback.print_exc()
        results.failures.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
    print(f"   {name}: {time.perf_counter() - start:.1f} s", flush=True)


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None
