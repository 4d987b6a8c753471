//===- SimplifyCFG.cpp - Straightens small conditional regions ------------===//
#include "tritonc/transform/SimplifyCFG.h"

#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The predecessors of every reachable block, computed once per sweep and
/// kept exact through the two rewrites below, so that a question about one
/// block costs its own edges rather than a scan of the function (a chain of
/// 10,000 `if`s made the pass cubic).
class PredecessorMap {
public:
  /// Every block's edges count, reachable or not, as an unreachable
  /// predecessor still names its successor.
  explicit PredecessorMap(Function &F) {
    for (auto &BB : F.blocks())
      for (BasicBlock *S : BB->successors())
        add(S, BB.get());
  }
  const std::vector<BasicBlock *> &of(BasicBlock *BB) { return Preds[BB]; }
  /// Whether BB is the one and only predecessor of S.
  bool onlyPredecessor(BasicBlock *S, BasicBlock *BB) {
    const std::vector<BasicBlock *> &P = of(S);
    return P.size() == 1 && P[0] == BB;
  }
  void add(BasicBlock *To, BasicBlock *From) {
    std::vector<BasicBlock *> &P = Preds[To];
    if (std::find(P.begin(), P.end(), From) == P.end())
      P.push_back(From);
  }
  void remove(BasicBlock *To, BasicBlock *From) { std::erase(Preds[To], From); }
  /// Marks BB, emptied but for maybe a `br`, for erasure at the end of the
  /// sweep (eraseDead).
  void forget(BasicBlock *BB) {
    Preds.erase(BB);
    Erased.insert(BB);
  }
  bool erased(BasicBlock *BB) const { return Erased.count(BB) != 0; }
  void eraseDead(Function &F) {
    F.eraseBlocksIf([&](const BasicBlock *BB) { return Erased.count(BB) != 0; });
  }

private:
  std::unordered_map<BasicBlock *, std::vector<BasicBlock *>> Preds;
  std::unordered_set<const BasicBlock *> Erased;
};

/// True when Side, a successor of BB, can be folded into BB: BB is its only
/// predecessor, it has no phis, it ends with `br` to another block and all
/// its other instructions are few and safe to speculate. Its branch target
/// is returned in Join.
bool isSpeculatableSide(BasicBlock *Side, BasicBlock *BB, BasicBlock *&Join,
                        PredecessorMap &Preds) {
  if (Side == BB || Side == BB->getParent()->getEntryBlock())
    return false;
  if (!Preds.onlyPredecessor(Side, BB))
    return false;
  Instruction *T = Side->getTerminator();
  if (!T || T->getOpcode() != Opcode::Br || T->successors()[0] == Side)
    return false;
  unsigned Count = 0;
  for (auto &I : Side->instructions()) {
    if (I.get() == T)
      break;
    if (I->getOpcode() == Opcode::Phi || !isSafeToSpeculate(*I) ||
        ++Count > MaxSpeculatedInstructions)
      return false;
  }
  Join = T->successors()[0];
  return true;
}

/// The position of BB's terminator (its last instruction): no search, as
/// BB may have grown to thousands of instructions by merging.
BasicBlock::iterator terminatorPosition(BasicBlock *BB) {
  return std::prev(BB->instructions().end());
}

/// Moves the instructions of Side except its terminator before BB's
/// terminator.
void hoistInto(BasicBlock *Side, BasicBlock *BB) {
  Instruction *T = Side->getTerminator();
  while (Side->front() != T) {
    std::unique_ptr<Instruction> I = Side->front()->removeFromParent();
    BB->insert(terminatorPosition(BB), std::move(I));
  }
}

/// Replaces the terminator of BB with `br Dest`.
void replaceTerminatorWithBr(BasicBlock *BB, BasicBlock *Dest) {
  Instruction *Old = BB->getTerminator();
  auto Br = Instruction::create(Opcode::Br, Type::getVoid(), {});
  Br->addSuccessor(Dest);
  Br->Loc = Old->Loc;
  Value *Cond = Old->getNumOperands() ? Old->getOperand(0) : nullptr;
  // Erased while it is the last instruction: found without a scan.
  Old->dropAllOperands();
  Old->eraseFromParent();
  BB->append(std::move(Br));
  eraseIfTriviallyDead(asInstruction(Cond));
}

