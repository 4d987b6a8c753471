//===- WarpSpecialize.cpp - A producer and a consumer partition -----------===//
//
// See WarpSpecialize.h. The pass first checks the whole kernel (the rings,
// their barriers, every reader of a slot, what the fills depend on) and only
// then rewrites it, so a declined kernel is left untouched.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/WarpSpecialize.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The register file of an SM, in 32-bit registers per warp's lane: what
/// the partitions' setmaxnreg budgets share.
constexpr int64_t RegistersPerLane = 65536 / 32;
constexpr int64_t MaxRegistersPerThread = 256;

/// The buffer and index of `smem_slot %buffer, %index`; Buffer is null for
/// anything else.
struct SlotOf {
  Instruction *Buffer = nullptr;
  Value *Index = nullptr;
};

SlotOf slotOf(Value *V) {
  Instruction *I = asInstruction(V);
  if (!I || I->getOpcode() != Opcode::SmemSlot)
    return {};
  Instruction *Buffer = asInstruction(I->getOperand(0));
  if (!Buffer || Buffer->getOpcode() != Opcode::SmemAlloc)
    return {};
  return {Buffer, I->getOperand(1)};
}

Value *tmaLoadSlot(const Instruction &I) { return I.getOperand(I.getNumOperands() - 2); }
Value *tmaLoadBarrier(const Instruction &I) { return I.getOperand(I.getNumOperands() - 1); }

/// The full barriers of rings (one mbarrier per slot, several slots) and
/// what the pass adds for them.
struct Ring {
  Instruction *Bars = nullptr;
  std::vector<Instruction *> Data; ///< The buffers its tma_loads fill, in order.
  const Type *BarSlotType = nullptr;
  Instruction *Empty = nullptr; ///< The empty barriers (rewrite).
};

/// A consumer's wait on a full barrier and where it hands the slot back.
struct Release {
  Instruction *Wait = nullptr;
  Instruction *After = nullptr; ///< The wait itself or the wgmma_wait 0.
  Value *Index = nullptr;
  Ring *R = nullptr;
  /// A group left in flight (`wgmma_wait 1`, mma-in-flight's form): the
  /// slot is retired by the next iteration's wait or the `wgmma_wait 0` at
  /// each exit, all after a phi of Header that holds the previous
  /// iteration's slot (the ring's spare empty barrier on entry).
  BasicBlock *Header = nullptr;
  std::vector<Instruction *> ExitWaits;
};

class Specializer {
public:
  Specializer(Function &F, const WarpSpecializeOptions &O, const LoopInfo &LI,
              const DominatorTree &DT)
      : F(F), O(O), LI(LI), DT(DT) {}

  /// Checks that the kernel can be split; returns why not ("" when it can).
  /// Culprit is the instruction a remark points at.
  std::string analyze();
  void rewrite();
  const Instruction *culprit() const { return Culprit; }
  /// Whether the kernel has a wgmma at all (else there is nothing to say).
  const Instruction *firstWgmma() const { return FirstWgmma; }

private:
  std::string fail(const Instruction *At, std::string Why) {
    Culprit = At;
    return Why;
  }
  std::string findForkAndRings();
  std::string checkSlotUses();
  std::string findReleases();
  std::string inFlightRelease(Release &Rel, Instruction *InFlightWait);
  std::string producerSlice();

  void hoistBuffers();
  void addEmptyBarriers();
  BasicBlock *splitAtFork();
  BasicBlock *cloneProducer(BasicBlock *ConsumerEntry, BasicBlock *Join);
  void addEmptyWaits(BasicBlock *ProducerEntry, Ring &R);
  void removeFills();
  void addReleases();
  void arriveAfter(Instruction *After, const Release &Rel, Value *Index);

  Function &F;
  const WarpSpecializeOptions &O;
  const Instruction *Culprit = nullptr;
  const Instruction *FirstWgmma = nullptr;
  Instruction *ForkBarrier = nullptr;
  std::map<Instruction *, Ring> Rings; ///< By full-barrier buffer.
  /// The rings in the order their first fill appears (what the rewrite
  /// adds for them comes in that order: the output does not depend on
  /// addresses).
  std::vector<Ring *> RingOrder;
  std::map<Instruction *, Ring *> RingOfData;
  std::set<Instruction *> Fills; ///< expect_tx, tma_load, arrive.
  std::vector<Release> Releases;
  std::vector<BasicBlock *> Region; ///< Blocks after the fork.
  const LoopInfo &LI;
  const DominatorTree &DT;
  std::set<const Instruction *> Slice; ///< What the producer runs.
  std::map<Value *, Value *> Clones;
};

