//===- ConvolutionTest.cpp - Host-side tables of the convolution kernels ---===//

#include "tritonc/driver/Convolution.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <tuple>

using namespace tritonc::driver;

TEST(Convolution, OutputSizesFollowTheWindowThatFits) {
  ConvShape Same{1, 64, 56, 56, 64, 3, 3, 1, 1, 1, 1, 1, 1};
  EXPECT_EQ(Same.outputHeight(), 56);
  EXPECT_EQ(Same.gemmM(), 56 * 56);
  EXPECT_EQ(Same.gemmK(), 64 * 9);
  // ResNet-50's stride-2 3x3: 56 -> 28; a dilated 3-tap filter spans 5.
  ConvShape Strided{32, 128, 56, 56, 128, 3, 3, 2, 2, 1, 1, 1, 1};
  EXPECT_EQ(Strided.outputWidth(), 28);
  ConvShape Dilated{1, 1, 9, 4, 1, 3, 3, 1, 1, 0, 0, 2, 2};
  EXPECT_EQ(Dilated.outputHeight(), 5);
  EXPECT_EQ(Dilated.outputWidth(), 0);
  EXPECT_EQ(Dilated.gemmM(), 0);
}

TEST(Convolution, IncrementsWalkTheTapsInCiRSOrder) {
  ConvShape Shape{1, 3, 6, 7, 1, 2, 3, 1, 1, 0, 0, 1, 1};
  auto Tap = [](int64_t I) { return (I / 6) * 100 + (I / 3 % 2) * 10 + I % 3; };
  for (int64_t TK : {1, 2, 4, 8}) {
    std::string Error;
    auto Table = convIncrements(Shape, TK, 100, 10, 1, Error);
    ASSERT_TRUE(Table) << Error;
    ASSERT_EQ(static_cast<int64_t>(Table->size()), Shape.gemmK());
    for (int64_t I = 0; I + TK < Shape.gemmK(); ++I)
      EXPECT_EQ(Tap(I) + (*Table)[I], Tap(I + TK)) << "TK " << TK << " index " << I;
  }
}

TEST(Convolution, IncrementsRefuseDilationAndBadShapes) {
  std::string Error;
  ConvShape Dilated{1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 2, 1};
  EXPECT_FALSE(convIncrements(Dilated, 8, 25, 5, 1, Error));
  EXPECT_NE(Error.find("dilation"), std::string::npos) << Error;
  ConvShape Empty{1, 1, 5, 5, 1, 0, 3, 1, 1, 0, 0, 1, 1};
  EXPECT_FALSE(convIncrements(Empty, 8, 25, 5, 1, Error));
  EXPECT_NE(Error.find("empty filter"), std::string::npos) << Error;
  ConvShape Fine{1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 1, 1};
  EXPECT_FALSE(convIncrements(Fine, 0, 25, 5, 1, Error));
}

TEST(Convolution, BlockKIsTheLargestPowerOfTwoDividingCI) {
  EXPECT_EQ(nhwcBlockK(3, 32), 1);
  EXPECT_EQ(nhwcBlockK(48, 32), 16);
  EXPECT_EQ(nhwcBlockK(256, 32), 32);
  EXPECT_EQ(nhwcBlockK(256, 8), 8);
}

TEST(Convolution, DgradGridHasALayerPerStridePhase) {
  ConvShape Shape;
  Shape.Z = 2, Shape.CI = 40, Shape.H = 7, Shape.W = 9, Shape.CO = 16, Shape.R = 3, Shape.S = 3;
  Shape.StrideH = 2, Shape.StrideW = 3;
  // The largest phase has CDIV(7, 2) = 4 rows and CDIV(9, 3) = 3 columns: 2 * 4 * 3 = 24 pixels.
  EXPECT_EQ(nhwcDgradGrid(Shape, 16, 32), (std::array<int64_t, 3>{2, 2, 6}));
  Shape.StrideH = Shape.StrideW = 1;
  // Stride 1: one phase of all 2 * 7 * 9 = 126 pixels.
  EXPECT_EQ(nhwcDgradGrid(Shape, 16, 32), (std::array<int64_t, 3>{8, 2, 1}));
}

