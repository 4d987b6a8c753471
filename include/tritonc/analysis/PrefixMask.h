//===- PrefixMask.h - Masks true on a prefix of every vector -----*- C++ -*-===//
//
// cp.async copies a vector of 4, 8 or 16 bytes under one source size: it
// reads the first SrcSize bytes and zero-fills the rest. A mask that changes
// within a vector can still be copied that way where it is true on a prefix
// of each vector: `k < K` along K, with K not known to be a multiple of the
// vector, is true on elements k0 .. K-1 of the vector k0 .. k0+V-1. This
// proves that form on the IR (the element mask stays the operation's
// meaning; the interpreter zero-fills element by element), for the layout
// assignment, which then plans cp_async's vectors past the mask's constancy,
// and for the lowering, which computes the source size from the bound.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/IR.h"

#include <optional>
#include <vector>

namespace tritonc::analysis {

/// A mask that, along dimension Dim, is true on a prefix of every aligned
/// run of Run elements: its one conjunct that may change within a run is
/// `Index < Bound` or `Index <= Bound` (also written `Bound > Index`,
/// `Bound >= Index`; signed or unsigned, of i32 or i64), where Index goes up
/// by one from element to element of a run (axis-info contiguity) and Bound
/// is constant over it; the other conjuncts (`and`ed, through `broadcast`
/// and `convert_layout`) are constant over a run. At the run's first element
/// k0 the mask is then true exactly where the run has elements to copy, and
/// they number min(Bound - Index(k0), Run) (Inclusive: one more, as far as
/// the run reaches).
struct PrefixMask {
  /// The comparison; Index and Bound are its operands.
  const ir::Instruction *Compare = nullptr;
  const ir::Value *Index = nullptr;
  const ir::Value *Bound = nullptr;
  /// `<=` rather than `<`.
  bool Inclusive = false;
  /// The instructions from the mask down to Compare's user (`and`,
  /// `broadcast`, `convert_layout`), the mask first: the lowering follows
  /// them to hold Index and Bound in the registers of the mask's elements.
  std::vector<const ir::Instruction *> Path;
  /// The longest aligned run (a power of two) the proof holds for.
  int64_t Run = 1;
};

/// Mask (an i1 tile) as a prefix mask along Dim, or nothing where no
/// conjunct of that form is found or the mask's constancy already covers
/// the longer run (the mask is then one bit per vector).
std::optional<PrefixMask> findPrefixMask(const ir::Value *Mask, unsigned Dim,
                                         const AxisInfoAnalysis &AI);

} // namespace tritonc::analysis
