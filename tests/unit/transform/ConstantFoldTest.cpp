#include "TestUtil.h"

using namespace tritonc::transform::test;

namespace {

/// Folds `%r = EXPR` in a function storing %r to a pointer of type PtrTy and
/// returns the printed function.
std::string foldStore(const std::string &Ty, const std::string &Expr) {
  return runPipeline("define void @f(" + Ty + "* %p, " + Ty + " %x) {\nentry:\n  %r = " + Expr +
                         " : " + Ty + "\n  store %p, %r\n  ret\n}\n",
                     "constfold");
}

/// The stored operand after folding ("i32 3", "%r" when not folded, ...).
std::string stored(const std::string &Ty, const std::string &Expr) {
  std::string Out = foldStore(Ty, Expr);
  size_t S = Out.find("store %p, ");
  if (S == std::string::npos)
    return "<no store>";
  S += 10;
  return Out.substr(S, Out.find('\n', S) - S);
}

TEST(ConstantFold, IntegerArithmeticWraps) {
  EXPECT_EQ(stored("i32", "add i32 2147483647, i32 1"), "i32 -2147483648");
  EXPECT_EQ(stored("i8", "mul i8 16, i8 16"), "i8 0");
  EXPECT_EQ(stored("i8", "sub i8 -128, i8 1"), "i8 127");
  EXPECT_EQ(stored("i32", "udiv i32 -1, i32 2"), "i32 2147483647");
  EXPECT_EQ(stored("i32", "sdiv i32 -7, i32 2"), "i32 -3");
  EXPECT_EQ(stored("i32", "srem i32 -7, i32 2"), "i32 -1");
  EXPECT_EQ(stored("i32", "urem i32 -1, i32 10"), "i32 5");
  EXPECT_EQ(stored("i32", "smax i32 -1, i32 1"), "i32 1");
  EXPECT_EQ(stored("i32", "umax i32 -1, i32 1"), "i32 -1");
  EXPECT_EQ(stored("i32", "iabs i32 -2147483648"), "i32 -2147483648");
  EXPECT_EQ(stored("i64", "mul i64 4294967296, i64 4294967296"), "i64 0");
}

TEST(ConstantFold, ShiftsSaturateAtTheWidth) {
  EXPECT_EQ(stored("i32", "shl i32 1, i32 31"), "i32 -2147483648");
  EXPECT_EQ(stored("i32", "shl i32 1, i32 32"), "i32 0");
  EXPECT_EQ(stored("i32", "lshr i32 -1, i32 28"), "i32 15");
  EXPECT_EQ(stored("i32", "lshr i32 -1, i32 40"), "i32 0");
  EXPECT_EQ(stored("i32", "ashr i32 -8, i32 1"), "i32 -4");
  EXPECT_EQ(stored("i32", "ashr i32 -8, i32 40"), "i32 -1");
  EXPECT_EQ(stored("i32", "ashr i32 8, i32 -1"), "i32 0"); // -1 is a huge unsigned amount
}

TEST(ConstantFold, NeverFoldsDivisionByZeroOrOverflow) {
  EXPECT_EQ(stored("i32", "sdiv i32 1, i32 0"), "%r");
  EXPECT_EQ(stored("i32", "urem i32 1, i32 0"), "%r");
  EXPECT_EQ(stored("i32", "sdiv i32 -2147483648, i32 -1"), "%r");
  EXPECT_EQ(stored("f32", "fdiv f32 1, f32 0"), "%r");
}

TEST(ConstantFold, FloatsRoundToTheirType) {
  // 2049 is not an f16 value: round to even gives 2048.
  EXPECT_EQ(stored("f16", "fadd f16 2048, f16 1"), "f16 2048");
  EXPECT_EQ(stored("f16", "fadd f16 2048, f16 3"), "f16 2052");
  EXPECT_EQ(stored("f32", "fadd f32 16777216, f32 1"), "f32 16777216");
  EXPECT_EQ(stored("f64", "fadd f64 16777216, f64 1"), "f64 16777217");
  EXPECT_EQ(stored("f16", "fmul f16 300, f16 300"), "f16 inf"); // overflow
  EXPECT_EQ(stored("f32", "fmax f32 nan, f32 2"), "f32 2");
  EXPECT_EQ(stored("f32", "sqrt f32 4"), "f32 2");
  EXPECT_EQ(stored("f32", "fneg f32 2"), "f32 -2");
  // Transcendentals stay for the target's own approximation.
  EXPECT_EQ(stored("f32", "exp f32 1"), "%r");
}

TEST(ConstantFold, Comparisons) {
  EXPECT_EQ(stored("i1", "icmp slt i32 -1, i32 1"), "i1 1");
  EXPECT_EQ(stored("i1", "icmp ult i32 -1, i32 1"), "i1 0");
  EXPECT_EQ(stored("i1", "fcmp oeq f32 nan, f32 nan"), "i1 0");
  EXPECT_EQ(stored("i1", "fcmp une f32 nan, f32 nan"), "i1 1");
  EXPECT_EQ(stored("i1", "fcmp olt f32 -inf, f32 0"), "i1 1");
}

TEST(ConstantFold, Casts) {
  EXPECT_EQ(stored("i8", "trunc i32 257"), "i8 1");
  EXPECT_EQ(stored("i32", "sext i8 -1"), "i32 -1");
  EXPECT_EQ(stored("i32", "zext i8 -1"), "i32 255");
  EXPECT_EQ(stored("i32", "fptosi f32 1e10"), "i32 2147483647");
  EXPECT_EQ(stored("i32", "fptosi f32 -2.75"), "i32 -2");
  EXPECT_EQ(stored("i32", "fptosi f32 nan"), "i32 0");
  EXPECT_EQ(stored("i32", "fptoui f32 -5"), "i32 0");
  EXPECT_EQ(stored("i8", "fptoui f32 300"), "i8 -1"); // saturates to 255
  EXPECT_EQ(stored("f32", "sitofp i32 -3"), "f32 -3");
  EXPECT_EQ(stored("f32", "uitofp i32 -1"), "f32 4294967296");
  EXPECT_EQ(stored("f16", "fptrunc f32 65520"), "f16 inf");
  EXPECT_EQ(stored("i32", "bitcast f32 1"), "i32 1065353216");
  EXPECT_EQ(stored("f32", "bitcast i32 1065353216"), "f32 1");
}

TEST(ConstantFold, SelectWithConstantCondition) {
  EXPECT_EQ(stored("i32", "select i1 1, %x, i32 4"), "%x");
  EXPECT_EQ(stored("i32", "select i1 0, %x, i32 4"), "i32 4");
}

TEST(ConstantFold, AlgebraicIdentities) {
  EXPECT_EQ(stored("i32", "add %x, i32 0"), "%x");
  EXPECT_EQ(stored("i32", "mul i32 1, %x"), "%x");
  EXPECT_EQ(stored("i32", "mul %x, i32 0"), "i32 0");
  EXPECT_EQ(stored("i32", "sub %x, %x"), "i32 0");
  EXPECT_EQ(stored("i32", "xor %x, %x"), "i32 0");
  EXPECT_EQ(stored("i32", "and %x, i32 -1"), "%x");
  EXPECT_EQ(stored("i32", "or %x, i32 -1"), "i32 -1");
  EXPECT_EQ(stored("i32", "shl %x, i32 0"), "%x");
  // -0.0 is the float additive identity; +0.0 is not (-0.0 + 0.0 = +0.0).
  EXPECT_EQ(stored("f32", "fadd %x, f32 -0"), "%x");
  EXPECT_EQ(stored("f32", "fadd %x, f32 0"), "%r");
  EXPECT_EQ(stored("f32", "fmul %x, f32 1"), "%x");
  EXPECT_EQ(stored("f32", "fmul %x, f32 0"), "%r"); // x may be NaN or -x
  EXPECT_EQ(stored("f32", "fsub %x, %x"), "%r");
}

TEST(ConstantFold, SplatsOfConstantsFoldToSplats) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %x) {
entry:
  %a = splat i32 3 : i32<4,8>
  %b = splat i32 4 : i32<4,8>
  %c = mul %a, %b : i32<4,8>
  %r = reduce add %c, 1 : i32<4>
  %s = reduce smax %r, 0 : i32
  %t = splat %x : i32<4,8>
  %u = add %t, %a : i32<4,8>
  %z = sub %u, %u : i32<4,8>
  %w = reduce add %z, 0 : i32<8>
  %w0 = reduce add %w, 0 : i32
  store %p, %s
  store %p, %w0
  ret
}
)",
                                "constfold");
  EXPECT_TRUE(contains(Out, "store %p, i32 96\n")) << Out; // 12 * 8
  EXPECT_TRUE(contains(Out, "store %p, i32 0\n")) << Out;
  EXPECT_FALSE(contains(Out, "mul")) << Out;
  EXPECT_FALSE(contains(Out, "reduce")) << Out;
}

