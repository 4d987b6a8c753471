//===- AccumulatorInit.h - A wgmma loop's zero accumulator as use_acc -*- C++ -*-===//
//
// Registered as "accumulator-init" (pass 8 of docs/BACKEND-MIGRATION.md). A
// loop that accumulates with wgmma from a zero tile
//
//     %zero = splat f32 0 : f32<.., #wgmma>
//   header:
//     %acc = phi [%zero, ^pre], [%d, ^latch]
//     ...
//     %d = wgmma %a, %b, %acc, i1 true
//
// spends registers and moves on zeros that the MMA could ignore. The pass
// gives the header a flag, false on entry and true on the back edge, makes
// it the wgmma's use_acc (the first iteration writes A x B), enters the
// loop with an undefined accumulator, and lets every reader after the loop
// see `select %flag, %acc, %zero`: zeros where the loop ran no iteration.
//
// It applies where the phi has one incoming value from outside the loop, a
// splat of +0.0 (use_acc false means a +0.0 accumulator, so the results are
// the same bit for bit), and one from inside, the wgmma itself, read by the
// phi only; use_acc is the constant true; and every other reader of the
// phi lies outside the loop and is no phi. Otherwise the loop is left
// alone, with a missed remark (accumulator-init) that says which condition
// failed; a rewritten loop gets a passed one. A wgmma whose accumulator no
// loop header carries is not looked at.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class AccumulatorInitPass : public Pass {
public:
  const char *name() const override { return "accumulator-init"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
