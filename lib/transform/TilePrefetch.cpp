//===- TilePrefetch.cpp - A pipeline's prologue issued a tile ahead -------===//
//
// A pipelined K loop inside another loop (a persistent kernel walking output
// tiles) starts each run with its prologue: the loads of its first D
// iterations, in its preheader. Run after run, the loop's tail, the epilogue
// that follows it (the tile's stores) and the next prologue's memory latency
// then happen one after the other. This moves the prologue one iteration of
// the outer loop ahead: the loads for the next tile are issued at the top of
// the block the K loop exits to, before that tile's epilogue, and reach the
// K loop through phis of the outer loop's header; the preheader of the outer
// loop issues those of the first tile. Each load is masked by "the outer
// loop runs that iteration" on top of its own mask, so a program reads
// nothing the original would not.
//
// Handled shape: the K loop's preheader and exit block are in the outer loop,
// and the exit block is the outer loop's only latch; the prologue loads are
// masked loads (what LoopPipeline.cpp makes) whose only users are the K
// loop's header phis; their address, mask and other values are pure
// functions of the outer loop's inductions (IterationValues.h). Moving loads
// above the stores of the epilogue needs them to read other memory: every
// pointer the loads and every memory write of the outer loop use must come
// from a distinct `noalias` (restrict) argument.
//
//===----------------------------------------------------------------------===//
#include "IterationValues.h"

#include "tritonc/analysis/PointerBase.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/LoopPipeline.h"
#include "tritonc/transform/Utils.h"

#include <optional>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The prologue loads of Inner: masked loads of its preheader used only by
/// its header's phis.
std::vector<Instruction *> prologueLoads(const Loop &Inner, BasicBlock *Preheader) {
  std::vector<Instruction *> Loads;
  for (auto &I : Preheader->instructions()) {
    if (I->getOpcode() != Opcode::MaskedLoad || I->users().empty())
      continue;
    bool OnlyPhis = true;
    for (Instruction *U : I->users())
      OnlyPhis = OnlyPhis && U->getOpcode() == Opcode::Phi && U->getParent() == Inner.getHeader();
    if (OnlyPhis)
      Loads.push_back(I.get());
  }
  return Loads;
}

/// Whether the loads may move above every memory write of Outer.
bool loadsMayPassWrites(const Loop &Outer, const std::vector<Instruction *> &Loads) {
  std::set<const Argument *> Read;
  for (Instruction *Load : Loads) {
    const Argument *A = analysis::pointerBase(Load->getOperand(0));
    if (!A || !A->attrs().NoAlias)
      return false;
    Read.insert(A);
  }
  for (BasicBlock *BB : Outer.blocks())
    for (auto &I : BB->instructions()) {
      if (!I->hasSideEffects() || I->isTerminator())
        continue;
      const Argument *A = analysis::pointerBase(I->getOperand(0));
      if (!A || !A->attrs().NoAlias || Read.count(A))
        return false;
    }
  return true;
}

class TilePrefetcher {
public:
  TilePrefetcher(const Loop &Inner, const Loop &Outer) : Inner(Inner), Outer(Outer) {}
  std::string analyze();
  void rewrite();

private:
  Instruction *loadAt(Instruction *Load, Where W, unsigned T, const std::string &Suffix);

  const Loop &Inner, &Outer;
  BasicBlock *OuterPreheader = nullptr, *Exit = nullptr;
  std::vector<Instruction *> Loads;
  std::optional<IterationValues> IV;
  /// The outer loop's header branch.
  ExitBranch Branch;
};

std::string TilePrefetcher::analyze() {
  BasicBlock *InnerPreheader = Inner.getPreheader();
  OuterPreheader = Outer.getPreheader();
  if (!InnerPreheader || !OuterPreheader || !Outer.contains(InnerPreheader))
    return "no preheaders";
  std::string Why;
  std::optional<ExitBranch> InnerBranch = exitBranch(Inner, Why);
  if (!InnerBranch)
    return "inner loop: " + Why;
  Exit = InnerBranch->Exit;
  std::vector<BasicBlock *> Latches = Outer.getLatches();
  if (Latches.size() != 1 || Latches[0] != Exit)
    return "the inner loop does not exit to the outer loop's latch";
  if (Exit->instructions().front()->getOpcode() == Opcode::Phi)
    return "the inner loop's exit block has phis";
  std::optional<ExitBranch> OuterBranch = exitBranch(Outer, Why);
  if (!OuterBranch)
    return "outer loop: " + Why;
  Branch = *OuterBranch;

  Loads = prologueLoads(Inner, InnerPreheader);
  if (Loads.empty())
    return "no prologue loads";
  if (!loadsMayPassWrites(Outer, Loads))
    return "the loads may read what the outer loop writes";
  IV.emplace(Outer, OuterPreheader, Exit, Exit->instructions().front().get(),
             /*NextAtBodyPoint=*/false);
  IV->GuardDivisors = true;
  IV->findInductions();
  if (!IV->isSliceClean(Branch.Cond))
    return "the outer exit condition is not a pure function of inductions";
  for (Instruction *Load : Loads)
    for (Value *V : Load->operands())
      if (!IV->isSliceClean(V))
        return "a prologue load is not a pure function of the outer inductions";
  return "";
}

Instruction *TilePrefetcher::loadAt(Instruction *Load, Where W, unsigned T,
                                    const std::string &Suffix) {
  Value *Guard = IV->loopRunsAt(Branch, W, T);
  const Type *MaskTy = Load->getOperand(1)->getType();
  if (MaskTy->isTile())
    Guard = IV->insert(W, Instruction::create(Opcode::Splat, MaskTy, {Guard}), nullptr);
  Value *Ptr = IV->valueAt(Load->getOperand(0), W, T);
  Value *Mask = IV->andWith(W, IV->valueAt(Load->getOperand(1), W, T), Guard);
  Value *Other = IV->valueAt(Load->getOperand(2), W, T);
  Instruction *New = IV->insert(
      W, Instruction::create(Opcode::MaskedLoad, Load->getType(), {Ptr, Mask, Other}), Load);
  New->setName(Load->getName() + Suffix);
  return New;
}

void TilePrefetcher::rewrite() {
  BasicBlock *Header = Outer.getHeader();
  auto FirstNonPhi = Header->instructions().begin();
  while ((*FirstNonPhi)->getOpcode() == Opcode::Phi)
    ++FirstNonPhi;
  for (Instruction *Load : Loads) {
    Instruction *First = loadAt(Load, Where::Preheader, 0, ".tile0");
    Instruction *Next = loadAt(Load, Where::Body, 1, ".nexttile");
    auto Phi = Instruction::create(Opcode::Phi, Load->getType(), {});
    Phi->Loc = Load->Loc;
    Phi->setName(Load->getName() + ".tile");
    Instruction *P = Header->insert(FirstNonPhi, std::move(Phi));
    P->addIncoming(First, OuterPreheader);
    P->addIncoming(Next, Exit);
    Load->replaceAllUsesWith(P);
    std::vector<Value *> Operands = Load->operands();
    Load->dropAllOperands();
    Load->eraseFromParent();
    eraseTriviallyDead(Operands);
  }
}

} // namespace

bool prefetchAcrossTiles(const Loop &Inner) {
  const Loop *Outer = Inner.getParentLoop();
  if (!Outer)
    return false;
  TilePrefetcher P(Inner, *Outer);
  if (!P.analyze().empty())
    return false;
  P.rewrite();
  return true;
}

} // namespace tritonc::transform
