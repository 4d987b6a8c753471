//===- Dominance.cpp - Cooper-Harvey-Kennedy dominator tree ---------------===//
#include "tritonc/ir/Dominance.h"

#include <unordered_set>

namespace tritonc::ir {

DominatorTree::DominatorTree(const Function &F) {
  BasicBlock *Entry = F.getEntryBlock();
  if (!Entry)
    return;

  // Iterative depth-first search for the post-order (kernels can have deep
  // chains of blocks, so no recursion).
  std::vector<BasicBlock *> PostOrder;
  std::unordered_set<const BasicBlock *> Visited;
  std::vector<std::pair<BasicBlock *, size_t>> Stack;
  std::unordered_map<const BasicBlock *, std::vector<BasicBlock *>> Succs;
  auto SuccsOf = [&](BasicBlock *BB) -> const std::vector<BasicBlock *> & {
    auto It = Succs.find(BB);
    if (It == Succs.end())
      It = Succs.emplace(BB, BB->successors()).first;
    return It->second;
  };
  Visited.insert(Entry);
  Stack.push_back({Entry, 0});
  while (!Stack.empty()) {
    auto &[BB, Next] = Stack.back();
    const std::vector<BasicBlock *> &S = SuccsOf(BB);
    if (Next < S.size()) {
      BasicBlock *Succ = S[Next++];
      // Successors outside the function are the verifier's business.
      if (Succ && Succ->getParent() == &F && Visited.insert(Succ).second)
        Stack.push_back({Succ, 0});
      continue;
    }
    PostOrder.push_back(BB);
    Stack.pop_back();
  }
  RPO.assign(PostOrder.rbegin(), PostOrder.rend());
  for (unsigned I = 0; I < RPO.size(); ++I)
    RPONumber[RPO[I]] = I;

  // Predecessors restricted to reachable blocks, by RPO number.
  std::vector<std::vector<unsigned>> Preds(RPO.size());
  for (unsigned I = 0; I < RPO.size(); ++I)
    for (BasicBlock *S : SuccsOf(RPO[I])) {
      auto It = RPONumber.find(S);
      if (It != RPONumber.end())
        Preds[It->second].push_back(I);
    }

  const unsigned Undefined = ~0u;
  Idom.assign(RPO.size(), Undefined);
  Idom[0] = 0;
  auto Intersect = [&](unsigned A, unsigned B) {
    while (A != B) {
      while (A > B)
        A = Idom[A];
      while (B > A)
        B = Idom[B];
    }
    return A;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned I = 1; I < RPO.size(); ++I) {
      unsigned NewIdom = Undefined;
      for (unsigned P : Preds[I]) {
        if (Idom[P] == Undefined)
          continue;
        NewIdom = NewIdom == Undefined ? P : Intersect(P, NewIdom);
      }
      if (NewIdom != Idom[I]) {
        Idom[I] = NewIdom;
        Changed = true;
      }
    }
  }
  for (unsigned I = 1; I < RPO.size(); ++I)
    Children[RPO[Idom[I]]].push_back(RPO[I]);
}

bool DominatorTree::dominates(const BasicBlock *A, const BasicBlock *B) const {
  auto BI = RPONumber.find(B);
  if (BI == RPONumber.end())
    return true;
  auto AI = RPONumber.find(A);
  if (AI == RPONumber.end())
    return false;
  // Walk up from B: idoms have smaller RPO numbers.
  unsigned Target = AI->second, Cur = BI->second;
  while (Cur > Target)
    Cur = Idom[Cur];
  return Cur == Target;
}

bool DominatorTree::properlyDominates(const BasicBlock *A, const BasicBlock *B) const {
  return A != B && dominates(A, B);
}

bool DominatorTree::dominates(const Instruction *Def, const Instruction *User) const {
  const BasicBlock *DB = Def->getParent(), *UB = User->getParent();
  if (DB != UB)
    return dominates(DB, UB);
  if (Def == User)
    return false;
  for (auto &I : DB->instructions()) {
    if (I.get() == Def)
      return true;
    if (I.get() == User)
      return false;
  }
  return false;
}

bool DominatorTree::dominatesEndOf(const Instruction *Def, const BasicBlock *BB) const {
  return dominates(Def->getParent(), BB);
}

BasicBlock *DominatorTree::getIdom(const BasicBlock *BB) const {
  auto It = RPONumber.find(BB);
  if (It == RPONumber.end() || It->second == 0)
    return nullptr;
  return RPO[Idom[It->second]];
}

const std::vector<BasicBlock *> &DominatorTree::getChildren(const BasicBlock *BB) const {
  auto It = Children.find(BB);
  return It == Children.end() ? NoChildren : It->second;
}

} // namespace tritonc::ir
