//===- AxisInfoTest.cpp - Transfer rules of the axis-info analysis --------===//
#include "AxisInfoTestUtil.h"

#include "tritonc/transform/PassManager.h"

#include <sstream>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

/// Analyzes the single function of Text and returns the info string of each
/// named value.
class Facts {
public:
  explicit Facts(const std::string &Text) : P(parse(Text)) {
    EXPECT_TRUE(P->M) << P->Errors;
    if (P->M)
      AI = std::make_unique<AxisInfoAnalysis>(*P->M->functions()[0]);
  }
  std::string operator[](const std::string &Name) const {
    if (!AI)
      return "<no module>";
    const Value *V = findValue(*P->M->functions()[0], Name);
    if (!V)
      return "<no value " + Name + ">";
    return AI->get(V).str();
  }
  const AxisInfo &info(const std::string &Name) const {
    return AI->get(findValue(*P->M->functions()[0], Name));
  }
  std::unique_ptr<ParsedModule> P;
  std::unique_ptr<AxisInfoAnalysis> AI;
};

std::string wrap(const std::string &Args, const std::string &Body) {
  return "define void @f(" + Args + ") {\nentry:\n" + Body + "  ret\n}\n";
}

TEST(AxisInfo, GpuTypesHaveOneEntryLikeScalars) {
  // A shared buffer has a slot shape but is not a tile: its facts have the
  // one entry normalize() expects (two made it read past the shape, ASan).
  const Type *Ring = Type::getSharedBuffer(Type::getF16(), {64, 32}, nullptr, 3);
  EXPECT_EQ(AxisInfo::pessimistic(Ring).rank(), 1u);
  EXPECT_EQ(AxisInfo::pessimistic(Type::getTensorDesc(Type::getF16(), {64, 32})).rank(), 1u);
  EXPECT_EQ(AxisInfo::pessimistic(Type::getTile(Type::getF16(), {64, 32})).rank(), 2u);
}

TEST(AxisInfo, Pow2Divisor) {
  EXPECT_EQ(largestPow2Divisor(0), MaxDivisibility);
  EXPECT_EQ(largestPow2Divisor(12), 4);
  EXPECT_EQ(largestPow2Divisor(-8), 8);
  EXPECT_EQ(largestPow2Divisor(1), 1);
  EXPECT_EQ(largestPow2Divisor(int64_t(1) << 40), MaxDivisibility);
}

TEST(AxisInfo, ArgumentSeedsAndConstants) {
  Facts F(wrap("i32 %a multipleof(24), f32* %p aligned(16), i32 %b, i8* %q",
               "  %c = add i32 12, i32 0 : i32\n"));
  EXPECT_EQ(F["%a"], "contiguity=[1] divisibility=[8] constancy=[1]");
  EXPECT_EQ(F["%p"], "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%b"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%q"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%c"], "contiguity=[1] divisibility=[4] constancy=[1] constant=12");
}

TEST(AxisInfo, MakeRangeAndSplat) {
  Facts F(wrap("i32 %a multipleof(16)", R"(  %r = make_range 0, 32 : i32<32>
  %s = make_range 8, 24 : i32<16>
  %t = make_range 3, 15 : i32<12>
  %sp = splat %a : i32<4,8>
  %pid = get_program_id 0 : i32
)"));
  EXPECT_EQ(F["%r"], "contiguity=[32] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(F["%s"], "contiguity=[16] divisibility=[8] constancy=[1]");
  EXPECT_EQ(F["%t"], "contiguity=[4] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%sp"], "contiguity=[1,1] divisibility=[16,16] constancy=[4,8]");
  EXPECT_EQ(F["%pid"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_TRUE(F.info("%pid").NonNegative);
}

TEST(AxisInfo, AddSubMul) {
  Facts F(wrap("i32 %a multipleof(16), i32 %b", R"(  %r = make_range 0, 32 : i32<32>
  %sa = splat %a : i32<32>
  %x = add %sa, %r : i32<32>
  %y = sub %x, %sa : i32<32>
  %z = sub %sa, %r : i32<32>
  %w = add %r, %r : i32<32>
  %m = mul %r, %sa : i32<32>
  %k1 = splat i32 1 : i32<32>
  %m1 = mul %x, %k1 : i32<32>
  %sb = splat %b : i32<32>
  %xb = add %sb, %r : i32<32>
  %s = mul %a, i32 4 : i32
)"));
  EXPECT_EQ(F["%x"], "contiguity=[32] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%y"], "contiguity=[32] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%z"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%w"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%m"], "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%xb"], "contiguity=[32] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%s"], "contiguity=[1] divisibility=[64] constancy=[1]");
}