bool inEntryBeforeFork(const Instruction *I, const Instruction *Fork) {
  if (I->getParent() != Fork->getParent())
    return false;
  for (const auto &J : I->getParent()->instructions()) {
    if (J.get() == Fork)
      return false;
    if (J.get() == I)
      return true;
  }
  return false;
}

std::string Specializer::findForkAndRings() {
  BasicBlock *Entry = F.getEntryBlock();
  Instruction *LastInit = nullptr;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (!FirstWgmma && I->getOpcode() == Opcode::Wgmma)
        FirstWgmma = I.get();
  if (!FirstWgmma)
    return fail(nullptr, "no wgmma");
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      switch (I->getOpcode()) {
      case Opcode::CpAsync:
        return fail(I.get(), "a ring is filled by cp_async (the producer issues bulk tensor "
                             "copies only)");
      case Opcode::WarpSpecialize:
        return fail(I.get(), "the kernel is warp-specialized already");
      case Opcode::MbarrierInit:
        if (BB.get() != Entry)
          return fail(I.get(), "an mbarrier is initialized outside the entry block");
        LastInit = I.get();
        break;
      default:
        break;
      }
    }
  if (!LastInit)
    return fail(FirstWgmma, "no ring is filled by bulk tensor copies on mbarriers");
  // The fork goes after the barrier that publishes the initialization, or
  // after the last initialization followed by a new barrier (a kernel whose
  // one thread initializes and uses the mbarriers needs none without
  // partitions).
  ForkBarrier = LastInit;
  for (auto It = std::next(Entry->iteratorTo(LastInit)); It != Entry->instructions().end(); ++It) {
    Instruction *I = It->get();
    if (I->getOpcode() == Opcode::Barrier) {
      ForkBarrier = I;
      break;
    }
    if (I->isTerminator() || (I->hasSideEffects() && I->getOpcode() != Opcode::SmemAlloc))
      break;
  }
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() != Opcode::TmaLoad)
        continue;
      SlotOf Bar = slotOf(tmaLoadBarrier(*I)), Data = slotOf(tmaLoadSlot(*I));
      if (!Bar.Buffer || !Data.Buffer || Bar.Buffer->getType()->getNumSlots() < 2 ||
          Data.Buffer->getType()->getNumSlots() < 2)
        return fail(I.get(), "a bulk tensor copy outside the rings (one mbarrier per slot "
                             "of a ring)");
      if (inEntryBeforeFork(I.get(), ForkBarrier))
        return fail(I.get(), "a ring is filled before its mbarriers are initialized");
      Ring &R = Rings[Bar.Buffer];
      if (!R.Bars)
        RingOrder.push_back(&R);
      R.Bars = Bar.Buffer;
      R.BarSlotType = tmaLoadBarrier(*I)->getType();
      if (std::find(R.Data.begin(), R.Data.end(), Data.Buffer) == R.Data.end())
        R.Data.push_back(Data.Buffer);
      auto [It, New] = RingOfData.insert({Data.Buffer, &R});
      if (!New && It->second != &R)
        return fail(I.get(), "a ring is filled on the barriers of two rings");
    }
  if (Rings.empty())
    return fail(FirstWgmma, "no ring is filled by bulk tensor copies on mbarriers");
  return "";
}

