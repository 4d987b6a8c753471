//===- Lowering.cpp - Values, layouts, control flow and barriers ---------===//

#include "Lowering.h"

#include <bit>
#include <set>

#include "tritonc/analysis/PointerBase.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"

#include <algorithm>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

Ty ptxTypeOf(const ir::Type *T) {
  T = T->getScalarType();
  switch (T->getKind()) {
  case ir::TypeKind::Int:
    switch (T->getIntBits()) {
    case 1:
      return Ty::Pred;
    case 8:
    case 16:
      return Ty::S16;
    case 32:
      return Ty::S32;
    default:
      return Ty::S64;
    }
  case ir::TypeKind::Float:
    switch (T->getFloatKind()) {
    case ir::FloatKind::F16:
      return Ty::F16;
    case ir::FloatKind::BF16:
      return Ty::BF16;
    case ir::FloatKind::F32:
      return Ty::F32;
    default:
      return Ty::F64;
    }
  case ir::TypeKind::Pointer:
    return Ty::U64;
  default:
    reportInternalError("codegen: no PTX type for " + T->str());
  }
}

Ty moveTypeOf(Ty T) {
  switch (T) {
  case Ty::Pred:
  case Ty::F16:
  case Ty::BF16:
  case Ty::S16:
    return Ty::B16;
  default:
    return T;
  }
}

Ty unsignedTy(Ty T) {
  switch (T) {
  case Ty::S16:
    return Ty::U16;
  case Ty::S32:
    return Ty::U32;
  case Ty::S64:
    return Ty::U64;
  default:
    return T;
  }
}

Ty bitsTy(Ty T) {
  switch (ptx::tyBits(T)) {
  case 16:
    return Ty::B16;
  case 32:
    return Ty::B32;
  default:
    return Ty::B64;
  }
}

Reg FunctionLowering::zeroOf(Ty T) {
  switch (T) {
  case Ty::Pred:
    return B.setp(ptx::Cmp::Ne, Ty::U32, B.mov(Ty::U32, 0), 0);
  case Ty::F32:
    return B.mov(T, Operand::f32(0));
  case Ty::F64:
    return B.mov(T, Operand::f64(0));
  case Ty::F16:
  case Ty::BF16:
    return B.mov(T, Operand::hex(0));
  default:
    return B.mov(T, 0);
  }
}

unsigned memBytesOf(const ir::Type *T) { return T->getScalarType()->getScalarSizeInBytes(); }

FunctionLowering::FunctionLowering(const ir::Function &F, const LayoutAssignment &LA,
                                   const analysis::AxisInfoAnalysis &AI, ptx::PTXFunctionBuilder &B,
                                   const CodeGenOptions &Options)
    : B(B), LA(LA), AI(AI), Options(Options), F(F) {}

// --- Thread geometry -------------------------------------------------------

Reg FunctionLowering::threadId() {
  if (!Tid.valid()) {
    auto P = B.prologue();
    Tid = partitionThreadId();
  }
  return Tid;
}

Reg FunctionLowering::laneId() {
  if (!Lane.valid()) {
    Reg T = threadId();
    auto P = B.prologue();
    Lane = B.bitAnd(Ty::U32, T, 31);
  }
  return Lane;
}

Reg FunctionLowering::warpId() {
  if (!Warp.valid()) {
    Reg T = threadId();
    auto P = B.prologue();
    Warp = B.shr(Ty::U32, T, 5);
  }
  return Warp;
}

Regs FunctionLowering::getVectorHeads(const ir::Value *V, const LinearLayout &L, unsigned Vec) {
  if (Vec <= 1 || !V->getType()->isTile() || !LA.isRematerializable(V))
    return get(V, L);
  // The same layout without the register bits that move inside a vector.
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  for (LinearLayout::InDim &In : Ins)
    if (In.Name == "register")
      In.Bases.erase(In.Bases.begin(), In.Bases.begin() + std::countr_zero(Vec));
  Regs Heads = get(V, LinearLayout(std::move(Ins), L.getOutDims()));
  Regs Out(static_cast<size_t>(numRegisters(L)));
  for (size_t R = 0; R < Heads.size(); ++R)
    Out[R * Vec] = Heads[R];
  return Out;
}

