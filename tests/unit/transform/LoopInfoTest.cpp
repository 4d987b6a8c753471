#include "TestUtil.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/LoopInfo.h"

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::transform;
using namespace tritonc::transform::test;

namespace {

BasicBlock *block(Function &F, const std::string &Name) {
  for (auto &BB : F.blocks())
    if (BB->getName() == Name)
      return BB.get();
  ADD_FAILURE() << "no block " << Name;
  return nullptr;
}

// for (i) { for (j) {} } with an if inside the inner body.
const char *Nested = R"(define void @f(i32 %n) {
entry:
  br ^outer
outer:
  %i = phi [i32 0, ^entry], [%i1, ^outer.latch] : i32
  %ci = icmp slt %i, %n : i1
  cond_br %ci, ^inner.pre, ^exit
inner.pre:
  br ^inner
inner:
  %j = phi [i32 0, ^inner.pre], [%j1, ^inner.body] : i32
  %cj = icmp slt %j, %n : i1
  cond_br %cj, ^inner.if, ^outer.latch
inner.if:
  cond_br %cj, ^inner.then, ^inner.body
inner.then:
  br ^inner.body
inner.body:
  %j1 = add %j, i32 1 : i32
  br ^inner
outer.latch:
  %i1 = add %i, i32 1 : i32
  br ^outer
exit:
  ret
}
)";

TEST(LoopInfo, FindsNestedNaturalLoops) {
  auto M = parse(Nested);
  ASSERT_TRUE(M);
  Function &F = *M->functions()[0];
  DominatorTree DT(F);
  LoopInfo LI(F, DT);
  ASSERT_EQ(LI.topLevelLoops().size(), 1u);
  Loop *Outer = LI.topLevelLoops()[0];
  EXPECT_EQ(Outer->getHeader(), block(F, "outer"));
  EXPECT_EQ(Outer->getDepth(), 1u);
  EXPECT_EQ(Outer->blocks().size(), 7u); // all but entry and exit
  EXPECT_FALSE(Outer->contains(block(F, "exit")));
  EXPECT_EQ(Outer->getPreheader(), block(F, "entry"));
  EXPECT_EQ(Outer->getLatches(), std::vector<BasicBlock *>{block(F, "outer.latch")});

  ASSERT_EQ(Outer->subLoops().size(), 1u);
  Loop *Inner = Outer->subLoops()[0];
  EXPECT_EQ(Inner->getHeader(), block(F, "inner"));
  EXPECT_EQ(Inner->getParentLoop(), Outer);
  EXPECT_EQ(Inner->getDepth(), 2u);
  EXPECT_EQ(Inner->blocks().size(), 4u);
  EXPECT_TRUE(Inner->contains(block(F, "inner.then")));
  EXPECT_FALSE(Inner->contains(block(F, "outer.latch")));
  EXPECT_EQ(Inner->getPreheader(), block(F, "inner.pre"));

  EXPECT_EQ(LI.getLoopFor(block(F, "inner.then")), Inner);
  EXPECT_EQ(LI.getLoopFor(block(F, "outer.latch")), Outer);
  EXPECT_EQ(LI.getLoopFor(block(F, "entry")), nullptr);
  EXPECT_EQ(LI.loopsInnermostFirst(), (std::vector<Loop *>{Inner, Outer}));
}

TEST(LoopInfo, NoPreheaderWhenPredecessorBranchesElsewhere) {
  auto M = parse(R"(define void @f(i1 %c) {
entry:
  cond_br %c, ^loop, ^exit
loop:
  cond_br %c, ^loop, ^exit
exit:
  ret
}
)");
  ASSERT_TRUE(M);
  Function &F = *M->functions()[0];
  DominatorTree DT(F);
  LoopInfo LI(F, DT);
  ASSERT_EQ(LI.topLevelLoops().size(), 1u);
  Loop *L = LI.topLevelLoops()[0];
  EXPECT_EQ(L->blocks().size(), 1u); // a self loop
  EXPECT_EQ(L->getPreheader(), nullptr);
  EXPECT_EQ(L->getOutsidePredecessors(), std::vector<BasicBlock *>{block(F, "entry")});
}

TEST(LoopInfo, StraightLineCodeHasNoLoops) {
  auto M = parse("define void @f() {\nentry:\n  br ^b\nb:\n  ret\n}\n");
  ASSERT_TRUE(M);
  DominatorTree DT(*M->functions()[0]);
  LoopInfo LI(*M->functions()[0], DT);
  EXPECT_TRUE(LI.empty());
  EXPECT_TRUE(LI.topLevelLoops().empty());
}

} // namespace