/// Every slot of a ring is only filled (tma_load) and read by wgmma; every
/// slot of its barriers only initialized, expected, filled on, arrived on
/// and waited for.
std::string Specializer::checkSlotUses() {
  for (Ring *Ptr : RingOrder) {
    Ring &R = *Ptr;
    Instruction *Bars = R.Bars;
    std::vector<Instruction *> Buffers = R.Data;
    Buffers.push_back(Bars);
    for (Instruction *Buffer : Buffers) {
      bool IsBars = Buffer == Bars;
      for (Instruction *S : Buffer->users()) {
        if (S->getOpcode() != Opcode::SmemSlot || S->getOperand(0) != Buffer)
          return fail(S, "a ring is used whole by " + std::string(opcodeName(S->getOpcode())));
        for (Instruction *U : S->users()) {
          Opcode Op = U->getOpcode();
          bool Fine =
              IsBars ? (Op == Opcode::MbarrierInit || Op == Opcode::MbarrierExpectTx ||
                        Op == Opcode::MbarrierArrive || Op == Opcode::MbarrierWait ||
                        (Op == Opcode::TmaLoad && tmaLoadBarrier(*U) == S))
                     : ((Op == Opcode::TmaLoad && tmaLoadSlot(*U) == S) ||
                        (Op == Opcode::Wgmma && (U->getOperand(0) == S || U->getOperand(1) == S) &&
                         U->getOperand(2) != S));
          if (!Fine)
            return fail(U, std::string("a ring slot is ") +
                               (IsBars ? "an mbarrier used by " : "accessed by ") + opcodeName(Op) +
                               " (the rings must be read only by wgmma)");
          if (Op == Opcode::MbarrierExpectTx || Op == Opcode::MbarrierArrive ||
              Op == Opcode::TmaLoad)
            Fills.insert(U);
        }
      }
    }
  }
  for (Instruction *I : Fills) {
    if (inEntryBeforeFork(I, ForkBarrier))
      return fail(I, "a ring is filled before its mbarriers are initialized");
    if (I->getOpcode() != Opcode::TmaLoad)
      continue;
    // The producer's wait for the slot goes before the fill's expect_tx.
    bool Expected = false;
    for (const auto &J : I->getParent()->instructions()) {
      if (J.get() == I)
        break;
      Expected |=
          J->getOpcode() == Opcode::MbarrierExpectTx && J->getOperand(0) == tmaLoadBarrier(*I);
    }
    if (!Expected)
      return fail(I, "a bulk tensor copy with no mbarrier_expect_tx before it in its block");
  }
  return "";
}

/// For each wait on a full barrier, the wgmma_wait 0 after the wgmmas that
/// read its slot in the same block (the wait itself where none reads it),
/// and every wgmma's slots claimed by such a wait.
std::string Specializer::findReleases() {
  std::set<const Instruction *> Claimed;
  for (Ring *R : RingOrder)
    for (Instruction *S : R->Bars->users())
      for (Instruction *W : S->users()) {
        if (W->getOpcode() != Opcode::MbarrierWait)
          continue;
        if (inEntryBeforeFork(W, ForkBarrier))
          return fail(W, "a ring's mbarrier is waited for before the fork");
        Value *Index = S->getOperand(1);
        Release Rel{W, W, Index, R, nullptr, {}};
        bool Read = false;
        BasicBlock *BB = W->getParent();
        for (auto It = std::next(BB->iteratorTo(W)); It != BB->instructions().end(); ++It) {
          Instruction *I = It->get();
          if (I->getOpcode() == Opcode::Wgmma) {
            for (unsigned Op = 0; Op < 2; ++Op) {
              SlotOf Slot = slotOf(I->getOperand(Op));
              if (Slot.Buffer && RingOfData.count(Slot.Buffer) && RingOfData.at(Slot.Buffer) == R &&
                  Slot.Index == Index) {
                Read = true;
                Claimed.insert(I);
                Rel.After = nullptr;
              }
            }
          } else if (I->getOpcode() == Opcode::WgmmaWait && Read && !Rel.After) {
            Rel.After = I;
            std::string Why = I->Count == 0 ? "" : inFlightRelease(Rel, I);
            if (!Why.empty())
              return Why;
          } else if (I->getOpcode() == Opcode::MbarrierWait &&
                     slotOf(I->getOperand(0)).Buffer == R->Bars) {
            break; // the next wait of this ring claims what follows
          }
        }
        if (!Rel.After)
          return fail(W, "the slot this wait is for has no wgmma_wait after its wgmmas in "
                         "their block");
        Releases.push_back(Rel);
      }
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() != Opcode::Wgmma)
        continue;
      for (unsigned Op = 0; Op < 2; ++Op)
        if (!I->getOperand(Op)->getType()->isSharedBuffer())
          return fail(I.get(), "a wgmma operand is in registers (the producer fills shared "
                               "memory only)");
      if (!Claimed.count(I.get()))
        return fail(I.get(), "a wgmma reads slots no wait on their full barrier before it in "
                             "its block names");
    }
  return "";
}

