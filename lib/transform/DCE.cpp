//===- DCE.cpp - Dead code elimination ------------------------------------===//
#include "tritonc/transform/DCE.h"

#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// A value that stands for a use left in reachable code by a removed block.
/// Valid IR has none (a value used outside its block must dominate the use),
/// so this only keeps the pass from crashing on unverified input.
Value *undefOfType(Function &F, const Type *T) {
  Module &M = *F.getParent();
  Constant *U = M.getUndef(T->getScalarType());
  if (T->isScalar())
    return U;
  BasicBlock *Entry = F.getEntryBlock();
  auto It = Entry->instructions().begin();
  while (It != Entry->instructions().end() && (*It)->getOpcode() == Opcode::Phi)
    ++It;
  return Entry->insert(It, Instruction::create(Opcode::Splat, T, {U}));
}

/// A phi whose incoming values are all V or the phi itself is V: after an
/// unreachable predecessor disappears, a loop-header phi often becomes one.
bool simplifyTrivialPhis(Function &F) {
  bool Changed = false;
  for (bool Again = true; Again;) {
    Again = false;
    for (auto &BB : F.blocks()) {
      for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
        Instruction *Phi = It->get();
        ++It;
        if (Phi->getOpcode() != Opcode::Phi)
          break;
        Value *Same = nullptr;
        bool Trivial = true;
        for (Value *V : Phi->operands()) {
          if (V == Phi || V == Same)
            continue;
          if (Same) {
            Trivial = false;
            break;
          }
          Same = V;
        }
        // A phi with no entries (its block has no predecessors) is left to
        // the mark-and-sweep below.
        if (!Trivial || !Same)
          continue;
        Phi->replaceAllUsesWith(Same);
        Phi->dropAllOperands();
        Phi->eraseFromParent();
        Changed = Again = true;
      }
    }
  }
  return Changed;
}

} // namespace

bool removeUnreachableBlocks(Function &F) {
  std::vector<BasicBlock *> RPO = reversePostOrder(F);
  std::set<BasicBlock *> Reachable(RPO.begin(), RPO.end());
  std::vector<BasicBlock *> Dead;
  for (auto &BB : F.blocks())
    if (!Reachable.count(BB.get()))
      Dead.push_back(BB.get());
  if (Dead.empty())
    return false;

  for (BasicBlock *BB : Dead)
    for (BasicBlock *S : BB->successors())
      if (Reachable.count(S))
        removePhiEntriesFor(S, BB);
  // Dead blocks may use each other's values in any order: drop all operands
  // first, then redirect what reachable code still uses (see undefOfType).
  for (BasicBlock *BB : Dead)
    for (auto &I : BB->instructions())
      I->dropAllOperands();
  for (BasicBlock *BB : Dead)
    for (auto &I : BB->instructions())
      if (I->hasUses())
        I->replaceAllUsesWith(undefOfType(F, I->getType()));
  for (BasicBlock *BB : Dead)
    F.eraseBlock(BB);
  simplifyTrivialPhis(F);
  return true;
}

bool DCEPass::run(Function &F, AnalysisManager &) {
  bool Changed = removeUnreachableBlocks(F);

  // Mark: everything with side effects is live, and so is every operand of
  // a live instruction.
  std::set<Instruction *> Live;
  std::vector<Instruction *> Worklist;
  for (auto &BB : F.blocks())
    for (auto &I : BB->instructions())
      if (I->hasSideEffects() && Live.insert(I.get()).second)
        Worklist.push_back(I.get());
  while (!Worklist.empty()) {
    Instruction *I = Worklist.back();
    Worklist.pop_back();
    for (Value *Op : I->operands())
      if (Instruction *OpI = asInstruction(Op))
        if (Live.insert(OpI).second)
          Worklist.push_back(OpI);
  }

  // Sweep: dead instructions may use each other (phi cycles), so drop every
  // operand before erasing any of them.
  std::vector<Instruction *> Dead;
  for (auto &BB : F.blocks())
    for (auto &I : BB->instructions())
      if (!Live.count(I.get()))
        Dead.push_back(I.get());
  for (Instruction *I : Dead)
    I->dropAllOperands();
  for (Instruction *I : Dead)
    I->eraseFromParent();
  return Changed || !Dead.empty();
}

std::unique_ptr<Pass> createDCEPass() { return std::make_unique<DCEPass>(); }

} // namespace tritonc::transform
