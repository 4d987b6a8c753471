//===- LayoutAssignment.cpp - Distributed layouts of tile values ---------===//

#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/analysis/PointerBase.h"
#include "tritonc/analysis/PrefixMask.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"

#include <algorithm>

namespace tritonc::analysis {

using ir::Instruction;
using ir::OpCategory;
using ir::Opcode;

namespace {

bool isTileValue(const ir::Value *V) { return V->getType()->isTile(); }

} // namespace

// --- Layout algebra -----------------------------------------------------------

LinearLayout reshapeLayout(const LinearLayout &L, const ir::Shape &To) {
  // Flatten row-major (last dimension most minor), then split again.
  size_t FromRank = L.getOutDims().size();
  std::vector<std::string> Reversed;
  for (size_t D = FromRank; D-- > 0;)
    Reversed.push_back(tileDimName(static_cast<unsigned>(D)));
  std::vector<LinearLayout::OutDim> NewOuts;
  std::vector<std::string> Canonical;
  for (size_t D = To.size(); D-- > 0;)
    NewOuts.push_back({tileDimName(static_cast<unsigned>(D)), static_cast<int32_t>(To[D])});
  for (size_t D = 0; D < To.size(); ++D)
    Canonical.push_back(tileDimName(static_cast<unsigned>(D)));
  return L.transposeOuts(Reversed).reshapeOuts(NewOuts).transposeOuts(Canonical);
}

LinearLayout transposeLayout(const LinearLayout &L) {
  return L.transposeOuts({"dim1", "dim0"})
      .renameOutDim("dim0", "tmp")
      .renameOutDim("dim1", "dim0")
      .renameOutDim("tmp", "dim1");
}

std::optional<LinearLayout> windowLayout(const LinearLayout &L, const ir::Shape &To) {
  auto Inside = [&](const LinearLayout::Basis &B) {
    for (size_t D = 0; D < To.size(); ++D)
      if (B[D] >= To[D])
        return false;
    return true;
  };
  auto Outside = [&](const LinearLayout::Basis &B) {
    for (size_t D = 0; D < To.size(); ++D)
      if (B[D] % To[D] != 0)
        return false;
    return true;
  };
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  for (LinearLayout::InDim &In : Ins) {
    std::vector<LinearLayout::Basis> Kept;
    for (const LinearLayout::Basis &B : In.Bases)
      if (Inside(B))
        Kept.push_back(B);
      else if (In.Name != "register" || !Outside(B))
        return std::nullopt;
    In.Bases = std::move(Kept);
  }
  std::vector<LinearLayout::OutDim> Outs = L.getOutDims();
  for (size_t D = 0; D < To.size(); ++D)
    Outs[D].Size = static_cast<int32_t>(To[D]);
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout broadcastOperandLayout(const LinearLayout &L, const ir::Shape &From) {
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  std::vector<LinearLayout::OutDim> Outs = L.getOutDims();
  for (size_t D = 0; D < From.size(); ++D) {
    if (From[D] != 1)
      continue;
    Outs[D].Size = 1;
    for (LinearLayout::InDim &In : Ins)
      for (LinearLayout::Basis &B : In.Bases)
        B[D] = 0;
  }
  return LinearLayout(std::move(Ins), std::move(Outs));
}

LinearLayout broadcastResultLayout(const LinearLayout &L, const ir::Shape &To) {
  LinearLayout R = L;
  for (size_t D = 0; D < To.size(); ++D) {
    std::string Name = tileDimName(static_cast<unsigned>(D));
    int32_t Have = R.getOutDimSize(Name);
    if (Have < To[D])
      R *= LinearLayout::identity1D(static_cast<int32_t>(To[D] / Have), "register", Name);
  }
  std::vector<std::string> Canonical;
  for (size_t D = 0; D < To.size(); ++D)
    Canonical.push_back(tileDimName(static_cast<unsigned>(D)));
  return R.transposeOuts(Canonical);
}

bool hasDistinctPowerOfTwoBases(const LinearLayout &L) {
  size_t Rank = L.getOutDims().size();
  std::vector<int64_t> Used(Rank, 0);
  for (const LinearLayout::InDim &In : L.getInDims())
    for (const LinearLayout::Basis &B : In.Bases) {
      int Moved = 0;
      for (size_t D = 0; D < Rank; ++D) {
        int64_t C = B[D];
        if (!C)
          continue;
        if ((C & (C - 1)) != 0 || (Used[D] & C) != 0)
          return false;
        Used[D] |= C;
        ++Moved;
      }
      if (Moved > 1)
        return false;
    }
  return true;
}

std::optional<std::vector<int32_t>> registerRemap(const LinearLayout &Have,
                                                  const LinearLayout &Want) {
  if (Have.getOutDims() != Want.getOutDims())
    return std::nullopt;
  for (const char *Dim : {"lane", "warp"}) {
    int32_t Bits = Want.getInDimSizeLog2(Dim);
    if (Bits != Have.getInDimSizeLog2(Dim))
      return std::nullopt;
    for (int32_t I = 0; I < Bits; ++I)
      if (Want.getBasis(Dim, I) != Have.getBasis(Dim, I))
        return std::nullopt;
  }
  // Each Want register basis must be the image of some Have register; the
  // map is then linear in the register index.
  int32_t HaveRegs = numRegisters(Have);
  std::vector<int32_t> BitImage;
  for (int32_t I = 0; I < Want.getInDimSizeLog2("register"); ++I) {
    const LinearLayout::Basis &B = Want.getBasis("register", I);
    std::optional<int32_t> Found;
    for (int32_t R = 0; R < HaveRegs && !Found; ++R)
      if (Have.apply({{"register", R}, {"lane", 0}, {"warp", 0}}) == [&] {
            DimValues Out;
            for (size_t D = 0; D < B.size(); ++D)
              Out.push_back({Want.getOutDims()[D].Name, B[D]});
            return Out;
          }())
        Found = R;
    if (!Found)
      return std::nullopt;
    BitImage.push_back(*Found);
  }
  std::vector<int32_t> Map(numRegisters(Want), 0);
  for (int32_t R = 0; R < numRegisters(Want); ++R)
    for (size_t I = 0; I < BitImage.size(); ++I)
      if (R >> I & 1)
        Map[R] ^= BitImage[I];
  return Map;
}

// --- Assignment -------------------------------------------------------------

LayoutAssignment::LayoutAssignment(const ir::Function &F, const AxisInfoAnalysis &AI,
                                   unsigned NumWarps, bool HasMmaV2, bool AllowTF32, bool HasWgmma)
    : NumWarps(NumWarps), HasMmaV2(HasMmaV2), AllowTF32(AllowTF32), HasWgmma(HasWgmma) {
  assign(F, AI);
}

LinearLayout LayoutAssignment::blocked(const ir::Shape &S, unsigned Vec,
                                       const std::vector<unsigned> &Order) const {
  size_t Rank = S.size();
  std::vector<int32_t> Spt(Rank, 1), Tpw(Rank, 1), Wpc(Rank, 1);
  Spt[Order[0]] = static_cast<int32_t>(std::min<int64_t>(Vec, S[Order[0]]));
  int32_t Lanes = 32;
  for (unsigned D : Order) {
    int64_t Room = std::max<int64_t>(1, S[D] / Spt[D]);
    Tpw[D] = static_cast<int32_t>(std::min<int64_t>(Lanes, Room));
    Lanes /= Tpw[D];
  }
  Tpw[Order[0]] *= Lanes; // Left-over lanes replicate along the fastest dimension.
  int32_t Warps = static_cast<int32_t>(NumWarps);
  for (size_t I = Rank; I-- > 0;) {
    unsigned D = Order[I];
    int64_t Room = std::max<int64_t>(1, S[D] / (int64_t(Spt[D]) * Tpw[D]));
    Wpc[D] = static_cast<int32_t>(std::min<int64_t>(Warps, Room));
    Warps /= Wpc[D];
  }
  Wpc[Order[Rank - 1]] *= Warps;
  return blockedLayout(S, Spt, Tpw, Wpc, Order);
}

LinearLayout LayoutAssignment::defaultLayout(const ir::Shape &S) const {
  std::vector<unsigned> Order;
  for (size_t D = S.size(); D-- > 0;)
    Order.push_back(static_cast<unsigned>(D));
  return blocked(S, 4, Order);
}

bool LayoutAssignment::isRematSource(const ir::Value *V) const { return Remats.isRematSource(V); }

bool LayoutAssignment::isRematerializable(const ir::Value *V) const {
  return Remats.isRematerializable(V);
}

bool LayoutAssignment::isRecomputable(const ir::Value *V) const { return Remats.isRecomputable(V); }

const LinearLayout &LayoutAssignment::layoutOf(const ir::Value *V) const {
  auto It = Layouts.find(V);
  if (It == Layouts.end())
    reportInternalError("layout assignment: no layout for a value" +
                        (V->getName().empty() ? std::string() : " '" + V->getName() + "'"));
  return It->second;
}

const AccessPlan &LayoutAssignment::accessOf(const Instruction *I) const {
  auto It = Accesses.find(I);
  if (It == Accesses.end())
    reportInternalError(std::string("layout assignment: no access plan for ") +
                        ir::opcodeName(I->getOpcode()));
  return It->second;
}

const DotPlan &LayoutAssignment::dotOf(const Instruction *I) const {
  auto It = Dots.find(I);
  if (It == Dots.end())
    reportInternalError("layout assignment: no plan for a dot");
  return It->second;
}

/// The pointer operand of a global access (cp_async's is its second: the
/// first is the slot it copies into).
static unsigned pointerOperandIndex(const Instruction &I) {
  return I.getOpcode() == Opcode::CpAsync ? 1 : 0;
}

/// Elements per thread along the contiguous dimension for a load or store
/// whose vectors are narrower than a 32-bit word (2-byte elements of rows
/// that are only 2-byte aligned: a GEMM with odd K or N): each thread still
/// accesses its elements one by one, but holds runs of a whole word, so that
/// copying the tile into shared memory (a dot operand) or out of it (a
/// layout conversion before the store) moves words: half the shared-memory
/// instructions and wavefronts of one element per thread. On an H200 this
/// took fp16 GEMMs with odd K and N from 88 / 85 to 97 / 103 TFLOP/s
/// (1000x3000x555, 2047x2049x1023); runs of 4 elements (8 bytes) gave
/// nothing, as each global instruction then spans 4 times the bytes it uses.
static unsigned wordRunOfNarrowAccess(const Instruction &I, int64_t Contiguity, int64_t Vec,
                                      int64_t ElemBytes) {
  Opcode Op = I.getOpcode();
  bool Plain = Op == Opcode::Load || Op == Opcode::MaskedLoad || Op == Opcode::Store ||
               Op == Opcode::MaskedStore;
  if (!Plain || Vec * ElemBytes >= 4 || ElemBytes >= 4)
    return 1;
  return static_cast<unsigned>(std::min<int64_t>(Contiguity, 4 / ElemBytes));
}

/// How many elements the first bases of In (register or lane) step through
/// along dimension Dim one Step after the other, up to Max: 4 for registers
/// [0,1],[0,2] with Step 1 along dimension 1.
static unsigned runAlong(const LinearLayout &L, const std::string &In, unsigned Dim, unsigned Step,
                         unsigned Max) {
  unsigned Run = 1;
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2(In); ++Bit) {
    const LinearLayout::Basis &B = L.getBasis(In, Bit);
    bool Next = B[Dim] == static_cast<int32_t>(Run * Step);
    for (size_t D = 0; D < B.size(); ++D)
      Next = Next && (D == Dim || B[D] == 0);
    if (!Next || Run * 2 > Max)
      break;
    Run *= 2;
  }
  return Run;
}

AccessPlan LayoutAssignment::planAccess(const Instruction &I, const AxisInfoAnalysis &AI,
                                        bool AsCopy) const {
  const ir::Value *Ptr = I.getOperand(pointerOperandIndex(I));
  const ir::Shape &S = Ptr->getType()->getShape();
  const AxisInfo &P = AI.get(Ptr);
  unsigned Rank = static_cast<unsigned>(S.size());
  // Fastest dimension: the most contiguous one (ties: the last dimension).
  std::vector<unsigned> Order;
  for (unsigned D = Rank; D-- > 0;)
    Order.push_back(D);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](unsigned A, unsigned B) { return P.Contiguity[A] > P.Contiguity[B]; });
  unsigned Fast = Order[0];
  int64_t ElemBytes = Ptr->getType()->getPointee()->getScalarSizeInBytes();
  int64_t Vec = 1;
  bool IsAtomic = I.getCategory() == OpCategory::Atomic;
  if (!IsAtomic && I.getType()->getScalarType()->getScalarBits() != 1 &&
      Ptr->getType()->getPointee()->getScalarBits() != 1) {
    Vec = std::min<int64_t>(P.Contiguity[Fast], 16 / ElemBytes);
    Vec = std::min<int64_t>(Vec, std::max<int64_t>(1, P.Divisibility[Fast] / ElemBytes));
    // A masked access is vectorized only as far as the mask is constant, a
    // copy also as far as the mask is true on a prefix of each vector: its
    // source size reads that prefix and zero-fills the rest.
    const ir::Value *Mask = nullptr;
    if (I.getOpcode() == Opcode::MaskedLoad)
      Mask = I.getOperand(1);
    else if (I.getOpcode() == Opcode::MaskedStore)
      Mask = I.getOperand(2);
    else if (I.getOpcode() == Opcode::CpAsync && I.getNumOperands() > 2)
      Mask = I.getOperand(2);
    if (Mask && Mask->getType()->isTile()) {
      int64_t Run = AI.get(Mask).Constancy[Fast];
      if (AsCopy || I.getOpcode() == Opcode::CpAsync)
        if (std::optional<PrefixMask> Prefix = findPrefixMask(Mask, Fast, AI))
          Run = std::max(Run, Prefix->Run);
      Vec = std::min<int64_t>(Vec, Run);
    }
    Vec = std::max<int64_t>(Vec, 1);
  }
  // sm_90 adds up to 4 f32 in one vector reduction (red.global.add.v4.f32)
  // when nobody reads the old values, as far as the mask is constant.
  bool VectorRed = IsAtomic && HasWgmma && I.getOpcode() == Opcode::AtomicRMW &&
                   I.Reduction == ir::ReduceKind::FAdd && !I.hasUses() && ElemBytes == 4 &&
                   I.getType()->getScalarType()->getKind() == ir::TypeKind::Float;
  if (VectorRed) {
    Vec = std::min<int64_t>(P.Contiguity[Fast], 4);
    Vec = std::min<int64_t>(Vec, std::max<int64_t>(1, P.Divisibility[Fast] / ElemBytes));
    if (I.getNumOperands() > 2 && I.getOperand(2)->getType()->isTile())
      Vec = std::min<int64_t>(Vec, AI.get(I.getOperand(2)).Constancy[Fast]);
    Vec = std::max<int64_t>(Vec, 1);
  }
  AccessPlan Plan;
  Plan.Vec = static_cast<unsigned>(Vec);
  Plan.VecDim = Fast;
  Plan.Order = Order;
  Plan.Layout = blocked(
      S, std::max(Plan.Vec, wordRunOfNarrowAccess(I, P.Contiguity[Fast], Vec, ElemBytes)), Order);
  // A pointer tile whose type names its layout is accessed in that layout,
  // vectorized as far as its registers run along the contiguous dimension.
  if (std::optional<LinearLayout> Typed = typedLayout(Ptr)) {
    Plan.Vec = runAlong(*Typed, "register", Fast, 1, Plan.Vec);
    Plan.Layout = std::move(*Typed);
  }
  return Plan;
}

