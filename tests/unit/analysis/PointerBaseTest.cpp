//===- PointerBaseTest.cpp - The parameter a pointer is computed from -----===//
#include "AxisInfoTestUtil.h"

#include "tritonc/analysis/PointerBase.h"

using namespace tritonc;
using namespace tritonc::analysis;
using namespace tritonc::analysis::test;

namespace {

// %pa walks A through a loop phi; %pb selects between two offsets of B;
// %pc selects between A and B; %pd comes from an integer; %pe is a phi of
// A on one edge and B on the other.
const char *Kernel = R"(define kernel void @k(f32* %A, f32* %B, i64 %n, i1 %c) {
entry:
  %b1 = gep %B, i32 1 : f32*
  %b2 = gep %B, i32 2 : f32*
  %pb = select %c, %b1, %b2 : f32*
  %pc = select %c, %A, %B : f32*
  %pd = inttoptr %n : f32*
  br ^loop
loop:
  %pa = phi [%A, ^entry], [%pa.next, ^loop] : f32*
  %pe = phi [%A, ^entry], [%B, ^loop] : f32*
  %ra = splat %pa : f32*<4>
  %pa.next = gep %pa, i32 4 : f32*
  cond_br %c, ^loop, ^exit
exit:
  ret
}
)";

std::string baseOf(const std::string &Name) {
  std::unique_ptr<ParsedModule> P = parse(Kernel);
  if (!P->M)
    return "parse error: " + P->Errors;
  const ir::Function &F = *P->M->functions()[0];
  const ir::Value *V = findValue(F, Name);
  if (!V)
    return "no value " + Name;
  const ir::Argument *A = pointerBase(V);
  return A ? "%" + A->getName() : "none";
}

TEST(PointerBaseTest, FollowsOffsetsSplatsAndLoopPhis) {
  EXPECT_EQ(baseOf("%A"), "%A");
  EXPECT_EQ(baseOf("%b1"), "%B");
  EXPECT_EQ(baseOf("%pa"), "%A");
  EXPECT_EQ(baseOf("%pa.next"), "%A");
  EXPECT_EQ(baseOf("%ra"), "%A");
}

TEST(PointerBaseTest, SelectsOfOneParameterKeepIt) { EXPECT_EQ(baseOf("%pb"), "%B"); }

TEST(PointerBaseTest, TwoParametersOrAnIntegerHaveNone) {
  EXPECT_EQ(baseOf("%pc"), "none");
  EXPECT_EQ(baseOf("%pe"), "none");
  EXPECT_EQ(baseOf("%pd"), "none");
}

} // namespace
