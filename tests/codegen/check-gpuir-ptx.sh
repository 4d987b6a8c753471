#!/usr/bin/env bash
# Compiles every hand-written GPU-level kernel (tests/kernels/gpuir/*.tir) for sm_90a and sm_80 with 1, 4
# and 8 warps and checks that ptxas assembles each module (../check-ptxas.sh, warnings are errors). A kernel
# whose IR names layouts for one warp count (a `; warps: N` line) is compiled with that count only, one
# that uses operations of one target (a `; arch: sm_90a` line) for that target only. A kernel with a
# `; passes: LIST` line is compiled again for sm_90a after those passes (the GPU-level operations they
# make, e.g. bulk tensor copies, are sm_90a's). Warp-specialized kernels (a `warp_specialize`), whose
# partitions run on register budgets (setmaxnreg), must also assemble without spills (ptxas -v).
# Usage: check-gpuir-ptx.sh path/to/tritonc path/to/ptxas
set -euo pipefail
tritonc=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
for f in "$(dirname "$0")"/../kernels/gpuir/*.tir; do
  counts="1 4 8"
  fixed=$(sed -n 's/^; warps: \([0-9]*\)$/\1/p' "$f")
  [ -n "$fixed" ] && counts=$fixed
  archs=$(sed -n 's/^; arch: \(sm_[0-9a-z]*\)$/\1/p' "$f")
  [ -n "$archs" ] || archs="sm_90a sm_80"
  for arch in $archs; do
    for warps in $counts; do
      "$tritonc" compile "$f" --emit=ptx --arch="$arch" --num-warps="$warps" \
        -o "$tmp/$(basename "$f" .tir)-w$warps.$arch.ptx"
      count=$((count + 1))
    done
  done
  passes=$(sed -n 's/^; passes: \(.*\)$/\1/p' "$f")
  if [ -n "$passes" ]; then
    for warps in $counts; do
      "$tritonc" compile "$f" --passes="$passes" --emit=ptx --arch=sm_90a --num-warps="$warps" \
        -o "$tmp/$(basename "$f" .tir)-passes-w$warps.sm_90a.ptx"
      count=$((count + 1))
    done
  fi
done
for f in "$(dirname "$0")"/../kernels/gpuir/*.tir; do
  grep -q warp_specialize "$f" || continue
  for ptx in "$tmp/$(basename "$f" .tir)"-*.sm_90a.ptx; do
    report=$("$2" -v -arch=sm_90a "$ptx" -o "$tmp/out.cubin" 2>&1)
    if ! grep -q "0 bytes spill stores, 0 bytes spill loads" <<<"$report"; then
      echo "FAIL: $(basename "$ptx") spills:" >&2
      echo "$report" >&2
      exit 1
    fi
    echo "ok: $(basename "$ptx") has no spills ($(grep -o 'Used [0-9]* registers' <<<"$report"))"
  done
done
"$(dirname "$0")"/../check-ptxas.sh "$2" "$tmp" "$count"
