//===- LowerMemory.cpp - Global loads, stores and atomics -----------------===//
//
// A tile access uses the layout of its access plan: each thread owns groups
// of Vec elements that are contiguous in memory, read or written with one
// vector instruction of up to 16 bytes (16-bit elements travel packed in b32
// words). Accesses of one thread that lie along a run of contiguous pointers
// (a register bit of the layout stepping along the contiguous dimension
// inside the axis info's contiguity) share one address register and differ
// by the immediate offset: rows that are only 2-byte aligned (odd strides)
// cannot be read as vectors, but need not compute a 64-bit address per
// element either. Masked loads first move the `other` values into the
// destination registers, then load under the mask; element-wise loads whose
// mask is a bounds check of rows and columns first test the thread's rows
// and columns (insideBounds) and skip both where all are inside. Replicated
// elements (lanes or registers the layout maps to an element already held
// elsewhere) are stored and updated by one owner only. Every access is recorded for the
// barriers between threads' global accesses (GlobalOrdering.cpp).
//
// Atomics are relaxed at GPU scope, except scalar ones: those are executed
// by thread 0 of the program with acquire-release semantics, between
// barriers, and their result is broadcast to every thread through shared
// memory. This is what the spin-lock idiom `while (atomic_cas(lock, 0, 1)
// == 1);` and the last-arriver idiom of matmul_splitk.tc's workspace need.
// In the PTX memory model a barrier synchronizes its threads, and causality
// order is transitive: every thread's earlier accesses (the `red`s of a tile
// atomic included) precede thread 0's release, and its acquire precedes
// every thread's later accesses, with no fence of their own (the pattern of
// CUTLASS's split-K semaphore: barrier, then one thread's release store).
// Fences in every thread around it cost the covariance 4% and changed no
// result (a replay of its autotuning, bench/RESULTS.md).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/support/Diagnostics.h"

#include <bit>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;
using ptx::Cmp;

namespace {

std::string addr(const Reg &Ptr, int64_t Offset = 0) {
  return "[" + Ptr.name() + (Offset ? "+" + std::to_string(Offset) : "") + "]";
}

/// Whether register bit Bit of L moves along dimension Dim only, by a power
/// of two below the pointers' contiguity Contig along it, and no other bit of
/// any input dimension sets that coordinate bit: then the register with the
/// bit set lies in the same aligned block of contiguous pointers as the one
/// without, exactly that many elements further.
bool runsAlong(const LinearLayout &L, int32_t Bit, unsigned Dim, int64_t Contig) {
  const LinearLayout::Basis &Bs = L.getBasis("register", Bit);
  int32_t Step = Bs[Dim];
  if (Step <= 0 || !std::has_single_bit(static_cast<uint32_t>(Step)) || Step >= Contig)
    return false;
  for (size_t D = 0; D < Bs.size(); ++D)
    if (D != Dim && Bs[D] != 0)
      return false;
  for (const LinearLayout::InDim &In : L.getInDims())
    for (size_t J = 0; J < In.Bases.size(); ++J)
      if (!(In.Name == "register" && static_cast<int32_t>(J) == Bit) && (In.Bases[J][Dim] & Step))
        return false;
  return true;
}

} // namespace

