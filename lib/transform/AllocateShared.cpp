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

/// Widens [Start, End) until it covers every range of Ranges it overlaps.
void cover(uint64_t &Start, uint64_t &End,
           const std::vector<std::pair<uint64_t, uint64_t>> &Ranges) {
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (auto [RangeStart, RangeEnd] : Ranges)
      if (RangeStart < End && Start < RangeEnd && (RangeStart < Start || RangeEnd > End)) {
        Start = std::min(Start, RangeStart);
        End = std::max(End, RangeEnd);
        Grew = true;
      }
  }
}

/// Linear program points: the instructions of a reverse post-order in
/// which every loop's blocks are contiguous, numbered, each loop's
/// [first, last + 1) range, and each warp_specialize's: where its
/// partitions run together.
struct ProgramPoints {
  std::map<const Instruction *, uint64_t> Of;
  std::vector<const Instruction *> InOrder;
  std::vector<const BasicBlock *> Blocks;
  std::vector<std::pair<uint64_t, uint64_t>> LoopRanges;
  std::vector<std::pair<uint64_t, uint64_t>> PartitionRanges;

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
    // one of them uses is live over all of them, as over a loop, up to the
    // point after which only the consumer still runs (concurrentEnd).
    for (const BasicBlock *BB : Blocks) {
      const Instruction *Fork = BB->getTerminator();
      WarpRegions Regions;
      const Instruction *At = nullptr;
      if (!Fork || Fork->getOpcode() != Opcode::WarpSpecialize ||
          !collectWarpRegions(*Fork, Regions, At).empty())
        continue;
      std::vector<std::pair<uint64_t, uint64_t>> Spans;
      for (const auto &Partition : Regions.Partitions) {
        std::pair<uint64_t, uint64_t> Span{UINT64_MAX, 0};
        for (const BasicBlock *Member : Partition)
          if (auto It = BlockRange.find(Member); It != BlockRange.end())
            Span = {std::min(Span.first, It->second.first),
                    std::max(Span.second, It->second.second)};
        Spans.push_back(Span);
      }
      std::pair<uint64_t, uint64_t> Range{UINT64_MAX, 0};
      for (auto [First, End] : Spans)
        Range = {std::min(Range.first, First), std::max(Range.second, End)};
      if (Range.first >= Range.second)
        continue;
      if (std::optional<uint64_t> End = concurrentEnd(Regions, Spans))
        Range.second = *End;
      PartitionRanges.push_back(Range);
    }
  }

private:
  /// Where the partitions of a producer/consumer warp_specialize stop
  /// running together: after the consumer's last wait on the mbarriers of
  /// the producer's tma_loads (widened over the loops around it), provided
  /// the producer's only accesses of shared memory are those tma_loads and
  /// mbarrier operations and its blocks all come before the consumer's.
  /// Every producer access then happens before a fill whose completion
  /// that wait observes (warp-specialize waits in the consumer for every
  /// fill the producer issues), so the consumer's tail after it (the
  /// epilogue's staging slot) may reuse the rings' bytes, as the epilogue
  /// of a kernel without partitions does. nullopt otherwise.
  std::optional<uint64_t> concurrentEnd(const WarpRegions &Regions,
                                        const std::vector<std::pair<uint64_t, uint64_t>> &Spans) {
    if (Regions.Partitions.size() != 2 || Spans[0].second > Spans[1].first)
      return std::nullopt;
    std::set<const Value *> FillBarriers;
    for (const BasicBlock *BB : Regions.Partitions[0])
      for (const auto &I : BB->instructions()) {
        Opcode Op = I->getOpcode();
        if (Op == Opcode::TmaLoad) {
          FillBarriers.insert(bufferOf(I->getOperand(I->getNumOperands() - 1)));
          continue;
        }
        if (Op == Opcode::SmemSlot || isMbarrierOperation(Op))
          continue;
        for (const Value *Operand : I->operands())
          if (isSharedValue(Operand))
            return std::nullopt;
      }
    std::optional<uint64_t> LastWait;
    for (const BasicBlock *BB : Regions.Partitions[1])
      for (const auto &I : BB->instructions()) {
        if (I->getOpcode() == Opcode::TmaLoad)
          return std::nullopt;
        if (I->getOpcode() == Opcode::MbarrierWait &&
            FillBarriers.count(bufferOf(I->getOperand(0))))
          if (auto It = Of.find(I.get()); It != Of.end())
            LastWait = std::max(LastWait.value_or(0), It->second);
      }
    if (!LastWait)
      return std::nullopt;
    uint64_t Start = *LastWait, End = Start + 1;
    cover(Start, End, LoopRanges);
    return End;
  }

  static bool isMbarrierOperation(Opcode Op) {
    return Op == Opcode::MbarrierInit || Op == Opcode::MbarrierArrive ||
           Op == Opcode::MbarrierExpectTx || Op == Opcode::MbarrierWait;
  }

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
      // A warp_specialize's partitions in their order (the producer's blocks
      // before the consumer's: concurrentEnd): the last one visited comes
      // first in reverse post-order.
      const Instruction *T = BB->getTerminator();
      if (T && T->getOpcode() == Opcode::WarpSpecialize)
        std::reverse(Out.begin(), Out.end());
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
    cover(Start, End, Points.LoopRanges);
    // The retiring wait is searched after the loops the interval covers: an
    // operation issued in a loop's last iteration is still in flight at the
    // loop's end (not after the partitions': the consumer may retire it in
    // its tail).
    uint64_t Retired = End;
    for (Opcode Wait : Waits)
      if (!WaitedInBlock.count(Wait) || NotWaitedInBlock.count(Wait))
        Retired = std::max(Retired, retiredAt(End, Wait));
    End = std::max(End, Retired);
    for (uint64_t Before = 0; Before != End - Start;) {
      Before = End - Start;
      cover(Start, End, Points.LoopRanges);
      cover(Start, End, Points.PartitionRanges);
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
    for (uint64_t P = Wait == Opcode::MbarrierWait ? 0 : From; P < Points.InOrder.size(); ++P) {
      const Instruction *I = Points.InOrder[P];
      if (I->getOpcode() != Wait)
        continue;
      if (Wait != Opcode::MbarrierWait && I->Count == 0)
        return P + 1;
      if (Wait == Opcode::MbarrierWait && Mbarriers.count(bufferOf(I->getOperand(0))))
        LastMbarrierWait = P + 1;
    }
    // Waits that all come before From are inside the interval already (a
    // warp_specialize's consumer waits before its tail, where the interval
    // of the partitions ends).
    return LastMbarrierWait ? std::max(From, LastMbarrierWait) : Points.InOrder.size();
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
};

} // namespace

bool AllocateSharedPass::run(Function &F, AnalysisManager &AM) {
  // Offsets are attributes: no analysis result changes with them.
  return SharedAllocator(F, AM.get<LoopInfo>(F)).run();
}

std::unique_ptr<Pass> createAllocateSharedPass() { return std::make_unique<AllocateSharedPass>(); }

} // namespace tritonc::transform
