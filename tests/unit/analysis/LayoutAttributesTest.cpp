//===- LayoutAttributesTest.cpp - IR layout attributes as linear layouts --===//

#include "tritonc/analysis/LayoutAttributes.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::analysis;
using ir::Layout;
using ir::Type;

namespace {

const Layout *blocked4x8() { return Layout::getBlocked({1, 4}, {4, 8}, {4, 1}, {1, 0}); }

/// Tile coordinates of (register, lane, warp).
std::vector<int32_t> at(const LinearLayout &L, int32_t Reg, int32_t Lane, int32_t Warp) {
  std::vector<int32_t> Out;
  for (auto &[Name, V] : L.apply({{"register", Reg}, {"lane", Lane}, {"warp", Warp}}))
    Out.push_back(V);
  return Out;
}

TEST(LayoutAttributes, BlockedFollowsItsParameters) {
  auto L = toLinearLayout(Type::getTile(Type::getF32(), {64, 64}, blocked4x8()));
  ASSERT_TRUE(L);
  EXPECT_EQ(at(*L, 1, 0, 0), (std::vector<int32_t>{0, 1})); // within a thread's vector
  EXPECT_EQ(at(*L, 0, 1, 0), (std::vector<int32_t>{0, 4})); // next lane: next vector
  EXPECT_EQ(at(*L, 0, 8, 0), (std::vector<int32_t>{1, 0})); // 8 lanes per row
  EXPECT_EQ(at(*L, 0, 0, 1), (std::vector<int32_t>{4, 0})); // warps stack rows
  EXPECT_TRUE(L->isInvertible());
}

TEST(LayoutAttributes, SliceKeepsTheParentsThreadsAndReplicates) {
  const Layout *S = Layout::getSlice(1, blocked4x8());
  auto L = toLinearLayout(Type::getTile(Type::getF32(), {64}, S));
  ASSERT_TRUE(L);
  // Lanes 0..7 share a row in the parent: they all hold element 0.
  EXPECT_EQ(at(*L, 0, 1, 0), (std::vector<int32_t>{0}));
  EXPECT_EQ(at(*L, 0, 7, 0), (std::vector<int32_t>{0}));
  EXPECT_EQ(at(*L, 0, 8, 0), (std::vector<int32_t>{1}));
  EXPECT_EQ(at(*L, 0, 0, 1), (std::vector<int32_t>{4}));
  EXPECT_TRUE(L->isSurjective());
  EXPECT_FALSE(L->isInjective());
}

TEST(LayoutAttributes, MmaAndWgmmaAccumulators) {
  auto Mma =
      toLinearLayout(Type::getTile(Type::getF32(), {32, 32}, Layout::getMma({2, 2}, {16, 8})));
  ASSERT_TRUE(Mma);
  EXPECT_EQ(at(*Mma, 0, 4, 0), (std::vector<int32_t>{1, 0}));
  EXPECT_EQ(at(*Mma, 1, 0, 0), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(at(*Mma, 0, 0, 1), (std::vector<int32_t>{0, 8})); // warp id along N first
  EXPECT_TRUE(Mma->isInvertible());

  auto W = toLinearLayout(
      Type::getTile(Type::getF32(), {64, 64}, Layout::getWgmma({4, 1}, {64, 64, 16})));
  ASSERT_TRUE(W);
  EXPECT_EQ(at(*W, 0, 0, 1), (std::vector<int32_t>{16, 0}));
  EXPECT_EQ(W->getInDimSize("register"), 32);
  EXPECT_TRUE(W->isInvertible());
}

/// A tensor-core A operand must sit in the threads that own the same rows
/// of the accumulator: checks row(A, lane, warp) == row(acc, lane, warp).
void expectRowsMatch(const LinearLayout &A, const LinearLayout &Acc) {
  for (int32_t Warp = 0; Warp < A.getInDimSize("warp"); ++Warp)
    for (int32_t Lane = 0; Lane < 32; ++Lane)
      EXPECT_EQ(at(A, 0, Lane, Warp)[0], at(Acc, 0, Lane, Warp)[0])
          << "lane " << Lane << " warp " << Warp;
}

TEST(LayoutAttributes, DotOperandsOfMma) {
  const Layout *Acc = Layout::getMma({2, 2}, {16, 8});
  auto A =
      toLinearLayout(Type::getTile(Type::getF16(), {32, 16}, Layout::getDotOperand(0, Acc, 2)));
  ASSERT_TRUE(A);
  EXPECT_EQ(at(*A, 0, 1, 0), (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(at(*A, 2, 0, 0), (std::vector<int32_t>{8, 0})); // a2: eight rows down
  EXPECT_EQ(at(*A, 4, 0, 0), (std::vector<int32_t>{0, 8})); // a4: second half of K
  EXPECT_EQ(at(*A, 1, 0, 0), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(at(*A, 0, 0, 1), (std::vector<int32_t>{0, 0})); // replicated over warps along N
  EXPECT_EQ(at(*A, 0, 0, 2), (std::vector<int32_t>{16, 0}));
  EXPECT_TRUE(A->isSurjective());
  expectRowsMatch(*A, *toLinearLayout(Type::getTile(Type::getF32(), {32, 32}, Acc)));

  auto B =
      toLinearLayout(Type::getTile(Type::getF16(), {16, 32}, Layout::getDotOperand(1, Acc, 2)));
  ASSERT_TRUE(B);
  EXPECT_EQ(at(*B, 0, 4, 0), (std::vector<int32_t>{0, 1})); // column = lane / 4
  EXPECT_EQ(at(*B, 0, 1, 0), (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(at(*B, 0, 0, 1), (std::vector<int32_t>{0, 8}));
  EXPECT_EQ(at(*B, 0, 0, 2), (std::vector<int32_t>{0, 0})); // replicated over warps along M
  EXPECT_TRUE(B->isSurjective());
}

TEST(LayoutAttributes, WgmmaRegisterOperandMatchesAccumulatorRows) {
  const Layout *Acc = Layout::getWgmma({8, 1}, {64, 128, 16});
  auto A =
      toLinearLayout(Type::getTile(Type::getF16(), {128, 32}, Layout::getDotOperand(0, Acc, 0)));
  ASSERT_TRUE(A);
  EXPECT_TRUE(A->isInvertible());
  expectRowsMatch(*A, *toLinearLayout(Type::getTile(Type::getF32(), {128, 128}, Acc)));
}

TEST(LayoutAttributes, SharedSwizzleModes) {
  const Layout *Mode = Layout::getSharedSwizzle(128, {1, 0});
  auto L = toLinearLayout(Type::getSharedBuffer(Type::getF16(), {64, 64}, Mode, 3));
  ASSERT_TRUE(L);
  // Row 1's first 16-byte chunk holds logical columns 8..15.
  auto Where = L->apply({{"offset", 64}});
  EXPECT_EQ(Where[0].second, 1);
  EXPECT_EQ(Where[1].second, 8);
  // The mode is the generic swizzle with 16-byte vectors and 8 phases.
  auto Generic = toLinearLayout(
      Type::getSharedBuffer(Type::getF16(), {64, 64}, Layout::getShared(8, 1, 8, {1, 0}), 3));
  EXPECT_EQ(*L, *Generic);
  // 64-byte swizzle of f32: 4-element vectors, 4 phases, 2 rows per phase.
  auto L64 = toLinearLayout(
      Type::getSharedBuffer(Type::getF32(), {32, 16}, Layout::getSharedSwizzle(64, {1, 0})));
  auto G64 = toLinearLayout(
      Type::getSharedBuffer(Type::getF32(), {32, 16}, Layout::getShared(4, 2, 4, {1, 0})));
  EXPECT_EQ(*L64, *G64);
  EXPECT_TRUE(L->isInvertible());
}

TEST(LayoutAttributes, LinearIsItsBases) {
  // blocked4x8 on 16x32, spelled as bases: the two agree.
  const Layout *Lin = Layout::getLinear({{0, 1}, {0, 2}}, {{0, 4}, {0, 8}, {0, 16}, {1, 0}, {2, 0}},
                                        {{4, 0}, {8, 0}});
  EXPECT_EQ(ir::checkLayout(*Lin), "");
  auto L = toLinearLayout(Type::getTile(Type::getF32(), {16, 32}, Lin));
  auto B = toLinearLayout(Type::getTile(Type::getF32(), {16, 32}, blocked4x8()));
  ASSERT_TRUE(L && B);
  EXPECT_EQ(*L, *B);
  EXPECT_EQ(at(*L, 3, 0, 0), (std::vector<int32_t>{0, 3})); // bases XOR-combine
  // A tile smaller than a basis reaches: no layout, with the reason.
  std::string Why;
  EXPECT_FALSE(toLinearLayout(Type::getTile(Type::getF32(), {8, 32}, Lin), &Why));
  EXPECT_NE(Why.find("leaves the tile"), std::string::npos) << Why;
  EXPECT_NE(ir::checkLayout(*Layout::getLinear({}, {{1}, {2}}, {})), "");
}

TEST(LayoutAttributes, ReportsWhatHasNoLinearForm) {
  std::string Why;
  EXPECT_FALSE(toLinearLayout(Type::getTile(Type::getF32(), {48, 64}, blocked4x8()), &Why));
  EXPECT_NE(Why.find("powers of two"), std::string::npos) << Why;
  EXPECT_FALSE(toLinearLayout(
      Type::getTile(Type::getF16(), {64, 16}, Layout::getDotOperand(0, blocked4x8(), 0)), &Why));
  EXPECT_NE(Why.find("no fixed register layout"), std::string::npos) << Why;
  EXPECT_FALSE(toLinearLayout(Type::getTile(Type::getF32(), {64, 64}), &Why));
  EXPECT_NE(Why.find("has no layout"), std::string::npos) << Why;
  EXPECT_FALSE(toLinearLayout(
      Type::getTile(Type::getF32(), {64, 64}, Layout::getWgmma({4, 1}, {64, 128, 16})), &Why));
}

} // namespace
