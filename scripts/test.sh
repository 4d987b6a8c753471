#!/usr/bin/env bash
# Sets up, builds and runs every CPU test tier of tritonc:
#   1. unit tests (GoogleTest) and 2. lit + FileCheck tests, through ctest;
#   3. interpreter numerics of every bundled kernel (pytest, float64 references);
#   4. the Python package: a wheel built from the same build folder (pip, scikit-build-core), installed
#      into build/wheel-site, and tests/python run against that installed copy (its GPU tests need a
#      GPU and are skipped without one);
#   then the same unit and lit tests again in an AddressSanitizer + UBSan build.
# Usage: scripts/test.sh            (everything)
#        TRITONC_SKIP_ASAN=1 scripts/test.sh   (skip the sanitizer build)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=${JOBS:-$(nproc)}

bash scripts/setup.sh

echo "== build (RelWithDebInfo, with the Python module) =="
# One build serves the tests and the wheel: the Python module needs position-independent libraries,
# so the whole build is configured with it.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITONC_PYTHON=ON >/dev/null
ninja -C build -j "$jobs"

echo "== unit + lit tests, CMake package =="
# The Python tests run below, against the installed wheel.
(cd build && ctest --output-on-failure -j "$jobs" -E '^python_module$')

echo "== bundled kernels on the interpreter =="
TRITONC="$root/build/tools/tritonc/tritonc" python3 -m pytest -q -n "$jobs" tests/kernels

echo "== Python package: wheel, installed, tested =="
# scikit-build-core reuses build/ (same generator, build type and Python): the wheel costs an
# install step, not a second build of the compiler.
rm -rf build/dist build/wheel-site
CMAKE_BUILD_PARALLEL_LEVEL=$jobs python3 -m pip wheel -q --no-build-isolation --no-deps \
  -w build/dist -Cbuild-dir=build -Ccmake.build-type=RelWithDebInfo \
  -Ccmake.define.TRITONC_BUILD_TESTS=ON .
python3 -m pip install -q --no-deps --target build/wheel-site build/dist/tritonc-*.whl
# From another folder, so that nothing of the source tree is imported instead.
(cd build && PYTHONPATH="$root/build/wheel-site" TRITONC="$root/build/wheel-site/bin/tritonc" \
  python3 -c "import tritonc, sys; print('tritonc', tritonc.__version__, 'from', tritonc.__file__)" &&
  PYTHONPATH="$root/build/wheel-site" TRITONC="$root/build/wheel-site/bin/tritonc" \
  python3 -m pytest -q -p no:cacheprovider -n "$jobs" "$root/tests/python")

if [ "${TRITONC_SKIP_ASAN:-0}" != 1 ]; then
  echo "== AddressSanitizer + UndefinedBehaviorSanitizer build =="
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DTRITONC_SANITIZE=ON >/dev/null
  ninja -C build-asan -j "$jobs"
  # conv_spills_ptxas only reads ptxas's spill counts, which the first build's run already checked;
  # kernels_ptxas still runs the sanitized compiler over the test suite's configurations.
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j "$jobs" -E '^conv_spills_ptxas$')
  # The interpreter under the sanitizers is several times slower: every test function with each of its
  # launch variants, and a third of the other configurations (TRITONC_TEST_SUBSET, tests/kernels/conftest.py).
  echo "== bundled kernels on the interpreter, sanitized (a deterministic third) =="
  TRITONC="$root/build-asan/tools/tritonc/tritonc" TRITONC_TEST_SUBSET=3 \
    python3 -m pytest -q -n "$jobs" tests/kernels
fi
echo "== all tests passed =="