FunctionLowering::AddressRuns FunctionLowering::getAddressRuns(const ir::Value *Ptr,
                                                               const LinearLayout &L, unsigned Vec,
                                                               unsigned Dim) {
  // Where the pointers are contiguous but not aligned enough for vectors
  // (odd row strides: one 2-byte access per element), every element would
  // otherwise get its own 64-bit address arithmetic. Registers that differ
  // only along a contiguous run share their run's address instead, with the
  // distance as the instruction's immediate offset (ld.global.b16 %h,
  // [%rd+64]).
  int32_t N = numRegisters(L);
  AddressRuns Runs{Regs(N), std::vector<int64_t>(N, 0)};
  int32_t VecBits = std::countr_zero(Vec), RegBits = L.getInDimSizeLog2("register");
  uint64_t RunBits = 0;
  if (Ptr->getType()->isTile() && LA.isRematerializable(Ptr)) {
    int64_t Contig = AI.get(Ptr).Contiguity[Dim];
    for (int32_t Bit = VecBits; Bit < RegBits; ++Bit)
      if (runsAlong(L, Bit, Dim, Contig))
        RunBits |= uint64_t(1) << Bit;
  }
  if (!RunBits) {
    Runs.Base = getVectorHeads(Ptr, L, Vec);
    return Runs;
  }
  // The run heads: L without the vector's and the runs' register bits.
  std::vector<LinearLayout::InDim> Ins = L.getInDims();
  for (LinearLayout::InDim &In : Ins)
    if (In.Name == "register") {
      std::vector<LinearLayout::Basis> Kept;
      for (int32_t Bit = VecBits; Bit < RegBits; ++Bit)
        if (!(RunBits >> Bit & 1))
          Kept.push_back(In.Bases[Bit]);
      In.Bases = std::move(Kept);
    }
  Regs Heads = get(Ptr, LinearLayout(std::move(Ins), L.getOutDims()));
  int64_t ElemBytes = Ptr->getType()->getPointee()->getScalarSizeInBytes();
  for (int32_t R = 0; R < N; R += static_cast<int32_t>(Vec)) {
    size_t Head = 0;
    int32_t HeadBit = 0;
    int64_t Elements = 0;
    for (int32_t Bit = VecBits; Bit < RegBits; ++Bit) {
      bool Set = R >> Bit & 1;
      if (RunBits >> Bit & 1)
        Elements += Set ? L.getBasis("register", Bit)[Dim] : 0;
      else
        Head |= static_cast<size_t>(Set) << HeadBit++;
    }
    Runs.Base[R] = Heads[Head];
    Runs.Offset[R] = Elements * ElemBytes;
  }
  return Runs;
}

/// Loads one element of 1 byte (i1, i8): `ld.global.s8` into a 16-bit
/// register, which sign-extends as the i8 representation wants.
static Reg loadByte(ptx::PTXFunctionBuilder &B, const Reg &Ptr, int64_t Offset, bool IsBool,
                    std::optional<Reg> Mask, const std::optional<Reg> &Other, FunctionLowering &L) {
  Reg V = Other ? (IsBool ? L.predToU16(*Other) : B.mov(Ty::S16, *Other)) : B.mov(Ty::S16, 0);
  Reg Dst = B.newReg(Ty::S16);
  B.movTo(Dst, V);
  std::string Text = "ld.global.s8 " + Dst.name() + ", " + addr(Ptr, Offset) + ";";
  if (Mask)
    Text = "@" + Mask->name() + " " + Text;
  B.emit(Text);
  return IsBool ? L.u16ToPred(Dst) : Dst;
}

