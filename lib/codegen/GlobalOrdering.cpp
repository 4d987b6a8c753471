//===- GlobalOrdering.cpp - Barriers between threads' global accesses -----===//
//
// The code generator's side of global memory ordering
// (analysis/GlobalOrdering.h): its global accesses become statements of the
// barrier check (their barriers are insert-barriers'), and loads that feed a
// dot through shared rings are copied ahead of their place (cp.async, bulk
// tensor copies), so they stay out of rings when a write that may alias them
// can run before them (mayReadProgramWrites); bulk tensor stores order
// themselves (tensorStoreIsOrdered, TensorStores.cpp).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace tritonc::codegen {

using ir::Instruction;

uint64_t FunctionLowering::globalClassOf(const ir::Value *Ptr) {
  if (!GlobalKeys)
    GlobalKeys.emplace(F);
  return GlobalKeys->classOf(Ptr);
}

void FunctionLowering::globalAccess(const ir::Value *Ptr, bool Reads, bool Writes,
                                    const LinearLayout *L, bool Thread0) {
  if (!GlobalKeys)
    GlobalKeys.emplace(F);
  addStatement(GlobalKeys->access(Ptr, Reads, Writes, L, Thread0));
}

bool FunctionLowering::mayReadProgramWrites(const Instruction &Load) {
  uint64_t Class = globalClassOf(Load.getOperand(0));
  const ir::BasicBlock *Home = Load.getParent();
  for (const auto &BB : F.blocks()) {
    for (const auto &IP : BB->instructions()) {
      const Instruction &W = *IP;
      if (!W.hasSideEffects() || W.isTerminator() || !W.accessesMemory() ||
          globalClassOf(W.getOperand(0)) != Class)
        continue;
      // W runs before Load if it comes first in Load's block, or if a path
      // leads from W's block to Load's.
      if (BB.get() == Home) {
        for (const auto &J : Home->instructions()) {
          if (J.get() == &Load)
            break;
          if (J.get() == &W)
            return true;
        }
      }
      if (BB->leadsTo(Home))
        return true;
    }
  }
  return false;
}

} // namespace tritonc::codegen
