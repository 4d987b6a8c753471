//===- GlobalOrdering.cpp - Barriers between threads' global accesses -----===//
//
// The code generator's side of global memory ordering
// (analysis/GlobalOrdering.h): its global accesses become statements of the
// barrier check (their barriers are insert-barriers').
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

namespace tritonc::codegen {

using ir::Instruction;

void FunctionLowering::globalAccess(const ir::Value *Ptr, bool Reads, bool Writes,
                                    const LinearLayout *L, bool Thread0) {
  if (!GlobalKeys)
    GlobalKeys.emplace(F);
  addStatement(GlobalKeys->access(Ptr, Reads, Writes, L, Thread0));
}

} // namespace tritonc::codegen