void FunctionLowering::lowerLoad(const Instruction &I) {
  bool Masked = I.getOpcode() == Opcode::MaskedLoad;
  const ir::Type *Elem = I.getType()->getScalarType();
  Ty T = ptxTypeOf(Elem);
  unsigned Bytes = memBytesOf(Elem);
  if (!I.getType()->isTile()) {
    Reg Ptr = scalar(I.getOperand(0));
    globalAccess(I.getOperand(0), /*Reads=*/true, /*Writes=*/false, nullptr);
    std::optional<Reg> Mask, Other;
    if (Masked) {
      Mask = scalar(I.getOperand(1));
      Other = scalar(I.getOperand(2));
    }
    if (Bytes == 1) {
      Values[&I] = {loadByte(B, Ptr, 0, T == Ty::Pred, Mask, Other, *this)};
      return;
    }
    Ty MT = moveTypeOf(T);
    Regs R = Masked ? B.ldMasked(ptx::StateSpace::Global, MT, 1, Ptr, 0, *Mask, {Other->as(MT)})
                    : B.ldGlobal(MT, 1, Ptr);
    Values[&I] = {R[0].as(T)};
    return;
  }
  const AccessPlan &Plan = LA.accessOf(&I);
  const LinearLayout &L = Plan.Layout;
  unsigned HeadVec = Bytes == 1 ? 1 : Plan.Vec;
  AddressRuns Ptrs = getAddressRuns(I.getOperand(0), L, HeadVec, Plan.VecDim);
  Regs Mask, Other;
  if (Masked)
    Other = get(I.getOperand(2), L);
  std::vector<bool> Dup = duplicateRegisters(L);
  int32_t N = numRegisters(L);
  unsigned Vec = Bytes == 1 ? 1 : Plan.Vec;
  globalAccess(I.getOperand(0), /*Reads=*/true, /*Writes=*/false, &L);
  auto EmitLoads = [&](bool UseMask) {
    Regs Out(N);
    for (int32_t R0 = 0; R0 < N; R0 += Vec) {
      if (Dup[R0])
        continue;
      if (Bytes == 1) {
        std::optional<Reg> M, O;
        if (UseMask) {
          M = Mask[R0];
          O = Other[R0];
        }
        Out[R0] = loadByte(B, Ptrs.Base[R0], Ptrs.Offset[R0], T == Ty::Pred, M, O, *this);
        continue;
      }
      // Words: 16-bit elements pair up into b32 words when the vector has
      // two or more of them.
      bool Packed = Bytes == 2 && Vec >= 2;
      Ty WordTy = Packed ? Ty::B32 : moveTypeOf(T);
      unsigned Words = Packed ? Vec / 2 : Vec;
      std::vector<Operand> OtherWords;
      if (UseMask)
        for (unsigned W = 0; W < Words; ++W)
          OtherWords.push_back(Packed
                                   ? Operand(B.pack2x16(Other[R0 + 2 * W].as(Ty::B16),
                                                        Other[R0 + 2 * W + 1].as(Ty::B16), Ty::B32))
                                   : Operand(Other[R0 + W].as(WordTy)));
      Regs Loaded = UseMask ? B.ldMasked(ptx::StateSpace::Global, WordTy, Words, Ptrs.Base[R0],
                                         Ptrs.Offset[R0], Mask[R0], OtherWords)
                            : B.ldGlobal(WordTy, Words, Ptrs.Base[R0], Ptrs.Offset[R0]);
      for (unsigned W = 0; W < Words; ++W) {
        if (Packed) {
          auto [Lo, Hi] = B.unpack2x16(Loaded[W], Ty::B16);
          Out[R0 + 2 * W] = Lo.as(T);
          Out[R0 + 2 * W + 1] = Hi.as(T);
        } else {
          Out[R0 + W] = Loaded[W].as(T);
        }
      }
    }
    return Out;
  };
  std::optional<Reg> Inside;
  if (Masked && Bytes == 2 && Vec == 1)
    Inside = insideBounds(I.getOperand(1), L);
  Regs Out;
  if (!Inside) {
    if (Masked)
      Mask = getVectorHeads(I.getOperand(1), L, HeadVec);
    Out = EmitLoads(Masked);
  } else {
    // Where every element this thread reads is inside the bounds (all but
    // the edge tiles and the last iteration), the loads go without
    // predicates, and without the moves of the `other` values before them.
    std::string Edge = B.newLabel("edge_tile"), Done = B.newLabel("tile_loaded");
    B.braIf(*Inside, Edge, /*Negated=*/true);
    Regs Fast = EmitLoads(false);
    Out.resize(N);
    for (int32_t R = 0; R < N; ++R)
      if (Fast[R].valid()) {
        Out[R] = B.newReg(Fast[R].type());
        B.movTo(Out[R], Fast[R]);
      }
    B.bra(Done);
    B.label(Edge);
    // What the edge path computes (the per-element masks) exists on that
    // path only: later reads of the block must not find it cached.
    auto Cached = BlockCache;
    Mask = getVectorHeads(I.getOperand(1), L, HeadVec);
    Regs Slow = EmitLoads(true);
    BlockCache = std::move(Cached);
    for (int32_t R = 0; R < N; ++R)
      if (Slow[R].valid())
        B.movTo(Out[R], Slow[R]);
    B.label(Done);
  }
  fillDuplicateRegisters(L, Out);
  Values[&I] = std::move(Out);
}

