#!/usr/bin/env bash
# Sets up, builds and runs every CPU test tier of tritonc:
#   1. unit tests (GoogleTest) and 2. lit + FileCheck tests, through ctest;
#   3. interpreter numerics of every bundled kernel (pytest, float64 references);
#   4. the Python module (built with nanobind; its GPU tests need a GPU and are absent without one);
#   then the same unit and lit tests again in an AddressSanitizer + UBSan build.
# Usage: scripts/test.sh            (everything)
#        TRITONC_SKIP_ASAN=1 scripts/test.sh   (skip the sanitizer build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}

bash scripts/setup.sh

echo "== build (RelWithDebInfo) =="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j "$jobs"

echo "== unit + lit tests =="
(cd build && ctest --output-on-failure -j "$jobs")

echo "== bundled kernels on the interpreter =="
TRITONC="$root/build/tools/tritonc/tritonc" python3 -m pytest -q tests/kernels

echo "== Python module =="
pythonpath=$(JOBS=$jobs bash scripts/build-python.sh)
PYTHONPATH=$pythonpath python3 -m pytest -q tests/python

if [ "${TRITONC_SKIP_ASAN:-0}" != 1 ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build =="
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRITONC_SANITIZE=ON >/dev/null
  ninja -C build-asan -j "$jobs"
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$jobs")
  echo "== bundled kernels on the interpreter, sanitized =="
  TRITONC="$root/build-asan/tools/tritonc/tritonc" python3 -m pytest -q tests/kernels
fi
echo "== all tests passed =="