void LayoutAssignment::writeInValueLayout(const Instruction &I, const AxisInfoAnalysis &AI) {
  Opcode Op = I.getOpcode();
  if (Op != Opcode::Store && Op != Opcode::MaskedStore && (Op != Opcode::AtomicRMW || I.hasUses()))
    return;
  auto PlanIt = Accesses.find(&I);
  auto Value = Layouts.find(I.getOperand(1));
  const ir::Value *Ptr = I.getOperand(0);
  if (PlanIt == Accesses.end() || Value == Layouts.end() || typedLayout(Ptr))
    return;
  AccessPlan &Plan = PlanIt->second;
  const LinearLayout &L = Value->second;
  // The pointers and the mask are computed where they are used (rematerialized),
  // so only the value would have moved; and no element may be written (added)
  // by two threads.
  for (unsigned K = 0; K < I.getNumOperands(); ++K)
    if (K != 1 && Layouts.count(I.getOperand(K)))
      return;
  if (L == Plan.Layout || !L.isInjective())
    return;
  unsigned Fast = Plan.VecDim;
  int64_t VecBytes = Plan.Vec * Ptr->getType()->getPointee()->getScalarSizeInBytes();
  unsigned SectorVectors = static_cast<unsigned>(std::max<int64_t>(1, 32 / VecBytes));
  if (runAlong(L, "register", Fast, 1, Plan.Vec) != Plan.Vec ||
      runAlong(L, "lane", Fast, Plan.Vec, SectorVectors) != SectorVectors ||
      Plan.Vec * SectorVectors > AI.get(Ptr).Contiguity[Fast])
    return;
  Plan.Layout = L;
  if (Op == Opcode::AtomicRMW)
    Layouts[&I] = L;
}

