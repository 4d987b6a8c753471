#include "TestUtil.h"

using namespace tritonc::transform::test;

namespace {

TEST(Peephole, TransTransIsIdentity) {
  std::string Out = runPipeline(R"(define void @f(f32*<8,4> %p, f32<8,4> %x) {
entry:
  %t = trans %x : f32<4,8>
  %tt = trans %t : f32<8,4>
  store %p, %tt
  ret
}
)",
                                "peephole");
  EXPECT_TRUE(contains(Out, "store %p, %x")) << Out;
  EXPECT_FALSE(contains(Out, "trans")) << Out;
}

TEST(Peephole, ChainedReductionsAreFlattened) {
  std::string Out = runPipeline(R"(define void @f(f32* %p, f32<8,4> %x, f32<8,4> %y) {
entry:
  %a = reduce fadd %x, 0 : f32<4>
  %b = reduce fadd %a, 0 : f32
  %c = reduce fmax %y, 1 : f32<8>
  %d = reduce fadd %c, 0 : f32
  store %p, %b
  store %p, %d
  ret
}
)",
                                "peephole");
  EXPECT_TRUE(contains(Out, "reshape %x : f32<32>")) << Out;
  EXPECT_TRUE(contains(Out, "reduce fadd %0, 0 : f32")) << Out;
  EXPECT_FALSE(contains(Out, "%a")) << Out;
  // Different kinds are left alone.
  EXPECT_TRUE(contains(Out, "%c = reduce fmax %y, 1")) << Out;
  EXPECT_TRUE(contains(Out, "%d = reduce fadd %c, 0")) << Out;
}

TEST(Peephole, ReshapeBroadcastAndSplatChains) {
  std::string Out = runPipeline(R"(define void @f(i32*<2,16> %p, i32<32> %x, i32 %s, i32<1,16> %y) {
entry:
  %r1 = reshape %x : i32<4,8>
  %r2 = reshape %r1 : i32<2,16>
  store %p, %r2
  %b0 = broadcast %y : i32<1,16>
  %b1 = broadcast %b0 : i32<2,16>
  store %p, %b1
  %sp = splat %s : i32<1,16>
  %sb = broadcast %sp : i32<2,16>
  store %p, %sb
  %r3 = reshape %x : i32<2,16>
  %r4 = reshape %r3 : i32<32>
  %r5 = reshape %r4 : i32<2,16>
  store %p, %r5
  ret
}
)",
                                "peephole");
  EXPECT_TRUE(contains(Out, "%r2 = reshape %x : i32<2,16>")) << Out;
  EXPECT_FALSE(contains(Out, "%r1")) << Out;
  EXPECT_TRUE(contains(Out, "%b1 = broadcast %y : i32<2,16>")) << Out;
  EXPECT_FALSE(contains(Out, "%b0")) << Out;
  EXPECT_TRUE(contains(Out, "splat %s : i32<2,16>")) << Out;
  EXPECT_FALSE(contains(Out, "%sb = broadcast")) << Out;
  EXPECT_FALSE(contains(Out, "%r4")) << Out;
}

TEST(Peephole, DotPlusAccumulatorBecomesOneDot) {
  std::string Out =
      runPipeline(R"(define void @f(f32*<16,16> %p, f16<16,8> %a, f16<8,16> %b, f32<16,16> %c) {
entry:
  %z = splat f32 0 : f32<16,16>
  %d = dot %a, %b, %z : f32<16,16>
  %acc = fadd %c, %d : f32<16,16>
  store %p, %acc
  ret
}
)",
                  "peephole");
  EXPECT_TRUE(contains(Out, "dot %a, %b, %c : f32<16,16>")) << Out;
  EXPECT_FALSE(contains(Out, "fadd")) << Out;
  EXPECT_FALSE(contains(Out, "splat")) << Out;
}

TEST(Peephole, DotWithNonZeroAccumulatorIsKept) {
  std::string Out =
      runPipeline(R"(define void @f(f32*<16,16> %p, f16<16,8> %a, f16<8,16> %b, f32<16,16> %c) {
entry:
  %z = splat f32 1 : f32<16,16>
  %d = dot %a, %b, %z : f32<16,16>
  %acc = fadd %d, %c : f32<16,16>
  store %p, %acc
  ret
}
)",
                  "peephole");
  EXPECT_TRUE(contains(Out, "%acc = fadd %d, %c")) << Out;
}

TEST(Peephole, SelectOfSameValueAndMulByPowerOfTwo) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c, i32 %x) {
entry:
  %s = select %c, %x, %x : i32
  %m = mul %s, i32 8 : i32
  %n = mul %x, i32 6 : i32
  store %p, %m
  store %p, %n
  ret
}
)",
                                "peephole");
  EXPECT_FALSE(contains(Out, "select")) << Out;
  EXPECT_TRUE(contains(Out, "shl %x, i32 3 : i32")) << Out;
  EXPECT_TRUE(contains(Out, "%n = mul %x, i32 6")) << Out;
}

} // namespace
