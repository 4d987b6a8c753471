//===- AllocateShared.cpp - Shared-memory offsets over buffer live ranges --===//
//
// See AllocateShared.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AllocateShared.h"

#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/analysis/SharedMemoryAllocator.h"
#include "tritonc/ir/WarpPartitions.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

#include <algorithm>
#include <map>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

constexpr uint64_t BufferAlignment = 1024;

/// Linear program points: the instructions of a reverse post-order in
/// which every loop's blocks are contiguous, numbered, and each loop's
/// [first, last + 1) range (and each warp_specialize's: its partitions').
struct ProgramPoints {
  std::map<const Instruction *, uint64_t> Of;
  std::vector<const Instruction *> InOrder;
  std::vector<const BasicBlock *> Blocks;
  std::vector<std::pair<uint64_t, uint64_t>> LoopRanges;

  ProgramPoints(const Function &F, const LoopInfo &LI) {
    std::map<const BasicBlock *, std::pair<uint64_t, uint64_t>> BlockRange;
    for (const BasicBlock *BB : loopContiguousOrder(F, LI)) {
      uint64_t Begin = InOrder.size();
      for (const auto &I : BB->instructions()) {
        Of[I.get()] = InOrder.size();
        InOrder.push_back(I.get());
      }
      BlockRange[BB] = {Begin, InOrder.size()};
      Blocks.push_back(BB);
    }
    for (const Loop *L : LI.loopsInnermostFirst()) {
      std::pair<uint64_t, uint64_t> Range{UINT64_MAX, 0};
      for (const BasicBlock *BB : L->blocks()) {
        auto It = BlockRange.find(BB);
        if (It == BlockRange.end()) // unreachable
          continue;
        Range = {std::min(Range.first, It->second.first),
                 std::max(Range.second, It->second.second)};
      }
      if (Range.first < Range.second)
        LoopRanges.push_back(Range);
    }
    // The partitions of a warp_specialize run at the same time: a buffer
    // one of them uses is live over all of them, as over a loop.
    for (const BasicBlock *BB : Blocks) {
      const Instruction *Fork = BB->getTerminator();
      WarpRegions Regions;
      const Instruction *At = nullptr;
      if (!Fork || Fork->getOpcode() != Opcode::WarpSpecialize ||
          !collectWarpRegions(*Fork, Regions, At).empty())
        continue;
      std::pair<uint64_t, uint64_t> Range{UINT64_MAX, 0};
      for (const auto &Partition : Regions.Partitions)
        for (const BasicBlock *Member : Partition)
          if (auto It = BlockRange.find(Member); It != BlockRange.end())
            Range = {std::min(Range.first, It->second.first),
                     std::max(Range.second, It->second.second)};
      if (Range.first < Range.second)
        LoopRanges.push_back(Range);
    }
  }

private:
  /// A depth-first search that visits a block's successors outside its
  /// innermost loop before those inside: the exits finish first, so in
  /// reverse post-order they follow the loop instead of splitting it.
  static std::vector<const BasicBlock *> loopContiguousOrder(const Function &F,
                                                             const LoopInfo &LI) {
    std::vector<const BasicBlock *> PostOrder;
    std::set<const BasicBlock *> Seen;
    auto SuccessorsInVisitOrder = [&](const BasicBlock *BB) {
      std::vector<const BasicBlock *> Out, In;
      const Loop *L = LI.getLoopFor(BB);
      for (const BasicBlock *S : BB->successors())
        (L && L->contains(S) ? In : Out).push_back(S);
      Out.insert(Out.end(), In.begin(), In.end());
      return Out;
    };
    std::vector<std::pair<const BasicBlock *, std::vector<const BasicBlock *>>> Stack;
    const BasicBlock *Entry = F.getEntryBlock();
    Seen.insert(Entry);
    Stack.push_back({Entry, SuccessorsInVisitOrder(Entry)});
    while (!Stack.empty()) {
      auto &[BB, Next] = Stack.back();
      if (Next.empty()) {
        PostOrder.push_back(BB);
        Stack.pop_back();
        continue;
      }
      const BasicBlock *S = Next.front();
      Next.erase(Next.begin());
      if (Seen.insert(S).second)
        Stack.push_back({S, SuccessorsInVisitOrder(S)});
    }
    return {PostOrder.rbegin(), PostOrder.rend()};
  }
};

/// Whether an instruction writes (cp_async, tma_load) or reads (wgmma,
/// tma_store) its shared operands after it has executed, and which wait
/// retires all such operations (a tma_load's: mbarrier waits on its
/// mbarrier).
std::optional<Opcode> asyncRetiredBy(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::CpAsync:
    return Opcode::CpAsyncWait;
  case Opcode::Wgmma:
    return Opcode::WgmmaWait;
  case Opcode::TmaStore:
    return Opcode::TmaStoreWait;
  case Opcode::TmaLoad:
    return Opcode::MbarrierWait;
  default:
    return std::nullopt;
  }
}

/// The smem_alloc a shared value (a buffer or a slot of one) is part of.
const Value *bufferOf(const Value *V) {
  while (const Instruction *I = asInstruction(const_cast<Value *>(V))) {
    if (I->getOpcode() != Opcode::SmemSlot)
      break;
    V = I->getOperand(0);
  }
  return V;
}

bool isSharedValue(const Value *V) { return V->getType()->isSharedBuffer(); }

class SharedAllocator {
public:
  SharedAllocator(const Function &F, const LoopInfo &LI) : Points(F, LI) {}

