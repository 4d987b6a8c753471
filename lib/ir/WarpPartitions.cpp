//===- WarpPartitions.cpp - The regions of a warp_specialize --------------===//
#include "tritonc/ir/WarpPartitions.h"

#include "tritonc/ir/Printer.h"

#include <unordered_map>
#include <unordered_set>

namespace tritonc::ir {

std::string checkWarpPartitions(const Instruction &Fork) {
  std::unordered_set<const BasicBlock *> Seen;
  bool Budgets = false;
  for (size_t K = 0; K < Fork.Partitions.size(); ++K) {
    const WarpPartition &P = Fork.Partitions[K];
    std::string Which = "partition " + std::to_string(K);
    if (P.Warps < 1 || P.Warps > 32)
      return Which + " has " + std::to_string(P.Warps) + " warps; a CTA has 1 to 32";
    // setmaxnreg takes 24 to 256 registers per thread, in steps of 8.
    if (P.Registers && (P.Registers < 24 || P.Registers > 256 || P.Registers % 8))
      return Which + " asks for " + std::to_string(P.Registers) +
             " registers; setmaxnreg takes a multiple of 8 from 24 to 256";
    Budgets |= P.Registers != 0;
    if (!Seen.insert(Fork.successors()[K]).second)
      return Which + " starts at a block another partition starts at";
  }
  // setmaxnreg changes the registers of whole warpgroups: with a budget,
  // each partition must be made of warpgroups.
  if (Budgets)
    for (size_t K = 0; K < Fork.Partitions.size(); ++K)
      if (Fork.Partitions[K].Warps % 4)
        return "partition " + std::to_string(K) + " has " +
               std::to_string(Fork.Partitions[K].Warps) +
               " warps; with register budgets every partition is whole warpgroups (4 warps)";
  return "";
}

std::string collectWarpRegions(const Instruction &Fork, WarpRegions &Out, const Instruction *&At) {
  At = &Fork;
  const BasicBlock *ForkBlock = Fork.getParent();
  size_t N = Fork.successors().size();
  std::unordered_map<const BasicBlock *, size_t> Owner;
  std::vector<const Instruction *> Joins;
  for (size_t K = 0; K < N; ++K) {
    std::string Which = "partition " + std::to_string(K);
    std::vector<BasicBlock *> Work{Fork.successors()[K]};
    bool Joined = false;
    while (!Work.empty()) {
      BasicBlock *BB = Work.back();
      Work.pop_back();
      if (BB == ForkBlock)
        return Which + " branches back to the warp_specialize's block (a partition ends with "
                       "warp_join)";
      auto [It, New] = Owner.insert({BB, K});
      if (!New) {
        if (It->second != K)
          return "block " + printBlockName(*BB) + " belongs to partitions " +
                 std::to_string(It->second) + " and " + std::to_string(K);
        continue;
      }
      const Instruction *T = BB->getTerminator();
      if (!T)
        return "block " + printBlockName(*BB) + " has no terminator";
      switch (T->getOpcode()) {
      case Opcode::Ret:
        At = T;
        return "ret inside " + Which + " of a warp_specialize (a partition ends with warp_join)";
      case Opcode::WarpSpecialize:
        At = T;
        return "warp_specialize inside " + Which + " of another (nesting is not supported)";
      case Opcode::WarpJoin:
        Joined = true;
        Joins.push_back(T);
        if (!Out.Join)
          Out.Join = T->successors()[0];
        if (T->successors()[0] != Out.Join) {
          At = T;
          return "the partitions of one warp_specialize must join at one block (" +
                 printBlockName(*Out.Join) + ")";
        }
        break;
      default:
        for (BasicBlock *S : T->successors())
          Work.push_back(S);
      }
    }
    if (!Joined)
      return Which + " never reaches a warp_join";
  }
  if (Owner.count(Out.Join)) {
    At = Joins.front();
    return "the join block " + printBlockName(*Out.Join) + " lies inside a partition";
  }
  if (!Out.Join->empty() && Out.Join->front()->getOpcode() == Opcode::Phi)
    return "the join block " + printBlockName(*Out.Join) +
           " starts with a phi (partitions pass values through memory)";
  // Each partition is entered only at its entry, from the fork; the join
  // block only from the partitions' warp_joins.
  Out.Partitions.assign(N, {});
  for (const auto &BB : ForkBlock->getParent()->blocks()) {
    const Instruction *T = BB->getTerminator();
    auto It = Owner.find(BB.get());
    for (BasicBlock *S : T ? T->successors() : std::vector<BasicBlock *>{}) {
      auto SIt = Owner.find(S);
      bool FromFork = BB.get() == ForkBlock && T == &Fork;
      if (SIt != Owner.end() && !FromFork && (It == Owner.end() || It->second != SIt->second)) {
        At = T;
        return "branches into partition " + std::to_string(SIt->second) +
               " of a warp_specialize from outside it";
      }
      if (SIt != Owner.end() && FromFork && S != Fork.successors()[SIt->second]) {
        At = T;
        return "warp_specialize enters a partition at a block that is not its entry";
      }
      if (S == Out.Join && (It == Owner.end() || T->getOpcode() != Opcode::WarpJoin)) {
        At = T;
        return "branches to the join block " + printBlockName(*S) +
               " of a warp_specialize (only its partitions' warp_joins may)";
      }
    }
    if (It != Owner.end() && BB.get() != Fork.successors()[It->second])
      Out.Partitions[It->second].push_back(BB.get());
  }
  for (size_t K = 0; K < N; ++K)
    Out.Partitions[K].insert(Out.Partitions[K].begin(), Fork.successors()[K]);
  return "";
}

std::string checkWarpRegions(const Function &F, const Instruction *&At) {
  std::unordered_set<const BasicBlock *> InPartition;
  for (const auto &BB : F.blocks()) {
    const Instruction *T = BB->getTerminator();
    if (!T || T->getOpcode() != Opcode::WarpSpecialize)
      continue;
    WarpRegions R;
    if (std::string Msg = collectWarpRegions(*T, R, At); !Msg.empty())
      return Msg;
    for (const auto &Blocks : R.Partitions)
      InPartition.insert(Blocks.begin(), Blocks.end());
  }
  for (const auto &BB : F.blocks()) {
    if (InPartition.count(BB.get()))
      continue;
    const Instruction *T = BB->getTerminator();
    if (T && T->getOpcode() == Opcode::WarpJoin) {
      At = T;
      return "warp_join outside the partitions of a warp_specialize";
    }
    // A per-warp arrival counts the warps of its partition.
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::MbarrierArrive && I->PerWarp) {
        At = I.get();
        return "mbarrier_arrive per_warp outside the partitions of a warp_specialize (it is one "
               "arrival per warp of its partition)";
      }
  }
  return "";
}

} // namespace tritonc::ir