Reg FunctionLowering::ringBase() {
  if (!RingBaseReg.valid()) {
    auto P = B.prologue();
    RingBaseReg = B.sharedAddress("tritonc_smem");
  }
  return RingBaseReg;
}

std::optional<Reg> FunctionLowering::cachePolicy(const ir::Value *Ptr) {
  // Only the bulk tensor copies and stores (TMA) ask: with `.L2::cache_hint`
  // on cp.async and ld.global, matmul_splitk.tc with CACHE_A = CACHE_B =
  // __evict_first and aligned strides compiled without TMA (--no-tma, or
  // one stage) raised an illegal instruction on the H100 and H200 (the
  // first hinted LDGSTS, whose cache descriptor register nothing writes in
  // the SASS), while it ran without the hints. A plain kernel with one
  // hinted 16-byte load ran; the cause is not found. Other accesses go
  // without the hint until it is.
  const ir::Argument *Base = analysis::pointerBase(Ptr);
  if (!Base || Base->attrs().Eviction == ir::EvictionPolicy::Normal)
    return std::nullopt;
  // One policy register per kind, made once in the prologue (not once per
  // access, in every iteration of a loop).
  bool First = Base->attrs().Eviction == ir::EvictionPolicy::First;
  Reg &Policy = First ? EvictFirstPolicy : EvictLastPolicy;
  if (!Policy.valid()) {
    auto P = B.prologue();
    Policy = B.createPolicy(First);
  }
  return Policy;
}

Reg FunctionLowering::sharedBase() {
  // Where no buffer holds data, scratch may reuse the buffers' space.
  if (hasRingSpace() && !RingLiveBlocks.count(CurrentBlock))
    return ringBase();
  if (!SmemBase.valid()) {
    Reg Base = ringBase();
    auto P = B.prologue();
    SmemBase = RingBytes ? B.add(Ty::U32, Base, static_cast<int64_t>(RingBytes)) : Base;
  }
  return SmemBase;
}

unsigned FunctionLowering::layoutId(const LinearLayout &L) {
  for (unsigned I = 0; I < InternedLayouts.size(); ++I)
    if (InternedLayouts[I] == L)
      return I;
  InternedLayouts.push_back(L);
  return static_cast<unsigned>(InternedLayouts.size() - 1);
}

const ir::Value *FunctionLowering::sameComputation(const ir::Value *V) {
  V = beforeConversions(V);
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  if (!I || !V->getType()->isTile() || !LA.isRematerializable(V))
    return V;
  if (auto It = Representatives.find(V); It != Representatives.end())
    return It->second;
  std::string Key = std::string(ir::opcodeName(I->getOpcode())) + " " +
                    I->getType()->withLayout(nullptr)->str() + " " +
                    std::to_string(static_cast<int>(I->Predicate)) + " " +
                    std::to_string(I->RangeStart) + " " + std::to_string(I->RangeEnd);
  for (const ir::Value *Op : I->operands())
    Key += " " + std::to_string(reinterpret_cast<uintptr_t>(sameComputation(Op)));
  const ir::Value *Rep = Computations.emplace(Key, V).first->second;
  return Representatives[V] = Rep;
}

const Regs &FunctionLowering::threadCoords(const LinearLayout &L) {
  unsigned Id = layoutId(L);
  auto It = Coords.find(Id);
  if (It != Coords.end())
    return It->second;
  Reg LaneR = laneId(), WarpR = warpId();
  auto P = B.prologue();
  Regs Out;
  size_t Rank = L.getOutDims().size();
  for (size_t D = 0; D < Rank; ++D) {
    Reg Acc = B.mov(Ty::U32, 0);
    for (const auto &[Dim, Src] : {std::pair<const char *, Reg>{"lane", LaneR}, {"warp", WarpR}})
      for (int32_t Bit = 0; Bit < L.getInDimSizeLog2(Dim); ++Bit) {
        int32_t C = L.getBasis(Dim, Bit)[D];
        if (!C)
          continue;
        Reg One = B.inst("bfe.u32", Ty::U32, {Src, Bit, 1});
        Reg Scaled = B.mul(Ty::U32, One, C);
        Acc = B.bitOr(Ty::U32, Acc, Scaled);
      }
    Out.push_back(Acc);
  }
  return Coords.emplace(Id, std::move(Out)).first->second;
}

