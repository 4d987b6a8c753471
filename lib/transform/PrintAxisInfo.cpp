//===- PrintAxisInfo.cpp - Prints the axis-info analysis ------------------===//
#include "tritonc/transform/PrintAxisInfo.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/transform/Passes.h"

namespace tritonc::transform {

using namespace ir;

namespace {
bool interesting(const Value &V) {
  return V.getType()->isIntOrIntTile() || V.getType()->isPointerOrPointerTile();
}
} // namespace

bool PrintAxisInfoPass::run(Function &F, AnalysisManager &AM) {
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  std::ostream &OS = AM.log();
  OS << "; axis-info for @" << F.getName() << "\n";
  auto Line = [&](const Value &V) {
    if (interesting(V))
      OS << "; axis-info " << printOperand(V) << ": " << AI.get(&V).str() << "\n";
  };
  for (unsigned I = 0; I < F.getNumArgs(); ++I)
    Line(*F.getArg(I));
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (!I->getType()->isVoid())
        Line(*I);
  return false;
}

std::unique_ptr<Pass> createPrintAxisInfoPass() { return std::make_unique<PrintAxisInfoPass>(); }

} // namespace tritonc::transform