  bool run() {
    std::vector<Instruction *> Allocs;
    for (const BasicBlock *BB : Points.Blocks)
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::SmemAlloc)
          Allocs.push_back(I.get());
    if (Allocs.empty())
      return false;
    std::vector<analysis::SharedBuffer> Buffers;
    for (unsigned K = 0; K < Allocs.size(); ++K) {
      auto [Start, End] = liveRange(*Allocs[K]);
      Buffers.push_back(
          {K, analysis::sharedBufferBytes(Allocs[K]->getType()), BufferAlignment, Start, End});
    }
    analysis::SharedMemoryPlan Plan = analysis::allocateSharedMemory(Buffers);
    bool Changed = false;
    for (unsigned K = 0; K < Allocs.size(); ++K) {
      auto Offset = static_cast<int64_t>(Plan.Offsets[K]);
      Changed |= Allocs[K]->SharedOffset != Offset;
      Allocs[K]->SharedOffset = Offset;
    }
    return Changed;
  }

private:
  ProgramPoints Points;
  /// The mbarriers of the tma_loads into the buffer liveRange is at.
  std::set<const Value *> Mbarriers;

  /// [Start, End) of the buffer Alloc, with the widening rules of the file
  /// comment.
  std::pair<uint64_t, uint64_t> liveRange(Instruction &Alloc) {
    uint64_t Start = Points.Of.at(&Alloc), End = Start + 1;
    std::set<Opcode> Waits;         // what retires the asynchronous operations on it
    std::set<Opcode> WaitedInBlock; // ... and where each one is retired in its block
    std::set<Opcode> NotWaitedInBlock;
    Mbarriers.clear();
    std::set<const Value *> Views{&Alloc};
    std::vector<const Value *> Work{&Alloc};
    while (!Work.empty()) {
      const Value *V = Work.back();
      Work.pop_back();
      for (const Instruction *U : V->users()) {
        auto It = Points.Of.find(U);
        if (It == Points.Of.end()) // unreachable: never executes
          continue;
        Start = std::min(Start, It->second);
        End = std::max(End, It->second + 1);
        if (isSharedValue(U) && Views.insert(U).second)
          Work.push_back(U);
        if (std::optional<Opcode> Wait = asyncRetiredBy(*U)) {
          Waits.insert(*Wait);
          (retiredInItsBlock(*U, *Wait) ? WaitedInBlock : NotWaitedInBlock).insert(*Wait);
        }
        if (U->getOpcode() == Opcode::TmaLoad)
          Mbarriers.insert(bufferOf(U->getOperand(U->getNumOperands() - 1)));
      }
    }
    coverLoops(Start, End);
    // The retiring wait is searched after the widened interval: an operation
    // issued in a loop's last iteration is still in flight at the loop's end.
    uint64_t Retired = End;
    for (Opcode Wait : Waits)
      if (!WaitedInBlock.count(Wait) || NotWaitedInBlock.count(Wait))
        Retired = std::max(Retired, retiredAt(End, Wait));
    if (Retired > End) {
      End = Retired;
      coverLoops(Start, End);
    }
    return {Start, End};
  }

  /// The point after the first `Wait 0` at or after From in program order
  /// (the passes that emit asynchronous copies put it where every path
  /// passes), or for tma_loads after the last `mbarrier_wait` on one of
  /// Mbarriers (tensor-copies waits there for every fill in flight); the
  /// function's end when none follows.
  uint64_t retiredAt(uint64_t From, Opcode Wait) const {
    uint64_t LastMbarrierWait = 0;
    for (uint64_t P = From; P < Points.InOrder.size(); ++P) {
      const Instruction *I = Points.InOrder[P];
      if (I->getOpcode() != Wait)
        continue;
      if (Wait != Opcode::MbarrierWait && I->Count == 0)
        return P + 1;
      if (Wait == Opcode::MbarrierWait && Mbarriers.count(bufferOf(I->getOperand(0))))
        LastMbarrierWait = P + 1;
    }
    return LastMbarrierWait ? LastMbarrierWait : Points.InOrder.size();
  }

  /// Whether a `Wait 0` follows I in its block (a loop that waits for its
  /// MMAs in the iteration that issues them leaves none in flight).
  static bool retiredInItsBlock(const Instruction &I, Opcode Wait) {
    if (Wait == Opcode::MbarrierWait)
      return false;
    const auto &Insts = I.getParent()->instructions();
    auto It =
        std::find_if(Insts.begin(), Insts.end(), [&](const auto &P) { return P.get() == &I; });
    return std::any_of(It, Insts.end(),
                       [&](const auto &P) { return P->getOpcode() == Wait && P->Count == 0; });
  }

  /// Widens [Start, End) until it covers every loop it overlaps.
  void coverLoops(uint64_t &Start, uint64_t &End) const {
    for (bool Grew = true; Grew;) {
      Grew = false;
      for (auto [LoopStart, LoopEnd] : Points.LoopRanges)
        if (LoopStart < End && Start < LoopEnd && (LoopStart < Start || LoopEnd > End)) {
          Start = std::min(Start, LoopStart);
          End = std::max(End, LoopEnd);
          Grew = true;
        }
    }
  }
};

} // namespace

bool AllocateSharedPass::run(Function &F, AnalysisManager &AM) {
  // Offsets are attributes: no analysis result changes with them.
  return SharedAllocator(F, AM.get<LoopInfo>(F)).run();
}

std::unique_ptr<Pass> createAllocateSharedPass() { return std::make_unique<AllocateSharedPass>(); }

} // namespace tritonc::transform