std::optional<LinearLayout> typedLayout(const ir::Value *V) {
  if (!V->getType()->isTile() || !V->getType()->getLayout())
    return std::nullopt;
  return toLinearLayout(V->getType());
}

/// Whether Before runs before At wherever both run, with a scalar atomic in
/// between: every thread meets at the barriers around one (the back end's
/// lowering), so accesses on either side are ordered across threads. Before and the atomic
/// are in one block, Before first; the atomic's block dominates At's (or At
/// follows it in the block); and At's block never leads back to Before's.
static bool orderedByScalarAtomic(const Instruction &Before, const Instruction &At,
                                  const ir::DominatorTree &DT) {
  const ir::BasicBlock *Home = Before.getParent();
  const Instruction *Atomic = nullptr;
  bool After = false;
  for (const auto &I : Home->instructions()) {
    if (I.get() == &Before)
      After = true;
    else if (After && I->getCategory() == OpCategory::Atomic &&
             !I->getOperand(0)->getType()->isTile())
      Atomic = Atomic ? Atomic : I.get();
  }
  return Atomic && DT.dominates(Atomic, &At) && !At.getParent()->leadsTo(Home);
}

/// Whether Load may take another layout than the program's other accesses
/// of its memory (see widenConversionCopy): each is ordered before it by a
/// scalar atomic, or is a plain store through the same pointer tile after it
/// (added to Followers, to take the load's layout: each thread then writes
/// the elements it read). Writes through other bases must not alias it.
static bool loadMayChangeLayout(const Instruction &Load, const Instruction &Store,
                                const ir::DominatorTree &DT,
                                std::vector<const Instruction *> &Followers) {
  const ir::Argument *Base = pointerBase(Load.getOperand(0));
  if (!Base)
    return false;
  for (const auto &BB : Load.getParent()->getParent()->blocks())
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      if (&I == &Load || &I == &Store || I.isTerminator() || !I.accessesMemory())
        continue;
      const ir::Argument *Other = pointerBase(I.getOperand(0));
      bool Writes = I.hasSideEffects();
      if (Other && Other != Base && (!Writes || !parametersMayOverlap(Other, Base)))
        continue;
      if (!Other)
        return false;
      bool SameTile = I.getOperand(0) == Load.getOperand(0) &&
                      (I.getOpcode() == Opcode::Store || I.getOpcode() == Opcode::MaskedStore) &&
                      DT.dominates(&Load, &I);
      if (SameTile)
        Followers.push_back(&I);
      else if (Other != Base || !orderedByScalarAtomic(I, Load, DT))
        return false;
    }
  return true;
}

