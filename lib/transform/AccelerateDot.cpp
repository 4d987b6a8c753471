//===- AccelerateDot.cpp - dot on warpgroup MMA from shared slots ----------===//
//
// See AccelerateDot.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AccelerateDot.h"

#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/SlotReads.h"
#include "tritonc/ir/Builder.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

#include <optional>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// "" when wgmma's descriptors can read slot type T; else why not.
std::string whyNotWgmmaSlot(const Type *T) {
  const Layout *L = T->getLayout();
  if (!L || !L->hasSwizzleMode() || L->getSwizzleBytes() == 0)
    return "its layout is no wgmma swizzle mode (#shared<swizzle=32|64|128>)";
  // Rows wider than the swizzle are column blocks (docs/IR.md), which the
  // descriptors step through; a wgmma operand has at least 16 rows per
  // block, whole 8-row swizzle patterns.
  if (T->getRank() != 2 || T->getElementType()->getScalarSizeInBytes() != 2)
    return "wgmma reads 2-D slots of 16-bit elements";
  return "";
}

/// Whether bulk tensor copies, and only they, write the buffer of Slot (an
/// smem_slot): their data reaches the async proxy through the mbarrier
/// every reader waits on, so wgmma reading it needs no proxy fence. A generic write
/// (local_store, cp_async) of any slot of the buffer needs the fence.
bool writtenByTensorCopiesOnly(const Value *Slot) {
  const Instruction *S = asInstruction(const_cast<Value *>(Slot));
  if (!S || S->getOpcode() != Opcode::SmemSlot)
    return false;
  const Instruction *Buffer = asInstruction(S->getOperand(0));
  if (!Buffer || Buffer->getOpcode() != Opcode::SmemAlloc)
    return false;
  bool Filled = false;
  for (const Instruction *U : Buffer->users()) {
    if (U->getOpcode() != Opcode::SmemSlot || U->getOperand(0) != Buffer)
      return false;
    for (const Instruction *Access : U->users()) {
      Opcode Op = Access->getOpcode();
      bool Fill = Op == Opcode::TmaLoad && Access->getOperand(Access->getNumOperands() - 2) == U;
      if (!Fill && Op != Opcode::LocalLoad && Op != Opcode::Wgmma && Op != Opcode::TmaStore)
        return false;
      Filled |= Fill;
    }
  }
  return Filled;
}

class DotRewriter {
public:
  DotRewriter(Module &M, const LoopInfo &LI) : B(M), LI(LI) {}

  void rewrite(Instruction &Dot, const Layout *Wgmma);

private:
  Value *accumulatorIn(Instruction &Dot, const Type *AccTy);
  void publishToAsyncProxy(Instruction &Dot);
  /// Inserts `convert_layout V : To` where User reads V (for a phi, at the
  /// end of the incoming block) and makes User read it.
  void convertForUser(Instruction &User, Value &V, const Type *To);

  IRBuilder B;
  const LoopInfo &LI;
  /// Blocks that already got their fence_proxy_async.
  std::set<const BasicBlock *> Fenced;
  /// Accumulator phis retyped, and the dots that feed them.
  std::set<const Instruction *> RetypedPhis;
};

void DotRewriter::convertForUser(Instruction &User, Value &V, const Type *To) {
  for (unsigned K = 0; K < User.getNumOperands(); ++K) {
    if (User.getOperand(K) != &V)
      continue;
    if (User.getOpcode() == Opcode::Phi)
      B.setInsertPoint(User.getIncomingBlock(K)->getTerminator());
    else
      B.setInsertPoint(&User);
    B.setLoc(User.Loc);
    User.setOperand(K, B.create(Opcode::ConvertLayout, To, {&V}));
  }
}

