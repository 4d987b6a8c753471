#!/usr/bin/env bash
# Nsight Compute profile of one matmul.tc configuration next to cuBLAS, for finding where a kernel loses
# time (pipe utilization, shared-memory wavefronts and bank conflicts, stall reasons, occupancy), plus the
# SASS of the tritonc kernel. For a machine with an NVIDIA GPU, ncu, cuobjdump, torch and the module:
#   bash bench/profile_matmul.sh DTYPE SIZE CONFIG          e.g.  float 4096 128x128x16w8s2
# CONFIG as in bench/spot_matmul.py. Writes ncu-tritonc.txt, ncu-cublas.txt and sass.txt to $OUT
# (default profile-out/) and prints the headline metrics of both kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
dtype=${1:?dtype}
size=${2:?size}
config=${3:?config}
out=${OUT:-profile-out}
mkdir -p "$out"
if [ -z "${PYTHONPATH:-}" ]; then
  PYTHONPATH=$(bash scripts/build-python.sh 2>"$out/build-python.log")
  export PYTHONPATH
fi
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy
  --section WarpStateStats --section SchedulerStats --section InstructionStats
  --section MemoryWorkloadAnalysis_Tables --section LaunchStats)
stalls=smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
spot=(python3 bench/spot_matmul.py --dtype "$dtype" --sizes "$size" --configs "$config" --runs 3)
# The tritonc kernel is named after its entry point; skip the launch that compiles and the warm-up.
ncu --kernel-name regex:'^matmul' --launch-skip 2 --launch-count 1 "${sections[@]}" --metrics "$metrics,$stalls" \
  "${spot[@]}" >"$out/ncu-tritonc.txt" 2>&1 || true
ncu --kernel-name regex:'gemm|Kernel|sm90' --launch-skip 2 --launch-count 1 "${sections[@]}" --metrics "$metrics,$stalls" \
  "${spot[@]}" >"$out/ncu-cublas.txt" 2>&1 || true
# SASS of the same configuration, through the command-line compiler and ptxas.
if [[ $config =~ ^([0-9]+)x([0-9]+)x([0-9]+)w([0-9]+)s([0-9]+)(c?)$ ]]; then
  tma=()
  [ -n "${BASH_REMATCH[6]}" ] && tma=(--no-tma)
  tritonc=${TRITONC:-build-py/tools/tritonc/tritonc}
  "$tritonc" compile kernels/matmul.tc -DTYPE="$dtype" -DTM="${BASH_REMATCH[1]}" -DTN="${BASH_REMATCH[2]}" \
    -DTK="${BASH_REMATCH[3]}" --num-warps="${BASH_REMATCH[4]}" --num-stages="${BASH_REMATCH[5]}" "${tma[@]}" \
    --specialize=DDDDDDDDD --emit=cubin -o "$out/kernel.cubin" && cuobjdump --dump-sass "$out/kernel.cubin" >"$out/sass.txt"
fi
for who in tritonc cublas; do
  echo "== $who"
  grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Issue Slots Busy|No Eligible|wavefronts|bank_conflicts|pipe_fma|inst_executed|issue_stalled|Block Size|Shared Memory Configuration Size|Dynamic Shared" \
    "$out/ncu-$who.txt" | head -30 || true
done
