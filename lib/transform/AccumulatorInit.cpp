//===- AccumulatorInit.cpp - A wgmma loop's zero accumulator as use_acc ---===//
//
// See AccumulatorInit.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AccumulatorInit.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

#include <cmath>
#include <string>
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

/// The loop whose header carries W's accumulator from one iteration to the
/// next, or null: a wgmma outside such a loop has no zero-trip accumulator
/// to rewrite, so the pass does not look at it (nor remark on it).
const Loop *accumulationLoopOf(Instruction &W, const LoopInfo &LI) {
  Instruction *Phi = asInstruction(W.getOperand(2));
  if (!Phi || Phi->getOpcode() != Opcode::Phi)
    return nullptr;
  const Loop *L = LI.getLoopFor(Phi->getParent());
  return L && L->getHeader() == Phi->getParent() && L->contains(&W) ? L : nullptr;
}

/// Why the accumulation loop L of W does not take the rewrite, or "" with
/// Out filled in when it does.
std::string whyNotRewritten(Instruction &W, const Loop &L, Candidate &Out) {
  Instruction *Phi = asInstruction(W.getOperand(2));
  if (!isTrue(W.getOperand(3)))
    return "use_acc is not the constant true (the program already decides when the "
           "accumulator counts)";
  if (W.users().size() != 1 || W.users()[0] != Phi)
    return "the wgmma's result is read by more than the accumulator phi";
  if (Phi->incomingBlocks().size() != 2)
    return "the accumulator phi has more than one entry or back edge";
  BasicBlock *Outside = nullptr;
  for (BasicBlock *From : Phi->incomingBlocks()) {
    Value *In = Phi->getIncomingValueFor(From);
    if (L.contains(From) && In != &W)
      return "the accumulator's back-edge value is not the wgmma's result";
    if (!L.contains(From)) {
      if (!isPositiveZeroSplat(In))
        return "the accumulator enters the loop as " + printOperand(*In) + ", not a splat of +0.0";
      Outside = From;
    }
  }
  if (!Outside)
    return "the accumulator phi has no entry from outside the loop";
  for (const Instruction *U : Phi->users()) {
    if (U == &W)
      continue;
    if (L.contains(U))
      return "the accumulator " + printOperand(*Phi) +
             " is read in the loop by more than the wgmma (it would see the undefined entry value)";
    if (U->getOpcode() == Opcode::Phi)
      return "the accumulator " + printOperand(*Phi) + " is read by a phi after the loop";
  }
  Out = Candidate{&W, Phi, Outside};
  return "";
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
  DiagnosticEngine *Diags = AM.diagnostics();
  std::vector<Candidate> Found;
  {
    const LoopInfo &LI = AM.get<LoopInfo>(F);
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions()) {
        if (I->getOpcode() != Opcode::Wgmma)
          continue;
        const Loop *L = accumulationLoopOf(*I, LI);
        if (!L)
          continue;
        Candidate C{};
        std::string Why = whyNotRewritten(*I, *L, C);
        if (Why.empty())
          Found.push_back(C);
        else if (Diags)
          Diags->remark(RemarkKind::Missed, "accumulator-init", SourceRange(I->Loc),
                        "the loop keeps its zero accumulator: " + Why);
      }
  }
  for (const Candidate &C : Found) {
    rewrite(C, *F.getParent());
    if (Diags)
      Diags->remark(RemarkKind::Passed, "accumulator-init", SourceRange(C.Wgmma->Loc),
                    "the loop's zero accumulator became the wgmma's use_acc flag (false on the "
                    "first iteration); readers after the loop select zeros if it ran none");
  }
  return !Found.empty();
}

std::unique_ptr<Pass> createAccumulatorInitPass() {
  return std::make_unique<AccumulatorInitPass>();
}

} // namespace tritonc::transform