Reg FunctionLowering::ownerPredicate(const LinearLayout &L) {
  unsigned Id = layoutId(L);
  auto It = Owners.find(Id);
  if (It != Owners.end())
    return It->second;
  int64_t LaneMask = 0, WarpMask = 0;
  for (const auto &[Dim, Mask] : L.getFreeVariableMasks()) {
    if (Dim == "lane")
      LaneMask = Mask;
    else if (Dim == "warp")
      WarpMask = Mask;
  }
  Reg Owner;
  if (LaneMask || WarpMask) {
    Reg LaneR = laneId(), WarpR = warpId();
    auto P = B.prologue();
    Reg A = B.bitAnd(Ty::U32, LaneR, static_cast<int64_t>(LaneMask));
    Reg W = B.bitAnd(Ty::U32, WarpR, static_cast<int64_t>(WarpMask));
    Owner = B.setp(ptx::Cmp::Eq, Ty::U32, B.bitOr(Ty::U32, A, W), 0);
  }
  return Owners.emplace(Id, Owner).first->second;
}

std::vector<int64_t> FunctionLowering::registerCoords(const LinearLayout &L, int32_t R) const {
  std::vector<int64_t> Out;
  for (const auto &[Name, V] : L.apply({{"register", R}, {"lane", 0}, {"warp", 0}}))
    Out.push_back(V);
  return Out;
}

std::vector<bool> FunctionLowering::duplicateRegisters(const LinearLayout &L) const {
  int64_t Free = 0;
  for (const auto &[Dim, Mask] : L.getFreeVariableMasks())
    if (Dim == "register")
      Free = Mask;
  std::vector<bool> Dup(numRegisters(L));
  for (int32_t R = 0; R < numRegisters(L); ++R)
    Dup[R] = (R & Free) != 0;
  return Dup;
}

void FunctionLowering::fillDuplicateRegisters(const LinearLayout &L, Regs &Out) const {
  int64_t Free = 0;
  for (const auto &[Dim, Mask] : L.getFreeVariableMasks())
    if (Dim == "register")
      Free = Mask;
  for (size_t R = 0; R < Out.size(); ++R)
    if (R & Free)
      Out[R] = Out[R & ~Free];
}

// --- Shared memory bookkeeping -----------------------------------------------

void FunctionLowering::waitForCopiesAndMmas() {
  B.emit("cp.async.wait_all;");
  forcedBarrier();
}

void FunctionLowering::sharedAccess(bool Write, uint64_t Bytes) {
  partitionUsesScratch();
  if (hasRingSpace() && !RingLiveBlocks.count(CurrentBlock)) {
    // Scratch over the rings: the copies and MMAs that may still use them
    // (masked-off copies of the last iterations, other warpgroups' MMAs)
    // must be done everywhere before the first access of this block.
    if (DrainedBlocks.insert(CurrentBlock).second)
      waitForCopiesAndMmas();
    ScratchOverRings = std::max(ScratchOverRings, Bytes);
  } else {
    ScratchBytes = std::max(ScratchBytes, Bytes);
  }
  analysis::SyncStatement S;
  (Write ? S.Writes : S.Reads).push_back({0, Bytes});
  addStatement(std::move(S));
}

void FunctionLowering::forcedBarrier(bool WholeCTA) {
  PendingBarrier = false; // this one serves a pending `barrier` op too
  analysis::SyncStatement S;
  S.IsBarrier = true;
  Sync[CurrentBlock].Statements.push_back(std::move(S));
  SyncOwners[CurrentBlock].push_back(StatementOwner);
  Segment.clear();
  emitBarrier(WholeCTA);
  ++NumBarriers;
}

void FunctionLowering::irBarrier(const Instruction &I) {
  ir::BasicBlock &BB = *const_cast<ir::BasicBlock *>(I.getParent());
  auto Next = std::next(BB.iteratorTo(&I));
  const Instruction *N = Next == BB.instructions().end() ? nullptr : Next->get();
  bool Defer = N && !N->isTerminator() &&
               (N->getOpcode() == Opcode::ConvertLayout || N->getCategory() != ir::OpCategory::Gpu);
  if (Defer)
    PendingBarrier = true;
  else
    forcedBarrier();
}

