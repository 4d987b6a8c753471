//===- InsertBarriers.cpp - Barriers and proxy fences over GPU-level IR ---===//
//
// See InsertBarriers.h. The shared memory of the analysis is abstract: each
// slot a statement may name gets units of its own, and each pair of such
// slots that may be the same slot shares a unit, so "may touch the same
// bytes" is "the unit sets meet" for analysis::placeBarriers. Each unit is
// split once more per thread mapping, which lets a thread read back its own
// data without a barrier (marks and probes: SlotSpace::others and own).
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/InsertBarriers.h"

#include "SlotIndices.h"

#include "tritonc/analysis/BarrierPlacement.h"
#include "tritonc/analysis/LoweringAccesses.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/ThreadOwnership.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace tritonc::transform {

using namespace ir;
using analysis::ByteInterval;
using Units = std::vector<ByteInterval>;

namespace {

/// Which threads access a slot's elements: 0 for "any thread", else the
/// number of a layout in which each thread accesses exactly the elements
/// it holds (layouts are uniqued: one attribute, one number).
using Mapping = unsigned;
constexpr Mapping AnyThread = 0;

/// The abstract shared memory: units of slots, each split per mapping.
class SlotSpace {
public:
  /// Registers every slot a statement names (before any query).
  void add(const SlotRef &R) {
    if (!R.Buffer)
      return;
    std::map<SlotRef, uint64_t> &Slots = Keys[R.Buffer];
    if (R.Constant || R.Index)
      Slots.insert({R, 0});
  }
  Mapping mappingOf(const Layout *L) {
    auto It = std::find(Layouts.begin(), Layouts.end(), L);
    if (It != Layouts.end())
      return static_cast<Mapping>(It - Layouts.begin() + 1);
    Layouts.push_back(L);
    return static_cast<Mapping>(Layouts.size());
  }

  /// Numbers the units: per buffer, one per slot, then one per pair of
  /// slots that may be the same.
  void layOut() {
    uint64_t Next = 0;
    for (auto &[Buffer, Slots] : Keys) {
      uint64_t Begin = Next;
      for (auto &[R, Own] : Slots)
        Own = Next++;
      for (auto A = Slots.begin(); A != Slots.end(); ++A)
        for (auto B = std::next(A); B != Slots.end(); ++B)
          if (mayNameSameSlot(A->first, B->first)) {
            Shared[A->first].push_back(Next);
            Shared[B->first].push_back(Next++);
          }
      Next = std::max(Next, Begin + 1); // a buffer named only whole
      Range[Buffer] = {Begin, Next};
    }
    Total = std::max<uint64_t>(Next, 1);
  }

  /// The units of R, each with every mapping.
  std::vector<uint64_t> slotUnits(const SlotRef &R) const {
    if (!R.Buffer)
      return rangeUnits(0, Total);
    auto It = Keys.find(R.Buffer);
    if (It == Keys.end())
      return rangeUnits(0, Total); // an access of a buffer no statement names
    if (!R.Constant && !R.Index)
      return rangeUnits(Range.at(R.Buffer).first, Range.at(R.Buffer).second);
    std::vector<uint64_t> Out = {It->second.at(R)};
    auto S = Shared.find(R);
    if (S != Shared.end())
      Out.insert(Out.end(), S->second.begin(), S->second.end());
    return Out;
  }
  /// The slot R names at the latest wait of an operation that accessed it:
  /// an index value may have changed since, a constant not.
  SlotRef stable(const SlotRef &R) const { return R.Index ? SlotRef{R.Buffer, {}, nullptr} : R; }

  /// Per unit: the sub-units of mappings other than M (every one for
  /// AnyThread), or M's own.
  Units others(const std::vector<uint64_t> &Slots, Mapping M) const {
    Units Out;
    uint64_t N = mappings();
    for (uint64_t U : Slots) {
      if (M == AnyThread) {
        Out.push_back({U * N, U * N + N});
        continue;
      }
      Out.push_back({U * N, U * N + M});
      Out.push_back({U * N + M + 1, U * N + N});
    }
    return Out;
  }
  /// Every unit of every slot, with every mapping.
  Units allSlotUnits() const { return {{0, Total * mappings()}}; }
  Units own(const std::vector<uint64_t> &Slots, Mapping M) const {
    Units Out;
    uint64_t N = mappings();
    for (uint64_t U : Slots)
      Out.push_back({U * N + M, U * N + M + 1});
    return Out;
  }

