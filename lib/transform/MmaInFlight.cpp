//===- MmaInFlight.cpp - One wgmma group left running across the back edge ===//
//
// See MmaInFlight.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/MmaInFlight.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/WarpSpecialize.h"

#include <optional>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

std::optional<int64_t> constantInt(const Value *V) {
  const Constant *C = asConstant(const_cast<Value *>(V));
  if (!C || C->isUndef() || !C->getType()->isIntOrIntTile())
    return std::nullopt;
  return C->getInt();
}

/// The slot operand an instruction writes in shared memory, or null.
Value *writtenSlot(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::CpAsync:
  case Opcode::LocalStore:
    return I.getOperand(0);
  case Opcode::TmaLoad:
    return I.getOperand(1 + I.getOperand(0)->getType()->getRank());
  default:
    return nullptr;
  }
}

/// Whether Bar is a slot of a buffer of mbarriers that some tma_load fills
/// on (a ring's full barriers, whose arrives are the fills').
bool namedByFill(Value *Bar) {
  Instruction *Slot = asInstruction(Bar);
  Value *Buffer = Slot && Slot->getOpcode() == Opcode::SmemSlot ? Slot->getOperand(0) : Bar;
  for (Instruction *S : Buffer->users())
    for (Instruction *U : S->users())
      if (U->getOpcode() == Opcode::TmaLoad && U->getOperand(U->getNumOperands() - 1) == S)
        return true;
  return false;
}

/// A slot of a buffer: the smem_alloc, and the index (null for a one-slot
/// buffer used whole).
struct SlotRef {
  const Instruction *Buffer = nullptr;
  Value *Index = nullptr;
};

std::optional<SlotRef> slotOf(Value *V) {
  Instruction *I = asInstruction(V);
  if (I && I->getOpcode() == Opcode::SmemAlloc)
    return SlotRef{I, nullptr};
  if (!I || I->getOpcode() != Opcode::SmemSlot)
    return std::nullopt;
  Instruction *Buffer = asInstruction(I->getOperand(0));
  if (!Buffer || Buffer->getOpcode() != Opcode::SmemAlloc)
    return std::nullopt;
  return SlotRef{Buffer, I->getOperand(1)};
}

/// The slot an index selects in iteration t: (Origin + Start + t) mod S
/// when Cyclic, else Origin + Start. Origin is null (0) or a value in
/// [0, S) the loop does not change (a persistent kernel's ring base,
/// carried across its loop over tiles by tensor-copies).
struct SlotIndex {
  int64_t Start = 0;
  bool Cyclic = false;
  const Value *Origin = nullptr;
};

/// X when Next is (X + 1) mod Slots as add, compare, select; else null.
Value *advancedFrom(Value *Next, int64_t Slots) {
  Instruction *Sel = asInstruction(Next);
  if (!Sel || Sel->getOpcode() != Opcode::Select || constantInt(Sel->getOperand(1)) != 0)
    return nullptr;
  Instruction *Cmp = asInstruction(Sel->getOperand(0));
  Instruction *Add = asInstruction(Sel->getOperand(2));
  if (!Cmp || !Add || Cmp->getOpcode() != Opcode::ICmp || Add->getOpcode() != Opcode::Add ||
      Cmp->getOperand(0) != Add || constantInt(Cmp->getOperand(1)) != Slots)
    return nullptr;
  CmpPredicate P = Cmp->Predicate;
  if (P != CmpPredicate::EQ && P != CmpPredicate::SGE && P != CmpPredicate::UGE)
    return nullptr;
  if (constantInt(Add->getOperand(1)) == 1)
    return Add->getOperand(0);
  if (constantInt(Add->getOperand(0)) == 1)
    return Add->getOperand(1);
  return nullptr;
}

/// Whether Next is (Phi + 1) mod Slots as add, compare, select.
bool advancesModulo(Value *Next, const Instruction *Phi, int64_t Slots) {
  return advancedFrom(Next, Slots) == Phi;
}

