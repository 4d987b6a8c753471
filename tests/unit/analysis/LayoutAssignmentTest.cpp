//===- LayoutAssignmentTest.cpp - Layout algebra and assignment -----------===//
//
// The layout algebra the lowering relies on, checked element by element
// against brute force: a relabeled layout must map every (register, lane,
// warp) to the coordinate the relabeling says; a register remap must find,
// for each wanted register, a held register with the same element in every
// thread. And the assignment's decisions on small kernels.
//
//===----------------------------------------------------------------------===//

#include "tritonc/analysis/LayoutAssignment.h"

#include "tritonc/driver/Compiler.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::analysis;

namespace {

std::vector<int32_t> coords(const LinearLayout &L, int32_t R, int32_t Lane, int32_t Warp) {
  std::vector<int32_t> Out;
  for (const auto &[Name, V] : L.apply({{"register", R}, {"lane", Lane}, {"warp", Warp}}))
    Out.push_back(V);
  return Out;
}

/// Calls F(register, lane, warp) for every input of L.
template <typename Fn> void forAllInputs(const LinearLayout &L, Fn F) {
  for (int32_t W = 0; W < L.getInDimSize("warp"); ++W)
    for (int32_t Ln = 0; Ln < L.getInDimSize("lane"); ++Ln)
      for (int32_t R = 0; R < L.getInDimSize("register"); ++R)
        F(R, Ln, W);
}

struct Blocked {
  ir::Shape Shape;
  std::vector<int32_t> Spt, Tpw, Wpc;
  std::vector<unsigned> Order;
};

std::vector<Blocked> sampleLayouts() {
  return {{{32, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0}},
          {{64, 16}, {2, 1}, {16, 2}, {1, 4}, {0, 1}},
          {{16, 128}, {1, 8}, {2, 16}, {2, 2}, {1, 0}},
          {{8, 8}, {1, 1}, {8, 4}, {1, 4}, {1, 0}},
          {{128}, {4}, {32}, {4}, {0}}};
}

TEST(LayoutAlgebra, ReshapeMatchesRowMajorFlattening) {
  for (const Blocked &B : sampleLayouts()) {
    LinearLayout L = blockedLayout(B.Shape, B.Spt, B.Tpw, B.Wpc, B.Order);
    int64_t N = 1;
    for (int64_t D : B.Shape)
      N *= D;
    for (const ir::Shape &To : {ir::Shape{N}, ir::Shape{1, N}, ir::Shape{N / 2, 2}}) {
      LinearLayout R = reshapeLayout(L, To);
      forAllInputs(L, [&](int32_t Reg, int32_t Lane, int32_t Warp) {
        std::vector<int32_t> From = coords(L, Reg, Lane, Warp), Got = coords(R, Reg, Lane, Warp);
        int64_t Flat = 0, FlatGot = 0;
        for (size_t D = 0; D < From.size(); ++D)
          Flat = Flat * B.Shape[D] + From[D];
        for (size_t D = 0; D < Got.size(); ++D)
          FlatGot = FlatGot * To[D] + Got[D];
        ASSERT_EQ(Flat, FlatGot) << L.str();
      });
    }
  }
}

TEST(LayoutAlgebra, TransposeSwapsCoordinates) {
  for (const Blocked &B : sampleLayouts()) {
    if (B.Shape.size() != 2)
      continue;
    LinearLayout L = blockedLayout(B.Shape, B.Spt, B.Tpw, B.Wpc, B.Order);
    LinearLayout T = transposeLayout(L);
    forAllInputs(L, [&](int32_t R, int32_t Ln, int32_t W) {
      std::vector<int32_t> A = coords(L, R, Ln, W), C = coords(T, R, Ln, W);
      ASSERT_EQ(A[0], C[1]);
      ASSERT_EQ(A[1], C[0]);
    });
  }
}

TEST(LayoutAlgebra, BroadcastOperandAndResultLayouts) {
  LinearLayout L = blockedLayout({32, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  // The operand of a broadcast along dimension 0: same registers, row 0.
  LinearLayout Op = broadcastOperandLayout(L, {1, 32});
  forAllInputs(L, [&](int32_t R, int32_t Ln, int32_t W) {
    std::vector<int32_t> Full = coords(L, R, Ln, W), Row = coords(Op, R, Ln, W);
    ASSERT_EQ(Row[0], 0);
    ASSERT_EQ(Row[1], Full[1]);
  });
  // The result of broadcasting a [1, 32] layout: register R repeats register
  // R mod (operand registers) along dimension 0.
  LinearLayout Small = blockedLayout({1, 32}, {1, 4}, {1, 8}, {1, 4}, {1, 0});
  LinearLayout Res = broadcastResultLayout(Small, {16, 32});
  EXPECT_EQ(Res.getOutDimSize("dim0"), 16);
  int32_t SmallRegs = numRegisters(Small);
  forAllInputs(Res, [&](int32_t R, int32_t Ln, int32_t W) {
    ASSERT_EQ(coords(Res, R, Ln, W)[1], coords(Small, R % SmallRegs, Ln, W)[1]);
  });
  EXPECT_TRUE(hasDistinctPowerOfTwoBases(Res));
}

TEST(LayoutAlgebra, RegisterRemapFindsHeldElementsOrRefuses) {
  LinearLayout L = blockedLayout({32, 32}, {1, 4}, {4, 8}, {4, 1}, {1, 0});
  // A slice then a broadcast back: the same elements per thread, so a remap.
  LinearLayout Slice = sliceLayout(L, 1);
  LinearLayout Want = reshapeLayout(broadcastOperandLayout(L, {32, 1}), {32});
  std::optional<std::vector<int32_t>> Map = registerRemap(Slice, Want);
  ASSERT_TRUE(Map.has_value());
  forAllInputs(Want, [&](int32_t R, int32_t Ln, int32_t W) {
    ASSERT_EQ(coords(Want, R, Ln, W), coords(Slice, (*Map)[R], Ln, W));
  });
  // Different lane assignments: elements must move between threads.
  LinearLayout Other = blockedLayout({32, 32}, {4, 1}, {8, 4}, {1, 4}, {0, 1});
  EXPECT_FALSE(registerRemap(L, Other).has_value());
  // A permutation of registers only.
  LinearLayout Reordered = L.transposeIns({"register", "lane", "warp"});
  EXPECT_TRUE(registerRemap(L, Reordered).has_value());
}

TEST(LayoutAlgebra, DistinctPowerOfTwoBases) {
  for (const Blocked &B : sampleLayouts())
    EXPECT_TRUE(hasDistinctPowerOfTwoBases(blockedLayout(B.Shape, B.Spt, B.Tpw, B.Wpc, B.Order)));
  EXPECT_TRUE(hasDistinctPowerOfTwoBases(mmaV2AccumulatorLayout({64, 64}, {2, 2})));
  // A swizzle moves two coordinates with one bit.
  LinearLayout Swizzled({{"register", {{1, 1}}}, {"lane", {}}, {"warp", {}}},
                        {{"dim0", 2}, {"dim1", 2}});
  EXPECT_FALSE(hasDistinctPowerOfTwoBases(Swizzled));
}

/// The layout decisions on a kernel compiled from source.
std::string describe(const std::string &Source, unsigned NumWarps, bool TF32 = false) {
  driver::CompileOptions Opts;
  driver::CompileResult R = driver::compileSource("t.tc", Source, Opts);
  EXPECT_TRUE(R.ok()) << R.formattedDiagnostics();
  if (!R.ok())
    return "";
  const ir::Function &F = *R.module()->functions().front();
  AxisInfoAnalysis AI(F);
  LayoutAssignment LA(F, AI, NumWarps, /*HasMmaV2=*/true, TF32);
  return LA.describe(F);
}

TEST(LayoutAssignment, LoopCarriedPointersTakeTheirAccessLayout) {
  // pa is a phi (pa += 32) feeding a load that is contiguous along
  // dimension 0 (not the default order): the phi must get the load's access
  // layout, and the index arithmetic must be rematerialized.
  std::string D = describe(R"(
__global__ void k(float *A __aligned(16), float *C __aligned(16), int K) {
  int rm[32] = 0 ... 32;
  float *pa[32, 32] = A + rm[:, newaxis] + rm[newaxis, :] * 32;
  float acc[32, 32] = 0;
  for (int k = 0; k < K; k += 32) {
    acc += *pa;
    pa += 32;
  }
  *(C + rm[:, newaxis] * 32 + rm[newaxis, :]) = acc;
}
)",
                           4);
  size_t Access = D.find("; access ");
  ASSERT_NE(Access, std::string::npos) << D;
  EXPECT_NE(D.find("vec=4 dim=0", Access), std::string::npos) << D;
  std::string Layout = D.substr(D.find("register=", Access));
  Layout = Layout.substr(0, Layout.find('\n'));
  size_t Phi = D.find("; layout %pa.1:");
  ASSERT_NE(Phi, std::string::npos) << D;
  std::string PhiLine = D.substr(Phi, D.find('\n', Phi) - Phi);
  EXPECT_NE(PhiLine.find(Layout), std::string::npos) << "pa's phi should have the load's layout\n"
                                                     << D;
  EXPECT_NE(D.find("; layout %rm: rematerialized"), std::string::npos) << D;
}

TEST(LayoutAssignment, DotKinds) {
  const char *Src = R"(
__global__ void k(TYPE *A, TYPE *B, float *C) {
  int r[32] = 0 ... 32;
  TYPE a[32, 16] = *(A + r[:, newaxis] * 16 + (0 ... 16)[newaxis, :]);
  TYPE b[16, 32] = *(B + (0 ... 16)[:, newaxis] * 32 + r[newaxis, :]);
  float c[32, 32] = a @ b;
  *(C + r[:, newaxis] * 32 + r[newaxis, :]) = c;
}
)";
  auto WithType = [&](const std::string &T) {
    std::string S = Src;
    for (size_t P; (P = S.find("TYPE")) != std::string::npos;)
      S.replace(P, 4, T);
    return S;
  };
  EXPECT_NE(describe(WithType("half"), 4).find("mma.sync m16n8k16 warps=[2,2]"), std::string::npos);
  EXPECT_NE(describe(WithType("bfloat16"), 8).find("mma.sync m16n8k16 warps=[2,4]"),
            std::string::npos);
  EXPECT_NE(describe(WithType("float"), 4).find("; dot %c: fma"), std::string::npos);
  EXPECT_NE(describe(WithType("float"), 4, /*TF32=*/true).find("mma.sync m16n8k8 tf32"),
            std::string::npos);
}

} // namespace
