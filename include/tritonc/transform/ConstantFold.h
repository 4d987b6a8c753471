//===- ConstantFold.h - Constant folding and algebraic identities -*- C++ -*-===//
//
// Folds, in reverse post-order until nothing changes:
//  - element-wise instructions (arithmetic, comparisons, casts, select) whose
//    operands are scalar constants, or splats of scalar constants (the result
//    becomes a splat of the folded constant), with the exact semantics of
//    docs/IR.md (ConstantEval.h);
//  - select on a constant condition, and shape operations (broadcast,
//    reshape, trans) and reductions of constant splats;
//  - identities that hold bit for bit: x+0, x-0, x*1, x/1, x|0, x^0, x&-1,
//    shifts by 0, x&x, x|x, min/max(x,x), and for integers x*0, x&0, x-x,
//    x^x; for floats only x+(-0.0), x-(+0.0), x*1.0, x/1.0;
//  - cond_br on a constant (or with equal successors) becomes br; the phis of
//    the successor no longer reached lose their entry for this block.
// Blocks left unreachable are removed by dce.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class ConstantFoldPass : public Pass {
public:
  const char *name() const override { return "constfold"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

/// A simpler value equal to I (a constant, a splat of one, or one of I's
/// operands), or null. New splats are inserted before I; I is not changed.
ir::Value *foldInstruction(ir::Instruction &I);

} // namespace tritonc::transform
