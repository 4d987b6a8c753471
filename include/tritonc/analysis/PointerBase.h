//===- PointerBase.h - The parameter a pointer is computed from -*- C++ -*-===//
//
// Triton-C pointers are kernel parameters moved by offsets: gep, splat,
// broadcast and reshape keep the base, and a loop-carried pointer (a phi) or
// a select has the base its inputs agree on. Codegen reads the parameter's
// attributes (restrict, eviction policy) through this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

namespace tritonc::analysis {

/// The pointer parameter that Ptr (a scalar or tile of pointers) is computed
/// from, or null when it is not one parameter's (a pointer loaded from
/// memory, made from an integer, or selected between two parameters).
const ir::Argument *pointerBase(const ir::Value *Ptr);

/// Whether memory reached through parameters A and B (pointerBase results;
/// null: unknown) may overlap: unless they are two different parameters,
/// both `restrict`. (The back end's barrier classes, GlobalOrdering.cpp,
/// take one `restrict` as enough, as LANGUAGE.md defines it.)
bool parametersMayOverlap(const ir::Argument *A, const ir::Argument *B);

} // namespace tritonc::analysis
