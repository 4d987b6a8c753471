//===- LayoutAttributes.h - Linear layouts of IR layout attributes -*- C++ -*-===//
//
// Connects the layout attributes of GPU-level Triton-IR (ir/Layout.h) to the
// layout algebra (LinearLayout.h), so that passes reason about layouts with
// one set of equations: a distributed attribute on a tile becomes a map from
// (register, lane, warp) to tile coordinates, a #shared attribute on a
// shared buffer a map from the element offset within one slot to slot
// coordinates.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/LinearLayout.h"
#include "tritonc/ir/Type.h"

#include <optional>
#include <string>

namespace tritonc::analysis {

/// The linear layout of attribute L on a tile (or slot) of shape Shape with
/// elements of ElemBits bits (hardware swizzle modes and dot operands depend
/// on it). nullopt, with the reason in *Why, when a shape is not a power of
/// two, the shape does not fit the attribute's instruction tiles, or the
/// attribute has no fixed linear form (#dot_op of a #blocked parent).
std::optional<LinearLayout> toLinearLayout(const ir::Layout &L, const std::vector<int64_t> &Shape,
                                           unsigned ElemBits, std::string *Why = nullptr);
/// The same for the layout a tile or shared buffer type carries (nullopt
/// when it carries none).
std::optional<LinearLayout> toLinearLayout(const ir::Type *T, std::string *Why = nullptr);

} // namespace tritonc::analysis