void FunctionLowering::addStatement(analysis::SyncStatement S) {
  if (PendingBarrier || analysis::conflictsWithSegment(Segment, S))
    forcedBarrier();
  Segment.push_back(S);
  Sync[CurrentBlock].Statements.push_back(std::move(S));
  SyncOwners[CurrentBlock].push_back(StatementOwner);
}

// --- Values --------------------------------------------------------------

Reg FunctionLowering::argument(const ir::Argument &A) {
  auto It = Args.find(&A);
  if (It == Args.end())
    reportInternalError("codegen: argument of another function");
  return It->second;
}

Reg FunctionLowering::constant(const ir::Constant &C) {
  const ir::Type *T = C.getType();
  Ty PT = ptxTypeOf(T);
  if (C.isUndef())
    return zeroOf(PT);
  switch (PT) {
  case Ty::Pred:
    return B.setp(ptx::Cmp::Ne, Ty::U32, B.mov(Ty::U32, C.getInt() & 1), 0);
  case Ty::F32:
    return B.mov(Ty::F32, Operand::f32(static_cast<float>(C.getFloat())));
  case Ty::F64:
    return B.mov(Ty::F64, Operand::f64(C.getFloat()));
  case Ty::F16:
  case Ty::BF16: {
    // Round through f32 on the device would cost a cvt; encode the bits here.
    Reg F = B.mov(Ty::F32, Operand::f32(static_cast<float>(C.getFloat())));
    return fromF32(F, T);
  }
  default:
    return B.mov(PT, static_cast<int64_t>(C.getInt()));
  }
}

Reg FunctionLowering::scalar(const ir::Value *V) {
  if (V->getType()->isTile())
    reportInternalError("codegen: scalar() of a tile");
  if (const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V)))
    return constant(*C);
  if (const ir::Argument *A = ir::asArgument(const_cast<ir::Value *>(V)))
    return argument(*A);
  auto It = Values.find(V);
  if (It == Values.end() || It->second.empty())
    reportInternalError("codegen: scalar used before it was lowered");
  return It->second[0];
}

Regs FunctionLowering::getOwn(const ir::Value *V) {
  if (!V->getType()->isTile())
    return {scalar(V)};
  if (const Instruction *C = ir::asInstruction(const_cast<ir::Value *>(V));
      C && C->getOpcode() == Opcode::ConvertLayout)
    return get(V, LA.layoutOf(V));
  if (LA.isRematerializable(V))
    return get(V, LA.defaultLayout(V->getType()->getShape()));
  // A narrowing left for a packing store that reads it elementwise after all.
  if (const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
      I && NarrowedAtUse.count(I) && !Values.count(V))
    Values[V] = wideNarrowing(*I).elements(B);
  auto It = Values.find(V);
  if (It == Values.end())
    reportInternalError("codegen: tile used before it was lowered");
  return It->second;
}

Regs FunctionLowering::relabelFromOperand(const Instruction &I, const LinearLayout &L) {
  const ir::Value *Op = I.getOperand(0);
  switch (I.getOpcode()) {
  case Opcode::Reshape:
    return get(Op, reshapeLayout(L, Op->getType()->getShape()));
  case Opcode::Trans:
    return get(Op, transposeLayout(L));
  case Opcode::Broadcast:
    return get(Op, broadcastOperandLayout(L, Op->getType()->getShape()));
  default:
    reportInternalError("codegen: not a relabeling instruction");
  }
}

