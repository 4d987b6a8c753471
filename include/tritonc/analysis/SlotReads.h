//===- SlotReads.h - Whether a dot may read a local_load's slot -*- C++ -*-===//
//
// A dot whose operand is `local_load %slot` can read the slot itself (wgmma
// descriptors, ldmatrix) instead of the loaded registers, but only if the
// slot still holds what the local_load read when the dot runs. Both the
// accelerate-dot pass (transform) and the PTX lowering (codegen) ask this;
// it lives here, below both, so they ask the same question.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <string>

namespace tritonc::analysis {

/// "" when the slot Load reads still holds what it read where Dot runs;
/// else why not, in a kernel author's words: Load is in another block, or
/// a GPU-level operation with effects that may write shared memory (all
/// but barriers, proxy fences and cp.async commits) lies between them.
std::string whySlotChangedBeforeDot(const ir::Instruction &Load, const ir::Instruction &Dot);

} // namespace tritonc::analysis
