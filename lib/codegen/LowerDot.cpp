//===- LowerDot.cpp - dot on FMA units and on tensor cores ----------------===//
//
// Both paths stage the operands in shared memory, row-major: A [M, K] at
// offset 0, B [K, N] after it (16-byte aligned).
//
// FMA path (any float type): each thread owns accumulator elements of a
// blocked layout; for every k it reads A[m, k] for its distinct rows and
// B[k, n] for its distinct columns and issues one fma per element, so every
// element sums over k in order. In f32 with 4 x 4 blocks per thread, A is
// stored transposed and both are read in 16-byte vectors; operands in
// async-rings' plain slots (A column-major, B row-major) are read from
// their slots directly.
//
// TF32 path (opt-in, f32 inputs): the same accumulator layout with
// mma.sync m16n8k8 on operands rounded to tf32 (cvt.rna), read from shared
// memory element by element (ldmatrix moves 16-bit units).
//
// mma.sync path (f16/bf16 inputs, f32 accumulator, sm_80+): the accumulator
// has the m16n8k16 C-fragment layout; per 16x16 block of A a warp loads its
// fragment with one `ldmatrix.x4` (lane l gives the address of row
// (l % 8) + 8 ((l / 8) % 2), column 8 (l / 16) of the block), per 16x8 block
// of B with one `ldmatrix.x2.trans` (B is stored k-major, the fragment wants
// it n-major), then issues `mma.sync.m16n8k16.row.col`.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

namespace tritonc::codegen {

using ir::Instruction;

namespace {

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

/// L with the lane bases zeroed: its thread coordinates are the warp's part.
LinearLayout warpPart(const LinearLayout &L) {
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  for (LinearLayout::InDim &In : Ins)
    if (In.Name == "lane")
      for (LinearLayout::Basis &B : In.Bases)
        std::fill(B.begin(), B.end(), 0);
  return LinearLayout(std::move(Ins), L.getOutDims());
}

/// True when the first register bits of L give each thread 4 x 4 blocks
/// (fmaAccumulatorLayout): columns +1, +2, then rows +1, +2.
bool hasFourByFourBlocks(const LinearLayout &L) {
  if (L.getInDimSizeLog2("register") < 4)
    return false;
  const std::vector<std::vector<int32_t>> Want = {{0, 1}, {0, 2}, {1, 0}, {2, 0}};
  for (int32_t Bit = 0; Bit < 4; ++Bit)
    if (L.getBasis("register", Bit) != Want[Bit])
      return false;
  return true;
}

} // namespace

bool FunctionLowering::isVectorizedFmaDot(const Instruction &Dot) const {
  auto IsF32 = [](const ir::Value *V) {
    const ir::Type *T = V->getType()->getScalarType();
    return T->getKind() == ir::TypeKind::Float && ptxTypeOf(T) == Ty::F32;
  };
  return LA.dotOf(&Dot).Kind == DotKind::FMA && hasFourByFourBlocks(LA.layoutOf(&Dot)) &&
         IsF32(Dot.getOperand(0)) && IsF32(Dot.getOperand(1)) && IsF32(&Dot);
}

void FunctionLowering::remarkDots() {
  if (!wantsRemark(RemarkKind::Missed, "dot") && !wantsRemark(RemarkKind::Passed, "dot"))
    return;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() != ir::Opcode::Dot)
        continue;
      const analysis::DotPlan &Plan = LA.dotOf(I.get());
      std::string How;
      switch (Plan.Kind) {
      case DotKind::Wgmma:
        How = "wgmma (m64n" + std::to_string(Plan.InstrN) + "k16, " +
              std::to_string(Plan.WarpsPerCTA[0] * Plan.WarpsPerCTA[1]) + " warpgroup" +
              (Plan.WarpsPerCTA[0] * Plan.WarpsPerCTA[1] == 1 ? "" : "s") + ")";
        break;
      case DotKind::MmaV2:
        How = "mma.sync (m16n8k16)";
        break;
      case DotKind::MmaTF32:
        How = "mma.sync on tf32-rounded inputs (m16n8k8)";
        break;
      case DotKind::FMA:
        How = isVectorizedFmaDot(*I) ? "FMA units, operands vectorized from shared memory"
                                     : "FMA units";
        break;
      }
      if (Plan.Declined.empty())
        remark(RemarkKind::Passed, "dot", *I, "dot computed with " + How);
      else
        remark(RemarkKind::Missed, "dot", *I, "dot computed with " + How + ", " + Plan.Declined);
    }
}

