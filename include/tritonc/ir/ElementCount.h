//===- ElementCount.h - Overflow-safe tile sizes ----------------*- C++ -*-===//
#pragma once

#include "tritonc/ir/Type.h"

#include <cstdint>

namespace tritonc::ir {

/// The product of the dimensions of S (1 for a scalar), saturated at
/// INT64_MAX so that a shape whose count would wrap (to 16, or to 0) is
/// seen as too large by every size check; 0 when a dimension is not
/// positive. Type::getNumElements is this for a tile's shape.
int64_t saturatedElementCount(const Shape &S);

} // namespace tritonc::ir
