#!/usr/bin/env bash
# Builds and runs the ahead-of-time example on a GPU: tritonc writes matmul_fp16.c/.h (the cubin
# and its launcher) for the device's target, gcc compiles them with main.c against cuda.h, and the
# program links only libcuda. Usage: examples/aot/run.sh TRITONC [ARCH]   (ARCH default sm_90a)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tritonc=$1
arch=${2:-sm_90a}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cuda_include=${CUDA_INCLUDE:-/usr/local/cuda/include}
# A, B and C 16-byte aligned (D), and every size and leading dimension a non-negative multiple of 16
# (S): the specialization a JIT launch of main.c's shapes would use.
"$tritonc" compile "$here/../../kernels/matmul.tc" -DTYPE=half -DTM=128 -DTN=128 -DTK=64 \
  --num-warps=4 --arch="$arch" --specialize=DDDSSSSSS --emit=c -o "$work/matmul_fp16.c"
gcc -std=c99 -O2 -Wall -Wextra -Werror -I"$work" -I"$cuda_include" "$here/main.c" \
  "$work/matmul_fp16.c" -o "$work/aot_example" -lcuda
"$work/aot_example"
