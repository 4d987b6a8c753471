//===- PrefixMask.cpp - Masks true on a prefix of every vector ------------===//
//
// See PrefixMask.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/PrefixMask.h"

#include <algorithm>
#include <limits>

namespace tritonc::analysis {

using namespace ir;

namespace {

/// How far V is constant along Dim (a scalar: everywhere).
int64_t constancyAlong(const Value *V, unsigned Dim, const AxisInfoAnalysis &AI) {
  if (!V->getType()->isTile())
    return std::numeric_limits<int64_t>::max();
  const AxisInfo &Info = AI.get(V);
  return Dim < Info.rank() ? Info.Constancy[Dim] : 1;
}

/// Cmp as `Index < Bound` (or `<=`) over runs along Dim.
std::optional<PrefixMask> compareAsPrefix(const Instruction &Cmp, unsigned Dim,
                                          const AxisInfoAnalysis &AI) {
  PrefixMask P;
  P.Compare = &Cmp;
  bool Unsigned = false;
  bool Swapped = false;
  switch (Cmp.Predicate) {
  case CmpPredicate::ULT:
  case CmpPredicate::ULE:
    Unsigned = true;
    [[fallthrough]];
  case CmpPredicate::SLT:
  case CmpPredicate::SLE:
    P.Inclusive = Cmp.Predicate == CmpPredicate::SLE || Cmp.Predicate == CmpPredicate::ULE;
    break;
  case CmpPredicate::UGT:
  case CmpPredicate::UGE:
    Unsigned = true;
    [[fallthrough]];
  case CmpPredicate::SGT:
  case CmpPredicate::SGE:
    P.Inclusive = Cmp.Predicate == CmpPredicate::SGE || Cmp.Predicate == CmpPredicate::UGE;
    Swapped = true;
    break;
  default:
    return std::nullopt;
  }
  P.Index = Cmp.getOperand(Swapped ? 1 : 0);
  P.Bound = Cmp.getOperand(Swapped ? 0 : 1);
  const Type *T = P.Index->getType();
  if (!T->isTile() || !T->isIntOrIntTile() || (T->getIntBits() != 32 && T->getIntBits() != 64))
    return std::nullopt;
  const AxisInfo &Index = AI.get(P.Index);
  if (Dim >= Index.rank())
    return std::nullopt;
  // Contiguity promises consecutive values of the signed type: compared
  // without sign, a run from -1 to 0 would wrap.
  if (Unsigned && !Index.NonNegative)
    return std::nullopt;
  P.Run = std::min(Index.Contiguity[Dim], constancyAlong(P.Bound, Dim, AI));
  return P;
}

/// V as a prefix mask: a comparison, or an `and` of one with conjuncts
/// constant over the run, through broadcasts and layout conversions.
std::optional<PrefixMask> walk(const Value *V, unsigned Dim, const AxisInfoAnalysis &AI) {
  const Instruction *I = asInstruction(const_cast<Value *>(V));
  if (!I || !V->getType()->isTile())
    return std::nullopt;
  std::optional<PrefixMask> Found;
  switch (I->getOpcode()) {
  case Opcode::ICmp:
    return compareAsPrefix(*I, Dim, AI);
  case Opcode::ConvertLayout:
  case Opcode::Broadcast:
    Found = walk(I->getOperand(0), Dim, AI);
    break;
  case Opcode::And:
    // The conjunct that varies is the comparison; the other one bounds the
    // run by its constancy. The longer of the two readings wins.
    for (unsigned K = 0; K < 2; ++K) {
      std::optional<PrefixMask> P = walk(I->getOperand(K), Dim, AI);
      if (!P)
        continue;
      P->Run = std::min(P->Run, constancyAlong(I->getOperand(1 - K), Dim, AI));
      if (!Found || P->Run > Found->Run)
        Found = std::move(P);
    }
    break;
  default:
    return std::nullopt;
  }
  if (Found)
    Found->Path.insert(Found->Path.begin(), I);
  return Found;
}

} // namespace

std::optional<PrefixMask> findPrefixMask(const Value *Mask, unsigned Dim,
                                         const AxisInfoAnalysis &AI) {
  std::optional<PrefixMask> P = walk(Mask, Dim, AI);
  if (!P || P->Run < 2 || P->Run <= constancyAlong(Mask, Dim, AI))
    return std::nullopt;
  return P;
}

} // namespace tritonc::analysis