TEST(Convolution, StrideOneDataGradientIsAForwardConvolution) {
  ConvShape Shape;
  Shape.Z = 2, Shape.CI = 16, Shape.H = 7, Shape.W = 6, Shape.CO = 8, Shape.R = 3, Shape.S = 2;
  Shape.PadH = 2, Shape.DilW = 2;
  std::string Error;
  std::optional<ConvShape> Forward = dgradAsForward(Shape, Error);
  ASSERT_TRUE(Forward) << Error;
  // P = 7 + 4 - 2 = 9, Q = 6 - 2 = 4: the forward one maps 8 channels of 9 x 4 back to 16 of 7 x 6.
  EXPECT_EQ(std::make_tuple(Forward->CI, Forward->CO, Forward->H, Forward->W),
            std::make_tuple(int64_t{8}, int64_t{16}, int64_t{9}, int64_t{4}));
  EXPECT_EQ(std::make_pair(Forward->PadH, Forward->PadW), std::make_pair(int64_t{0}, int64_t{2}));
  EXPECT_EQ(std::make_pair(Forward->outputHeight(), Forward->outputWidth()),
            std::make_pair(Shape.H, Shape.W));
  // Padding past the dilated filter (a forward padding below 0) and stride 2 are not forward ones.
  Shape.PadW = 3;
  EXPECT_FALSE(dgradIsForward(Shape));
  EXPECT_FALSE(dgradAsForward(Shape, Error));
  EXPECT_NE(Error.find("not a forward convolution"), std::string::npos);
  Shape.PadW = 0, Shape.StrideH = 2;
  EXPECT_FALSE(dgradIsForward(Shape));
}

TEST(Convolution, WgradSlicesFillTheMachineButStayLong) {
  ConvShape Shape;
  Shape.Z = 1, Shape.CI = 256, Shape.H = 56, Shape.W = 56, Shape.CO = 256, Shape.R = 3, Shape.S = 3;
  Shape.PadH = Shape.PadW = 1;
  // 2 x 18 tiles of 128 x 128; 3136 pixels are 98 blocks of 32: CDIV(264, 36) = 8 slices of >= 8
  // blocks.
  EXPECT_EQ(nhwcWgradSlices(Shape, 128, 128, 32, 264), 8);
  // 8 x 8 pixels are 2 blocks: one slice.
  Shape.H = Shape.W = 8;
  EXPECT_EQ(nhwcWgradSlices(Shape, 128, 128, 32, 264), 1);
  // Plenty of tiles already: one slice.
  Shape.H = Shape.W = 56, Shape.CI = Shape.CO = 1024;
  EXPECT_EQ(nhwcWgradSlices(Shape, 128, 128, 32, 264), 1);
}

TEST(Convolution, SplitKIsACandidateWhereTheTilesLeaveSMsIdle) {
  // Z = 1, 256 channels at 8 x 8: M = 64, N = 256, 36 K blocks of 64.
  ConvShape Small{1, 256, 8, 8, 256, 3, 3, 1, 1, 1, 1, 1, 1};
  EXPECT_TRUE(nhwcSplitWorthwhile(Small, 64, 32, 64, 1, 132));
  EXPECT_TRUE(nhwcSplitWorthwhile(Small, 64, 32, 64, 9, 132));   // 8 tiles, 72 programs
  EXPECT_TRUE(nhwcSplitWorthwhile(Small, 64, 32, 64, 18, 132));  // 144 programs, 2 blocks each
  EXPECT_FALSE(nhwcSplitWorthwhile(Small, 64, 32, 64, 36, 132)); // one block a slice
  EXPECT_FALSE(nhwcSplitWorthwhile(Small, 64, 32, 16, 36, 132)); // 288 programs: three waves
  // Z = 32 at 56 x 56: 1568 tiles of 128 x 128 already fill the GPU.
  ConvShape Large{32, 256, 56, 56, 256, 3, 3, 1, 1, 1, 1, 1, 1};
  EXPECT_FALSE(nhwcSplitWorthwhile(Large, 128, 128, 64, 2, 132));
  NhwcWorkspace Unsplit = nhwcWorkspace(Small, 64, 32, 1);
  EXPECT_EQ(Unsplit.Partials, 0);
  EXPECT_EQ(Unsplit.Counters, 0);
  NhwcWorkspace Split = nhwcWorkspace(Small, 64, 32, 9);
  EXPECT_EQ(Split.Counters, 8);
  EXPECT_EQ(Split.Partials, 8 * 9 * 64 * 32);
}

