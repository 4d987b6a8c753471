#!/usr/bin/env bash
# Configures and builds the tritonc Python module (nanobind) into build-py/ and prints, as the only
# line on stdout, the PYTHONPATH that makes `import tritonc` work (build output goes to stderr):
#   export PYTHONPATH=$(scripts/build-python.sh)
#   python3 -m pytest -q tests/python
# Needs the Python headers and nanobind for $PYTHON (default python3). Without nanobind installed, a
# wheel in .whl/ (nanobind-*.whl, carried to machines without network) is unpacked into the build
# folder. Environment: PYTHON, JOBS (default: all cores), BUILD_DIR (default: build-py).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py=$(command -v "${PYTHON:-python3}") || { echo "build-python: ${PYTHON:-python3} not found" >&2; exit 1; }
build=${BUILD_DIR:-$root/build-py}
jobs=${JOBS:-$(nproc)}
mkdir -p "$build"

if ! "$py" -m nanobind --cmake_dir >/dev/null 2>&1; then
  shopt -s nullglob
  wheels=("$root"/.whl/nanobind-*.whl)
  if [ ${#wheels[@]} -eq 0 ]; then
    echo "build-python: nanobind is missing for $py: pip install nanobind, or put its wheel in .whl/" >&2
    exit 1
  fi
  "$py" -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$build/nanobind-site" \
    "${wheels[@]}" >&2
  export PYTHONPATH="$build/nanobind-site${PYTHONPATH:+:$PYTHONPATH}"
fi
nanobind_dir=$("$py" -m nanobind --cmake_dir)

if ! cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTRITONC_PYTHON=ON \
    -DTRITONC_BUILD_TESTS=OFF -DPython_EXECUTABLE="$py" -Dnanobind_DIR="$nanobind_dir" \
    >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  echo "build-python: configure failed" >&2
  exit 1
fi
ninja -C "$build" -j "$jobs" _tritonc tritonc >&2
echo "$build/python"
