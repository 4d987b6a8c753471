//===- MmaInFlight.h - One wgmma group left running across the back edge -*- C++ -*-===//
//
// Registered as "mma-in-flight" (pass 7 of docs/BACKEND-MIGRATION.md). A
// loop that accumulates with wgmma
//
//   header:
//     %acc = phi [%init, ^pre], [%d, ^body]
//   body:
//     wgmma_fence
//     %d = wgmma %a, %b, %acc, %use
//     wgmma_commit
//     wgmma_wait 0
//
// waits for its MMAs every iteration, so the copies and address arithmetic
// after them cannot overlap the tensor cores. Only the next iteration's
// wgmma reads %d, and a wgmma may take a pending accumulator: the wait
// becomes `wgmma_wait 1`, leaving this iteration's group running into the
// next one, and every exit of the loop gets `wgmma_wait 0` before anything
// there may read the accumulator (or reuse the slots).
//
// The in-flight group still reads its operand slots, so the pass checks
// that nothing in the loop writes a slot before every warpgroup has retired
// the group that reads it. The slots are `smem_slot %ring, %index` where the
// index is a constant or a ring index (a header phi entering with a constant
// and advanced by (i + 1) mod S, as async-rings writes it); a write into the
// ring in iteration i then overwrites the slot that iteration i - back read.
// With wait 1, iteration i's wait retires the groups up to i - 1 of its own
// warpgroup (the instructions are warpgroup-collective). With one warpgroup
// (num-warps <= 4) a write after that wait may therefore take back >= 1, one
// before it back >= 2. With several, another warpgroup's group is known
// retired only through a `barrier` all threads pass after their waits: a
// barrier between the wait and the write allows back >= 1, a barrier
// earlier in the iteration back >= 2 (it follows the previous iteration's
// wait), none declines. async-rings gives rings of several warpgroups one
// slot more for this, and the back end runs this pass after insert-barriers
// so that it sees the barrier after the copies' wait at the body's top.
// Barriers placed for `wgmma_wait 0` stay sufficient: every write in the
// loop is checked here against the longer reads, and each exit waits for
// the group before anything after the loop (where insert-barriers put the
// barriers such writes need) runs.
//
// mma-in-flight{warp-specialized} runs before warp-specialize (the back
// end's list with its option): only on a kernel that pass splits, checked
// before and after the rewrite (undone where the wait 1 would make the split
// decline), and without the check of the writes above. The split moves the
// fills to a producer partition that refills a slot only after the consumer's
// release on its empty barrier, which warp-specialize issues one iteration
// later for a group left in flight, after the partition's named barrier
// (one release for every warpgroup): whatever the warpgroups, no refill can
// overtake a group that still reads its slot. On other kernels it does
// nothing and says nothing; the pass after insert-barriers decides.
//
// Declined, with a remark: an accumulator read in the loop other than by the
// next wgmma, a loop with other wgmma groups, a wgmma that does not run in
// every iteration, a wait that is not `wgmma_wait 0` after the commit, slots
// whose index the pass cannot follow, and writes too close to the read.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class MmaInFlightPass : public Pass {
public:
  MmaInFlightPass() = default;
  MmaInFlightPass(unsigned NumWarps, bool BeforeSplit)
      : NumWarps(NumWarps), BeforeSplit(BeforeSplit) {}
  const char *name() const override { return "mma-in-flight"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  /// The warps of a program (with BeforeSplit, of the consumer partition):
  /// above 4, several warpgroups.
  unsigned NumWarps = 4;
  /// The option warp-specialized: only on kernels warp-specialize splits.
  bool BeforeSplit = false;
};

} // namespace tritonc::transform
