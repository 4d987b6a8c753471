//===- SlotReads.cpp - Whether a dot may read a local_load's slot ---------===//
//
// See SlotReads.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/SlotReads.h"

namespace tritonc::analysis {

using ir::Opcode;

std::string whySlotChangedBeforeDot(const ir::Instruction &Load, const ir::Instruction &Dot) {
  if (Load.getParent() != Dot.getParent())
    return "the local_load is in another block than the dot";
  bool Between = false;
  for (const auto &IP : Dot.getParent()->instructions()) {
    if (IP.get() == &Dot)
      break;
    if (IP.get() == &Load) {
      Between = true;
      continue;
    }
    Opcode Op = IP->getOpcode();
    // Any GPU-level operation with effects may write shared memory but for
    // the ordering ones.
    if (Between && IP->getCategory() == ir::OpCategory::Gpu && IP->hasSideEffects() &&
        Op != Opcode::Barrier && Op != Opcode::FenceProxyAsync &&
        Op != Opcode::FenceProxyAsyncGlobal && Op != Opcode::CpAsyncCommit)
      return std::string("a ") + ir::opcodeName(Op) +
             " between the local_load and the dot may change the slot";
  }
  return "";
}

} // namespace tritonc::analysis
