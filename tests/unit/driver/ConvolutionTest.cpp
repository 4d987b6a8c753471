//===- ConvolutionTest.cpp - Host-side tables of the convolution kernels ---===//

#include "tritonc/driver/Convolution.h"

#include <gtest/gtest.h>

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