Regs FunctionLowering::extractSlice(const Instruction &I) {
  const ir::Value *Op = I.getOperand(0);
  LinearLayout From = operandLayout(Op), To = LA.layoutOf(&I);
  std::vector<int64_t> Offsets;
  for (unsigned D = 1; D < I.getNumOperands(); ++D)
    Offsets.push_back(ir::asConstant(const_cast<ir::Value *>(I.getOperand(D)))->getInt());
  // The offsets are multiples of the window's power-of-two extents, so a
  // window coordinate plus its offset is their XOR: with the same lane and
  // warp images, register r of the window is the tile's register holding
  // the window's element r of lane 0, warp 0, in every thread.
  bool SameThreads = true;
  for (const char *Dim : {"lane", "warp"})
    for (int32_t Bit = 0; Bit < To.getInDimSizeLog2(Dim); ++Bit)
      SameThreads &=
          Bit < From.getInDimSizeLog2(Dim) && To.getBasis(Dim, Bit) == From.getBasis(Dim, Bit);
  SameThreads &= To.getInDimSizeLog2("lane") == From.getInDimSizeLog2("lane") &&
                 To.getInDimSizeLog2("warp") == From.getInDimSizeLog2("warp");
  std::map<std::vector<int64_t>, int32_t> RegisterAt;
  for (int32_t R = numRegisters(From); R-- > 0;)
    RegisterAt[registerCoords(From, R)] = R;
  Regs Vals = get(Op, From), Out;
  for (int32_t R = 0; SameThreads && R < numRegisters(To); ++R) {
    std::vector<int64_t> At = registerCoords(To, R);
    for (size_t D = 0; D < At.size(); ++D)
      At[D] += Offsets[D];
    auto It = RegisterAt.find(At);
    if (It == RegisterAt.end())
      break;
    Out.push_back(Vals[static_cast<size_t>(It->second)]);
  }
  if (Out.size() != static_cast<size_t>(numRegisters(To)))
    throw UnsupportedConstruct(I.Loc, "extract_slice: the window's layout " + I.getType()->str() +
                                          " does not keep each element in the thread that holds "
                                          "it in " +
                                          Op->getType()->str());
  return Out;
}

Regs FunctionLowering::get(const ir::Value *V, const LinearLayout &L) {
  if (!V->getType()->isTile())
    return Regs(numRegisters(L), scalar(V));
  // A convert_layout is lowered where its value is read, once per block
  // and layout, as the conversion its user asked for: the data moves next
  // to the user's own address arithmetic (as the back end chose before
  // assign-layouts made conversions explicit), and a read in another layout
  // converts the operand directly instead of twice.
  if (const Instruction *C = ir::asInstruction(const_cast<ir::Value *>(V));
      C && C->getOpcode() == Opcode::ConvertLayout)
    return get(C->getOperand(0), L);
  bool Remat = LA.isRematerializable(V);
  if (!Remat && LA.layoutOf(V) == L)
    return getOwn(V);
  auto Key = std::make_pair(sameComputation(V), layoutId(L));
  auto Cached = BlockCache.find(Key);
  if (Cached != BlockCache.end())
    return Cached->second;
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  Regs R;
  bool Relabel = I && (I->getOpcode() == Opcode::Reshape || I->getOpcode() == Opcode::Trans ||
                       I->getOpcode() == Opcode::Broadcast);
  if (Relabel) {
    R = relabelFromOperand(*I, L);
  } else if (Remat) {
    if (I->getOpcode() == Opcode::MakeRange)
      R = makeRange(*I, L);
    else if (I->getOpcode() == Opcode::Splat)
      R = Regs(numRegisters(L), scalar(I->getOperand(0)));
    else
      R = lowerElementwise(*I, &L);
  } else if (NarrowedAtUse.count(I) && !Values.count(V)) {
    R = getForPacking(V, L).elements(B);
  } else {
    const LinearLayout &Own = LA.layoutOf(V);
    const Regs &Have = Values.at(V);
    if (auto Map = registerRemap(Own, L)) {
      for (int32_t Src : *Map)
        R.push_back(Have[Src]);
    } else if (LA.isRecomputable(V) && CurrentBlockRunsOnce) {
      // A few divisions per thread, once, cost less than a round trip
      // through shared memory with two barriers (the conv's epilogue needs
      // its row decomposition in the store's layout). In a loop the
      // divisions would run every iteration, so there it is moved.
      R = lowerElementwise(*I, &L);
    } else {
      remarkSharedConversion(*V);
      R = convertViaShared(Have, V->getType()->getScalarType(), V->getType()->getShape(), Own, L);
    }
  }
  if (R.size() != static_cast<size_t>(numRegisters(L)))
    reportInternalError("codegen: value has the wrong number of registers for its layout");
  BlockCache.emplace(Key, R);
  return R;
}

// --- Blocks and control flow -------------------------------------------------

const Regs &FunctionLowering::phiRegs(const Instruction &Phi) {
  auto It = Values.find(&Phi);
  if (It != Values.end())
    return It->second;
  Regs R;
  Ty T = ptxTypeOf(Phi.getType());
  int32_t N = Phi.getType()->isTile() ? numRegisters(LA.layoutOf(&Phi)) : 1;
  if (Phi.getType()->isSharedBuffer()) { // a slot's address
    T = Ty::U32;
    N = 1;
  }
  for (int32_t I = 0; I < N; ++I)
    R.push_back(B.newReg(T));
  return Values.emplace(&Phi, std::move(R)).first->second;
}

