#include "TestUtil.h"

using namespace tritonc::transform::test;

namespace {

TEST(DCE, RemovesUnusedPureChainsButKeepsSideEffects) {
  std::string Out = runPipeline(R"(define void @f(f32* %p, i32 %n) {
entry:
  %a = add %n, i32 1 : i32
  %b = mul %a, %a : i32
  %r = make_range 0, 32 : i32<32>
  %v = load %p : f32
  %old = atomic_rmw fadd %p, %v : f32
  store %p, %v
  ret
}
)",
                                "dce");
  EXPECT_FALSE(contains(Out, "add %n")) << Out;
  EXPECT_FALSE(contains(Out, "mul")) << Out;
  EXPECT_FALSE(contains(Out, "make_range")) << Out;
  EXPECT_TRUE(contains(Out, "atomic_rmw fadd")) << Out; // unused but has side effects
  EXPECT_TRUE(contains(Out, "store %p, %v")) << Out;
  EXPECT_TRUE(contains(Out, "load %p")) << Out;
}

TEST(DCE, RemovesDeadPhiCycles) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n) {
entry:
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [%i1, ^loop] : i32
  %acc = phi [i32 0, ^entry], [%acc1, ^loop] : i32
  %acc1 = add %acc, %i : i32
  %i1 = add %i, i32 1 : i32
  %c = icmp slt %i1, %n : i1
  cond_br %c, ^loop, ^exit
exit:
  store %p, %i1
  ret
}
)",
                                "dce");
  EXPECT_FALSE(contains(Out, "%acc")) << Out;
  EXPECT_TRUE(contains(Out, "%i = phi")) << Out;
}

TEST(DCE, RemovesUnreachableBlocksAndFixesPhis) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %x) {
entry:
  br ^join
dead:
  %d = add %x, i32 5 : i32
  br ^dead2
dead2:
  br ^join
join:
  %v = phi [%x, ^entry], [%d, ^dead2] : i32
  store %p, %v
  ret
}
)",
                                "dce");
  EXPECT_FALSE(contains(Out, "dead")) << Out;
  // The phi lost its entry from the removed block and, left with one value,
  // was replaced by it.
  EXPECT_FALSE(contains(Out, "phi")) << Out;
  EXPECT_TRUE(contains(Out, "store %p, %x")) << Out;
}

TEST(DCE, KeepsPhiWithTwoLiveEntries) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c, i32 %x) {
entry:
  cond_br %c, ^a, ^join
a:
  %y = add %x, i32 1 : i32
  br ^join
unreachable:
  br ^join
join:
  %v = phi [%x, ^entry], [%y, ^a], [i32 7, ^unreachable] : i32
  store %p, %v
  ret
}
)",
                                "dce");
  EXPECT_TRUE(contains(Out, "%v = phi [%x, ^entry], [%y, ^a] : i32")) << Out;
  EXPECT_FALSE(contains(Out, "unreachable")) << Out;
}

} // namespace
