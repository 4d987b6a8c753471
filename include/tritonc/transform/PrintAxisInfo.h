//===- PrintAxisInfo.h - Prints the axis-info analysis ---------*- C++ -*-===//
//
// A debugging pass: for every argument and instruction of integer or pointer
// type, in order, writes
//   ; axis-info %px: contiguity=[1,4] divisibility=[16,16] constancy=[1,1]
// to the pipeline's log stream (the names are those of the printed IR). The
// function is left unchanged.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class PrintAxisInfoPass : public Pass {
public:
  const char *name() const override { return "print-axis-info"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
