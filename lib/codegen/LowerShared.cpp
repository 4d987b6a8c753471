//===- LowerShared.cpp - Layout conversions and reductions ----------------===//
//
// Shared memory holds a tile row-major (element (i, j) of an [M, N] tile at
// i * N + j), each row padded by 16 bytes. A conversion stores the tile from
// its source layout (each element once, by its owner) and loads it back in
// the destination layout; the barrier placement puts the barrier between the
// two (RAW) and before the next write of the scratch buffer (WAR) where the
// control flow needs it.
//
// The padding moves consecutive rows 4 banks apart, which serves reads down
// a column 8 rows at a time. A transposing conversion of 16-bit elements
// reads down columns with rows 8 apart (each thread's 16-byte vector of the
// destination is 8 consecutive rows): those rows share a bank, 8 ways. Where
// that costs more, a 2-D power-of-two tile is instead stored unpadded with
// its 16-byte chunks XORed by the row bits that the reading lanes (or the
// writing ones) step through (SwizzledScratch, conversionSwizzle): the lanes
// then reach distinct chunks. The choice counts the bank wavefronts of both
// sides' accesses in each form (accessWavefronts).
//
// A reduction combines, in order: the elements a thread holds in registers,
// then across lanes with butterfly shuffles (every lane ends with the
// result), then across warps through shared memory (one slot per warp along
// the reduced dimension, read back by every thread). The result has the
// slice layout of the operand's layout.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

