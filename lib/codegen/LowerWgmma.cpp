//===- LowerWgmma.cpp - dot on Hopper warpgroup MMA (sm_90a) ---------------===//
//
// A warpgroup (4 consecutive warps, aligned to 4) issues
// `wgmma.mma_async.m64nNk16`: A (64 x 16) and B (16 x N) come from shared
// memory through 64-bit matrix descriptors, the 64 x N f32 accumulator stays
// in registers (wgmmaAccumulatorLayout). The warpgroups tile the output
// (DotPlan::WarpsPerCTA = {Gm, Gn}); each repeats its instruction over its
// share: MReps blocks of 64 rows, NReps blocks of InstrN columns, and K / 16
// steps.
//
// Operands live in the swizzled layouts of MmaSharedLayout.h. Each operand
// is K-major or MN-major, whichever its source makes contiguous; the
// instruction's transpose flags say which (16-bit types allow both).
//
// Operands that GPU-level IR loaded from slots in a wgmma swizzle mode are
// read in place. Others come from registers: they are stored to shared memory
// (vectorized along the contiguous dimension), made visible to the async
// proxy (`fence.proxy.async`), and a barrier separates the stores from the
// MMAs. The MMAs are committed as one group and waited for before the result
// is used, so the accumulator registers are ordinary values afterwards.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "MmaSharedLayout.h"

#include "tritonc/support/Diagnostics.h"

#include <array>
#include <bit>
#include <map>

