//===- AffineAccessTest.cpp - Tensor-map forms of loads --------------------===//
#include "AxisInfoTestUtil.h"

#include "tritonc/analysis/AffineAccess.h"

using namespace tritonc;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

/// Query(F, AA) on the only function of Text, or the parse errors.
template <typename QueryFn> std::string analyze(const std::string &Text, QueryFn Query) {
  std::unique_ptr<ParsedModule> P = parse(Text);
  if (!P->M)
    return "parse error: " + P->Errors;
  const ir::Function &F = *P->M->functions()[0];
  ir::DominatorTree DT(F);
  AffineAccessAnalysis AA(F, DT);
  return Query(F, AA);
}

/// The tensor-map form of the load named Name in the only function of Text,
/// printed as "base unit=D stride=S coord=[c0, c1] bound=[b0, b1] guards=N"
/// ("-" for no bound), or "none".
std::string accessOf(const std::string &Text, const std::string &Name) {
  return analyze(Text, [&](const ir::Function &F, AffineAccessAnalysis &AA) -> std::string {
    const ir::Value *V = findValue(F, Name);
    const ir::Instruction *I = V ? ir::asInstruction(const_cast<ir::Value *>(V)) : nullptr;
    if (!I)
      return "no load " + Name;
    std::optional<TensorAccess> TA = AA.tensorAccessOf(*I);
    if (!TA)
      return "none";
    auto Bound = [&](unsigned D) { return TA->Bound[D] ? AA.str(*TA->Bound[D]) : "-"; };
    return "%" + TA->Base->getName() + " unit=" + std::to_string(TA->UnitDim) +
           " stride=" + AA.str(TA->OuterStride) + " coord=[" + AA.str(TA->Coord[0]) + ", " +
           AA.str(TA->Coord[1]) + "] bound=[" + Bound(0) + ", " + Bound(1) +
           "] guards=" + std::to_string(TA->Guards.size());
  });
}

// The shape the pipeline pass leaves a matmul in: pointers advanced by a
// 64-bit offset, the K index by a 32-bit one, and a scalar guard.
const char *Matmul = R"(define kernel void @mm(f16* %A, i32 %M, i32 %K, i32 %lda) {
entry:
  %pm = get_program_id 0 : i32
  %0 = shl %pm, i32 7 : i32
  %1 = make_range 0, 128 : i32<128>
  %2 = splat %0 : i32<128>
  %rm = add %2, %1 : i32<128>
  %rk = make_range 0, 64 : i32<64>
  %6 = reshape %rk : i32<1,64>
  %7 = splat %A : f16*<1,64>
  %8 = gep %7, %6 : f16*<1,64>
  %9 = reshape %rm : i32<128,1>
  %10 = splat %lda : i32<128,1>
  %11 = mul %9, %10 : i32<128,1>
  %12 = broadcast %8 : f16*<128,64>
  %13 = broadcast %11 : i32<128,64>
  %pa = gep %12, %13 : f16*<128,64>
  %22 = splat %K : i32<1,64>
  %24 = splat %M : i32<128,1>
  %25 = icmp slt %9, %24 : i1<128,1>
  %27 = broadcast %25 : i1<128,64>
  %36 = splat i32 64 : i32<128,64>
  %39 = splat i32 64 : i32<64>
  %42 = sext i32 64 : i64
  br ^loop
loop:
  %ko = phi [i32 0, ^entry], [%72, ^loop] : i32
  %po = phi [i64 0, ^entry], [%70, ^loop] : i64
  %k = phi [%K, ^entry], [%k1, ^loop] : i32
  %70 = add %po, %42 : i64
  %72 = add %ko, i32 64 : i32
  %k1 = sub %k, i32 64 : i32
  %check = icmp sgt %k1, i32 64 : i1
  %77 = splat %70 : i64<128,64>
  %78 = gep %pa, %77 : f16*<128,64>
  %pa2 = gep %78, %36 : f16*<128,64>
  %80 = splat %72 : i32<64>
  %81 = add %rk, %80 : i32<64>
  %rk2 = add %81, %39 : i32<64>
  %82 = reshape %rk2 : i32<1,64>
  %83 = icmp slt %82, %22 : i1<1,64>
  %84 = broadcast %83 : i1<128,64>
  %ca = and %84, %27 : i1<128,64>
  %false = splat i1 0 : i1<128,64>
  %guarded = select %check, %ca, %false : i1<128,64>
  %zero = splat f16 0 : f16<128,64>
  %a = masked_load %pa2, %guarded, %zero : f16<128,64>
  %unmasked = load %pa2 : f16<128,64>
  %go = icmp sgt %k1, i32 0 : i1
  cond_br %go, ^loop, ^exit
