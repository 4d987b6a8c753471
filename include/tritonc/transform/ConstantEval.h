//===- ConstantEval.h - Evaluates instructions on scalar constants -*- C++ -*-===//
//
// The arithmetic of docs/IR.md on compile-time constants, used by constant
// folding. Results must be bit-identical to what the interpreter computes at
// run time, so evaluation declines (returns null) whenever it is not sure:
// division or remainder by zero, signed division overflow, undef operands,
// transcendental functions (whose last-bit accuracy differs between the host
// libm and the GPU) and conversions that would round twice.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <vector>

namespace tritonc::ir {
class Module;
}

namespace tritonc::transform {

/// Evaluates the element-wise instruction I (binary, unary, fma, cmp, cast
/// or select) on scalar constant operands Ops (one per operand of I, in
/// order) and returns the scalar result of I's element type, or null when it
/// cannot (or must not) be folded. I's operands themselves are not read, only
/// its opcode, attributes and types.
ir::Constant *evaluateScalar(ir::Module &M, const ir::Instruction &I,
                             const std::vector<ir::Constant *> &Ops);

/// The integer C as the unsigned number of its width (i32 -1 -> 0xffffffff).
uint64_t asUnsigned(const ir::Constant &C);
/// The integer C as a signed number of its width (i1 1 -> -1).
int64_t asSigned(const ir::Constant &C);

} // namespace tritonc::transform
