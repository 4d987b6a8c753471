#!/usr/bin/env bash
# Writes the PTX embedded in gpu_tensormap_smoke and checks that it assembles for sm_90a with
# ../check-ptxas.sh (no GPU needed; TMA exists only on sm_90a).
# Usage: check-tensormap-ptx.sh path/to/gpu_tensormap_smoke path/to/ptxas
set -euo pipefail
smoke=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$smoke" --print-ptx tma >"$tmp/tma.sm_90a.ptx"
"$(dirname "$0")/../check-ptxas.sh" "$2" "$tmp" 1