namespace tritonc::codegen {

using ir::Instruction;
using ptx::Cmp;

namespace {

std::vector<int64_t> rowMajorStrides(const ir::Shape &S) {
  std::vector<int64_t> Strides(S.size(), 1);
  for (size_t D = S.size(); D-- > 1;)
    Strides[D - 1] = Strides[D] * S[D];
  return Strides;
}

} // namespace

/// The byte address of this thread's register 0 of layout L in a row-major
/// tile of shape S at ByteOffset, and the byte offset of each register.
std::vector<int64_t> sharedTileStrides(const ir::Shape &S, unsigned ElemBytes) {
  std::vector<int64_t> Strides(S.size(), 1);
  for (size_t D = S.size(); D-- > 1;)
    Strides[D - 1] = Strides[D] * (D + 1 == S.size() ? S[D] + 16 / ElemBytes : S[D]);
  return Strides;
}

uint64_t sharedTileBytes(const ir::Shape &S, unsigned ElemBytes) {
  if (S.empty())
    return ElemBytes;
  return static_cast<uint64_t>(S[0] * sharedTileStrides(S, ElemBytes)[0]) * ElemBytes;
}

uint64_t SwizzledScratch::offset(int64_t Row, int64_t Col) const {
  uint64_t Off = (static_cast<uint64_t>(Row) << RowShift) + static_cast<uint64_t>(Col) * ElemBytes;
  for (auto [RowBit, OffsetBit] : RowToChunk)
    Off ^= ((static_cast<uint64_t>(Row) >> RowBit) & 1) << OffsetBit;
  return Off;
}

/// Where each register of layout L sits in a scratch tile: a base address
/// register and an immediate offset (both per register).
struct ScratchAddresses {
  Regs Bases;
  std::vector<int64_t> Offsets;
};

static ScratchAddresses sharedAddresses(FunctionLowering &FL, const LinearLayout &L,
                                        const ir::Shape &S, unsigned ElemBytes, uint64_t ByteOffset,
                                        const SwizzledScratch *Swizzle) {
  ptx::PTXFunctionBuilder &B = FL.B;
  const Regs &Coords = FL.threadCoords(L);
  ScratchAddresses Out;
  if (Swizzle) {
    // The offset is linear over GF(2) in the coordinates, so an element's
    // is the thread's XOR the register's. Register bits that the thread's
    // offset never has (ThreadBits) add as immediates; the others select
    // one of a few bases, each the thread's offset XOR those bits.
    Reg Off = B.bitOr(Ty::B32, B.shl(Ty::B32, Coords[0], static_cast<int64_t>(Swizzle->RowShift)),
                      B.mul(Ty::U32, Coords[1], static_cast<int64_t>(ElemBytes)));
    for (auto [RowBit, OffsetBit] : Swizzle->RowToChunk) {
      Reg Bit = B.bitAnd(Ty::B32, B.shr(Ty::U32, Coords[0], static_cast<int64_t>(RowBit)), 1);
      Off = B.bitXor(Ty::B32, Off, B.shl(Ty::B32, Bit, static_cast<int64_t>(OffsetBit)));
    }
    uint64_t ThreadBits = 0;
    for (const char *Dim : {"lane", "warp"})
      for (int32_t Bit = 0; Bit < L.getInDimSizeLog2(Dim); ++Bit) {
        const LinearLayout::Basis &Bs = L.getBasis(Dim, Bit);
        ThreadBits |= Swizzle->offset(Bs[0], Bs[1]);
      }
    Reg Base = B.add(Ty::U32, FL.sharedBase(), static_cast<int64_t>(ByteOffset));
    std::map<uint64_t, Reg> BaseFor;
    for (int32_t R = 0; R < numRegisters(L); ++R) {
      std::vector<int64_t> C = FL.registerCoords(L, R);
      uint64_t RegOff = Swizzle->offset(C[0], C[1]);
      Reg &RB = BaseFor[RegOff & ThreadBits];
      if (!RB.valid())
        RB = B.add(Ty::U32, Base,
                   B.bitXor(Ty::B32, Off, static_cast<int64_t>(RegOff & ThreadBits)).as(Ty::U32));
      Out.Bases.push_back(RB);
      Out.Offsets.push_back(static_cast<int64_t>(RegOff & ~ThreadBits));
    }
    return Out;
  }
  std::vector<int64_t> Strides = sharedTileStrides(S, ElemBytes);
  Reg Index = B.mov(Ty::U32, 0);
  for (size_t D = 0; D < S.size(); ++D)
    Index = B.madLo(Ty::U32, Coords[D], static_cast<int64_t>(Strides[D]), Index);
  Reg Addr = B.madLo(Ty::U32, Index, static_cast<int64_t>(ElemBytes), FL.sharedBase());
  if (ByteOffset)
    Addr = B.add(Ty::U32, Addr, static_cast<int64_t>(ByteOffset));
  for (int32_t R = 0; R < numRegisters(L); ++R) {
    std::vector<int64_t> C = FL.registerCoords(L, R);
    int64_t Off = 0;
    for (size_t D = 0; D < C.size(); ++D)
      Off += C[D] * Strides[D];
    Out.Bases.push_back(Addr);
    Out.Offsets.push_back(Off * ElemBytes);
  }
  return Out;
}

/// How many consecutive registers of L hold consecutive elements of the last
/// (row-major contiguous) dimension, up to 16 bytes: the first register bits
/// must move the last coordinate by 1, 2, 4, ... Because the bases of L are
/// distinct powers of two, every other bit moves that coordinate by a
/// multiple of the width, so each group starts at an aligned address.
unsigned sharedVectorWidth(const LinearLayout &L, unsigned Bytes) {
  size_t Last = L.getOutDims().size() - 1;
  unsigned Width = 1;
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("register"); ++Bit) {
    const LinearLayout::Basis &B = L.getBasis("register", Bit);
    bool Next = B[Last] == static_cast<int32_t>(Width);
    for (size_t D = 0; D < Last; ++D)
      Next = Next && B[D] == 0;
    if (!Next || Width * 2 * Bytes > 16)
      break;
    Width *= 2;
  }
  return Width;
}

/// The registers of one group as words for a vector access: 16-bit values
/// pair up into b32 words.
static std::pair<Ty, unsigned> sharedWords(Ty MT, unsigned Bytes, unsigned Width) {
  if (Bytes == 2 && Width >= 2)
    return {Ty::B32, Width / 2};
  return {MT, Width};
}

