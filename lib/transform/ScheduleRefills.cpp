//===- ScheduleRefills.cpp - The next slot's copies above this slot's reads ===//
//
// See ScheduleRefills.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/ScheduleRefills.h"

#include "SlotIndices.h"

#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The cp_asyncs of one commit group and its commit, in one block.
struct Refill {
  std::vector<Instruction *> Copies;
  Instruction *Commit = nullptr;
};

/// The groups of a block that a commit closes after copies of its own.
std::vector<Refill> refillsOf(BasicBlock &BB) {
  std::vector<Refill> Out;
  Refill Open;
  for (auto &I : BB.instructions()) {
    switch (I->getOpcode()) {
    case Opcode::CpAsync:
      Open.Copies.push_back(I.get());
      break;
    case Opcode::CpAsyncCommit:
      if (!Open.Copies.empty()) {
        Open.Commit = I.get();
        Out.push_back(Open);
      }
      Open = {};
      break;
    case Opcode::CpAsyncWait:
      Open = {};
      break;
    default:
      break;
    }
  }
  return Out;
}

/// The slot a shared-memory access reads or writes (none for the other
/// instructions, and for smem_slot, which only computes an address).
std::vector<SlotRef> accessedSlots(Instruction &I) {
  std::vector<SlotRef> Out;
  switch (I.getOpcode()) {
  case Opcode::LocalLoad:
  case Opcode::LocalStore:
  case Opcode::Wgmma:
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
    for (Value *V : I.operands())
      if (V->getType()->isSharedBuffer())
        Out.push_back(slotRefOf(V));
    break;
  default:
    break;
  }
  return Out;
}

/// Whether a copy may move above I as far as I's own effects go (its slots
/// are checked apart): I does not write global memory, order asynchronous
/// copies or synchronize threads. Waits are not crossed: a wgmma_wait or
/// tma_store_wait may be what ends an earlier read of the slot a copy
/// overwrites.
bool mayCross(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::LocalLoad:
  case Opcode::LocalStore:
  case Opcode::Wgmma:
  case Opcode::WgmmaFence:
  case Opcode::WgmmaCommit:
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
  case Opcode::Load:
  case Opcode::MaskedLoad:
  case Opcode::Dot:
    return true;
  default:
    return !I.hasSideEffects();
  }
}

/// An instruction computing a moved copy's operands may move with it: it
/// has no effect but its result (loads read memory that nothing crossed
/// writes).
bool movesWithCopies(const Instruction &I) {
  return isPure(I) || I.getOpcode() == Opcode::Load || I.getOpcode() == Opcode::MaskedLoad;
}

class RefillMover {
public:
  RefillMover(BasicBlock &BB, const Refill &R) : BB(BB), R(R) {}

  /// The first local_load before the copies, or null.
  Instruction *target() const {
    for (auto &I : BB.instructions()) {
      if (I.get() == R.Copies.front())
        return nullptr;
      if (I->getOpcode() == Opcode::LocalLoad)
        return I.get();
    }
    return nullptr;
  }

  /// Collects what moves before Target; returns why not, with the culprit.
  std::string plan(Instruction *Target) {
    auto TargetIt = BB.iteratorTo(Target);
    std::set<const Instruction *> Before;
    for (auto It = BB.instructions().begin(); It != TargetIt; ++It)
      Before.insert(It->get());
    // The copies, the commit and what computes their operands in between.
    Moving.insert(R.Copies.begin(), R.Copies.end());
    Moving.insert(R.Commit);
    std::vector<Instruction *> Work(R.Copies.begin(), R.Copies.end());
    while (!Work.empty()) {
      Instruction *I = Work.back();
      Work.pop_back();
      for (Value *V : I->operands()) {
        Instruction *Op = asInstruction(V);
        if (!Op || Op->getParent() != &BB || Before.count(Op) || Moving.count(Op))
          continue;
        if (!movesWithCopies(*Op)) {
          Culprit = Op;
          return std::string("an operand of the copies comes from a ") +
                 opcodeName(Op->getOpcode()) + " below the first local_load";
        }
        Moving.insert(Op);
        Work.push_back(Op);
      }
    }
    // What the moved instructions cross.
    for (auto It = TargetIt; It->get() != R.Commit; ++It) {
      Instruction *X = It->get();
      if (Moving.count(X))
        continue;
      if (!mayCross(*X)) {
        Culprit = X;
        return std::string("the copies would cross a ") + opcodeName(X->getOpcode()) +
               (X->hasSideEffects() ? " (it writes memory, orders copies or synchronizes)" : "");
      }
      for (const SlotRef &S : accessedSlots(*X))
        for (Instruction *Copy : R.Copies)
          if (mayNameSameSlot(S, slotRefOf(Copy->getOperand(0)))) {
            Culprit = X;
            return std::string("this ") + opcodeName(X->getOpcode()) +
                   " may access the slot a copy of the refill writes";
          }
    }
    return "";
  }

  /// Moves the planned instructions before Target, in their order.
  void move(Instruction *Target) {
    std::vector<Instruction *> InOrder;
    for (auto It = BB.iteratorTo(Target); It != BB.instructions().end(); ++It)
      if (Moving.count(It->get()))
        InOrder.push_back(It->get());
    for (Instruction *I : InOrder) {
      std::unique_ptr<Instruction> Owned = I->removeFromParent();
      BB.insert(BB.iteratorTo(Target), std::move(Owned));
    }
  }

  const Instruction *culprit() const { return Culprit; }

private:
  BasicBlock &BB;
  const Refill &R;
  std::set<const Instruction *> Moving;
  const Instruction *Culprit = nullptr;
};

} // namespace

bool ScheduleRefillsPass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  bool Changed = false;
  for (auto &BB : F.blocks()) {
    for (const Refill &R : refillsOf(*BB)) {
      RefillMover Mover(*BB, R);
      Instruction *Target = Mover.target();
      if (!Target)
        continue; // nothing read before the copies: already as early as it gets
      if (std::string Why = Mover.plan(Target); !Why.empty()) {
        if (Diags)
          Diags->remark(RemarkKind::Missed, "schedule-refills",
                        SourceRange((Mover.culprit() ? Mover.culprit() : R.Commit)->Loc),
                        "ring refill not moved above the slot reads: " + Why);
        continue;
      }
      Mover.move(Target);
      Changed = true;
      if (Diags)
        Diags->remark(RemarkKind::Passed, "schedule-refills", SourceRange(R.Copies.front()->Loc),
                      std::to_string(R.Copies.size()) + " cp_async cop" +
                          (R.Copies.size() == 1 ? "y" : "ies") +
                          " of a ring refill issued before the slot reads of their iteration");
    }
  }
  return Changed;
}

std::unique_ptr<Pass> createScheduleRefillsPass() {
  return std::make_unique<ScheduleRefillsPass>();
}

} // namespace tritonc::transform