std::optional<Reg> FunctionLowering::insideBounds(const ir::Value *Mask, const LinearLayout &L) {
  // A bounds check of rows and columns, and(broadcast(rows), broadcast(cols)),
  // holds for every element a thread holds in L when each factor holds for
  // every distinct element of it the thread holds: a few predicates per row
  // and per column instead of one per element.
  const Instruction *And = ir::asInstruction(const_cast<ir::Value *>(beforeConversions(Mask)));
  if (!And || And->getOpcode() != Opcode::And || !Mask->getType()->isTile())
    return std::nullopt;
  std::vector<std::pair<const ir::Value *, LinearLayout>> Factors;
  for (const ir::Value *Op : And->operands()) {
    const Instruction *F = ir::asInstruction(const_cast<ir::Value *>(beforeConversions(Op)));
    if (!F || F->getOpcode() != Opcode::Broadcast)
      return std::nullopt;
    const ir::Value *Src = F->getOperand(0);
    if (!Src->getType()->isTile() || !LA.isRematerializable(Src))
      return std::nullopt;
    Factors.emplace_back(Src, broadcastOperandLayout(L, Src->getType()->getShape()));
  }
  // The test costs a predicate and an `and` per distinct row and column
  // (recomputed every iteration), and saves the move of `other` and the
  // mask's `and` per element: taken where the rows and columns are well
  // fewer than the elements (two thirds: 18 for 32 elements of a 128 x 64
  // tile on 8 warps), not where each element has a row of its own.
  auto Distinct = [&](const LinearLayout &Of) {
    std::vector<bool> Same = duplicateRegisters(Of);
    return std::count(Same.begin(), Same.end(), false);
  };
  int64_t Checks = 0;
  for (const auto &Factor : Factors)
    Checks += Distinct(Factor.second);
  if (3 * Checks > 2 * Distinct(L))
    return std::nullopt;
  Reg All;
  for (const auto &[Src, Held] : Factors) {
    Regs Values = get(Src, Held);
    std::vector<bool> Same = duplicateRegisters(Held);
    for (size_t R = 0; R < Values.size(); ++R)
      if (!Same[R])
        All = All.valid() ? B.predAnd(All, Values[R]) : Values[R];
  }
  if (!All.valid())
    return std::nullopt;
  return All;
}

