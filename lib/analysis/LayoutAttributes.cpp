//===- LayoutAttributes.cpp - Linear layouts of IR layout attributes ------===//
#include "tritonc/analysis/LayoutAttributes.h"

namespace tritonc::analysis {

namespace {

bool isPow2(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

std::optional<LinearLayout> none(std::string *Why, std::string Msg) {
  if (Why)
    *Why = std::move(Msg);
  return std::nullopt;
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
