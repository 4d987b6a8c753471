//===- CSE.h - Common subexpression elimination ----------------*- C++ -*-===//
//
// Walks the dominator tree keeping a scoped table of the pure instructions
// (Utils.h: isPure) seen on the path from the entry. An instruction equal to
// one in the table (same opcode, result type, operands and attributes; the
// operands of commutative operations compared as a set) is replaced by it:
// the earlier one dominates it, so its value is available. Memory operations
// are never merged: a store in between could change what a load reads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class CSEPass : public Pass {
public:
  const char *name() const override { return "cse"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