void LayoutAssignment::widenConversionCopy(const Instruction &Store) {
  if (Store.getOpcode() != Opcode::Store && Store.getOpcode() != Opcode::MaskedStore)
    return;
  auto StoreIt = Accesses.find(&Store);
  if (StoreIt == Accesses.end())
    return;
  // The stored value: a load, through casts that nothing else uses.
  const ir::Value *V = Store.getOperand(1);
  const Instruction *Load = ir::asInstruction(const_cast<ir::Value *>(V));
  while (Load && Load->getCategory() == OpCategory::Cast && Load->users().size() == 1) {
    V = Load->getOperand(0);
    Load = ir::asInstruction(const_cast<ir::Value *>(V));
  }
  if (!Load || (Load->getOpcode() != Opcode::Load && Load->getOpcode() != Opcode::MaskedLoad) ||
      Load->users().size() != 1 || Load == Store.getOperand(1))
    return;
  auto LoadIt = Accesses.find(Load);
  if (LoadIt == Accesses.end())
    return;
  AccessPlan &LoadPlan = LoadIt->second, &StorePlan = StoreIt->second;
  const ir::Shape &S = Load->getType()->getShape();
  if (LoadPlan.Vec == StorePlan.Vec || LoadPlan.Order != StorePlan.Order ||
      S != Store.getOperand(1)->getType()->getShape())
    return;
  // A copy between element types of different widths (`*pc = *pw`, float to
  // half): each side vectorizes to 16 bytes, so their runs per thread
  // differ and the value would go through shared memory in between. Both
  // take the longer run instead; the narrower access then makes several
  // vectors of each run. Not where something else may write what the load
  // reads (loadMayChangeLayout): the load's elements would then belong to
  // other threads than that write's, and the back end would order the two
  // with a barrier (GlobalOrdering.cpp). Before that ordering existed, the
  // covariance's last slice read its workspace while other threads of the
  // program already cleared it: `*pc = *pp; *pp = 0;`.
  std::vector<const Instruction *> Followers;
  if (!DT || !loadMayChangeLayout(*Load, Store, *DT, Followers))
    return;
  LinearLayout Wide = blocked(S, std::max(LoadPlan.Vec, StorePlan.Vec), LoadPlan.Order);
  for (const Instruction *F : Followers)
    Accesses.at(F).Layout = Wide;
  LoadPlan.Layout = Wide;
  StorePlan.Layout = std::move(Wide);
}

