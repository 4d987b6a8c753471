//===- TensorCopies.cpp - Ring loads as bulk tensor copies (TMA, sm_90a) ---===//
//
// A ring (AsyncCopies.cpp) whose loads all read boxes of one 2-D tensor
// (AffineAccess.h: a pointer parameter, a unit stride along the slot's
// contiguous dimension, the other stride and the mask's extents polynomials
// over the integer parameters) is filled by the bulk tensor copy engine
// instead of per-thread cp.async:
//
//  * The tensor map is a hidden kernel parameter that the launcher encodes
//    (TensorMapSpec.h): the extents the mask checks (others unbounded), the
//    stride, a box of one swizzle row by the slot's strided extent, and the
//    slot's swizzle, which is the one the wgmma descriptors read
//    (MmaSharedLayout.h and the engine's 32/64/128-byte modes agree).
//  * Thread 0 issues a load: `mbarrier.arrive.expect_tx` of the tile's bytes
//    on the slot's mbarrier, then one `cp.async.bulk.tensor.2d` per column
//    block of the slot. The engine fills what lies outside the extents with
//    zeros, which is what the mask means; a false scalar guard moves the
//    box entirely out of bounds (TensorMapOutOfBounds), so the slot reads
//    as zeros and the mbarrier still completes.
//  * The value of the load, the same in every thread, is the slot's address
//    with the slot index and the parity of the mbarrier phase the copy
//    completes in its low bits (slots are 1024-byte aligned):
//        value = address | slot << 1 | parity.
//    Each thread keeps one phase bit per slot (flipped at every fill); the
//    dot waits on the slot's mbarrier for that parity before the barrier
//    that AsyncCopies.cpp already places. That barrier also orders the reads
//    of a slot (every warpgroup's wgmma, waited for as described there)
//    before thread 0 refills it.
//  * Rings filled in lockstep (the A and B of a dot: as many slots, and
//    every block fills both equally often, never one a whole ring ahead)
//    share their mbarriers: each slot's mbarrier expects one arrival per
//    ring, each with its own bytes, so its phase completes when every ring's
//    copy into that slot has landed. A dot whose two operands hold the same
//    fill (sameFill) then waits once instead of twice. On the H100 this made
//    the 128 x 256 x 64 matmuls 0.4-0.8% faster and cut ptxas's time by 4%.
//  * Before scratch reuses the rings' space, and before the program ends,
//    every slot's latest copy is waited for (a slot never filled passes at
//    once: its "previous" phase counts as complete), in a counted loop.
//
// The mbarriers follow everything else in the dynamic shared memory (8-byte
// aligned after the rings and the largest scratch, whose size is final only
// once the body is written: the prologue computes their address on a line
// reserved for placeMbarriers), so that scratch over the rings never
// overwrites them. Kernels declare no static `.shared` variable: next to one,
// the cubin the driver's JIT linker (cuLinkCreate) makes placed the dynamic
// shared memory 0x20 bytes past a 1024-byte boundary on the H100, and the
// swizzled slots faulted with a misaligned address.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>