namespace tritonc::codegen {

using ir::Instruction;

namespace {

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

/// The tile dimension the first register bit of L moves along, if any: the
/// dimension a thread's consecutive registers run along.
std::optional<unsigned> registerRunDim(const LinearLayout &L) {
  if (L.getInDimSizeLog2("register") == 0)
    return std::nullopt;
  const LinearLayout::Basis &B0 = L.getBasis("register", 0);
  for (unsigned D = 0; D < B0.size(); ++D)
    if (B0[D])
      return D;
  return std::nullopt;
}

/// The operand layout: contiguous along Preferred when that extent fills a
/// swizzle row, else along Fallback (K, which always does: K % 16 == 0).
MmaSharedLayout chooseOperandLayout(const ir::Shape &S, std::optional<unsigned> Preferred,
                                    unsigned Fallback) {
  if (Preferred) {
    MmaSharedLayout L = MmaSharedLayout::make(S[0], S[1], *Preferred, 2);
    if (L.valid())
      return L;
  }
  return MmaSharedLayout::make(S[0], S[1], Fallback, 2);
}

/// Accumulator registers per thread from which a dot's k-steps become a PTX
/// loop (the 64 x 256 block of each warpgroup in 128 x 256 tiles).
constexpr size_t LoopedAccumulatorRegs = 128;

/// The byte strides of the A and B descriptors per k-step when the k-steps of
/// a wgmma dot are emitted as a PTX loop instead of unrolled; nullopt to
/// unroll. ptxas's time grows with every wgmma in the PTX that names a large
/// accumulator: unrolled, the four m64n256k16 steps of the 128 x 256 x 64
/// tile are a quarter of its PTX -> SASS time. The loop needs every k-step to
/// move each descriptor by the same amount, for all repetitions.
template <typename OffsetA, typename OffsetB>
std::optional<std::pair<uint64_t, uint64_t>> loopedKStepStrides(size_t AccRegs, int64_t Steps,
                                                                OffsetA offsetA, OffsetB offsetB,
                                                                int64_t MReps, int64_t NReps) {
  if (AccRegs < LoopedAccumulatorRegs || Steps < 2)
    return std::nullopt;
  uint64_t StepA = offsetA(16, 0) - offsetA(0, 0), StepB = offsetB(16, 0) - offsetB(0, 0);
  for (int64_t S = 1; S < Steps; ++S) {
    for (int64_t MR = 0; MR < MReps; ++MR)
      if (offsetA(S * 16, MR) != offsetA(0, MR) + S * StepA)
        return std::nullopt;
    for (int64_t NR = 0; NR < NReps; ++NR)
      if (offsetB(S * 16, NR) != offsetB(0, NR) + S * StepB)
        return std::nullopt;
  }
  return std::make_pair(StepA, StepB);
}

} // namespace

/// The offset bits (SL.offset) that any thread's coordinates in L may set:
/// every thread's coordinates are enumerated, as the OR of the bases of its
/// set lane and warp bits (as threadCoords forms them).
static uint64_t threadOffsetBits(const LinearLayout &L, const MmaSharedLayout &SL) {
  std::vector<std::array<int64_t, 2>> Bases;
  for (const char *Dim : {"lane", "warp"})
    for (int32_t Bit = 0; Bit < L.getInDimSizeLog2(Dim); ++Bit)
      Bases.push_back({L.getBasis(Dim, Bit)[0], L.getBasis(Dim, Bit)[1]});
  uint64_t Bits = 0;
  for (uint32_t T = 0; T < (1u << Bases.size()); ++T) {
    int64_t C0 = 0, C1 = 0;
    for (size_t Bit = 0; Bit < Bases.size(); ++Bit)
      if (T >> Bit & 1) {
        C0 |= Bases[Bit][0];
        C1 |= Bases[Bit][1];
      }
    Bits |= SL.offset(C0, C1);
  }
  return Bits;
}

/// The layout of the addresses `stmatrix.m8n8.x4` takes for the registers
/// of L, or nullopt when L's registers do not form its 8 x 8 matrices. Each
/// group of 8 registers (bits 0-2) is one instruction: registers 2i and
/// 2i + 1 hold a thread's two halves of matrix i. The matrices' fragments
/// are mma's: lane bits 0-1 and register bit 0 run along a row of 8
/// contiguous halves (16 bytes in SL), lane bits 2-4 along the 8 rows. In
/// return, lane l gives the address of row l % 8 of matrix l / 8: lane bits
/// 0-2 take L's lane bits 2-4, bits 3-4 register bits 1-2.
static std::optional<LinearLayout> stmatrixAddressLayout(const LinearLayout &L,
                                                         const MmaSharedLayout &SL) {
  if (SL.ElemBytes != 2 || L.getOutDims().size() != 2 || L.getInDimSizeLog2("register") < 3 ||
      L.getInDimSizeLog2("lane") != 5)
    return std::nullopt;
  for (const auto &[Dim, Mask] : L.getFreeVariableMasks())
    if (Mask)
      return std::nullopt;
  unsigned Contig = SL.ContigDim, Strided = 1 - Contig;
  auto along = [](const LinearLayout::Basis &Bs, unsigned D, int32_t Step) {
    return Bs[D] == Step && Bs[1 - D] == 0;
  };
  if (!along(L.getBasis("register", 0), Contig, 1) || !along(L.getBasis("lane", 0), Contig, 2) ||
      !along(L.getBasis("lane", 1), Contig, 4))
    return std::nullopt;
  for (int32_t Bit = 2; Bit < 5; ++Bit)
    if (!along(L.getBasis("lane", Bit), Strided, 1 << (Bit - 2)))
      return std::nullopt;
  // Each matrix row must be 16 contiguous bytes at a 16-byte boundary: the
  // offsets are GF(2)-linear, so every other basis must leave bits 0-3.
  auto offsetOf = [&](const LinearLayout::Basis &Bs) { return SL.offset(Bs[0], Bs[1]); };
  for (const char *Dim : {"register", "warp"})
    for (int32_t Bit = Dim[0] == 'r' ? 1 : 0; Bit < L.getInDimSizeLog2(Dim); ++Bit)
      if (offsetOf(L.getBasis(Dim, Bit)) & 15)
        return std::nullopt;
  for (int32_t Bit = 0; Bit < 5; ++Bit)
    if ((offsetOf(L.getBasis("lane", Bit)) & 15) != (Bit < 2 ? 4u << Bit : 0u))
      return std::nullopt;
  if (offsetOf(L.getBasis("register", 0)) != 2)
    return std::nullopt;
  std::vector<LinearLayout::Basis> Lanes = {L.getBasis("lane", 2), L.getBasis("lane", 3),
                                            L.getBasis("lane", 4), L.getBasis("register", 1),
                                            L.getBasis("register", 2)};
  std::vector<LinearLayout::Basis> Warps;
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("warp"); ++Bit)
    Warps.push_back(L.getBasis("warp", Bit));
  return LinearLayout({{"lane", Lanes}, {"warp", Warps}}, L.getOutDims());
}

