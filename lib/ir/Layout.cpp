//===- Layout.cpp - Uniqued layout attributes -----------------------------===//
#include "tritonc/ir/Layout.h"

#include "tritonc/ir/Type.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace tritonc::ir {

// The canonical inline text is the uniquing key: it names every field, so
// two layouts print alike exactly when they are equal.
struct LayoutUniquer {
  std::mutex Lock;
  std::map<std::string, std::unique_ptr<Layout>> Layouts;

  const Layout *get(std::unique_ptr<Layout> L) {
    std::string Key = L->str();
    std::lock_guard<std::mutex> Guard(Lock);
    auto &Slot = Layouts[Key];
    if (!Slot)
      Slot = std::move(L);
    return Slot.get();
  }
};

static LayoutUniquer &uniquer() {
  static LayoutUniquer U;
  return U;
}

const Layout *Layout::getBlocked(std::vector<int32_t> SizePerThread,
                                 std::vector<int32_t> ThreadsPerWarp,
                                 std::vector<int32_t> WarpsPerCTA, std::vector<unsigned> Order) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::Blocked;
  L->SizePerThread = std::move(SizePerThread);
  L->ThreadsPerWarp = std::move(ThreadsPerWarp);
  L->WarpsPerCTA = std::move(WarpsPerCTA);
  L->Order = std::move(Order);
  return uniquer().get(std::move(L));
}

const Layout *Layout::getAccumulator(LayoutKind Kind, std::vector<int32_t> WarpsPerCTA,
                                     std::vector<int32_t> InstrShape) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = Kind;
  L->WarpsPerCTA = std::move(WarpsPerCTA);
  L->InstrShape = std::move(InstrShape);
  return uniquer().get(std::move(L));
}

const Layout *Layout::getMma(std::vector<int32_t> WarpsPerCTA, std::vector<int32_t> InstrShape) {
  return getAccumulator(LayoutKind::Mma, std::move(WarpsPerCTA), std::move(InstrShape));
}

const Layout *Layout::getWgmma(std::vector<int32_t> WarpsPerCTA, std::vector<int32_t> InstrShape) {
  return getAccumulator(LayoutKind::Wgmma, std::move(WarpsPerCTA), std::move(InstrShape));
}

const Layout *Layout::getSlice(int32_t Dim, const Layout *Parent) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::Slice;
  L->Dim = Dim;
  L->Parent = Parent;
  return uniquer().get(std::move(L));
}

const Layout *Layout::getDotOperand(int32_t OperandIndex, const Layout *Parent, int32_t KWidth) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::DotOperand;
  L->Dim = OperandIndex;
  L->Parent = Parent;
  L->KWidth = KWidth;
  return uniquer().get(std::move(L));
}

const Layout *Layout::getShared(int32_t Vec, int32_t PerPhase, int32_t MaxPhase,
                                std::vector<unsigned> Order) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::Shared;
  L->Vec = Vec;
  L->PerPhase = PerPhase;
  L->MaxPhase = MaxPhase;
  L->Order = std::move(Order);
  return uniquer().get(std::move(L));
}

const Layout *Layout::getSharedSwizzle(int32_t SwizzleBytes, std::vector<unsigned> Order) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::Shared;
  L->SwizzleMode = true;
  L->SwizzleBytes = SwizzleBytes;
  L->Order = std::move(Order);
  return uniquer().get(std::move(L));
}

const Layout *Layout::getLinear(std::vector<std::vector<int32_t>> RegisterBases,
                                std::vector<std::vector<int32_t>> LaneBases,
                                std::vector<std::vector<int32_t>> WarpBases) {
  std::unique_ptr<Layout> L(new Layout());
  L->Kind = LayoutKind::Linear;
  L->Bases[0] = std::move(RegisterBases);
  L->Bases[1] = std::move(LaneBases);
  L->Bases[2] = std::move(WarpBases);
  return uniquer().get(std::move(L));
}

