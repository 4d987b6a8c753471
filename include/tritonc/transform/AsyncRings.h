//===- AsyncRings.h - Pipelined dot operands as async-copy rings -*- C++ -*-===//
//
// Registered as "async-rings"; runs after `pipeline` (LoopPipeline.h) and is
// not part of the default pipeline. It makes the asynchrony of a pipelined
// innermost loop explicit in GPU-level IR (docs/IR.md, "GPU level"), so that
// the wait counts are computed here, once, instead of being reconstructed
// from the shape of the loop later.
//
// Input: the form `pipeline` leaves, per dot operand (directly or through
// `trans`): header phis Q_0 .. Q_{D-1} (Q_0 feeds the dot, Q_j takes
// Q_{j+1} on the back edge and Q_{D-1} the refill load X at the end of the
// body), their preheader values I_0 .. I_{D-1} loaded in the preheader.
// With S = D + 1 slots (D + 2 for wgmma dots of several warpgroups, below),
// each such operand becomes:
//
//   preheader:  %r = smem_alloc : smem<S x T<shape>, #shared<...>>
//               per iteration j < D: per operand `smem_slot %r, j` and
//               `cp_async %slot, ptrs(I_j), mask(I_j)`; one cp_async_commit
//   header:     %ring.read = phi [0, pre], [(read + 1) mod S, body]
//               %ring.write = phi [D, pre], [(write + 1) mod S, body]
//   body top:   cp_async_wait D-1  (the group of iteration i is complete:
//                                   D + i groups committed, i + 1 needed)
//               %x = local_load (smem_slot %r, read)  replaces Q_0
//   body end:   in place of X: cp_async (smem_slot %r, write), ptrs(X), mask(X)
//               cp_async_commit; read and write advance modulo S
//   exit:       cp_async_wait 0
//
// The pass places no barrier: insert-barriers (InsertBarriers.h), run after
// it, puts one after the wait at the body's top (the copies become visible
// to every thread, and the slot refilled below was last read in the
// previous iteration, before it) and, for a loop nested in another, one
// before the prologue overwrites the slots again.
//
// cp_async zero-fills masked-off elements, so every load's `other` must be
// +0; a load with another `other`, a scalar load, a prologue value that is
// not loaded in the preheader (e.g. issued a tile ahead by
// prefetchAcrossTiles) or a loop that writes memory leaves the loop
// unchanged, with a remark naming the reason at the load or the loop.
//
// Each ring's #shared layout is a hardware swizzle mode (what wgmma and
// ldmatrix read without bank conflicts): `order` puts first the dimension
// along which the pointers are contiguous (axis info; row-major when none
// is), and the swizzle is the widest of 128/64/32 bytes that the contiguous
// row holds (0 below 32 bytes); rows wider than that are column blocks, the
// hardware's layout (docs/IR.md). local_load results carry no layout: the back
// end chooses register layouts, and accelerate-dot makes wgmma read the slots.
// Where the pass knows the target (AsyncRingsTarget, or accelerate-dot's
// options) and a dot runs on FMA units or on tf32 tensor cores
// (analysis::planDot), its operands' slots are plain instead, in the dot's
// coordinates (a `trans` operand is ringed as the dot reads it, through
// transposed pointers): unswizzled and row-major, except A of an f32 FMA dot of
// 4 x 4 blocks per thread (analysis::fmaDotHasFourByFourBlocks), which is
// column-major ([K, M] in memory; in the swizzle mode its columns allow
// where A is loaded along K, so that its 4-byte copies, a slot row apart,
// do not all fall in one bank), and tf32 slots row-major in the swizzle
// mode their rows allow: the back end's FMA and tf32 lowerings read those
// slots in place, A's columns and B's rows in 16-byte vectors on the
// vectorized FMA path, element by element otherwise (tf32 through the
// slot's layout, so that a fragment's rows fall in different banks).
//
// Registered, the pass is target-independent; with accelerate-dot's options
// (`async-rings{num-warps=8,wgmma}`) it gives the wgmma dots of several
// warpgroups the back end's slot more (below) and declines nothing more.
// A `trans` operand of a wgmma dot (with either target) whose loads gather
// boxes of a tensor descriptor (BoxGathers.h) gets a ring of column-major
// slots holding the operand as the dot reads it, filled through transposed
// pointers (tensor-copies then makes the fills transposed bulk copies).
// With the `trans` option (`async-rings{num-warps=4,wgmma,trans}`), and
// always with the back end's AsyncRingsTarget, every `trans` operand of a
// wgmma dot does, whatever its loads, and so does every one of an mma.sync
// dot (f16/bf16): ldmatrix reads the 16-byte chunks of its slots' columns
// as matrix rows (`.trans` for A; LowerDot.cpp).
// The GPU back end runs it with an AsyncRingsTarget: it then also
// declines, with a remark, every loop whose rings the back end would not
// fill with cp.async (copies narrower than 4 bytes, rings over the
// shared-memory budget), but for rings that tensor-copies, run after it on
// sm_90a with TMA on, will fill with bulk tensor copies (it asks
// tensor-copies: whyNotBulkTensorFills; masks along K that a box bounds);
// the dots of those loops read their operands from
// registers, which their lowering stages through shared memory itself
// (LowerDot.cpp, LowerWgmma.cpp). The rings of a wgmma dot of several
// warpgroups get one slot more: mma-in-flight then leaves each iteration's
// MMAs running into the next, and the refill overwrites the slot of
// iteration i - 2, which every warpgroup has retired before the barrier of
// iteration i.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/PassManager.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace tritonc::transform {

