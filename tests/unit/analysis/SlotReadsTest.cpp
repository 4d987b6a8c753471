//===- SlotReadsTest.cpp - Whether a dot may read a local_load's slot -----===//
#include "AxisInfoTestUtil.h"

#include "tritonc/analysis/SlotReads.h"

using namespace tritonc;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

// Each function loads %l from the slot %s and multiplies it in %d; what lies
// between the two (or before, or across a branch) differs.
const char *Kernels = R"(#plain = #shared<swizzle=0, order=[1,0]>

define kernel void @store_before() {
entry:
  %s = smem_alloc : smem<f16<16,16>, #plain>
  %t = splat f16 1 : f16<16,16>
  %z = splat f32 0 : f32<16,16>
  local_store %s, %t
  %l = local_load %s : f16<16,16>
  %d = dot %l, %t, %z : f32<16,16>
  ret
}

define kernel void @ordering_between() {
entry:
  %s = smem_alloc : smem<f16<16,16>, #plain>
  %t = splat f16 1 : f16<16,16>
  %z = splat f32 0 : f32<16,16>
  %l = local_load %s : f16<16,16>
  barrier
  fence_proxy_async
  cp_async_commit
  %d = dot %l, %t, %z : f32<16,16>
  ret
}

define kernel void @store_between() {
entry:
  %s = smem_alloc : smem<f16<16,16>, #plain>
  %t = splat f16 1 : f16<16,16>
  %z = splat f32 0 : f32<16,16>
  %l = local_load %s : f16<16,16>
  local_store %s, %t
  %d = dot %l, %t, %z : f32<16,16>
  ret
}

define kernel void @other_block() {
entry:
  %s = smem_alloc : smem<f16<16,16>, #plain>
  %t = splat f16 1 : f16<16,16>
  %z = splat f32 0 : f32<16,16>
  %l = local_load %s : f16<16,16>
  br ^next
next:
  %d = dot %l, %t, %z : f32<16,16>
  ret
}
)";

/// whySlotChangedBeforeDot(%l, %d) in the function named Name.
std::string whyIn(const std::string &Name) {
  std::unique_ptr<ParsedModule> P = parse(Kernels);
  if (!P->M)
    return "parse error: " + P->Errors;
  for (const auto &F : P->M->functions()) {
    if (F->getName() != Name)
      continue;
    const ir::Instruction *Load = ir::asInstruction(const_cast<ir::Value *>(findValue(*F, "%l")));
    const ir::Instruction *Dot = ir::asInstruction(const_cast<ir::Value *>(findValue(*F, "%d")));
    if (!Load || !Dot)
      return "no %l or %d";
    return whySlotChangedBeforeDot(*Load, *Dot);
  }
  return "no function " + Name;
}

} // namespace

// Writes before the local_load and the ordering operations between it and
// the dot (barrier, proxy fence, commit) leave the slot as it was loaded.
TEST(SlotReadsTest, WritesBeforeAndOrderingBetweenKeepTheSlot) {
  EXPECT_EQ(whyIn("store_before"), "");
  EXPECT_EQ(whyIn("ordering_between"), "");
}

TEST(SlotReadsTest, AWriteBetweenOrAnotherBlockDoesNot) {
  EXPECT_EQ(whyIn("store_between"), "a local_store between the local_load and the dot may change "
                                    "the slot");
  EXPECT_EQ(whyIn("other_block"), "the local_load is in another block than the dot");
}