/// A slot read by a group that `wgmma_wait 1` leaves in flight across the
/// back edge of the wgmma's loop goes back after the next iteration's wait
/// or the exit's `wgmma_wait 0`: the wgmma must run in every iteration, its
/// group be the loop's only one, and every exit must leave from the header (which
/// then carries the slot read last) and start with `wgmma_wait 0`.
std::string Specializer::inFlightRelease(Release &Rel, Instruction *InFlightWait) {
  BasicBlock *BB = InFlightWait->getParent();
  const Loop *L = LI.getLoopFor(BB);
  if (InFlightWait->Count != 1 || !L)
    return fail(InFlightWait, "a wgmma_wait leaves groups in flight outside the form of "
                              "mma-in-flight (one group across a loop's back edge)");
  for (BasicBlock *Latch : L->getLatches())
    if (!DT.dominates(BB, Latch))
      return fail(InFlightWait, "the wgmma left in flight does not run in every iteration");
  // One group per iteration (its wgmmas may be several: the tile's column
  // halves), so the wait 1 retires exactly the previous iteration's.
  unsigned Commits = 0;
  for (BasicBlock *Member : L->blocks())
    for (const auto &I : Member->instructions())
      Commits += I->getOpcode() == Opcode::WgmmaCommit;
  if (Commits != 1)
    return fail(InFlightWait, "the loop with a wgmma group in flight commits other groups");
  Rel.Header = L->getHeader();
  for (BasicBlock *Member : L->blocks())
    for (BasicBlock *Exit : Member->successors()) {
      if (L->contains(Exit))
        continue;
      Instruction *Drain = nullptr;
      for (const auto &I : Exit->instructions())
        if (I->getOpcode() == Opcode::WgmmaWait || I->getOpcode() == Opcode::Wgmma) {
          Drain = I.get();
          break;
        }
      if (Member != Rel.Header || !DT.dominates(Rel.Header, Exit) || !Drain ||
          Drain->getOpcode() != Opcode::WgmmaWait || Drain->Count != 0)
        return fail(InFlightWait, "an exit of the loop with a wgmma group in flight does not "
                                  "leave from its header and wait for the group first");
      if (std::find(Rel.ExitWaits.begin(), Rel.ExitWaits.end(), Drain) == Rel.ExitWaits.end())
        Rel.ExitWaits.push_back(Drain);
    }
  return "";
}

/// The producer runs the fills, the branches after the fork and what they
/// compute from: all of it must be pure (or phis), computed again by the
/// producer's warps.
std::string Specializer::producerSlice() {
  BasicBlock *Entry = F.getEntryBlock();
  std::set<const BasicBlock *> InRegion;
  std::vector<BasicBlock *> Work(Entry->successors());
  while (!Work.empty()) {
    BasicBlock *BB = Work.back();
    Work.pop_back();
    if (BB == Entry)
      return fail(Entry->getTerminator(), "the entry block is in a loop");
    if (!InRegion.insert(BB).second)
      continue;
    for (BasicBlock *S : BB->successors())
      Work.push_back(S);
  }
  for (const auto &BB : F.blocks())
    if (InRegion.count(BB.get()))
      Region.push_back(BB.get());
  // The producer copies these blocks: each is entered from the entry or
  // another of them (not from an unreachable block).
  for (BasicBlock *BB : Region)
    for (BasicBlock *Pred : BB->predecessors())
      if (Pred != Entry && !InRegion.count(Pred))
        return fail(BB->front(), "a block after the fork is entered from an unreachable block "
                                 "(run dce first)");
  auto AfterFork = [&](const Instruction *I) {
    return I->getParent() == Entry ? !inEntryBeforeFork(I, ForkBarrier) && I != ForkBarrier
                                   : InRegion.count(I->getParent()) != 0;
  };
  std::vector<Instruction *> Roots(Fills.begin(), Fills.end());
  for (BasicBlock *BB : Region)
    Roots.push_back(BB->getTerminator());
  Roots.push_back(Entry->getTerminator());
  while (!Roots.empty()) {
    Instruction *I = Roots.back();
    Roots.pop_back();
    if (!I || !AfterFork(I) || RingOfData.count(I) || Rings.count(I) || !Slice.insert(I).second)
      continue;
    bool Fine = isPure(*I) || I->getOpcode() == Opcode::Phi || I->isTerminator() || Fills.count(I);
    if (I->getOpcode() == Opcode::Ret && I->getNumOperands())
      return fail(I, "the kernel returns a value");
    if (!Fine)
      return fail(I, std::string("the fills' coordinates or the loops' control depend on ") +
                         opcodeName(I->getOpcode()) + ", which the producer does not run");
    for (Value *V : I->operands())
      Roots.push_back(asInstruction(V));
  }
  return "";
}

