//===- LICM.cpp - Loop-invariant code motion ------------------------------===//
#include "tritonc/transform/LICM.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>

namespace tritonc::transform {

using namespace ir;

BasicBlock *insertPreheader(const Loop &L) {
  BasicBlock *H = L.getHeader();
  std::vector<BasicBlock *> Outside = L.getOutsidePredecessors();
  if (Outside.empty())
    return nullptr;
  Function *F = H->getParent();
  BasicBlock *PH =
      F->createBlock(H->getName().empty() ? "preheader" : H->getName() + ".preheader", H);

  for (BasicBlock *P : Outside) {
    Instruction *T = P->getTerminator();
    for (unsigned K = 0; K < T->successors().size(); ++K)
      if (T->successors()[K] == H)
        T->setSuccessor(K, PH);
  }

  // The header's phis now have one entry for all the outside edges. When
  // those edges carried different values, a phi in the preheader merges them.
  std::vector<Instruction *> Phis;
  for (auto &I : H->instructions()) {
    if (I->getOpcode() != Opcode::Phi)
      break;
    Phis.push_back(I.get());
  }
  for (Instruction *Phi : Phis) {
    std::vector<unsigned> FromOutside;
    for (unsigned K = 0; K < Phi->getNumOperands(); ++K)
      if (std::find(Outside.begin(), Outside.end(), Phi->getIncomingBlock(K)) != Outside.end())
        FromOutside.push_back(K);
    if (FromOutside.empty())
      continue;
    Value *Incoming = Phi->getOperand(FromOutside[0]);
    bool AllSame = std::all_of(FromOutside.begin(), FromOutside.end(),
                               [&](unsigned K) { return Phi->getOperand(K) == Incoming; });
    if (!AllSame) {
      auto Merge = Instruction::create(Opcode::Phi, Phi->getType(), {});
      if (!Phi->getName().empty())
        Merge->setName(Phi->getName() + ".ph");
      Merge->Loc = Phi->Loc;
      for (unsigned K : FromOutside)
        Merge->addIncoming(Phi->getOperand(K), Phi->getIncomingBlock(K));
      Incoming = PH->append(std::move(Merge));
    }
    // Rebuild the entry list so that the preheader's entry takes the place
    // of the first outside one (keeps the printed order familiar).
    std::vector<std::pair<Value *, BasicBlock *>> Entries;
    for (unsigned K = 0; K < Phi->getNumOperands(); ++K) {
      if (K == FromOutside[0])
        Entries.push_back({Incoming, PH});
      else if (std::find(FromOutside.begin(), FromOutside.end(), K) == FromOutside.end())
        Entries.push_back({Phi->getOperand(K), Phi->getIncomingBlock(K)});
    }
    while (Phi->getNumOperands() != 0)
      Phi->removeIncoming(Phi->getNumOperands() - 1);
    for (auto &[V, BB] : Entries)
      Phi->addIncoming(V, BB);
  }

  auto Br = Instruction::create(Opcode::Br, Type::getVoid(), {});
  Br->addSuccessor(H);
  PH->append(std::move(Br));
  return PH;
}

namespace {

bool isDefinedOutside(const Value *V, const Loop &L) {
  const Instruction *I = asInstruction(const_cast<Value *>(V));
  return !I || !L.contains(I);
}

/// Hoists the invariant instructions of L into its preheader PH.
bool hoistInvariants(const Loop &L, BasicBlock *PH, const DominatorTree &DT) {
  // Reverse post-order: an operand computed in the loop is visited, and
  // hoisted if invariant, before its users.
  std::vector<BasicBlock *> Order;
  for (BasicBlock *BB : DT.reversePostOrder())
    if (L.contains(BB))
      Order.push_back(BB);

  bool Changed = false;
  for (bool Again = true; Again;) {
    Again = false;
    for (BasicBlock *BB : Order) {
      for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
        Instruction *I = It->get();
        ++It;
        if (!isSafeToSpeculate(*I))
          continue;
        if (!std::all_of(I->operands().begin(), I->operands().end(),
                         [&](Value *Op) { return isDefinedOutside(Op, L); }))
          continue;
        std::unique_ptr<Instruction> Moved = I->removeFromParent();
        PH->insert(PH->iteratorTo(PH->getTerminator()), std::move(Moved));
        Changed = Again = true;
      }
    }
  }
  return Changed;
}

} // namespace

bool LICMPass::run(Function &F, AnalysisManager &AM) {
  bool Changed = false;
  {
    // Creating preheaders changes the CFG, so it happens first, for every
    // loop, and the analyses are recomputed afterwards.
    const LoopInfo &LI = AM.get<LoopInfo>(F);
    if (LI.empty())
      return false;
    for (Loop *L : LI.loopsInnermostFirst())
      if (!L->getPreheader() && insertPreheader(*L))
        Changed = true;
    if (Changed)
      AM.invalidate(F);
  }
  const DominatorTree &DT = AM.get<DominatorTree>(F);
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  for (Loop *L : LI.loopsInnermostFirst())
    if (BasicBlock *PH = L->getPreheader())
      Changed |= hoistInvariants(*L, PH, DT);
  return Changed;
}

std::unique_ptr<Pass> createLICMPass() { return std::make_unique<LICMPass>(); }

} // namespace tritonc::transform
