//===- LinearLayoutTest.cpp - Tests of GF(2) layouts and builders ---------===//

#include "tritonc/analysis/LinearLayout.h"

#include "tritonc/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <set>

using namespace tritonc;
using namespace tritonc::analysis;

namespace {

using Coord = std::vector<int32_t>;

/// Calls F on every input of L (values in input-dimension order).
void forEachInput(const LinearLayout &L, const std::function<void(const Coord &)> &F) {
  const auto &Ins = L.getInDims();
  Coord X(Ins.size(), 0);
  std::function<void(size_t)> Rec = [&](size_t I) {
    if (I == Ins.size()) {
      F(X);
      return;
    }
    for (int32_t V = 0; V < (int32_t(1) << Ins[I].Bases.size()); ++V) {
      X[I] = V;
      Rec(I + 1);
    }
  };
  Rec(0);
}

/// How many inputs map to each output (brute force).
std::map<Coord, int> countImages(const LinearLayout &L) {
  std::map<Coord, int> Count;
  forEachInput(L, [&](const Coord &X) { ++Count[L.apply(X)]; });
  return Count;
}

/// A layout with random bases (not necessarily invertible).
LinearLayout randomLayout(std::mt19937 &Rng,
                          const std::vector<std::pair<std::string, int32_t>> &InBits,
                          const std::vector<LinearLayout::OutDim> &Outs) {
  std::vector<LinearLayout::InDim> Ins;
  for (const auto &[Name, Bits] : InBits) {
    LinearLayout::InDim D{Name, {}};
    for (int32_t B = 0; B < Bits; ++B) {
      LinearLayout::Basis V;
      for (const auto &O : Outs)
        V.push_back(static_cast<int32_t>(Rng() % static_cast<uint32_t>(O.Size)));
      D.Bases.push_back(V);
    }
    Ins.push_back(D);
  }
  return LinearLayout(Ins, Outs);
}

TEST(LinearLayout, ApplyHandChecked) {
  LinearLayout L({{"register", {{0, 1}, {2, 0}}}, {"lane", {{1, 1}}}}, {{"dim0", 4}, {"dim1", 2}});
  // register 3 = bits 0 and 1; lane 1 = bit 0: [0,1] ^ [2,0] ^ [1,1] = [3,0].
  EXPECT_EQ(L.apply(Coord{3, 1}), (Coord{3, 0}));
  EXPECT_EQ(L.apply(Coord{1, 0}), (Coord{0, 1}));
  EXPECT_EQ(L.apply(Coord{2, 1}), (Coord{3, 1}));
  EXPECT_EQ(L.apply(DimValues{{"lane", 1}, {"register", 3}}),
            (DimValues{{"dim0", 3}, {"dim1", 0}}));
  // Flat: input bits register(2) then lane(1); output dim0 (2 bits) minor.
  EXPECT_EQ(L.applyFlat(0b111), 3u);
  EXPECT_EQ(L.applyFlat(0b001), 0b100u);
  EXPECT_TRUE(L.isInvertible());
  EXPECT_THROW(L.apply(Coord{4, 0}), InternalError);
  EXPECT_THROW(L.apply(DimValues{{"register", 0}}), InternalError);
  EXPECT_THROW(LinearLayout({{"r", {{4}}}}, {{"d", 4}}), InternalError);
  EXPECT_THROW(LinearLayout::identity1D(6, "r", "d"), InternalError);
  EXPECT_NE(L.str().find("lane: [1,1]"), std::string::npos) << L.str();
}

TEST(LinearLayout, ProductConcatenatesAndShifts) {
  LinearLayout P =
      LinearLayout::identity1D(4, "in", "out") * LinearLayout::identity1D(2, "in", "out");
  EXPECT_EQ(P, LinearLayout::identity1D(8, "in", "out"));
  LinearLayout Q = LinearLayout::identity1D(2, "register", "dim1") *
                   LinearLayout::zeros1D(4, "lane", "dim1") *
                   LinearLayout::identity1D(4, "lane", "dim0");
  EXPECT_EQ(Q.getInDimNames(), (std::vector<std::string>{"register", "lane"}));
  EXPECT_EQ(Q.getOutDimNames(), (std::vector<std::string>{"dim1", "dim0"}));
  EXPECT_EQ(Q.getInDimSize("lane"), 16);
  EXPECT_EQ(Q.getOutDimSize("dim1"), 2);
  EXPECT_EQ(Q.getBasis("lane", 2), (LinearLayout::Basis{0, 1}));
  EXPECT_EQ(Q.getFreeVariableMasks(), (DimValues{{"register", 0}, {"lane", 0b11}}));
  EXPECT_FALSE(Q.isInjective());
  EXPECT_TRUE(Q.isSurjective());
}

/// Sizes as in the brief: [64, 64] f32, 4 warps, sizePerThread [1, 4],
/// order [1, 0], with threadsPerWarp [2, 16] and warpsPerCTA [4, 1].
LinearLayout blocked64() { return blockedLayout({64, 64}, {1, 4}, {2, 16}, {4, 1}, {1, 0}); }

TEST(LinearLayout, Blocked64x64MatchesHandLoop) {
  LinearLayout L = blocked64();
  ASSERT_EQ(L.getInDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
  ASSERT_EQ(L.getOutDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
  EXPECT_EQ(L.getInDimSize("register"), 32);
  EXPECT_EQ(L.getInDimSize("lane"), 32);
  EXPECT_EQ(L.getInDimSize("warp"), 4);
  std::vector<int> Covered(64 * 64, 0);
  for (int W = 0; W < 4; ++W)
    for (int T = 0; T < 32; ++T)
      for (int Rep = 0; Rep < 8; ++Rep) // The [8, 64] CTA tile repeats 8 times down.
        for (int J = 0; J < 4; ++J) {
          int Row = Rep * 8 + W * 2 + T / 16;
          int Col = (T % 16) * 4 + J;
          int Reg = Rep * 4 + J;
          ASSERT_EQ(L.apply(Coord{Reg, T, W}), (Coord{Row, Col}))
              << "reg " << Reg << " lane " << T << " warp " << W;
          ++Covered[Row * 64 + Col];
        }
  for (int C : Covered)
    EXPECT_EQ(C, 1);
  std::map<Coord, int> Images = countImages(L);
  EXPECT_EQ(Images.size(), 64u * 64u);
  EXPECT_TRUE(L.isInvertible());
}

TEST(LinearLayout, BlockedSmallTileReplicates) {
  // The [8, 64] CTA tile on a [4, 8] tile: lanes and warps beyond wrap.
  LinearLayout L = blockedLayout({4, 8}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  EXPECT_EQ(L.getOutDimSize("dim0"), 4);
  EXPECT_EQ(L.getOutDimSize("dim1"), 8);
  forEachInput(L, [&](const Coord &X) {
    int32_t Reg = X[0], T = X[1], W = X[2];
    Coord Want{(W * 2 + T / 16) % 4, ((T % 16) * 4 + Reg) % 8};
    ASSERT_EQ(L.apply(X), Want) << Reg << " " << T << " " << W;
  });
  std::map<Coord, int> Images = countImages(L);
  EXPECT_EQ(Images.size(), 32u);
  for (const auto &[C, N] : Images)
    EXPECT_EQ(N, 4 * 32 * 4 / 32);
  // Lane bits 1..3 (columns 8..32) and warp bit 1 (row 4) replicate.
  EXPECT_EQ(L.getFreeVariableMasks(),
            (DimValues{{"register", 0}, {"lane", 0b01110}, {"warp", 0b10}}));
  EXPECT_FALSE(L.isInjective());
  EXPECT_FALSE(L.invert().has_value());
}

TEST(LinearLayout, SliceDropsDimension) {
  LinearLayout S = sliceLayout(blocked64(), 1);
  EXPECT_EQ(S.getOutDimNames(), (std::vector<std::string>{"dim0"}));
  // Column registers collapse; the 8 row repeats remain.
  EXPECT_EQ(S.getInDimSize("register"), 8);
  forEachInput(
      S, [&](const Coord &X) { ASSERT_EQ(S.apply(X), (Coord{X[0] * 8 + X[2] * 2 + X[1] / 16})); });
  EXPECT_EQ(S.getFreeVariableMasks(), (DimValues{{"register", 0}, {"lane", 0b01111}, {"warp", 0}}));
  LinearLayout B3 = blockedLayout({2, 4, 8}, {1, 1, 2}, {1, 4, 8}, {2, 1, 2}, {2, 1, 0});
  LinearLayout S3 = sliceLayout(B3, 1);
  EXPECT_EQ(S3.getOutDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
  EXPECT_EQ(S3.getOutDimSize("dim1"), 8);
  forEachInput(B3, [&](const Coord &X) {
    Coord Full = B3.apply(X);
    // Registers that only stepped along dim1 are gone; dim1 had none here.
    ASSERT_EQ(S3.apply(X), (Coord{Full[0], Full[2]}));
  });
}

TEST(LinearLayout, RandomBijectionsComposeAndInvert) {
  std::mt19937 Rng(1234);
  int Found = 0;
  for (int Trial = 0; Trial < 200 && Found < 20; ++Trial) {
    LinearLayout L = randomLayout(Rng, {{"register", 3}, {"lane", 5}, {"warp", 2}},
                                  {{"dim0", 16}, {"dim1", 64}});
    bool Bijective = countImages(L).size() == 1024u;
    EXPECT_EQ(L.isInvertible(), Bijective) << L.str();
    std::optional<LinearLayout> Inv = L.invert();
    ASSERT_EQ(Inv.has_value(), Bijective);
    if (!Bijective)
      continue;
    ++Found;
    EXPECT_EQ(Inv->getInDimNames(), (std::vector<std::string>{"dim0", "dim1"}));
    EXPECT_EQ(Inv->getOutDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
    LinearLayout RoundTrip = LinearLayout::compose(*Inv, L);
    forEachInput(L, [&](const Coord &X) { ASSERT_EQ(RoundTrip.apply(X), X); });
    LinearLayout Other = LinearLayout::compose(L, *Inv);
    forEachInput(*Inv, [&](const Coord &Y) { ASSERT_EQ(Other.apply(Y), Y); });
    EXPECT_EQ(*Inv->invert(), L);
  }
  EXPECT_GE(Found, 10);
}

TEST(LinearLayout, ComposeMatchesApplyTwice) {
  std::mt19937 Rng(99);
  for (int Trial = 0; Trial < 20; ++Trial) {
    LinearLayout Inner = randomLayout(Rng, {{"register", 2}, {"lane", 3}}, {{"a", 8}, {"b", 4}});
    LinearLayout Outer = randomLayout(Rng, {{"b", 3}, {"a", 3}}, {{"x", 16}, {"y", 4}});
    LinearLayout C = LinearLayout::compose(Outer, Inner);
    forEachInput(Inner, [&](const Coord &X) {
      Coord Mid = Inner.apply(X);
      ASSERT_EQ(C.apply(X), Outer.apply(Coord{Mid[1], Mid[0]}));
    });
  }
}

TEST(LinearLayout, PseudoinverseOfReplicatedLayout) {
  LinearLayout L = blockedLayout({4, 8}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  std::optional<LinearLayout> P = L.pseudoinvert();
  ASSERT_TRUE(P.has_value());
  forEachInput(*P, [&](const Coord &Y) {
    Coord X = P->apply(Y);
    ASSERT_EQ(L.apply(X), Y);
    // Replication bits are chosen as zero.
    EXPECT_EQ(X[1] & 0b01110, 0);
    EXPECT_EQ(X[2] & 0b10, 0);
  });
  LinearLayout NotOnto({{"register", {{1}}}}, {{"dim0", 4}});
  EXPECT_FALSE(NotOnto.pseudoinvert().has_value());
  EXPECT_FALSE(LinearLayout::identity1D(4, "register", "dim0").invertAndCompose(NotOnto));
}

TEST(LinearLayout, MmaAccumulatorMatchesPtxFragment) {
  LinearLayout One = mmaV2AccumulatorLayout({16, 8}, {1, 1});
  EXPECT_EQ(One.getInDimSize("register"), 4);
  EXPECT_EQ(One.getInDimSize("lane"), 32);
  for (int Lane = 0; Lane < 32; ++Lane)
    for (int I = 0; I < 4; ++I) {
      // PTX ISA, mma.m16n8k16 f32 accumulator: groupID = laneid >> 2,
      // threadID_in_group = laneid % 4; row = groupID for c0/c1 and
      // groupID + 8 for c2/c3; col = threadID_in_group * 2 + (i & 1).
      int GroupId = Lane >> 2, InGroup = Lane % 4;
      int Row = I < 2 ? GroupId : GroupId + 8;
      int Col = InGroup * 2 + (I & 1);
      ASSERT_EQ(One.apply(Coord{I, Lane, 0}), (Coord{Row, Col})) << Lane << " c" << I;
    }
  // [64, 64] with 2x2 warps: a [32, 16] CTA tile, repeated 4x along N, then 2x along M.
  LinearLayout L = mmaV2AccumulatorLayout({64, 64}, {2, 2});
  EXPECT_EQ(L.getInDimSize("register"), 32);
  forEachInput(L, [&](const Coord &X) {
    int Reg = X[0], Lane = X[1], Warp = X[2];
    int I = Reg % 4, RepN = Reg / 4 % 4, RepM = Reg / 16;
    int Row = RepM * 32 + (Warp / 2) * 16 + (Lane >> 2) + (I < 2 ? 0 : 8);
    int Col = RepN * 16 + (Warp % 2) * 8 + (Lane % 4) * 2 + (I & 1);
    ASSERT_EQ(L.apply(X), (Coord{Row, Col})) << Reg << " " << Lane << " " << Warp;
  });
  EXPECT_TRUE(L.isInvertible());
}

TEST(LinearLayout, WgmmaAccumulatorMatchesPtxFragment) {
  // PTX ISA, wgmma m64nNk16 with f32 accumulators: warp w of the warpgroup owns rows 16w..16w+15;
  // register d[i] of a thread is row 16w + lane/4 + 8 ((i/2) % 2), column 8 (i/4) + 2 (lane%4) +
  // i%2. [128, 256] with InstrN = 128 and warpgroups {1, 2}: each group repeats the instruction
  // twice along M; group g owns columns 128g..128g+127.
  LinearLayout L = wgmmaAccumulatorLayout({128, 256}, 128, {1, 2});
  EXPECT_EQ(L.getInDimSize("register"), 128);
  EXPECT_EQ(L.getInDimSize("warp"), 8);
  forEachInput(L, [&](const Coord &X) {
    int Reg = X[0], Lane = X[1], Warp = X[2];
    int I = Reg % 64, RepM = Reg / 64, W = Warp % 4, Group = Warp / 4;
    int Row = RepM * 64 + 16 * W + Lane / 4 + 8 * ((I / 2) % 2);
    int Col = Group * 128 + 8 * (I / 4) + 2 * (Lane % 4) + I % 2;
    ASSERT_EQ(L.apply(X), (Coord{Row, Col})) << Reg << " " << Lane << " " << Warp;
  });
  EXPECT_TRUE(L.isInvertible());
  // Groups go along M first: [128, 64] with 2 groups, one m64n64 each.
  LinearLayout M2 = wgmmaAccumulatorLayout({128, 64}, 64, {2, 1});
  EXPECT_EQ(M2.apply(Coord{0, 0, 4}), (Coord{64, 0}));
  EXPECT_TRUE(M2.isInvertible());
}

/// Element offset of (Row, Col) in a row-major swizzled buffer, straight
/// from the XOR-swizzle formula.
int64_t swizzledOffset(int64_t Row, int64_t Col, int64_t Cols, int64_t Vec, int64_t PerPhase,
                       int64_t MaxPhase) {
  int64_t Phase = Row / PerPhase % MaxPhase;
  int64_t Swizzled = (((Col / Vec) ^ Phase) * Vec + Col % Vec) % Cols;
  return Row * Cols + Swizzled;
}

/// For every 8 consecutive rows and every 16-byte column vector of an f16
/// [Rows, 64] tile: do those 8 vectors fall in 8 disjoint groups of 4 banks?
bool vectorsHitDistinctBanks(const LinearLayout &Shared, int Rows) {
  LinearLayout ToOffset = *Shared.invert();
  for (int R0 = 0; R0 < Rows; R0 += 8)
    for (int ColVec = 0; ColVec < 8; ++ColVec) {
      std::set<int> Banks;
      for (int R = R0; R < R0 + 8; ++R) {
        int64_t Byte = int64_t(ToOffset.apply(Coord{R, ColVec * 8})[0]) * 2;
        for (int Word = 0; Word < 4; ++Word)
          Banks.insert(static_cast<int>((Byte / 4 + Word) % 32));
      }
      if (Banks.size() != 32)
        return false;
    }
  return true;
}

TEST(LinearLayout, SwizzledSharedLayout) {
  // f16 [128, 64]: 128-byte rows, 16-byte vectors (8 halves), 8 phases.
  LinearLayout S = swizzledSharedLayout({128, 64}, 8, 1, 8, {1, 0});
  EXPECT_EQ(S.getInDimNames(), (std::vector<std::string>{"offset"}));
  EXPECT_EQ(countImages(S).size(), 128u * 64u);
  EXPECT_TRUE(S.isInvertible());
  forEachInput(S, [&](const Coord &X) {
    Coord RC = S.apply(X);
    ASSERT_EQ(swizzledOffset(RC[0], RC[1], 64, 8, 1, 8), X[0]);
  });
  EXPECT_TRUE(vectorsHitDistinctBanks(S, 128));
  // Without the swizzle every row's vector starts at the same bank.
  EXPECT_FALSE(vectorsHitDistinctBanks(swizzledSharedLayout({128, 64}, 1, 1, 1, {1, 0}), 128));
  // 64-byte rows share a phase between two rows; the phase wraps at the row.
  for (auto [Vec, PerPhase, MaxPhase] : {std::tuple{8, 2, 4}, std::tuple{4, 1, 8}}) {
    LinearLayout T = swizzledSharedLayout({32, 16}, Vec, PerPhase, MaxPhase, {1, 0});
    EXPECT_TRUE(T.isInvertible());
    forEachInput(T, [&](const Coord &X) {
      Coord RC = T.apply(X);
      ASSERT_EQ(swizzledOffset(RC[0], RC[1], 16, Vec, PerPhase, MaxPhase), X[0]);
    });
  }
  // Column-major order: dim0 is contiguous, dim1 is the row.
  LinearLayout C = swizzledSharedLayout({16, 32}, 4, 1, 4, {0, 1});
  forEachInput(C, [&](const Coord &X) {
    Coord RC = C.apply(X);
    ASSERT_EQ(swizzledOffset(RC[1], RC[0], 16, 4, 1, 4), X[0]);
  });
}

TEST(LinearLayout, BlockedToMmaConversionMatchesBruteForce) {
  LinearLayout Blocked = blocked64();
  LinearLayout Mma = mmaV2AccumulatorLayout({64, 64}, {2, 2});
  std::optional<LinearLayout> Conv = Blocked.invertAndCompose(Mma);
  ASSERT_TRUE(Conv.has_value());
  EXPECT_EQ(Conv->getOutDimNames(), (std::vector<std::string>{"register", "lane", "warp"}));
  std::map<Coord, Coord> Holder; // element -> (register, lane, warp) of the mma layout
  forEachInput(Mma, [&](const Coord &X) { Holder[Mma.apply(X)] = X; });
  forEachInput(Blocked,
               [&](const Coord &X) { ASSERT_EQ(Conv->apply(X), Holder.at(Blocked.apply(X))); });
  // Into a replicated destination: any holder will do, but it must hold it.
  LinearLayout Small = blockedLayout({4, 8}, {1, 4}, {2, 16}, {4, 1}, {1, 0});
  LinearLayout Src = blockedLayout({4, 8}, {2, 1}, {2, 16}, {1, 4}, {0, 1});
  std::optional<LinearLayout> ToSmall = Src.invertAndCompose(Small);
  ASSERT_TRUE(ToSmall.has_value());
  forEachInput(Src,
               [&](const Coord &X) { ASSERT_EQ(Small.apply(ToSmall->apply(X)), Src.apply(X)); });
}

TEST(LinearLayout, TransposeReshapeSublayout) {
  LinearLayout L = blockedLayout({4, 8}, {1, 2}, {4, 4}, {1, 1}, {1, 0});
  LinearLayout Flat = L.transposeOuts({"dim1", "dim0"}).reshapeOuts({{"dim0", 32}});
  forEachInput(L, [&](const Coord &X) {
    Coord RC = L.apply(X);
    ASSERT_EQ(Flat.apply(X), (Coord{RC[0] * 8 + RC[1]}));
  });
  LinearLayout Back = Flat.reshapeOuts({{"dim1", 8}, {"dim0", 4}}).transposeOuts({"dim0", "dim1"});
  EXPECT_EQ(Back, L);
  LinearLayout Threads = L.reshapeIns({{"register", 2}, {"thread", 16}, {"warp", 1}});
  forEachInput(L, [&](const Coord &X) {
    ASSERT_EQ(Threads.apply(Coord{X[0], X[1] + 16 * X[2], 0}), L.apply(X));
  });
  LinearLayout Lanes = L.sublayout({"lane"}, {"dim0"});
  EXPECT_EQ(Lanes.apply(Coord{13}), (Coord{3}));
  EXPECT_EQ(L.transposeIns({"warp", "lane", "register"}).getInDimNames(),
            (std::vector<std::string>{"warp", "lane", "register"}));
  EXPECT_THROW(L.transposeOuts({"dim0", "dim0"}), InternalError);
  EXPECT_THROW(L.reshapeOuts({{"dim0", 16}}), InternalError);
}

} // namespace