void FunctionLowering::storeTileToShared(const PackableRegs &Values, const ir::Type *Elem,
                                         const ir::Shape &S, const LinearLayout &L,
                                         uint64_t ByteOffset, const SwizzledScratch *Swizzle) {
  Ty T = ptxTypeOf(Elem);
  Ty MT = moveTypeOf(T);
  unsigned Bytes = T == Ty::Pred ? 2 : ptx::tyBits(T) / 8;
  auto [Bases, Offsets] = sharedAddresses(*this, L, S, Bytes, ByteOffset, Swizzle);
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  unsigned Width = S.empty() ? 1 : sharedVectorWidth(L, Bytes);
  auto [WordTy, Words] = sharedWords(MT, Bytes, Width);
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += Width) {
    if (Dup[R0])
      continue;
    Regs Packed;
    if (T == Ty::Pred) { // as 16-bit 0 or 1
      Regs Elems;
      for (unsigned K = 0; K < Width; ++K)
        Elems.push_back(predToU16(Values.element(B, static_cast<size_t>(R0 + K))).as(MT));
      for (unsigned W = 0; W < Words; ++W)
        Packed.push_back(WordTy == MT ? Elems[W]
                                      : B.pack2x16(Elems[2 * W], Elems[2 * W + 1], Ty::B32));
    } else if (WordTy == MT) {
      for (unsigned K = 0; K < Width; ++K)
        Packed.push_back(Values.element(B, static_cast<size_t>(R0 + K)).as(MT));
    } else {
      for (unsigned W = 0; W < Words; ++W)
        Packed.push_back(Values.word(B, static_cast<size_t>(R0) + 2 * W));
    }
    std::optional<ptx::Guard> G;
    if (Owner.valid())
      G = ptx::Guard{Owner, false};
    B.stShared(WordTy, Bases[R0], Offsets[R0], Packed, G);
  }
}

/// Loads the registers of layout L from a row-major (or Swizzle) tile at
/// ByteOffset.
static Regs loadTileFromShared(FunctionLowering &FL, const ir::Type *Elem, const ir::Shape &S,
                               const LinearLayout &L, uint64_t ByteOffset,
                               const SwizzledScratch *Swizzle = nullptr) {
  Ty T = ptxTypeOf(Elem);
  Ty MT = moveTypeOf(T);
  unsigned Bytes = T == Ty::Pred ? 2 : ptx::tyBits(T) / 8;
  auto [Bases, Offsets] = sharedAddresses(FL, L, S, Bytes, ByteOffset, Swizzle);
  unsigned Width = S.empty() ? 1 : sharedVectorWidth(L, Bytes);
  auto [WordTy, Words] = sharedWords(MT, Bytes, Width);
  Regs Out(static_cast<size_t>(numRegisters(L)));
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += Width) {
    Regs Loaded = FL.B.ldShared(WordTy, Words, Bases[R0], Offsets[R0]);
    Regs Elems;
    for (const Reg &W : Loaded) {
      if (WordTy == MT) {
        Elems.push_back(W);
        continue;
      }
      auto [Lo, Hi] = FL.B.unpack2x16(W, Ty::B16);
      Elems.push_back(Lo);
      Elems.push_back(Hi);
    }
    size_t R = static_cast<size_t>(R0);
    for (const Reg &V : Elems)
      Out[R++] = T == Ty::Pred ? FL.u16ToPred(V) : V.as(T);
  }
  return Out;
}

