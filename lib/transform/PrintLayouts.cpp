//===- PrintLayouts.cpp - Prints the layout assignment --------------------===//

#include "tritonc/transform/PrintLayouts.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/transform/Passes.h"

namespace tritonc::transform {

bool PrintLayoutsPass::run(ir::Function &F, AnalysisManager &AM) {
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  analysis::LayoutAssignment LA(F, AI, /*NumWarps=*/4, /*HasMmaV2=*/true);
  AM.log() << "; layouts for @" << F.getName() << " (4 warps)\n" << LA.describe(F);
  return false;
}

std::unique_ptr<Pass> createPrintLayoutsPass() { return std::make_unique<PrintLayoutsPass>(); }

} // namespace tritonc::transform
