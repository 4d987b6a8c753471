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

#include <map>
#include <optional>
#include <string>
#include <vector>

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

/// Whether two distributed layouts are the same map: the same tile and the
/// same image of every register, lane and warp bit (a missing input
/// dimension has no bits).
bool sameLayout(const LinearLayout &A, const LinearLayout &B);

/// The other direction: names linear layouts with attributes, for passes
/// that write layouts into the IR. A name is the first hint that describes
/// the layout exactly, else the name given to an equal layout before, else
/// a #blocked (any dimension order) or a #slice of a layout named before
/// that describes it exactly, else #linear with the layout's bases. Equal
/// layouts get equal names unless a hint says otherwise, so element-wise
/// operands and results agree.
class LayoutNamer {
public:
  const ir::Layout *name(const LinearLayout &L, const std::vector<int64_t> &Shape,
                         const std::vector<const ir::Layout *> &Hints = {});

private:
  const ir::Layout *remember(const LinearLayout &L, const ir::Layout *Name);
  std::map<std::string, const ir::Layout *> Known;
};

/// The bytes between two slots of a shared buffer type in the GPU's shared
/// memory: a slot's elements rounded up to 1024 bytes (the repeat of the
/// hardware swizzle atoms, which wgmma descriptors address from 1024-aligned
/// bases) for a swizzled layout, else to 16 bytes.
uint64_t sharedSlotStride(const ir::Type *Buffer);
/// The bytes a shared buffer occupies: its slots times sharedSlotStride.
uint64_t sharedBufferBytes(const ir::Type *Buffer);

} // namespace tritonc::analysis