/// Shared-memory wavefronts of the accesses of layout L (Width elements each,
/// one per register group, by the lanes of warp 0) to a tile with element
/// (Row, Col) at byte Offset(Row, Col): per access, the most distinct 4-byte
/// words that one bank serves. Also the least it could be: each access's
/// distinct words over the 32 banks (LowerBound).
static uint64_t accessWavefronts(const LinearLayout &L, unsigned Width, unsigned ElemBytes,
                                 const std::function<uint64_t(int64_t, int64_t)> &Offset,
                                 uint64_t *LowerBound = nullptr) {
  auto CoordsOf = [&](const char *Dim, int32_t Index) {
    std::array<int64_t, 2> C{0, 0};
    for (int32_t Bit = 0; Bit < L.getInDimSizeLog2(Dim); ++Bit)
      if (Index >> Bit & 1) {
        const LinearLayout::Basis &Bs = L.getBasis(Dim, Bit);
        C[0] ^= Bs[0];
        C[1] ^= Bs[1];
      }
    return C;
  };
  std::vector<std::array<int64_t, 2>> LaneCoords;
  for (int32_t Lane = 0; Lane < L.getInDimSize("lane"); ++Lane)
    LaneCoords.push_back(CoordsOf("lane", Lane));
  uint64_t Total = 0;
  std::vector<uint64_t> Words;
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += static_cast<int32_t>(Width)) {
    std::array<int64_t, 2> RC = CoordsOf("register", R0);
    Words.clear();
    for (const std::array<int64_t, 2> &LC : LaneCoords) {
      uint64_t Addr = Offset(RC[0] ^ LC[0], RC[1] ^ LC[1]);
      for (uint64_t W = Addr / 4; W <= (Addr + Width * ElemBytes - 1) / 4; ++W)
        Words.push_back(W);
    }
    std::sort(Words.begin(), Words.end());
    Words.erase(std::unique(Words.begin(), Words.end()), Words.end());
    std::array<uint64_t, 32> PerBank{};
    for (uint64_t W : Words)
      ++PerBank[W % 32];
    Total += *std::max_element(PerBank.begin(), PerBank.end());
    if (LowerBound)
      *LowerBound += (Words.size() + 31) / 32;
  }
  return Total;
}

/// The swizzled scratch for a conversion of a 2-D tile from From to To, if it
/// needs fewer wavefronts than the padded row-major tile (see the file
/// comment). Candidates XOR the 16-byte chunk bits (offset bits 4 and up,
/// within 128 bytes) with the row bits that the lanes of To, of From, or of
/// both (To's first) step through alone.
static std::optional<SwizzledScratch> conversionSwizzle(const ir::Shape &S, unsigned ElemBytes,
                                                        const LinearLayout &From,
                                                        const LinearLayout &To) {
  auto Pow2 = [](int64_t V) { return V > 0 && (V & (V - 1)) == 0; };
  int64_t RowBytes = S.size() == 2 ? S[1] * ElemBytes : 0;
  if (S.size() != 2 || !Pow2(S[0]) || !Pow2(RowBytes) || RowBytes < 32)
    return std::nullopt;
  unsigned RowShift = static_cast<unsigned>(__builtin_ctzll(static_cast<uint64_t>(RowBytes)));
  unsigned FromWidth = sharedVectorWidth(From, ElemBytes);
  unsigned ToWidth = sharedVectorWidth(To, ElemBytes);
  auto Cost = [&](const std::function<uint64_t(int64_t, int64_t)> &Offset,
                  uint64_t *LowerBound = nullptr) {
    return accessWavefronts(From, FromWidth, ElemBytes, Offset, LowerBound) +
           accessWavefronts(To, ToWidth, ElemBytes, Offset, LowerBound);
  };
  int64_t Stride = sharedTileStrides(S, ElemBytes)[0];
  uint64_t Least = 0;
  uint64_t Best =
      Cost([&](int64_t Row,
               int64_t Col) { return static_cast<uint64_t>((Row * Stride + Col) * ElemBytes); },
           &Least);
  if (Best == Least)
    return std::nullopt; // the padded tile is conflict-free already
  // Row bits that a lane basis moves alone (no column).
  auto LaneRowBits = [&](const LinearLayout &L) {
    std::vector<unsigned> Bits;
    for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("lane"); ++Bit) {
      const LinearLayout::Basis &Bs = L.getBasis("lane", Bit);
      if (Bs[1] == 0 && Pow2(Bs[0]))
        Bits.push_back(static_cast<unsigned>(__builtin_ctzll(static_cast<uint64_t>(Bs[0]))));
    }
    return Bits;
  };
  std::vector<unsigned> ToBits = LaneRowBits(To), FromBits = LaneRowBits(From);
  std::vector<unsigned> Both = ToBits;
  Both.insert(Both.end(), FromBits.begin(), FromBits.end());
  std::optional<SwizzledScratch> Pick;
  for (const std::vector<unsigned> &RowBits : {ToBits, FromBits, Both}) {
    SwizzledScratch Sw;
    Sw.RowShift = RowShift;
    Sw.ElemBytes = ElemBytes;
    unsigned OffsetBit = 4;
    for (unsigned RowBit : RowBits) {
      bool Seen = false;
      for (auto [Used, _] : Sw.RowToChunk)
        Seen = Seen || Used == RowBit;
      if (Seen || OffsetBit >= std::min(RowShift, 7u))
        continue;
      Sw.RowToChunk.push_back({RowBit, OffsetBit++});
    }
    if (Sw.RowToChunk.empty())
      continue;
    uint64_t C = Cost([&](int64_t Row, int64_t Col) { return Sw.offset(Row, Col); });
    if (C < Best) {
      Best = C;
      Pick = Sw;
    }
  }
  return Pick;
}

