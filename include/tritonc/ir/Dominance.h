//===- Dominance.h - Dominator tree of a Triton-IR function ----*- C++ -*-===//
//
// Immediate dominators computed with the iterative algorithm of Cooper,
// Harvey and Kennedy ("A Simple, Fast Dominance Algorithm") over the reverse
// post-order of the blocks reachable from the entry. The tree is a snapshot:
// rebuild it after changing the control-flow graph. Instruction-level queries
// look at the current instruction order, so they stay valid while
// instructions are added or moved within blocks.
//
// Unreachable blocks follow LLVM's convention: every block dominates an
// unreachable block, and an unreachable block dominates no reachable one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <unordered_map>
#include <vector>

namespace tritonc::ir {

class DominatorTree {
public:
  explicit DominatorTree(const Function &F);

  /// True when every path from the entry to B goes through A (A dominates
  /// itself).
  bool dominates(const BasicBlock *A, const BasicBlock *B) const;
  /// Dominates and A != B.
  bool properlyDominates(const BasicBlock *A, const BasicBlock *B) const;
  /// True when the value of Def is available at User: Def's block properly
  /// dominates User's block, or both are in one block and Def comes first.
  /// For a phi User, ask dominatesEndOf(Def, IncomingBlock) instead.
  bool dominates(const Instruction *Def, const Instruction *User) const;
  /// True when the value of Def is available at the end of BB (what a phi
  /// operand incoming from BB needs).
  bool dominatesEndOf(const Instruction *Def, const BasicBlock *BB) const;

  /// The immediate dominator; null for the entry and unreachable blocks.
  BasicBlock *getIdom(const BasicBlock *BB) const;
  /// Blocks whose immediate dominator is BB, in reverse post-order.
  const std::vector<BasicBlock *> &getChildren(const BasicBlock *BB) const;
  bool isReachable(const BasicBlock *BB) const { return RPONumber.count(BB) != 0; }
  /// Reachable blocks in reverse post-order (the entry first; every block
  /// comes after its dominators).
  const std::vector<BasicBlock *> &reversePostOrder() const { return RPO; }
  BasicBlock *getRoot() const { return RPO.empty() ? nullptr : RPO.front(); }

private:
  std::vector<BasicBlock *> RPO;
  std::unordered_map<const BasicBlock *, unsigned> RPONumber;
  std::vector<unsigned> Idom; ///< By RPO number; the entry is its own idom.
  std::unordered_map<const BasicBlock *, std::vector<BasicBlock *>> Children;
  std::vector<BasicBlock *> NoChildren;
};

} // namespace tritonc::ir
