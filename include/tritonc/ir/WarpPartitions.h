//===- WarpPartitions.h - The regions of a warp_specialize ------*- C++ -*-===//
//
// A `warp_specialize` ends a block by splitting the CTA's warps into
// partitions; partition k runs the blocks reachable from its successor k up
// to the `warp_join`s that end it, and every partition joins at one block.
// docs/WARP-SPECIALIZATION.md states the rules this file checks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <string>
#include <vector>

namespace tritonc::ir {

/// The blocks of each partition of one warp_specialize, and where they join.
struct WarpRegions {
  /// Per partition, its blocks: the entry first, then in function order.
  std::vector<std::vector<BasicBlock *>> Partitions;
  BasicBlock *Join = nullptr;
};

/// The rules of one warp_specialize on its own (warp counts, register
/// budgets, distinct partitions); returns a message or "".
std::string checkWarpPartitions(const Instruction &Fork);

/// Collects the regions of Fork (a warp_specialize) and checks that they
/// are disjoint, entered only from Fork, free of `ret` and nested forks, and
/// joined at one block that only their warp_joins reach and that starts
/// without phis. Returns a message or ""; At is the offending instruction
/// (Fork when no other is to blame).
std::string collectWarpRegions(const Instruction &Fork, WarpRegions &Out, const Instruction *&At);

/// Checks every warp_specialize of F (collectWarpRegions) and that each
/// warp_join and each `mbarrier_arrive per_warp` belongs to one of their
/// partitions. Returns a message or "".
std::string checkWarpRegions(const Function &F, const Instruction *&At);

} // namespace tritonc::ir