void FunctionLowering::storeTileToMmaShared(const PackableRegs &Vals, const LinearLayout &L,
                                            const MmaSharedLayout &SL, const Reg &Base) {
  // A warp stores four 8 x 8 matrices of halves per `stmatrix` where every
  // thread holds its part (no per-thread guards): a quarter of the
  // instructions of the word-by-word stores below.
  // A register's offset bits that no thread's part sets add instead of xor:
  // they go into the store's immediate, and only the remaining part needs
  // its own address register (8 instead of 64 in the 128 x 256 epilogue,
  // and 3% less ptxas time on that matmul).
  std::optional<LinearLayout> Stmatrix = stmatrixAddressLayout(L, SL);
  uint64_t ThreadBits = threadOffsetBits(Stmatrix ? *Stmatrix : L, SL);
  const Regs &Coords = threadCoords(Stmatrix ? *Stmatrix : L);
  Reg ThreadOff = emitSwizzledOffset(B, SL, Coords[0], Coords[1]);
  // Consecutive registers along the contiguous dimension, up to 16 bytes.
  unsigned Width = 1;
  for (int32_t Bit = 0; Bit < L.getInDimSizeLog2("register"); ++Bit) {
    const LinearLayout::Basis &Bs = L.getBasis("register", Bit);
    if (Bs[SL.ContigDim] != static_cast<int32_t>(Width) || Bs[1 - SL.ContigDim] != 0 ||
        Width * 2 * SL.ElemBytes > 16)
      break;
    Width *= 2;
  }
  Reg Owner = ownerPredicate(L);
  std::optional<ptx::Guard> G;
  if (Owner.valid())
    G = ptx::Guard{Owner, false};
  std::vector<bool> Dup = duplicateRegisters(L);
  std::map<uint64_t, Reg> Addresses; // by xor part
  int32_t RegsPerStore = Stmatrix ? 8 : static_cast<int32_t>(Width);
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += RegsPerStore) {
    if (Dup[R0])
      continue;
    std::vector<int64_t> C = registerCoords(L, R0);
    // Offsets are linear over GF(2): thread part XOR register part.
    uint64_t RegOff = SL.offset(C[0], C[1]);
    uint64_t XorPart = RegOff & ThreadBits;
    auto [It, New] = Addresses.try_emplace(XorPart);
    if (New) {
      Reg Off = XorPart ? B.bitXor(Ty::U32, ThreadOff, static_cast<int64_t>(XorPart)) : ThreadOff;
      It->second = B.add(Ty::U32, Base, Off);
    }
    const Reg &Addr = It->second;
    auto Immediate = static_cast<int64_t>(RegOff & ~ThreadBits);
    if (Stmatrix) {
      std::string Words;
      for (int32_t K = 0; K < 8; K += 2)
        Words += (K ? ", " : "") + Vals.word(B, static_cast<size_t>(R0 + K)).name();
      B.emit("stmatrix.sync.aligned.m8n8.x4.shared.b16 [" + Addr.name() +
             (Immediate ? "+" + std::to_string(Immediate) : "") + "], {" + Words + "};");
      continue;
    }
    Regs Words;
    for (unsigned K = 0; K + 1 < Width; K += 2)
      Words.push_back(Vals.word(B, static_cast<size_t>(R0) + K));
    if (Width == 1)
      Words.push_back(Vals.element(B, static_cast<size_t>(R0)).as(Ty::B16));
    B.stShared(Width == 1 ? Ty::B16 : Ty::B32, Addr, Immediate, Words, G);
  }
}

