"""The GPU's temperature, SM clock, power draw and clock-limit reasons, read through NVML (the driver's
libnvidia-ml.so.1, loaded with ctypes, so no Python package is needed). The benchmark records them next
to its GEMM timings: under the power cap the clocks fall as the chip heats up, and the fastest kernels
lose the most, so a ratio measured on a hot GPU is not the one measured on a cool one.

    python3 bench/gpu_state.py      prints one reading

Everything degrades to None when NVML is missing (no driver, another vendor)."""
import ctypes
import statistics
import threading
import time

# nvmlClocksEventReasons bits (nvml.h), the ones that lower the clocks under load.
_REASONS = {0x4: "power cap", 0x8: "hw slowdown", 0x20: "sw thermal", 0x40: "hw thermal",
            0x80: "power brake"}


class GpuState:
    """NVML readings of the GPU that torch calls `device` (matched by PCI bus id)."""

    def __init__(self, device=0):
        self._nvml = self._handle = None
        try:
            import torch
            props = torch.cuda.get_device_properties(device)
            bus_id = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
            nvml = ctypes.CDLL("libnvidia-ml.so.1")
            if nvml.nvmlInit_v2() != 0:
                return
            handle = ctypes.c_void_p()
            if nvml.nvmlDeviceGetHandleByPciBusId_v2(bus_id.encode(), ctypes.byref(handle)) != 0:
                return
            self._nvml, self._handle = nvml, handle
        except (OSError, AttributeError, ImportError, RuntimeError):
            pass

    @property
    def available(self):
        return self._nvml is not None

    def _uint(self, fn, *args, kind=ctypes.c_uint):
        value = kind()
        if getattr(self._nvml, fn)(self._handle, *args, ctypes.byref(value)) != 0:
            return None
        return value.value

    def read(self):
        """{'temp_c', 'sm_mhz', 'power_w', 'limits'} now, or {} without NVML."""
        if not self.available:
            return {}
        power_mw = self._uint("nvmlDeviceGetPowerUsage")
        reasons = self._uint("nvmlDeviceGetCurrentClocksEventReasons", kind=ctypes.c_ulonglong)
        return {"temp_c": self._uint("nvmlDeviceGetTemperature", 0),
                "sm_mhz": self._uint("nvmlDeviceGetClockInfo", 1),
                "power_w": None if power_mw is None else power_mw / 1000,
                "limits": {name for bit, name in _REASONS.items() if reasons and reasons & bit}}

    def power_limit_w(self):
        limit_mw = self._uint("nvmlDeviceGetEnforcedPowerLimit") if self.available else None
        return None if limit_mw is None else limit_mw / 1000

    def sample(self, period_s=0.02):
        """A context manager that reads the state every `period_s` in a thread while the block runs;
        its .summary() is the median temperature, SM clock and power over the block, and every
        clock-limit reason seen."""
        return _Sampler(self, period_s)


class _Sampler:
    def __init__(self, state, period_s):
        self._state, self._period = state, period_s
        self._readings, self._stop = [], threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            reading = self._state.read()
            if reading:
                self._readings.append(reading)
            time.sleep(self._period)

    def __enter__(self):
        if self._state.available:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def summary(self):
        """{'temp_c', 'sm_mhz', 'power_w': medians, 'limits': sorted reasons}, or {} without readings."""
        if not self._readings:
            return {}
        out = {}
        for key in ("temp_c", "sm_mhz", "power_w"):
            values = [r[key] for r in self._readings if r[key] is not None]
            out[key] = statistics.median(values) if values else None
        out["limits"] = sorted(set().union(*(r["limits"] for r in self._readings)))
        return out


def describe(summary):
    """'61 C, 1755 MHz, 690 W (power cap)' or '' for an empty summary or reading."""
    if not summary:
        return ""
    parts = []
    for key, unit, fmt in (("temp_c", "C", "{:.0f}"), ("sm_mhz", "MHz", "{:.0f}"), ("power_w", "W", "{:.0f}")):
        if summary.get(key) is not None:
            parts.append(f"{fmt.format(summary[key])} {unit}")
    text = ", ".join(parts)
    if summary.get("limits"):
        text += f" ({', '.join(sorted(summary['limits']))})"
    return text


if __name__ == "__main__":
    state = GpuState()
    print(describe(state.read()) or "NVML not available", f"power limit {state.power_limit_w()} W")