void FunctionLowering::lowerTerminator(const Instruction &I) {
  const ir::BasicBlock &BB = *I.getParent();
  if (I.getOpcode() == Opcode::WarpJoin)
    return lowerWarpJoin(I); // the join block starts with no phi
  if (I.getOpcode() == Opcode::Ret) {
    if (HasExplicitCopies) // no copy may still be writing when the program ends
      B.emit("cp.async.wait_all;");
    B.ret();
    return;
  }
  // Incoming values are computed (and converted) before the branch, in this
  // block, so that shared-memory traffic stays on straight-line code; the
  // edges only move registers.
  struct Copy {
    Regs Dst, Src;
  };
  std::vector<std::vector<Copy>> EdgeCopies;
  for (const ir::BasicBlock *Succ : I.successors()) {
    std::vector<Copy> Copies;
    std::set<std::string> SuccPhiRegs;
    for (const auto &IP : Succ->instructions()) {
      if (IP->getOpcode() != Opcode::Phi)
        break;
      for (const Reg &R : phiRegs(*IP))
        SuccPhiRegs.insert(R.name());
    }
    for (const auto &IP : Succ->instructions()) {
      if (IP->getOpcode() != Opcode::Phi)
        break;
      const ir::Value *In = IP->getIncomingValueFor(&BB);
      if (!In)
        reportInternalError("codegen: phi without a value for a predecessor");
      if (InPlaceWgmma.count(In)) // accumulated in the phi's registers
        continue;
      Regs Dst = phiRegs(*IP);
      Regs Src = IP->getType()->isTile() ? get(In, LA.layoutOf(IP.get())) : Regs{scalar(In)};
      // An incoming value held in registers of a phi of the same block (a
      // swap, or a relabeling of such a phi) is copied to temporaries first,
      // before the phis are written; others move directly (fewer copies for
      // ptxas to coalesce: a wgmma accumulator is 128 registers).
      bool ReadsPhiRegs = false;
      for (const Reg &S : Src)
        ReadsPhiRegs = ReadsPhiRegs || SuccPhiRegs.count(S.name());
      Regs Tmp;
      for (const Reg &S : Src)
        Tmp.push_back(ReadsPhiRegs ? B.mov(S.type(), S) : S);
      Copies.push_back({std::move(Dst), std::move(Tmp)});
    }
    EdgeCopies.push_back(std::move(Copies));
  }
  auto EmitCopies = [&](const std::vector<Copy> &Copies) {
    for (const Copy &C : Copies)
      for (size_t R = 0; R < C.Dst.size(); ++R)
        B.movTo(C.Dst[R], C.Src[R]);
  };
  if (I.getOpcode() == Opcode::WarpSpecialize) {
    for (const std::vector<Copy> &Copies : EdgeCopies)
      EmitCopies(Copies);
    return lowerWarpSpecialize(I);
  }
  if (I.getOpcode() == Opcode::Br) {
    EmitCopies(EdgeCopies[0]);
    B.bra(Labels.at(I.successors()[0]), /*Uniform=*/true);
    return;
  }
  Reg Cond = scalar(I.getOperand(0));
  auto ExitEdge = [&] {
    EmitCopies(EdgeCopies[1]);
    B.bra(Labels.at(I.successors()[1]), true);
  };
  if (EdgeCopies[0].empty()) {
    B.braIf(Cond, Labels.at(I.successors()[0]));
    ExitEdge();
    return;
  }
  std::string TrueEdge = B.newLabel("edge");
  B.braIf(Cond, TrueEdge);
  ExitEdge();
  B.label(TrueEdge);
  EmitCopies(EdgeCopies[0]);
  B.bra(Labels.at(I.successors()[0]), true);
}

