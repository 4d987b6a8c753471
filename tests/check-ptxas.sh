#!/usr/bin/env bash
# Assembles every DIR/*.<arch>.ptx with ptxas for <arch> (warnings are errors) and checks that every
# DIR/*.<arch>.ptx.bad is rejected with an error naming an undeclared symbol, so the check can fail.
# Usage: check-ptxas.sh PTXAS DIR MIN_GOOD_MODULES
set -euo pipefail
ptxas=$1
dir=$2
min=$3
count=0
shopt -s nullglob
for f in "$dir"/*.ptx; do
  arch=${f%.ptx}
  arch=${arch##*.}
  "$ptxas" --warning-as-error -arch="$arch" "$f" -o "$dir/out.cubin"
  echo "ok: $(basename "$f") assembles for $arch"
  count=$((count + 1))
done
for f in "$dir"/*.ptx.bad; do
  arch=${f%.ptx.bad}
  arch=${arch##*.}
  if "$ptxas" -arch="$arch" "$f" -o /dev/null 2>"$dir/err"; then
    echo "FAIL: $(basename "$f") assembled for $arch" >&2
    exit 1
  fi
  grep -q undeclared "$dir/err" || { echo "FAIL: unexpected ptxas error:" >&2; cat "$dir/err" >&2; exit 1; }
  echo "ok: $(basename "$f") rejected for $arch"
done
if [ "$count" -lt "$min" ]; then
  echo "FAIL: expected at least $min modules, assembled $count" >&2
  exit 1
fi