/// Why planDot does not use wgmma for a dot of these types and shape.
static std::string whyNotWgmma(bool Half, bool F32Acc, unsigned NumWarps, int64_t M, int64_t N,
                               int64_t K) {
  if (!Half)
    return "its operands are not both f16 or both bf16";
  if (!F32Acc)
    return "its accumulator is not f32";
  if (NumWarps % 4 != 0)
    return "num_warps = " + std::to_string(NumWarps) + " is not a multiple of 4 (a warpgroup)";
  if (M % 64 != 0)
    return "M = " + std::to_string(M) + " is not a multiple of 64";
  if (N % 8 != 0)
    return "N = " + std::to_string(N) + " is not a multiple of 8";
  if (K % 16 != 0)
    return "K = " + std::to_string(K) + " is not a multiple of 16";
  return "N = " + std::to_string(N) + " is too narrow for " + std::to_string(NumWarps / 4) +
         " warpgroups (each needs 8 columns)";
}

/// Why planDot does not use mma.sync for a dot of these types and shape.
static std::string whyNotMma(bool Half, bool F32In, bool AllowTF32, bool F32Acc, int64_t M,
                             int64_t N, int64_t K) {
  if (F32In && !AllowTF32)
    return "f32 operands use tensor cores only with --allow-tf32 (allow_tf32=True)";
  if (!Half && !F32In)
    return "its operands are not both f16, both bf16 or (with --allow-tf32) both f32";
  if (!F32Acc)
    return "its accumulator is not f32";
  if (M % 16 != 0)
    return "M = " + std::to_string(M) + " is not a multiple of 16";
  if (N % 8 != 0)
    return "N = " + std::to_string(N) + " is not a multiple of 8";
  return "K = " + std::to_string(K) + " is not a multiple of " + (Half ? "16" : "8");
}

