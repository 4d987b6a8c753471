#!/usr/bin/env bash
# Writes the PTXBuilder sample kernels (one file per target, plus a deliberately broken module) and
# checks them with ../../check-ptxas.sh.
# Usage: check-ptxas.sh path/to/ptx_gen_kernels path/to/ptxas
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" "$tmp"
"$(dirname "$0")/../../check-ptxas.sh" "$2" "$tmp" 10
