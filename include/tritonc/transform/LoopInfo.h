//===- LoopInfo.h - Natural loops of a function ----------------*- C++ -*-===//
//
// A back edge is an edge B -> H whose target H dominates its source B. The
// natural loop of H is H plus every block that reaches a back-edge source
// without passing through H; back edges to the same header form one loop.
// Loops nest: a loop's parent is the smallest other loop containing its
// header. Only blocks reachable from the entry belong to loops.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <map>
#include <memory>
#include <set>
#include <vector>

namespace tritonc::transform {

class AnalysisManager;

class Loop {
public:
  ir::BasicBlock *getHeader() const { return Header; }
  /// The loop's blocks (header first, then in function order), including
  /// the blocks of nested loops.
  const std::vector<ir::BasicBlock *> &blocks() const { return Blocks; }
  bool contains(const ir::BasicBlock *BB) const { return BlockSet.count(BB) != 0; }
  bool contains(const ir::Instruction *I) const { return contains(I->getParent()); }
  /// The enclosing loop, or null for an outermost loop.
  Loop *getParentLoop() const { return Parent; }
  const std::vector<Loop *> &subLoops() const { return SubLoops; }
  /// 1 for outermost loops.
  unsigned getDepth() const;
  /// Blocks of the loop with an edge to the header.
  std::vector<ir::BasicBlock *> getLatches() const;
  /// Predecessors of the header outside the loop.
  std::vector<ir::BasicBlock *> getOutsidePredecessors() const;
  /// The unique outside predecessor of the header when that block has the
  /// header as its only successor (code placed there runs exactly once before
  /// the loop is entered); null otherwise.
  ir::BasicBlock *getPreheader() const;

private:
  friend class LoopInfo;
  ir::BasicBlock *Header = nullptr;
  std::vector<ir::BasicBlock *> Blocks;
  std::set<const ir::BasicBlock *> BlockSet;
  Loop *Parent = nullptr;
  std::vector<Loop *> SubLoops;
};

class LoopInfo {
public:
  LoopInfo(const ir::Function &F, const ir::DominatorTree &DT);
  /// Analysis-manager constructor: fetches the dominator tree from AM.
  LoopInfo(const ir::Function &F, AnalysisManager &AM);

  /// Outermost loops, in the function order of their headers.
  const std::vector<Loop *> &topLevelLoops() const { return TopLevel; }
  /// The innermost loop containing BB, or null.
  Loop *getLoopFor(const ir::BasicBlock *BB) const;
  /// Every loop, inner loops before the loops containing them.
  std::vector<Loop *> loopsInnermostFirst() const;
  bool empty() const { return Loops.empty(); }

private:
  void compute(const ir::Function &F, const ir::DominatorTree &DT);
  std::vector<std::unique_ptr<Loop>> Loops;
  std::vector<Loop *> TopLevel;
  std::map<const ir::BasicBlock *, Loop *> Innermost;
};

} // namespace tritonc::transform