TEST(AxisInfo, ShiftsDivRemAndMasks) {
  Facts F(wrap("i32 %a multipleof(32), i32 %b", R"(  %r = make_range 0, 32 : i32<32>
  %sa = splat %a : i32<32>
  %x = add %sa, %r : i32<32>
  %k2 = splat i32 2 : i32<32>
  %sh = shl %x, %k2 : i32<32>
  %k3 = splat i32 4 : i32<32>
  %q = sdiv %r, %k3 : i32<32>
  %k4 = splat i32 3 : i32<32>
  %l = lshr %x, %k4 : i32<32>
  %k5 = splat i32 8 : i32<32>
  %rem = srem %r, %k5 : i32<32>
  %k6 = splat i32 7 : i32<32>
  %lo = and %x, %k6 : i32<32>
  %k7 = splat i32 -8 : i32<32>
  %hi = and %x, %k7 : i32<32>
  %sb = splat %b : i32<32>
  %y = sub %sb, %r : i32<32>
  %k8 = splat i32 4 : i32<32>
  %yq = sdiv %y, %k8 : i32<32>
  %k9 = splat i32 4 : i32<32>
  %yr = srem %y, %k9 : i32<32>
  %k10 = splat i32 4 : i32<32>
  %yu = urem %y, %k10 : i32<32>
  %yb = add %sb, %r : i32<32>
  %k11 = splat i32 4 : i32<32>
  %ybq = sdiv %yb, %k11 : i32<32>
  %k12 = splat i32 4 : i32<32>
  %ybu = udiv %yb, %k12 : i32<32>
  %k13 = splat i32 3 : i32<32>
  %o = or %sa, %k13 : i32<32>
)"));
  EXPECT_EQ(F["%sh"], "contiguity=[1] divisibility=[4] constancy=[1]");
  // (range / 4): non-negative, so blocks of 4 share a quotient.
  EXPECT_EQ(F["%q"], "contiguity=[1] divisibility=[1] constancy=[4]");
  EXPECT_EQ(F["%l"], "contiguity=[1] divisibility=[1] constancy=[8]");
  EXPECT_EQ(F["%rem"], "contiguity=[8] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(F["%lo"], "contiguity=[8] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(F["%hi"], "contiguity=[1] divisibility=[8] constancy=[8]");
  // b - r decreases: nothing beyond the constants.
  EXPECT_EQ(F["%yq"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%yr"], "contiguity=[1] divisibility=[1] constancy=[1]");
  // b + r may be negative (b unknown) and its runs start anywhere.
  EXPECT_EQ(F["%ybq"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%ybu"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%o"], "contiguity=[1] divisibility=[1] constancy=[32]");
}

TEST(AxisInfo, SignedDivisionNeedsNonNegative) {
  // %x may be negative (a is unknown): sdiv truncates toward zero, so only
  // exact facts survive; ashr floors and keeps the blocks.
  Facts F(wrap("i32 %a multipleof(32)", R"(  %r = make_range 0, 32 : i32<32>
  %sa = splat %a : i32<32>
  %x = add %sa, %r : i32<32>
  %k14 = splat i32 4 : i32<32>
  %q = sdiv %x, %k14 : i32<32>
  %k15 = splat i32 2 : i32<32>
  %s = ashr %x, %k15 : i32<32>
  %k16 = splat i32 4 : i32<32>
  %u = udiv %x, %k16 : i32<32>
)"));
  EXPECT_EQ(F["%q"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%s"], "contiguity=[1] divisibility=[1] constancy=[4]");
  EXPECT_EQ(F["%u"], "contiguity=[1] divisibility=[1] constancy=[4]");
}

TEST(AxisInfo, CompareConstancyForMasks) {
  Facts F(wrap("i32 %n multipleof(16), i32 %m", R"(  %r = make_range 0, 64 : i32<64>
  %sn = splat %n : i32<64>
  %lt = icmp slt %r, %sn : i1<64>
  %gt = icmp sgt %sn, %r : i1<64>
  %le = icmp sle %r, %sn : i1<64>
  %sm = splat %m : i32<64>
  %lm = icmp slt %r, %sm : i1<64>
  %sel = select %lt, %r, %sn : i32<64>
)"));
  EXPECT_EQ(F["%lt"], "contiguity=[1] divisibility=[1] constancy=[16]");
  EXPECT_EQ(F["%gt"], "contiguity=[1] divisibility=[1] constancy=[16]");
  EXPECT_EQ(F["%le"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%lm"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%sel"], "contiguity=[1] divisibility=[1] constancy=[1]");
}

TEST(AxisInfo, SelectKeepsRunsUnderConstantCondition) {
  Facts F(wrap("i32 %n multipleof(16), i1 %c", R"(  %r = make_range 0, 64 : i32<64>
  %sn = splat %n : i32<64>
  %x = add %sn, %r : i32<64>
  %s = select %c, %x, %r : i32<64>
)"));
  EXPECT_EQ(F["%s"], "contiguity=[64] divisibility=[16] constancy=[1]");
}

TEST(AxisInfo, TilesReshapeBroadcastTrans) {
  Facts F(wrap("i32 %a multipleof(8)", R"(  %r = make_range 0, 32 : i32<32>
  %c = reshape %r : i32<32,1>
  %row = reshape %r : i32<1,32>
  %bc = broadcast %c : i32<32,16>
  %br = broadcast %row : i32<8,32>
  %t = trans %br : i32<32,8>
  %flat = reshape %br : i32<256>
  %split = reshape %r : i32<4,8>
  %odd = reshape %br : i32<16,16>
)"));
  EXPECT_EQ(F["%c"], "contiguity=[32,1] divisibility=[1073741824,1] constancy=[1,1]");
  EXPECT_EQ(F["%bc"], "contiguity=[32,1] divisibility=[1073741824,1] constancy=[1,16]");
  EXPECT_EQ(F["%br"], "contiguity=[1,32] divisibility=[1,1073741824] constancy=[8,1]");
  EXPECT_EQ(F["%t"], "contiguity=[32,1] divisibility=[1073741824,1] constancy=[1,8]");
  EXPECT_EQ(F["%flat"], "contiguity=[32] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(F["%split"], "contiguity=[1,8] divisibility=[1,8] constancy=[1,1]");
  EXPECT_EQ(F["%odd"], "contiguity=[1,16] divisibility=[1,16] constancy=[1,1]");
}

TEST(AxisInfo, GepAndTransposePattern) {
  Facts F(wrap("f32* %X aligned(32), i32 %ldx multipleof(8)", R"(  %pm = get_program_id 0 : i32
  %pn = get_program_id 1 : i32
  %bm = mul %pm, i32 32 : i32
  %bn = mul %pn, i32 32 : i32
  %r = make_range 0, 32 : i32<32>
  %sm = splat %bm : i32<32>
  %rm = add %sm, %r : i32<32>
  %sn = splat %bn : i32<32>
  %rn = add %sn, %r : i32<32>
  %c = reshape %rm : i32<32,1>
  %l = splat %ldx : i32<32,1>
  %cl = mul %c, %l : i32<32,1>
  %xs = splat %X : f32*<32,1>
  %p0 = gep %xs, %cl : f32*<32,1>
  %row = reshape %rn : i32<1,32>
  %pb = broadcast %p0 : f32*<32,32>
  %rb = broadcast %row : i32<32,32>
  %px = gep %pb, %rb : f32*<32,32>
  %pt = trans %px : f32*<32,32>
  %h = bitcast %px : f16*<32,32>
  %i = ptrtoint %px : i64<32,32>
)"));
  EXPECT_EQ(F["%p0"], "contiguity=[1,1] divisibility=[32,32] constancy=[1,1]");
  EXPECT_EQ(F["%px"], "contiguity=[1,32] divisibility=[4,32] constancy=[1,1]");
  EXPECT_EQ(F["%pt"], "contiguity=[32,1] divisibility=[32,4] constancy=[1,1]");
  EXPECT_EQ(F["%h"], "contiguity=[1,1] divisibility=[4,4] constancy=[1,1]");
  EXPECT_EQ(F["%i"], "contiguity=[1,1] divisibility=[4,4] constancy=[1,1]");
}

TEST(AxisInfo, CastsAndConstants) {
  Facts F(wrap("i32 %a multipleof(16)", R"(  %r = make_range 0, 32 : i32<32>
  %sa = splat %a : i32<32>
  %x = add %sa, %r : i32<32>
  %s = sext %x : i64<32>
  %z = zext %x : i64<32>
  %zr = zext %r : i64<32>
  %t = trunc %x : i8<32>
  %k = splat i32 48 : i32<32>
  %kk = add %k, %k : i32<32>
  %mk = mul %x, %k : i32<32>
)"));
  EXPECT_EQ(F["%s"], "contiguity=[32] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%z"], "contiguity=[16] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%zr"], "contiguity=[32] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(F["%t"], "contiguity=[16] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%kk"], "contiguity=[1] divisibility=[32] constancy=[32] constant=96");
  EXPECT_EQ(F["%mk"], "contiguity=[1] divisibility=[16] constancy=[1]");
}

TEST(AxisInfo, LoopPhiKeepsContiguity) {
  Facts F(R"(define void @f(f32* %A aligned(16), i32 %K) {
entry:
  %r = make_range 0, 16 : i32<16>
  %s = splat %A : f32*<16>
  %p = gep %s, %r : f32*<16>
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [%i1, ^loop] : i32
  %pa = phi [%p, ^entry], [%pn, ^loop] : f32*<16>
  %w = phi [%r, ^entry], [%wn, ^loop] : i32<16>
  %st = splat i32 16 : i32<16>
  %pn = gep %pa, %st : f32*<16>
  %s3 = splat i32 3 : i32<16>
  %wn = add %w, %s3 : i32<16>
  %i1 = add %i, i32 16 : i32
  %c = icmp slt %i1, %K : i1
  cond_br %c, ^loop, ^exit
exit:
  ret
}
)");
  EXPECT_EQ(F["%pa"], "contiguity=[16] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%pn"], "contiguity=[16] divisibility=[16] constancy=[1]");
  // Runs survive, but the start loses its alignment (+3 each trip).
  EXPECT_EQ(F["%w"], "contiguity=[16] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%i"], "contiguity=[1] divisibility=[16] constancy=[1]");
  EXPECT_LE(F.AI->numIterations(), 4u);
}

TEST(AxisInfo, PhiMeetReadsDivisibilityAtNewBlockStarts) {
  // One side: runs of 32 starting at multiples of 64; the other: runs of 8
  // starting at multiples of 16. The meet has runs of 8, whose starts in the
  // first side are only multiples of 8.
  Facts F(R"(define void @f(i1 %c, i32 %a multipleof(64), i32 %b multipleof(16)) {
entry:
  %r = make_range 0, 32 : i32<32>
  %sa = splat %a : i32<32>
  %x = add %sa, %r : i32<32>
  %sb = splat %b : i32<32>
  %k17 = splat i32 7 : i32<32>
  %m = and %r, %k17 : i32<32>
  %y = add %sb, %m : i32<32>
  cond_br %c, ^t, ^j
t:
  br ^j
j:
  %p = phi [%x, ^t], [%y, ^entry] : i32<32>
  ret
}
)");
  EXPECT_EQ(F["%y"], "contiguity=[8] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%p"], "contiguity=[8] divisibility=[8] constancy=[1]");
}

TEST(AxisInfo, UnknownValuesArePessimistic) {
  Facts F(wrap("i32* %p aligned(16)", R"(  %r = make_range 0, 32 : i32<32>
  %s = splat %p : i32*<32>
  %q = gep %s, %r : i32*<32>
  %v = load %q : i32<32>
  %w = add %v, %r : i32<32>
)"));
  EXPECT_EQ(F["%q"], "contiguity=[32] divisibility=[16] constancy=[1]");
  EXPECT_EQ(F["%v"], "contiguity=[1] divisibility=[1] constancy=[1]");
  EXPECT_EQ(F["%w"], "contiguity=[1] divisibility=[1] constancy=[1]");
}

TEST(AxisInfo, AvailableThroughAnalysisManager) {
  auto P = parse(wrap("i32 %a", "  %r = make_range 0, 4 : i32<4>\n"));
  ASSERT_TRUE(P->M);
  transform::AnalysisManager AM;
  const Function &F = *P->M->functions()[0];
  auto &A1 = AM.get<AxisInfoAnalysis>(F);
  auto &A2 = AM.get<AxisInfoAnalysis>(F);
  EXPECT_EQ(&A1, &A2);
  EXPECT_EQ(A1.get(findValue(F, "%r")).Contiguity[0], 4);
}

} // namespace
