//===- AssignLayouts.cpp - The back end's layouts written into tile types --===//
//
// See AssignLayouts.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AssignLayouts.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Layout.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace tritonc::transform {

using analysis::LayoutAssignment;
using analysis::LinearLayout;
using namespace ir;

namespace {

bool isElementwise(const Instruction &I) {
  switch (I.getCategory()) {
  case OpCategory::Binary:
  case OpCategory::Unary:
  case OpCategory::Ternary:
  case OpCategory::Cmp:
  case OpCategory::Cast:
    return true;
  default:
    return I.getOpcode() == Opcode::Select || I.getOpcode() == Opcode::GEP;
  }
}

bool isGlobalAccess(const Instruction &I) {
  return (I.accessesMemory() || I.getOpcode() == Opcode::CpAsync) &&
         I.getOperand(I.getOpcode() == Opcode::CpAsync ? 1 : 0)->getType()->isTile();
}

/// Whether A comes before B in their (common) block.
bool precedes(const Instruction *A, const Instruction *B) {
  if (A->getParent() != B->getParent())
    return false;
  for (const auto &I : A->getParent()->instructions()) {
    if (I.get() == A)
      return true;
    if (I.get() == B)
      return false;
  }
  return false;
}

class Assigner {
public:
  Assigner(Function &F, const LayoutAssignment &LA) : F(F), LA(LA) {}

  void run() {
    std::vector<Instruction *> All;
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        All.push_back(I.get());
    for (Instruction *I : All)
      if (isRemat(I))
        Original[I] = I->operands();
    typeOwnLayouts();
    for (Instruction *U : All)
      if (!isRemat(U))
        for (unsigned K = 0; K < U->getNumOperands(); ++K)
          provideOperand(*U, K);
    // Rematerializable values no use reached (dead chains) take the
    // default layout, so that their types agree with their operands'.
    for (Instruction *I : All)
      if (isRemat(I) && !Retyped.count(I)) {
        LinearLayout L = LA.defaultLayout(I->getType()->getShape());
        materialize(I, L, Names.name(L, I->getType()->getShape()));
      }
    // Conversions that change nothing now (coalesce's, where the operand
    // took the access's layout; layout-free ones written in the input).
    for (const auto &BB : F.blocks())
      for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
        Instruction *I = (It++)->get();
        if (I->getOpcode() == Opcode::ConvertLayout &&
            I->getOperand(0)->getType() == I->getType()) {
          I->replaceAllUsesWith(I->getOperand(0));
          I->eraseFromParent();
        }
      }
  }

private:
  bool isRemat(const Value *V) const {
    return V->getType()->isTile() && ir::asInstruction(const_cast<Value *>(V)) &&
           LA.isRematerializable(V);
  }

