//===- WarpSpecialize.h - A producer and a consumer partition -*- C++ -*-===//
//
// Registered as "warp-specialize" (docs/WARP-SPECIALIZATION.md, "The pass").
// A kernel whose wgmma loops read rings that only bulk tensor copies fill,
// on one mbarrier per slot (tensor-copies' output, after accelerate-dot,
// accumulator-init and tensor-stores), is split at the `barrier` after the
// mbarriers' initialization (added where the kernel has none) into two
// partitions of a `warp_specialize`:
//
//   - the producer (partition 0, producer-warps, one warpgroup by default)
//     runs a copy of the kernel's control flow that keeps only the fills
//     (`mbarrier_expect_tx`, `tma_load`, `mbarrier_arrive` on the full
//     barriers) and what computes their coordinates and the branches; before
//     each fill of slot s it waits on a new `empty` barrier of s for the
//     parity (n & 1) ^ 1 of its n-th fill of s (a fresh barrier reports
//     parity 1 complete: the ring starts empty), counted in a bit mask per
//     ring that the pass threads through the producer's blocks;
//   - the consumer (partition 1, num-warps warps: the kernel's own, for
//     which the layouts were chosen) is the kernel without the fills: its
//     waits on the full barriers, wgmmas and epilogue. After the
//     `wgmma_wait 0` that retires the wgmmas reading a slot each of its
//     warps arrives on the slot's empty barrier (`per_warp`: the barrier
//     counts num-warps arrivals, no warp waits for another); a wait whose
//     slot nothing reads (the fills drained at a loop's exit) releases the
//     slot at once. Where mma-in-flight left one group in flight
//     (`wgmma_wait 1`), the slot goes back one iteration later: after the
//     next iteration's wait or the exit's `wgmma_wait 0`, through a header
//     phi that enters with a spare
//     empty barrier nobody waits on.
//
// Both partitions end with `warp_join` at a new block that returns. The
// rings and barriers are allocated before the fork (a value a partition
// defines is not visible in the other). The CTA has producer-warps +
// num-warps warps: the sum of the fork's partitions, which is what the
// emitter launches. With producer-registers=R (default 40) the producer
// gets R registers per thread and the consumer what is left of the
// register file, at most 256 (setmaxnreg).
//
// Declined, with a remark: cp.async rings, a wgmma operand in registers, a
// ring slot read or written by anything but its fills and wgmmas (an
// epilogue staged in ring slots), a bulk tensor copy outside the rings,
// fills whose coordinates or whose loops' control depend on memory or on
// the consumer's work, a slot read with no `wgmma_wait` after it in its
// block or groups in flight in another form than mma-in-flight's, blocks
// entered from unreachable code, and warps that are not warpgroups.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

#include <string>

namespace tritonc::transform {

struct WarpSpecializeOptions {
  /// The consumers' warps: the kernel's --num-warps, its layouts' warps.
  unsigned NumWarps = 4;
  /// The producer partition's warps (whole warpgroups with a budget).
  unsigned ProducerWarps = 4;
  /// The producer's registers per thread (setmaxnreg); 0: no budgets.
  unsigned ProducerRegisters = 40;
};

/// Why warp-specialize with Options would leave F as it is ("" when it
/// would split it); F is not changed. mma-in-flight{warp-specialized} asks
/// before the split.
std::string whyNotWarpSpecialized(ir::Function &F, const WarpSpecializeOptions &Options,
                                  AnalysisManager &AM);

class WarpSpecializePass : public Pass {
public:
  WarpSpecializePass() = default;
  explicit WarpSpecializePass(WarpSpecializeOptions Options) : Options(Options) {}
  const char *name() const override { return "warp-specialize"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  WarpSpecializeOptions Options;
};

} // namespace tritonc::transform