/// Whether V is always in [0, Slots): a constant there, (X + 1) mod Slots
/// of such an X, or a phi of such values (Seen: the phis assumed so, for
/// the cycles through them).
bool slotInRange(Value *V, int64_t Slots, std::set<const Value *> &Seen) {
  if (std::optional<int64_t> C = constantInt(V))
    return *C >= 0 && *C < Slots;
  if (Value *X = advancedFrom(V, Slots))
    return slotInRange(X, Slots, Seen);
  Instruction *Phi = asInstruction(V);
  if (!Phi || Phi->getOpcode() != Opcode::Phi)
    return false;
  if (!Seen.insert(Phi).second)
    return true;
  for (Value *In : Phi->operands())
    if (!slotInRange(In, Slots, Seen))
      return false;
  return true;
}

std::optional<SlotIndex> slotIndex(const SlotRef &S, const Loop &L) {
  int64_t Slots = S.Buffer->getType()->getNumSlots();
  if (!S.Index)
    return SlotIndex{0, false};
  if (std::optional<int64_t> C = constantInt(S.Index))
    return *C >= 0 && *C < Slots ? std::optional<SlotIndex>(SlotIndex{*C, false}) : std::nullopt;
  Instruction *Phi = asInstruction(S.Index);
  if (!Phi || Phi->getOpcode() != Opcode::Phi || Phi->getParent() != L.getHeader() ||
      Phi->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> Start;
  const Value *Origin = nullptr;
  bool Advances = false;
  for (unsigned K = 0; K < 2; ++K) {
    if (L.contains(Phi->getIncomingBlock(K))) {
      Advances = advancesModulo(Phi->getOperand(K), Phi, Slots);
      continue;
    }
    // A constant, or a value in range advanced by a few slots.
    Value *V = Phi->getOperand(K);
    int64_t Steps = 0;
    for (Value *X; Steps < Slots && (X = advancedFrom(V, Slots)); ++Steps)
      V = X;
    if (std::optional<int64_t> C = constantInt(V)) {
      if (*C >= 0 && *C < Slots)
        Start = (*C + Steps) % Slots;
      continue;
    }
    Instruction *OI = asInstruction(V);
    std::set<const Value *> Seen;
    if (OI && !L.contains(OI) && slotInRange(V, Slots, Seen)) {
      Origin = V;
      Start = Steps % Slots;
    }
  }
  if (!Advances || !Start)
    return std::nullopt;
  return SlotIndex{*Start, true, Origin};
}

/// A loop whose wgmma might keep its group in flight, and where the
/// instructions of one iteration run relative to its wait.
class InFlightCandidate {
public:
  InFlightCandidate(Instruction &W, const Loop &L, unsigned NumWarps)
      : W(W), L(L), WB(W.getParent()), NumWarps(NumWarps) {}

  /// "" when the rewrite applies; else why not, with Culprit set. An empty
  /// result with no Wait means there is nothing to do (already in flight).
  /// CheckWrites: whether the loop's writes of the slots matter (not where
  /// warp-specialize moves them into a producer partition).
  std::string analyze(const DominatorTree &DT, bool CheckWrites = true);
  void rewrite();
  /// Undoes rewrite().
  void undo();
  const Instruction *culprit() const { return Culprit; }
  bool hasWait() const { return Wait != nullptr; }
  const Instruction &wgmma() const { return W; }

private:
  std::string refuse(const Instruction *At, std::string Why) {
    Culprit = At;
    return Why;
  }
  std::string checkAccumulator();
  std::string checkWrites();
  /// Groups up to iteration i - result are retired in every warpgroup when
  /// I runs in iteration i; 0 when the pass cannot tell.
  unsigned retiredDistance(const Instruction &I) const;
  bool before(const Instruction &A, const Instruction &B) const;
  bool barrierIn(const BasicBlock &BB, const Instruction *From, const Instruction *To) const;

  Instruction &W;
  const Loop &L;
  BasicBlock *WB;
  unsigned NumWarps;
  Instruction *Wait = nullptr;
  /// The loop's blocks after WB in an iteration (reached without the header).
  std::set<const BasicBlock *> After;
  std::vector<BasicBlock *> Exits;
  /// The exits' `wgmma_wait 0` rewrite() added.
  std::vector<Instruction *> Drains;
  const Instruction *Culprit = nullptr;
};

bool InFlightCandidate::before(const Instruction &A, const Instruction &B) const {
  for (const auto &I : A.getParent()->instructions()) {
    if (I.get() == &A)
      return true;
    if (I.get() == &B)
      return false;
  }
  return false;
}

/// Whether BB has a barrier strictly between From and To (null: its start,
/// its end).
bool InFlightCandidate::barrierIn(const BasicBlock &BB, const Instruction *From,
                                  const Instruction *To) const {
  bool Inside = From == nullptr;
  for (const auto &I : BB.instructions()) {
    if (I.get() == To)
      return false;
    if (Inside && I->getOpcode() == Opcode::Barrier)
      return true;
    if (I.get() == From)
      Inside = true;
  }
  return false;
}

std::string InFlightCandidate::analyze(const DominatorTree &DT, bool CheckWrites) {
  // The commit of W's group and the wait after it, in W's block.
  Instruction *Commit = nullptr;
  for (auto It = std::next(WB->iteratorTo(&W)); It != WB->instructions().end(); ++It) {
    Instruction *I = It->get();
    if (I->getOpcode() == Opcode::Wgmma)
      return refuse(I, "another wgmma joins the group before its wait");
    if (!Commit && I->getOpcode() == Opcode::WgmmaCommit)
      Commit = I;
    else if (Commit && I->getOpcode() == Opcode::WgmmaWait) {
      Wait = I;
      break;
    }
  }
  if (!Wait)
    return refuse(&W, "no wgmma_commit and wgmma_wait follow the wgmma in its block");
  if (Wait->Count != 0) {
    Wait = nullptr; // already leaves groups in flight
    return "";
  }
  for (BasicBlock *Latch : L.getLatches())
    if (!DT.dominates(WB, Latch))
      return refuse(&W, "the wgmma does not run in every iteration");
  for (BasicBlock *BB : L.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() == Opcode::Wgmma && I.get() != &W)
        return refuse(I.get(), "the loop issues another wgmma, whose groups the wait counts too");
      // A warp-specialized consumer hands each slot back to the producer on
      // an empty barrier after the wait (an arrive on a barrier no fill
      // names); with the group left in flight it would hand back a slot
      // still read. Moving the release one iteration later is not done yet.
      if (I->getOpcode() == Opcode::MbarrierArrive && !namedByFill(I->getOperand(0)))
        return refuse(I.get(), "the loop releases a slot on an mbarrier after the wait (a "
                               "warp-specialized consumer), which a group in flight still reads");
    }
  std::vector<const BasicBlock *> Work = {WB};
  while (!Work.empty()) {
    const BasicBlock *BB = Work.back();
    Work.pop_back();
    for (BasicBlock *S : BB->successors())
      if (S != L.getHeader() && L.contains(S) && After.insert(S).second)
        Work.push_back(S);
  }
  for (BasicBlock *BB : L.blocks())
    for (BasicBlock *S : BB->successors())
      if (!L.contains(S) && std::find(Exits.begin(), Exits.end(), S) == Exits.end())
        Exits.push_back(S);
  for (BasicBlock *E : Exits)
    for (BasicBlock *P : E->predecessors())
      if (!L.contains(P))
        return refuse(E->getTerminator(), "an exit of the loop is also entered from outside it, "
                                          "where no wgmma_wait 0 may go");
  if (std::string Why = checkAccumulator(); !Why.empty())
    return Why;
  return CheckWrites ? checkWrites() : "";
}