void FunctionLowering::lowerInstruction(const Instruction &I) {
  if (I.getType()->isTile() && LA.isRematerializable(&I))
    return; // Computed where used.
  if (narrowsAtPackingUse(I)) {
    NarrowedAtUse.insert(&I); // Lowered by the store that reads it.
    return;
  }
  switch (I.getOpcode()) {
  case Opcode::Phi:
    phiRegs(I);
    return;
  case Opcode::Load:
  case Opcode::MaskedLoad:
    return lowerLoad(I);
  case Opcode::Store:
  case Opcode::MaskedStore:
    return lowerStore(I);
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW:
    return lowerAtomic(I);
  case Opcode::Print:
    return lowerPrint(I);
  case Opcode::Assert:
    return lowerAssert(I);
  case Opcode::Dot:
    return lowerDot(I);
  case Opcode::Reduce:
    return lowerReduce(I);
  case Opcode::Reshape:
  case Opcode::Trans:
  case Opcode::Broadcast:
    Values[&I] = relabelFromOperand(I, LA.layoutOf(&I));
    return;
  case Opcode::ConvertLayout:
    return; // Converted where it is read (get()).
  case Opcode::ExtractSlice:
    Values[&I] = extractSlice(I);
    return;
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms: {
    static const ptx::SpecialReg Ids[] = {ptx::SpecialReg::CtaIdX, ptx::SpecialReg::CtaIdY,
                                          ptx::SpecialReg::CtaIdZ};
    static const ptx::SpecialReg Counts[] = {ptx::SpecialReg::NCtaIdX, ptx::SpecialReg::NCtaIdY,
                                             ptx::SpecialReg::NCtaIdZ};
    int64_t Axis = std::clamp<int64_t>(I.Axis, 0, 2);
    Reg R = B.special(I.getOpcode() == Opcode::GetProgramId ? Ids[Axis] : Counts[Axis]);
    Values[&I] = {R.as(Ty::S32)};
    return;
  }
  default:
    if (I.getCategory() == ir::OpCategory::Gpu)
      return lowerSharedBufferOp(I);
    if (I.getType()->isVoid())
      reportInternalError(std::string("codegen: cannot lower ") + ir::opcodeName(I.getOpcode()));
    Values[&I] = I.getType()->isTile() ? lowerElementwise(I, &LA.layoutOf(&I))
                                       : lowerElementwise(I, nullptr);
    return;
  }
}

void FunctionLowering::lowerBlock(const ir::BasicBlock &BB) {
  CurrentBlock = BlockIndex.at(&BB);
  enterPartitionOf(BB);
  CurrentBlockRunsOnce = !BB.leadsTo(&BB);
  BlockCache.clear();
  B.label(Labels.at(&BB));
  for (const auto &IP : BB.instructions()) {
    // Each instruction's statements start a segment of their own: barriers
    // against earlier instructions are insert-barriers' (addStatement).
    StatementOwner = IP.get();
    Segment.clear();
    bool Deferring = PendingBarrier;
    if (IP->isTerminator()) {
      lowerTerminator(*IP);
    } else {
      CurrentInst = IP.get();
      lowerInstruction(*IP);
    }
    if (Deferring && PendingBarrier) // nothing in its lowering took it
      forcedBarrier();
  }
  CurrentInst = nullptr;
}

void FunctionLowering::remarkSharedConversion(const ir::Value &V) {
  const Instruction *At =
      CurrentInst ? CurrentInst : ir::asInstruction(const_cast<ir::Value *>(&V));
  if (!At || !wantsRemark(RemarkKind::Missed, "layout-conversion"))
    return;
  const ir::Type *T = V.getType();
  uint64_t Bytes = memBytesOf(T);
  for (int64_t D : T->getShape())
    Bytes *= static_cast<uint64_t>(D);
  remark(RemarkKind::Missed, "layout-conversion", *At,
         ir::printOperand(V) + " (" + T->withLayout(nullptr)->str() + ", " + std::to_string(Bytes) +
             " bytes) goes through shared memory, with barriers, to change how its elements are "
             "spread over the threads: its producer's layout differs from the one this " +
             ir::opcodeName(At->getOpcode()) + " needs");
}

