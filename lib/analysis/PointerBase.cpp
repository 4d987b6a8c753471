//===- PointerBase.cpp - The parameter a pointer is computed from --------===//

#include "tritonc/analysis/PointerBase.h"

#include <unordered_set>
#include <vector>

namespace tritonc::analysis {

using ir::Opcode;

bool parametersMayOverlap(const ir::Argument *A, const ir::Argument *B) {
  return !A || !B || A == B || !A->attrs().NoAlias || !B->attrs().NoAlias;
}

const ir::Argument *pointerBase(const ir::Value *Ptr) {
  // Walks every value Ptr may come from; a phi's back edges lead to values
  // already seen (the phi itself, advanced by gep).
  const ir::Argument *Base = nullptr;
  std::vector<const ir::Value *> Work{Ptr};
  std::unordered_set<const ir::Value *> Seen{Ptr};
  auto Visit = [&](const ir::Value *V) {
    if (Seen.insert(V).second)
      Work.push_back(V);
  };
  while (!Work.empty()) {
    const ir::Value *V = Work.back();
    Work.pop_back();
    if (V->getValueKind() == ir::ValueKind::Argument) {
      const auto *A = static_cast<const ir::Argument *>(V);
      if (Base && Base != A)
        return nullptr;
      Base = A;
      continue;
    }
    if (V->getValueKind() != ir::ValueKind::Instruction)
      return nullptr;
    const auto &I = static_cast<const ir::Instruction &>(*V);
    switch (I.getOpcode()) {
    case Opcode::GEP:
    case Opcode::Splat:
    case Opcode::Broadcast:
    case Opcode::Reshape:
    case Opcode::Trans:
    case Opcode::ConvertLayout:
      Visit(I.getOperand(0));
      break;
    case Opcode::Phi:
      for (const ir::Value *In : I.operands())
        Visit(In);
      break;
    case Opcode::Select:
      Visit(I.getOperand(1));
      Visit(I.getOperand(2));
      break;
    default:
      return nullptr;
    }
  }
  return Base;
}

} // namespace tritonc::analysis
