//===- Utils.cpp - Small helpers shared by the passes ---------------------===//
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <set>

namespace tritonc::transform {

using namespace ir;

bool isPure(const Instruction &I) {
  if (I.hasSideEffects() || I.readsMemory())
    return false;
  switch (I.getCategory()) {
  case OpCategory::Memory:
  case OpCategory::Atomic:
  case OpCategory::Control:
    return false;
  default:
    return !I.getType()->isVoid();
  }
}

bool isSafeToSpeculate(const Instruction &I) {
  if (!isPure(I))
    return false;
  switch (I.getOpcode()) {
  case Opcode::SDiv:
  case Opcode::UDiv:
  case Opcode::SRem:
  case Opcode::URem: {
    Constant *D = getConstantOrSplat(I.getOperand(1));
    return D && !D->isUndef() && D->getInt() != 0;
  }
  default:
    return true;
  }
}

Constant *getConstantOrSplat(Value *V) {
  if (Constant *C = asConstant(V))
    return C;
  if (Instruction *I = asInstruction(V))
    if (I->getOpcode() == Opcode::Splat)
      return asConstant(I->getOperand(0));
  return nullptr;
}

Value *materializeConstant(Constant *C, const Type *T, Instruction *InsertBefore) {
  if (T->isScalar())
    return C;
  auto Splat = Instruction::create(Opcode::Splat, T, {C});
  Splat->Loc = InsertBefore->Loc;
  BasicBlock *BB = InsertBefore->getParent();
  return BB->insert(BB->iteratorTo(InsertBefore), std::move(Splat));
}

bool eraseIfTriviallyDead(Instruction *I) {
  if (!I || I->hasUses() || !isPure(*I))
    return false;
  eraseTriviallyDead({I});
  return true;
}

void eraseTriviallyDead(const std::vector<Value *> &Roots) {
  // A root may be an operand of another root, so erasing one can free a later
  // one: every erased instruction is remembered and never looked at again (no
  // instruction is created meanwhile, so a freed address is not reused).
  std::set<Instruction *> Erased;
  std::vector<Instruction *> Worklist;
  for (auto It = Roots.rbegin(); It != Roots.rend(); ++It)
    if (Instruction *I = asInstruction(*It))
      Worklist.push_back(I);
  while (!Worklist.empty()) {
    Instruction *Cur = Worklist.back();
    Worklist.pop_back();
    if (Erased.count(Cur) || Cur->hasUses() || !Cur->getParent() || !isPure(*Cur))
      continue;
    std::vector<Value *> Ops = Cur->operands();
    Cur->dropAllOperands();
    Cur->eraseFromParent();
    Erased.insert(Cur);
    for (Value *Op : Ops)
      if (Instruction *OpI = asInstruction(Op))
        Worklist.push_back(OpI);
  }
}

std::unique_ptr<Instruction> cloneDetached(const Instruction &I) {
  bool Phi = I.getOpcode() == Opcode::Phi;
  std::unique_ptr<Instruction> C =
      Instruction::create(I.getOpcode(), I.getType(), Phi ? std::vector<Value *>{} : I.operands());
  for (unsigned K = 0; Phi && K < I.getNumOperands(); ++K)
    C->addIncoming(I.getOperand(K), I.getIncomingBlock(K));
  for (BasicBlock *S : I.successors())
    C->addSuccessor(S);
  C->Predicate = I.Predicate;
  C->Reduction = I.Reduction;
  C->Axis = I.Axis;
  C->RangeStart = I.RangeStart;
  C->RangeEnd = I.RangeEnd;
  C->Loc = I.Loc;
  C->Text = I.Text;
  C->MultipleOf = I.MultipleOf;
  C->Count = I.Count;
  C->WaitsForWrites = I.WaitsForWrites;
  C->PerWarp = I.PerWarp;
  C->Partitions = I.Partitions;
  C->setName(I.getName());
  return C;
}

void replaceAndErase(Instruction *I, Value *V) {
  I->replaceAllUsesWith(V);
  eraseIfTriviallyDead(I);
}

std::vector<BasicBlock *> reversePostOrder(const Function &F) {
  std::vector<BasicBlock *> PostOrder;
  BasicBlock *Entry = F.getEntryBlock();
  if (!Entry)
    return PostOrder;
  // Iterative DFS: (block, index of the next successor to visit).
  std::set<BasicBlock *> Visited{Entry};
  std::vector<std::pair<BasicBlock *, size_t>> Stack{{Entry, 0}};
  while (!Stack.empty()) {
    auto &[BB, Next] = Stack.back();
    std::vector<BasicBlock *> Succs = BB->successors();
    if (Next < Succs.size()) {
      BasicBlock *S = Succs[Next++];
      if (Visited.insert(S).second)
        Stack.push_back({S, 0});
      continue;
    }
    PostOrder.push_back(BB);
    Stack.pop_back();
  }
  std::reverse(PostOrder.begin(), PostOrder.end());
  return PostOrder;
}

bool sweepUntilUnchanged(Function &F, const std::function<bool(Instruction &)> &Visit) {
  bool Changed = false;
  for (bool Again = true; Again;) {
    Again = false;
    for (BasicBlock *BB : reversePostOrder(F)) {
      for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
        // Step past I first: Visit may erase it.
        Instruction *I = It->get();
        ++It;
        if (Visit(*I))
          Again = Changed = true;
      }
    }
  }
  return Changed;
}

void removePhiEntriesFor(BasicBlock *Succ, const BasicBlock *Pred) {
  for (auto &I : Succ->instructions()) {
    if (I->getOpcode() != Opcode::Phi)
      break;
    for (unsigned K = I->getNumOperands(); K-- > 0;)
      if (I->getIncomingBlock(K) == Pred)
        I->removeIncoming(K);
  }
}

const ir::Instruction *firstUnpaddedTile(const ir::Function &F) {
  auto Unpadded = [](const ir::Value *V) {
    if (!V->getType()->isTile())
      return false;
    const ir::Shape &S = V->getType()->getShape();
    return std::any_of(S.begin(), S.end(), [](int64_t D) { return D <= 0 || (D & (D - 1)); });
  };
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (Unpadded(I.get()) || std::any_of(I->operands().begin(), I->operands().end(), Unpadded))
        return I.get();
  return nullptr;
}

std::vector<const Instruction *> instructionsAround(const Instruction &I, bool Forward) {
  const BasicBlock *Home = I.getParent();
  auto Next = [&](const BasicBlock *BB) { return Forward ? BB->successors() : BB->predecessors(); };
  std::vector<const Instruction *> Out;
  bool After = false;
  for (const auto &J : Home->instructions()) {
    if (J.get() == &I)
      After = true;
    else if (After == Forward)
      Out.push_back(J.get());
  }
  std::set<const BasicBlock *> Visited;
  std::vector<BasicBlock *> Work = Next(Home);
  while (!Work.empty()) {
    const BasicBlock *BB = Work.back();
    Work.pop_back();
    if (!Visited.insert(BB).second)
      continue;
    for (const auto &J : BB->instructions())
      Out.push_back(J.get());
    for (BasicBlock *N : Next(BB))
      Work.push_back(N);
  }
  return Out;
}

} // namespace tritonc::transform