Reg FunctionLowering::wgmmaDescriptor(const MmaSharedLayout &SL, const Reg &Addr) {
  // Bits 0-13: address >> 4; 16-29: leading byte offset >> 4; 32-45: stride
  // byte offset >> 4; 62-63: swizzle mode. Base offset (49-51) stays 0.
  Reg Field = B.bitAnd(Ty::U32, B.shr(Ty::U32, Addr, 4), 0x3FFF);
  Reg Lo = B.bitOr(Ty::U32, Field, static_cast<int64_t>((SL.leadingByteOffset() >> 4) << 16));
  uint64_t Hi = (SL.strideByteOffset() >> 4) | (uint64_t(SL.descriptorMode()) << 30);
  Reg HiR = B.mov(Ty::U32, static_cast<int64_t>(Hi));
  Reg D = B.newReg(Ty::B64);
  B.emit("mov.b64 " + D.name() + ", {" + Lo.name() + ", " + HiR.name() + "};");
  return D;
}

/// Byte offsets, in the operand layouts, of the A block of k-step K0 and
/// row repetition MR, and of the B block of k-step K0 and column
/// repetition NR.
static uint64_t wgmmaOffsetA(const MmaSharedLayout &SA, int64_t K0, int64_t MR) {
  return SA.ContigDim == 1 ? SA.linearOffset(MR * 64, K0) : SA.linearOffset(K0, MR * 64);
}
static uint64_t wgmmaOffsetB(const MmaSharedLayout &SB, int64_t K0, int64_t NR, int32_t InstrN) {
  return SB.ContigDim == 1 ? SB.linearOffset(K0, NR * InstrN) : SB.linearOffset(NR * InstrN, K0);
}

std::pair<Reg, Reg> FunctionLowering::warpgroupDescriptors(const WgmmaTiling &T,
                                                           const MmaSharedLayout &SA,
                                                           const Reg &ABase,
                                                           const MmaSharedLayout &SB,
                                                           const Reg &BBase) {
  // This warpgroup's origin in the output: group g = warp / 4 is
  // (g % Gm, g / Gm), as in wgmmaAccumulatorLayout.
  Reg Group = B.shr(Ty::U32, warpId(), 2);
  Reg GroupM = B.bitAnd(Ty::U32, Group, T.Gm - 1);
  Reg GroupN = B.shr(Ty::U32, Group, std::countr_zero(static_cast<unsigned>(T.Gm)));
  Reg RowOrigin = B.mul(Ty::U32, GroupM, 64 * T.MReps);
  Reg ColOrigin = B.mul(Ty::U32, GroupN, int64_t(T.InstrN) * T.NReps);
  Reg Zero = B.mov(Ty::U32, 0);
  // The origins are multiples of whole swizzle atoms (or sit inside a row),
  // so their unswizzled offsets are the descriptors' start addresses.
  Reg AOrigin = emitSwizzledOffset(B, SA, RowOrigin, Zero);
  Reg BOrigin = emitSwizzledOffset(B, SB, Zero, ColOrigin);
  Reg DescA = wgmmaDescriptor(SA, B.add(Ty::U32, ABase, AOrigin));
  Reg DescB = wgmmaDescriptor(SB, B.add(Ty::U32, BBase, BOrigin));
  return {DescA, DescB};
}