std::string Specializer::analyze() {
  if (!F.attrs().IsKernel)
    return fail(nullptr, "not a kernel");
  for (auto Step : {&Specializer::findForkAndRings, &Specializer::checkSlotUses,
                    &Specializer::findReleases, &Specializer::producerSlice}) {
    std::string Why = (this->*Step)();
    if (!Why.empty())
      return Why;
  }
  // wgmma runs on warpgroups; setmaxnreg acts on whole ones.
  if (O.NumWarps % 4 || (O.ProducerRegisters && O.ProducerWarps % 4))
    return fail(FirstWgmma, "the partitions must be whole warpgroups");
  return "";
}

/// The rings' buffers are allocated before the fork: both partitions name
/// them.
void Specializer::hoistBuffers() {
  BasicBlock *Entry = F.getEntryBlock();
  for (Ring *R : RingOrder)
    for (Instruction *Buffer : R->Data)
      if (!inEntryBeforeFork(Buffer, ForkBarrier))
        Entry->insert(Entry->iteratorTo(ForkBarrier), Buffer->removeFromParent());
}

void Specializer::addEmptyBarriers() {
  BasicBlock *Entry = F.getEntryBlock();
  auto Pos = Entry->iteratorTo(ForkBarrier);
  Module &M = *F.getParent();
  for (Ring *Ptr : RingOrder) {
    Ring &R = *Ptr;
    Instruction *Bars = R.Bars;
    // A spare barrier after the ring's: the release of "the previous
    // iteration's slot" in a loop's first iteration (nobody waits on it).
    bool Spare = std::any_of(Releases.begin(), Releases.end(),
                             [&](const Release &Rel) { return Rel.R == &R && Rel.Header; });
    const Type *T = Bars->getType();
    auto Alloc = Instruction::create(Opcode::SmemAlloc,
                                     Type::getSharedBuffer(T->getElementType(), T->getShape(),
                                                           T->getLayout(),
                                                           T->getNumSlots() + (Spare ? 1 : 0)),
                                     {});
    Alloc->setName(Bars->getName().empty() ? "ws.empty" : Bars->getName() + ".empty");
    Alloc->Loc = Bars->Loc;
    R.Empty = Entry->insert(Pos, std::move(Alloc));
    for (int64_t S = 0; S < R.Empty->getType()->getNumSlots(); ++S) {
      Instruction *Slot =
          Entry->insert(Pos, Instruction::create(Opcode::SmemSlot, R.BarSlotType,
                                                 {R.Empty, M.getI32(static_cast<int32_t>(S))}));
      Slot->setName(R.Empty->getName() + ".slot");
      // One arrival per consumer warp and phase: each warp releases the
      // slot after its own wgmma_wait (per_warp), no warp waits for another.
      auto Init = Instruction::create(Opcode::MbarrierInit, Type::getVoid(), {Slot});
      Init->Count = int64_t(O.NumWarps);
      Entry->insert(Pos, std::move(Init));
    }
  }
}

/// Moves what follows the fork's barrier into a new block, the consumer's
/// entry, and ends the entry with the fork.
BasicBlock *Specializer::splitAtFork() {
  BasicBlock *Entry = F.getEntryBlock();
  BasicBlock *Consumer = F.createBlock("ws.consumer", Region.empty() ? nullptr : Region.front());
  while (Entry->back() != ForkBarrier)
    Consumer->insert(Consumer->instructions().begin(), Entry->back()->removeFromParent());
  for (BasicBlock *S : Consumer->successors())
    for (auto &I : S->instructions())
      if (I->getOpcode() == Opcode::Phi)
        for (unsigned K = 0; K < I->incomingBlocks().size(); ++K)
          if (I->getIncomingBlock(K) == Entry)
            I->setIncomingBlock(K, Consumer);
  return Consumer;
}

