#!/usr/bin/env bash
# ptxas's work on the cold-compile benchmark's PTX, as a deterministic count of the instructions it
# executes (valgrind): for comparing PTX shapes on a noisy or slow machine, where wall times of ptxas
# swing by 20% from run to run. One count takes about 6 s.
#   bash bench/ptxas_work.sh [TRITONC] [FILE.ptx ...]
# With no files, compiles the 128x256x64 fp16 matmul as the benchmark launches it (sizes specialized as
# multiples of 16, 8 warps, 3 stages) with TRITONC (default build/tools/tritonc/tritonc).
# Needs valgrind and ptxas (PATH, /usr/local/cuda/bin or $TRITONC_PTXAS).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tritonc=${1:-$root/build/tools/tritonc/tritonc}
shift || true
ptxas=${TRITONC_PTXAS:-$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)}
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  "$tritonc" compile "$root/kernels/matmul.tc" -DTYPE=half -DTM=128 -DTN=256 -DTK=64 --num-warps=8 \
    --num-stages=3 --specialize=DDDDDDDDD --emit=ptx -o "$tmp/matmul.ptx"
  files=("$tmp/matmul.ptx")
fi
for f in "${files[@]}"; do
  n=$(valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$ptxas" -arch=sm_90a "$f" -o /dev/null 2>&1 | awk '/I *refs/ {gsub(",", "", $4); print $4}')
  echo "$f: $((n / 1000000)) M instructions in ptxas"
done