  /// Where the flow re-enters the block defining an index value, the slot
  /// it named becomes any slot of its buffer.
  std::map<const BasicBlock *, std::vector<analysis::EntryWidening>> widenings() const {
    std::map<const BasicBlock *, std::vector<analysis::EntryWidening>> Out;
    for (const auto &[Buffer, Slots] : Keys)
      for (const auto &[R, Own] : Slots) {
        const Instruction *Def = asInstruction(const_cast<Value *>(R.Index));
        if (!Def)
          continue; // an argument: the same slot everywhere
        auto [Begin, End] = Range.at(Buffer);
        Out[Def->getParent()].push_back(
            {others({Own}, AnyThread), others(rangeUnits(Begin, End), AnyThread)});
      }
    return Out;
  }

private:
  uint64_t mappings() const { return Layouts.size() + 1; }
  static std::vector<uint64_t> rangeUnits(uint64_t Begin, uint64_t End) {
    std::vector<uint64_t> Out;
    for (uint64_t U = Begin; U < End; ++U)
      Out.push_back(U);
    return Out;
  }

  std::map<const Instruction *, std::map<SlotRef, uint64_t>> Keys;
  std::map<SlotRef, std::vector<uint64_t>> Shared;
  std::map<const Instruction *, std::pair<uint64_t, uint64_t>> Range;
  std::vector<const Layout *> Layouts; ///< Mapping M is Layouts[M - 1].
  uint64_t Total = 1;
};

/// One shared-memory access of a statement.
struct Access {
  SlotRef Slot;
  Mapping By = AnyThread;
};

/// The accesses of one instruction, by kind.
struct Effects {
  std::vector<Access> Reads;        ///< generic reads (local_load)
  std::vector<Access> Writes;       ///< generic writes (local_store, cp_async issue)
  std::vector<Access> AsyncWrites;  ///< tma_load: WAR only
  std::vector<Access> AsyncReads;   ///< wgmma, tma_store slots
  std::vector<Access> LandedWrites; ///< at a cp_async_wait: what the copies wrote
  std::vector<Access> EndedReads;   ///< at wgmma_wait / tma_store_wait
  bool Barrier = false, Fence = false;
  /// With the lowering's accesses: the statements of its lowering after the
  /// one above (LoweringAccesses.h), its own barriers included.
  std::vector<analysis::SyncStatement> Lowered;

  bool empty() const {
    return Reads.empty() && Writes.empty() && AsyncWrites.empty() && AsyncReads.empty() &&
           LandedWrites.empty() && EndedReads.empty() && !Barrier && !Fence && Lowered.empty();
  }
};

class BarrierInserter {
public:
  BarrierInserter(Function &F, unsigned NumWarps, bool Lowering)
      : F(F), NumWarps(NumWarps), Lowering(Lowering) {}
  bool run();

private:
  Mapping mappingOf(const Type *Tile, bool ReadByDot);
  Effects effectsOf(Instruction &I);
  std::vector<analysis::SyncBlock> syncBlocks(bool ForFences);
  void insertBefore(Instruction *Pos, Opcode Op, const Instruction *LocFrom);