DotPlan planDot(const Instruction &I, unsigned NumWarps, bool HasMmaV2, bool AllowTF32,
                bool HasWgmma) {
  DotPlan Plan;
  const ir::Type *A = I.getOperand(0)->getType();
  const ir::Type *C = I.getType();
  int64_t M = C->getShape()[0], N = C->getShape()[1], K = A->getShape()[1];
  ir::FloatKind AK = A->isFloatOrFloatTile() ? A->getFloatKind() : ir::FloatKind::F64;
  bool Half = A->isFloatOrFloatTile() && (AK == ir::FloatKind::F16 || AK == ir::FloatKind::BF16) &&
              I.getOperand(1)->getType()->getScalarType() == A->getScalarType();
  bool F32Acc = C->isFloatOrFloatTile() && C->getFloatKind() == ir::FloatKind::F32;
  bool F32In = A->isFloatOrFloatTile() && AK == ir::FloatKind::F32 &&
               I.getOperand(1)->getType()->getScalarType() == A->getScalarType();
  if (HasWgmma && Half && F32Acc && NumWarps % 4 == 0 && M % 64 == 0 && N % 8 == 0 && K % 16 == 0) {
    // Warpgroups go along M while each keeps at least 64 rows, the rest along
    // N; each instruction covers up to 256 columns of its group's share.
    int32_t Groups = static_cast<int32_t>(NumWarps / 4);
    int32_t Gm = static_cast<int32_t>(std::min<int64_t>(Groups, M / 64));
    int32_t Gn = Groups / Gm;
    if (N / Gn >= 8) {
      Plan.Kind = DotKind::Wgmma;
      Plan.WarpsPerCTA = {Gm, Gn};
      Plan.InstrN = static_cast<int32_t>(std::min<int64_t>(256, N / Gn));
      return Plan;
    }
  }
  if (HasWgmma)
    Plan.Declined = "not wgmma: " + whyNotWgmma(Half, F32Acc, NumWarps, M, N, K);
  if (HasMmaV2 && Half && F32Acc && M % 16 == 0 && N % 8 == 0 && K % 16 == 0)
    Plan.Kind = DotKind::MmaV2;
  else if (HasMmaV2 && AllowTF32 && F32In && F32Acc && M % 16 == 0 && N % 8 == 0 && K % 8 == 0)
    Plan.Kind = DotKind::MmaTF32;
  else {
    if (HasMmaV2)
      Plan.Declined += (Plan.Declined.empty() ? "" : "; ") + std::string("not mma.sync: ") +
                       whyNotMma(Half, F32In, AllowTF32, F32Acc, M, N, K);
    return Plan;
  }
  int32_t Wm = 1, Wn = 1;
  for (unsigned W = NumWarps; W > 1; W /= 2) {
    int64_t TilesM = M / 16 / Wm, TilesN = N / 8 / Wn;
    if (TilesM >= TilesN && TilesM > 1)
      Wm *= 2;
    else if (TilesN > 1)
      Wn *= 2;
    else
      Wm *= 2; // More warps than tiles: the extra warps repeat the work.
  }
  Plan.WarpsPerCTA = {Wm, Wn};
  return Plan;
}

bool fmaDotHasFourByFourBlocks(const Instruction &I, unsigned NumWarps) {
  // f32 FMA dots big enough for whole lane tiles: 4 x 4 blocks per thread.
  const ir::Type *T = I.getType();
  const ir::Type *AIn = I.getOperand(0)->getType(), *BIn = I.getOperand(1)->getType();
  bool F32 = T->getScalarType()->getKind() == ir::TypeKind::Float &&
             T->getFloatKind() == ir::FloatKind::F32 &&
             AIn->getScalarType() == T->getScalarType() &&
             BIn->getScalarType() == T->getScalarType();
  return F32 && T->getRank() == 2 && T->getShape()[0] >= 16 * static_cast<int64_t>(NumWarps) &&
         T->getShape()[1] >= 32;
}

std::optional<LinearLayout> LayoutAssignment::demandedLayout(const ir::Value *V,
                                                             unsigned Levels) const {
  // The answer depends on V and the levels left only; users fan out, so
  // without remembering it a deep search would revisit shared users.
  auto Key = std::make_pair(V, Levels);
  if (auto It = DemandCache.find(Key); It != DemandCache.end())
    return It->second;
  std::optional<LinearLayout> L = searchDemandedLayout(V, Levels);
  DemandCache.emplace(Key, L);
  return L;
}

std::optional<LinearLayout> LayoutAssignment::searchDemandedLayout(const ir::Value *V,
                                                                   unsigned Levels) const {
  // A memory access using V directly decides, or a conversion to the layout
  // one needs (`coalesce` converts an access's operands to its layout).
  for (const Instruction *U : V->users()) {
    if (auto A = Accesses.find(U);
        A != Accesses.end() &&
        U->getOperand(pointerOperandIndex(*U))->getType()->getShape() == V->getType()->getShape())
      return A->second.Layout;
    if (U->getOpcode() == Opcode::ConvertLayout)
      if (std::optional<LinearLayout> Typed = typedLayout(U))
        return Typed;
  }
  if (Levels == 0)
    return std::nullopt;
  unsigned Below = Levels - 1;
  // Otherwise look through element-wise users and relabelings (not phis:
  // they are the loop itself).
  for (const Instruction *U : V->users()) {
    if (!isTileValue(U) || U->getOpcode() == Opcode::Phi)
      continue;
    switch (U->getOpcode()) {
    case Opcode::Reshape:
      if (auto L = demandedLayout(U, Below))
        return reshapeLayout(*L, V->getType()->getShape());
      break;
    case Opcode::Broadcast:
      if (auto L = demandedLayout(U, Below))
        return broadcastOperandLayout(*L, V->getType()->getShape()).removeZeroBases("register");
      break;
    case Opcode::Trans:
      if (auto L = demandedLayout(U, Below))
        return transposeLayout(*L);
      break;
    default:
      if (U->getCategory() == OpCategory::Binary || U->getCategory() == OpCategory::Cmp ||
          U->getCategory() == OpCategory::Cast || U->getOpcode() == Opcode::Select ||
          U->getOpcode() == Opcode::GEP || U->getOpcode() == Opcode::ConvertLayout)
        if (auto L = demandedLayout(U, Below))
          return L;
      break;
    }
  }
  return std::nullopt;
}