TEST(ConstantFold, FoldedConditionAndEqualSuccessorsGiveBr) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c) {
entry:
  %k = icmp slt i32 1, i32 2 : i1
  cond_br %k, ^a, ^b
a:
  cond_br %c, ^join, ^join
b:
  br ^join
join:
  %v = phi [i32 1, ^a], [i32 2, ^b] : i32
  store %p, %v
  ret
}
)",
                                "constfold");
  EXPECT_TRUE(contains(Out, "entry:\n  br ^a\n")) << Out;
  EXPECT_TRUE(contains(Out, "a:\n  br ^join\n")) << Out;
  EXPECT_FALSE(contains(Out, "icmp")) << Out;
  // The edge b -> join still exists (b is unreachable now; dce removes it).
  EXPECT_TRUE(contains(Out, "%v = phi [i32 1, ^a], [i32 2, ^b]")) << Out;
}

TEST(ConstantFold, ConstantBranchDropsPhiEntryOfTheDeadEdge) {
  std::string Out = runPipeline(R"(define void @f(i32* %p) {
entry:
  cond_br i1 0, ^join, ^other
other:
  br ^join
join:
  %v = phi [i32 1, ^entry], [i32 2, ^other] : i32
  store %p, %v
  ret
}
)",
                                "constfold");
  EXPECT_TRUE(contains(Out, "entry:\n  br ^other\n")) << Out;
  EXPECT_TRUE(contains(Out, "%v = phi [i32 2, ^other] : i32")) << Out;
}

} // namespace