  Function &F;
  unsigned NumWarps;
  bool Lowering;
  SlotSpace Space;
  std::map<const Instruction *, Effects> Of;
  std::vector<BasicBlock *> Blocks;
  /// Per block, the instruction of each statement: one for its GPU-level
  /// effects, then one per statement of its lowering (Effects::Lowered).
  std::vector<std::vector<Instruction *>> Statements;
  /// The statements that are the first of an instruction's lowering.
  std::set<std::pair<unsigned, unsigned>> LoweringHeads;
  /// Every slot a cp_async writes, a wgmma or a tma_store reads (the slots
  /// their waits may end the accesses of).
  std::vector<Access> CopyTargets, WgmmaSlots, TensorStoreSlots;
  /// Which wgmma reads a wgmma_wait ends. Where every wait is `wgmma_wait
  /// 0` and every wgmma is waited for in its own block, a wait retires
  /// exactly the wgmmas of its block since the previous wait, whose slots
  /// their operands still name (no index is defined again in between):
  /// RetiredSlots. Otherwise (a group left in flight) a wait may end the
  /// read of any slot a wgmma reads, as an index named it earlier.
  std::map<const Instruction *, std::vector<Access>> RetiredSlots;
  std::vector<Access> PendingInBlock;
  bool WgmmaWaitedInBlock = true;
};

/// The mapping of a local_load's result or a local_store's value: its
/// layout when each element is held by one thread of one of the NumWarps
/// warps (the emitter moves each element by the thread that holds it), and
/// a dot does not read it from the slot directly.
Mapping BarrierInserter::mappingOf(const Type *Tile, bool ReadByDot) {
  const Layout *L = Tile->getLayout();
  if (ReadByDot || !L || !holdsEachElementOnce(*L, Tile->getShape()) ||
      L->getNumWarps() != static_cast<int32_t>(NumWarps))
    return AnyThread;
  return Space.mappingOf(L);
}

Effects BarrierInserter::effectsOf(Instruction &I) {
  Effects E;
  auto SlotOperand = [&](unsigned K) { return slotRefOf(I.getOperand(K)); };
  switch (I.getOpcode()) {
  case Opcode::LocalLoad: {
    bool ReadByDot = false;
    for (const Instruction *U : I.users())
      ReadByDot = ReadByDot || U->getOpcode() == Opcode::Dot;
    E.Reads.push_back({SlotOperand(0), mappingOf(I.getType(), ReadByDot)});
    break;
  }
  case Opcode::LocalStore:
    E.Writes.push_back({SlotOperand(0), mappingOf(I.getOperand(1)->getType(), false)});
    break;
  case Opcode::CpAsync:
    E.Writes.push_back({SlotOperand(0), AnyThread});
    CopyTargets.push_back({Space.stable(SlotOperand(0)), AnyThread});
    break;
  case Opcode::TmaLoad:
    E.AsyncWrites.push_back({SlotOperand(I.getNumOperands() - 2), AnyThread});
    break;
  case Opcode::TmaStore:
    E.AsyncReads.push_back({SlotOperand(I.getNumOperands() - 1), AnyThread});
    break;
  case Opcode::Wgmma:
    for (unsigned K = 0; K < 2; ++K)
      if (I.getOperand(K)->getType()->isSharedBuffer())
        E.AsyncReads.push_back({SlotOperand(K), AnyThread});
    break;
  case Opcode::Barrier:
  case Opcode::WarpJoin: // the CTA goes on once every partition has joined
    E.Barrier = true;
    break;
  case Opcode::FenceProxyAsync:
    E.Fence = true;
    break;
  default:
    break;
  }
  for (const std::vector<Access> *List : {&E.Reads, &E.Writes, &E.AsyncWrites, &E.AsyncReads})
    for (const Access &A : *List)
      Space.add(A.Slot);
  if (I.getOpcode() == Opcode::Wgmma)
    PendingInBlock.insert(PendingInBlock.end(), E.AsyncReads.begin(), E.AsyncReads.end());
  else if (I.getOpcode() == Opcode::WgmmaWait) {
    WgmmaWaitedInBlock = WgmmaWaitedInBlock && I.Count == 0;
    RetiredSlots[&I] = std::move(PendingInBlock);
    PendingInBlock.clear();
  }
  for (const Access &A : E.AsyncReads)
    (I.getOpcode() == Opcode::Wgmma ? WgmmaSlots : TensorStoreSlots)
        .push_back({Space.stable(A.Slot), AnyThread});
  return E;
}

/// The statements of every block for the barriers (ForFences false) or the
/// proxy fences.
std::vector<analysis::SyncBlock> BarrierInserter::syncBlocks(bool ForFences) {
  std::map<const BasicBlock *, unsigned> Index;
  for (unsigned B = 0; B < Blocks.size(); ++B)
    Index[Blocks[B]] = B;
  auto Widen = Space.widenings();
  std::vector<analysis::SyncBlock> Out(Blocks.size());
  for (unsigned B = 0; B < Blocks.size(); ++B) {
    for (const BasicBlock *S : Blocks[B]->successors())
      Out[B].Successors.push_back(Index.at(S));
    if (auto It = Widen.find(Blocks[B]); It != Widen.end())
      Out[B].OnEntry = It->second;
    for (unsigned K = 0; K < Statements[B].size(); ++K) {
      Instruction *I = Statements[B][K];
      const Effects &E = Of.at(I);
      if (K > 0 && Statements[B][K - 1] == I)
        continue; // the lowering's statements, added with the first
      analysis::SyncStatement S;
      auto Add = [&](Units &To, const Units &From) {
        To.insert(To.end(), From.begin(), From.end());
      };
      auto Others = [&](const Access &A) { return Space.others(Space.slotUnits(A.Slot), A.By); };
      auto Own = [&](const Access &A) { return Space.own(Space.slotUnits(A.Slot), A.By); };
      if (ForFences) {
        S.IsBarrier = E.Fence;
        if (I->getOpcode() == Opcode::LocalStore) // cp_async lands at its wait
          for (const Access &A : E.Writes)
            Add(S.Marks, Others(A));
        for (const Access &A : E.LandedWrites)
          Add(S.Marks, Others(A));
        for (const Access &A : E.AsyncReads)
          Add(S.Probes, Own(A));
      } else {
        S.IsBarrier = E.Barrier;
        // A read meets the writes of other mappings (RAW) and leaves its
        // elements read for the writes of other mappings (WAR).
        for (const std::vector<Access> *List : {&E.Reads, &E.AsyncReads})
          for (const Access &A : *List) {
            Add(S.Probes, Own(A));
            Add(S.WarMarks, Others(A));
          }
        for (const Access &A : E.Writes) {
          Add(S.WarProbes, Own(A));
          Add(S.Probes, Own(A)); // WAW
          Add(S.Marks, Others(A));
        }
        for (const Access &A : E.AsyncWrites) {
          Add(S.WarProbes, Own(A));
          Add(S.Probes, Own(A));
        }
        for (const Access &A : E.LandedWrites)
          Add(S.Marks, Others(A));
        for (const Access &A : E.EndedReads)
          Add(S.WarMarks, Others(A));
      }
      Out[B].Statements.push_back(std::move(S));
      for (analysis::SyncStatement L : E.Lowered) { // not fences
        // A barrier the lowering emits itself orders its scratch and global
        // accesses, not the slots of the IR: the interpreter does not run it.
        if (L.IsBarrier)
          L.Keeps = Space.allSlotUnits();
        Out[B].Statements.push_back(ForFences ? analysis::SyncStatement{} : L);
      }
    }
  }
  return Out;
}

void BarrierInserter::insertBefore(Instruction *Pos, Opcode Op, const Instruction *LocFrom) {
  auto I = Instruction::create(Op, Type::getVoid(), {});
  I->Loc = LocFrom->Loc;
  BasicBlock *BB = Pos->getParent();
  BB->insert(BB->iteratorTo(Pos), std::move(I));
}

bool BarrierInserter::run() {
  bool Any = false;
  std::optional<analysis::LoweringAccesses> LoweringOf;
  if (Lowering)
    LoweringOf.emplace(F);
  for (const auto &BB : F.blocks()) {
    Blocks.push_back(BB.get());
    Statements.emplace_back();
    for (const auto &I : BB->instructions()) {
      Effects E = effectsOf(*I);
      if (LoweringOf)
        E.Lowered = analysis::withInternalBarriers(LoweringOf->of(*I));
      // A wait's effects are known once every operation it waits for is.
      bool Wait = I->getOpcode() == Opcode::CpAsyncWait || I->getOpcode() == Opcode::WgmmaWait ||
                  I->getOpcode() == Opcode::TmaStoreWait;
      if (E.empty() && !Wait)
        continue;
      Any = true;
      if (!E.Lowered.empty())
        LoweringHeads.insert({Blocks.size() - 1, Statements.back().size() + 1});
      Statements.back().insert(Statements.back().end(), 1 + E.Lowered.size(), I.get());
      Of[I.get()] = std::move(E);
    }
    // A wgmma group still pending at the end of its block.
    WgmmaWaitedInBlock = WgmmaWaitedInBlock && PendingInBlock.empty();
    PendingInBlock.clear();
  }
  if (!Any)
    return false;
  // The waits end what every operation of their kind may have left pending.
  for (auto &[I, E] : Of) {
    if (I->getOpcode() == Opcode::CpAsyncWait)
      E.LandedWrites = CopyTargets;
    else if (I->getOpcode() == Opcode::WgmmaWait)
      E.EndedReads = WgmmaWaitedInBlock ? RetiredSlots.at(I) : WgmmaSlots;
    else if (I->getOpcode() == Opcode::TmaStoreWait)
      E.EndedReads = TensorStoreSlots;
    for (const std::vector<Access> *List : {&E.LandedWrites, &E.EndedReads})
      for (const Access &A : *List)
        Space.add(A.Slot);
  }
  Space.layOut();

  // Barriers first: the fences go before them.
  bool Changed = false;
  for (const analysis::BarrierPoint &P : analysis::placeBarriers(syncBlocks(false))) {
    // Right after the statement before, so that the barrier follows the
    // wait whose data it publishes.
    BasicBlock *BB = Blocks[P.Block];
    Instruction *At = Statements[P.Block][P.Statement];
    Instruction *Pos = nullptr;
    bool Inside = P.Statement > 0 && Statements[P.Block][P.Statement - 1] == At;
    if (Inside && !LoweringHeads.count({P.Block, P.Statement}))
      reportInternalError("insert-barriers: a barrier inside the lowering of " + printOperand(*At) +
                          " that the lowering does not emit itself");
    if (Inside) {
      // Right before the instruction whose lowering needs it: the code
      // generator can merge it with a barrier that lowering starts with.
      Pos = At;
    } else if (P.Statement > 0) {
      auto It = BB->iteratorTo(Statements[P.Block][P.Statement - 1]);
      Pos = std::next(It)->get();
    } else {
      auto It = BB->instructions().begin();
      while ((*It)->getOpcode() == Opcode::Phi)
        ++It;
      Pos = It->get();
    }
    insertBefore(Pos, Opcode::Barrier, At);
    Changed = true;
  }
  for (const analysis::BarrierPoint &P : analysis::placeBarriers(syncBlocks(true))) {
    Instruction *At = Statements[P.Block][P.Statement];
    BasicBlock *BB = Blocks[P.Block];
    // Before the barriers (and the instructions without effects) right
    // above the read: the writers fence, then synchronize.
    Instruction *Pos = At;
    for (auto It = BB->iteratorTo(At); It != BB->instructions().begin();) {
      --It;
      Instruction *Prev = It->get();
      if (Prev->getOpcode() == Opcode::Barrier)
        Pos = Prev;
      else if (Of.count(Prev) || Prev->getOpcode() == Opcode::Phi)
        break;
    }
    insertBefore(Pos, Opcode::FenceProxyAsync, At);
    Changed = true;
  }
  return Changed;
}

} // namespace

bool InsertBarriersPass::run(Function &F, AnalysisManager &) {
  return BarrierInserter(F, NumWarps, Lowering).run();
}

std::unique_ptr<Pass> createInsertBarriersPass() { return std::make_unique<InsertBarriersPass>(); }

std::unique_ptr<Pass> createInsertBarriersPass(unsigned NumWarps, bool Lowering) {
  return std::make_unique<InsertBarriersPass>(NumWarps, Lowering);
}

} // namespace tritonc::transform
