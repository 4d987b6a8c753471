//===- LoopInfo.cpp - Natural loops from back edges -----------------------===//
#include "tritonc/transform/LoopInfo.h"

#include "tritonc/transform/PassManager.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <unordered_map>

namespace tritonc::transform {

using namespace ir;

unsigned Loop::getDepth() const {
  unsigned D = 1;
  for (Loop *P = Parent; P; P = P->Parent)
    ++D;
  return D;
}

std::vector<BasicBlock *> Loop::getLatches() const {
  std::vector<BasicBlock *> Latches;
  for (BasicBlock *P : Header->predecessors())
    if (contains(P))
      Latches.push_back(P);
  return Latches;
}

std::vector<BasicBlock *> Loop::getOutsidePredecessors() const {
  std::vector<BasicBlock *> Outside;
  for (BasicBlock *P : Header->predecessors())
    if (!contains(P))
      Outside.push_back(P);
  return Outside;
}

BasicBlock *Loop::getPreheader() const {
  std::vector<BasicBlock *> Outside = getOutsidePredecessors();
  if (Outside.size() != 1)
    return nullptr;
  std::vector<BasicBlock *> Succs = Outside[0]->successors();
  if (Succs.size() != 1 || Succs[0] != Header)
    return nullptr;
  return Outside[0];
}

LoopInfo::LoopInfo(const Function &F, const DominatorTree &DT) { compute(F, DT); }

LoopInfo::LoopInfo(const Function &F, AnalysisManager &AM) { compute(F, AM.get<DominatorTree>(F)); }

void LoopInfo::compute(const Function &F, const DominatorTree &DT) {
  std::vector<BasicBlock *> RPO = reversePostOrder(F);
  std::set<const BasicBlock *> Reachable(RPO.begin(), RPO.end());
  // Predecessors once for the whole function: BasicBlock::predecessors
  // scans every block, which made this quadratic (thousands of ifs).
  std::unordered_map<const BasicBlock *, std::vector<BasicBlock *>> Preds;
  for (auto &BB : F.blocks())
    for (BasicBlock *S : BB->successors()) {
      std::vector<BasicBlock *> &P = Preds[S];
      if (std::find(P.begin(), P.end(), BB.get()) == P.end())
        P.push_back(BB.get());
    }

  // One loop per header, visited in RPO so that outer headers come first.
  for (BasicBlock *H : RPO) {
    std::vector<BasicBlock *> BackEdgeSources;
    for (BasicBlock *P : Preds[H])
      if (Reachable.count(P) && DT.dominates(H, P))
        BackEdgeSources.push_back(P);
    if (BackEdgeSources.empty())
      continue;

    auto L = std::make_unique<Loop>();
    L->Header = H;
    L->BlockSet.insert(H);
    // Walk backwards from the latches; the header stops the walk.
    std::vector<BasicBlock *> Worklist = BackEdgeSources;
    while (!Worklist.empty()) {
      BasicBlock *BB = Worklist.back();
      Worklist.pop_back();
      if (!L->BlockSet.insert(BB).second)
        continue;
      for (BasicBlock *P : Preds[BB])
        if (Reachable.count(P))
          Worklist.push_back(P);
    }
    L->Blocks.push_back(H);
    for (auto &BB : F.blocks())
      if (BB.get() != H && L->BlockSet.count(BB.get()))
        L->Blocks.push_back(BB.get());
    Loops.push_back(std::move(L));
  }

  // Nesting: the parent is the smallest other loop containing the header.
  // Loops with the same size cannot contain each other's headers (headers
  // are distinct, and a loop containing another contains all its blocks).
  for (auto &L : Loops) {
    Loop *Best = nullptr;
    for (auto &Other : Loops)
      if (Other.get() != L.get() && Other->contains(L->Header) &&
          Other->Blocks.size() > L->Blocks.size() &&
          (!Best || Other->Blocks.size() < Best->Blocks.size()))
        Best = Other.get();
    L->Parent = Best;
    if (Best)
      Best->SubLoops.push_back(L.get());
    else
      TopLevel.push_back(L.get());
  }

  // Innermost loop of each block: the containing loop of greatest depth.
  for (auto &L : Loops)
    for (BasicBlock *BB : L->Blocks) {
      Loop *&Slot = Innermost[BB];
      if (!Slot || L->getDepth() > Slot->getDepth())
        Slot = L.get();
    }
}

Loop *LoopInfo::getLoopFor(const BasicBlock *BB) const {
  auto It = Innermost.find(BB);
  return It == Innermost.end() ? nullptr : It->second;
}

std::vector<Loop *> LoopInfo::loopsInnermostFirst() const {
  std::vector<Loop *> Order;
  // Post-order over the loop tree.
  std::vector<std::pair<Loop *, size_t>> Stack;
  for (Loop *Top : TopLevel) {
    Stack.push_back({Top, 0});
    while (!Stack.empty()) {
      auto &[L, Next] = Stack.back();
      if (Next < L->SubLoops.size()) {
        Loop *Child = L->SubLoops[Next++];
        Stack.push_back({Child, 0});
        continue;
      }
      Order.push_back(L);
      Stack.pop_back();
    }
  }
  return Order;
}

} // namespace tritonc::transform
