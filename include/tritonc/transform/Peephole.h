//===- Peephole.h - Block-level and scalar peephole rewrites ---*- C++ -*-===//
//
// Local rewrites of short instruction chains. Besides the classic scalar
// ones, Triton-IR's block-level instructions expose identities that are
// invisible after lowering to scalars (thesis table 5.2):
//  - trans(trans(x))                 -> x
//  - reduce(reduce(x, a), b)         -> reduce(reshape(x, [N]), 0) when both
//    reduce with the same kind and together reduce x (2-D) to a scalar: one
//    flat reduction needs less synchronization than two nested ones. Like
//    the thesis, this regroups the combination order: for fadd the rounding
//    may differ in the last bits;
//  - reshape(reshape(x))             -> reshape(x) (or x for x's own shape)
//  - broadcast(broadcast(x))         -> broadcast(x); to x's own shape -> x
//  - broadcast/reshape/trans(splat s) -> splat s
//  - fadd(dot(a, b, 0), c)           -> dot(a, b, c) when c has the dot's type
//    (`c += a @ b` becomes one dot that accumulates in place; also add for
//    integer dots)
//  - select(c, x, x)                 -> x
//  - mul x, 2^k                      -> shl x, k (integers)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class PeepholePass : public Pass {
public:
  const char *name() const override { return "peephole"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