void FunctionLowering::issueWgmmaStep(const WgmmaTiling &T, const MmaSharedLayout &SA,
                                      const MmaSharedLayout &SB, const Reg &DescA, const Reg &DescB,
                                      int64_t K0, const Reg &Scale, const std::string &InTy,
                                      Regs &Acc) {
  int TransA = SA.ContigDim == 0 ? 1 : 0; // M-major A
  int TransB = SB.ContigDim == 1 ? 1 : 0; // N-major B
  int64_t PerInstr = T.InstrN / 2;
  for (int64_t MR = 0; MR < T.MReps; ++MR)
    for (int64_t NR = 0; NR < T.NReps; ++NR) {
      uint64_t AOff = wgmmaOffsetA(SA, K0, MR), BOff = wgmmaOffsetB(SB, K0, NR, T.InstrN);
      Reg DA = AOff ? B.add(Ty::S64, DescA, static_cast<int64_t>(AOff >> 4)) : DescA;
      Reg DB = BOff ? B.add(Ty::S64, DescB, static_cast<int64_t>(BOff >> 4)) : DescB;
      std::string List;
      int64_t First = PerInstr * (MR + T.MReps * NR);
      for (int64_t J = 0; J < PerInstr; ++J)
        List += (J ? ", " : "") + Acc[First + J].name();
      B.emit("wgmma.mma_async.sync.aligned.m64n" + std::to_string(T.InstrN) + "k16.f32." + InTy +
             "." + InTy + " {" + List + "}, " + DA.name() + ", " + DB.name() + ", " + Scale.name() +
             ", 1, 1, " + std::to_string(TransA) + ", " + std::to_string(TransB) + ";");
    }
}

void FunctionLowering::emitWgmmaLoop(const Instruction &I, const MmaSharedLayout &SA,
                                     const Reg &ABase, const MmaSharedLayout &SB, const Reg &BBase,
                                     Regs &Acc) {
  const ir::Value *A = I.getOperand(0);
  const ir::Type *AT = A->getType()->getScalarType();
  int64_t M = I.getType()->getShape()[0], N = I.getType()->getShape()[1];
  int64_t K = A->getType()->getShape()[1];
  const analysis::DotPlan &P = LA.dotOf(&I);
  WgmmaTiling T;
  T.Gm = P.WarpsPerCTA[0];
  T.Gn = P.WarpsPerCTA[1];
  T.InstrN = P.InstrN;
  T.MReps = M / (64 * T.Gm);
  T.NReps = N / (int64_t(T.InstrN) * T.Gn);
  std::pair<Reg, Reg> Descs = warpgroupDescriptors(T, SA, ABase, SB, BBase);
  Reg DescA = Descs.first, DescB = Descs.second;
  Reg One = B.mov(Ty::U32, 1);
  Reg ScaleD = B.setp(ptx::Cmp::Ne, Ty::U32, One, 0);

  std::string InTy = ptxTypeOf(AT) == Ty::BF16 ? "bf16" : "f16";
  auto offsetA = [&](int64_t K0, int64_t MR) { return wgmmaOffsetA(SA, K0, MR); };
  auto offsetB = [&](int64_t K0, int64_t NR) { return wgmmaOffsetB(SB, K0, NR, T.InstrN); };
  // The MMAs of one k-step, reading from descriptors DescA / DescB moved to
  // k-step K0.
  auto issueStep = [&](const Reg &DescA, const Reg &DescB, int64_t K0, const Reg &Scale) {
    issueWgmmaStep(T, SA, SB, DescA, DescB, K0, Scale, InTy, Acc);
  };

  int64_t Steps = K / 16;
  std::optional<std::pair<uint64_t, uint64_t>> Strides =
      loopedKStepStrides(Acc.size(), Steps, offsetA, offsetB, T.MReps, T.NReps);
  if (!Strides) {
    B.emit("wgmma.fence.sync.aligned;");
    for (int64_t K0 = 0; K0 < K; K0 += 16)
      issueStep(DescA.as(Ty::S64), DescB.as(Ty::S64), K0, ScaleD);
    B.emit("wgmma.commit_group.sync.aligned;");
    B.emit("wgmma.wait_group.sync.aligned 0;");
    return;
  }
  // One loop iteration per k-step, each its own fenced and committed group.
  // With one group left open across the back edge, ptxas fences every wgmma
  // itself and then waits for all of them but one, which serializes the
  // MMAs (548 against 720 TFLOP/s); with a group per k-step they all stay in
  // flight, as fast as unrolled. The loop must stay rolled: ptxas would unroll four steps back into
  // the code this avoids.
  auto [StepA, StepB] = *Strides;
  Reg CurA = B.mov(Ty::S64, DescA.as(Ty::S64)), CurB = B.mov(Ty::S64, DescB.as(Ty::S64));
  Reg Step = B.mov(Ty::U32, 0);
  std::string Loop = B.newLabel("wgmma_k");
  B.label(Loop);
  B.emit(".pragma \"nounroll\";");
  B.emit("wgmma.fence.sync.aligned;");
  issueStep(CurA, CurB, 0, ScaleD);
  B.emit("wgmma.commit_group.sync.aligned;");
  B.movTo(CurA, B.add(Ty::S64, CurA, static_cast<int64_t>(StepA >> 4)));
  B.movTo(CurB, B.add(Ty::S64, CurB, static_cast<int64_t>(StepB >> 4)));
  B.movTo(Step, B.add(Ty::U32, Step, 1));
  B.braIf(B.setp(ptx::Cmp::Lt, Ty::U32, Step, Steps), Loop);
  B.emit("wgmma.wait_group.sync.aligned 0;");
}

