#!/usr/bin/env bash
# The main job: sets up, builds tritonc, then compiles and runs every bundled kernel (kernels/*.tc) in several
# configurations on fresh random inputs and checks each result against a float64 NumPy reference.
# Executor: the GPU (`tritonc run --device`) when a usable NVIDIA GPU is present, each launch then also
# compared with the CPU interpreter on the same inputs; otherwise the interpreter (`tritonc run --interpret`).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j "${JOBS:-$(nproc)}" tritonc

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU: $(nvidia-smi -L | head -1). Running the kernels on it (and on the interpreter, to compare)."
  export TRITONC_TEST_DEVICE=1
else
  echo "No GPU: running the kernels on the CPU interpreter."
fi
# One line per kernel launch: kernel, configuration, PASSED/FAILED against the float64 reference.
TRITONC="$root/build/tools/tritonc/tritonc" python3 -m pytest -v -p no:cacheprovider tests/kernels \
  -k "not round_trip and not defaults_and_header" "$@"