Regs FunctionLowering::convertViaShared(const PackableRegs &Vals, const ir::Type *Elem,
                                        const ir::Shape &S, const LinearLayout &From,
                                        const LinearLayout &To) {
  Ty T = ptxTypeOf(Elem);
  unsigned ElemBytes = T == Ty::Pred ? 2 : ptx::tyBits(T) / 8;
  B.comment("layout conversion through shared memory");
  std::optional<SwizzledScratch> Swizzle;
  if (T != Ty::Pred)
    Swizzle = conversionSwizzle(S, ElemBytes, From, To);
  const SwizzledScratch *Sw = Swizzle ? &*Swizzle : nullptr;
  uint64_t Bytes = Sw ? Sw->bytes(S[0]) : sharedTileBytes(S, ElemBytes);
  sharedAccess(true, Bytes);
  storeTileToShared(Vals, Elem, S, From, 0, Sw);
  sharedAccess(false, Bytes);
  return loadTileFromShared(*this, Elem, S, To, 0, Sw);
}

Reg FunctionLowering::broadcastFromThread0(const Reg &Value, const ir::Type *T) {
  Ty PT = ptxTypeOf(T);
  Ty MT = moveTypeOf(PT);
  Reg Thread0 = B.setp(Cmp::Eq, Ty::U32, threadId(), 0);
  sharedAccess(true, 8);
  Reg V = PT == Ty::Pred ? predToU16(Value) : Value;
  B.stShared(MT, sharedBase(), 0, {V.as(MT)}, ptx::Guard{Thread0, false});
  sharedAccess(false, 8);
  Reg R = B.ldShared(MT, 1, sharedBase(), 0)[0];
  return PT == Ty::Pred ? u16ToPred(R) : R.as(PT);
}

/// One step of a reduction: A op B in the element type T.
static Reg combine(FunctionLowering &FL, ir::ReduceKind K, const ir::Type *T, const Reg &A,
                   const Reg &Bv) {
  ptx::PTXFunctionBuilder &B = FL.B;
  using RK = ir::ReduceKind;
  Ty PT = ptxTypeOf(T);
  if (T->getKind() == ir::TypeKind::Float) {
    bool Half = PT == Ty::F16 || PT == Ty::BF16;
    Ty CT = Half ? Ty::F32 : PT;
    Reg X = Half ? FL.toF32(A, T) : A, Y = Half ? FL.toF32(Bv, T) : Bv;
    Reg R = K == RK::FAdd ? B.add(CT, X, Y) : K == RK::FMax ? B.max(CT, X, Y) : B.min(CT, X, Y);
    return Half ? FL.fromF32(R, T) : R;
  }
  if (PT == Ty::Pred) {
    switch (K) {
    case RK::Add:
    case RK::Xor:
      return B.bitXor(Ty::Pred, A, Bv);
    case RK::And:
    case RK::SMax:
    case RK::UMin:
      return B.predAnd(A, Bv);
    default:
      return B.predOr(A, Bv);
    }
  }
  Ty UT = unsignedTy(PT), BT = bitsTy(PT);
  Reg R;
  switch (K) {
  case RK::Add:
    R = B.add(PT, A, Bv);
    break;
  case RK::SMax:
    return B.max(PT, A, Bv);
  case RK::SMin:
    return B.min(PT, A, Bv);
  case RK::UMax:
    return B.max(UT, A.as(UT), Bv.as(UT)).as(PT);
  case RK::UMin:
    return B.min(UT, A.as(UT), Bv.as(UT)).as(PT);
  case RK::And:
    return B.bitAnd(BT, A.as(BT), Bv.as(BT)).as(PT);
  case RK::Or:
    return B.bitOr(BT, A.as(BT), Bv.as(BT)).as(PT);
  case RK::Xor:
    return B.bitXor(BT, A.as(BT), Bv.as(BT)).as(PT);
  default:
    reportInternalError("codegen: not a reduction kind");
  }
  if (T->getIntBits() == 8)
    R = B.inst("cvt.s16.s8", Ty::S16, {R});
  return R;
}