void FunctionLowering::lowerDotFmaVectorized(const Instruction &I) {
  const ir::Value *A = I.getOperand(0), *Bv = I.getOperand(1), *Acc = I.getOperand(2);
  const ir::Shape &AS = A->getType()->getShape(), &BS = Bv->getType()->getShape();
  int64_t M = AS[0], K = AS[1];
  const LinearLayout &C = LA.layoutOf(&I);
  Regs AccIn = get(Acc, C);
  // A sits in shared memory transposed ([K, M]) so that a thread's 4
  // consecutive rows are one 16-byte vector, like its 4 columns of B.
  // Operands that GPU-level IR loaded from slots in this form (async-rings:
  // A column-major, B row-major) are read there; the others are staged from
  // registers.
  std::optional<std::pair<Reg, int64_t>> ARing, BRing;
  // A in a swizzled column-major slot (async-rings' slot for an A loaded
  // along K) is read through its layout (ASlotAt).
  const ir::Value *ASwizzled = nullptr;
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    std::optional<std::pair<Reg, int64_t>> &Ring = Idx ? BRing : ARing;
    std::string Why, WhyNotSwizzled;
    if (auto Slot = dotSlotOperand(I, Idx, Why))
      Ring = std::make_pair(Values.at(Slot->first)[0], Slot->second);
    else if (Idx == 0 && (ASwizzled = swizzledColumnSlotOperand(I, WhyNotSwizzled)))
      Ring = std::make_pair(Values.at(ASwizzled)[0], int64_t(0));
    else
      remarkSlotStaged(I, Idx, Why);
  }
  ir::Shape ATShape = {K, M};
  int64_t SAT = ARing ? ARing->second : sharedTileStrides(ATShape, 4)[0];
  int64_t SB = BRing ? BRing->second : sharedTileStrides(BS, 4)[0];
  uint64_t OffB = 0; // of staged B in the scratch space
  if (!ARing || !BRing) {
    OffB = ARing || BRing ? 0 : alignTo(sharedTileBytes(ATShape, 4), 16);
    uint64_t Total = OffB + (BRing ? 0 : sharedTileBytes(BS, 4));
    B.comment("dot operands to shared memory (A transposed)");
    sharedAccess(true, Total);
    if (!ARing) {
      LinearLayout AL = operandLayout(A);
      storeTileToShared(get(A, AL), A->getType()->getScalarType(), ATShape, transposeLayout(AL), 0);
    }
    if (!BRing)
      storeTileToShared(get(Bv, operandLayout(Bv)), Bv->getType()->getScalarType(), BS,
                        operandLayout(Bv), OffB);
    sharedAccess(false, Total);
  }

  const Regs &Coords = threadCoords(C);
  SlotAddresser ASlotAt;
  if (ASwizzled) {
    // The thread's rows: the bits its lanes and warps give dimension 0.
    uint64_t RowBits = 0;
    for (const char *Dim : {"lane", "warp"})
      for (int32_t Bit = 0; Bit < C.getInDimSizeLog2(Dim); ++Bit)
        RowBits |= static_cast<uint64_t>(C.getBasis(Dim, Bit)[0]);
    Reg NoColumn;
    {
      auto P = B.prologue();
      NoColumn = B.mov(Ty::U32, 0);
    }
    ASlotAt = slotAddresser(ASwizzled, Coords[0], RowBits, NoColumn, 0);
  }
  Reg ABase = B.madLo(Ty::U32, Coords[0], 4, ARing ? ARing->first : sharedBase());
  Reg BBase = B.madLo(Ty::U32, Coords[1], 4, BRing ? BRing->first : sharedBase());
  int32_t NumRegs = numRegisters(C);
  std::vector<bool> Dup = duplicateRegisters(C);
  std::set<int64_t> RowGroups, ColGroups;
  for (int32_t R = 0; R < NumRegs; ++R)
    if (!Dup[R]) {
      std::vector<int64_t> Co = registerCoords(C, R);
      RowGroups.insert(Co[0] & ~int64_t(3));
      ColGroups.insert(Co[1] & ~int64_t(3));
    }
  Regs Out(NumRegs);
  for (int32_t R = 0; R < NumRegs; ++R)
    Out[R] = B.mov(Ty::F32, AccIn[R]);
  // The fma order: column by column, rows ascending in even columns and
  // descending in odd ones, so that consecutive fmas share their B operand
  // (and, at a column change, their A operand): ptxas then marks more
  // operands for its reuse cache and the FMA pipe waits less on register
  // reads (measured: 42.4 -> 45.2 TFLOP/s at 256x128x8 on an H100, where the
  // row-major order of the layout and a CUTLASS-like 2 x 2 zig-zag give 42.5).
  std::map<std::pair<int64_t, int64_t>, int32_t> ByColumn;
  for (int32_t R = 0; R < NumRegs; ++R)
    if (!Dup[R]) {
      std::vector<int64_t> Co = registerCoords(C, R);
      ByColumn[{Co[1], Co[0]}] = R;
    }
  struct Element {
    int32_t R;
    int64_t Row, Col;
  };
  std::vector<Element> Order;
  bool Descending = false;
  for (auto It = ByColumn.begin(); It != ByColumn.end(); Descending = !Descending) {
    auto ColumnEnd = ByColumn.upper_bound({It->first.first, INT64_MAX});
    auto Start = static_cast<std::ptrdiff_t>(Order.size());
    for (; It != ColumnEnd; ++It)
      Order.push_back({It->second, It->first.second, It->first.first});
    if (Descending)
      std::reverse(Order.begin() + Start, Order.end());
  }
  // Every element sums over k in order, as on the other paths.
  for (int64_t Kk = 0; Kk < K; ++Kk) {
    std::map<int64_t, Regs> AV, BV;
    for (int64_t Row : RowGroups) {
      if (ASlotAt) {
        auto [Base, Offset] = ASlotAt(Row, Kk);
        AV[Row] = B.ldShared(Ty::F32, 4, Base, Offset);
      } else {
        AV[Row] = B.ldShared(Ty::F32, 4, ABase, (Kk * SAT + Row) * 4);
      }
    }
    for (int64_t Col : ColGroups)
      BV[Col] = B.ldShared(Ty::F32, 4, BBase, static_cast<int64_t>(OffB) + (Kk * SB + Col) * 4);
    for (const Element &E : Order)
      Out[E.R] = B.fma(Ty::F32, AV.at(E.Row & ~int64_t(3))[E.Row & 3],
                       BV.at(E.Col & ~int64_t(3))[E.Col & 3], Out[E.R]);
  }
  fillDuplicateRegisters(C, Out);
  Values[&I] = std::move(Out);
}

