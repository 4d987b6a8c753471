//===- Coalesce.h - Global accesses in the layouts their pointers ask for -*- C++ -*-===//
//
// Registered as "coalesce"; in the GPU back end it runs right before
// `assign-layouts` (AssignLayouts.h), which propagates from what it writes.
// For every global load, store, atomic and cp_async of a tile it writes the
// layout in which the access touches memory (analysis::LayoutAssignment's
// access plan: threads ordered by the pointers' contiguity from the axis
// info, 16-byte vectors where contiguity, alignment and the mask's constancy
// allow, a copy between element widths at the longer run) into the IR:
//
//   %p.1 = convert_layout %p : f32*<64,64, #blocked0>   (pointer, mask,
//   %m.1 = convert_layout %m : i1<64,64, #blocked0>      other, stored value)
//   %x = load %p.1, ... : f32<64,64, #blocked0>
//   %x.1 = convert_layout %x : f32<64,64>               (for layout-free users)
//
// so that the access is an anchor: its operands and its result are in its
// layout. assign-layouts then gives the operands that layout where they are
// computed and removes the conversions that turn out to change nothing. An
// access whose pointer is a scalar is left alone.
//
// Like assign-layouts, it needs tile dimensions that are powers of two and
// otherwise leaves the function unchanged with a remark.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class CoalescePass : public Pass {
public:
  CoalescePass() = default;
  explicit CoalescePass(AssignLayoutsTarget Target) : Target(Target) {}
  const char *name() const override { return "coalesce"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  AssignLayoutsTarget Target;
};

} // namespace tritonc::transform
