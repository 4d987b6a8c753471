#!/usr/bin/env bash
# Writes the PTX embedded in gpu_runtime_smoke for both targets and checks it with ../check-ptxas.sh
# (no GPU needed): the good modules must assemble, the broken one must not.
# Usage: check-ptx.sh path/to/gpu_runtime_smoke path/to/ptxas
set -euo pipefail
smoke=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in sm_80 sm_90a; do
  for name in add shared; do
    "$smoke" --print-ptx "$name" >"$tmp/$name.$arch.ptx"
  done
  "$smoke" --print-ptx broken >"$tmp/broken.$arch.ptx.bad"
done
"$(dirname "$0")/../check-ptxas.sh" "$2" "$tmp" 4