exit:
  ret
}
)";

TEST(AffineAccessTest, PipelinedMatmulOperand) {
  // The K coordinate is the representative induction (%ko, step 64) plus 128
  // (the updated offset plus the 64 of the next tile),
  // whether it is read from the pointer or from the mask.
  EXPECT_EQ(accessOf(Matmul, "%a"),
            "%A unit=1 stride=%lda coord=[128*%pm, 128 + %ko] bound=[%M, %K] guards=1");
  // Without a mask the offset splits by the stride.
  EXPECT_EQ(accessOf(Matmul, "%unmasked"),
            "%A unit=1 stride=%lda coord=[128*%pm, 128 + %ko] bound=[-, -] guards=0");
}

TEST(AffineAccessTest, LoopCounterAndConstantsOfTheBoundMoveToTheCoordinate) {
  // The tutorial's mask `rk < K - k` on the tile 128 ahead: k and the
  // constant move to the coordinate, which then matches the pointer's (its
  // own 64-bit offset, advanced by the same 64 per iteration), and the
  // extent is K alone. (%k, the first of the two inductions with step 64,
  // represents the loop.)
  const char *Text = R"(define kernel void @g(f16* %A, i32 %K, i32 %lda) {
entry:
  %rk = make_range 0, 64 : i32<64>
  %r1 = reshape %rk : i32<1,64>
  %rk2 = broadcast %r1 : i32<32,64>
  %rm = make_range 0, 32 : i32<32>
  %rm1 = reshape %rm : i32<32,1>
  %ld = splat %lda : i32<32,1>
  %rows = mul %rm1, %ld : i32<32,1>
  %rows2 = broadcast %rows : i32<32,64>
  %idx = add %rows2, %rk2 : i32<32,64>
  %pA = splat %A : f16*<32,64>
  %pa = gep %pA, %idx : f16*<32,64>
  %zero = splat f16 0 : f16<32,64>
  br ^loop
loop:
  %k = phi [i32 0, ^entry], [%k1, ^loop] : i32
  %off = phi [i64 0, ^entry], [%off1, ^loop] : i64
  %k2 = add %k, i32 128 : i32
  %left = sub %K, %k2 : i32
  %lefts = splat %left : i32<32,64>
  %mask = icmp slt %rk2, %lefts : i1<32,64>
  %ahead = add %off, i64 128 : i64
  %aheads = splat %ahead : i64<32,64>
  %p = gep %pa, %aheads : f16*<32,64>
  %a = masked_load %p, %mask, %zero : f16<32,64>
  %off1 = add %off, i64 64 : i64
  %k1 = add %k, i32 64 : i32
  %go = icmp slt %k1, %K : i1
  cond_br %go, ^loop, ^exit
exit:
  ret
}
)";
  EXPECT_EQ(accessOf(Text, "%a"),
            "%A unit=1 stride=%lda coord=[0, 128 + %k] bound=[-, %K] guards=0");
  // A bound with no parameter in it (`rk < kend`, kend computed) is no
  // extent: the load keeps cp.async.
  std::string Computed = Text;
  Computed.replace(Computed.find("%left = sub %K, %k2"), 19, "%left = smin %K, %k2");
  EXPECT_EQ(accessOf(Computed, "%a"), "none");
}

TEST(AffineAccessTest, RejectsNonAffineAccesses) {
  // Two unit strides, a gathered index, a mask that is no bound.
  const char *Text = R"(define kernel void @f(f16* %A, i32<16,16> %idx, i32 %n) {
entry:
  %r = make_range 0, 16 : i32<16>
  %r0 = reshape %r : i32<16,1>
  %r1 = reshape %r : i32<1,16>
  %b0 = broadcast %r0 : i32<16,16>
  %b1 = broadcast %r1 : i32<16,16>
  %s = add %b0, %b1 : i32<16,16>
  %pA = splat %A : f16*<16,16>
  %p = gep %pA, %s : f16*<16,16>
  %both = load %p : f16<16,16>
  %q = gep %pA, %idx : f16*<16,16>
  %gather = load %q : f16<16,16>
  %n16 = splat %n : i32<16,16>
  %lower = icmp sgt %b1, %n16 : i1<16,16>
  %zero = splat f16 0 : f16<16,16>
  %n2 = mul %b0, %n16 : i32<16,16>
  %p2 = gep %p, %n2 : f16*<16,16>
  %lowmask = masked_load %p2, %lower, %zero : f16<16,16>
  ret
}
)";
  EXPECT_EQ(accessOf(Text, "%both"), "none");
  EXPECT_EQ(accessOf(Text, "%gather"), "none");
  EXPECT_EQ(accessOf(Text, "%lowmask"), "none");
}

