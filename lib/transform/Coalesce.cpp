//===- Coalesce.cpp - Global accesses in the layouts their pointers ask for ===//
//
// See Coalesce.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/Coalesce.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

namespace tritonc::transform {

using namespace ir;

namespace {

/// The global accesses of tiles and the index of their first tile operand
/// (cp_async's first operand is the slot it fills).
std::vector<std::pair<Instruction *, unsigned>> globalAccesses(Function &F) {
  std::vector<std::pair<Instruction *, unsigned>> Out;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      unsigned Ptr = I->getOpcode() == Opcode::CpAsync ? 1 : 0;
      if ((I->accessesMemory() || I->getOpcode() == Opcode::CpAsync) &&
          I->getOperand(Ptr)->getType()->isTile())
        Out.emplace_back(I.get(), Ptr);
    }
  return Out;
}

Instruction *convertBefore(Instruction &At, Value *V, const Type *To) {
  auto C = Instruction::create(Opcode::ConvertLayout, To, {V});
  C->Loc = At.Loc;
  C->setName(V->getName());
  return At.getParent()->insert(At.getParent()->iteratorTo(&At), std::move(C));
}

} // namespace

bool CoalescePass::run(Function &F, AnalysisManager &AM) {
  if (const Instruction *At = firstUnpaddedTile(F)) {
    if (DiagnosticEngine *Diags = AM.diagnostics())
      Diags->remark(RemarkKind::Missed, "coalesce", SourceRange(At->Loc),
                    "accesses not given layouts: a tile dimension is not a power of two "
                    "(pad-tiles pads tiles first in the GPU back end)");
    return false;
  }
  std::vector<std::pair<Instruction *, unsigned>> Accesses = globalAccesses(F);
  if (Accesses.empty())
    return false;
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  analysis::LayoutAssignment LA(F, AI, Target.NumWarps, Target.HasMmaV2, Target.AllowTF32,
                                Target.HasWgmma);
  // Plans first: the rewrite below changes what the analysis looked at.
  std::vector<const Layout *> Names;
  analysis::LayoutNamer Namer;
  for (auto &[I, Ptr] : Accesses) {
    const Shape &S = I->getOperand(Ptr)->getType()->getShape();
    Names.push_back(Namer.name(LA.accessOf(I).Layout, S));
  }
  bool Changed = false;
  for (size_t A = 0; A < Accesses.size(); ++A) {
    auto [I, Ptr] = Accesses[A];
    const Layout *Name = Names[A];
    for (unsigned K = Ptr; K < I->getNumOperands(); ++K) {
      Value *Op = I->getOperand(K);
      if (!Op->getType()->isTile() || Op->getType()->getLayout() == Name)
        continue;
      I->setOperand(K, convertBefore(*I, Op, Op->getType()->withLayout(Name)));
      Changed = true;
    }
    if (!I->getType()->isTile() || I->getType()->getLayout() == Name)
      continue;
    // The result in the access's layout; its users read it as before,
    // through a conversion back to the type they had.
    const Type *Before = I->getType();
    I->mutateType(Before->withLayout(Name));
    auto Back = Instruction::create(Opcode::ConvertLayout, Before, {I});
    Back->Loc = I->Loc;
    Back->setName(I->getName());
    Instruction *Placed =
        I->getParent()->insert(std::next(I->getParent()->iteratorTo(I)), std::move(Back));
    I->replaceAllUsesWith(Placed);
    Placed->setOperand(0, I);
    Changed = true;
  }
  return Changed;
}

std::unique_ptr<Pass> createCoalescePass() { return std::make_unique<CoalescePass>(); }

std::unique_ptr<Pass> createCoalescePass(AssignLayoutsTarget Target) {
  return std::make_unique<CoalescePass>(Target);
}

} // namespace tritonc::transform