void Layout::getSwizzle(unsigned ElemBits, int32_t &V, int32_t &PP, int32_t &MP) const {
  if (!SwizzleMode) {
    V = Vec;
    PP = PerPhase;
    MP = MaxPhase;
    return;
  }
  // The hardware modes permute 16-byte chunks within a row of SwizzleBytes:
  // chunk c of row r goes to c ^ (r' % (SwizzleBytes / 16)), where r' counts
  // 128-byte lines (PerPhase rows share one line).
  int32_t ElemBytes = std::max<int32_t>(1, static_cast<int32_t>(ElemBits / 8));
  if (SwizzleBytes == 0) {
    V = PP = MP = 1;
    return;
  }
  V = 16 / ElemBytes;
  MP = SwizzleBytes / 16;
  PP = 128 / SwizzleBytes;
}

unsigned Layout::getRank() const {
  switch (Kind) {
  case LayoutKind::Blocked:
    return static_cast<unsigned>(SizePerThread.size());
  case LayoutKind::Mma:
  case LayoutKind::Wgmma:
  case LayoutKind::DotOperand:
    return 2;
  case LayoutKind::Slice:
    return Parent ? Parent->getRank() - 1 : 0;
  case LayoutKind::Shared:
    return static_cast<unsigned>(Order.size());
  case LayoutKind::Linear:
    for (const auto &Dim : Bases)
      if (!Dim.empty())
        return static_cast<unsigned>(Dim[0].size());
    return 0;
  }
  return 0;
}

int32_t Layout::getNumWarps() const {
  switch (Kind) {
  case LayoutKind::Blocked:
  case LayoutKind::Mma:
  case LayoutKind::Wgmma: {
    int32_t N = 1;
    for (int32_t W : WarpsPerCTA)
      N *= W;
    return N;
  }
  case LayoutKind::Slice:
  case LayoutKind::DotOperand:
    return Parent ? Parent->getNumWarps() : 1;
  case LayoutKind::Shared:
    return 1;
  case LayoutKind::Linear:
    return int32_t(1) << Bases[2].size();
  }
  return 1;
}

const char *Layout::kindName() const {
  switch (Kind) {
  case LayoutKind::Blocked:
    return "blocked";
  case LayoutKind::Mma:
    return "mma";
  case LayoutKind::Wgmma:
    return "wgmma";
  case LayoutKind::Slice:
    return "slice";
  case LayoutKind::DotOperand:
    return "dot_op";
  case LayoutKind::Shared:
    return "shared";
  case LayoutKind::Linear:
    return "linear";
  }
  return "?";
}

template <typename T> static std::string listText(const std::vector<T> &V) {
  std::string S = "[";
  for (size_t I = 0; I < V.size(); ++I)
    S += (I ? "," : "") + std::to_string(V[I]);
  return S + "]";
}

static std::string basesText(const std::vector<std::vector<int32_t>> &Bases) {
  std::string S = "[";
  for (size_t I = 0; I < Bases.size(); ++I)
    S += (I ? "," : "") + listText(Bases[I]);
  return S + "]";
}

std::string Layout::str(std::string (*Name)(const Layout *, const void *), const void *Ctx) const {
  std::string S = std::string("#") + kindName() + "<";
  auto ParentText = [&] { return Name ? Name(Parent, Ctx) : Parent->str(); };
  switch (Kind) {
  case LayoutKind::Blocked:
    S += "size_per_thread=" + listText(SizePerThread) +
         ", threads_per_warp=" + listText(ThreadsPerWarp) +
         ", warps_per_cta=" + listText(WarpsPerCTA) + ", order=" + listText(Order);
    break;
  case LayoutKind::Mma:
  case LayoutKind::Wgmma:
    S += "warps_per_cta=" + listText(WarpsPerCTA) + ", instr_shape=" + listText(InstrShape);
    break;
  case LayoutKind::Slice:
    S += "dim=" + std::to_string(Dim) + ", parent=" + ParentText();
    break;
  case LayoutKind::DotOperand:
    S += "operand=" + std::to_string(Dim) + ", parent=" + ParentText() +
         ", k_width=" + std::to_string(KWidth);
    break;
  case LayoutKind::Shared:
    if (SwizzleMode)
      S += "swizzle=" + std::to_string(SwizzleBytes);
    else
      S += "vec=" + std::to_string(Vec) + ", per_phase=" + std::to_string(PerPhase) +
           ", max_phase=" + std::to_string(MaxPhase);
    S += ", order=" + listText(Order);
    break;
  case LayoutKind::Linear:
    S += "register=" + basesText(Bases[0]) + ", lane=" + basesText(Bases[1]) +
         ", warp=" + basesText(Bases[2]);
    break;
  }
  return S + ">";
}

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

