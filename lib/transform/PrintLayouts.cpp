//===- PrintLayouts.cpp - Prints the layout assignment --------------------===//

#include "tritonc/transform/PrintLayouts.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/transform/Passes.h"

namespace tritonc::transform {

bool PrintLayoutsPass::run(ir::Function &F, AnalysisManager &AM) {
  // Layouts are linear maps over GF(2): they exist for power-of-two tiles
  // only, as in the GPU back end.
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getType()->isTile())
        for (int64_t D : I->getType()->getShape())
          if (D <= 0 || (D & (D - 1)))
            throw PassInputError{"print-layouts needs tile dimensions that are powers of two; "
                                 "this tile has shape " +
                                     I->getType()->str(),
                                 I->Loc};
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  analysis::LayoutAssignment LA(F, AI, /*NumWarps=*/4, /*HasMmaV2=*/true);
  AM.log() << "; layouts for @" << F.getName() << " (4 warps)\n" << LA.describe(F);
  return false;
}

std::unique_ptr<Pass> createPrintLayoutsPass() { return std::make_unique<PrintLayoutsPass>(); }

} // namespace tritonc::transform
