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

/// The bytes between two slots of a shared buffer type in the GPU's shared
/// memory: a slot's elements rounded up to 1024 bytes (the repeat of the
/// hardware swizzle atoms, which wgmma descriptors address from 1024-aligned
/// bases) for a swizzled layout, else to 16 bytes.
uint64_t sharedSlotStride(const ir::Type *Buffer);
/// The bytes a shared buffer occupies: its slots times sharedSlotStride.
uint64_t sharedBufferBytes(const ir::Type *Buffer);

} // namespace tritonc::analysis
