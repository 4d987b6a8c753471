//===- LayoutAttributes.cpp - Linear layouts of IR layout attributes ------===//
#include "tritonc/analysis/LayoutAttributes.h"

#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <numeric>

namespace tritonc::analysis {

namespace {

bool isPow2(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

std::optional<LinearLayout> none(std::string *Why, std::string Msg) {
  if (Why)
    *Why = std::move(Msg);
  return std::nullopt;
}

/// A hardware swizzle mode on rows wider than the swizzle (docs/IR.md): the
/// fastest dimension is cut into column blocks of RowElems elements (one
/// swizzle row), each block stores its rows one after the other, swizzled
/// as a slot of its own, and the blocks follow one another (the layout of
/// wgmma's descriptors and of the copy engine's boxes).
LinearLayout columnBlockLayout(const std::vector<int64_t> &Shape, int64_t RowElems, int32_t Vec,
                               int32_t PerPhase, int32_t MaxPhase,
                               const std::vector<unsigned> &Order) {
  size_t Rank = Shape.size();
  std::vector<LinearLayout::OutDim> Outs;
  for (size_t D = 0; D < Rank; ++D)
    Outs.push_back({tileDimName(static_cast<unsigned>(D)), static_cast<int32_t>(Shape[D])});
  LinearLayout::InDim Offset{"offset", {}};
  auto AddBits = [&](unsigned D, int64_t From, int64_t To, auto &&Column) {
    for (int64_t Step = From; Step < To; Step *= 2) {
      LinearLayout::Basis B(Rank, 0);
      B[D] = static_cast<int32_t>(Step);
      B[Order[0]] = Column(Step);
      Offset.Bases.push_back(std::move(B));
    }
  };
  auto Same = [](int64_t Step) { return static_cast<int32_t>(Step); };
  AddBits(Order[0], 1, RowElems, Same);
  AddBits(Order[1], 1, Shape[Order[1]], [&](int64_t Step) {
    return static_cast<int32_t>((Step / PerPhase % MaxPhase) * Vec % RowElems);
  });
  AddBits(Order[0], RowElems, Shape[Order[0]], Same);
  for (size_t I = 2; I < Rank; ++I)
    AddBits(Order[I], 1, Shape[Order[I]], [](int64_t) { return 0; });
  return LinearLayout({std::move(Offset)}, std::move(Outs));
}

} // namespace

std::optional<LinearLayout> toLinearLayout(const ir::Layout &L, const std::vector<int64_t> &Shape,
                                           unsigned ElemBits, std::string *Why) {
  using ir::LayoutKind;
  for (int64_t D : Shape)
    if (!isPow2(D))
      return none(Why, "shape dimensions must be powers of two");
  if (Shape.size() != L.getRank())
    return none(Why, "the layout's rank differs from the shape's");
  const auto &W = L.getWarpsPerCTA();
  switch (L.getKind()) {
  case LayoutKind::Blocked:
    return blockedLayout(Shape, L.getSizePerThread(), L.getThreadsPerWarp(), W, L.getOrder());
  case LayoutKind::Mma:
    return mmaV2AccumulatorLayout(Shape, W);
  case LayoutKind::Wgmma: {
    int32_t InstrN = L.getInstrShape()[1];
    std::vector<int32_t> Groups = {W[0] / 4, W[1]};
    if (!isPow2(InstrN) || Shape[0] % (64 * Groups[0]) != 0 ||
        Shape[1] % (int64_t(InstrN) * Groups[1]) != 0)
      return none(Why, "the tile is not a whole number of the warpgroups' m64n" +
                           std::to_string(InstrN) + " tiles");
    return wgmmaAccumulatorLayout(Shape, InstrN, Groups);
  }
  case LayoutKind::Slice: {
    // The parent over the same tile with the sliced dimension of size 1:
    // the hardware spread along that dimension then holds copies.
    std::vector<int64_t> ParentShape = Shape;
    ParentShape.insert(ParentShape.begin() + L.getDim(), 1);
    std::optional<LinearLayout> P = toLinearLayout(*L.getParent(), ParentShape, ElemBits, Why);
    if (!P)
      return std::nullopt;
    return sliceLayout(*P, static_cast<unsigned>(L.getDim()));
  }
  case LayoutKind::DotOperand: {
    const ir::Layout &P = *L.getParent();
    int32_t KWidth = L.getKWidth() ? L.getKWidth() : static_cast<int32_t>(32 / ElemBits);
    if (KWidth < 1 || !isPow2(KWidth) || KWidth * int64_t(ElemBits) != 32)
      return none(Why, "tensor-core operands hold 32 bits of K per register (k_width " +
                           std::to_string(KWidth) + " of " + std::to_string(ElemBits) +
                           "-bit elements)");
    int64_t KStep = 8 * KWidth, K = Shape[L.getOperandIndex() == 0 ? 1 : 0];
    if (K % KStep != 0)
      return none(Why, "K of " + std::to_string(K) + " is not a multiple of the instruction's " +
                           std::to_string(KStep));
    if (P.getKind() == LayoutKind::Mma)
      return mmaV2OperandLayout(Shape, L.getOperandIndex(), P.getWarpsPerCTA(), KWidth);
    if (P.getKind() == LayoutKind::Wgmma && L.getOperandIndex() == 0) {
      std::vector<int32_t> Groups = {P.getWarpsPerCTA()[0] / 4, P.getWarpsPerCTA()[1]};
      if (Shape[0] % (64 * Groups[0]) != 0)
        return none(Why, "M is not a whole number of the warpgroups' 64 rows");
      return wgmmaOperandALayout(Shape, KWidth, Groups);
    }
    return none(Why, std::string("#dot_op of a #") + P.kindName() +
                         " parent has no fixed register layout");
  }
  case LayoutKind::Linear: {
    std::vector<LinearLayout::OutDim> Outs;
    for (size_t D = 0; D < Shape.size(); ++D)
      Outs.push_back({tileDimName(static_cast<unsigned>(D)), static_cast<int32_t>(Shape[D])});
    std::vector<LinearLayout::InDim> Ins = {
        {"register", L.getRegisterBases()}, {"lane", L.getLaneBases()}, {"warp", L.getWarpBases()}};
    for (const LinearLayout::InDim &In : Ins)
      for (const LinearLayout::Basis &B : In.Bases)
        for (size_t D = 0; D < Shape.size(); ++D)
          if (B[D] >= Shape[D])
            return none(Why, "a basis of #linear leaves the tile (coordinate " +
                                 std::to_string(B[D]) + " of dimension " + std::to_string(D) +
                                 ", of size " + std::to_string(Shape[D]) + ")");
    return LinearLayout(std::move(Ins), std::move(Outs));
  }
  case LayoutKind::Shared: {
    int32_t Vec, PerPhase, MaxPhase;
    L.getSwizzle(ElemBits, Vec, PerPhase, MaxPhase);
    int64_t RowElems = L.hasSwizzleMode() ? int64_t(L.getSwizzleBytes()) * 8 / ElemBits : 0;
    if (Shape.size() >= 2 && RowElems > 0 && Shape[L.getOrder()[0]] > RowElems)
      return columnBlockLayout(Shape, RowElems, Vec, PerPhase, MaxPhase, L.getOrder());
    return swizzledSharedLayout(Shape, Vec, PerPhase, MaxPhase, L.getOrder());
  }
  }
  return none(Why, "unknown layout kind");
}

std::optional<LinearLayout> toLinearLayout(const ir::Type *T, std::string *Why) {
  if (!T->getLayout())
    return none(Why, "the type " + T->str() + " has no layout");
  const ir::Type *Elem = T->isSharedBuffer() ? T->getElementType() : T->getScalarType();
  return toLinearLayout(*T->getLayout(), T->getShape(), Elem->getScalarBits(), Why);
}

namespace {

const char *const InDimNames[] = {"register", "lane", "warp"};

const std::vector<LinearLayout::Basis> &basesOf(const LinearLayout &L, const char *In) {
  static const std::vector<LinearLayout::Basis> None;
  for (const LinearLayout::InDim &D : L.getInDims())
    if (D.Name == In)
      return D.Bases;
  return None;
}

/// Whether attribute Attr on a tile of shape S is the layout L.
bool describes(const ir::Layout *Attr, const LinearLayout &L, const std::vector<int64_t> &S) {
  if (!Attr || !ir::checkLayout(*Attr).empty() || Attr->getRank() != S.size())
    return false;
  std::optional<LinearLayout> Of = toLinearLayout(*Attr, S, /*ElemBits=*/32);
  return Of && sameLayout(*Of, L);
}

/// The #blocked attribute with dimension order Order that L would be, read
/// off its bases: leading register bits stepping through each dimension
/// (size_per_thread), then lane and warp bits, which may be zero where the
/// tile is smaller than the threads (replication). Null when the bits do not
/// read that way; the caller checks the candidate against L.
const ir::Layout *blockedCandidate(const LinearLayout &L, const std::vector<unsigned> &Order) {
  size_t Rank = Order.size();
  std::vector<int32_t> Spt(Rank, 1), Tpw(Rank, 1), Wpc(Rank, 1);
  auto Take = [&](const std::vector<LinearLayout::Basis> &Bases, size_t &Next, unsigned Dim,
                  int32_t Below, int32_t &Count, bool ZerosToo) {
    while (Next < Bases.size()) {
      const LinearLayout::Basis &B = Bases[Next];
      bool Zero = std::all_of(B.begin(), B.end(), [](int32_t C) { return C == 0; });
      bool Unit = !Zero && B[Dim] == Below * Count &&
                  std::count(B.begin(), B.end(), 0) == static_cast<long>(Rank - 1);
      if (!Unit && !(ZerosToo && Zero))
        return;
      Count *= 2;
      ++Next;
    }
  };
  size_t R = 0, Ln = 0, W = 0;
  const auto &Regs = basesOf(L, "register"), &Lanes = basesOf(L, "lane"),
             &Warps = basesOf(L, "warp");
  for (unsigned D : Order)
    Take(Regs, R, D, 1, Spt[D], false);
  for (unsigned D : Order)
    Take(Lanes, Ln, D, Spt[D], Tpw[D], true);
  for (unsigned D : Order)
    Take(Warps, W, D, Spt[D] * Tpw[D], Wpc[D], true);
  if (Ln != Lanes.size() || W != Warps.size())
    return nullptr;
  return ir::Layout::getBlocked(Spt, Tpw, Wpc, Order);
}

} // namespace

bool sameLayout(const LinearLayout &A, const LinearLayout &B) {
  if (A.getOutDims() != B.getOutDims())
    return false;
  return std::all_of(std::begin(InDimNames), std::end(InDimNames),
                     [&](const char *In) { return basesOf(A, In) == basesOf(B, In); });
}

const ir::Layout *LayoutNamer::name(const LinearLayout &L, const std::vector<int64_t> &S,
                                    const std::vector<const ir::Layout *> &Hints) {
  for (const ir::Layout *H : Hints)
    if (describes(H, L, S))
      return remember(L, H);
  std::string Key = compactLayoutString(L);
  if (auto It = Known.find(Key); It != Known.end())
    return It->second;
  std::vector<unsigned> Order(S.size());
  std::iota(Order.begin(), Order.end(), 0u);
  std::reverse(Order.begin(), Order.end()); // row-major first
  do {
    if (const ir::Layout *B = blockedCandidate(L, Order); describes(B, L, S))
      return remember(L, B);
  } while (std::prev_permutation(Order.begin(), Order.end()));
  // A slice of a layout named before (index vectors of a 2-D tile).
  std::vector<const ir::Layout *> Parents;
  for (const auto &[Key, Name] : Known)
    if (Name->getRank() == S.size() + 1 && Name->getKind() != ir::LayoutKind::Linear)
      Parents.push_back(Name);
  for (const ir::Layout *P : Parents)
    for (unsigned D = 0; D <= S.size(); ++D)
      if (const ir::Layout *Slice = ir::Layout::getSlice(static_cast<int32_t>(D), P);
          describes(Slice, L, S))
        return remember(L, Slice);
  const ir::Layout *Linear =
      ir::Layout::getLinear(basesOf(L, "register"), basesOf(L, "lane"), basesOf(L, "warp"));
  if (!describes(Linear, L, S))
    reportInternalError("assign-layouts: no attribute describes the layout " +
                        compactLayoutString(L));
  return remember(L, Linear);
}

const ir::Layout *LayoutNamer::remember(const LinearLayout &L, const ir::Layout *Name) {
  Known.emplace(compactLayoutString(L), Name);
  return Name;
}

uint64_t sharedSlotStride(const ir::Type *Buffer) {
  uint64_t Bytes = static_cast<uint64_t>(Buffer->getSlotTileType()->getNumElements()) *
                   Buffer->getElementType()->getScalarSizeInBytes();
  const ir::Layout *L = Buffer->getLayout();
  uint64_t Align = L && L->hasSwizzleMode() && L->getSwizzleBytes() != 0 ? 1024 : 16;
  return (Bytes + Align - 1) / Align * Align;
}

uint64_t sharedBufferBytes(const ir::Type *Buffer) {
  return sharedSlotStride(Buffer) * static_cast<uint64_t>(Buffer->getNumSlots());
}

} // namespace tritonc::analysis