namespace tritonc::codegen {

using analysis::Poly;
using analysis::TensorAccess;
using ir::Instruction;

namespace {

/// CUtensorMapDataType of a 16-bit element type.
unsigned tensorMapDataType(Ty T) { return T == Ty::F16 ? 6 : T == Ty::BF16 ? 9 : 1; }

bool sameForm(const TensorAccess &A, const TensorAccess &B) {
  return A.Base == B.Base && A.UnitDim == B.UnitDim && A.OuterStride == B.OuterStride &&
         A.Bound[0] == B.Bound[0] && A.Bound[1] == B.Bound[1];
}

} // namespace

/// P over the parameters as the launcher evaluates it.
ParamPoly toParamPoly(const Poly &P, const analysis::AffineAccessAnalysis &AA) {
  ParamPoly Out;
  for (const auto &[M, C] : P.terms()) {
    ParamTerm T;
    T.Coef = C;
    for (unsigned A : M)
      T.Params.push_back(ir::asArgument(const_cast<ir::Value *>(AA.atomValue(A)))->getIndex());
    Out.push_back(std::move(T));
  }
  return Out;
}

void FunctionLowering::ensureAffineAccess() {
  if (Affine)
    return;
  DomTree = std::make_unique<ir::DominatorTree>(F);
  Affine = std::make_unique<analysis::AffineAccessAnalysis>(F, *DomTree);
}

int64_t FunctionLowering::knownPow2Divisor(const analysis::Poly &P) const {
  int64_t Divisor = 0;
  for (const auto &[M, C] : P.terms()) {
    int64_t D = analysis::largestPow2Divisor(C);
    for (unsigned A : M)
      D = std::min<int64_t>(D * AI.get(Affine->atomValue(A)).Divisibility[0],
                            analysis::MaxDivisibility);
    Divisor = std::gcd(Divisor, D);
  }
  return Divisor;
}

bool FunctionLowering::tensorMapAligned(const TensorAccess &TA, unsigned ElemBytes) {
  // The engine wants a 16-byte aligned base and 16-byte multiples as strides.
  return AI.get(TA.Base).Divisibility[0] >= 16 &&
         knownPow2Divisor(TA.OuterStride) * ElemBytes % 16 == 0;
}

TensorMapSpec FunctionLowering::tensorMapSpecOf(const TensorAccess &TA, Ty Elem,
                                                const MmaSharedLayout &SL) const {
  TensorMapSpec Spec;
  Spec.BaseParam = TA.Base->getIndex();
  Spec.DataType = tensorMapDataType(Elem);
  Spec.ElemBytes = SL.ElemBytes;
  for (unsigned D : {TA.UnitDim, 1 - TA.UnitDim})
    Spec.Dims.push_back(TA.Bound[D] ? std::optional<ParamPoly>(toParamPoly(*TA.Bound[D], *Affine))
                                    : std::nullopt);
  Spec.Strides.push_back(toParamPoly(TA.OuterStride, *Affine));
  // One swizzle row of the slot (or scratch) by its strided extent.
  Spec.Box = {static_cast<unsigned>(SL.elemsPerRow()), static_cast<unsigned>(SL.StridedExtent)};
  Spec.SwizzleBytes = SL.SwizzleBytes;
  return Spec;
}

void FunctionLowering::planTensorCopies() {
  if (Rings.empty() || Options.Arch != ptx::Arch::SM90a)
    return;
  if (!Options.TensorCopies) {
    for (const AsyncRing &Ring : Rings)
      if (!Ring.isPlain())
        remark(RemarkKind::Missed, "tensor-copy", *Ring.Loads.front(),
               "this wgmma operand load is not a bulk tensor copy (TMA): they are off "
               "(--no-tma, tma=False)");
    return;
  }
  ensureAffineAccess();
  unsigned MbarSlots = 0;
  for (AsyncRing &Ring : Rings) {
    const MmaSharedLayout &SL = Ring.SL;
    std::map<const Instruction *, TensorAccess> Forms;
    // Why not, for remarks, and the load it is about.
    std::string Why;
    const Instruction *At = Ring.Loads.front();
    // FMA rings transpose or pad what the engine would copy densely.
    bool Ok = !Ring.isPlain() && SL.StridedExtent % 8 == 0 && SL.StridedExtent <= 256;
    if (!Ok)
      Why = Ring.isPlain()
                ? "only wgmma operand rings are filled by bulk tensor copies"
                : "the tile's extent across its contiguous dimension (" +
                      std::to_string(SL.StridedExtent) + ") is not a multiple of 8 up to 256";
    for (const Instruction *L : Ring.Loads) {
      if (!Ok)
        break;
      std::optional<TensorAccess> TA = Affine->tensorAccessOf(*L, &Why);
      if (TA && TA->UnitDim != SL.ContigDim)
        Why = "the load is contiguous along another dimension than the operand's shared layout";
      else if (TA && !Forms.empty() && !sameForm(Forms.begin()->second, *TA))
        Why = "the ring's loads do not read one tensor with the same strides and extents";
      Ok = TA && TA->UnitDim == SL.ContigDim &&
           (Forms.empty() || sameForm(Forms.begin()->second, *TA));
      if (Ok)
        Forms.emplace(L, std::move(*TA));
      else
        At = L;
    }
    const TensorAccess *TA = Ok ? &Forms.begin()->second : nullptr;
    if (TA && !tensorMapAligned(*TA, SL.ElemBytes))
      Why = "the base pointer or the row stride is not known to be a multiple of 16 bytes (a "
            "tensor map needs both; pointers and strides specialized as multiples of 16, or "
            "__multipleof / __aligned, tell the compiler)";
    if (!TA || !tensorMapAligned(*TA, SL.ElemBytes)) {
      remark(RemarkKind::Missed, "tensor-copy", *At,
             "this wgmma operand load is not a bulk tensor copy (TMA), it uses cp.async: " + Why);
      continue;
    }
    if (wantsRemark(RemarkKind::Passed, "tensor-copy"))
      for (const Instruction *L : Ring.Loads)
        remark(RemarkKind::Passed, "tensor-copy", *L,
               "this wgmma operand load is a bulk tensor copy (TMA) into a ring of " +
                   std::to_string(Ring.NumSlots) + " slots");
    Ring.TensorMap = static_cast<int>(TensorMaps.size());
    TensorMaps.push_back(
        tensorMapSpecOf(*TA, ptxTypeOf(Ring.Loads[0]->getType()->getScalarType()), SL));
    Ring.MapParam = B.addByteArrayParam(128, 64);
    TensorAccesses.insert(Forms.begin(), Forms.end());
  }
  if (TensorMaps.empty())
    return;
  // One mbarrier per slot, shared by the rings filled in lockstep (a dot's
  // A and B): every fill of a slot arrives on it, and the dot waits once.
  for (unsigned R = 0; R < Rings.size(); ++R) {
    AsyncRing &Ring = Rings[R];
    if (Ring.TensorMap < 0)
      continue;
    for (unsigned Q = 0; Q < R && Ring.MbarShare < 0; ++Q)
      if (Rings[Q].TensorMap >= 0 && Rings[Q].MbarShare < 0 && fillInLockstep(Rings[Q], Ring)) {
        Ring.MbarShare = static_cast<int>(Q);
        Ring.MbarOffset = Rings[Q].MbarOffset;
        ++Rings[Q].MbarArrivals;
      }
    if (Ring.MbarShare < 0) {
      Ring.MbarOffset = 8 * MbarSlots;
      MbarSlots += Ring.NumSlots;
    }
  }
  MbarBytes = 8 * MbarSlots;
  auto P = B.prologue();
  MbarBase = B.newReg(Ty::U32);
  MbarBaseLine = B.reservePrologueLine();
  Reg Thread0 = B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0);
  for (const AsyncRing &Ring : Rings)
    for (unsigned S = 0; Ring.TensorMap >= 0 && Ring.MbarShare < 0 && S < Ring.NumSlots; ++S)
      B.emit("@" + Thread0.name() + " mbarrier.init.shared::cta.b64 [" + MbarBase.name() + "+" +
             std::to_string(Ring.MbarOffset + 8 * S) + "], " + std::to_string(Ring.MbarArrivals) +
             ";");
  // The engine signals the mbarriers: make their initialization visible to it.
  B.emit("fence.mbarrier_init.release.cluster;");
  B.emit("fence.proxy.async.shared::cta;");
  B.emit("bar.sync 0;");
  for (AsyncRing &Ring : Rings) {
    if (Ring.TensorMap < 0)
      continue;
    Ring.Cursor = B.mov(Ty::U32, 0);
    Ring.SlotIndex = B.mov(Ty::U32, 0);
    Ring.PhaseBits = B.mov(Ty::U32, 0);
    Reg Param = B.newReg(Ty::B64);
    B.emit("mov.b64 " + Param.name() + ", " + Ring.MapParam + ";");
    Ring.MapAddress = B.newReg(Ty::B64);
    B.emit("cvta.param.u64 " + Ring.MapAddress.name() + ", " + Param.name() + ";");
  }
}

