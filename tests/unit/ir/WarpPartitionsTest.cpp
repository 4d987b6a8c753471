//===- WarpPartitionsTest.cpp - The regions of a warp_specialize ----------===//
#include "IRTestUtil.h"

#include "tritonc/ir/WarpPartitions.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::ir::test;

namespace {

std::vector<std::string> names(const std::vector<BasicBlock *> &Blocks) {
  std::vector<std::string> N;
  for (const BasicBlock *BB : Blocks)
    N.push_back(BB->getName());
  return N;
}

TEST(WarpPartitions, RegionsAreTheBlocksUpToTheJoins) {
  // A loop in the first partition, two exits joining; the blocks of each
  // region come entry first, then in function order.
  ParseResult P = parseString(R"(define kernel void @f(i1 %c) {
entry:
  warp_specialize ^a warps(4), ^b warps(4)
b.exit:
  warp_join ^d
a:
  br ^a.loop
a.loop:
  cond_br %c, ^a.loop, ^a.exit
b:
  cond_br %c, ^b.exit, ^b.other
a.exit:
  warp_join ^d
b.other:
  warp_join ^d
d:
  ret
}
)");
  ASSERT_TRUE(P.M) << P.Diags;
  const Instruction *Fork = P.M->getFunction("f")->getEntryBlock()->getTerminator();
  WarpRegions R;
  const Instruction *At = nullptr;
  ASSERT_EQ(collectWarpRegions(*Fork, R, At), "");
  ASSERT_EQ(R.Partitions.size(), 2u);
  EXPECT_EQ(names(R.Partitions[0]), (std::vector<std::string>{"a", "a.loop", "a.exit"}));
  EXPECT_EQ(names(R.Partitions[1]), (std::vector<std::string>{"b", "b.exit", "b.other"}));
  ASSERT_TRUE(R.Join);
  EXPECT_EQ(R.Join->getName(), "d");
}

TEST(WarpPartitions, ReportsTheInstructionToBlame) {
  ParseResult P = parseString(R"(define kernel void @f() {
entry:
  warp_specialize ^a warps(4), ^b warps(4)
a:
  warp_join ^d
b:
  warp_join ^e
d:
  ret
e:
  ret
}
)");
  ASSERT_TRUE(P.M) << P.Diags;
  const Function *F = P.M->getFunction("f");
  const Instruction *At = nullptr;
  EXPECT_NE(checkWarpRegions(*F, At).find("must join at one block"), std::string::npos);
  ASSERT_TRUE(At);
  EXPECT_EQ(At->getOpcode(), Opcode::WarpJoin);
  EXPECT_EQ(At->getParent()->getName(), "b");
}

} // namespace
