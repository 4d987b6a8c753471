#!/usr/bin/env bash
# Installs what building and testing tritonc needs, skipping what is already there.
# Debian/Ubuntu: cmake, ninja, g++, GoogleTest, FileCheck (LLVM tools), Python headers; PyPI: lit, numpy,
# pytest, pytest-xdist, nanobind, scikit-build-core, matplotlib.
set -euo pipefail

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v ninja >/dev/null || need_apt+=(ninja-build)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
if ! command -v FileCheck >/dev/null && ! ls /usr/bin/FileCheck-* >/dev/null 2>&1 &&
   ! ls /usr/lib/llvm-*/bin/FileCheck >/dev/null 2>&1; then
  need_apt+=(llvm-14-tools)
fi
command -v python3 >/dev/null || need_apt+=(python3 python3-pip)
# Python headers, for the Python module.
if ! python3 -c 'import os, sysconfig; raise SystemExit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then
  need_apt+=(python3-dev)
fi

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}"
fi

missing_py=()
python3 -c "import lit" 2>/dev/null || missing_py+=(lit)
python3 -c "import numpy" 2>/dev/null || missing_py+=(numpy)
python3 -c "import pytest" 2>/dev/null || missing_py+=(pytest)
# The kernel and Python tests run on every core (pytest -n).
python3 -c "import xdist" 2>/dev/null || missing_py+=(pytest-xdist)
python3 -c "import nanobind" 2>/dev/null || missing_py+=(nanobind)
# The wheel is built from the test build, without build isolation (scripts/test.sh).
python3 -c "import scikit_build_core" 2>/dev/null || missing_py+=(scikit-build-core)
# tritonc.testing.perf_report's plots.
python3 -c "import matplotlib" 2>/dev/null || missing_py+=(matplotlib)
if [ ${#missing_py[@]} -gt 0 ]; then
  echo "setup: pip installing ${missing_py[*]}"
  python3 -m pip install -q "${missing_py[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${missing_py[@]}"
fi
