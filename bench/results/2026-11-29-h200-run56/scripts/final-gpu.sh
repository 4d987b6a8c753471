#!/usr/bin/env bash
# Run 56's last device call (deleted after the run): fp32 bench, K-masked GEMM spot timing, kernel tests
# of this session's merges on the GPU, tritonc.ops' tests.
set -o pipefail
mkdir -p "$OUT"
start=$SECONDS
timeout 200 bash bench/run.sh --only fp32 > "$OUT/bench-fp32.log" 2>&1; echo "bench rc $? at $((SECONDS-start)) s"
grep -A12 -i "fp32\|float" "$OUT/bench-fp32.log" | tail -25
T=$PWD/build-py/tools/tritonc/tritonc
export PYTHONPATH=$PWD/build-py/python
timeout 50 python3 bench/spot_matmul.py --dtype half --sizes 4096 --k 4104 --configs 128x128x64w4s3,128x256x64w8s3 \
  > "$OUT/kmask-spot.log" 2>&1; echo "spot rc $? at $((SECONDS-start)) s"; tail -8 "$OUT/kmask-spot.log"
TRITONC=$T TRITONC_TEST_DEVICE=1 timeout 120 python3 -m pytest -q -rf -n 8 tests/kernels/test_kernels.py \
  -k "streamk or k_masked or gpuir_matmul_ws or sddmm or (test_conv and not desc and not nhwc) or (persistent and float) or wide_tile" \
  > "$OUT/kernels.log" 2>&1; echo "kernels rc $? at $((SECONDS-start)) s"; tail -8 "$OUT/kernels.log"
TRITONC=$T timeout 75 python3 -m pytest -q -rf tests/python/test_ops.py > "$OUT/test_ops.log" 2>&1
echo "test_ops rc $? at $((SECONDS-start)) s"; tail -8 "$OUT/test_ops.log"
rm -f "$OUT"/*.png "$OUT"/*/*.png
