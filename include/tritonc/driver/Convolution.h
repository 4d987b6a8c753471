//===- Convolution.h - Host-side tables of the convolution kernels -*- C++ -*-===//
//
// What a caller of the bundled convolution kernels would otherwise compute
// itself: the output size, the implicit GEMM's M x N x K, conv.tc's table of
// address increments (the thesis' ADELTA, listing 5.9), a TK for
// conv_nhwc.tc and its split-K workspace and candidates, the grids, slices
// and workspaces of the gradient kernels, and the launches of the
// descriptor kernels conv_nhwc_desc*.tc (stride 1; the forward one's
// split-K too). The Python package has
// the same functions (tritonc.convolution); strides are in elements.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::driver {

/// A 2-D convolution of Z images of CI x H x W by CO filters of CI x R x S
/// (groups = 1).
struct ConvShape {
  int64_t Z = 1, CI = 1, H = 1, W = 1, CO = 1, R = 1, S = 1;
  int64_t StrideH = 1, StrideW = 1, PadH = 0, PadW = 0, DilH = 1, DilW = 1;

  /// Why the shape is not one (a negative size, an empty filter, a stride
  /// or dilation below 1, negative padding), or "" when it is.
  std::string check() const;
  int64_t outputHeight() const; ///< P
  int64_t outputWidth() const;  ///< Q
  int64_t gemmM() const { return Z * outputHeight() * outputWidth(); }
  int64_t gemmN() const { return CO; }
  int64_t gemmK() const { return CI * R * S; }
};

/// conv.tc's ADELTA for an NCHW input with strides (LdaCI, LdaH, LdaW): for
/// each reduction index i = (ci, r, s) (s fastest), how far A's offset moves
/// from i to i + TK. gemmK() entries. nullopt, with the reason in Error,
/// for a shape that check() rejects, a dilated one (conv.tc has none) or
/// TK < 1.
std::optional<std::vector<int32_t>> convIncrements(const ConvShape &Shape, int64_t TK,
                                                   int64_t LdaCI, int64_t LdaH, int64_t LdaW,
                                                   std::string &Error);

/// A TK for conv_nhwc.tc: the largest power of two that divides CI, at most
/// Largest (the kernel needs TK to divide CI).
int64_t nhwcBlockK(int64_t CI, int64_t Largest);

/// conv_nhwc_dgrad.tc's grid for TM x TN tiles: the input pixels of the
/// largest stride phase in TM rows, CI in TN columns, one program layer per
/// phase (StrideH * StrideW).
std::array<int64_t, 3> nhwcDgradGrid(const ConvShape &Shape, int64_t TM, int64_t TN);

/// Whether the data gradient of Shape is a forward convolution
/// (dgradAsForward): stride 1 and, on each axis, padding at most
/// dilation * (taps - 1).
bool dgradIsForward(const ConvShape &Shape);

/// The data gradient of Shape as a forward convolution: the output gradient
/// (Z x CO x P x Q) is its input, the input gradient (Z x CI x H x W) its
/// output, its filter Shape's flipped in both taps with the channels
/// exchanged (conv_nhwc_desc.tc with DGRAD=1 reads Shape's channels-last
/// filter so, as it is), its padding dilation * (taps - 1) - padding.
/// nullopt, with the reason in Error, where dgradIsForward is false.
std::optional<ConvShape> dgradAsForward(const ConvShape &Shape, std::string &Error);

/// How many slices conv_nhwc_wgrad.tc splits its reduction over the Z*P*Q
/// output pixels into (grid axis 2) for TM x TN x TK tiles: enough for about
/// Programs programs in all, but each slice at least MinBlocks K blocks long
/// (a shorter one spends more on its workspace addition than it reduces);
/// at least 1.
int64_t nhwcWgradSlices(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t TK,
                        int64_t Programs, int64_t MinBlocks = 8);
/// conv_nhwc.tc's split-K workspace at TM x TN with SPLIT = Split: Partials
/// ACC elements (Split partial tiles per output tile) and Counters ints
/// (one per output tile, zero on entry); both 0 when Split is 1. Also
/// conv_nhwc_desc.tc's (descWorkspace).
struct NhwcWorkspace {
  int64_t Partials = 0, Counters = 0;
};
NhwcWorkspace nhwcWorkspace(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t Split);

/// Whether conv_nhwc.tc at TM x TN x TK with SPLIT = Split is worth timing
/// for Shape on a GPU of SMs multiprocessors: unsplit always; split only
/// where the output tiles alone leave SMs idle, each slice gets two K blocks
/// or more (one cannot overlap its loads) and the programs fit in two waves.
bool nhwcSplitWorthwhile(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t TK, int64_t Split,
                         int64_t SMs);

/// Programs of a launch along grid axes 0, 1 and 2.
using ConvGrid = std::array<int64_t, 3>;

/// conv_nhwc_wgrad.tc's grid for TM x TN tiles (CO in TM rows, each filter
/// tap's CI in TN columns) with Slices layers splitting its reduction; also
/// conv_nhwc_desc_wgrad.tc's.
ConvGrid wgradGrid(const ConvShape &Shape, int64_t TM, int64_t TN, int64_t Slices);

