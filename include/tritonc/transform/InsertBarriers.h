//===- InsertBarriers.h - Barriers and proxy fences over GPU-level IR -*- C++ -*-===//
//
// `insert-barriers` places the CTA-wide `barrier`s and the
// `fence_proxy_async`es that order the shared-memory accesses of different
// threads in GPU-level IR, so that the passes producing shared buffers
// (async-rings, ...) place none themselves. It runs the thesis' RAW/WAR
// equations (analysis/BarrierPlacement.h) over the function's CFG, one
// statement per access:
//
//   local_load            reads its slot
//   local_store           writes its slot
//   cp_async              writes its slot at issue (a WAR against earlier
//                         reads); its bytes land at a cp_async_wait, which
//                         marks every slot a cp_async may write as written
//   tma_load              writes its slot (a WAR against earlier reads); its
//                         readers wait on the mbarrier, so no RAW
//   wgmma, tma_store      read their slots; the reads last until
//                         wgmma_wait / tma_store_wait, which mark every slot
//                         such an operation may read as read; where every
//                         wgmma_wait waits for all groups and follows its
//                         wgmmas in their block, a wait marks only the slots
//                         of the wgmmas it retires (a ring's refill after
//                         the wait then needs no barrier of its own: the
//                         slot it overwrites was read in an earlier
//                         iteration, before that iteration's barrier)
//   barrier               clears both sets
//   warp_join             clears both sets: the CTA goes on at the join
//                         block once every partition has joined
//
// Partitions (docs/WARP-SPECIALIZATION.md). A partition's blocks are a path
// of the CFG of their own, so the equations run per partition: a `barrier`
// in a partition orders that partition's warps (the emitter makes it a
// named barrier of them), which are all the accesses the partition's path
// has seen. The accesses of different partitions meet only through
// mbarriers (a ring's slots: the producer's tma_load waits on the empty
// barrier the consumer arrives on after its wgmma_wait, the consumer's
// wgmma on the full barrier), which need no barrier; warp-specialize forks
// right after a barrier, so nothing before the fork is pending in a
// partition. NumWarps is then the partition's warps for the layouts in it.
//
// A barrier goes right after the statement before the one that needs it (in
// the same block), so it follows the wait whose data it publishes.
//
// Slots. Accesses name a buffer (an `smem_alloc`) and a slot: a constant
// index, an index value, or any slot. Two index values name different
// slots when they are ring counters that advance together (phis of one
// block, entered with different constants below the modulus S and
// advanced by `select (icmp eq (x + 1), S), 0, x + 1`, as async-rings
// writes them); otherwise they may name the same slot, as may a constant
// and a value. An index value means "the slot it selects now" only until
// its definition runs again: where the flow re-enters its block, the sets
// holding it widen to the whole buffer. An access whose buffer is not a
// visible smem_alloc may touch any buffer.
//
// Threads. Every access is by "other threads" except where a thread reads
// or overwrites only elements it wrote or read itself: a local_load and a
// local_store in the same distributed layout, each element held by one
// thread (no replication) on all NumWarps warps, and the local_load not
// read by a dot (the emitter reads those slots with ldmatrix or wgmma
// descriptors, whose lanes read for one another).
//
// Proxy fences. The same equations, with `fence_proxy_async` as the
// barrier, generic writes (local_store, landed cp_async) as marks and
// async-proxy reads (wgmma slots, tma_store) as probes, say where the async
// proxy reads generic writes; the fence goes before the barrier that
// precedes the read in its block (the writers fence, then synchronize), or
// right before the read.
//
// The lowering's own accesses (option `lowering`, which the back end sets).
// The code generator's scratch buffer (layout conversions, reductions across
// warps, staged dot operands) and its global accesses of different thread
// mappings are one more abstract buffer and one more set of statements,
// from analysis/LoweringAccesses.h: a barrier their first statement needs
// goes right before the instruction (a convert_layout's reader, a phi's
// incoming branch), the barriers inside one instruction's lowering are the
// code generator's own, and the code generator checks that every access it
// emits is covered. Those own barriers order the scratch and the global
// accesses only, not the slots of the IR (SyncStatement::Keeps): two slot
// accesses are separated by a `barrier` of the IR, which the interpreter
// runs too (a ring read before a tile's epilogue conversion and the next
// tile's prologue fill of that slot get one of their own).
//
// The pass trusts the wait counts (the interpreter checks them: a pending
// copy read or overwritten is a run-time error) and adds barriers only;
// existing ones stay. It is idempotent.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class InsertBarriersPass : public Pass {
public:
  explicit InsertBarriersPass(unsigned NumWarps = 4, bool Lowering = false)
      : NumWarps(NumWarps), Lowering(Lowering) {}
  const char *name() const override { return "insert-barriers"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  unsigned NumWarps;
  bool Lowering;
};

} // namespace tritonc::transform