void FunctionLowering::lowerStore(const Instruction &I) {
  bool Masked = I.getOpcode() == Opcode::MaskedStore;
  const ir::Value *Ptr = I.getOperand(0);
  const ir::Type *Elem = I.getOperand(1)->getType()->getScalarType();
  Ty T = ptxTypeOf(Elem);
  unsigned Bytes = memBytesOf(Elem);
  auto StoreByte = [&](const Reg &P, int64_t Offset, const Reg &V) {
    Reg W = T == Ty::Pred ? predToU16(V) : V;
    B.emit("st.global.u8 " + addr(P, Offset) + ", " + W.name() + ";");
  };
  if (!Ptr->getType()->isTile()) {
    // Every thread stores the same value: later scalar loads of any thread
    // then see it without a barrier.
    Reg P = scalar(Ptr), V = scalar(I.getOperand(1));
    globalAccess(Ptr, /*Reads=*/false, /*Writes=*/true, nullptr);
    std::optional<ptx::PTXFunctionBuilder::GuardScope> G;
    if (Masked)
      G.emplace(B, scalar(I.getOperand(2)), false);
    if (Bytes == 1)
      StoreByte(P, 0, V);
    else
      B.stGlobal(moveTypeOf(T), P, 0, {V.as(moveTypeOf(T))});
    return;
  }
  const AccessPlan &Plan = LA.accessOf(&I);
  const LinearLayout &L = Plan.Layout;
  unsigned HeadVec = Bytes == 1 ? 1 : Plan.Vec;
  AddressRuns Ptrs = getAddressRuns(Ptr, L, HeadVec, Plan.VecDim);
  Regs Mask;
  PackableRegs Vals = getForPacking(I.getOperand(1), L);
  if (Masked)
    Mask = getVectorHeads(I.getOperand(2), L, HeadVec);
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  unsigned Vec = Bytes == 1 ? 1 : Plan.Vec;
  globalAccess(Ptr, /*Reads=*/false, /*Writes=*/true, &L);
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += Vec) {
    if (Dup[R0])
      continue;
    Reg Guard = Owner;
    if (Masked)
      Guard = Guard.valid() ? B.predAnd(Guard, Mask[R0]) : Mask[R0];
    std::optional<ptx::PTXFunctionBuilder::GuardScope> G;
    bool Packed = Bytes == 2 && Vec >= 2;
    Regs Words;
    if (Packed)
      for (unsigned W = 0; W < Vec / 2; ++W)
        Words.push_back(Vals.word(B, static_cast<size_t>(R0) + 2 * W));
    else
      for (unsigned W = 0; W < Vec; ++W)
        Words.push_back(Vals.element(B, static_cast<size_t>(R0) + W));
    if (Guard.valid())
      G.emplace(B, Guard, false);
    if (Bytes == 1) {
      StoreByte(Ptrs.Base[R0], Ptrs.Offset[R0], Words[0]);
      continue;
    }
    if (!Packed)
      for (Reg &W : Words)
        W = W.as(moveTypeOf(T));
    B.stGlobal(Packed ? Ty::B32 : moveTypeOf(T), Ptrs.Base[R0], Ptrs.Offset[R0], Words);
  }
}