TEST(Convolution, DescSplitKIsACandidateWhereItsTilesLeaveSMsIdle) {
  // Z = 1, 256 channels at 8 x 8 in 8 x 8 rectangles of 64 channels: 4 tiles of 3 * 3 * 4 = 36
  // k-steps of 64 channels.
  std::string Error;
  std::optional<DescConvShape> Small =
      DescConvShape::make({1, 256, 8, 8, 256, 3, 3, 1, 1, 1, 1, 1, 1}, Error);
  ASSERT_TRUE(Small) << Error;
  EXPECT_TRUE(descSplitWorthwhile(*Small, 8, 8, 64, 64, 1, 132));
  EXPECT_TRUE(descSplitWorthwhile(*Small, 8, 8, 64, 64, 18, 132));  // 2 k-steps a slice
  EXPECT_FALSE(descSplitWorthwhile(*Small, 8, 8, 64, 64, 19, 132)); // one k-step for some
  // Z = 32: 128 tiles; 2 slices are 256 programs (two waves of 132), 3 are more.
  std::optional<DescConvShape> Batch =
      DescConvShape::make({32, 256, 8, 8, 256, 3, 3, 1, 1, 1, 1, 1, 1}, Error);
  ASSERT_TRUE(Batch) << Error;
  EXPECT_TRUE(descSplitWorthwhile(*Batch, 8, 8, 64, 64, 2, 132));
  EXPECT_FALSE(descSplitWorthwhile(*Batch, 8, 8, 64, 64, 3, 132));
  EXPECT_FALSE(descSplitWorthwhile(*Batch, 8, 8, 32, 64, 2, 132)); // 256 tiles: no SM idle
  EXPECT_EQ(descGrid(*Small, 8, 8, 64, 9), (ConvGrid{1, 4, 9}));
  EXPECT_EQ(descGrid(*Batch, 8, 8, 64, 2), (ConvGrid{1, 4, 64}));
  NhwcWorkspace Unsplit = descWorkspace(*Small, 8, 8, 64, 1);
  EXPECT_EQ(Unsplit.Partials, 0);
  EXPECT_EQ(Unsplit.Counters, 0);
  NhwcWorkspace Split = descWorkspace(*Batch, 8, 8, 64, 2);
  EXPECT_EQ(Split.Counters, 128);
  EXPECT_EQ(Split.Partials, 128 * 2 * 8 * 8 * 64);
}

TEST(Convolution, WgradGridAndWorkspaceCoverEveryTapsChannelBlocks) {
  ConvShape Shape{2, 40, 7, 9, 24, 3, 2, 1, 1, 1, 0, 1, 2};
  // CDIV(24, 16) = 2 row blocks; 3 * 2 taps of CDIV(40, 32) = 2 channel blocks each.
  EXPECT_EQ(wgradGrid(Shape, 16, 32, 5), (ConvGrid{2, 12, 5}));
  SliceWorkspace Workspace = wgradWorkspace(Shape, 16, 32);
  EXPECT_EQ(Workspace.Counters, 24);
  EXPECT_EQ(Workspace.Partials, 24 * 16 * 32);
}

TEST(Convolution, DescriptorKernelsTakeStrideOneOnly) {
  std::string Error;
  ConvShape Strided{32, 128, 56, 56, 128, 3, 3, 2, 2, 1, 1, 1, 1};
  EXPECT_FALSE(DescConvShape::make(Strided, Error));
  EXPECT_NE(Error.find("stride 1"), std::string::npos) << Error;
  ConvShape Empty{1, 1, 5, 5, 1, 3, 0, 1, 1, 0, 0, 1, 1};
  EXPECT_FALSE(DescConvShape::make(Empty, Error));
  EXPECT_NE(Error.find("empty filter"), std::string::npos) << Error;
  ConvShape Dilated{1, 1, 5, 5, 1, 3, 3, 1, 1, 0, 0, 2, 2};
  EXPECT_TRUE(DescConvShape::make(Dilated, Error)) << Error;
}

