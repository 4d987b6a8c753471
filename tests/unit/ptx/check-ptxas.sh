#!/usr/bin/env bash
# Writes the PTXBuilder sample kernels and assembles each with ptxas for its
# target; every good module must assemble with no errors and the deliberately
# broken one must be rejected (so this test can fail).
# Usage: check-ptxas.sh path/to/ptx_gen_kernels path/to/ptxas
set -euo pipefail
gen=$1
ptxas=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp"
count=0
for arch in sm_80 sm_90a; do
  for f in "$tmp"/*."$arch".ptx; do
    "$ptxas" --warning-as-error -arch="$arch" "$f" -o "$tmp/out.cubin"
    echo "ok: $(basename "$f") assembles for $arch"
    count=$((count + 1))
  done
  if "$ptxas" -arch="$arch" "$tmp/broken.$arch.ptx.bad" -o /dev/null 2>"$tmp/err"; then
    echo "FAIL: the broken module assembled for $arch" >&2
    exit 1
  fi
  grep -q undeclared "$tmp/err" || { echo "FAIL: unexpected ptxas error:" >&2; cat "$tmp/err" >&2; exit 1; }
  echo "ok: broken module rejected for $arch"
done
if [ "$count" -lt 10 ]; then
  echo "FAIL: expected at least 10 modules, assembled $count" >&2
  exit 1
fi
