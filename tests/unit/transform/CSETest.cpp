#include "TestUtil.h"

using namespace tritonc::transform::test;

namespace {

TEST(CSE, MergesIdenticalPureInstructions) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %a, i32 %b) {
entry:
  %x = add %a, %b : i32
  %y = add %b, %a : i32
  %r1 = make_range 0, 16 : i32<16>
  %r2 = make_range 0, 16 : i32<16>
  %r3 = make_range 0, 32 : i32<32>
  %s1 = splat %x : i32<16>
  %s2 = splat %y : i32<16>
  %t1 = add %s1, %r1 : i32<16>
  %t2 = add %s2, %r2 : i32<16>
  %z = sub %a, %b : i32
  %w = sub %b, %a : i32
  %q = reduce add %t1, 0 : i32
  %q2 = reduce add %t2, 0 : i32
  %m = reduce add %r3, 0 : i32
  store %p, %q
  store %p, %q2
  store %p, %z
  store %p, %w
  store %p, %m
  ret
}
)",
                                "cse");
  EXPECT_FALSE(contains(Out, "%y")) << Out;
  EXPECT_FALSE(contains(Out, "%r2")) << Out;
  EXPECT_TRUE(contains(Out, "%r3 = make_range 0, 32")) << Out; // other attributes
  EXPECT_FALSE(contains(Out, "%s2")) << Out;
  EXPECT_FALSE(contains(Out, "%t2")) << Out;
  EXPECT_TRUE(contains(Out, "store %p, %q\n  store %p, %q\n")) << Out;
  // sub is not commutative.
  EXPECT_TRUE(contains(Out, "%w = sub %b, %a")) << Out;
}

TEST(CSE, DoesNotMergeLoadsOrAcrossSiblingBlocks) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c, i32 %a) {
entry:
  %v1 = load %p : i32
  store %p, i32 0
  %v2 = load %p : i32
  %sum = add %v1, %v2 : i32
  cond_br %c, ^then, ^else
then:
  %t = mul %a, %a : i32
  store %p, %t
  br ^join
else:
  %e = mul %a, %a : i32
  store %p, %e
  br ^join
join:
  %j = mul %a, %a : i32
  store %p, %j
  store %p, %sum
  ret
}
)",
                                "cse");
  EXPECT_TRUE(contains(Out, "%v2 = load %p")) << Out;
  // Neither branch dominates the other or the join.
  EXPECT_TRUE(contains(Out, "%t = mul")) << Out;
  EXPECT_TRUE(contains(Out, "%e = mul")) << Out;
  EXPECT_TRUE(contains(Out, "%j = mul")) << Out;
}

TEST(CSE, ReusesDominatingValueInDominatedBlock) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c, i32 %a) {
entry:
  %x = mul %a, %a : i32
  cond_br %c, ^then, ^join
then:
  %y = mul %a, %a : i32
  store %p, %y
  br ^join
join:
  %z = mul %a, %a : i32
  store %p, %z
  store %p, %x
  ret
}
)",
                                "cse");
  EXPECT_FALSE(contains(Out, "%y")) << Out;
  EXPECT_FALSE(contains(Out, "%z")) << Out;
  EXPECT_TRUE(contains(Out, "then:\n  store %p, %x\n")) << Out;
}

TEST(CSE, DistinguishesPredicatesAndTypes) {
  std::string Out = runPipeline(R"(define void @f(i1* %p, i32* %q, i32 %a, i32 %b) {
entry:
  %lt = icmp slt %a, %b : i1
  %gt = icmp sgt %a, %b : i1
  %e1 = icmp eq %a, %b : i1
  %e2 = icmp eq %b, %a : i1
  %s1 = splat %a : i32<4>
  %s2 = splat %a : i32<8>
  %r1 = reduce add %s1, 0 : i32
  %r2 = reduce add %s2, 0 : i32
  store %p, %lt
  store %p, %gt
  store %p, %e1
  store %p, %e2
  store %q, %r1
  store %q, %r2
  ret
}
)",
                                "cse");
  EXPECT_TRUE(contains(Out, "%gt = icmp sgt")) << Out;
  EXPECT_FALSE(contains(Out, "%e2")) << Out;
  EXPECT_TRUE(contains(Out, "%s2 = splat %a : i32<8>")) << Out;
}

} // namespace
