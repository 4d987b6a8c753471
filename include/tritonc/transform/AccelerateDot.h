//===- AccelerateDot.h - dot on warpgroup MMA from shared slots -*- C++ -*-===//
//
// Registered as "accelerate-dot" (pass 4 of docs/BACKEND-MIGRATION.md, its
// sm_90a part; the IR form of the wgmma choice that codegen's planDot and
// LowerWgmma.cpp make while lowering). A `dot` that the target runs on
// warpgroup MMA (analysis::planDot: f16/bf16 operands into f32, M a multiple
// of 64 over warpgroups of 4 warps, ...) and whose operands are
// `local_load`s of shared slots wgmma can read through its descriptors
//
//     %a = local_load %sa            ; smem<f16<M,K>, #shared<swizzle=S>>
//     %b = local_load %sb            ; smem<f16<K,N>, #shared<swizzle=S'>>
//     %d = dot %a, %b, %acc
//
// becomes
//
//     fence_proxy_async               ; before the barrier that published the slots
//     wgmma_fence
//     %d = wgmma %sa, %sb, %acc, i1 true : f32<M,N, #wgmma<...>>
//     wgmma_commit
//     wgmma_wait 0
//
// with the accumulator in the `#wgmma` layout the back end's layout
// assignment chooses (warpgroups along M and N, the instruction's N). A loop-carried
// accumulator (a header phi fed back by the dot) is retyped with it, its
// entering zero splat too, so that the loop moves no registers and
// accumulator-init recognizes it; other readers get `convert_layout` to the
// type they had. The slots are read by the async proxy: where the slots'
// writes are published by a `barrier` in the dot's block, a
// `fence_proxy_async` goes before it, else before the wgmma. Slots of
// buffers that only bulk tensor copies write get no fence: their data
// reaches the async proxy through the mbarrier the readers wait on.
//
// A slot wgmma reads is 2-D, of 16-bit elements, in a hardware swizzle mode
// (`#shared<swizzle=32|64|128>`): rows of the swizzle width, or wider rows
// stored as column blocks of it (docs/IR.md), the layouts wgmma's
// descriptors read. Dots the target runs otherwise, or whose operands are not such
// slots, are left alone with a remark saying why. Without the `wgmma` target
// fact the pass changes nothing (the mma.sync and FMA forms are not written
// in the IR yet).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/AssignLayouts.h"
#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class AccelerateDotPass : public Pass {
public:
  AccelerateDotPass() = default;
  explicit AccelerateDotPass(AssignLayoutsTarget Target) : Target(Target) {}
  const char *name() const override { return "accelerate-dot"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  AssignLayoutsTarget Target;
};

} // namespace tritonc::transform
