//===- PrefixMaskTest.cpp - Masks true on a prefix of every vector --------===//
#include "AxisInfoTestUtil.h"

#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/PrefixMask.h"

#include <stdexcept>

using namespace tritonc;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

// Masks of a [16, 64] tile whose columns (dimension 1) are %cb = 0 .. 63.
const char *Kernel = R"(define kernel void @masks(f16* %X readonly aligned(16), i32 %K, i32 %R) {
entry:
  %c = make_range 0, 64 : i32<64>
  %c2 = reshape %c : i32<1,64>
  %cb = broadcast %c2 : i32<16,64>
  %Ks = splat %K : i32<16,64>
  %r = make_range 0, 16 : i32<16>
  %r2 = reshape %r : i32<16,1>
  %Rs = splat %R : i32<16,1>
  %rin = icmp slt %r2, %Rs : i1<16,1>
  %rows = broadcast %rin : i1<16,64>
  %lt = icmp slt %cb, %Ks : i1<16,64>
  %ge = icmp sge %Ks, %cb : i1<16,64>
  %suffix = icmp sgt %cb, %Ks : i1<16,64>
  %eq = icmp eq %cb, %Ks : i1<16,64>
  %ult = icmp ult %cb, %Ks : i1<16,64>
  %s8 = splat i32 8 : i32<16,64>
  %cm = sub %cb, %s8 : i32<16,64>
  %ultneg = icmp ult %cm, %Ks : i1<16,64>
  %c2x = mul %cb, %s8 : i32<16,64>
  %strided = icmp slt %c2x, %Ks : i1<16,64>
  %and = and %rows, %lt : i1<16,64>
  %c8 = sdiv %cb, %s8 : i32<16,64>
  %eighths = icmp slt %c8, %Ks : i1<16,64>
  %and8 = and %lt, %eighths : i1<16,64>
  %two = and %lt, %ult : i1<16,64>
  %ks2 = splat %K : i32<1,64>
  %narrow = icmp slt %c2, %ks2 : i1<1,64>
  %wide = broadcast %narrow : i1<16,64>
  %nested = and %wide, %rows : i1<16,64>
  %xs = splat %X : f16*<16,64>
  %s6 = splat i32 6 : i32<16,1>
  %r64 = shl %r2, %s6 : i32<16,1>
  %rb = broadcast %r64 : i32<16,64>
  %off = add %rb, %cb : i32<16,64>
  %px = gep %xs, %off : f16*<16,64>
  %zero = splat f16 0 : f16<16,64>
  %load = masked_load %px, %and, %zero : f16<16,64>
  ret
}
)";

struct Fixture {
  std::unique_ptr<ParsedModule> P = parse(Kernel);
  const ir::Function &F = function();
  AxisInfoAnalysis AI{F};

  const ir::Function &function() const {
    if (!P->M)
      throw std::runtime_error(P->Errors);
    return *P->M->functions()[0];
  }

  std::optional<PrefixMask> along1(const std::string &Name) const {
    return findPrefixMask(findValue(F, Name), 1, AI);
  }
  std::string name(const ir::Value *V) const { return V ? ir::printOperand(*V) : "null"; }
};

} // namespace

TEST(PrefixMaskTest, IndexBelowBound) {
  Fixture X;
  std::optional<PrefixMask> P = X.along1("%lt");
  ASSERT_TRUE(P);
  EXPECT_EQ(X.name(P->Index), "%cb");
  EXPECT_EQ(X.name(P->Bound), "%Ks");
  EXPECT_FALSE(P->Inclusive);
  EXPECT_EQ(P->Run, 64);
  EXPECT_TRUE(P->Path.empty());
  EXPECT_EQ(X.name(P->Compare), "%lt");
}

// `K >= c` is `c <= K`: the bound written first, one more element.
TEST(PrefixMaskTest, BoundFirstAndInclusive) {
  Fixture X;
  std::optional<PrefixMask> P = X.along1("%ge");
  ASSERT_TRUE(P);
  EXPECT_EQ(X.name(P->Index), "%cb");
  EXPECT_EQ(X.name(P->Bound), "%Ks");
  EXPECT_TRUE(P->Inclusive);
}

TEST(PrefixMaskTest, SuffixesAndEqualityAreNot) {
  Fixture X;
  EXPECT_FALSE(X.along1("%suffix"));
  EXPECT_FALSE(X.along1("%eq"));
}

// Unsigned, the index must be known non-negative: a run from -1 to 0 would
// wrap from the largest value to the smallest.
TEST(PrefixMaskTest, UnsignedNeedsANonNegativeIndex) {
  Fixture X;
  std::optional<PrefixMask> P = X.along1("%ult");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Run, 64);
  EXPECT_FALSE(X.along1("%ultneg"));
}

TEST(PrefixMaskTest, AnIndexThatSkipsIsNot) {
  Fixture X;
  EXPECT_FALSE(X.along1("%strided"));
}

// The other conjuncts bound the run by their constancy: rows (constant
// along the columns) not at all, `c / 8 < K` to 8, another comparison that
// varies by element to nothing.
TEST(PrefixMaskTest, OtherConjunctsBoundTheRun) {
  Fixture X;
  std::optional<PrefixMask> P = X.along1("%and");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Run, 64);
  ASSERT_EQ(P->Path.size(), 1u);
  EXPECT_EQ(X.name(P->Path[0]), "%and");
  P = X.along1("%and8");
  ASSERT_TRUE(P);
  EXPECT_EQ(P->Run, 8);
  EXPECT_FALSE(X.along1("%two"));
}

// Through a broadcast of the comparison, which the path records for the
// lowering to follow.
TEST(PrefixMaskTest, ThroughBroadcasts) {
  Fixture X;
  std::optional<PrefixMask> P = X.along1("%nested");
  ASSERT_TRUE(P);
  EXPECT_EQ(X.name(P->Index), "%c2");
  EXPECT_EQ(X.name(P->Bound), "%ks2");
  ASSERT_EQ(P->Path.size(), 2u);
  EXPECT_EQ(X.name(P->Path[0]), "%nested");
  EXPECT_EQ(X.name(P->Path[1]), "%wide");
}

// A mask constant along the dimension needs no prefix: one bit per vector.
TEST(PrefixMaskTest, ConstantMasksAreLeftAlone) {
  Fixture X;
  EXPECT_FALSE(X.along1("%rows"));
  EXPECT_FALSE(findPrefixMask(findValue(X.F, "%lt"), 0, X.AI));
}

// A masked load reads 1-element vectors under a mask that changes by
// element; the cp_async it becomes copies 16 bytes with a source size.
TEST(PrefixMaskTest, CopyPlanReachesPastTheMasksConstancy) {
  Fixture X;
  LayoutAssignment LA(X.F, X.AI, 4, /*HasMmaV2=*/true, /*AllowTF32=*/false);
  const ir::Instruction *Load = ir::asInstruction(const_cast<ir::Value *>(findValue(X.F, "%load")));
  ASSERT_TRUE(Load);
  EXPECT_EQ(LA.accessOf(Load).Vec, 1u);
  AccessPlan Copy = LA.copyPlanOf(*Load, X.AI);
  EXPECT_EQ(Copy.Vec, 8u);
  EXPECT_EQ(Copy.VecDim, 1u);
}