std::string InFlightCandidate::checkAccumulator() {
  Instruction *Phi = asInstruction(W.getOperand(2));
  if (!Phi || Phi->getOpcode() != Opcode::Phi || Phi->getParent() != L.getHeader())
    return refuse(&W, "the accumulator is not carried by a phi of the loop's header");
  for (unsigned K = 0; K < Phi->getNumOperands(); ++K)
    if (L.contains(Phi->getIncomingBlock(K)) && Phi->getOperand(K) != &W)
      return refuse(Phi, "the accumulator phi " + printOperand(*Phi) +
                             " takes a value other than the wgmma's on a back edge");
  for (const Instruction *U : W.users())
    if (U != Phi)
      return refuse(U, "the wgmma's result is read before the next iteration's wgmma");
  for (const Instruction *U : Phi->users()) {
    if (U == &W)
      continue;
    if (L.contains(U))
      return refuse(U, "the accumulator " + printOperand(*Phi) +
                           " is read in the loop by more than the wgmma");
    if (U->getOpcode() == Opcode::Phi)
      return refuse(U, "the accumulator is read by a phi after the loop, on an edge where no "
                       "wgmma_wait 0 may go");
  }
  return "";
}

unsigned InFlightCandidate::retiredDistance(const Instruction &I) const {
  const BasicBlock *BB = I.getParent();
  bool AfterWait = BB == WB ? before(*Wait, I) : After.count(BB) != 0;
  // Wait 1 in iteration i retires this warpgroup's groups up to i - 1.
  if (NumWarps <= 4)
    return AfterWait ? 1 : 2;
  // Several warpgroups: a barrier every thread passes after its wait of
  // iteration i retires i - 1 everywhere; one after the wait of i - 1 (any
  // barrier of this iteration before I), i - 2.
  bool BetweenWaitAndI =
      AfterWait && (BB == WB ? barrierIn(*WB, Wait, &I)
                             : barrierIn(*WB, Wait, nullptr) || barrierIn(*BB, nullptr, &I));
  if (BetweenWaitAndI)
    return 1;
  bool EarlierInIteration = barrierIn(*BB, nullptr, &I) ||
                            (After.count(BB) && barrierIn(*WB, nullptr, nullptr)) ||
                            (BB != L.getHeader() && barrierIn(*L.getHeader(), nullptr, nullptr));
  // WB runs whole in every iteration, so a barrier after its wait runs in
  // iteration i - 1 after that iteration's wait, before anything of
  // iteration i: where insert-barriers places the loop's barrier below a
  // refill it proved apart from the slots read in the same iteration.
  bool AfterPreviousWait = barrierIn(*WB, Wait, nullptr);
  return EarlierInIteration || AfterPreviousWait ? 2 : 0;
}