LinearLayout FunctionLowering::operandLayout(const ir::Value *V) const {
  return LA.isRematerializable(V) ? LA.defaultLayout(V->getType()->getShape()) : LA.layoutOf(V);
}

void FunctionLowering::lowerDot(const Instruction &I) {
  const ir::Value *A = I.getOperand(0), *Bv = I.getOperand(1), *Acc = I.getOperand(2);
  const ir::Type *AT = A->getType()->getScalarType(), *BT = Bv->getType()->getScalarType();
  const ir::Type *CT = I.getType()->getScalarType();
  if (CT->getKind() != ir::TypeKind::Float || AT->getKind() != ir::TypeKind::Float ||
      BT->getKind() != ir::TypeKind::Float)
    throw UnsupportedConstruct(I.Loc, "dot on integer tiles is not supported by the GPU back end");
  if (LA.dotOf(&I).Kind == DotKind::Wgmma)
    return lowerWgmma(I);
  if (isVectorizedFmaDot(I))
    return lowerDotFmaVectorized(I);
  int64_t K = A->getType()->getShape()[1];
  const LinearLayout &C = LA.layoutOf(&I);
  Regs AccIn = get(Acc, C);

  unsigned ABytes = memBytesOf(AT), BBytes = memBytesOf(BT);
  // Operands that GPU-level IR loaded from slots are read there: by
  // ldmatrix in the slot's own layout (mma.sync), else from row-major slots;
  // the others are staged from registers, with padded row strides
  // (sharedTileStrides). An operand's base is its slot, or scratch (B at
  // OffB). Every path below reads from these.
  std::optional<std::pair<Reg, int64_t>> ARing, BRing;
  DotKind Kind = LA.dotOf(&I).Kind;
  const ir::Value *Slots[2] = {nullptr, nullptr};
  // The dimension of each ldmatrix slot along which its 16-byte chunks run
  // (1: row-major; 0: column-major, e.g. async-rings' `trans` operands).
  unsigned ChunkDims[2] = {1, 1};
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    std::optional<std::pair<Reg, int64_t>> &Ring = Idx ? BRing : ARing;
    std::string Why;
    if (Kind == DotKind::MmaV2) {
      if ((Slots[Idx] = matrixSlotOperand(I, Idx, Why, &ChunkDims[Idx])))
        Ring = std::make_pair(Values.at(Slots[Idx])[0], int64_t(0));
    } else if (Kind == DotKind::MmaTF32) {
      if ((Slots[Idx] = elementSlotOperand(I, Idx, Why)))
        Ring = std::make_pair(Values.at(Slots[Idx])[0], int64_t(0));
    } else if (auto Slot = dotSlotOperand(I, Idx, Why)) {
      Ring = std::make_pair(Values.at(Slot->first)[0], Slot->second);
    }
    if (!Ring)
      remarkSlotStaged(I, Idx, Why);
  }
  int64_t SA = ARing ? ARing->second : sharedTileStrides(A->getType()->getShape(), ABytes)[0];
  int64_t SB = BRing ? BRing->second : sharedTileStrides(Bv->getType()->getShape(), BBytes)[0];
  uint64_t SizeA = ARing ? 0 : sharedTileBytes(A->getType()->getShape(), ABytes);
  uint64_t OffB = BRing ? 0 : alignTo(SizeA, 16);
  uint64_t Total = BRing ? SizeA : OffB + sharedTileBytes(Bv->getType()->getShape(), BBytes);
  Reg ABaseAddr = ARing ? ARing->first : sharedBase();
  Reg BBaseAddr = BRing ? BRing->first : sharedBase();
  if (Total) {
    B.comment("dot operands to shared memory");
    sharedAccess(true, Total);
    if (!ARing) {
      LinearLayout AL = operandLayout(A);
      storeTileToShared(get(A, AL), AT, A->getType()->getShape(), AL, 0);
    }
    if (!BRing) {
      LinearLayout BL = operandLayout(Bv);
      storeTileToShared(get(Bv, BL), BT, Bv->getType()->getShape(), BL, OffB);
    }
    sharedAccess(false, Total);
  }

  int32_t NumRegs = numRegisters(C);
  std::vector<bool> Dup = duplicateRegisters(C);
  Regs Out(NumRegs);
  Ty CPT = ptxTypeOf(CT);

  if (Kind != DotKind::FMA) {
    bool TF32 = Kind == DotKind::MmaTF32;
    Reg LaneR = laneId();
    const Regs &Warp = threadCoords(warpPart(C));
    std::function<std::array<Reg, 4>(int64_t, int64_t)> LoadA;
    std::function<std::array<Reg, 2>(int64_t, int64_t)> LoadB;
    SlotAddresser SlotRows[2];
    if (!TF32) {
      // Lane-dependent parts of the ldmatrix row addresses.
      Reg Row8 = B.bitAnd(Ty::U32, LaneR, 7);
      Reg Half = B.bitAnd(Ty::U32, B.shr(Ty::U32, LaneR, 3), 1);
      Reg LaneRow = B.madLo(Ty::U32, Half, 8, Row8);
      Reg LaneCol = B.mul(Ty::U32, B.shr(Ty::U32, LaneR, 4), 8);
      Reg ARow = B.add(Ty::U32, Warp[0], LaneRow);
      Reg AIdx = B.madLo(Ty::U32, ARow, SA, LaneCol);
      Reg ABase = B.madLo(Ty::U32, AIdx, 2, ABaseAddr);
      Reg BIdx = B.madLo(Ty::U32, LaneRow, SB, Warp[1]);
      Reg BBase = B.madLo(Ty::U32, BIdx, 2, BBaseAddr);
      // Row addresses of ldmatrix: in a padded row-major tile, base plus
      // (row, column) times the strides; in a slot of GPU-level IR, through
      // its #shared layout (slotAddresser).
      if (Slots[0] || Slots[1]) {
        uint64_t WarpBits[2] = {0, 0};
        for (int32_t Bit = 0; Bit < C.getInDimSizeLog2("warp"); ++Bit)
          for (unsigned D = 0; D < 2; ++D)
            WarpBits[D] |= static_cast<uint64_t>(C.getBasis("warp", Bit)[D]);
        // Lane l gives the address of row l % 8 of matrix l / 8. In A's
        // x4 the matrices step M by 8 (bit 3 of l), then K by 8 (bit 4); in
        // B's x2, K by 8 (bit 3). A matrix row is 8 elements of a chunk:
        // along K for row-major A, along M for column-major A (whose
        // matrices `.trans` reads transposed); along N for row-major B
        // (`.trans`), along K for column-major B.
        Reg PRow, PCol, ARowP, Half8, AColMajorRow, AColMajorCol, BColMajorCol;
        {
          auto P = B.prologue();
          PRow = B.madLo(Ty::U32, B.bitAnd(Ty::U32, B.shr(Ty::U32, LaneR, 3), 1), 8,
                         B.bitAnd(Ty::U32, LaneR, 7));
          PCol = B.mul(Ty::U32, B.shr(Ty::U32, LaneR, 4), 8);
          ARowP = B.add(Ty::U32, Warp[0], PRow);
          if (ChunkDims[0] == 0 || ChunkDims[1] == 0) {
            Reg Row8 = B.bitAnd(Ty::U32, LaneR, 7);
            Half8 = B.mul(Ty::U32, B.bitAnd(Ty::U32, B.shr(Ty::U32, LaneR, 3), 1), 8);
            AColMajorRow = B.add(Ty::U32, Warp[0], Half8);
            AColMajorCol = B.add(Ty::U32, PCol, Row8);
            BColMajorCol = B.add(Ty::U32, Warp[1], Row8);
          }
        }
        if (Slots[0])
          SlotRows[0] =
              ChunkDims[0] == 0
                  ? slotAddresser(Slots[0], AColMajorRow, 8 | WarpBits[0], AColMajorCol, 15)
                  : slotAddresser(Slots[0], ARowP, 15 | WarpBits[0], PCol, 8);
        if (Slots[1])
          SlotRows[1] = ChunkDims[1] == 0
                            ? slotAddresser(Slots[1], Half8, 8, BColMajorCol, 7 | WarpBits[1])
                            : slotAddresser(Slots[1], PRow, 15, Warp[1], WarpBits[1]);
      }
      // A fragment register pairs two elements along K (in A's and B's):
      // `.trans` where the slot's chunks run along the other dimension
      // (column-major A, row-major B).
      std::string ATrans = Slots[0] && ChunkDims[0] == 0 ? ".trans" : "";
      std::string BTrans = Slots[1] && ChunkDims[1] == 0 ? "" : ".trans";
      auto Address = [&](const std::pair<Reg, int64_t> &At) {
        return "[" + At.first.name() + "+" + std::to_string(At.second) + "]";
      };
      LoadA = [&, ABase, Address, ATrans](int64_t MT, int64_t K0) {
        std::array<Reg, 4> F;
        for (Reg &R : F)
          R = B.newReg(Ty::B32);
        auto At = SlotRows[0] ? SlotRows[0](MT, K0) : std::make_pair(ABase, (MT * SA + K0) * 2);
        B.emit("ldmatrix.sync.aligned.m8n8.x4" + ATrans + ".shared.b16 {" + F[0].name() + ", " +
               F[1].name() + ", " + F[2].name() + ", " + F[3].name() + "}, " + Address(At) + ";");
        return F;
      };
      LoadB = [&, BBase, Address, BTrans](int64_t NT, int64_t K0) {
        std::array<Reg, 2> F = {B.newReg(Ty::B32), B.newReg(Ty::B32)};
        auto At = SlotRows[1]
                      ? SlotRows[1](K0, NT)
                      : std::make_pair(BBase, static_cast<int64_t>(OffB) + (K0 * SB + NT) * 2);
        B.emit("ldmatrix.sync.aligned.m8n8.x2" + BTrans + ".shared.b16 {" + F[0].name() + ", " +
               F[1].name() + "}, " + Address(At) + ";");
        return F;
      };
    } else {
      // m16n8k8 tf32 fragments, element by element: lane l holds A rows
      // l/4 (+8), columns l%4 (+4), and B rows l%4 (+4), column l/4.
      Reg Group = B.shr(Ty::U32, LaneR, 2);
      Reg Tig = B.bitAnd(Ty::U32, LaneR, 3);
      Reg AIdx = B.madLo(Ty::U32, B.add(Ty::U32, Warp[0], Group), SA, Tig);
      Reg ABase = B.madLo(Ty::U32, AIdx, 4, ABaseAddr);
      Reg BIdx = B.madLo(Ty::U32, Tig, SB, B.add(Ty::U32, Warp[1], Group));
      Reg BBase = B.madLo(Ty::U32, BIdx, 4, BBaseAddr);
      // Slots of GPU-level IR (async-rings swizzles them, so that the 8
      // rows of a fragment fall in different banks) are read through their
      // #shared layout (slotAddresser).
      if (Slots[0] || Slots[1]) {
        uint64_t WarpBits[2] = {0, 0};
        for (int32_t Bit = 0; Bit < C.getInDimSizeLog2("warp"); ++Bit)
          for (unsigned D = 0; D < 2; ++D)
            WarpBits[D] |= static_cast<uint64_t>(C.getBasis("warp", Bit)[D]);
        Reg PGroup, PTig, ARowP, BColP;
        {
          auto P = B.prologue();
          PGroup = B.shr(Ty::U32, LaneR, 2);
          PTig = B.bitAnd(Ty::U32, LaneR, 3);
          ARowP = B.add(Ty::U32, Warp[0], PGroup);
          BColP = B.add(Ty::U32, Warp[1], PGroup);
        }
        if (Slots[0])
          SlotRows[0] = slotAddresser(Slots[0], ARowP, 7 | WarpBits[0], PTig, 3);
        if (Slots[1])
          SlotRows[1] = slotAddresser(Slots[1], PTig, 3, BColP, 7 | WarpBits[1]);
      }
      auto LoadTF32 = [&](const std::pair<Reg, int64_t> &At) {
        Reg X = B.ldShared(Ty::F32, 1, At.first, At.second)[0];
        return B.inst("cvt.rna.tf32.f32", Ty::B32, {X});
      };
      LoadA = [&, ABase, LoadTF32](int64_t MT, int64_t K0) {
        std::array<Reg, 4> F;
        for (int J = 0; J < 4; ++J) {
          int64_t Row = MT + 8 * (J & 1), Col = K0 + 4 * (J >> 1);
          F[J] = LoadTF32(SlotRows[0] ? SlotRows[0](Row, Col)
                                      : std::make_pair(ABase, (Row * SA + Col) * 4));
        }
        return F;
      };
      LoadB = [&, BBase, LoadTF32](int64_t NT, int64_t K0) {
        std::array<Reg, 2> F;
        for (int J = 0; J < 2; ++J) {
          int64_t Row = K0 + 4 * J;
          F[J] = LoadTF32(SlotRows[1] ? SlotRows[1](Row, NT)
                                      : std::make_pair(BBase, static_cast<int64_t>(OffB) +
                                                                  (Row * SB + NT) * 4));
        }
        return F;
      };
    }
    // Accumulator registers by 16x8 tile (register part of the origin) and
    // fragment index c0..c3.
    std::map<std::pair<int64_t, int64_t>, std::array<int32_t, 4>> Tiles;
    for (int32_t R = 0; R < NumRegs; ++R) {
      if (Dup[R])
        continue;
      std::vector<int64_t> Co = registerCoords(C, R);
      int Idx = ((Co[0] & 8) ? 2 : 0) + static_cast<int>(Co[1] & 1);
      Tiles[{Co[0] & ~int64_t(15), Co[1] & ~int64_t(7)}][Idx] = R;
    }
    std::set<int64_t> MTiles, NTiles;
    for (const auto &[Origin, Regs4] : Tiles) {
      MTiles.insert(Origin.first);
      NTiles.insert(Origin.second);
    }
    std::map<std::pair<int64_t, int64_t>, std::array<Reg, 4>> Accs;
    for (const auto &[Origin, Regs4] : Tiles)
      for (int J = 0; J < 4; ++J)
        Accs[Origin][J] = AccIn[Regs4[J]];
    const char *InTy = TF32 ? "tf32" : ptxTypeOf(AT) == Ty::BF16 ? "bf16" : "f16";
    std::string Shape = TF32 ? "m16n8k8" : "m16n8k16";
    for (int64_t K0 = 0; K0 < K; K0 += TF32 ? 8 : 16) {
      std::map<int64_t, std::array<Reg, 4>> AFrag;
      std::map<int64_t, std::array<Reg, 2>> BFrag;
      for (int64_t MT : MTiles)
        AFrag[MT] = LoadA(MT, K0);
      for (int64_t NT : NTiles)
        BFrag[NT] = LoadB(NT, K0);
      for (auto &[Origin, Cs] : Accs) {
        const auto &Af = AFrag.at(Origin.first);
        const auto &Bf = BFrag.at(Origin.second);
        std::array<Reg, 4> D;
        for (Reg &R : D)
          R = B.newReg(Ty::F32);
        B.emit("mma.sync.aligned." + Shape + ".row.col.f32." + InTy + "." + InTy + ".f32 {" +
               D[0].name() + ", " + D[1].name() + ", " + D[2].name() + ", " + D[3].name() + "}, {" +
               Af[0].name() + ", " + Af[1].name() + ", " + Af[2].name() + ", " + Af[3].name() +
               "}, {" + Bf[0].name() + ", " + Bf[1].name() + "}, {" + Cs[0].name() + ", " +
               Cs[1].name() + ", " + Cs[2].name() + ", " + Cs[3].name() + "};");
        Cs = D;
      }
    }
    for (const auto &[Origin, Regs4] : Tiles)
      for (int J = 0; J < 4; ++J)
        Out[Regs4[J]] = Accs[Origin][J];
  } else {
    // FMA: distinct row and column offsets of this thread's registers.
    const Regs &Coords = threadCoords(C);
    std::map<int64_t, int> Rows, Cols;
    for (int32_t R = 0; R < NumRegs; ++R)
      if (!Dup[R]) {
        std::vector<int64_t> Co = registerCoords(C, R);
        Rows.emplace(Co[0], 0);
        Cols.emplace(Co[1], 0);
      }
    Ty APT = ptxTypeOf(AT), BPT = ptxTypeOf(BT);
    bool HalfAcc = CPT == Ty::F16 || CPT == Ty::BF16;
    Ty FmaTy = HalfAcc ? Ty::F32 : CPT;
    auto ToAcc = [&](const Reg &V, const ir::Type *From) -> Reg {
      Ty FT = ptxTypeOf(From);
      if (FT == FmaTy)
        return V;
      if (FmaTy == Ty::F64)
        return B.cvt(Ty::F64, Ty::F32, FT == Ty::F32 ? V : toF32(V, From));
      return FT == Ty::F64 ? B.cvt(Ty::F32, Ty::F64, V) : toF32(V, From);
    };
    Reg ABase = B.madLo(Ty::U32, Coords[0], static_cast<int64_t>(SA * ABytes), ABaseAddr);
    Reg BBase = B.madLo(Ty::U32, Coords[1], static_cast<int64_t>(BBytes), BBaseAddr);
    for (int32_t R = 0; R < NumRegs; ++R)
      Out[R] = HalfAcc ? toF32(AccIn[R], CT) : B.mov(CPT, AccIn[R]);
    for (int64_t Kk = 0; Kk < K; ++Kk) {
      std::map<int64_t, Reg> AV, BVv;
      for (const auto &[Row, Unused] : Rows)
        AV[Row] =
            ToAcc(B.ldShared(moveTypeOf(APT), 1, ABase, (Row * SA + Kk) * ABytes)[0].as(APT), AT);
      for (const auto &[Col, Unused] : Cols)
        BVv[Col] = ToAcc(
            B.ldShared(moveTypeOf(BPT), 1, BBase, OffB + (Kk * SB + Col) * BBytes)[0].as(BPT), BT);
      for (int32_t R = 0; R < NumRegs; ++R) {
        if (Dup[R])
          continue;
        std::vector<int64_t> Co = registerCoords(C, R);
        Out[R] = B.fma(FmaTy, AV.at(Co[0]), BVv.at(Co[1]), Out[R]);
        if (HalfAcc) // the accumulator rounds to its type after every step
          Out[R] = toF32(fromF32(Out[R], CT), CT);
      }
    }
    if (HalfAcc)
      for (int32_t R = 0; R < NumRegs; ++R)
        Out[R] = fromF32(Out[R], CT);
  }
  fillDuplicateRegisters(C, Out);
  Values[&I] = std::move(Out);
}

} // namespace tritonc::codegen
