//===- SimplifyCFG.cpp - Straightens small conditional regions ------------===//
#include "tritonc/transform/SimplifyCFG.h"

#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>

namespace tritonc::transform {

using namespace ir;

namespace {

/// True when Side, a successor of BB, can be folded into BB: BB is its only
/// predecessor, it has no phis, it ends with `br` to another block and all
/// its other instructions are few and safe to speculate. Its branch target
/// is returned in Join.
bool isSpeculatableSide(BasicBlock *Side, BasicBlock *BB, BasicBlock *&Join) {
  if (Side == BB || Side == BB->getParent()->getEntryBlock())
    return false;
  std::vector<BasicBlock *> Preds = Side->predecessors();
  if (Preds.size() != 1 || Preds[0] != BB)
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

/// Moves the instructions of Side except its terminator before Pos.
void hoistInto(BasicBlock *Side, BasicBlock *BB, Instruction *Pos) {
  Instruction *T = Side->getTerminator();
  while (Side->front() != T) {
    std::unique_ptr<Instruction> I = Side->front()->removeFromParent();
    BB->insert(BB->iteratorTo(Pos), std::move(I));
  }
}

/// Replaces the terminator of BB with `br Dest`.
void replaceTerminatorWithBr(BasicBlock *BB, BasicBlock *Dest) {
  Instruction *Old = BB->getTerminator();
  auto Br = Instruction::create(Opcode::Br, Type::getVoid(), {});
  Br->addSuccessor(Dest);
  Br->Loc = Old->Loc;
  BB->append(std::move(Br));
  Value *Cond = Old->getNumOperands() ? Old->getOperand(0) : nullptr;
  Old->dropAllOperands();
  Old->eraseFromParent();
  eraseIfTriviallyDead(asInstruction(Cond));
}

/// Turns the triangle or diamond that BB's cond_br starts into straight-line
/// code (see the file comment). Returns true if it did.
bool speculateConditional(BasicBlock *BB) {
  Instruction *T = BB->getTerminator();
  if (!T || T->getOpcode() != Opcode::CondBr)
    return false;
  BasicBlock *S0 = T->successors()[0], *S1 = T->successors()[1];
  if (S0 == S1)
    return false;
  BasicBlock *Join0 = nullptr, *Join1 = nullptr;
  bool Spec0 = isSpeculatableSide(S0, BB, Join0);
  bool Spec1 = isSpeculatableSide(S1, BB, Join1);

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
    hoistInto(FromTrue, BB, T);
  if (FromFalse != BB)
    hoistInto(FromFalse, BB, T);

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
      Merged = BB->insert(BB->iteratorTo(T), std::move(Sel));
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
  Function *F = BB->getParent();
  if (FromTrue != BB)
    F->eraseBlock(FromTrue);
  if (FromFalse != BB)
    F->eraseBlock(FromFalse);
  return true;
}

/// Appends the only successor of BB to BB when BB is that successor's only
/// predecessor. Returns true if it did.
bool mergeWithSuccessor(BasicBlock *BB) {
  Instruction *T = BB->getTerminator();
  if (!T || T->getOpcode() != Opcode::Br)
    return false;
  BasicBlock *S = T->successors()[0];
  if (S == BB || S == BB->getParent()->getEntryBlock())
    return false;
  std::vector<BasicBlock *> Preds = S->predecessors();
  if (Preds.size() != 1 || Preds[0] != BB)
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
  for (BasicBlock *Succ : BB->successors())
    for (auto &I : Succ->instructions()) {
      if (I->getOpcode() != Opcode::Phi)
        break;
      for (unsigned K = 0; K < I->getNumOperands(); ++K)
        if (I->getIncomingBlock(K) == S)
          I->setIncomingBlock(K, BB);
    }
  BB->getParent()->eraseBlock(S);
  return true;
}

} // namespace

bool SimplifyCFGPass::run(Function &F, AnalysisManager &) {
  bool Changed = false;
  for (bool Again = true; Again;) {
    Again = false;
    // Only reachable blocks: unreachable code may hold cycles that merging
    // would turn into self loops; dce removes it anyway.
    for (BasicBlock *BB : reversePostOrder(F)) {
      if (speculateConditional(BB) || mergeWithSuccessor(BB)) {
        // The block list changed under the traversal: start over.
        Changed = Again = true;
        break;
      }
    }
  }
  return Changed;
}

std::unique_ptr<Pass> createSimplifyCFGPass() { return std::make_unique<SimplifyCFGPass>(); }

} // namespace tritonc::transform