std::string InFlightCandidate::checkWrites() {
  struct Read {
    SlotRef Slot;
    SlotIndex Index;
  };
  std::vector<Read> Reads;
  for (unsigned K = 0; K < 2; ++K) {
    Value *Op = W.getOperand(K);
    if (!Op->getType()->isSharedBuffer())
      continue;
    std::optional<SlotRef> S = slotOf(Op);
    std::optional<SlotIndex> Index = S ? slotIndex(*S, L) : std::nullopt;
    if (!Index)
      return refuse(&W, std::string("the pass cannot tell which slot operand ") + (K ? "B" : "A") +
                            " " + printOperand(*Op) +
                            " is in each iteration (a constant, or a ring index advanced by "
                            "one modulo the slots)");
    Reads.push_back({*S, *Index});
  }
  for (BasicBlock *BB : L.blocks())
    for (const auto &IP : BB->instructions()) {
      Value *Written = writtenSlot(*IP);
      if (!Written)
        continue;
      std::optional<SlotRef> S = slotOf(Written);
      for (const Read &R : Reads) {
        if (S && S->Buffer != R.Slot.Buffer)
          continue;
        std::optional<SlotIndex> Index = S ? slotIndex(*S, L) : std::nullopt;
        if (!Index || Index->Cyclic != R.Index.Cyclic || Index->Origin != R.Index.Origin)
          return refuse(IP.get(), "this write into shared memory has a slot the pass cannot "
                                  "compare with the ones the wgmma reads");
        int64_t Slots = R.Slot.Buffer->getType()->getNumSlots();
        if (!Index->Cyclic) {
          if (Index->Start != R.Index.Start)
            continue;
          return refuse(IP.get(), "this write overwrites, in every iteration, the slot the "
                                  "wgmma reads");
        }
        // The write of iteration i lands in the slot iteration i - Back read.
        int64_t Back = ((R.Index.Start - Index->Start) % Slots + Slots) % Slots;
        unsigned Retired = retiredDistance(*IP);
        if (Retired == 0)
          return refuse(IP.get(), "with several warpgroups, no barrier orders this write after "
                                  "the other warpgroups' waits for the group reading its slot");
        if (Back < static_cast<int64_t>(Retired))
          return refuse(IP.get(), "this write refills the slot that the wgmma of " +
                                      std::string(Back == 0   ? "the same iteration"
                                                  : Back == 1 ? "the previous iteration"
                                                              : "an earlier iteration") +
                                      " read, which a group left in flight may still read (" +
                                      std::to_string(Slots) +
                                      " slots; a ring one slot deeper would allow it)");
      }
    }
  return "";
}