/// A butterfly shuffle of any register type (16-bit and predicate values
/// travel in 32 bits, 64-bit values in two halves).
static Reg shuffleXor(FunctionLowering &FL, const Reg &V, int32_t LaneMask) {
  ptx::PTXFunctionBuilder &B = FL.B;
  Ty T = V.type();
  auto Shfl = [&](const Reg &X) { return B.shflSync(ptx::ShflMode::Bfly, X, LaneMask, 31); };
  switch (ptx::tyBits(T)) {
  case 1:
    return FL.u16ToPred(B.cvt(Ty::U16, Ty::U32, Shfl(B.selp(Ty::U32, 1, 0, V))));
  case 16:
    return B.cvt(Ty::U16, Ty::U32, Shfl(B.cvt(Ty::U32, Ty::U16, V.as(Ty::U16)))).as(T);
  case 32:
    if (T == Ty::F32)
      return B.bitcast(Ty::F32, Shfl(B.bitcast(Ty::B32, V)));
    return Shfl(V.as(Ty::B32)).as(T);
  default: {
    Reg Lo = B.newReg(Ty::B32), Hi = B.newReg(Ty::B32);
    B.emit("mov.b64 {" + Lo.name() + ", " + Hi.name() + "}, " + V.name() + ";");
    Reg SL = Shfl(Lo), SH = Shfl(Hi);
    Reg R = B.newReg(T);
    B.emit("mov.b64 " + R.name() + ", {" + SL.name() + ", " + SH.name() + "};");
    return R;
  }
  }
}