  /// Every value with a layout of its own gets it, named. Operands come
  /// first (reverse post-order), so a value whose layout equals an
  /// operand's takes that operand's name (a reduction's #slice flows on).
  void typeOwnLayouts() {
    DominatorTree DT(F);
    // Accumulator layouts first, so that what else has them (the epilogue's
    // conversions, reached before the loop body) takes their #mma name.
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Dot && I->getType()->isTile())
          Names.name(LA.layoutOf(I.get()), I->getType()->getShape(), {accumulatorName(*I)});
    // Then reductions, whose type must be the #slice of their operand's:
    // equal layouts should have one name wherever possible (the back end
    // computes a rematerialized value once per block and name).
    for (const BasicBlock *BB : DT.reversePostOrder())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Reduce && I->getType()->isTile() && !isRemat(I.get()))
          if (const Layout *In = nameOfOperandLayout(I->getOperand(0)))
            Names.name(LA.layoutOf(I.get()), I->getType()->getShape(),
                       {Layout::getSlice(static_cast<int32_t>(I->Axis), In)});
    // Phis last: their layout comes around the loop from a value named in
    // the first sweep (a dot's #mma accumulator), whose name they share.
    for (bool Phis : {false, true})
      for (const BasicBlock *BB : DT.reversePostOrder())
        for (const auto &IP : BB->instructions())
          if ((IP->getOpcode() == Opcode::Phi) == Phis)
            typeOwnLayout(*IP);
  }

  void typeOwnLayout(Instruction &I) {
    // A layout the program already names is an anchor of the assignment (the
    // layout it computes for I is that one): its name stays, as #wgmma for a
    // wgmma's result, which a #linear name of the same bases would not say.
    if (!I.getType()->isTile() || isRemat(&I) || I.getType()->getLayout())
      return;
    std::vector<const Layout *> Hints;
    if (const Layout *In = I.getNumOperands() ? layoutUsed(I.getOperand(0)) : nullptr;
        I.getOpcode() == Opcode::Reduce && In)
      Hints.push_back(Layout::getSlice(static_cast<int32_t>(I.Axis), In));
    if (I.getOpcode() == Opcode::Dot)
      Hints.push_back(accumulatorName(I));
    I.mutateType(
        I.getType()->withLayout(Names.name(LA.layoutOf(&I), I.getType()->getShape(), Hints)));
  }

  /// The name V's layout will have (before V is typed): its own, or the
  /// default one where it is rematerialized.
  const Layout *nameOfOperandLayout(const Value *V) {
    if (!V->getType()->isTile() || !asInstruction(const_cast<Value *>(V)))
      return nullptr;
    const Shape &S = V->getType()->getShape();
    return Names.name(isRemat(V) ? LA.defaultLayout(S) : LA.layoutOf(V), S);
  }

  /// The name of the layout V is read in by an operation that takes any:
  /// its own, or the default one where it is rematerialized.
  const Layout *layoutUsed(const Value *V) {
    if (isRemat(V))
      return Names.name(LA.defaultLayout(V->getType()->getShape()), V->getType()->getShape());
    return V->getType()->getLayout();
  }

  const Layout *accumulatorName(const Instruction &Dot) {
    const analysis::DotPlan &Plan = LA.dotOf(&Dot);
    if (Plan.Kind == analysis::DotKind::Wgmma) {
      int32_t KBytes =
          32 / static_cast<int32_t>(
                   Dot.getOperand(0)->getType()->getScalarType()->getScalarSizeInBytes());
      return Layout::getWgmma({4 * Plan.WarpsPerCTA[0], Plan.WarpsPerCTA[1]},
                              {64, Plan.InstrN, KBytes});
    }
    if (Plan.Kind != analysis::DotKind::FMA)
      return Layout::getMma(Plan.WarpsPerCTA, {16, 8});
    return nullptr;
  }

  /// The layout use K of U needs its operand in, if it needs one, and its
  /// name: the user's own where the types must agree (element-wise
  /// operations, phis, a dot's accumulator, a load's pointer and mask).
  std::optional<std::pair<LinearLayout, const Layout *>> need(const Instruction &U, unsigned K) {
    const Layout *Own = U.getType()->isTile() ? U.getType()->getLayout() : nullptr;
    auto Named = [&](const LinearLayout &L) {
      return std::make_pair(L, Own ? Own : Names.name(L, U.getOperand(K)->getType()->getShape()));
    };
    if (isGlobalAccess(U))
      return Named(LA.accessOf(&U).Layout);
    bool SameAsResult =
        (U.getType()->isTile() && isElementwise(U)) || U.getOpcode() == Opcode::Phi ||
        U.getOpcode() == Opcode::ConvertLayout ||
        ((U.getOpcode() == Opcode::Dot || U.getOpcode() == Opcode::Wgmma) && K == 2);
    if (SameAsResult && U.getType()->isTile())
      return Named(LA.layoutOf(&U));
    return std::nullopt;
  }

  void provideOperand(Instruction &U, unsigned K) {
    Value *Op = U.getOperand(K);
    if (!Op->getType()->isTile() || !ir::asInstruction(Op))
      return;
    auto Need = need(U, K);
    if (isRemat(Op)) {
      // Rematerialized wherever used: in the layout of the use, or the
      // default one (what the back end reads a dot operand or a reduction's
      // input in when they are rematerialized).
      if (!Need) {
        LinearLayout L = LA.defaultLayout(Op->getType()->getShape());
        Need = std::make_pair(L, Names.name(L, Op->getType()->getShape()));
      }
      U.setOperand(K, materialize(asInstruction(Op), Need->first, Need->second));
      return;
    }
    if (U.getOpcode() == Opcode::ConvertLayout || !Need)
      return; // The operation converts what it reads itself.
    if (U.getOpcode() == Opcode::Phi) {
      BasicBlock *From = U.getIncomingBlock(K);
      U.setOperand(K, convert(Op, Need->second, From, From->getTerminator()));
      return;
    }
    U.setOperand(K, convert(Op, Need->second, U.getParent(), &U));
  }

  /// Op in layout Want at Before (in block BB): Op itself when its type
  /// already names it, else a convert_layout (one per block and layout, as
  /// long as the first one placed comes before the later uses).
  Value *convert(Value *Op, const Layout *Want, BasicBlock *BB, Instruction *Before) {
    if (Op->getType()->getLayout() == Want)
      return Op;
    auto Key = std::make_tuple(Op, Want, BB);
    if (auto It = Converts.find(Key); It != Converts.end() && precedes(It->second, Before))
      return It->second;
    auto C = Instruction::create(Opcode::ConvertLayout, Op->getType()->withLayout(Want), {Op});
    if (const Instruction *I = asInstruction(Op))
      C->Loc = I->Loc;
    C->setName(Op->getName());
    Instruction *Placed = BB->insert(BB->iteratorTo(Before), std::move(C));
    Converts[Key] = Placed;
    return Placed;
  }

  /// The rematerializable value I computed in layout L, named Name: I
  /// itself, retyped, for the first layout asked for; a copy next to it for
  /// each further one. Its operands are provided in the layouts L needs
  /// (element-wise operands under the same name).
  Value *materialize(Instruction *I, const LinearLayout &L, const Layout *Name) {
    auto Key = std::make_pair(I, Name);
    if (auto It = Copies.find(Key); It != Copies.end())
      return It->second;
    Instruction *Copy = I;
    if (!Retyped.insert(I).second) {
      auto C = cloneDetached(*I);
      Copy = I->getParent()->insert(std::next(I->getParent()->iteratorTo(I)), std::move(C));
    }
    Copy->mutateType(I->getType()->withLayout(Name));
    Copies[Key] = Copy;
    const std::vector<Value *> &Ops = Original.at(I);
    for (unsigned K = 0; K < Ops.size(); ++K) {
      Value *Op = Ops[K];
      if (!Op->getType()->isTile() || !asInstruction(Op))
        continue;
      bool Relabel = I->getOpcode() == Opcode::Reshape || I->getOpcode() == Opcode::Trans ||
                     I->getOpcode() == Opcode::Broadcast;
      LinearLayout Need = operandLayout(*I, Op, L);
      const Layout *NeedName = Relabel ? Names.name(Need, Op->getType()->getShape()) : Name;
      Copy->setOperand(K, isRemat(Op) ? materialize(asInstruction(Op), Need, NeedName)
                                      : convert(Op, NeedName, Copy->getParent(), Copy));
    }
    return Copy;
  }

  /// The layout operand Op of the rematerializable I is computed in when I
  /// is computed in L (what the back end's recomputation reads).
  static LinearLayout operandLayout(const Instruction &I, const Value *Op, const LinearLayout &L) {
    const Shape &From = Op->getType()->getShape();
    switch (I.getOpcode()) {
    case Opcode::Reshape:
      return analysis::reshapeLayout(L, From);
    case Opcode::Trans:
      return analysis::transposeLayout(L);
    case Opcode::Broadcast:
      return analysis::broadcastOperandLayout(L, From).removeZeroBases("register");
    default:
      return L;
    }
  }

  Function &F;
  const LayoutAssignment &LA;
  analysis::LayoutNamer Names;
  std::map<const Instruction *, std::vector<Value *>> Original;
  std::set<const Instruction *> Retyped;
  std::map<std::pair<Instruction *, const Layout *>, Instruction *> Copies;
  std::map<std::tuple<Value *, const Layout *, BasicBlock *>, Instruction *> Converts;
};

} // namespace

bool AssignLayoutsPass::run(Function &F, AnalysisManager &AM) {
  if (const Instruction *At = firstUnpaddedTile(F)) {
    if (DiagnosticEngine *Diags = AM.diagnostics())
      Diags->remark(RemarkKind::Missed, "assign-layouts", SourceRange(At->Loc),
                    "layouts not assigned: a tile dimension is not a power of two (pad-tiles "
                    "pads tiles first in the GPU back end)");
    return false;
  }
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  LayoutAssignment LA(F, AI, Target.NumWarps, Target.HasMmaV2, Target.AllowTF32, Target.HasWgmma);
  Assigner(F, LA).run();
  return true;
}

std::unique_ptr<Pass> createAssignLayoutsPass() { return std::make_unique<AssignLayoutsPass>(); }

std::unique_ptr<Pass> createAssignLayoutsPass(AssignLayoutsTarget Target) {
  return std::make_unique<AssignLayoutsPass>(Target);
}

} // namespace tritonc::transform