/// The producer: a copy of the region's blocks with the slice's
/// instructions only (its terminators included), `ret` made `warp_join`.
BasicBlock *Specializer::cloneProducer(BasicBlock *ConsumerEntry, BasicBlock *Join) {
  std::vector<BasicBlock *> Blocks{ConsumerEntry};
  Blocks.insert(Blocks.end(), Region.begin(), Region.end());
  std::map<const BasicBlock *, BasicBlock *> BlockClones;
  for (BasicBlock *BB : Blocks)
    BlockClones[BB] =
        F.createBlock(BB == ConsumerEntry ? "ws.producer" : BB->getName() + ".producer", Join);
  std::vector<Instruction *> Cloned;
  for (BasicBlock *BB : Blocks)
    for (const auto &I : BB->instructions()) {
      if (!Slice.count(I.get()) && !I->isTerminator())
        continue;
      Instruction *C = BlockClones[BB]->append(cloneDetached(*I));
      if (!C->getName().empty())
        C->setName(C->getName() + ".p");
      for (unsigned K = 0; K < C->successors().size(); ++K)
        C->setSuccessor(K, BlockClones.at(C->successors()[K]));
      for (unsigned K = 0; K < C->incomingBlocks().size(); ++K)
        C->setIncomingBlock(K, BlockClones.at(C->getIncomingBlock(K)));
      Clones[I.get()] = C;
      Cloned.push_back(C);
    }
  for (Instruction *C : Cloned)
    for (unsigned K = 0; K < C->getNumOperands(); ++K) {
      auto It = Clones.find(C->getOperand(K));
      if (It != Clones.end())
        C->setOperand(K, It->second);
    }
  return BlockClones.at(ConsumerEntry);
}