std::optional<LinearLayout> LayoutAssignment::derive(const Instruction &I) const {
  const ir::Type *T = I.getType();
  auto LayoutOfOperand = [&](unsigned Op) -> std::optional<LinearLayout> {
    auto It = Layouts.find(I.getOperand(Op));
    if (It == Layouts.end())
      return std::nullopt;
    return It->second;
  };
  // Loads, atomics, dots and reductions produce the layout their lowering
  // computes in (a layout their type names is a hint: users convert).
  bool ProducesOwn =
      I.accessesMemory() || I.getOpcode() == Opcode::Dot || I.getOpcode() == Opcode::Reduce;
  if (std::optional<LinearLayout> Typed = typedLayout(&I); Typed && !ProducesOwn)
    return Typed;
  switch (I.getOpcode()) {
  case Opcode::Load:
  case Opcode::MaskedLoad:
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW:
    return Accesses.at(&I).Layout;
  case Opcode::Dot: {
    const DotPlan &Plan = Dots.at(&I);
    if (Plan.Kind == DotKind::Wgmma)
      return wgmmaAccumulatorLayout(T->getShape(), Plan.InstrN, Plan.WarpsPerCTA);
    if (Plan.Kind != DotKind::FMA) // m16n8k16 and m16n8k8 share the C fragment
      return mmaV2AccumulatorLayout(T->getShape(), Plan.WarpsPerCTA);
    if (fmaDotHasFourByFourBlocks(I, NumWarps))
      return fmaAccumulatorLayout(T->getShape(), static_cast<int32_t>(NumWarps));
    return defaultLayout(T->getShape());
  }
  case Opcode::Reduce: {
    std::optional<LinearLayout> In = LayoutOfOperand(0);
    LinearLayout Src = In ? *In : defaultLayout(I.getOperand(0)->getType()->getShape());
    return sliceLayout(Src, static_cast<unsigned>(I.Axis));
  }
  case Opcode::Reshape:
    if (auto In = LayoutOfOperand(0))
      return reshapeLayout(*In, T->getShape());
    return defaultLayout(T->getShape());
  case Opcode::Trans:
    if (auto In = LayoutOfOperand(0))
      return transposeLayout(*In);
    return defaultLayout(T->getShape());
  case Opcode::Broadcast:
    if (auto In = LayoutOfOperand(0))
      return broadcastResultLayout(*In, T->getShape());
    return defaultLayout(T->getShape());
  case Opcode::ExtractSlice:
    if (auto In = LayoutOfOperand(0))
      if (std::optional<LinearLayout> W = windowLayout(*In, T->getShape()))
        return W;
    return defaultLayout(T->getShape());
  case Opcode::LocalLoad:
    // Reading shared memory costs the same in any layout: take the one a
    // global access of the value wants.
    if (auto L = demandedLayout(&I, AccessDemandLevels))
      return L;
    return defaultLayout(T->getShape());
  case Opcode::Phi:
    // Values coming around a loop's back edge first: a conversion, if one is
    // needed, then happens once on entry instead of on every iteration.
    for (bool BackEdges : {true, false})
      for (unsigned Op = 0; Op < I.getNumOperands(); ++Op) {
        bool IsBackEdge = DT && DT->dominates(I.getParent(), I.getIncomingBlock(Op));
        if (IsBackEdge != BackEdges)
          continue;
        if (auto In = LayoutOfOperand(Op); In && !isRematerializable(I.getOperand(Op)))
          return In;
      }
    return std::nullopt; // Decided in a later sweep, or defaulted.
  default:
    // Index arithmetic that is not rematerialized (a division, or a value
    // computed from one, a load or a loop-carried tile) is computed in the
    // layout the memory access it feeds needs: the conv's row decomposition
    // (`rm / Q`, `rm % Q`) then builds A's pointer tile and mask where the
    // copy wants them, and what moves between threads, if anything, is the
    // narrow operand where another use needs another layout, not the
    // address tile every iteration.
    if (isIndexArithmetic(I))
      if (auto L = demandedLayout(&I, IndexDemandLevels))
        return L;
    for (unsigned Op = 0; Op < I.getNumOperands(); ++Op)
      if (I.getOperand(Op)->getType()->isTile())
        if (auto In = LayoutOfOperand(Op))
          return In;
    return defaultLayout(T->getShape());
  }
}