const std::vector<FunctionLowering::Step> &FunctionLowering::steps() {
  static const std::vector<Step> Steps = {
      {"plan-warp-partitions",
       "the partitions of each warp_specialize: their warps, named barriers and register "
       "budgets (.maxnreg), the kernel's warps (LowerWarpSpecialize.cpp)",
       &FunctionLowering::planWarpPartitions},
      {"declare-parameters", "kernel parameters, block labels, the dominator tree",
       &FunctionLowering::declareParameters},
      {"report-dots", "remarks on the unit each dot runs on", &FunctionLowering::remarkDots},
      {"place-shared-buffers",
       "smem_alloc buffers of GPU-level IR placed after the rings (at their allocate-shared "
       "offsets), scratch over them only where they hold no data (LowerAsync.cpp)",
       &FunctionLowering::planSharedBuffers},
      {"plan-tensor-descriptors",
       "sm_90a: the tensor map of each make_tensor_desc, a kernel parameter the launcher "
       "encodes (LowerHopper.cpp)",
       &FunctionLowering::planTensorDescriptors},
      {"lower-blocks",
       "instruction selection block by block in dominator order (Lower*.cpp), "
       "layout conversions through shared memory",
       &FunctionLowering::lowerBlocks},
      {"check-barriers",
       "every scratch and global access the lowering emitted is ordered by a barrier "
       "insert-barriers placed or one the lowering emits itself (an internal error "
       "otherwise; analysis/LoweringAccesses.h)",
       &FunctionLowering::checkBarriersStep},
      {"place-mbarriers",
       "sm_90a: the mbarrier buffers' address, after the rest of the dynamic shared memory "
       "(LowerAsync.cpp)",
       &FunctionLowering::placeMbarriers}};
  return Steps;
}

void FunctionLowering::run() {
  for (const Step &S : steps())
    (this->*S.Run)();
}

void FunctionLowering::declareParameters() {
  B.setNumWarps(KernelWarps, ptx::ThreadBound::ReqNTid);
  for (unsigned A = 0; A < F.getNumArgs(); ++A) {
    const ir::Argument *Arg = F.getArg(A);
    Ty T = ptxTypeOf(Arg->getType());
    bool Narrow = T == Ty::Pred || Arg->getType()->getScalarBits() == 8;
    Ty ParamTy = Narrow ? Ty::B16 : T;
    std::string Name = B.addParam(ParamTy == Ty::F16 || ParamTy == Ty::BF16 ? Ty::B16 : ParamTy);
    auto P = B.prologue();
    Reg V = B.ldParam(ParamTy == Ty::F16 || ParamTy == Ty::BF16 ? Ty::B16 : ParamTy, Name);
    if (T == Ty::Pred)
      V = B.setp(ptx::Cmp::Ne, Ty::U16, V.as(Ty::U16), 0);
    else if (Arg->getType()->getScalarBits() == 8)
      V = B.inst("cvt.s16.s8", Ty::S16, {V.as(Ty::S16)});
    else if (T == Ty::F16 || T == Ty::BF16)
      V = V.as(T);
    Args[Arg] = V;
  }
  unsigned Index = 0;
  for (const auto &BB : F.blocks()) {
    BlockIndex[BB.get()] = Index++;
    Labels[BB.get()] = B.newLabel("bb");
  }
  RunDominators.emplace(F);
}

void FunctionLowering::lowerBlocks() {
  size_t Index = BlockIndex.size();
  Sync.assign(Index, {});
  SyncOwners.assign(Index, {});
  for (const auto &BB : F.blocks())
    for (const ir::BasicBlock *S : BB->successors())
      Sync[BlockIndex.at(BB.get())].Successors.push_back(BlockIndex.at(S));
  // Dominators first, so that every operand is lowered before its uses
  // (the PTX blocks are connected by explicit branches, in any order).
  for (const ir::BasicBlock *BB : RunDominators->reversePostOrder())
    lowerBlock(*BB);
}

void FunctionLowering::checkBarriersStep() {
  std::vector<analysis::BarrierPoint> Missing = analysis::placeBarriers(Sync);
  if (Missing.empty())
    return;
  const Instruction *Owner = SyncOwners[Missing[0].Block][Missing[0].Statement];
  reportInternalError(
      "codegen: the shared or global memory access of " +
      (Owner ? ir::printOperand(*Owner) + " (" + ir::opcodeName(Owner->getOpcode()) + ")"
             : std::string("the function's entry")) +
      " needs a barrier that insert-barriers did not place (" + std::to_string(Missing.size()) +
      " such accesses; analysis/LoweringAccesses.h predicts them)");
}

} // namespace tritonc::codegen