static bool isPow2(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }

static bool allPow2(const std::vector<int32_t> &V) {
  return std::all_of(V.begin(), V.end(), [](int32_t X) { return isPow2(X); });
}

static bool isPermutation(const std::vector<unsigned> &Order, size_t Rank) {
  if (Order.size() != Rank)
    return false;
  std::vector<bool> Seen(Rank, false);
  for (unsigned D : Order) {
    if (D >= Rank || Seen[D])
      return false;
    Seen[D] = true;
  }
  return true;
}

static int32_t product(const std::vector<int32_t> &V) {
  int32_t P = 1;
  for (int32_t X : V)
    P *= X;
  return P;
}

std::string checkLayout(const Layout &L) {
  const std::string Kind = std::string("#") + L.kindName();
  switch (L.getKind()) {
  case LayoutKind::Blocked: {
    size_t Rank = L.getSizePerThread().size();
    if (Rank == 0 || L.getThreadsPerWarp().size() != Rank || L.getWarpsPerCTA().size() != Rank)
      return Kind + " needs size_per_thread, threads_per_warp and warps_per_cta of one rank";
    if (!isPermutation(L.getOrder(), Rank))
      return Kind + " order must be a permutation of the dimensions";
    if (!allPow2(L.getSizePerThread()) || !allPow2(L.getThreadsPerWarp()) ||
        !allPow2(L.getWarpsPerCTA()))
      return Kind + " sizes must be powers of two";
    if (product(L.getThreadsPerWarp()) != 32)
      return Kind + " threads_per_warp must multiply to 32";
    return "";
  }
  case LayoutKind::Mma:
    if (L.getWarpsPerCTA().size() != 2 || !allPow2(L.getWarpsPerCTA()))
      return Kind + " warps_per_cta must be two powers of two";
    if (L.getInstrShape() != std::vector<int32_t>{16, 8})
      return Kind + " instr_shape must be [16,8] (mma.sync m16n8)";
    return "";
  case LayoutKind::Wgmma: {
    const auto &W = L.getWarpsPerCTA();
    const auto &S = L.getInstrShape();
    if (W.size() != 2 || !allPow2(W) || W[0] % 4 != 0)
      return Kind + " warps_per_cta must be two powers of two, the first a multiple of 4 "
                    "(warpgroups stack along M)";
    if (S.size() != 3 || S[0] != 64 || S[1] < 8 || S[1] > 256 || S[1] % 8 != 0 ||
        (S[2] != 8 && S[2] != 16 && S[2] != 32))
      return Kind + " instr_shape must be [64,N,K] with N a multiple of 8 in [8,256] and K "
                    "8, 16 or 32";
    return "";
  }
  case LayoutKind::Slice:
    if (!L.getParent() || !L.getParent()->isDistributed())
      return Kind + " needs a distributed parent layout";
    if (L.getDim() < 0 || static_cast<unsigned>(L.getDim()) >= L.getParent()->getRank())
      return Kind + " dim " + std::to_string(L.getDim()) + " is not a dimension of its parent";
    if (L.getParent()->getRank() < 2)
      return Kind + " needs a parent of rank 2 or more";
    return "";
  case LayoutKind::DotOperand: {
    const Layout *P = L.getParent();
    if (!P || (P->getKind() != LayoutKind::Mma && P->getKind() != LayoutKind::Wgmma &&
               P->getKind() != LayoutKind::Blocked))
      return Kind + " needs an #mma, #wgmma or #blocked parent";
    if (L.getOperandIndex() != 0 && L.getOperandIndex() != 1)
      return Kind + " operand must be 0 (A) or 1 (B)";
    if (P->getKind() == LayoutKind::Wgmma && L.getOperandIndex() != 0)
      return Kind + " with a #wgmma parent is only for A: B always comes from shared memory";
    if (L.getKWidth() < 0 || (L.getKWidth() && !isPow2(L.getKWidth())))
      return Kind + " k_width must be 0 or a power of two";
    if (P->getRank() != 2)
      return Kind + " needs a 2-D parent";
    return "";
  }
  case LayoutKind::Shared:
    if (L.getOrder().empty() || !isPermutation(L.getOrder(), L.getOrder().size()))
      return Kind + " order must be a permutation of the dimensions";
    if (L.hasSwizzleMode()) {
      int32_t B = L.getSwizzleBytes();
      if (B != 0 && B != 32 && B != 64 && B != 128)
        return Kind + " swizzle must be 0, 32, 64 or 128 bytes";
      return "";
    }
    {
      int32_t V, PP, MP;
      L.getSwizzle(8, V, PP, MP);
      if (!isPow2(V) || !isPow2(PP) || !isPow2(MP))
        return Kind + " vec, per_phase and max_phase must be powers of two";
    }
    return "";
  case LayoutKind::Linear: {
    if (L.getLaneBases().size() != 5)
      return Kind + " needs 5 lane bases (32 lanes)";
    size_t Rank = L.getLaneBases()[0].size();
    if (Rank == 0)
      return Kind + " bases need one coordinate per tile dimension";
    for (const auto *Dim : {&L.getRegisterBases(), &L.getLaneBases(), &L.getWarpBases()})
      for (const std::vector<int32_t> &B : *Dim) {
        if (B.size() != Rank)
          return Kind + " bases must all have " + std::to_string(Rank) + " coordinates";
        for (int32_t C : B)
          if (C < 0)
            return Kind + " base coordinates must not be negative";
      }
    return "";
  }
  }
  return "";
}

