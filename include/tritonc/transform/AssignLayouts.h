//===- AssignLayouts.h - The back end's layouts written into tile types -*- C++ -*-===//
//
// Registered as "assign-layouts". Runs the layout assignment of the GPU back
// end (analysis/LayoutAssignment.h) and writes what it decides into the IR
// (docs/IR.md, "GPU level"), so that the layouts can be printed, tested on
// `.tir` input and read by the emitter from the types:
//
//  - every tile value with a layout of its own (loads, dots, reductions,
//    float arithmetic, phis, index arithmetic through divisions, ...) gets
//    it as the attribute of its type: `#blocked`, `#mma`, `#wgmma` or
//    `#slice` where one of those describes it exactly, else `#linear` (the
//    bases themselves: reshapes of slices, the FMA accumulator);
//  - a rematerializable value (make_range, splat and the cheap integer and
//    pointer arithmetic on them, analysis::LayoutAssignment) has no layout
//    of its own: it is computed where it is used, in the layout of that use.
//    It is typed with the layout of its use, and cloned once per further
//    layout its uses need (index arithmetic is never moved between threads);
//  - where a use needs another layout than its operand has (an element-wise
//    operation, a phi, the pointer, mask or value of a global access, a
//    dot's accumulator), an explicit `convert_layout` is inserted: before the
//    use, or at the end of the incoming block for a phi. Dot operands A and B
//    keep their layouts: the dot stages them (shared memory, ldmatrix) as
//    the back end does today, until a pass gives them `#dot_op` layouts.
//
// Running the layout assignment again on the result gives every value the
// layout its type names (the attributes are checked against the linear
// layouts they stand for), so the emitter lowers the same program. The
// interpreter ignores layouts: the pass changes no result.
//
// Layouts are linear maps over GF(2): a function with a tile dimension that
// is not a power of two (before `pad-tiles`) is left unchanged, with a remark.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

/// The target facts the layouts depend on (those of
/// analysis::LayoutAssignment); the registered pass uses the defaults, the
/// GPU back end its options (codegen/CodeGen.cpp).
struct AssignLayoutsTarget {
  unsigned NumWarps = 4;
  bool HasMmaV2 = true;
  bool AllowTF32 = false;
  /// sm_90a: f16/bf16 dots on warpgroup MMA (#wgmma accumulators).
  bool HasWgmma = false;
};

class AssignLayoutsPass : public Pass {
public:
  AssignLayoutsPass() = default;
  explicit AssignLayoutsPass(AssignLayoutsTarget Target) : Target(Target) {}
  const char *name() const override { return "assign-layouts"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  AssignLayoutsTarget Target;
};

} // namespace tritonc::transform