/// What the GPU back end tells the pass about its target (codegen/CodeGen.cpp):
/// options, not globals, so that `tritonc opt` and the back end agree on
/// what a given target gets.
struct AsyncRingsTarget {
  /// sm_90a: wgmma dots (analysis::planDot's HasWgmma).
  bool HasWgmma = false;
  unsigned NumWarps = 4;
  bool AllowTF32 = false;
  /// Bytes of shared memory all rings of a function may take.
  uint64_t RingBudget = 0;
  /// "" when the back end lowers a cp_async of Load's pointers (transposed
  /// with Transposed) into a slot of layout Slot with copies of 4 bytes or
  /// more; otherwise why not, in a kernel author's words. Without a Slot
  /// (not chosen yet), whether the pointers' vectors alone are that wide.
  std::function<std::string(const ir::Instruction &Load, const ir::Layout *Slot, bool Transposed)>
      CopyFilter;
  /// tensor-copies runs after it: a ring whose loads CopyFilter declines is
  /// still made where tensor-copies will fill it with bulk tensor copies
  /// (whyNotBulkTensorFills, TensorCopies.h), whose boxes bound the masks
  /// that cp.async could not copy (`k < K` along the contiguous dimension,
  /// K not known a multiple of the vector).
  bool TensorCopies = false;
  /// tensor-stores runs after it with the program's shared memory: a store
  /// in the exit of a loop whose prologue is issued a tile ahead may be
  /// staged in the ring slots that prologue leaves free (TensorStores.h),
  /// so such rings need no room next to the epilogue's tile.
  bool TensorStores = false;
};

class AsyncRingsPass : public Pass {
public:
  AsyncRingsPass() = default;
  explicit AsyncRingsPass(AsyncRingsTarget Target) : Target(std::move(Target)) {}
  /// The registered pass with the dots' target as options, those of
  /// accelerate-dot (`async-rings{num-warps=8,wgmma}`): it declines no more
  /// loops than without them, but the rings of a dot that runs on wgmma with
  /// several warpgroups get their slot more, as in the back end, so that
  /// `tritonc opt` and the interpreter see the back end's rings.
  explicit AsyncRingsPass(AssignLayoutsTarget Dots, bool TransOperands = false)
      : Dots(Dots), TransOperands(TransOperands) {}
  const char *name() const override { return "async-rings"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  std::optional<AsyncRingsTarget> Target;
  std::optional<AssignLayoutsTarget> Dots;
  /// The `trans` option of the registered pass: every `trans` operand of a
  /// wgmma or mma.sync dot in column-major slots, not only descriptor boxes
  /// read by wgmma. The back end's target implies it.
  bool TransOperands = false;
};

} // namespace tritonc::transform