namespace {

/// One line of Inputs/conv-desc-launches.txt: the kernel and its groups of
/// integers (split by '|').
struct LaunchLine {
  std::string Kernel;
  std::vector<std::vector<int64_t>> Groups;
  int Number = 0;
};

std::vector<LaunchLine> readLaunches(const std::string &Path) {
  std::ifstream In(Path);
  std::vector<LaunchLine> Lines;
  std::string Text;
  for (int Number = 1; std::getline(In, Text); ++Number) {
    std::istringstream Words(Text);
    LaunchLine Line{{}, {{}}, Number};
    if (!(Words >> Line.Kernel) || Line.Kernel[0] == '#')
      continue;
    for (std::string Word; Words >> Word;) {
      if (Word == "|")
        Line.Groups.emplace_back();
      else
        Line.Groups.back().push_back(std::stoll(Word));
    }
    Lines.push_back(std::move(Line));
  }
  return Lines;
}

NhwcStrides stridesAt(const std::vector<int64_t> &Group, size_t First) {
  return {Group.at(First), Group.at(First + 1), Group.at(First + 2)};
}

/// slices, grid, counters, partials: the launch group of a split kernel.
std::vector<int64_t> splitLaunch(int64_t Slices, const ConvGrid &Grid,
                                 const SliceWorkspace &Workspace) {
  return {Slices, Grid[0], Grid[1], Grid[2], Workspace.Counters, Workspace.Partials};
}

} // namespace

// The same table is checked against tritonc.convolution in tests/python/test_convolution.py: the
// two libraries launch the descriptor kernels alike.
TEST(Convolution, DescriptorLaunchesMatchTheSharedTable) {
  std::vector<LaunchLine> Lines = readLaunches(TRITONC_TEST_INPUTS "/conv-desc-launches.txt");
  ASSERT_GE(Lines.size(), 12u) << "the table is missing or short";
  for (const LaunchLine &Line : Lines) {
    SCOPED_TRACE("conv-desc-launches.txt:" + std::to_string(Line.Number));
    ASSERT_EQ(Line.Groups.size(), 5u);
    const std::vector<int64_t> &S = Line.Groups[0], &T = Line.Groups[1], &L = Line.Groups[2];
    ASSERT_EQ(S.size(), 11u);
    ConvShape Shape{S[0], S[1], S[2], S[3], S[4], S[5], S[6], 1, 1, S[7], S[8], S[9], S[10]};
    std::string Error;
    std::optional<DescConvShape> Desc = DescConvShape::make(Shape, Error);
    ASSERT_TRUE(Desc) << Error;
    std::vector<int64_t> Launch, Arguments;
    if (Line.Kernel == "forward") {
      ASSERT_TRUE(T.size() == 6u || T.size() == 7u);
      int64_t Split = T[4], Boxes = T.size() == 7u ? T[6] : 1;
      ConvGrid Grid = descGrid(*Desc, T[0], T[1], T[2], Split, Boxes);
      NhwcWorkspace Workspace = descWorkspace(*Desc, T[0], T[1], T[2], Split, Boxes);
      Launch = {descSplitWorthwhile(*Desc, T[0], T[1], T[2], T[3], Split, T[5], Boxes),
                Grid[0],
                Grid[1],
                Grid[2],
                Workspace.Partials,
                Workspace.Counters};
      Arguments = descArguments(*Desc, stridesAt(L, 0), L.at(3), stridesAt(L, 4));
    } else if (Line.Kernel == "dgrad") {
      int64_t Slices = descDgradSlices(*Desc, T.at(0), T.at(1), T.at(2), T.at(3), T.at(4));
      Launch = splitLaunch(Slices, descDgradGrid(*Desc, T[0], T[1], T[2], Slices),
                           descDgradWorkspace(*Desc, T[0], T[1], T[2]));
      Arguments = descDgradArguments(*Desc, stridesAt(L, 0), L.at(3), stridesAt(L, 4));
    } else {
      ASSERT_EQ(Line.Kernel, "wgrad");
      int64_t Slices = descWgradSlices(*Desc, T.at(0), T.at(1), T.at(2), T.at(3), T.at(4));
      Launch = splitLaunch(Slices, wgradGrid(Shape, T[0], T[1], Slices),
                           wgradWorkspace(Shape, T[0], T[1]));
      Arguments = descWgradArguments(*Desc, stridesAt(L, 0), stridesAt(L, 3), L.at(6));
    }
    EXPECT_EQ(Launch, Line.Groups[3]);
    EXPECT_EQ(Arguments, Line.Groups[4]);
  }
}
