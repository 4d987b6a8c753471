//===- LayoutBuilders.cpp - Linear layouts of the back end's encodings ----===//

#include "tritonc/analysis/LinearLayout.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>

namespace tritonc::analysis {

namespace {

void checkPowersOfTwo(const std::vector<int64_t> &Values, const char *What) {
  for (int64_t V : Values)
    if (V <= 0 || (V & (V - 1)) != 0)
      reportInternalError(std::string("layout builder: ") + What + " must be powers of two");
}

std::vector<int64_t> widen(const std::vector<int32_t> &V) { return {V.begin(), V.end()}; }

void checkOrder(const std::vector<unsigned> &Order, size_t Rank) {
  std::vector<unsigned> Sorted = Order;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t I = 0; I < Sorted.size(); ++I)
    if (Sorted[I] != I)
      reportInternalError("layout builder: order is not a permutation");
  if (Order.size() != Rank)
    reportInternalError("layout builder: order has the wrong rank");
}

/// Makes L cover exactly Size elements along output dimension Out: a layout
/// that is too small repeats (more registers, the new register bits being
/// the most significant); one that is too large is cut down, the bits that
/// would leave the tile becoming replication (zero bases).
LinearLayout fitToSize(const LinearLayout &L, const std::string &Out, int64_t Size) {
  int32_t Have = L.getOutDimSize(Out);
  if (Have < Size)
    return L * LinearLayout::identity1D(static_cast<int32_t>(Size / Have), "register", Out);
  if (Have == Size)
    return L;
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  std::vector<LinearLayout::OutDim> Outs = L.getOutDims();
  size_t O = 0;
  while (Outs[O].Name != Out)
    ++O;
  Outs[O].Size = static_cast<int32_t>(Size);
  for (LinearLayout::InDim &D : Ins)
    for (LinearLayout::Basis &B : D.Bases)
      if (B[O] >= Size)
        B[O] = 0;
  return LinearLayout(std::move(Ins), std::move(Outs));
}

std::vector<std::string> canonicalOutOrder(size_t Rank) {
  std::vector<std::string> Names;
  for (size_t D = 0; D < Rank; ++D)
    Names.push_back(tileDimName(static_cast<unsigned>(D)));
  return Names;
}

} // namespace

std::string tileDimName(unsigned D) { return "dim" + std::to_string(D); }

LinearLayout blockedLayout(const std::vector<int64_t> &Shape,
                           const std::vector<int32_t> &SizePerThread,
                           const std::vector<int32_t> &ThreadsPerWarp,
                           const std::vector<int32_t> &WarpsPerCTA,
                           const std::vector<unsigned> &Order) {
  size_t Rank = Shape.size();
  if (SizePerThread.size() != Rank || ThreadsPerWarp.size() != Rank || WarpsPerCTA.size() != Rank)
    reportInternalError("blockedLayout: parameters of different ranks");
  checkOrder(Order, Rank);
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo(widen(SizePerThread), "sizePerThread");
  checkPowersOfTwo(widen(ThreadsPerWarp), "threadsPerWarp");
  checkPowersOfTwo(widen(WarpsPerCTA), "warpsPerCTA");
  // Registers, then lanes, then warps, each walking the dimensions fastest
  // first; the product concatenates bits so lanes step over whole
  // sizePerThread chunks and warps over whole warp tiles.
  LinearLayout L;
  for (unsigned D : Order)
    L *= LinearLayout::identity1D(SizePerThread[D], "register", tileDimName(D));
  for (unsigned D : Order)
    L *= LinearLayout::identity1D(ThreadsPerWarp[D], "lane", tileDimName(D));
  for (unsigned D : Order)
    L *= LinearLayout::identity1D(WarpsPerCTA[D], "warp", tileDimName(D));
  for (unsigned D : Order)
    L = fitToSize(L, tileDimName(D), Shape[D]);
  return L.transposeOuts(canonicalOutOrder(Rank));
}

LinearLayout sliceLayout(const LinearLayout &Parent, unsigned Dim) {
  std::string Removed = tileDimName(Dim);
  std::vector<std::string> Kept;
  for (const std::string &Name : Parent.getOutDimNames())
    if (Name != Removed)
      Kept.push_back(Name);
  if (Kept.size() == Parent.getOutDims().size())
    reportInternalError("sliceLayout: parent has no dimension " + Removed);
  LinearLayout L = Parent.sublayout(Parent.getInDimNames(), Kept);
  // Renumber in increasing order so that no new name clashes with an old one.
  for (unsigned D = Dim + 1; D <= Kept.size(); ++D)
    L = L.renameOutDim(tileDimName(D), tileDimName(D - 1));
  return L.removeZeroBases("register");
}