std::string checkLayoutOf(const Type *T) {
  const Layout *L = T->getLayout();
  if (!L)
    return "";
  std::string Msg = checkLayout(*L);
  if (!Msg.empty())
    return Msg;
  if (T->isSharedBuffer()) {
    if (!L->isShared())
      return std::string("a shared buffer needs a #shared layout, not #") + L->kindName();
  } else if (L->isShared()) {
    return "#shared is a layout of shared buffers, not of " + T->str();
  }
  if (L->getRank() != T->getRank())
    return std::string("#") + L->kindName() + " layout of rank " + std::to_string(L->getRank()) +
           " on a value of rank " + std::to_string(T->getRank());
  if (L->getKind() == LayoutKind::Wgmma) {
    // Every warpgroup owns whole m64nN instruction tiles.
    int64_t RowsPerStep = 16 * L->getWarpsPerCTA()[0];
    int64_t ColsPerStep = int64_t(L->getInstrShape()[1]) * L->getWarpsPerCTA()[1];
    if (T->getShape()[0] % RowsPerStep != 0 || T->getShape()[1] % ColsPerStep != 0)
      return "#wgmma tile must be a multiple of " + std::to_string(RowsPerStep) + "x" +
             std::to_string(ColsPerStep) + " (whole instruction tiles per warpgroup)";
  }
  if (L->isShared() && L->hasSwizzleMode() && L->getSwizzleBytes() != 0) {
    // A hardware swizzle permutes 16-byte chunks within rows of the swizzle
    // width: the fastest dimension must hold at least one such row.
    int64_t RowBytes =
        T->getShape()[L->getOrder()[0]] * T->getElementType()->getScalarSizeInBytes();
    if (RowBytes < L->getSwizzleBytes())
      return "swizzle of " + std::to_string(L->getSwizzleBytes()) +
             " bytes needs rows of at least that many bytes, not " + std::to_string(RowBytes);
  }
  return "";
}

} // namespace tritonc::ir
