//===- SimplifyCFG.h - Straightens small conditional regions ---*- C++ -*-===//
//
// Two conservative control-flow simplifications, repeated until nothing
// changes:
//
//  1. Speculation of small conditional blocks. A triangle
//       BB: cond_br %c, ^then, ^join     then: <pure code>; br ^join
//     or a diamond (both sides pure, single-predecessor blocks branching to
//     one join block) becomes straight-line code in BB: the pure code of the
//     sides moves into BB and every phi of the join that distinguished the
//     paths takes `select %c, ...` (a scalar i1 condition selects whole
//     tiles). Only instructions that may run where they did not run before
//     (isSafeToSpeculate: no memory access, no division by a possibly-zero
//     value) qualify, and each side holds at most a few of them, because the
//     speculated code then runs on every path.
//  2. Merging of a block into its unique predecessor when that predecessor
//     has it as its only successor.
//
// Triton-C's `&&` and `||` produce such regions inside loop bodies (the
// bounds checks of the seed matmul's prefetch); after this pass those bodies
// are one block, which is the shape the loop pipeliner handles.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class SimplifyCFGPass : public Pass {
public:
  const char *name() const override { return "simplifycfg"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

/// The most instructions (terminator excluded) one side of a triangle or
/// diamond may hold and still be speculated.
inline constexpr unsigned MaxSpeculatedInstructions = 16;

} // namespace tritonc::transform