LinearLayout mmaV2AccumulatorLayout(const std::vector<int64_t> &Shape,
                                    const std::vector<int32_t> &WarpsPerCTA) {
  if (Shape.size() != 2 || WarpsPerCTA.size() != 2)
    reportInternalError("mmaV2AccumulatorLayout: expects a 2-D tile");
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo(widen(WarpsPerCTA), "warpsPerCTA");
  // One warp's 16x8 tile, as (row, col) images: c0/c1 differ in the column,
  // c0/c2 by 8 rows; the lane's low two bits (threadID_in_group) pick the
  // column pair, its high three bits (groupID) the row.
  LinearLayout Tile(
      {{"register", {{0, 1}, {8, 0}}}, {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
      {{"dim0", 16}, {"dim1", 8}});
  LinearLayout L = Tile * LinearLayout::identity1D(WarpsPerCTA[1], "warp", "dim1") *
                   LinearLayout::identity1D(WarpsPerCTA[0], "warp", "dim0");
  L = fitToSize(L, "dim1", Shape[1]);
  return fitToSize(L, "dim0", Shape[0]);
}

namespace {
/// One warp's mma.sync operand fragment: A [16, 8 KWidth] or B [8 KWidth, 8].
LinearLayout mmaOperandFragment(int32_t OperandIndex, int32_t KWidth) {
  // Images as (dim0, dim1); K is dim1 for A and dim0 for B.
  auto K = [&](int32_t Step) {
    return OperandIndex == 0 ? LinearLayout::Basis{0, Step} : LinearLayout::Basis{Step, 0};
  };
  auto Other = [&](int32_t Step) {
    return OperandIndex == 0 ? LinearLayout::Basis{Step, 0} : LinearLayout::Basis{0, Step};
  };
  std::vector<LinearLayout::Basis> Regs, Lanes;
  for (int32_t Step = 1; Step < KWidth; Step *= 2)
    Regs.push_back(K(Step));
  if (OperandIndex == 0)
    Regs.push_back(Other(8));    // a2, a3: eight rows down
  Regs.push_back(K(4 * KWidth)); // the second half of K
  Lanes = {K(KWidth), K(2 * KWidth), Other(1), Other(2), Other(4)};
  int32_t KSize = 8 * KWidth;
  std::vector<LinearLayout::OutDim> Outs =
      OperandIndex == 0 ? std::vector<LinearLayout::OutDim>{{"dim0", 16}, {"dim1", KSize}}
                        : std::vector<LinearLayout::OutDim>{{"dim0", KSize}, {"dim1", 8}};
  return LinearLayout({{"register", Regs}, {"lane", Lanes}}, Outs);
}
} // namespace

LinearLayout mmaV2OperandLayout(const std::vector<int64_t> &Shape, int32_t OperandIndex,
                                const std::vector<int32_t> &WarpsPerCTA, int32_t KWidth) {
  if (Shape.size() != 2 || WarpsPerCTA.size() != 2 || (OperandIndex != 0 && OperandIndex != 1))
    reportInternalError("mmaV2OperandLayout: expects a 2-D operand 0 or 1");
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo({WarpsPerCTA[0], WarpsPerCTA[1], KWidth}, "warps and k width");
  LinearLayout L = mmaOperandFragment(OperandIndex, KWidth);
  // Warp id runs along N first, as in the accumulator.
  if (OperandIndex == 0)
    L = L * LinearLayout::zeros1D(WarpsPerCTA[1], "warp", "dim1") *
        LinearLayout::identity1D(WarpsPerCTA[0], "warp", "dim0");
  else
    L = L * LinearLayout::identity1D(WarpsPerCTA[1], "warp", "dim1") *
        LinearLayout::zeros1D(WarpsPerCTA[0], "warp", "dim0");
  std::string KDim = OperandIndex == 0 ? "dim1" : "dim0";
  std::string OtherDim = OperandIndex == 0 ? "dim0" : "dim1";
  L = fitToSize(L, KDim, Shape[OperandIndex == 0 ? 1 : 0]);
  L = fitToSize(L, OtherDim, Shape[OperandIndex == 0 ? 0 : 1]);
  return L.transposeOuts({"dim0", "dim1"});
}

LinearLayout wgmmaOperandALayout(const std::vector<int64_t> &Shape, int32_t KWidth,
                                 const std::vector<int32_t> &WarpGroups) {
  if (Shape.size() != 2 || WarpGroups.size() != 2)
    reportInternalError("wgmmaOperandALayout: expects a 2-D tile");
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo({KWidth, WarpGroups[0], WarpGroups[1]}, "k width and warpgroups");
  int64_t MReps = Shape[0] / (64 * WarpGroups[0]);
  int64_t KReps = Shape[1] / (8 * KWidth);
  if (MReps < 1 || KReps < 1)
    reportInternalError("wgmmaOperandALayout: the tile does not fit the warpgroups");
  LinearLayout L = mmaOperandFragment(0, KWidth);
  L *= LinearLayout::identity1D(4, "warp", "dim0");
  L *= LinearLayout::identity1D(static_cast<int32_t>(KReps), "register", "dim1");
  L *= LinearLayout::identity1D(static_cast<int32_t>(MReps), "register", "dim0");
  L *= LinearLayout::identity1D(WarpGroups[0], "warp", "dim0");
  L *= LinearLayout::zeros1D(WarpGroups[1], "warp", "dim0");
  return L;
}

LinearLayout wgmmaAccumulatorLayout(const std::vector<int64_t> &Shape, int32_t InstrN,
                                    const std::vector<int32_t> &WarpGroups) {
  if (Shape.size() != 2 || WarpGroups.size() != 2)
    reportInternalError("wgmmaAccumulatorLayout: expects a 2-D tile");
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo({InstrN, WarpGroups[0], WarpGroups[1]}, "wgmma shape");
  int64_t MReps = Shape[0] / (64 * WarpGroups[0]);
  int64_t NReps = Shape[1] / (int64_t(InstrN) * WarpGroups[1]);
  if (MReps < 1 || NReps < 1 || InstrN < 8 || InstrN > 256)
    reportInternalError("wgmmaAccumulatorLayout: the tile does not fit the warpgroups");
  // The mma.sync 16x8 fragment (see mmaV2AccumulatorLayout), then the
  // instruction's column blocks in registers and its four warps along M.
  LinearLayout L(
      {{"register", {{0, 1}, {8, 0}}}, {"lane", {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}}},
      {{"dim0", 16}, {"dim1", 8}});
  L *= LinearLayout::identity1D(InstrN / 8, "register", "dim1");
  L *= LinearLayout::identity1D(4, "warp", "dim0");
  L *= LinearLayout::identity1D(static_cast<int32_t>(MReps), "register", "dim0");
  L *= LinearLayout::identity1D(static_cast<int32_t>(NReps), "register", "dim1");
  L *= LinearLayout::identity1D(WarpGroups[0], "warp", "dim0");
  L *= LinearLayout::identity1D(WarpGroups[1], "warp", "dim1");
  return L;
}

LinearLayout fmaAccumulatorLayout(const std::vector<int64_t> &Shape, int32_t NumWarps) {
  if (Shape.size() != 2)
    reportInternalError("fmaAccumulatorLayout: expects a 2-D tile");
  checkPowersOfTwo(Shape, "tile sizes");
  LinearLayout L({{"register", {{0, 1}, {0, 2}, {1, 0}, {2, 0}}},
                  {"lane", {{0, 4}, {0, 8}, {0, 16}, {4, 0}, {8, 0}}}},
                 {{"dim0", 16}, {"dim1", 32}});
  L *= LinearLayout::identity1D(NumWarps, "warp", "dim0");
  L = fitToSize(L, "dim1", Shape[1]);
  return fitToSize(L, "dim0", Shape[0]);
}

LinearLayout swizzledSharedLayout(const std::vector<int64_t> &Shape, int32_t Vec, int32_t PerPhase,
                                  int32_t MaxPhase, const std::vector<unsigned> &Order) {
  size_t Rank = Shape.size();
  checkOrder(Order, Rank);
  checkPowersOfTwo(Shape, "tile sizes");
  checkPowersOfTwo({Vec, PerPhase, MaxPhase}, "swizzle parameters");
  std::vector<LinearLayout::OutDim> Outs;
  for (size_t D = 0; D < Rank; ++D)
    Outs.push_back({tileDimName(static_cast<unsigned>(D)), static_cast<int32_t>(Shape[D])});
  LinearLayout::InDim Offset{"offset", {}};
  auto AddBits = [&](unsigned D, auto &&ExtraColumn) {
    for (int64_t Step = 1; Step < Shape[D]; Step *= 2) {
      LinearLayout::Basis B(Rank, 0);
      B[D] = static_cast<int32_t>(Step);
      if (Rank > 1)
        B[Order[0]] = ExtraColumn(Step);
      Offset.Bases.push_back(std::move(B));
    }
  };
  // Within a row the physical column is the logical one (no XOR)...
  AddBits(Order[0], [](int64_t Step) { return static_cast<int32_t>(Step); });
  // ...and each row bit flips the vector index by its share of the phase.
  // (c ^ p) mod n == (c mod n) ^ (p mod n) for a power of two n, so the
  // wrap-around of the phase at the row length stays linear.
  if (Rank > 1)
    AddBits(Order[1], [&](int64_t Step) {
      return static_cast<int32_t>((Step / PerPhase % MaxPhase) * Vec % Shape[Order[0]]);
    });
  for (size_t I = 2; I < Rank; ++I)
    AddBits(Order[I], [](int64_t) { return 0; });
  return LinearLayout({std::move(Offset)}, std::move(Outs));
}

} // namespace tritonc::analysis
