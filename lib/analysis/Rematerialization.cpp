//===- Rematerialization.cpp - Tile values recomputed where they are read -===//
//
// See Rematerialization.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/Rematerialization.h"

#include <algorithm>

namespace tritonc::analysis {

using ir::Instruction;
using ir::OpCategory;
using ir::Opcode;

namespace {

/// Element-wise opcodes that may be recomputed at every use when their
/// operands can be: cheap integer/pointer/boolean arithmetic.
bool isCheapElementwise(const Instruction &I) {
  if (!isIndexArithmetic(I))
    return false;
  // Division is not cheap, and dividing by a zero that a mask excluded must
  // not happen again elsewhere; keep it at its definition.
  switch (I.getOpcode()) {
  case Opcode::SDiv:
  case Opcode::UDiv:
  case Opcode::SRem:
  case Opcode::URem:
    return false;
  default:
    return true;
  }
}

} // namespace

/// Element-wise integer, pointer or boolean arithmetic (divisions included):
/// index computations, whose layout their uses may as well decide.
bool isIndexArithmetic(const Instruction &I) {
  switch (I.getCategory()) {
  case OpCategory::Binary:
  case OpCategory::Cmp:
  case OpCategory::Cast:
    break;
  case OpCategory::Misc:
    if (I.getOpcode() != Opcode::Select && I.getOpcode() != Opcode::GEP)
      return false;
    break;
  default:
    return false;
  }
  return I.getType()->getScalarType()->getKind() != ir::TypeKind::Float;
}

Rematerialization::Rematerialization(const ir::DominatorTree &Dom) {
  // One sweep in reverse post-order (operands of non-phi instructions come
  // first; a phi is never rematerializable).
  for (const ir::BasicBlock *BB : Dom.reversePostOrder())
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      if (!I.getType()->isTile())
        continue;
      bool R = false;
      switch (I.getOpcode()) {
      case Opcode::MakeRange:
      case Opcode::Splat:
        R = true; // free in any layout: computed in the one each use needs
        break;
      case Opcode::Reshape:
      case Opcode::Broadcast:
      case Opcode::Trans:
        R = isRematSource(I.getOperand(0));
        break;
      default:
        if (isCheapElementwise(I)) {
          R = true;
          for (const ir::Value *Op : I.operands())
            if (Op->getType()->isTile() && !isRematSource(Op))
              R = false;
        }
        break;
      }
      Remat[&I] = R;
      // A division of rematerializable values (and arithmetic on such
      // divisions) is recomputable: the lowering may compute it again in
      // another layout instead of moving it (isRecomputable).
      if (!R && isIndexArithmetic(I)) {
        unsigned Steps = 1;
        for (const ir::Value *Op : I.operands()) {
          if (!Op->getType()->isTile() || isRematerializable(Op))
            continue;
          auto It = RecomputeSteps.find(Op);
          Steps =
              It == RecomputeSteps.end() ? MaxRecomputeSteps + 1 : std::max(Steps, It->second + 1);
        }
        if (Steps <= MaxRecomputeSteps)
          RecomputeSteps.emplace(&I, Steps);
      }
    }
}

bool Rematerialization::isRematSource(const ir::Value *V) const {
  if (isRematerializable(V))
    return true;
  // Loop-carried index and pointer tiles: cheap to fetch in another layout
  // (usually a register renaming), so what is computed from them is
  // recomputed where needed instead of being moved.
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  return I && I->getOpcode() == Opcode::Phi &&
         (I->getType()->isIntOrIntTile() || I->getType()->isPointerOrPointerTile());
}

bool Rematerialization::isRematerializable(const ir::Value *V) const {
  auto It = Remat.find(V);
  return It != Remat.end() && It->second;
}

bool Rematerialization::isRecomputable(const ir::Value *V) const {
  return RecomputeSteps.count(V) != 0;
}

} // namespace tritonc::analysis
