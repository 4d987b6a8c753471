#!/usr/bin/env bash
# Builds the tritonc Python module and the C++ launch benchmark, then runs the benchmarks (on a machine
# with an NVIDIA GPU, torch, upstream Triton, nanobind, ptxas and cuobjdump): prints the table and writes
# sweep.csv, ptxas.csv, ptxas.txt, plots and results.md to $OUT (default bench-out/).
#   bash bench/run.sh [--sweep] [--quick] [--only STEPS]     (arguments go to bench/bench.py)
# Environment: OUT, BUILD_DIR (default build-py), JOBS (build parallelism).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench-out}
build=${BUILD_DIR:-$(pwd)/build-py}
mkdir -p "$out"
PYTHONPATH=$(BUILD_DIR="$build" bash scripts/build-python.sh 2>"$out/build-python.log") || {
  tail -30 "$out/build-python.log"
  exit 1
}
export PYTHONPATH
# The same build folder, with the bench programs switched on.
if ! { cmake -S . -B "$build" -DTRITONC_BUILD_BENCH=ON && ninja -C "$build" -j "${JOBS:-$(nproc)}" bench_launch_overhead; } \
    >>"$out/build-python.log" 2>&1; then
  tail -30 "$out/build-python.log"
  echo "run.sh: building bench_launch_overhead failed" >&2
  exit 1
fi
export BENCH_COMMIT=${BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo -dirty || true)}
export BENCH_ARGS="$*"
python3 bench/bench.py --out "$out" --launch-bin "$build/bench/bench_launch_overhead" "$@"