Reg FunctionLowering::polyValue(const Poly &P) {
  std::optional<Reg> Sum;
  for (const auto &[M, C] : P.terms()) {
    std::optional<Reg> Term;
    for (unsigned A : M) {
      Reg X = scalar(Affine->atomValue(A));
      if (X.type() == Ty::S64 || X.type() == Ty::U64 || X.type() == Ty::B64)
        X = B.cvt(Ty::U32, Ty::U64, X.as(Ty::U64));
      X = X.as(Ty::S32);
      Term = Term ? B.mul(Ty::S32, *Term, X) : X;
    }
    if (!Term)
      Term = B.mov(Ty::S32, C);
    else if (C != 1)
      Term = B.mul(Ty::S32, *Term, C);
    Sum = Sum ? B.add(Ty::S32, *Sum, *Term) : *Term;
  }
  return Sum ? *Sum : B.mov(Ty::S32, 0);
}

void FunctionLowering::lowerTensorLoad(const Instruction &I, AsyncRing &Ring) {
  separateFromScratchOverRings();
  waitForStagingReads();
  const TensorAccess &TA = TensorAccesses.at(&I);
  const MmaSharedLayout &SL = Ring.SL;
  B.comment("bulk tensor copy into a shared ring slot");
  Reg Slot =
      B.add(Ty::U32, B.add(Ty::U32, ringBase(), static_cast<int64_t>(Ring.Offset)), Ring.Cursor);
  Reg Mbar = B.add(Ty::U32, MbarBase,
                   B.madLo(Ty::U32, Ring.SlotIndex, 8, static_cast<int64_t>(Ring.MbarOffset)));
  Reg Unit = polyValue(TA.Coord[TA.UnitDim]);
  Reg Outer = polyValue(TA.Coord[1 - TA.UnitDim]);
  if (!TA.Guards.empty()) {
    Reg G = scalar(TA.Guards[0]);
    for (size_t K = 1; K < TA.Guards.size(); ++K)
      G = B.predAnd(G, scalar(TA.Guards[K]));
    Unit = B.selp(Ty::S32, Unit, static_cast<int64_t>(TensorMapOutOfBounds), G);
  }
  int64_t E = SL.elemsPerRow();
  std::vector<std::pair<Reg, Reg>> Boxes; // destination, first coordinate
  for (int64_t Block = 0; Block * E < SL.ContigExtent; ++Block)
    Boxes.emplace_back(
        B.add(Ty::U32, Slot, static_cast<int64_t>(Block * SL.StridedExtent * SL.SwizzleBytes)),
        Block ? B.add(Ty::S32, Unit, Block * E) : Unit);
  // Thread 0's part behind one branch: as predicated instructions, ptxas
  // took 3.5% longer on the 128 x 256 x 64 matmul (wrapping each copy in a
  // retry loop), and the other warps now skip it.
  std::string Issued = B.newLabel("copies_issued");
  B.braIf(B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0), Issued, /*Negated=*/true);
  Reg State = B.newReg(Ty::B64);
  B.emit("mbarrier.arrive.expect_tx.shared::cta.b64 " + State.name() + ", [" + Mbar.name() + "], " +
         std::to_string(SL.bytes()) + ";");
  auto [Hint, Policy] = ptx::PTXFunctionBuilder::cacheHintFor(cachePolicy(TA.Base));
  for (const auto &[Dst, C0] : Boxes)
    B.emit("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes" + Hint +
           " [" + Dst.name() + "], [" + Ring.MapAddress.name() + ", {" + C0.name() + ", " +
           Outer.name() + "}], [" + Mbar.name() + "]" + Policy + ";");
  B.label(Issued);
  // The fill's phase parity: the slot's phase bit before this fill.
  Reg Bit = B.shl(Ty::B32, B.mov(Ty::B32, 1), Ring.SlotIndex);
  Reg Parity = B.shr(Ty::U32, B.bitAnd(Ty::B32, Ring.PhaseBits, Bit), Ring.SlotIndex);
  B.movTo(Ring.PhaseBits, B.bitXor(Ty::B32, Ring.PhaseBits, Bit));
  Reg Tag = B.bitOr(Ty::B32, B.shl(Ty::B32, Ring.SlotIndex, 1), Parity);
  Values[&I] = {B.bitOr(Ty::B32, Slot, Tag).as(Ty::U32)};
  // Next slot.
  Reg Next = B.add(Ty::U32, Ring.Cursor, static_cast<int64_t>(Ring.SlotBytes));
  Reg Wrap =
      B.setp(ptx::Cmp::Ge, Ty::U32, Next, static_cast<int64_t>(Ring.SlotBytes * Ring.NumSlots));
  Reg Zero = B.mov(Ty::U32, 0);
  B.movTo(Ring.Cursor, B.selp(Ty::U32, Zero, Next, Wrap));
  Reg NextIndex = B.add(Ty::U32, Ring.SlotIndex, 1);
  B.movTo(Ring.SlotIndex, B.selp(Ty::U32, Zero, NextIndex, Wrap));
}

