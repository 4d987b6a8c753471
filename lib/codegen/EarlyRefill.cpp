//===- EarlyRefill.cpp - Issues TMA ring refills before the MMAs they overlap -===//
//
// A K loop pipelined over bulk tensor copies, with its MMAs left in flight,
// lowers to: wait for this iteration's slots, barrier, the wgmma k-steps,
// wait until only this iteration's MMAs are pending, then the refill that
// copies the operands of iteration i + D (the loads the loop pipeline put at
// the end of the body). With several warpgroups the ring has D + 2 slots
// (AsyncCopies.cpp) and the refill goes into the slot that iteration i - 2
// read. Every warp waited for the MMAs of iteration i - 2 (at the end of
// iteration i - 1) before the barrier of iteration i, so the refill may be
// issued right after that barrier, before the k-steps, instead of after them
// and their wait: the copies then start about one iteration earlier. One
// warpgroup has no spare slot: its refill overwrites what iteration i - 1
// read, whose MMAs only its own wait ends, and stays where it is (moved, it
// made 64 x 128 x 64 and 128 x 128 x 64 matmuls with 4 warps and 3 stages
// wrong on the H100). On the H100, the 128 x 256 x 64 fp16
// matmul at 4096^3 spent 7% of its warp samples waiting for ring data
// (mbarrier try_wait) and ran 0.5-1.7% faster with the refill issued early.
//
// The choice is an order of lowering: where it is safe, the dot lowers the
// rest of its block (the refills and the address and guard arithmetic they
// need) after its barrier and before its k-steps. Safe means, on the IR:
// the instructions after the dot read neither the dot nor a value its MMAs
// write; they touch memory only through the refills of the dot's own rings;
// and each lowers to straight-line code that writes no register the k-steps
// read: the refills themselves (their only branch skips thread 0's copies,
// and their ring cursors are no operand of the dot, whose slots are phis),
// index arithmetic computed where it is used (rematerializable tiles), and
// scalar arithmetic. A refill that must first drain the rings or separate
// them from scratch (a barrier) keeps its place.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <set>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

/// Whether a scalar instruction lowers to arithmetic alone.
bool isScalarArithmetic(const Instruction &I) {
  switch (I.getCategory()) {
  case ir::OpCategory::Binary:
  case ir::OpCategory::Cmp:
  case ir::OpCategory::Cast:
    return true;
  case ir::OpCategory::Misc:
    return I.getOpcode() == Opcode::Select || I.getOpcode() == Opcode::GEP;
  default:
    return false;
  }
}

} // namespace

std::vector<const Instruction *> FunctionLowering::refillsAheadOf(const Instruction &Dot) const {
  auto It = AsyncDots.find(&Dot);
  if (It == AsyncDots.end() || It->second != 1 || inFlightExtraSlots(Options.NumWarps) == 0)
    return {};
  std::set<unsigned> DotRings;
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    auto [Member, Id] = ringOperand(Dot, Idx);
    if (!Member || Member->getOpcode() != Opcode::Phi || Rings[Id].TensorMap < 0)
      return {};
    DotRings.insert(Id);
  }
  // Refills that would first drain the rings or fence them from scratch.
  if ((RefillBlocks.count(CurrentBlock) && !RefilledBlocks.count(CurrentBlock)) ||
      (AfterScratchOverRings.count(CurrentBlock) && !FencedBlocks.count(CurrentBlock)))
    return {};
  std::vector<const Instruction *> Ahead;
  bool AfterDot = false, AnyRefill = false;
  for (const auto &IP : Dot.getParent()->instructions()) {
    const Instruction &I = *IP;
    if (&I == &Dot) {
      AfterDot = true;
      continue;
    }
    if (!AfterDot || I.isTerminator())
      continue;
    for (const ir::Value *Op : I.operands())
      if (Op == &Dot || PendingMma.count(Op))
        return {};
    auto Ring = AsyncOf.find(&I);
    bool Refill = Ring != AsyncOf.end() && DotRings.count(Ring->second) && TensorAccesses.count(&I);
    bool Arithmetic = I.getType()->isTile() ? LA.isRematerializable(&I) : isScalarArithmetic(I);
    if (!Refill && (I.accessesMemory() || !Arithmetic))
      return {};
    AnyRefill |= Refill;
    Ahead.push_back(&I);
  }
  return AnyRefill ? Ahead : std::vector<const Instruction *>();
}

void FunctionLowering::lowerRefillsAhead(const Instruction &Dot) {
  for (const Instruction *I : refillsAheadOf(Dot)) {
    CurrentInst = I;
    lowerInstruction(*I);
    LoweredAhead.insert(I);
  }
  CurrentInst = &Dot;
}

} // namespace tritonc::codegen