/// Turns the triangle or diamond that BB's cond_br starts into straight-line
/// code (see the file comment). Returns true if it did.
bool speculateConditional(BasicBlock *BB, PredecessorMap &Preds) {
  Instruction *T = BB->getTerminator();
  if (!T || T->getOpcode() != Opcode::CondBr)
    return false;
  BasicBlock *S0 = T->successors()[0], *S1 = T->successors()[1];
  if (S0 == S1)
    return false;
  BasicBlock *Join0 = nullptr, *Join1 = nullptr;
  bool Spec0 = isSpeculatableSide(S0, BB, Join0, Preds);
  bool Spec1 = isSpeculatableSide(S1, BB, Join1, Preds);

  // The blocks the join's phis see on the true and on the false path.
  BasicBlock *Join = nullptr, *FromTrue = nullptr, *FromFalse = nullptr;
  if (Spec0 && Spec1 && Join0 == Join1) {
    Join = Join0;
    FromTrue = S0;
    FromFalse = S1;
  } else if (Spec0 && Join0 == S1) {
    Join = S1;
    FromTrue = S0;
    FromFalse = BB;
  } else if (Spec1 && Join1 == S0) {
    Join = S0;
    FromTrue = BB;
    FromFalse = S1;
  } else {
    return false;
  }
  // A join that is BB itself would turn the region into a self loop of BB.
  if (Join == BB)
    return false;

  Value *Cond = T->getOperand(0);
  if (FromTrue != BB)
    hoistInto(FromTrue, BB);
  if (FromFalse != BB)
    hoistInto(FromFalse, BB);

  for (auto &PhiPtr : Join->instructions()) {
    Instruction *Phi = PhiPtr.get();
    if (Phi->getOpcode() != Opcode::Phi)
      break;
    Value *OnTrue = Phi->getIncomingValueFor(FromTrue);
    Value *OnFalse = Phi->getIncomingValueFor(FromFalse);
    if (!OnTrue || !OnFalse)
      reportInternalError("simplifycfg: phi without an entry for a predecessor");
    Value *Merged = OnTrue;
    if (OnTrue != OnFalse) {
      auto Sel = Instruction::create(Opcode::Select, Phi->getType(), {Cond, OnTrue, OnFalse});
      Sel->Loc = Phi->Loc;
      Sel->setName(Phi->getName());
      Merged = BB->insert(terminatorPosition(BB), std::move(Sel));
    }
    // One entry from BB replaces the entries of the two paths, at the place
    // of the first of them.
    unsigned First = Phi->getNumOperands();
    for (unsigned K = 0; K < Phi->getNumOperands(); ++K) {
      BasicBlock *In = Phi->getIncomingBlock(K);
      if (In == FromTrue || In == FromFalse) {
        First = std::min(First, K);
        Phi->setIncomingBlock(K, BB);
      }
    }
    Phi->setOperand(First, Merged);
    for (unsigned K = Phi->getNumOperands(); K-- > First + 1;)
      if (Phi->getIncomingBlock(K) == BB)
        Phi->removeIncoming(K);
  }

  replaceTerminatorWithBr(BB, Join);
  for (BasicBlock *Side : {FromTrue, FromFalse})
    if (Side != BB) {
      Preds.remove(Join, Side);
      Preds.forget(Side);
    }
  Preds.add(Join, BB);
  return true;
}

/// Appends the only successor of BB to BB when BB is that successor's only
/// predecessor. Returns true if it did.
bool mergeWithSuccessor(BasicBlock *BB, PredecessorMap &Preds) {
  Instruction *T = BB->getTerminator();
  if (!T || T->getOpcode() != Opcode::Br)
    return false;
  BasicBlock *S = T->successors()[0];
  if (S == BB || S == BB->getParent()->getEntryBlock())
    return false;
  if (!Preds.onlyPredecessor(S, BB))
    return false;

  // With a single predecessor, every phi of S has one entry.
  while (!S->empty() && S->front()->getOpcode() == Opcode::Phi) {
    Instruction *Phi = S->front();
    Phi->replaceAllUsesWith(Phi->getOperand(0));
    Phi->dropAllOperands();
    Phi->eraseFromParent();
  }
  T->eraseFromParent();
  while (!S->empty())
    BB->append(S->front()->removeFromParent());
  for (BasicBlock *Succ : BB->successors()) {
    Preds.remove(Succ, S);
    Preds.add(Succ, BB);
    for (auto &I : Succ->instructions()) {
      if (I->getOpcode() != Opcode::Phi)
        break;
      for (unsigned K = 0; K < I->getNumOperands(); ++K)
        if (I->getIncomingBlock(K) == S)
          I->setIncomingBlock(K, BB);
    }
  }
  Preds.forget(S);
  return true;
}

} // namespace

bool SimplifyCFGPass::run(Function &F, AnalysisManager &) {
  bool Changed = false;
  for (bool Again = true; Again;) {
    Again = false;
    // Only reachable blocks: unreachable code may hold cycles that merging
    // would turn into self loops; dce removes it anyway.
    std::vector<BasicBlock *> Order = reversePostOrder(F);
    PredecessorMap Preds(F);
    for (BasicBlock *BB : Order) {
      // Rewrites erase successors of the block they rewrite, which the sweep
      // may not have reached yet.
      if (Preds.erased(BB))
        continue;
      // A rewrite may enable another at the same block (a merged successor
      // ending in a new triangle): retry it until nothing applies.
      while (speculateConditional(BB, Preds) || mergeWithSuccessor(BB, Preds))
        Changed = Again = true;
    }
    Preds.eraseDead(F);
  }
  return Changed;
}

std::unique_ptr<Pass> createSimplifyCFGPass() { return std::make_unique<SimplifyCFGPass>(); }

} // namespace tritonc::transform