/// Before each fill group of R in the producer, the wait for its slot's
/// release: parity bit s of a mask that starts all ones (a fresh barrier
/// reports parity 1 complete) and flips bit s at each fill of slot s. The
/// mask is threaded through the producer's blocks as SSA values, with a
/// phi where blocks meet (on-the-fly SSA construction: the blocks are all
/// there, so every block is "sealed").
void Specializer::addEmptyWaits(BasicBlock *ProducerEntry, Ring &R) {
  Module &M = *F.getParent();
  const Type *I32 = Type::getI32();
  Value *AllEmpty =
      M.getI32(static_cast<int32_t>((int64_t(1) << R.Bars->getType()->getNumSlots()) - 1));
  std::map<BasicBlock *, Value *> AtStart, AtEnd;
  std::vector<std::pair<Instruction *, BasicBlock *>> PendingPhis;
  std::function<Value *(BasicBlock *)> StartOf, EndOf;
  StartOf = [&](BasicBlock *BB) -> Value * {
    auto It = AtStart.find(BB);
    if (It != AtStart.end())
      return It->second;
    std::vector<BasicBlock *> Preds = BB->predecessors();
    if (BB == ProducerEntry)
      return AtStart[BB] = AllEmpty;
    if (Preds.size() == 1)
      return AtStart[BB] = EndOf(Preds.front());
    auto Phi = Instruction::create(Opcode::Phi, I32, {});
    Phi->setName("ws.empty.phase");
    Instruction *P = BB->insert(BB->instructions().begin(), std::move(Phi));
    PendingPhis.push_back({P, BB});
    return AtStart[BB] = P;
  };
  EndOf = [&](BasicBlock *BB) -> Value * {
    auto It = AtEnd.find(BB);
    if (It != AtEnd.end())
      return It->second;
    Value *Mask = StartOf(BB);
    std::vector<Instruction *> Expects;
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::MbarrierExpectTx && slotOf(I->getOperand(0)).Buffer == R.Bars)
        Expects.push_back(I.get());
    for (Instruction *X : Expects) {
      IRBuilder B(M);
      B.setInsertPoint(X);
      B.setLoc(X->Loc);
      Value *Index = slotOf(X->getOperand(0)).Index;
      Constant *KnownMask = asConstant(Mask), *KnownIndex = asConstant(Index);
      Value *Parity, *Next;
      if (KnownMask && KnownIndex) { // the fills before any loop
        Parity = B.getI32(static_cast<int32_t>((KnownMask->getInt() >> KnownIndex->getInt()) & 1));
        Next = B.getI32(static_cast<int32_t>(KnownMask->getInt() ^ (1 << KnownIndex->getInt())));
      } else {
        Instruction *Shifted = B.createBinary(Opcode::LShr, Mask, Index);
        Parity = B.createBinary(Opcode::And, Shifted, B.getI32(1));
        Parity->setName("ws.empty.parity");
        Instruction *Bit = B.createBinary(Opcode::Shl, B.getI32(1), Index);
        Next = B.createBinary(Opcode::Xor, Mask, Bit);
        Next->setName("ws.empty.phase");
      }
      Instruction *Slot = B.create(Opcode::SmemSlot, R.BarSlotType, {R.Empty, Index});
      Slot->setName(R.Empty->getName() + ".slot");
      B.create(Opcode::MbarrierWait, Type::getVoid(), {Slot, Parity});
      Mask = Next;
    }
    return AtEnd[BB] = Mask;
  };
  std::vector<BasicBlock *> Blocks;
  for (const auto &BB : F.blocks())
    Blocks.push_back(BB.get());
  std::set<const BasicBlock *> Producer;
  std::vector<BasicBlock *> Work{ProducerEntry};
  while (!Work.empty()) {
    BasicBlock *BB = Work.back();
    Work.pop_back();
    if (!Producer.insert(BB).second || BB->getTerminator()->getOpcode() == Opcode::WarpJoin)
      continue;
    for (BasicBlock *S : BB->successors())
      Work.push_back(S);
  }
  for (BasicBlock *BB : Blocks)
    if (Producer.count(BB))
      EndOf(BB);
  while (!PendingPhis.empty()) {
    auto [Phi, BB] = PendingPhis.back();
    PendingPhis.pop_back();
    for (BasicBlock *P : BB->predecessors())
      Phi->addIncoming(EndOf(P), P);
  }
}

/// The consumer keeps the waits, the wgmmas and the epilogue.
void Specializer::removeFills() {
  std::vector<Value *> Operands;
  for (Instruction *I : Fills) {
    Operands.insert(Operands.end(), I->operands().begin(), I->operands().end());
    I->eraseFromParent();
  }
  Fills.clear();
  eraseTriviallyDead(Operands);
}

/// The consumer's arrive on the empty barrier of slot Index, after After.
void Specializer::arriveAfter(Instruction *After, const Release &Rel, Value *Index) {
  BasicBlock *BB = After->getParent();
  auto Pos = std::next(BB->iteratorTo(After));
  Instruction *Slot = BB->insert(
      Pos, Instruction::create(Opcode::SmemSlot, Rel.R->BarSlotType, {Rel.R->Empty, Index}));
  Slot->setName(Rel.R->Empty->getName() + ".slot");
  Slot->Loc = Rel.Wait->Loc;
  auto Arrive = Instruction::create(Opcode::MbarrierArrive, Type::getVoid(), {Slot});
  Arrive->PerWarp = true;
  Arrive->Loc = Rel.Wait->Loc;
  BB->insert(Pos, std::move(Arrive));
}

void Specializer::addReleases() {
  Module &M = *F.getParent();
  for (const Release &Rel : Releases) {
    if (!Rel.Header) {
      arriveAfter(Rel.After, Rel, Rel.Index);
      continue;
    }
    // The slot the previous iteration read: the spare barrier on entry.
    auto Phi = Instruction::create(Opcode::Phi, Rel.Index->getType(), {});
    Phi->setName("ws.retiring");
    Instruction *Previous = Rel.Header->insert(Rel.Header->instructions().begin(), std::move(Phi));
    Value *Spare = M.getInt(Rel.Index->getType(), Rel.R->Bars->getType()->getNumSlots());
    const Loop *L = LI.getLoopFor(Rel.After->getParent());
    for (BasicBlock *Pred : Rel.Header->predecessors())
      Previous->addIncoming(L->contains(Pred) ? Rel.Index : Spare, Pred);
    arriveAfter(Rel.After, Rel, Previous);
    for (Instruction *Drain : Rel.ExitWaits)
      arriveAfter(Drain, Rel, Previous);
  }
}

