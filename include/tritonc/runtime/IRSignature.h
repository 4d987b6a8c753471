//===- IRSignature.h - Kernel signatures from Triton-IR ---------*- C++ -*-===//
#pragma once

#include "tritonc/ir/IR.h"
#include "tritonc/runtime/KernelSignature.h"

namespace tritonc::runtime {

/// The launch signature of a Triton-IR kernel: one parameter per argument,
/// named after the IR argument. Scalars map to their kind (i1..i64, f16,
/// bf16, f32, f64), pointers to Pointer. Fails for tile parameters and for
/// a non-void return type, which no kernel entry can have.
Expected<KernelSignature> signatureFromIR(const ir::Function &F);

/// The kind that carries values of scalar type T, or an error naming T.
Expected<ArgKind> argKindFromIR(const ir::Type *T);

} // namespace tritonc::runtime
