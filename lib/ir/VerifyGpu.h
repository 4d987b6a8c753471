//===- VerifyGpu.h - Type rules of GPU-level Triton-IR ----------*- C++ -*-===//
#pragma once

#include "tritonc/ir/IR.h"

#include <string>

namespace tritonc::ir {

/// The operand and type rules of a GPU-category instruction (docs/IR.md,
/// "GPU level"); returns a message or "".
std::string checkGpuTypes(const Instruction &I);
/// Layout rules of machine-independent operations whose operands' layouts
/// relate to the result's other than by equality (broadcast, dot); "" if
/// they hold.
std::string checkLayoutsOfOperation(const Instruction &I);

} // namespace tritonc::ir