/// The accumulator in the #wgmma type AccTy. A header phi that the dot
/// alone feeds back is retyped (the loop then carries the wgmma's own
/// registers); its other readers convert back.
Value *DotRewriter::accumulatorIn(Instruction &Dot, const Type *AccTy) {
  Value *Acc = Dot.getOperand(2);
  if (Acc->getType() == AccTy)
    return Acc;
  Instruction *Phi = asInstruction(Acc);
  const Loop *L = Phi ? LI.getLoopFor(Phi->getParent()) : nullptr;
  bool Carried = Phi && Phi->getOpcode() == Opcode::Phi && L && L->getHeader() == Phi->getParent();
  for (unsigned K = 0; Carried && K < Phi->getNumOperands(); ++K)
    if (L->contains(Phi->getIncomingBlock(K)) && Phi->getOperand(K) != &Dot)
      Carried = false;
  if (!Carried) {
    B.setInsertPoint(&Dot);
    B.setLoc(Dot.Loc);
    return B.create(Opcode::ConvertLayout, AccTy, {Acc});
  }
  const Type *Old = Phi->getType();
  std::vector<Instruction *> Readers;
  for (Instruction *U : Phi->users())
    if (U != &Dot)
      Readers.push_back(U);
  Phi->mutateType(AccTy);
  RetypedPhis.insert(Phi);
  for (Instruction *U : Readers)
    convertForUser(*U, *Phi, Old);
  for (unsigned K = 0; K < Phi->getNumOperands(); ++K) {
    BasicBlock *From = Phi->getIncomingBlock(K);
    if (L->contains(From))
      continue;
    Value *In = Phi->getOperand(K);
    B.setInsertPoint(From->getTerminator());
    B.setLoc(Phi->Loc);
    // A splat may produce any layout: a zero stays a splat (what
    // accumulator-init looks for), nothing is converted.
    Instruction *Splat = asInstruction(In);
    Value *Typed = Splat && Splat->getOpcode() == Opcode::Splat
                       ? B.create(Opcode::Splat, AccTy, {Splat->getOperand(0)})
                       : B.create(Opcode::ConvertLayout, AccTy, {In});
    Phi->setOperand(K, Typed);
  }
  return Phi;
}

/// The async proxy reads the slots: a fence_proxy_async after their
/// generic-proxy writes landed, before the barrier that publishes them (or
/// before the MMA where the block has none), once per block. Slots only
/// bulk tensor copies fill have no generic-proxy writes to publish.
void DotRewriter::publishToAsyncProxy(Instruction &Dot) {
  BasicBlock *BB = Dot.getParent();
  bool OnlyTensorCopies = true;
  for (unsigned K = 0; K < 2; ++K) {
    const Instruction *Load = asInstruction(Dot.getOperand(K));
    OnlyTensorCopies &= Load && writtenByTensorCopiesOnly(Load->getOperand(0));
  }
  if (OnlyTensorCopies || !Fenced.insert(BB).second)
    return;
  Instruction *Pos = &Dot;
  for (auto It = BB->iteratorTo(&Dot); It != BB->instructions().begin();) {
    Instruction *I = (--It)->get();
    if (I->getOpcode() == Opcode::FenceProxyAsync)
      return;
    if (I->getOpcode() == Opcode::Barrier) {
      Pos = I;
      if (It != BB->instructions().begin() &&
          (*std::prev(It))->getOpcode() == Opcode::FenceProxyAsync)
        return;
      break;
    }
  }
  B.setInsertPoint(Pos);
  B.setLoc(Dot.Loc);
  B.create(Opcode::FenceProxyAsync, Type::getVoid(), {});
}