bool FunctionLowering::fillInLockstep(const AsyncRing &A, const AsyncRing &B) const {
  if (A.NumSlots != B.NumSlots)
    return false;
  std::set<const Instruction *> OfA(A.Loads.begin(), A.Loads.end());
  std::set<const Instruction *> OfB(B.Loads.begin(), B.Loads.end());
  std::set<const ir::BasicBlock *> Blocks;
  for (const Instruction *L : A.Loads)
    Blocks.insert(L->getParent());
  for (const Instruction *L : B.Loads)
    Blocks.insert(L->getParent());
  // Equal counts per block keep the fill counts equal at every block
  // boundary; within a block, a ring a whole ring ahead would arrive twice
  // on one phase of a slot before the other ring's copy.
  for (const ir::BasicBlock *BB : Blocks) {
    int64_t Ahead = 0;
    for (const auto &I : BB->instructions()) {
      Ahead += OfA.count(I.get()) ? 1 : OfB.count(I.get()) ? -1 : 0;
      if (std::abs(Ahead) >= static_cast<int64_t>(A.NumSlots))
        return false;
    }
    if (Ahead != 0)
      return false;
  }
  return true;
}

/// The place of Load among Ring's loads in its block.
static size_t loadOrdinal(const Instruction *Load, const AsyncRing &Ring) {
  size_t N = 0;
  for (const auto &I : Load->getParent()->instructions()) {
    if (I.get() == Load)
      return N;
    N += std::count(Ring.Loads.begin(), Ring.Loads.end(), I.get());
  }
  return N;
}

