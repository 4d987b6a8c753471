//===- AccumulatorInit.cpp - A wgmma loop's zero accumulator as use_acc ---===//
//
// See AccumulatorInit.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AccumulatorInit.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

#include <cmath>
#include <vector>

namespace tritonc::transform {

using namespace ir;

namespace {

/// Whether V is a splat of the constant +0.0.
bool isPositiveZeroSplat(const Value *V) {
  const Instruction *S = asInstruction(const_cast<Value *>(V));
  if (!S || S->getOpcode() != Opcode::Splat)
    return false;
  const Constant *C = asConstant(S->getOperand(0));
  return C && !C->isUndef() && C->getType()->isFloatOrFloatTile() && C->getFloat() == 0 &&
         !std::signbit(C->getFloat());
}

bool isTrue(const Value *V) {
  const Constant *C = asConstant(const_cast<Value *>(V));
  return C && !C->isUndef() && C->getType() == Type::getI1() && C->getInt() == 1;
}

/// A wgmma the rewrite applies to, with its accumulator phi and the phi's
/// incoming block from outside the loop.
struct Candidate {
  Instruction *Wgmma, *Phi;
  BasicBlock *Outside;
};

std::optional<Candidate> candidateOf(Instruction &W, const LoopInfo &LI) {
  Instruction *Phi = asInstruction(W.getOperand(2));
  if (!Phi || Phi->getOpcode() != Opcode::Phi || !isTrue(W.getOperand(3)))
    return std::nullopt;
  const Loop *L = LI.getLoopFor(Phi->getParent());
  if (!L || L->getHeader() != Phi->getParent() || !L->contains(&W))
    return std::nullopt;
  if (W.users().size() != 1 || W.users()[0] != Phi || Phi->incomingBlocks().size() != 2)
    return std::nullopt;
  BasicBlock *Outside = nullptr;
  for (BasicBlock *From : Phi->incomingBlocks()) {
    Value *In = Phi->getIncomingValueFor(From);
    if (L->contains(From) ? In != &W : !isPositiveZeroSplat(In))
      return std::nullopt;
    if (!L->contains(From))
      Outside = From;
  }
  if (!Outside)
    return std::nullopt;
  for (const Instruction *U : Phi->users())
    if (U != &W && (U->getOpcode() == Opcode::Phi || L->contains(U)))
      return std::nullopt;
  return Candidate{&W, Phi, Outside};
}

void rewrite(const Candidate &C, Module &M) {
  IRBuilder B(M);
  BasicBlock *Header = C.Phi->getParent();
  Value *Zero = C.Phi->getIncomingValueFor(C.Outside);
  // The flag: false on entry, true once an iteration (and its wgmma) ran.
  B.setInsertPoint(Header, Header->iteratorTo(C.Phi));
  B.setLoc(C.Phi->Loc);
  Instruction *Flag = B.createPhi(Type::getI1());
  for (BasicBlock *From : C.Phi->incomingBlocks())
    Flag->addIncoming(B.getBool(From != C.Outside), From);
  C.Wgmma->setOperand(3, Flag);
  // Readers after the loop, before the accumulator is replaced: a skipped
  // loop leaves zeros.
  std::vector<Instruction *> Readers;
  for (Instruction *U : C.Phi->users())
    if (U != C.Wgmma)
      Readers.push_back(U);
  for (Instruction *U : Readers) {
    B.setInsertPoint(U);
    B.setLoc(U->Loc);
    Instruction *Sel = B.create(Opcode::Select, C.Phi->getType(), {Flag, C.Phi, Zero});
    for (unsigned K = 0; K < U->getNumOperands(); ++K)
      if (U->getOperand(K) == C.Phi)
        U->setOperand(K, Sel);
  }
  // The loop enters with an accumulator the first wgmma ignores.
  B.setInsertPoint(asInstruction(Zero));
  B.setLoc(asInstruction(Zero)->Loc);
  Instruction *Undef =
      B.create(Opcode::Splat, Zero->getType(), {M.getUndef(Zero->getType()->getScalarType())});
  for (unsigned K = 0; K < C.Phi->getNumOperands(); ++K)
    if (C.Phi->getOperand(K) == Zero)
      C.Phi->setOperand(K, Undef);
}

} // namespace

bool AccumulatorInitPass::run(Function &F, AnalysisManager &AM) {
  std::vector<Candidate> Found;
  {
    const LoopInfo &LI = AM.get<LoopInfo>(F);
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Wgmma)
          if (std::optional<Candidate> C = candidateOf(*I, LI))
            Found.push_back(*C);
  }
  for (const Candidate &C : Found)
    rewrite(C, *F.getParent());
  return !Found.empty();
}

std::unique_ptr<Pass> createAccumulatorInitPass() {
  return std::make_unique<AccumulatorInitPass>();
}

} // namespace tritonc::transform
