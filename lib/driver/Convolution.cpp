//===- Convolution.cpp - Host-side tables of the convolution kernels -----===//

#include "tritonc/driver/Convolution.h"

#include <algorithm>

namespace tritonc::driver {

std::string ConvShape::check() const {
  if (Z < 0 || CI < 0 || H < 0 || W < 0 || CO < 0)
    return "a negative size";
  if (R < 1 || S < 1)
    return "an empty filter";
  if (StrideH < 1 || StrideW < 1 || DilH < 1 || DilW < 1)
    return "a stride or dilation below 1";
  if (PadH < 0 || PadW < 0)
    return "negative padding";
  return "";
}

/// Output positions along one dimension: those whose dilated window fits in
/// the padded input.
static int64_t outputExtent(int64_t In, int64_t Filter, int64_t Stride, int64_t Pad, int64_t Dil) {
  int64_t Window = Dil * (Filter - 1) + 1;
  return std::max<int64_t>(0, (In + 2 * Pad - Window) / Stride + 1);
}

int64_t ConvShape::outputHeight() const { return outputExtent(H, R, StrideH, PadH, DilH); }

int64_t ConvShape::outputWidth() const { return outputExtent(W, S, StrideW, PadW, DilW); }

std::optional<std::vector<int32_t>> convIncrements(const ConvShape &Shape, int64_t TK,
                                                   int64_t LdaCI, int64_t LdaH, int64_t LdaW,
                                                   std::string &Error) {
  if (std::string Why = Shape.check(); !Why.empty()) {
    Error = "the convolution has " + Why;
    return std::nullopt;
  }
  if (Shape.DilH != 1 || Shape.DilW != 1 || TK < 1) {
    Error = Shape.DilH != 1 || Shape.DilW != 1 ? "conv.tc has no dilation: use conv_nhwc.tc"
                                               : "TK must be at least 1";
    return std::nullopt;
  }
  int64_t RS = Shape.R * Shape.S;
  auto Offset = [&](int64_t J) {
    return (J / RS) * LdaCI + ((J / Shape.S) % Shape.R) * LdaH + (J % Shape.S) * LdaW;
  };
  std::vector<int32_t> Table;
  Table.reserve(static_cast<size_t>(Shape.gemmK()));
  for (int64_t I = 0; I < Shape.gemmK(); ++I)
    Table.push_back(static_cast<int32_t>(Offset(I + TK) - Offset(I)));
  return Table;
}

int64_t nhwcBlockK(int64_t CI, int64_t Largest) {
  int64_t TK = 1;
  while (TK * 2 <= Largest && CI % (TK * 2) == 0)
    TK *= 2;
  return TK;
}

static int64_t ceilDiv(int64_t A, int64_t B) { return (A + B - 1) / B; }

std::array<int64_t, 3> nhwcDgradGrid(const ConvShape &Shape, int64_t TM, int64_t TN) {
  int64_t Pixels = Shape.Z * ceilDiv(Shape.H, Shape.StrideH) * ceilDiv(Shape.W, Shape.StrideW);
  return {ceilDiv(Pixels, TM), ceilDiv(Shape.CI, TN), Shape.StrideH * Shape.StrideW};
}

bool dgradIsForward(const ConvShape &Shape) {
  return Shape.StrideH == 1 && Shape.StrideW == 1 && Shape.PadH <= Shape.DilH * (Shape.R - 1) &&
         Shape.PadW <= Shape.DilW * (Shape.S - 1);
}

std::optional<ConvShape> dgradAsForward(const ConvShape &Shape, std::string &Error) {
  if (std::string Why = Shape.check(); !Why.empty()) {
    Error = "the convolution has " + Why;
    return std::nullopt;
  }
  if (!dgradIsForward(Shape)) {
    Error = "its data gradient is not a forward convolution (stride 1 and padding at most "
            "dilation * (taps - 1) are)";
    return std::nullopt;
  }
  ConvShape Forward = Shape;
  Forward.CI = Shape.CO, Forward.CO = Shape.CI;
  Forward.H = Shape.outputHeight(), Forward.W = Shape.outputWidth();
  Forward.PadH = Shape.DilH * (Shape.R - 1) - Shape.PadH;
  Forward.PadW = Shape.DilW * (Shape.S - 1) - Shape.PadW;
  return Forward;
}

/// The output tiles of the weight gradients: CO in TM rows, each filter
/// tap's CI in TN columns.
static int64_t wgradTiles(const ConvShape &Shape, int64_t TM, int64_t TN) {
  return ceilDiv(Shape.CO, TM) * Shape.R * Shape.S * ceilDiv(Shape.CI, TN);
}

/// Slices of a reduction of Blocks steps over Tiles output tiles: enough for
/// about Programs programs, each at least MinBlocks steps long; at least 1.
static int64_t reductionSlices(int64_t Tiles, int64_t Blocks, int64_t Programs, int64_t MinBlocks) {
  if (Tiles < 1)
    return 1;
  return std::max<int64_t>(
      1, std::min(ceilDiv(Programs, Tiles), Blocks / std::max<int64_t>(1, MinBlocks)));
}

int64_t nhwcWgradSlices(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t TK,
                        int64_t Programs, int64_t MinBlocks) {
  return reductionSlices(wgradTiles(Shape, TM, TN), ceilDiv(Shape.gemmM(), TK), Programs,
                         MinBlocks);
}

ConvGrid wgradGrid(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t Slices) {
  return {ceilDiv(Shape.CO, TM), Shape.R * Shape.S * ceilDiv(Shape.CI, TN), Slices};
}

SliceWorkspace wgradWorkspace(const ConvShape &Shape, int64_t TM, int64_t TN) {
  int64_t Tiles = wgradTiles(Shape, TM, TN);
  return {Tiles, Tiles * TM * TN};
}

static int64_t outputTiles(const ConvShape &Shape, int64_t TM, int64_t TN) {
  return ceilDiv(Shape.gemmM(), TM) * ceilDiv(Shape.gemmN(), TN);
}

/// The workspace of a deterministic split-K over Tiles output tiles of
/// TileElements each: Split partial tiles per tile and a counter; none
/// unsplit.
static NhwcWorkspace splitWorkspace(int64_t Tiles, int64_t TileElements, int64_t Split) {
  if (Split == 1)
    return {};
  return {Tiles * Split * TileElements, Tiles};
}

/// Whether Split slices of a reduction of Blocks steps over Tiles output
/// tiles are worth timing on SMs multiprocessors: unsplit always; split only
/// where the tiles alone leave SMs idle, each slice gets two steps or more
/// (one cannot overlap its loads) and the programs fit in two waves.
static bool splitWorthwhile(int64_t Tiles, int64_t Blocks, int64_t Split, int64_t SMs) {
  if (Split == 1)
    return true;
  return Tiles < SMs && 2 * Split <= Blocks && Tiles * Split <= 2 * SMs;
}

NhwcWorkspace nhwcWorkspace(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t Split) {
  return splitWorkspace(outputTiles(Shape, TM, TN), TM * TN, Split);
}

bool nhwcSplitWorthwhile(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t TK, int64_t Split,
                         int64_t SMs) {
  return splitWorthwhile(outputTiles(Shape, TM, TN), Shape.R * Shape.S * (Shape.CI / TK), Split,
                         SMs);
}

std::optional<DescConvShape> DescConvShape::make(const ConvShape &Shape, std::string &Error) {
  if (std::string Why = Shape.check(); !Why.empty()) {
    Error = "the convolution has " + Why;
    return std::nullopt;
  }
  if (Shape.StrideH != 1 || Shape.StrideW != 1) {
    Error = "the descriptor kernels have stride 1 only (the shape's stride is " +
            std::to_string(Shape.StrideH) + " x " + std::to_string(Shape.StrideW) + ")";
    return std::nullopt;
  }
  return DescConvShape(Shape);
}

ConvGrid descGrid(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN, int64_t Split,
                  int64_t Boxes) {
  const ConvShape &Shape = Desc.shape();
  return {ceilDiv(Shape.outputHeight(), TP) * ceilDiv(Shape.outputWidth(), TQ),
          ceilDiv(Shape.CO, TN), ceilDiv(Shape.Z, Boxes) * Split};
}

/// The output tiles of conv_nhwc_desc.tc: rectangles of output pixels times
/// channel blocks, for every Boxes images (the last ones may reach past Z).
static int64_t descTiles(const ConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN,
                         int64_t Boxes) {
  return ceilDiv(Shape.outputHeight(), TP) * ceilDiv(Shape.outputWidth(), TQ) *
         ceilDiv(Shape.CO, TN) * ceilDiv(Shape.Z, Boxes);
}

NhwcWorkspace descWorkspace(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN,
                            int64_t Split, int64_t Boxes) {
  return splitWorkspace(descTiles(Desc.shape(), TP, TQ, TN, Boxes), Boxes * TP * TQ * TN, Split);
}

bool descSplitWorthwhile(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN, int64_t TK,
                         int64_t Split, int64_t SMs, int64_t Boxes) {
  const ConvShape &Shape = Desc.shape();
  return splitWorthwhile(descTiles(Shape, TP, TQ, TN, Boxes),
                         Shape.R * Shape.S * ceilDiv(Shape.CI, TK), Split, SMs);
}

/// The scalars every descriptor kernel takes first, in its order: Z, H, W,
/// CI, CO, R, S, P, Q, the padding and the dilation.
static std::vector<int64_t> descShapeArguments(const ConvShape &Shape) {
  return {Shape.Z,
          Shape.H,
          Shape.W,
          Shape.CI,
          Shape.CO,
          Shape.R,
          Shape.S,
          Shape.outputHeight(),
          Shape.outputWidth(),
          Shape.PadH,
          Shape.PadW,
          Shape.DilH,
          Shape.DilW};
}

static void appendStrides(std::vector<int64_t> &Args, NhwcStrides Strides) {
  Args.insert(Args.end(), {Strides.Z, Strides.Row, Strides.Col});
}

std::vector<int64_t> descArguments(const DescConvShape &Shape, NhwcStrides X, int64_t LdfCO,
                                   NhwcStrides Y) {
  std::vector<int64_t> Args = descShapeArguments(Shape.shape());
  appendStrides(Args, X);
  Args.push_back(LdfCO);
  appendStrides(Args, Y);
  return Args;
}

/// The output tiles of conv_nhwc_desc_dgrad.tc: rectangles of input pixels
/// times channel blocks, for every image.
static int64_t descDgradTiles(const ConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN) {
  return ceilDiv(Shape.H, TP) * ceilDiv(Shape.W, TQ) * ceilDiv(Shape.CI, TN) * Shape.Z;
}

int64_t descDgradSlices(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN, int64_t TK,
                        int64_t Programs, int64_t MinBlocks) {
  const ConvShape &Shape = Desc.shape();
  return reductionSlices(descDgradTiles(Shape, TP, TQ, TN),
                         Shape.R * Shape.S * ceilDiv(Shape.CO, TK), Programs, MinBlocks);
}

ConvGrid descDgradGrid(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN,
                       int64_t Slices) {
  const ConvShape &Shape = Desc.shape();
  return {ceilDiv(Shape.H, TP) * ceilDiv(Shape.W, TQ), ceilDiv(Shape.CI, TN), Shape.Z * Slices};
}

SliceWorkspace descDgradWorkspace(const DescConvShape &Desc, int64_t TP, int64_t TQ, int64_t TN) {
  int64_t Tiles = descDgradTiles(Desc.shape(), TP, TQ, TN);
  return {Tiles, Tiles * TP * TQ * TN};
}

std::vector<int64_t> descDgradArguments(const DescConvShape &Shape, NhwcStrides DY, int64_t LdfCO,
                                        NhwcStrides DX) {
  return descArguments(Shape, DY, LdfCO, DX);
}

int64_t descWgradSlices(const DescConvShape &Desc, int64_t TM, int64_t TN, int64_t TP, int64_t TQ,
                        int64_t Programs, int64_t MinBlocks) {
  const ConvShape &Shape = Desc.shape();
  int64_t Rectangles =
      Shape.Z * ceilDiv(Shape.outputHeight(), TP) * ceilDiv(Shape.outputWidth(), TQ);
  return reductionSlices(wgradTiles(Shape, TM, TN), Rectangles, Programs, MinBlocks);
}

std::vector<int64_t> descWgradArguments(const DescConvShape &Shape, NhwcStrides DY, NhwcStrides X,
                                        int64_t LdfCO) {
  std::vector<int64_t> Args = descShapeArguments(Shape.shape());
  appendStrides(Args, DY);
  appendStrides(Args, X);
  Args.push_back(LdfCO);
  return Args;
}

} // namespace tritonc::driver
