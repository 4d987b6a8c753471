//===- InductionRemat.cpp - Loop-carried index tiles as start + scalar ----===//
#include "tritonc/transform/InductionRemat.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

namespace tritonc::transform {

using namespace ir;

namespace {

/// The scalar of `splat %s` when %s is defined outside L (or a constant).
Value *invariantSplatScalar(Value *V, const Loop &L) {
  Instruction *S = asInstruction(V);
  if (!S || S->getOpcode() != Opcode::Splat)
    return nullptr;
  Value *X = S->getOperand(0);
  Instruction *XI = asInstruction(X);
  if (XI && L.contains(XI))
    return nullptr;
  return X;
}

struct Induction {
  Instruction *Phi;
  Value *Init;
  BasicBlock *InitBlock, *LatchBlock;
  Instruction *Next;
  Value *Step; ///< scalar
  bool Subtract;
};

bool matchInduction(Instruction *Phi, const Loop &L, Induction &Out) {
  const Type *T = Phi->getType();
  if (!T->isTile() || Phi->getNumOperands() != 2 ||
      !(T->isPointerOrPointerTile() || (T->isIntOrIntTile() && !T->isBoolOrBoolTile())))
    return false;
  for (unsigned K = 0; K < 2; ++K) {
    BasicBlock *From = Phi->getIncomingBlock(K);
    if (L.contains(From))
      Out.LatchBlock = From, Out.Next = asInstruction(Phi->getOperand(K));
    else
      Out.InitBlock = From, Out.Init = Phi->getOperand(K);
  }
  Instruction *N = Out.Next;
  if (!N || !Out.Init || !Out.InitBlock || !L.contains(N) || N->getNumOperands() != 2)
    return false;
  Opcode Op = N->getOpcode();
  Out.Phi = Phi;
  Out.Subtract = Op == Opcode::Sub;
  if (Op == Opcode::GEP || Op == Opcode::Sub) {
    if (N->getOperand(0) != Phi)
      return false;
    Out.Step = invariantSplatScalar(N->getOperand(1), L);
  } else if (Op == Opcode::Add) {
    unsigned Other = N->getOperand(0) == Phi ? 1 : N->getOperand(1) == Phi ? 0 : 2;
    if (Other == 2)
      return false;
    Out.Step = invariantSplatScalar(N->getOperand(Other), L);
  } else {
    return false;
  }
  return Out.Step != nullptr;
}

} // namespace

bool InductionRematPass::run(Function &F, AnalysisManager &AM) {
  LoopInfo &LI = AM.get<LoopInfo>(F);
  std::vector<Induction> Found;
  for (Loop *L : LI.loopsInnermostFirst()) {
    BasicBlock *H = L->getHeader();
    for (auto &I : H->instructions()) {
      if (I->getOpcode() != Opcode::Phi)
        break;
      Induction Ind;
      if (matchInduction(I.get(), *L, Ind))
        Found.push_back(Ind);
    }
  }
  if (Found.empty())
    return false;
  IRBuilder B(*F.getParent());
  for (Induction &Ind : Found) {
    BasicBlock *H = Ind.Phi->getParent();
    B.setLoc(Ind.Phi->Loc);
    // Pointer offsets accumulate in 64 bits: the original pointer sums do
    // not wrap at 2^31 elements.
    if (Ind.Phi->getType()->isPointerOrPointerTile() && Ind.Step->getType()->getIntBits() < 64) {
      B.setInsertPoint(Ind.InitBlock->getTerminator());
      Ind.Step = B.createCast(Opcode::SExt, Ind.Step, Type::getI64());
    }
    const Type *StepTy = Ind.Step->getType();
    // The scalar offset: 0 on entry, advanced next to the tile's update.
    B.setInsertPoint(H, H->iteratorTo(Ind.Phi));
    Instruction *Offset = B.createPhi(StepTy);
    Offset->addIncoming(B.getConstantOfType(StepTy, 0), Ind.InitBlock);
    B.setInsertPoint(Ind.Next);
    Instruction *NextOffset =
        B.createBinary(Ind.Subtract ? Opcode::Sub : Opcode::Add, Offset, Ind.Step);
    Offset->addIncoming(NextOffset, Ind.LatchBlock);
    // The tile, recomputed from its start after the header's phis.
    auto Pos = H->instructions().begin();
    while (Pos != H->instructions().end() && (*Pos)->getOpcode() == Opcode::Phi)
      ++Pos;
    B.setInsertPoint(H, Pos);
    Instruction *Splat = B.createSplat(Offset, Ind.Phi->getType()->getShape());
    Instruction *Tile = Ind.Phi->getType()->isPointerOrPointerTile()
                            ? B.createGEP(Ind.Init, Splat)
                            : B.createBinary(Opcode::Add, Ind.Init, Splat);
    Ind.Phi->replaceAllUsesWith(Tile);
    Ind.Phi->dropAllOperands();
    Ind.Phi->eraseFromParent();
  }
  return true;
}

std::unique_ptr<Pass> createInductionRematPass() { return std::make_unique<InductionRematPass>(); }

} // namespace tritonc::transform
