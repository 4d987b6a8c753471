//===- PrintLayouts.h - Prints the layout assignment -----------*- C++ -*-===//
//
// A debugging pass: writes the back end's layout decisions for every tile
// value to the pipeline's log stream (see analysis/LayoutAssignment.h), as
//   ; access %x: vec=4 dim=1 register=[[0,1],[0,2]] lane=[...] warp=[...] shape=[32,32]
//   ; dot %c: mma.sync m16n8k16 warps=[2,2]
//   ; layout %c: register=[...] lane=[...] warp=[...] shape=[64,64]
//   ; layout %rm: rematerialized
// for 4 warps (the back end's default). The function is left unchanged.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class PrintLayoutsPass : public Pass {
public:
  const char *name() const override { return "print-layouts"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