void FunctionLowering::lowerWgmma(const Instruction &I) {
  const ir::Value *A = I.getOperand(0), *Bv = I.getOperand(1), *AccV = I.getOperand(2);
  const LinearLayout &C = LA.layoutOf(&I);
  std::optional<std::pair<Reg, MmaSharedLayout>> Ops[2];
  // Operands that GPU-level IR loaded from slots in a wgmma swizzle mode are
  // read there (the copies' fence came with their wait, LowerAsync.cpp).
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    std::string Why;
    if (auto Slot = directSlotOperand(I, Idx, Why))
      Ops[Idx] = std::make_pair(Values.at(Slot->first)[0], Slot->second);
    else
      remarkSlotStaged(I, Idx, Why);
  }
  const ir::Value *Staged[2] = {Ops[0] ? nullptr : A, Ops[1] ? nullptr : Bv};
  if (Staged[0] || Staged[1]) {
    LinearLayout Ls[2];
    Regs Vals[2];
    MmaSharedLayout SLs[2];
    uint64_t Offsets[2] = {0, 0}, Total = 0;
    for (unsigned Idx = 0; Idx < 2; ++Idx) {
      if (!Staged[Idx])
        continue;
      Ls[Idx] = operandLayout(Staged[Idx]);
      Vals[Idx] = get(Staged[Idx], Ls[Idx]);
      // K is dimension 1 of A and dimension 0 of B.
      SLs[Idx] = chooseOperandLayout(Staged[Idx]->getType()->getShape(), registerRunDim(Ls[Idx]),
                                     Idx == 0 ? 1 : 0);
      Offsets[Idx] = alignTo(Total, 1024);
      Total = Offsets[Idx] + SLs[Idx].bytes();
    }
    B.comment("wgmma operands to swizzled shared memory");
    sharedAccess(true, Total);
    for (unsigned Idx = 0; Idx < 2; ++Idx) {
      if (!Staged[Idx])
        continue;
      Reg Base = Offsets[Idx] ? B.add(Ty::U32, sharedBase(), static_cast<int64_t>(Offsets[Idx]))
                              : sharedBase();
      storeTileToMmaShared(Vals[Idx], Ls[Idx], SLs[Idx], Base);
      Ops[Idx] = std::make_pair(Base, SLs[Idx]);
    }
    // The tensor cores read through the async proxy: make the generic-proxy
    // stores visible to it before the barrier.
    B.emit("fence.proxy.async.shared::cta;");
    sharedAccess(false, Total);
  }

  // wgmma accumulates in place: work on copies of the incoming values.
  Regs AccIn = get(AccV, C);
  Regs Acc(AccIn.size());
  for (size_t R = 0; R < AccIn.size(); ++R)
    Acc[R] = B.mov(Ty::F32, AccIn[R]);
  emitWgmmaLoop(I, Ops[0]->second, Ops[0]->first, Ops[1]->second, Ops[1]->first, Acc);
  Values[&I] = std::move(Acc);
}

} // namespace tritonc::codegen