/// The workspace through which the slices of a split reduction add their
/// partial tiles: Counters ints (one per output tile) and Partials float
/// accumulators (one tile each); zero on entry, and the kernels leave them
/// zero on exit.
struct SliceWorkspace {
  int64_t Counters = 0, Partials = 0;
};

/// conv_nhwc_wgrad.tc's (and conv_nhwc_desc_wgrad.tc's) workspace at TM x TN.
SliceWorkspace wgradWorkspace(const ConvShape &Shape, int64_t TM, int64_t TN);

/// A ConvShape that the descriptor kernels (conv_nhwc_desc.tc and its
/// gradients) compute: a valid shape of stride 1 (a box reads consecutive
/// pixels). Checked once here, so that the functions below cannot fail.
class DescConvShape {
public:
  /// The shape, or nullopt with the reason in Error (check()'s, or a stride
  /// other than 1).
  static std::optional<DescConvShape> make(const ConvShape &Shape, std::string &Error);
  const ConvShape &shape() const { return Shape; }

private:
  explicit DescConvShape(const ConvShape &Shape) : Shape(Shape) {}
  ConvShape Shape;
};

/// The strides, in elements, of a channels-last tensor between images, rows
/// and columns (its channels are contiguous).
struct NhwcStrides {
  int64_t Z = 0, Row = 0, Col = 0;
};

/// conv_nhwc_desc.tc's grid: TP x TQ rectangles of output pixels, CO in TN
/// channels, the Split slices (its SPLIT) of the k-steps of each Boxes
/// images (its BOXES) in the layers.
ConvGrid descGrid(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN, int64_t Split = 1,
                  int64_t Boxes = 1);

/// conv_nhwc_desc.tc's split-K workspace with SPLIT = Split, as
/// nhwcWorkspace's: Split partial tiles of Boxes * TP * TQ x TN ACC per
/// output tile (rectangle, channel block and Boxes images) and a counter
/// each; both 0 when Split is 1.
NhwcWorkspace descWorkspace(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN,
                            int64_t Split, int64_t Boxes = 1);

/// Whether conv_nhwc_desc.tc at TP x TQ x TN x TK with SPLIT = Split and
/// BOXES = Boxes is worth timing for Shape on a GPU of SMs multiprocessors:
/// nhwcSplitWorthwhile's rule over its output tiles and its R * S *
/// CDIV(CI, TK) k-steps.
bool descSplitWorthwhile(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN, int64_t TK,
                         int64_t Split, int64_t SMs, int64_t Boxes = 1);

/// conv_nhwc_desc.tc's scalar arguments, in order, after its pointers X, F
/// and Y: X's and Y's strides, F's between output channels (LdfCO). The
/// workspace pointers partials and counters (descWorkspace) follow them.
std::vector<int64_t> descArguments(const DescConvShape &Shape, NhwcStrides X, int64_t LdfCO,
                                   NhwcStrides Y);

/// How many slices conv_nhwc_desc_dgrad.tc splits its R * S * CDIV(CO, TK)
/// k-steps into: enough for about Programs programs in all, each slice at
/// least MinBlocks k-steps long; at least 1.
int64_t descDgradSlices(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN, int64_t TK,
                        int64_t Programs, int64_t MinBlocks = 4);

/// conv_nhwc_desc_dgrad.tc's grid: TP x TQ rectangles of input pixels, CI in
/// TN channels, Slices layers per image.
ConvGrid descDgradGrid(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN,
                       int64_t Slices = 1);

/// conv_nhwc_desc_dgrad.tc's workspace (one tile of TP * TQ x TN per
/// rectangle and channel block of every image).
SliceWorkspace descDgradWorkspace(const DescConvShape &Shape, int64_t TP, int64_t TQ, int64_t TN);

/// conv_nhwc_desc_dgrad.tc's scalar arguments after its pointers DY, F, DX,
/// counters and partials.
std::vector<int64_t> descDgradArguments(const DescConvShape &Shape, NhwcStrides DY, int64_t LdfCO,
                                        NhwcStrides DX);

/// How many slices conv_nhwc_desc_wgrad.tc splits its reduction over the
/// Z * CDIV(P, TP) * CDIV(Q, TQ) rectangles of output pixels into for TM x
/// TN tiles: enough for about Programs programs in all, each slice at least
/// MinBlocks rectangles long; at least 1. Its grid and workspace are
/// wgradGrid's and wgradWorkspace's.
int64_t descWgradSlices(const DescConvShape &Shape, int64_t TM, int64_t TN, int64_t TP, int64_t TQ,
                        int64_t Programs, int64_t MinBlocks = 4);

/// conv_nhwc_desc_wgrad.tc's scalar arguments after its pointers DY, X, DF,
/// counters and partials.
std::vector<int64_t> descWgradArguments(const DescConvShape &Shape, NhwcStrides DY, NhwcStrides X,
                                        int64_t LdfCO);

} // namespace tritonc::driver
