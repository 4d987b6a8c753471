//===- DCE.h - Dead code elimination ---------------------------*- C++ -*-===//
//
// Removes (1) blocks unreachable from the entry, dropping their entries from
// the phis of reachable successors and replacing phis left with a single
// distinct incoming value by that value, and (2) every instruction that has
// no side effects and whose result is not needed by an instruction with side
// effects. (2) is a mark-and-sweep from the side-effecting instructions, so
// cycles of phis and arithmetic that only feed each other disappear too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class DCEPass : public Pass {
public:
  const char *name() const override { return "dce"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

/// Removes the blocks of F unreachable from its entry (fixing the phis of
/// their reachable successors). Returns true if any block was removed.
bool removeUnreachableBlocks(ir::Function &F);

} // namespace tritonc::transform