void FunctionLowering::lowerReduce(const Instruction &I) {
  const ir::Value *X = I.getOperand(0);
  const ir::Type *Elem = X->getType()->getScalarType();
  unsigned Axis = static_cast<unsigned>(I.Axis);
  LinearLayout L = operandLayout(X);
  Regs Vals = get(X, L);
  LinearLayout S = analysis::sliceLayout(L, Axis);
  if (I.getType()->isTile() && !(S == LA.layoutOf(&I)))
    reportInternalError("codegen: reduction result layout is not the slice of its operand's");
  int32_t NumOut = numRegisters(S);

  // 1. Registers of the thread, grouped by their coordinates off the axis.
  std::map<std::vector<int64_t>, std::vector<std::pair<int64_t, int32_t>>> Groups;
  std::vector<bool> Dup = duplicateRegisters(L);
  for (int32_t R = 0; R < numRegisters(L); ++R) {
    if (Dup[R])
      continue;
    std::vector<int64_t> C = registerCoords(L, R);
    int64_t AxisCoord = C[Axis];
    C.erase(C.begin() + Axis);
    Groups[C].push_back({AxisCoord, R});
  }
  Regs Partial(NumOut);
  for (int32_t Out = 0; Out < NumOut; ++Out) {
    auto It = Groups.find(registerCoords(S, Out));
    if (It == Groups.end())
      reportInternalError("codegen: reduction output without input registers");
    std::sort(It->second.begin(), It->second.end());
    Reg Acc = Vals[It->second[0].second];
    for (size_t K = 1; K < It->second.size(); ++K)
      Acc = combine(*this, I.Reduction, Elem, Acc, Vals[It->second[K].second]);
    Partial[Out] = Acc;
  }

  // 2. Lanes along the axis.
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("lane"); ++Bit)
    if (L.getBasis("lane", Bit)[Axis] != 0)
      for (Reg &P : Partial)
        P = combine(*this, I.Reduction, Elem, P, shuffleXor(*this, P, 1 << Bit));

  // 3. Warps along the axis, through shared memory.
  std::vector<int32_t> AxisWarpBits;
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("warp"); ++Bit)
    if (L.getBasis("warp", Bit)[Axis] != 0)
      AxisWarpBits.push_back(Bit);
  if (!AxisWarpBits.empty()) {
    ir::Shape OutShape = I.getType()->isTile() ? I.getType()->getShape() : ir::Shape{};
    int64_t OutElems = 1;
    for (int64_t D : OutShape)
      OutElems *= D;
    int64_t Slots = int64_t(1) << AxisWarpBits.size();
    Ty T = ptxTypeOf(Elem);
    unsigned Bytes = T == Ty::Pred ? 2 : ptx::tyBits(T) / 8;
    Ty MT = moveTypeOf(T);
    // Slot index of this warp: its axis warp bits, packed.
    Reg Slot = B.mov(Ty::U32, 0);
    for (size_t K = 0; K < AxisWarpBits.size(); ++K) {
      Reg Bit = B.inst("bfe.u32", Ty::U32, {warpId(), AxisWarpBits[K], 1});
      Slot = B.bitOr(Ty::U32, Slot, B.shl(Ty::B32, Bit.as(Ty::B32), static_cast<int64_t>(K)));
    }
    // Writers: one lane per output element (S's free lane bits zero) and the
    // warps L does not replicate.
    int64_t LaneFree = 0, WarpFree = 0;
    for (const auto &[Dim, M] : S.getFreeVariableMasks())
      if (Dim == "lane")
        LaneFree = M;
    for (const auto &[Dim, M] : L.getFreeVariableMasks())
      if (Dim == "warp")
        WarpFree = M;
    Reg Writer = B.setp(Cmp::Eq, Ty::U32,
                        B.bitOr(Ty::U32, B.bitAnd(Ty::U32, laneId(), LaneFree),
                                B.bitAnd(Ty::U32, warpId(), WarpFree)),
                        0);
    uint64_t Total = static_cast<uint64_t>(Slots * OutElems) * Bytes;
    Reg Index = B.mov(Ty::U32, 0);
    std::vector<int64_t> Strides = rowMajorStrides(OutShape);
    std::vector<int64_t> RegOffsets;
    if (!OutShape.empty()) {
      const Regs &Coords = threadCoords(S);
      for (size_t D = 0; D < OutShape.size(); ++D)
        Index = B.madLo(Ty::U32, Coords[D], static_cast<int64_t>(Strides[D]), Index);
    }
    for (int32_t Out = 0; Out < NumOut; ++Out) {
      std::vector<int64_t> C = registerCoords(S, Out);
      int64_t Off = 0;
      for (size_t D = 0; D < C.size(); ++D)
        Off += C[D] * Strides[D];
      RegOffsets.push_back(Off * Bytes);
    }
    Reg Base = B.madLo(Ty::U32, Index, static_cast<int64_t>(Bytes), sharedBase());
    Reg WriteBase = B.madLo(Ty::U32, Slot, static_cast<int64_t>(OutElems * Bytes), Base);
    sharedAccess(true, Total);
    for (int32_t Out = 0; Out < NumOut; ++Out) {
      Reg V = T == Ty::Pred ? predToU16(Partial[Out]) : Partial[Out];
      B.stShared(MT, WriteBase, RegOffsets[Out], {V.as(MT)}, ptx::Guard{Writer, false});
    }
    sharedAccess(false, Total);
    for (int32_t Out = 0; Out < NumOut; ++Out) {
      Reg Acc;
      for (int64_t K = 0; K < Slots; ++K) {
        Reg V = B.ldShared(MT, 1, Base, RegOffsets[Out] + K * OutElems * Bytes)[0];
        V = T == Ty::Pred ? u16ToPred(V) : V.as(T);
        Acc = K == 0 ? V : combine(*this, I.Reduction, Elem, Acc, V);
      }
      Partial[Out] = Acc;
    }
  }
  Values[&I] = std::move(Partial);
}

} // namespace tritonc::codegen