bool FunctionLowering::sameFill(
    const Instruction *X, const AsyncRing &A, const Instruction *Y, const AsyncRing &B,
    std::set<std::pair<const Instruction *, const Instruction *>> &Assumed) const {
  if (!X || !Y || X->getParent() != Y->getParent())
    return false;
  bool XLoad = std::count(A.Loads.begin(), A.Loads.end(), X) != 0;
  bool YLoad = std::count(B.Loads.begin(), B.Loads.end(), Y) != 0;
  if (XLoad && YLoad)
    return loadOrdinal(X, A) == loadOrdinal(Y, B);
  if (XLoad || YLoad || X->getOpcode() != ir::Opcode::Phi || Y->getOpcode() != ir::Opcode::Phi)
    return false;
  // Two phis hold the same fill if their incoming values do on every edge,
  // assuming it of the pair itself around a loop: the fill counts then stay
  // equal iteration by iteration.
  if (!Assumed.insert({X, Y}).second)
    return true;
  for (const ir::BasicBlock *From : X->incomingBlocks())
    if (!sameFill(ir::asInstruction(X->getIncomingValueFor(From)), A,
                  ir::asInstruction(Y->getIncomingValueFor(From)), B, Assumed))
      return false;
  return true;
}

Reg FunctionLowering::tensorSlotAddress(const Reg &Value) {
  return B.bitAnd(Ty::B32, Value, static_cast<int64_t>(~uint64_t(1023) & 0xFFFFFFFFu)).as(Ty::U32);
}

/// Spins until the phase of parity Parity of the mbarrier at Mbar completed.
void emitPhaseWait(ptx::PTXFunctionBuilder &B, const Reg &Mbar, const Reg &Parity) {
  std::string Loop = B.newLabel("mbar_wait");
  B.label(Loop);
  Reg Done = B.newReg(Ty::Pred);
  B.emit("mbarrier.try_wait.parity.shared::cta.b64 " + Done.name() + ", [" + Mbar.name() + "], " +
         Parity.name() + ";");
  B.braIf(Done, Loop, /*Negated=*/true);
}

void FunctionLowering::waitForTensorSlot(const Reg &Value, const AsyncRing &Ring) {
  Reg Index = B.bitAnd(Ty::B32, B.shr(Ty::U32, Value, 1), 511);
  Reg Mbar = B.add(Ty::U32, MbarBase,
                   B.madLo(Ty::U32, Index.as(Ty::U32), 8, static_cast<int64_t>(Ring.MbarOffset)));
  emitPhaseWait(B, Mbar, B.bitAnd(Ty::B32, Value, 1));
}

void FunctionLowering::drainTensorCopies() {
  // Drains precede reuses of the rings' space by every thread (after a
  // barrier), including a store's staging in the slots.
  waitForStagingReads();
  for (const AsyncRing &Ring : Rings) {
    if (Ring.TensorMap < 0 || Ring.MbarShare >= 0) // waited for with the ring it shares with
      continue;
    // One wait per slot, in a counted loop: unrolled, the waits cost ptxas
    // 6% of its time on the 128 x 256 x 64 matmul (twice the waits then).
    Reg Mbar = B.add(Ty::U32, MbarBase, static_cast<int64_t>(Ring.MbarOffset));
    Reg Slot = B.mov(Ty::U32, 0);
    std::string Loop = B.newLabel("drain");
    B.label(Loop);
    // The parity of the slot's latest fill: its phase bit flipped back.
    Reg Bit = B.bitAnd(Ty::B32, B.shr(Ty::U32, Ring.PhaseBits, Slot), 1);
    emitPhaseWait(B, B.madLo(Ty::U32, Slot, 8, Mbar), B.bitXor(Ty::B32, Bit, 1));
    B.movTo(Slot, B.add(Ty::U32, Slot, 1));
    B.braIf(B.setp(ptx::Cmp::Lt, Ty::U32, Slot, static_cast<int64_t>(Ring.NumSlots)), Loop);
  }
}

void FunctionLowering::placeMbarriers() {
  if (MbarBytes)
    B.fillPrologueLine(MbarBaseLine, "mov.u32 " + MbarBase.name() + ", tritonc_smem+" +
                                         std::to_string(mbarrierOffset()) + ";");
}

} // namespace tritonc::codegen
