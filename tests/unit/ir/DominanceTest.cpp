//===- DominanceTest.cpp - Dominator tree ---------------------------------===//
#include "IRTestUtil.h"

#include "tritonc/ir/Dominance.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::ir::test;

namespace {

BasicBlock *blockNamed(Function &F, const std::string &Name) {
  for (auto &BB : F.blocks())
    if (BB->getName() == Name)
      return BB.get();
  return nullptr;
}

// entry -> {a, b}; a -> join; b -> loop; loop -> {loop, join}; join -> exit.
// dead is unreachable.
const char *CFG = "define void @f(i1 %c) {\n"
                  "entry:\n  cond_br %c, ^a, ^b\n"
                  "dead:\n  br ^join\n"
                  "a:\n  %x = add i32 1, i32 2 : i32\n  %y = add %x, %x : i32\n  br ^join\n"
                  "b:\n  br ^loop\n"
                  "loop:\n  cond_br %c, ^loop, ^join\n"
                  "join:\n  br ^exit\n"
                  "exit:\n  ret\n"
                  "}\n";

TEST(Dominance, LeadsToFollowsPathsOfOneOrMoreEdges) {
  ParseResult R = parseString(CFG);
  ASSERT_TRUE(R.M) << R.Diags;
  Function &F = *R.M->functions()[0];
  BasicBlock *Entry = blockNamed(F, "entry"), *A = blockNamed(F, "a"), *B = blockNamed(F, "b"),
             *Loop = blockNamed(F, "loop"), *Exit = blockNamed(F, "exit"),
             *Dead = blockNamed(F, "dead");
  EXPECT_TRUE(Entry->leadsTo(Exit));
  EXPECT_TRUE(B->leadsTo(Loop));
  EXPECT_TRUE(Loop->leadsTo(Loop)); // its own back edge
  EXPECT_FALSE(A->leadsTo(A));      // no cycle through a
  EXPECT_FALSE(A->leadsTo(Loop));
  EXPECT_FALSE(Exit->leadsTo(Entry));
  EXPECT_TRUE(Dead->leadsTo(Exit));
  EXPECT_FALSE(Entry->leadsTo(Dead));
}

TEST(Dominance, TreeOfBranchesAndLoop) {
  ParseResult R = parseString(CFG);
  ASSERT_TRUE(R.M) << R.Diags;
  Function &F = *R.M->functions()[0];
  DominatorTree DT(F);
  BasicBlock *Entry = blockNamed(F, "entry"), *A = blockNamed(F, "a"), *B = blockNamed(F, "b"),
             *Loop = blockNamed(F, "loop"), *Join = blockNamed(F, "join"),
             *Exit = blockNamed(F, "exit"), *Dead = blockNamed(F, "dead");

  EXPECT_EQ(DT.getIdom(Entry), nullptr);
  EXPECT_EQ(DT.getIdom(A), Entry);
  EXPECT_EQ(DT.getIdom(B), Entry);
  EXPECT_EQ(DT.getIdom(Loop), B);
  EXPECT_EQ(DT.getIdom(Join), Entry);
  EXPECT_EQ(DT.getIdom(Exit), Join);
  EXPECT_EQ(DT.getIdom(Dead), nullptr);

  EXPECT_TRUE(DT.dominates(Entry, Exit));
  EXPECT_TRUE(DT.dominates(B, Loop));
  EXPECT_TRUE(DT.dominates(Loop, Loop));
  EXPECT_FALSE(DT.properlyDominates(Loop, Loop));
  EXPECT_FALSE(DT.dominates(A, Join));
  EXPECT_FALSE(DT.dominates(Loop, Join));
  EXPECT_FALSE(DT.dominates(Exit, Join));
  EXPECT_FALSE(DT.isReachable(Dead));
  EXPECT_TRUE(DT.dominates(Exit, Dead)); // LLVM's convention for unreachable blocks
  EXPECT_FALSE(DT.dominates(Dead, Exit));

  // Reverse post-order: the entry first, every block after its idom, and
  // unreachable blocks left out.
  const auto &RPO = DT.reversePostOrder();
  ASSERT_EQ(RPO.size(), 6u);
  EXPECT_EQ(RPO.front(), Entry);
  for (size_t I = 1; I < RPO.size(); ++I) {
    auto IdomPos = std::find(RPO.begin(), RPO.end(), DT.getIdom(RPO[I]));
    EXPECT_LT(IdomPos - RPO.begin(), static_cast<long>(I));
  }
  EXPECT_EQ(DT.getChildren(Entry).size(), 3u);
  EXPECT_TRUE(DT.getChildren(Exit).empty());

  Instruction *X = A->front(), *Y = std::next(A->instructions().begin())->get();
  EXPECT_TRUE(DT.dominates(X, Y));
  EXPECT_FALSE(DT.dominates(Y, X));
  EXPECT_FALSE(DT.dominates(X, X));
  EXPECT_FALSE(DT.dominates(X, Join->front()));
  EXPECT_TRUE(DT.dominatesEndOf(X, A));
  EXPECT_FALSE(DT.dominatesEndOf(X, Loop));
}

TEST(Dominance, DeepChainDoesNotRecurse) {
  Module M;
  IRBuilder B(M);
  Function *F = M.createFunction("f", Type::getVoid(), {});
  std::vector<BasicBlock *> Blocks;
  for (int K = 0; K < 20000; ++K)
    Blocks.push_back(F->createBlock(""));
  for (size_t K = 0; K < Blocks.size(); ++K) {
    B.setInsertPoint(Blocks[K]);
    if (K + 1 < Blocks.size())
      B.createBr(Blocks[K + 1]);
    else
      B.createRet();
  }
  DominatorTree DT(*F);
  EXPECT_EQ(DT.reversePostOrder().size(), Blocks.size());
  EXPECT_EQ(DT.getIdom(Blocks.back()), Blocks[Blocks.size() - 2]);
  EXPECT_TRUE(DT.dominates(Blocks.front(), Blocks.back()));
}

} // namespace