void InFlightCandidate::rewrite() {
  Wait->Count = 1;
  for (BasicBlock *E : Exits) {
    auto Pos = E->instructions().begin();
    while ((*Pos)->getOpcode() == Opcode::Phi)
      ++Pos;
    if ((*Pos)->getOpcode() == Opcode::WgmmaWait && (*Pos)->Count == 0)
      continue;
    auto Drain = Instruction::create(Opcode::WgmmaWait, Type::getVoid(), {});
    Drain->Count = 0;
    Drain->Loc = L.getHeader()->getTerminator()->Loc;
    Drains.push_back(Drain.get());
    E->insert(Pos, std::move(Drain));
  }
}

void InFlightCandidate::undo() {
  Wait->Count = 0;
  for (Instruction *Drain : Drains)
    Drain->eraseFromParent();
  Drains.clear();
}

} // namespace

bool MmaInFlightPass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  WarpSpecializeOptions Split;
  Split.NumWarps = NumWarps;
  if (BeforeSplit && !whyNotWarpSpecialized(F, Split, AM).empty())
    return false;
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  const DominatorTree &DT = AM.get<DominatorTree>(F);
  std::vector<Instruction *> Wgmmas;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::Wgmma && LI.getLoopFor(BB.get()))
        Wgmmas.push_back(I.get());
  // The rewrite adds no blocks and changes no operand: the loop info and
  // the dominator tree stay valid from one wgmma to the next.
  std::vector<InFlightCandidate> Rewritten;
  std::vector<std::pair<const Instruction *, std::string>> Missed;
  for (Instruction *W : Wgmmas) {
    InFlightCandidate C(*W, *LI.getLoopFor(W->getParent()), NumWarps);
    std::string Why = C.analyze(DT, /*CheckWrites=*/!BeforeSplit);
    if (Why.empty() && !C.hasWait())
      continue;
    if (!Why.empty()) {
      Missed.push_back({C.culprit() ? C.culprit() : W, Why});
      continue;
    }
    C.rewrite();
    Rewritten.push_back(std::move(C));
  }
  // A wait 1 outside warp-specialize's form (an exit that does not leave
  // from the header) would make it decline, leaving the group in flight in
  // a kernel of several warpgroups with no barriers checked: undone.
  std::string SplitDeclines =
      BeforeSplit && !Rewritten.empty() ? whyNotWarpSpecialized(F, Split, AM) : std::string();
  if (!SplitDeclines.empty()) {
    for (InFlightCandidate &C : Rewritten)
      C.undo();
    Rewritten.clear();
  }
  if (Diags) {
    for (const auto &[At, Why] : Missed)
      Diags->remark(RemarkKind::Missed, "mma-in-flight", SourceRange(At->Loc),
                    "the wgmma's group is waited for in its own iteration: " + Why);
    if (!SplitDeclines.empty())
      Diags->remark(RemarkKind::Missed, "mma-in-flight", SourceRange(Wgmmas.front()->Loc),
                    "no wgmma group is left in flight before warp-specialize: with it the "
                    "kernel would not be split (" +
                        SplitDeclines + ")");
    for (const InFlightCandidate &C : Rewritten)
      Diags->remark(RemarkKind::Passed, "mma-in-flight", SourceRange(C.wgmma().Loc),
                    "one wgmma group left in flight across the back edge (wgmma_wait 1); the "
                    "loop's exits wait for it");
  }
  return !Rewritten.empty();
}

std::unique_ptr<Pass> createMmaInFlightPass() { return std::make_unique<MmaInFlightPass>(); }

std::unique_ptr<Pass> createMmaInFlightPass(unsigned NumWarps, bool BeforeSplit) {
  return std::make_unique<MmaInFlightPass>(NumWarps, BeforeSplit);
}

} // namespace tritonc::transform
