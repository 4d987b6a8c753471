//===- TensorCopies.h - Async-copy rings filled by bulk tensor copies -*- C++ -*-===//
//
// Registered as "tensor-copies" (pass 6 of docs/BACKEND-MIGRATION.md). It
// runs after
// `async-rings`, whose rings it takes as input:
//
//   preheader:  %r = smem_alloc : smem<S x T<..>, #shared<swizzle=..>>
//               cp_async (smem_slot %r, j), %ptrs_j, %mask_j    (j < P)
//               cp_async_commit
//   header:     %read = phi [0, ..], [(read+1 == S ? 0 : read+1), ..]
//               %write = phi [P, ..], [(write+1 == S ? 0 : write+1), ..]
//   body:       cp_async_wait P-1, barrier, local_load (smem_slot %r, %read)
//               cp_async (smem_slot %r, %write), %ptrs, %mask; cp_async_commit
//   exit:       cp_async_wait 0
//
// with P = S-1 prologue fills, or fewer where the ring has slots to spare
// (async-rings gives the rings of several warpgroups one slot more).
//
// A ring whose every fill reads a box of one 2-D tensor (analysis/
// AffineAccess.h: a pointer parameter, unit stride along the slot's rows,
// the other stride and the mask's extents polynomials over the integer
// parameters; the base 16-byte aligned and the stride a multiple of 16 bytes,
// as the copy engine needs) into a slot the engine can write
// (TensorDescriptors.h) is filled by the copy engine instead:
//
//  * the entry block gets the tensor descriptor (`make_tensor_desc` over the
//    parameters: the extents the masks check, TensorMapUnboundedDim for a
//    dimension they never check, whose coordinates must be provably
//    non-negative: the engine zero-fills a box at a negative coordinate,
//    where the load read memory), a ring of S mbarriers and their
//    `mbarrier_init`s, then a `barrier`;
//  * each group of fills (one slot of every converted ring) becomes
//    `mbarrier_expect_tx` of their bytes on the slot's mbarrier, one
//    `tma_load` per ring at the coordinates of its box, `mbarrier_arrive`.
//    The engine zero-fills what lies outside the extents, which is what the
//    mask means; a scalar guard of the mask that is false moves the box out
//    of the tensor (TensorMapOutOfBounds), so the slot reads as zeros too;
//  * the body waits on the read slot's mbarrier with the parity of the
//    fill it reads. Fill k goes to slot k mod S and is read by iteration k,
//    so that parity is (k / S) & 1: a header phi that flips whenever %read
//    wraps. The `barrier` after the wait stays: it orders every thread's
//    reads of a slot before its refill;
//  * the exit waits for the P fills still in flight (the loop's last
//    refills), so that nothing writes the rings after the loop.
//
// A loop inside another loop (a persistent kernel's K loop in its loop over
// tiles) fills its rings again on every outer iteration, and the mbarriers'
// phases go on: the fills of all runs are one sequence, fill k of the kernel
// in slot k mod S with parity (k / S) & 1. Each run starts where the previous
// run's drain ended: at %ring.base with parity %ring.phase.outer, phis of
// the outer header (0 on entry); the prologue fills, %read and %write start
// from there (in every ring of the loop: they share the indices). A prologue
// issued a tile ahead (async-rings' form of TilePrefetch.cpp's: slot j filled
// in the outer preheader for the first tile and in the exit for the next)
// keeps the first tile's fills in slots 0 .. P-1 and issues the next tile's
// after the exit's drain, into the slots from where it ended.
//
// A ring whose fills are gathers of boxes of one tensor descriptor (what
// lower-tensor-descs makes of a desc_load feeding a dot in a loop, issued
// stages ahead by the pipeline; BoxGathers.h) is converted the same way,
// with the descriptor's extents, strides and box (any rank up to 5) and each
// fill's coordinates, computed ahead by the pipeline; under lower-tensor-
// descs' rules (TensorDescriptors.h: the innermost coordinate a known
// multiple of 16 bytes, among others). A gather that reaches the fill
// through a `trans` (a column-major slot from async-rings: the K-major
// operand of a wgmma) becomes a transposed copy of the box into that slot.
// The tensor map is recognized here rather than kept through the pipeline
// as a desc_load: the pipeline, async-rings and the interpreter then treat
// such a load like any other, every target runs the gather, and the rings,
// mbarriers, phases and the drain at the exit are built in one place.
//
// When every ring of the loop is converted and no cp_async is left in the
// function, the commit groups and cp_async waits go; otherwise they stay
// (empty groups are harmless) next to the mbarrier waits.
//
// A column-major ring (async-rings' slots of a `trans` operand, filled
// through transposed pointers) is the row-major slot of the loaded tile in
// memory, column blocks included (docs/IR.md), so it is checked and filled
// as that slot: boxes of the loaded tile, which the emitter copies one box
// per column block whatever the slot's order.
//
// With the dots' target as options (`tensor-copies{num-warps=N,wgmma,tf32}`,
// as assign-layouts'; the back end names it), a ring of elements of 4 bytes
// or more that a dot on FMA units reads stays with cp.async: cp.async copies
// each such element whatever the masks, and ptxas makes the FMA loop longer
// around the issue of a bulk copy (see whyLeftToCpAsync). Without them the
// pass does not know how a dot runs and fills every ring it can.
//
// Declined, with a remark that says why: rings of another form, loops inside
// two loops, or inside one that has no preheader, several latches, or may go
// round without running the loop to its exit (the phases are carried from
// there), fills whose pointers or masks lack the form, slots the engine
// cannot write (rows wider than the swizzle that are not whole column blocks
// of 8-row patterns, in either order; TensorDescriptors.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/PassManager.h"

#include <optional>
#include <string>
#include <vector>

namespace tritonc::transform {

/// Why the pass would not fill by bulk tensor copies the ring of type RingTy
/// that async-rings would make in loop L of the loads Prologue (slots 0 ..
/// P-1, before the loop or, a tile ahead, in the outer preheader), NextTile
/// (a tile ahead: the next tile's, in the exit) and Refill (in the body),
/// copied through transposed pointers where Transposed (the slots hold the
/// loaded tile's transposition), or "" when it would. async-rings asks it
/// about a ring cp.async cannot fill (masks that vary within cp.async's 4
/// bytes: `k < K` along the contiguous dimension with K not known a
/// multiple of the vector), whose masks a box bounds itself. The checks are
/// the pass's own (the loop around L, then each fill's form), run on the
/// loads.
std::string whyNotBulkTensorFills(ir::Function &F, AnalysisManager &AM, const Loop &L,
                                  const std::vector<ir::Instruction *> &Prologue,
                                  const std::vector<ir::Instruction *> &NextTile,
                                  ir::Instruction *Refill, const ir::Type *RingTy, bool Transposed);

class TensorCopiesPass : public Pass {
public:
  TensorCopiesPass() = default;
  /// With the dots' target (options as assign-layouts'), the rings of dots
  /// on FMA units stay with cp.async (see above).
  explicit TensorCopiesPass(AssignLayoutsTarget Dots) : Dots(Dots) {}
  const char *name() const override { return "tensor-copies"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  std::optional<AssignLayoutsTarget> Dots;
};

} // namespace tritonc::transform