void Specializer::rewrite() {
  if (ForkBarrier->getOpcode() != Opcode::Barrier) {
    BasicBlock *Entry = F.getEntryBlock();
    auto Barrier = Instruction::create(Opcode::Barrier, Type::getVoid(), {});
    Barrier->Loc = ForkBarrier->Loc;
    ForkBarrier = Entry->insert(std::next(Entry->iteratorTo(ForkBarrier)), std::move(Barrier));
  }
  hoistBuffers();
  addEmptyBarriers();
  BasicBlock *Entry = F.getEntryBlock();
  BasicBlock *Consumer = splitAtFork();
  BasicBlock *Join = F.createBlock("ws.join");
  BasicBlock *Producer = cloneProducer(Consumer, Join);
  // Every `ret` of either partition is its warp_join; the CTA returns at
  // the join.
  std::vector<Instruction *> Rets;
  for (const auto &BB : F.blocks())
    if (BB->getTerminator() && BB->getTerminator()->getOpcode() == Opcode::Ret)
      Rets.push_back(BB->getTerminator());
  for (Instruction *Ret : Rets) {
    auto WarpJoin = Instruction::create(Opcode::WarpJoin, Type::getVoid(), {});
    WarpJoin->addSuccessor(Join);
    WarpJoin->Loc = Ret->Loc;
    BasicBlock *BB = Ret->getParent();
    Ret->eraseFromParent();
    BB->append(std::move(WarpJoin));
  }
  Join->append(Instruction::create(Opcode::Ret, Type::getVoid(), {}));
  int64_t ConsumerRegisters = 0;
  if (O.ProducerRegisters) {
    int64_t Left =
        (RegistersPerLane - int64_t(O.ProducerWarps) * O.ProducerRegisters) / int64_t(O.NumWarps);
    ConsumerRegisters = std::min(MaxRegistersPerThread, Left / 8 * 8);
  }
  auto Fork = Instruction::create(Opcode::WarpSpecialize, Type::getVoid(), {});
  Fork->addSuccessor(Producer);
  Fork->addSuccessor(Consumer);
  Fork->Partitions = {{int64_t(O.ProducerWarps), int64_t(O.ProducerRegisters)},
                      {int64_t(O.NumWarps), ConsumerRegisters}};
  Fork->Loc = ForkBarrier->Loc;
  Entry->append(std::move(Fork));
  for (Ring *R : RingOrder)
    addEmptyWaits(Producer, *R);
  removeFills();
  addReleases();
}

} // namespace

std::string whyNotWarpSpecialized(Function &F, const WarpSpecializeOptions &Options,
                                  AnalysisManager &AM) {
  return Specializer(F, Options, AM.get<LoopInfo>(F), AM.get<DominatorTree>(F)).analyze();
}

bool WarpSpecializePass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  Specializer S(F, Options, AM.get<LoopInfo>(F), AM.get<DominatorTree>(F));
  std::string Why = S.analyze();
  if (!Why.empty()) {
    if (Diags && S.firstWgmma() && S.culprit())
      Diags->remark(RemarkKind::Missed, "warp-specialize", SourceRange(S.culprit()->Loc),
                    "the kernel is not warp-specialized: " + Why);
    return false;
  }
  S.rewrite();
  if (Diags)
    Diags->remark(RemarkKind::Passed, "warp-specialize", SourceRange(S.firstWgmma()->Loc),
                  "a producer partition of " + std::to_string(Options.ProducerWarps) +
                      " warps fills the rings, a consumer partition of " +
                      std::to_string(Options.NumWarps) + " warps runs the wgmmas");
  return true;
}

std::unique_ptr<Pass> createWarpSpecializePass() { return std::make_unique<WarpSpecializePass>(); }

std::unique_ptr<Pass> createWarpSpecializePass(const WarpSpecializeOptions &Options) {
  return std::make_unique<WarpSpecializePass>(Options);
}

} // namespace tritonc::transform
