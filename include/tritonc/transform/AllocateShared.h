//===- AllocateShared.h - Shared-memory offsets over live ranges -*- C++ -*-===//
//
// Registered as "allocate-shared". Gives every `smem_alloc` of a function an
// offset in the program's shared memory (`offset(N)` on the instruction), so
// that buffers never live at the same time share bytes (thesis section
// 5.3.4). The emitter and the interpreter place the buffers there; without
// this pass they put them one after another.
//
// Program points are the instructions in a reverse post-order that keeps
// each loop's blocks together. A buffer is live from its first to its last
// mention: the smem_alloc, every value derived from it (smem_slot results,
// and phis or selects of those) and every instruction using one of them.
// Two rules widen that interval, each because the bytes stay in use beyond
// the last mention:
//
//  - A loop the interval touches is covered whole: an smem_alloc executed
//    again yields the same buffer, so data written in one iteration may be
//    read in the next (a ring), and the uses before the back edge need the
//    bytes until the loop ends. The partitions of a `warp_specialize` count
//    as one loop: they run at the same time, so a buffer one of them uses
//    is live over all of them (docs/WARP-SPECIALIZATION.md). Their blocks
//    are numbered in the fork's order. Where the first of two partitions
//    touches shared memory only through tma_loads and mbarrier operations
//    and the second waits on those tma_loads' mbarriers, the "loop" ends
//    after the second's last such wait (and the loops around it):
//    everything the first did happens before a fill whose completion that
//    wait observes (warp-specialize makes the consumer wait for every
//    fill), so the consumer's tail after it, the epilogue's staging slot,
//    shares bytes with the rings as without partitions. A persistent
//    kernel's last wait is inside its loop over tiles, which the range
//    then covers.
//  - Asynchronous writes (cp_async, tma_load) land after the instruction
//    that issues them, and asynchronous reads (wgmma, tma_store) continue
//    after it: the interval extends to the first wait after it (in program
//    order, after the loops it covers, not after the partitions: the
//    consumer may retire its wgmmas in its tail) that retires every operation of that
//    kind (`cp_async_wait 0`, `wgmma_wait 0`, `tma_store_wait 0`), or to the
//    end of the function when none follows (not where every such operation
//    is followed by that wait in its own block: a loop that waits for its
//    MMAs in the iteration that issues them). The passes that emit these
//    operations put such a wait where every path passes.
//    A tma_load completes through its mbarrier, not a numbered wait: the
//    interval extends to the last `mbarrier_wait` on that mbarrier's buffer
//    after it (tensor-copies waits there, at the loop's exit, for every fill
//    still in flight; the interpreter reports a buffer written over while a
//    copy into it is pending; waits that all come before the interval's end
//    are inside it already), or to the end of the function when no wait on
//    it exists.
//
// The offsets come from analysis::allocateSharedMemory (largest buffer
// first, first fit), aligned to 1024 bytes, the most any #shared layout
// needs. Running the pass again recomputes every offset.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class AllocateSharedPass : public Pass {
public:
  const char *name() const override { return "allocate-shared"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