void FunctionLowering::lowerAtomic(const Instruction &I) {
  const ir::Type *Elem = I.getType()->getScalarType();
  Ty T = ptxTypeOf(Elem);
  bool IsCas = I.getOpcode() == Opcode::AtomicCAS;
  bool IsFloat = Elem->getKind() == ir::TypeKind::Float;
  unsigned Bits = Elem->getScalarBits();
  std::string Op;
  if (IsCas) {
    Op = "cas.b" + std::to_string(Bits);
  } else {
    using RK = ir::ReduceKind;
    std::string Int = (Bits == 64 ? "64" : "32");
    switch (I.Reduction) {
    case RK::Add:
      Op = "add.u" + Int;
      break;
    case RK::FAdd:
      Op = Bits == 16 ? std::string("add.noftz.") + ptx::tyName(T)
                      : "add." + std::string(ptx::tyName(T));
      break;
    case RK::SMax:
      Op = "max.s" + Int;
      break;
    case RK::SMin:
      Op = "min.s" + Int;
      break;
    case RK::UMax:
      Op = "max.u" + Int;
      break;
    case RK::UMin:
      Op = "min.u" + Int;
      break;
    case RK::And:
      Op = "and.b" + Int;
      break;
    case RK::Or:
      Op = "or.b" + Int;
      break;
    case RK::Xor:
      Op = "xor.b" + Int;
      break;
    case RK::Xchg:
      Op = "exch.b" + std::to_string(Bits);
      break;
    default:
      break;
    }
  }
  bool Supported = !Op.empty() && (Bits == 32 || Bits == 64 || (Bits == 16 && !IsCas && IsFloat));
  if (!IsCas && IsFloat && I.Reduction != ir::ReduceKind::FAdd &&
      I.Reduction != ir::ReduceKind::Xchg)
    Supported = false;
  // sm_80 has no bf16 atomics (atom/red .add.noftz.bf16 need sm_90): an add
  // becomes a compare-and-swap loop per element, the others are rejected.
  bool Bf16OnSm80 = Bits == 16 && T == Ty::BF16 && Options.Arch == ptx::Arch::SM80;
  if (Bf16OnSm80 && I.Reduction != ir::ReduceKind::FAdd)
    Supported = false;
  bool Bf16AddByCas = Bf16OnSm80 && Supported;
  if (!Supported)
    throw UnsupportedConstruct(
        I.Loc, std::string("atomic ") + (IsCas ? "cas" : ir::reduceKindName(I.Reduction)) + " on " +
                   Elem->str() + " is not supported by the GPU back end");
  auto Emit = [&](const std::string &Sem, const Reg &Ptr, const std::vector<Reg> &Srcs) {
    Reg D = B.newReg(T);
    std::string Text = "atom" + Sem + ".global." + Op + " " + D.name() + ", " + addr(Ptr);
    for (const Reg &S : Srcs)
      Text += ", " + S.name();
    B.emit(Text + ";");
    return D;
  };
  // Emit(...) under a guard; the compare-and-swap loop branches, so it takes
  // the guard itself.
  auto EmitGuarded = [&](const Reg &Guard, const Reg &Ptr, const std::vector<Reg> &Srcs,
                         const std::string &Sem) {
    if (Bf16AddByCas)
      return bf16AddByCas(Ptr, Srcs[0], Guard);
    std::optional<ptx::PTXFunctionBuilder::GuardScope> G;
    if (Guard.valid())
      G.emplace(B, Guard, false);
    return Emit(Sem, Ptr, Srcs);
  };
  unsigned NumVals = IsCas ? 2 : 1;
  if (!I.getOperand(0)->getType()->isTile()) {
    forcedBarrier();
    globalAccess(I.getOperand(0), /*Reads=*/true, /*Writes=*/true, nullptr, /*Thread0=*/true);
    Reg Thread0 = B.setp(Cmp::Eq, Ty::U32, threadId(), 0);
    std::vector<Reg> Srcs;
    for (unsigned K = 0; K < NumVals; ++K)
      Srcs.push_back(scalar(I.getOperand(1 + K)));
    Reg Guard = Thread0;
    if (!IsCas && I.getNumOperands() > 2)
      Guard = B.predAnd(Guard, scalar(I.getOperand(2)));
    Reg Old = EmitGuarded(Guard, scalar(I.getOperand(0)), Srcs, ".acq_rel.gpu");
    Values[&I] = {broadcastFromThread0(Old, Elem)};
    return;
  }
  const AccessPlan &Plan = LA.accessOf(&I);
  const LinearLayout &L = Plan.Layout;
  Regs Ptrs = getVectorHeads(I.getOperand(0), L, Plan.Vec);
  std::vector<Regs> Srcs;
  for (unsigned K = 0; K < NumVals; ++K)
    Srcs.push_back(get(I.getOperand(1 + K), L));
  Regs Mask;
  if (!IsCas && I.getNumOperands() > 2)
    Mask = getVectorHeads(I.getOperand(2), L, Plan.Vec);
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  int32_t N = numRegisters(L);
  globalAccess(I.getOperand(0), /*Reads=*/true, /*Writes=*/true, &L);
  // Nobody reads the old values: reductions (`red`), which return nothing,
  // vectorized where the layout assignment allowed it (f32 add on sm_90).
  if (!IsCas && I.Reduction != ir::ReduceKind::Xchg && !I.hasUses() && !Bf16AddByCas) {
    for (int32_t R0 = 0; R0 < N; R0 += static_cast<int32_t>(Plan.Vec)) {
      if (Dup[R0])
        continue;
      Reg Guard = Owner;
      if (!Mask.empty())
        Guard = Guard.valid() ? B.predAnd(Guard, Mask[R0]) : Mask[R0];
      std::string Vals;
      for (unsigned W = 0; W < Plan.Vec; ++W)
        Vals += (W ? ", " : "") + Srcs[0][R0 + W].name();
      std::string Text = Plan.Vec > 1
                             ? "red.global.add.v" + std::to_string(Plan.Vec) + ".f32 " +
                                   addr(Ptrs[R0]) + ", {" + Vals + "};"
                             : "red.global." + Op + " " + addr(Ptrs[R0]) + ", " + Vals + ";";
      B.emit(Guard.valid() ? "@" + Guard.name() + " " + Text : Text);
    }
    return;
  }
  Regs Out(N);
  for (int32_t R = 0; R < N; ++R) {
    if (Dup[R])
      continue;
    // Pointers and masks are given per vector (a vectorized `red` above);
    // one element at a time, they are its head's, the pointer offset.
    int32_t InVec = R % static_cast<int32_t>(Plan.Vec), Head = R - InVec;
    Reg Guard = Owner;
    if (!Mask.empty())
      Guard = Guard.valid() ? B.predAnd(Guard, Mask[Head]) : Mask[Head];
    std::vector<Reg> S;
    for (const Regs &Src : Srcs)
      S.push_back(Src[R]);
    // The result of a masked-off element is unspecified; give it a defined
    // value so that ptxas sees no use of an undefined register.
    Reg D = zeroOf(T);
    Reg Ptr =
        InVec ? B.add(Ty::U64, Ptrs[Head], static_cast<int64_t>(InVec * Bits / 8)) : Ptrs[Head];
    Reg Old = EmitGuarded(Guard, Ptr, S, "");
    // The loop's result is defined everywhere; another atom's only where it ran.
    std::optional<ptx::PTXFunctionBuilder::GuardScope> G;
    if (Guard.valid() && !Bf16AddByCas)
      G.emplace(B, Guard, false);
    B.movTo(D, Old);
    Out[R] = D;
  }
  fillDuplicateRegisters(L, Out);
  // Threads that did not own an element need its old value from its owner.
  if (Owner.valid() && I.hasUses())
    Out = convertViaShared(Out, Elem, I.getType()->getShape(), L, L);
  Values[&I] = std::move(Out);
}

