#!/usr/bin/env bash
# Builds the tritonc Python module and runs the benchmarks (on a machine with an NVIDIA GPU, torch and
# nanobind): prints the table and writes results.csv and ptxas.txt to $OUT (default bench-out/).
#   bash bench/run.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench-out}
mkdir -p "$out"
PYTHONPATH=$(bash scripts/build-python.sh 2>"$out/build-python.log") || {
  tail -30 "$out/build-python.log"
  exit 1
}
export PYTHONPATH
python3 bench/bench.py --out "$out" "$@"
