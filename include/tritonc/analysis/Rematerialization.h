//===- Rematerialization.h - Tile values recomputed where they are read -*- C++ -*-===//
//
// Which tile values the lowering computes again in each layout a use reads
// them in instead of moving them between threads: make_range and splat,
// relabelings (reshape, broadcast, trans) of such values or of loop-carried
// integer and pointer phis, and cheap element-wise index arithmetic on them
// (rematerializable); and index arithmetic through divisions of those, at
// most MaxRecomputeSteps deep, which a use in another layout may compute
// again (recomputable). LayoutAssignment follows these rules, and
// LoweringAccesses (which predicts the lowering's shared-memory traffic)
// asks them too.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <map>

namespace tritonc::analysis {

/// Element-wise integer, pointer or boolean arithmetic (divisions included):
/// index computations, whose layout their uses may as well decide.
bool isIndexArithmetic(const ir::Instruction &I);

class Rematerialization {
public:
  Rematerialization() = default;
  /// Over the function Dom is the dominator tree of.
  explicit Rematerialization(const ir::DominatorTree &Dom);

  /// True for tile values recomputed at each use.
  bool isRematerializable(const ir::Value *V) const;
  /// True for index arithmetic that has a layout but is computed from
  /// rematerializable values alone, through divisions (`rm / Q`, `rm % Q`,
  /// and what is computed from those, at most MaxRecomputeSteps deep).
  bool isRecomputable(const ir::Value *V) const;
  /// Rematerializable, or an integer/pointer phi.
  bool isRematSource(const ir::Value *V) const;

  static constexpr unsigned MaxRecomputeSteps = 8;

private:
  std::map<const ir::Value *, bool> Remat;
  /// Recomputable values and the length of the longest chain of them that
  /// each ends.
  std::map<const ir::Value *, unsigned> RecomputeSteps;
};

} // namespace tritonc::analysis
