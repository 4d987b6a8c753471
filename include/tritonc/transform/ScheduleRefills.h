//===- ScheduleRefills.h - The next slot's copies above this slot's reads -*- C++ -*-===//
//
// `schedule-refills` moves the refill of a ring (the `cp_async`es of one
// commit group and their `cp_async_commit`, as async-rings writes them at
// the end of a loop body) up to just before the first `local_load` of the
// block that precedes them, so that the copies of a later iteration are in
// flight while this iteration's slots are read and multiplied, not issued
// after the MMAs. The pure instructions and loads that compute the copies'
// pointers, masks and slots move with them, in their order.
//
// The move is checked against the memory effects of what it crosses: no
// instruction in between may write global memory or have another side
// effect outside shared memory (the copies read global memory when issued),
// no other `cp_async`, commit or wait may lie in between (the commit groups
// and the wait counts stay as they are), nor a `wgmma_wait` or
// `tma_store_wait` (it may end a read of the slot a copy overwrites), a
// barrier, a fence or an mbarrier operation; every shared access crossed
// (local_load/store, wgmma, tma_load/store) must name another slot than each
// moved copy (SlotIndices.h: constant slots, ring counters that advance
// together). A refill that cannot move is left in place with a remark
// saying why.
//
// It runs on GPU-level IR before or after insert-barriers: it never crosses
// a barrier, and insert-barriers orders a moved copy after the reads of its
// slot in the previous iteration with the barrier it places after the wait.
// Not in the back end's list yet: the cp.async rings' schedule there is
// timed against the planner's first.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class ScheduleRefillsPass : public Pass {
public:
  const char *name() const override { return "schedule-refills"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
