#!/usr/bin/env bash
# Assembles the PTX embedded in gpu_runtime_smoke with ptxas (no GPU needed):
# the good modules must assemble for sm_80 and sm_90a, the broken one must not.
# Usage: check-ptx.sh path/to/gpu_runtime_smoke path/to/ptxas
set -euo pipefail
smoke=$1
ptxas=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in add shared broken; do
  "$smoke" --print-ptx "$name" >"$tmp/$name.ptx"
done
for arch in sm_80 sm_90a; do
  for name in add shared; do
    "$ptxas" -arch="$arch" "$tmp/$name.ptx" -o /dev/null
    echo "ok: $name assembles for $arch"
  done
  if "$ptxas" -arch="$arch" "$tmp/broken.ptx" -o /dev/null 2>"$tmp/err"; then
    echo "FAIL: the broken PTX assembled for $arch" >&2
    exit 1
  fi
  grep -q undeclared_register "$tmp/err" || { echo "FAIL: unexpected ptxas error:" >&2; cat "$tmp/err" >&2; exit 1; }
  echo "ok: broken PTX rejected for $arch"
done