void LayoutAssignment::assign(const ir::Function &F, const AxisInfoAnalysis &AI) {
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      for (const ir::Value *Op : I.operands())
        if (Op->getType()->isTile())
          for (int64_t D : Op->getType()->getShape())
            if (D <= 0 || (D & (D - 1)))
              reportInternalError("layout assignment: tile dimension is not a power of two");
      if ((I.accessesMemory() || I.getOpcode() == Opcode::CpAsync) &&
          I.getOperand(pointerOperandIndex(I))->getType()->isTile())
        Accesses.emplace(&I, planAccess(I, AI));
      else if (I.getOpcode() == Opcode::Dot)
        Dots.emplace(&I, planDot(I, NumWarps, HasMmaV2, AllowTF32, HasWgmma));
    }
  ir::DominatorTree Dom(F);
  DT = &Dom;
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions())
      widenConversionCopy(*IP);

  // Rematerializable and recomputable values (Rematerialization.h).
  Remats = Rematerialization(Dom);

  // Loop-carried index and pointer tiles (phis of rematerializable values
  // and of themselves, like `pa += TK`) take the layout of the memory access
  // they feed, so they never move between threads inside the loop.
  for (const ir::BasicBlock *BB : Dom.reversePostOrder())
    for (const auto &IP : BB->instructions())
      if (IP->getOpcode() == Opcode::Phi && isTileValue(IP.get()) &&
          (IP->getType()->isIntOrIntTile() || IP->getType()->isPointerOrPointerTile()))
        if (std::optional<LinearLayout> L = typedLayout(IP.get())
                                                ? typedLayout(IP.get())
                                                : demandedLayout(IP.get(), AccessDemandLevels))
          Layouts.emplace(IP.get(), std::move(*L));

  // Layouts of the other tile values; phis need the layouts of their
  // back-edge operands, so sweep until nothing changes.
  for (unsigned Sweep = 0; Sweep < 8; ++Sweep) {
    bool Changed = false;
    for (const ir::BasicBlock *BB : Dom.reversePostOrder())
      for (const auto &IP : BB->instructions()) {
        const Instruction &I = *IP;
        if (!isTileValue(&I) || isRematerializable(&I))
          continue;
        std::optional<LinearLayout> L = derive(I);
        if (!L)
          continue;
        auto It = Layouts.find(&I);
        if (It == Layouts.end()) {
          Layouts.emplace(&I, std::move(*L));
          Changed = true;
        } else if (!(It->second == *L) && I.getOpcode() != Opcode::Phi) {
          It->second = std::move(*L);
          Changed = true;
        }
      }
    if (!Changed)
      break;
  }
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions())
      if (isTileValue(IP.get()) && !isRematerializable(IP.get()) && !Layouts.count(IP.get()))
        Layouts.emplace(IP.get(), defaultLayout(IP->getType()->getShape()));
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions())
      writeInValueLayout(*IP, AI);
  DT = nullptr;
  DemandCache.clear();
  for (const auto &[V, L] : Layouts)
    if (!hasDistinctPowerOfTwoBases(L))
      reportInternalError("layout assignment: a layout has overlapping bases:\n" + L.str());
}

std::string compactLayoutString(const LinearLayout &L) {
  std::string Out;
  for (const LinearLayout::InDim &In : L.getInDims()) {
    Out += (Out.empty() ? "" : " ") + In.Name + "=[";
    for (size_t I = 0; I < In.Bases.size(); ++I) {
      Out += I ? ",[" : "[";
      for (size_t D = 0; D < In.Bases[I].size(); ++D)
        Out += (D ? "," : "") + std::to_string(In.Bases[I][D]);
      Out += "]";
    }
    Out += "]";
  }
  Out += " shape=[";
  for (size_t D = 0; D < L.getOutDims().size(); ++D)
    Out += (D ? "," : "") + std::to_string(L.getOutDims()[D].Size);
  return Out + "]";
}

std::string LayoutAssignment::describe(const ir::Function &F) const {
  std::string Out;
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      std::string Name =
          I.getType()->isVoid() ? std::string(ir::opcodeName(I.getOpcode())) : ir::printOperand(I);
      auto A = Accesses.find(&I);
      if (A != Accesses.end())
        Out += "; access " + Name + ": vec=" + std::to_string(A->second.Vec) +
               " dim=" + std::to_string(A->second.VecDim) + " " +
               compactLayoutString(A->second.Layout) + "\n";
      auto D = Dots.find(&I);
      if (D != Dots.end()) {
        Out += "; dot " + Name + ": ";
        if (D->second.Kind == DotKind::Wgmma)
          Out += "wgmma m64n" + std::to_string(D->second.InstrN) + "k16 warpgroups=[" +
                 std::to_string(D->second.WarpsPerCTA[0]) + "," +
                 std::to_string(D->second.WarpsPerCTA[1]) + "]\n";
        else if (D->second.Kind != DotKind::FMA)
          Out += std::string(D->second.Kind == DotKind::MmaV2 ? "mma.sync m16n8k16"
                                                              : "mma.sync m16n8k8 tf32") +
                 " warps=[" + std::to_string(D->second.WarpsPerCTA[0]) + "," +
                 std::to_string(D->second.WarpsPerCTA[1]) + "]\n";
        else
          Out += "fma\n";
      }
      if (!isTileValue(&I) || A != Accesses.end())
        continue;
      Out += "; layout " + Name + ": " +
             (isRematerializable(&I) ? std::string("rematerialized")
                                     : compactLayoutString(layoutOf(&I))) +
             "\n";
    }
  return Out;
}

} // namespace tritonc::analysis