void DotRewriter::rewrite(Instruction &Dot, const Layout *Wgmma) {
  const Type *OldTy = Dot.getType();
  const Type *AccTy = OldTy->withLayout(Wgmma);
  Instruction *Loads[2] = {asInstruction(Dot.getOperand(0)), asInstruction(Dot.getOperand(1))};
  publishToAsyncProxy(Dot);
  Value *Acc = accumulatorIn(Dot, AccTy);
  B.setInsertPoint(&Dot);
  B.setLoc(Dot.Loc);
  B.create(Opcode::WgmmaFence, Type::getVoid(), {});
  Instruction *W =
      B.create(Opcode::Wgmma, AccTy,
               {Loads[0]->getOperand(0), Loads[1]->getOperand(0), Acc, B.getBool(true)});
  W->setName(Dot.getName());
  B.create(Opcode::WgmmaCommit, Type::getVoid(), {});
  Instruction *Wait = B.create(Opcode::WgmmaWait, Type::getVoid(), {});
  Wait->Count = 0;
  // Readers of the result: the retyped phi takes it as is, others convert
  // it back after the wait.
  std::vector<Instruction *> Users(Dot.users().begin(), Dot.users().end());
  Dot.replaceAllUsesWith(W);
  Value *Plain = nullptr;
  for (Instruction *U : Users) {
    if (RetypedPhis.count(U))
      continue;
    if (U->getOpcode() == Opcode::Phi) {
      convertForUser(*U, *W, OldTy);
      continue;
    }
    if (!Plain) {
      B.setInsertPoint(Wait->getParent(), std::next(Wait->getParent()->iteratorTo(Wait)));
      B.setLoc(Dot.Loc);
      Plain = B.create(Opcode::ConvertLayout, OldTy, {W});
    }
    for (unsigned K = 0; K < U->getNumOperands(); ++K)
      if (U->getOperand(K) == W)
        U->setOperand(K, Plain);
  }
  Dot.dropAllOperands();
  Dot.eraseFromParent();
  // A and B may be one local_load (a square tile times itself).
  for (Instruction *Load : {Loads[0], Loads[1] == Loads[0] ? nullptr : Loads[1]})
    if (Load && !Load->hasUses()) {
      Load->dropAllOperands();
      Load->eraseFromParent();
    }
}

} // namespace

bool AccelerateDotPass::run(Function &F, AnalysisManager &AM) {
  if (!Target.HasWgmma)
    return false;
  DiagnosticEngine *Diags = AM.diagnostics();
  auto Missed = [&](const Instruction &At, const std::string &Why) {
    if (Diags)
      Diags->remark(RemarkKind::Missed, "accelerate-dot", SourceRange(At.Loc),
                    "the dot does not use wgmma: " + Why);
  };
  std::vector<std::pair<Instruction *, const Layout *>> Found;
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions()) {
      Instruction &I = *IP;
      if (I.getOpcode() != Opcode::Dot)
        continue;
      analysis::DotPlan Plan =
          analysis::planDot(I, Target.NumWarps, Target.HasMmaV2, Target.AllowTF32, Target.HasWgmma);
      if (Plan.Kind != analysis::DotKind::Wgmma) {
        Missed(I, "the target runs it on another unit (" + Plan.Declined + ")");
        continue;
      }
      std::string Why;
      for (unsigned K = 0; K < 2 && Why.empty(); ++K) {
        const Instruction *Load = asInstruction(I.getOperand(K));
        std::string Name = K ? "operand B" : "operand A";
        if (!Load || Load->getOpcode() != Opcode::LocalLoad)
          Why = Name + " is not read from a shared slot (local_load): the back end stages it "
                       "through shared memory itself";
        else if (std::string Slot = whyNotWgmmaSlot(Load->getOperand(0)->getType()); !Slot.empty())
          Why = Name + "'s slot " + Load->getOperand(0)->getType()->str() + " is not read by " +
                "wgmma: " + Slot;
        else if (std::string Changed = analysis::whySlotChangedBeforeDot(*Load, I);
                 !Changed.empty())
          Why = Name + ": " + Changed;
      }
      if (!Why.empty()) {
        Missed(I, Why);
        continue;
      }
      int32_t KBytes =
          32 / static_cast<int32_t>(I.getOperand(0)->getType()->getScalarSizeInBytes());
      Found.emplace_back(&I, Layout::getWgmma({4 * Plan.WarpsPerCTA[0], Plan.WarpsPerCTA[1]},
                                              {64, Plan.InstrN, KBytes}));
    }
  if (Found.empty())
    return false;
  DotRewriter R(*F.getParent(), AM.get<LoopInfo>(F));
  for (auto &[Dot, Wgmma] : Found) {
    if (Diags)
      Diags->remark(RemarkKind::Passed, "accelerate-dot", SourceRange(Dot->Loc),
                    "the dot runs on wgmma (" + Wgmma->str() + ") from its operands' slots");
    R.rewrite(*Dot, Wgmma);
  }
  return true;
}

std::unique_ptr<Pass> createAccelerateDotPass() { return std::make_unique<AccelerateDotPass>(); }

std::unique_ptr<Pass> createAccelerateDotPass(AssignLayoutsTarget Target) {
  return std::make_unique<AccelerateDotPass>(Target);
}

} // namespace tritonc::transform