Reg FunctionLowering::bf16AddByCas(const Reg &Ptr, const Reg &Val, const Reg &Guard) {
  // The sum is taken in f32 and rounded to bf16 (as the interpreter does);
  // the loop retries until no other thread changed the value in between.
  // Returns the value before this thread's add (0 where Guard is false).
  std::string Loop = B.newLabel("bf16_cas"), Done = B.newLabel("bf16_cas_done");
  Reg Old = B.newReg(Ty::B16);
  B.emit("mov.b16 " + Old.name() + ", 0;");
  if (Guard.valid())
    B.braIf(Guard, Done, /*Negated=*/true);
  B.emit("ld.global.b16 " + Old.name() + ", " + addr(Ptr) + ";");
  B.label(Loop);
  Reg Sum = B.add(Ty::F32, B.cvt(Ty::F32, Ty::BF16, Old.as(Ty::BF16)),
                  B.cvt(Ty::F32, Ty::BF16, Val.as(Ty::BF16)));
  Reg New = B.cvt(Ty::BF16, Ty::F32, Sum, ptx::Rounding::Rn);
  Reg Seen = B.newReg(Ty::B16);
  B.emit("atom.global.cas.b16 " + Seen.name() + ", " + addr(Ptr) + ", " + Old.name() + ", " +
         New.as(Ty::B16).name() + ";");
  Reg Retry = B.setp(Cmp::Ne, Ty::B16, Seen, Old);
  B.movTo(Old, Seen);
  B.braIf(Retry, Loop);
  B.label(Done);
  return Old.as(Ty::BF16);
}

} // namespace tritonc::codegen