/// Why the scalar named Name in the only function of Text may be negative
/// (AffineAccessAnalysis::whyMayBeNegative of its polynomial), or "".
std::string whyMayBeNegative(const std::string &Text, const std::string &Name) {
  return analyze(Text, [&](const ir::Function &F, AffineAccessAnalysis &AA) -> std::string {
    const ir::Value *V = findValue(F, Name);
    std::optional<AffineTile> T = V ? AA.affineOf(V) : std::nullopt;
    return T ? AA.whyMayBeNegative(T->Offset) : "no value " + Name;
  });
}

TEST(AffineAccessTest, CoordinatesProvedNonNegative) {
  const char *Text = R"(define kernel void @s(i32 %n, i32 %K) {
entry:
  %pm = get_program_id 0 : i32
  %np = get_num_programs 0 : i32
  %tile = mul %pm, i32 64 : i32
  %prev = sub %pm, i32 1 : i32
  %param = add %pm, %n : i32
  %quot = sdiv %pm, %np : i32
  %rem = srem %pm, %n : i32
  %byparam = sdiv %pm, %n : i32
  %either = smax %n, %pm : i32
  br ^loop
loop:
  %k = phi [i32 16, ^entry], [%k1, ^loop] : i32
  %t = phi [%pm, ^entry], [%t1, ^loop] : i32
  %k1 = add %k, i32 32 : i32
  %t1 = add %t, %np : i32
  %fromstart = sub %k, i32 16 : i32
  %before = sub %k, i32 32 : i32
  %go = icmp slt %k1, %K : i1
  cond_br %go, ^loop, ^exit
exit:
  ret
}
)";
  // Program ids, their counts, products, quotients and remainders of them.
  EXPECT_EQ(whyMayBeNegative(Text, "%tile"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%quot"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%either"), "");
  // A remainder has its dividend's sign, whatever the divisor's.
  EXPECT_EQ(whyMayBeNegative(Text, "%rem"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%prev"), "its term -1 is negative");
  // Integer parameters are signed: a launch may pass a negative one.
  EXPECT_EQ(whyMayBeNegative(Text, "%param"),
            "%n is an integer parameter not specialized as non-negative, which a launch that "
            "passes it >= 0 does");
  EXPECT_EQ(whyMayBeNegative(Text, "%byparam"), "%byparam is not known to be non-negative");
  // The loop counter from 16 by 32: k - 16 is the iterations times 32, k - 32
  // is -16 on the first iteration.
  EXPECT_EQ(whyMayBeNegative(Text, "%fromstart"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%before"), "its term -16 is negative");
  // An induction by a non-constant step from a program id, by the count of
  // programs (a persistent kernel's tile).
  EXPECT_EQ(whyMayBeNegative(Text, "%t1"), "");
}

// A parameter a launch checked (`nonnegative`) is non-negative, and so are
// products, quotients and inductions of it: the coordinates of convolutions
// that multiply sizes and strides. A difference still is not.
TEST(AffineAccessTest, CoordinatesOverNonNegativeParameters) {
  const char *Text =
      R"(define kernel void @s(i32 %n nonnegative, i32 %m multipleof(16) nonnegative, i32 %s multipleof(16)) {
entry:
  %pm = get_program_id 0 : i32
  %param = add %pm, %n : i32
  %product = mul %n, %m : i32
  %quot = sdiv %product, %m : i32
  %signed = mul %n, %s : i32
  %diff = sub %m, %n : i32
  br ^loop
loop:
  %k = phi [%n, ^entry], [%k1, ^loop] : i32
  %k1 = add %k, %m : i32
  %go = icmp slt %k1, %s : i1
  cond_br %go, ^loop, ^exit
exit:
  ret
}
)";
  EXPECT_EQ(whyMayBeNegative(Text, "%param"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%product"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%quot"), "");
  EXPECT_EQ(whyMayBeNegative(Text, "%k1"), "");
  // A multiple of 16 alone ('D') says nothing of the sign.
  EXPECT_EQ(whyMayBeNegative(Text, "%signed"),
            "%s is an integer parameter not specialized as non-negative, which a launch that "
            "passes it >= 0 does");
  EXPECT_EQ(whyMayBeNegative(Text, "%diff"), "its term -%n is negative");
}

} // namespace
