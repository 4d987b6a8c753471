//===- LICM.h - Loop-invariant code motion ---------------------*- C++ -*-===//
//
// Moves pure instructions whose operands are all defined outside a loop into
// the loop's preheader, so that they run once instead of once per iteration
// (in Triton-C kernels: splats, ranges and address arithmetic that IRGen
// emits inside the K loop). Loops are processed innermost first, so an
// instruction invariant in several nested loops climbs to the outermost
// preheader. A preheader is created where a loop has none.
//
// Memory operations and atomics are never moved (a store in the loop could
// change what a load reads), and integer division only when its divisor is a
// nonzero constant: the preheader runs even when the loop body would not, so
// moved code must not be able to fail.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class Loop;

class LICMPass : public Pass {
public:
  const char *name() const override { return "licm"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

/// Gives L a preheader: a new block, placed before the header, that the
/// header's outside predecessors branch to and that branches to the header;
/// the header's phis take the values from outside through it. Returns the
/// new block, or null when the header has no outside predecessor (the entry
/// block). Invalidates the dominator tree and loop info of the function.
ir::BasicBlock *insertPreheader(const Loop &L);

} // namespace tritonc::transform
