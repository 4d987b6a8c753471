//===- LowerAsync.cpp - Explicit shared buffers and asynchronous copies ---===//
//
// The GPU-level operations that GPU-level IR states itself (docs/IR.md, "GPU
// level"), each lowered to one PTX sequence:
//
//   smem_alloc          the buffer's address: at its allocate-shared offset,
//                       else after the buffers before it; scratch reuses the
//                       buffers' bytes only in blocks where none holds data
//                       (bufferLiveBlocks), after draining their copies
//   smem_slot           buffer + index * slot bytes
//   local_load/store    ld.shared / st.shared at the addresses the slot's
//                       #shared layout gives (row-major without one),
//                       vectorized where registers and offsets both run
//   cp_async            cp.async of each thread's elements (its layout of the
//                       pointer tile), 4/8/16 bytes, src-size 0 where masked
//                       (a prefix mask: up to the bound, copySourceSize)
//   cp_async_commit     cp.async.commit_group
//   cp_async_wait N     cp.async.wait_group N
//   barrier             bar.sync 0
//   fence_proxy_async   fence.proxy.async.shared::cta
//
// Addresses: the slot's layout maps an element offset to coordinates; its
// inverse composed with a distributed layout L maps (register, lane, warp)
// to the element's offset, linearly over GF(2). A thread's element offset is
// then (offset of its lane and warp bits) XOR (offset of the register), the
// former computed once in the prologue.
//
// A dot whose operand is a local_load of a slot may read the slot directly
// (lowerWgmma, lowerDot ask directSlotOperand / matrixSlotOperand /
// dotSlotOperand); else
// the loaded registers are staged as any operand, with a remark.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/analysis/SlotReads.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"

#include <bit>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

uint64_t alignUp(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

const Instruction *asInstr(const ir::Value *V) {
  return ir::asInstruction(const_cast<ir::Value *>(V));
}

/// The slot layout of a buffer type as offset -> coordinates: its #shared
/// layout, or row-major without one.
LinearLayout slotLayout(const ir::Type *Buffer) {
  std::string Why;
  if (std::optional<LinearLayout> L = analysis::toLinearLayout(Buffer, &Why))
    return *L;
  // The verifier accepts only layouts that fit their buffers.
  if (Buffer->getLayout())
    reportInternalError("codegen: no linear form of " + Buffer->str() + ": " + Why);
  std::vector<unsigned> Order;
  for (unsigned D = Buffer->getRank(); D-- > 0;)
    Order.push_back(D);
  return analysis::swizzledSharedLayout(Buffer->getShape(), 1, 1, 1, Order);
}

/// Whether Alloc holds mbarriers only: every use, through its slots, is an
/// mbarrier operation or the mbarrier operand of a tma_load.
bool isMbarrierBuffer(const Instruction &Alloc) {
  std::vector<const Instruction *> Work = {&Alloc};
  bool Used = false;
  while (!Work.empty()) {
    const Instruction *V = Work.back();
    Work.pop_back();
    for (const Instruction *U : V->users()) {
      Opcode Op = U->getOpcode();
      if (Op == Opcode::SmemSlot && U->getOperand(0) == V)
        Work.push_back(U);
      else if (Op == Opcode::MbarrierInit || Op == Opcode::MbarrierArrive ||
               Op == Opcode::MbarrierExpectTx || Op == Opcode::MbarrierWait ||
               (Op == Opcode::TmaLoad && U->getOperand(U->getNumOperands() - 1) == V &&
                U->getOperand(U->getNumOperands() - 2) != V))
        Used = true;
      else
        return false;
    }
  }
  return Used;
}

/// Whether a slot layout (Inverse: coordinates -> offset) keeps every
/// aligned run of 2^RunBits elements along dimension Along as one aligned
/// chunk: the run's low bits move an element by 1, 2, 4, ..., and no other
/// bit of either dimension moves one within its chunk.
bool keepsChunks(const LinearLayout &Inverse, unsigned Along, int32_t RunBits) {
  for (unsigned D = 0; D < 2; ++D)
    for (int32_t Bit = 0; Bit < Inverse.getInDimSizeLog2(analysis::tileDimName(D)); ++Bit) {
      int32_t Off = Inverse.getBasis(analysis::tileDimName(D), Bit)[0];
      if (D == Along && Bit < RunBits ? Off != (1 << Bit) : (Off & ((1 << RunBits) - 1)) != 0)
        return false;
    }
  return true;
}

/// Whether a `tma_store_wait 0` follows a bulk tensor store in its block
/// (the store's reads of its slot end there).
bool tmaStoreWaitedInItsBlock(const Instruction &Store) {
  bool After = false;
  for (const auto &I : Store.getParent()->instructions()) {
    if (After && I->getOpcode() == Opcode::TmaStoreWait && I->Count == 0)
      return true;
    After = After || I.get() == &Store;
  }
  return false;
}

} // namespace

// --- Placement ---------------------------------------------------------------

void FunctionLowering::planSharedBuffers() {
  std::vector<const Instruction *> Allocs;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() == Opcode::CpAsync)
        HasExplicitCopies = true;
      if (I->getOpcode() != Opcode::SmemAlloc)
        continue;
      Allocs.push_back(I.get());
    }
  // Offsets chosen by allocate-shared (the verifier lets every buffer have
  // one or none) are relative to the dynamic shared memory's start, else
  // the buffers follow one another.
  // mbarriers go after everything else (their address is filled in last,
  // placeMbarriers): they keep their phases
  // for the whole program, and where scratch reuses the buffers (below)
  // it must not reach them.
  for (const Instruction *I : Allocs) {
    if (isMbarrierBuffer(*I)) {
      if (!MbarBase.valid())
        MbarBase = B.newReg(Ty::U32);
      MbarBufferOffsets[I] = MbarBytes;
      MbarBytes += alignUp(analysis::sharedBufferBytes(I->getType()), 8);
      continue;
    }
    uint64_t Offset =
        I->SharedOffset >= 0 ? static_cast<uint64_t>(I->SharedOffset) : alignUp(RingBytes, 1024);
    BufferOffsets[I] = Offset;
    RingBytes = std::max(RingBytes, Offset + analysis::sharedBufferBytes(I->getType()));
  }
  if (BufferOffsets.empty())
    return;
  // Scratch goes over the buffers only where none holds data (the epilogue
  // after a K loop).
  for (const auto &[Alloc, Offset] : BufferOffsets)
    for (const ir::BasicBlock *BB : bufferLiveBlocks(*Alloc))
      RingLiveBlocks.insert(BlockIndex.at(BB));
  ringsLiveAcrossPartitions();
  markBlocksAfterScratchOverRings();
  // Dots that read their operands' slots directly; a local_load used only
  // by them loads nothing.
  std::map<const Instruction *, unsigned> DirectUses;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      if (I->getOpcode() != Opcode::Dot)
        continue;
      DotKind Kind = LA.dotOf(I.get()).Kind;
      bool Wgmma = Kind == DotKind::Wgmma;
      for (unsigned Idx = 0; Idx < 2; ++Idx) {
        std::string Why;
        bool Direct = Wgmma                      ? directSlotOperand(*I, Idx, Why).has_value()
                      : Kind == DotKind::MmaV2   ? matrixSlotOperand(*I, Idx, Why) != nullptr
                      : Kind == DotKind::MmaTF32 ? elementSlotOperand(*I, Idx, Why) != nullptr
                                                 : dotSlotOperand(*I, Idx, Why).has_value();
        if (!Direct && Kind == DotKind::FMA && Idx == 0 && isVectorizedFmaDot(*I)) {
          std::string Swizzled;
          Direct = swizzledColumnSlotOperand(*I, Swizzled) != nullptr;
        }
        if (!Direct)
          continue;
        SlotsReadByAsyncProxy = SlotsReadByAsyncProxy || Wgmma;
        const Instruction *Load = asInstr(I->getOperand(Idx));
        ++DirectUses[Load];
        if (!Wgmma)
          if (const Instruction *Slot = asInstr(Load->getOperand(0));
              Slot && Slot->getOpcode() == Opcode::SmemSlot)
            PrefetchedBuffers.insert(asInstr(Slot->getOperand(0)));
      }
    }
  for (const auto &[Load, Uses] : DirectUses)
    if (Uses == Load->users().size())
      UnloadedSlotReads.insert(Load);
}

std::set<const ir::BasicBlock *> FunctionLowering::bufferLiveBlocks(const Instruction &Alloc) {
  std::vector<const ir::BasicBlock *> Writes, Reads;
  std::vector<const Instruction *> Work = {&Alloc};
  // Bulk tensor copies (tma_load) write a slot when they land, at a wait on
  // their mbarrier: in the loop that reads them, or, for the fills still in
  // flight when a loop ends (masked off, past its last iteration), at the
  // waits tensor-copies puts first in the loop's exits, before anything
  // there may use scratch over the slots.
  bool Understood = true;
  while (!Work.empty() && Understood) {
    const Instruction *V = Work.back();
    Work.pop_back();
    for (const Instruction *U : V->users()) {
      if (U->getOpcode() == Opcode::TmaLoad && U->getOperand(U->getNumOperands() - 2) == V) {
        Writes.push_back(U->getParent());
        ExplicitCopyBlocks.insert(U->getParent());
        continue;
      }
      // A bulk tensor store reads its slot until a `tma_store_wait 0`: in
      // its block, or, for a store in a loop (TensorStores.h), on into the
      // next iteration, where scratch over the slot would have to be
      // separated from the slot's next write in every iteration: such a
      // slot stays live everywhere (below).
      if (U->getOpcode() == Opcode::TmaStore && U->getOperand(U->getNumOperands() - 1) == V &&
          tmaStoreWaitedInItsBlock(*U)) {
        Reads.push_back(U->getParent());
        continue;
      }
      bool Slot = U->getNumOperands() > 0 && U->getOperand(0) == V;
      // wgmma reads its slots until its group is waited for: in its block
      // (mma-in-flight waits at the loop's exits).
      bool WgmmaRead = U->getOpcode() == Opcode::Wgmma && (Slot || U->getOperand(1) == V);
      switch (WgmmaRead ? Opcode::LocalLoad : Slot ? U->getOpcode() : Opcode::Phi) {
      case Opcode::SmemSlot:
        Work.push_back(U);
        break;
      case Opcode::CpAsync:
      case Opcode::LocalStore:
        Writes.push_back(U->getParent());
        ExplicitCopyBlocks.insert(U->getParent());
        break;
      case Opcode::LocalLoad:
        Reads.push_back(U->getParent());
        break;
      default: // mbarriers, bulk copies, wgmma operations, phis: not followed
        Understood = false;
      }
    }
  }
  std::set<const ir::BasicBlock *> Live;
  if (!Understood) {
    for (const auto &BB : F.blocks())
      Live.insert(BB.get());
    return Live;
  }
  // Backward from the reads, not past a block that writes the buffer and
  // reads none of it (a K loop's preheader): the data a read needs was
  // written there or after. So the epilogue of one tile of a persistent
  // kernel, between the K loop's exit and the next tile's preheader, holds
  // none, and scratch may reuse the buffers there.
  std::set<const ir::BasicBlock *> ReadBlocks(Reads.begin(), Reads.end());
  std::set<const ir::BasicBlock *> Before(Reads.begin(), Reads.end());
  std::vector<const ir::BasicBlock *> Work2 = Reads;
  while (!Work2.empty()) {
    const ir::BasicBlock *BB = Work2.back();
    Work2.pop_back();
    bool Fills = std::find(Writes.begin(), Writes.end(), BB) != Writes.end();
    if (Fills && !ReadBlocks.count(BB))
      continue;
    for (const ir::BasicBlock *P : BB->predecessors())
      if (Before.insert(P).second)
        Work2.push_back(P);
  }
  std::set<const ir::BasicBlock *> After = reachableBlocks(Writes, /*Forward=*/true);
  for (const ir::BasicBlock *BB : Before)
    if (After.count(BB))
      Live.insert(BB);
  return Live;
}

std::set<const ir::BasicBlock *> reachableBlocks(std::vector<const ir::BasicBlock *> Start,
                                                 bool Forward, const ir::BasicBlock *Stop) {
  std::set<const ir::BasicBlock *> Seen(Start.begin(), Start.end());
  while (!Start.empty()) {
    const ir::BasicBlock *BB = Start.back();
    Start.pop_back();
    if (BB == Stop)
      continue;
    for (const ir::BasicBlock *N : Forward ? BB->successors() : BB->predecessors())
      if (Seen.insert(N).second)
        Start.push_back(N);
  }
  return Seen;
}

void FunctionLowering::markBlocksAfterScratchOverRings() {
  // A block must separate its copies into the buffers from scratch over
  // the buffers when some path reaches it from a block using such scratch
  // (one where no buffer is live) without passing a block that writes the
  // buffers, since that one separated them already. Marking every block
  // reachable from scratch would put a fence and a barrier into each
  // iteration of a loop nested in one whose body uses scratch (a persistent
  // kernel's epilogue).
  auto DirtyAtEnd = [&](const ir::BasicBlock *BB) {
    if (isForkBlock(*BB)) // separates the partitions from it (lowerWarpSpecialize)
      return false;
    unsigned Index = BlockIndex.at(BB);
    if (!RingLiveBlocks.count(Index))
      return true;
    return AfterScratchOverRings.count(Index) && !ExplicitCopyBlocks.count(BB);
  };
  std::map<const ir::BasicBlock *, std::vector<ir::BasicBlock *>> Preds;
  for (const auto &BB : F.blocks())
    Preds[BB.get()] = BB->predecessors();
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const auto &BB : F.blocks())
      if (!AfterScratchOverRings.count(BlockIndex.at(BB.get())))
        for (const ir::BasicBlock *P : Preds[BB.get()])
          if (DirtyAtEnd(P)) {
            AfterScratchOverRings.insert(BlockIndex.at(BB.get()));
            Changed = true;
            break;
          }
  }
}

void FunctionLowering::separateFromScratchOverRings() {
  // Scratch over the buffers, earlier on some path, read and wrote this space
  // through the generic proxy; copies may only overwrite it after every
  // thread is done with it. The engine's copies and wgmma go through the
  // async proxy, hence the fence; sm_80 has neither (nor the fence), and
  // its cp.async copies are generic-proxy writes that the barrier orders.
  if (!AfterScratchOverRings.count(CurrentBlock) || !FencedBlocks.insert(CurrentBlock).second)
    return;
  if (Options.Arch == ptx::Arch::SM90a)
    B.emit("fence.proxy.async.shared::cta;");
  forcedBarrier();
}

void FunctionLowering::placeMbarriers() {
  // The mbarrier buffers follow everything else in the dynamic shared memory
  // (8-byte aligned after the buffers and the largest scratch, whose size is
  // final only once the body is written), so that scratch over the buffers
  // never overwrites them: their address goes last into the prologue, which
  // comes before every use. Kernels declare no static `.shared` variable:
  // next to one, the cubin the driver's JIT linker (cuLinkCreate) made placed
  // the dynamic shared memory 0x20 bytes past a 1024-byte boundary on the
  // H100, and the swizzled slots faulted with a misaligned address.
  if (!MbarBytes)
    return;
  auto P = B.prologue();
  B.emit("mov.u32 " + MbarBase.name() + ", tritonc_smem+" + std::to_string(mbarrierOffset()) + ";");
}

// --- Addresses ----------------------------------------------------------------

unsigned slotVectorElements(const LinearLayout &Offsets, unsigned ElemBytes, unsigned MaxVec) {
  uint64_t OtherBits = 0;
  for (const char *Dim : {"lane", "warp"})
    for (int32_t Bit = 0; Bit < Offsets.getInDimSizeLog2(Dim); ++Bit)
      OtherBits |= static_cast<uint64_t>(Offsets.getBasis(Dim, Bit)[0]);
  int32_t RegBits = Offsets.getInDimSizeLog2("register");
  unsigned Vec = 1;
  while (std::countr_zero(Vec) < RegBits &&
         Offsets.getBasis("register", std::countr_zero(Vec))[0] == static_cast<int32_t>(Vec) &&
         Vec * 2 * ElemBytes <= 16 && Vec * 2 <= MaxVec)
    Vec *= 2;
  for (int32_t Bit = std::countr_zero(Vec); Bit < RegBits; ++Bit)
    OtherBits |= static_cast<uint64_t>(Offsets.getBasis("register", Bit)[0]);
  while (Vec > 1 && (OtherBits & (Vec - 1)))
    Vec /= 2;
  return Vec;
}

FunctionLowering::SlotAccess FunctionLowering::slotAccess(const ir::Type *Slot,
                                                          const LinearLayout &L, unsigned MaxVec) {
  std::optional<LinearLayout> Inverse = slotLayout(Slot).invert();
  if (!Inverse) // a #shared layout is a permutation of each slot
    reportInternalError("codegen: the layout of " + Slot->str() + " is not invertible");
  LinearLayout Offsets = LinearLayout::compose(*Inverse, L);
  SlotAccess Out;
  Out.ElemBytes = memBytesOf(Slot->getElementType());
  for (int32_t R = 0; R < numRegisters(L); ++R)
    Out.RegisterOffsets.push_back(static_cast<int64_t>(
        Offsets.apply({{"register", R}, {"lane", 0}, {"warp", 0}}).front().second));
  for (const char *Dim : {"lane", "warp"})
    for (int32_t Bit = 0; Bit < Offsets.getInDimSizeLog2(Dim); ++Bit)
      Out.ThreadBits |= static_cast<uint64_t>(Offsets.getBasis(Dim, Bit)[0]);
  Out.Vec = slotVectorElements(Offsets, Out.ElemBytes, MaxVec);
  // The thread's offset in bytes, once per layout pair.
  std::string Key = Slot->str() + "|" + L.str();
  auto It = ThreadSlotOffsets.find(Key);
  if (It == ThreadSlotOffsets.end()) {
    Reg LaneR = laneId(), WarpR = warpId();
    auto P = B.prologue();
    Reg Acc = B.mov(Ty::U32, 0);
    for (const auto &[Dim, Src] : {std::pair<const char *, Reg>{"lane", LaneR}, {"warp", WarpR}})
      for (int32_t Bit = 0; Bit < Offsets.getInDimSizeLog2(Dim); ++Bit) {
        int64_t C = Offsets.getBasis(Dim, Bit)[0] * static_cast<int64_t>(Out.ElemBytes);
        if (!C)
          continue;
        Reg One = B.inst("bfe.u32", Ty::U32, {Src, Bit, 1});
        Acc = B.bitXor(Ty::B32, Acc, B.mul(Ty::U32, One, C)).as(Ty::U32);
      }
    It = ThreadSlotOffsets.emplace(Key, Acc).first;
  }
  Out.ThreadOffset = It->second;
  return Out;
}

std::pair<Reg, int64_t> FunctionLowering::slotAddress(const SlotAccess &A, const Reg &Slot,
                                                      int32_t R, std::map<uint64_t, Reg> &Bases) {
  uint64_t Off = static_cast<uint64_t>(A.RegisterOffsets[R]);
  uint64_t Flip = Off & A.ThreadBits; // bits the thread's offset may have too
  Reg &Base = Bases[Flip];
  if (!Base.valid()) {
    Reg Thread = Flip ? B.bitXor(Ty::B32, A.ThreadOffset, static_cast<int64_t>(Flip * A.ElemBytes))
                            .as(Ty::U32)
                      : A.ThreadOffset;
    Base = B.add(Ty::U32, Slot, Thread);
  }
  return {Base, static_cast<int64_t>((Off & ~A.ThreadBits) * A.ElemBytes)};
}

// --- Operations ---------------------------------------------------------------

void FunctionLowering::checkSlotElement(const Instruction &I, const ir::Type *Elem) {
  unsigned Bits = Elem->getScalarBits();
  if (Bits < 16)
    throw UnsupportedConstruct(I.Loc, std::string(ir::opcodeName(I.getOpcode())) + " of " +
                                          Elem->str() +
                                          " elements: shared buffers of 8-bit and i1 elements "
                                          "are not lowered yet");
}

void FunctionLowering::lowerSharedBufferOp(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::SmemAlloc:
    if (auto It = MbarBufferOffsets.find(&I); It != MbarBufferOffsets.end())
      Values[&I] = {B.add(Ty::U32, MbarBase, static_cast<int64_t>(It->second))};
    else
      Values[&I] = {B.add(Ty::U32, ringBase(), static_cast<int64_t>(BufferOffsets.at(&I)))};
    return;
  case Opcode::SmemSlot: {
    const ir::Value *Index = I.getOperand(1);
    Reg Idx = scalar(Index);
    Idx = Index->getType()->getIntBits() == 64 ? B.cvt(Ty::U32, Ty::S64, Idx) : Idx.as(Ty::U32);
    Reg Base = Values.at(I.getOperand(0))[0];
    Values[&I] = {B.madLo(
        Ty::U32, Idx, static_cast<int64_t>(analysis::sharedSlotStride(I.getOperand(0)->getType())),
        Base)};
    return;
  }
  case Opcode::LocalLoad:
    return lowerLocalLoad(I);
  case Opcode::LocalStore:
    return lowerLocalStore(I);
  case Opcode::CpAsync:
    return lowerCpAsync(I);
  case Opcode::CpAsyncCommit:
    B.emit("cp.async.commit_group;");
    return;
  case Opcode::CpAsyncWait:
    B.emit("cp.async.wait_group " + std::to_string(I.Count) + ";");
    // Slots that wgmma reads directly are read through the async proxy: each
    // thread orders its landed copies before the program's barrier.
    if (SlotsReadByAsyncProxy)
      B.emit("fence.proxy.async.shared::cta;");
    return;
  case Opcode::Barrier:
    return irBarrier(I);
  case Opcode::FenceProxyAsync:
    B.emit("fence.proxy.async.shared::cta;");
    return;
  case Opcode::FenceProxyAsyncGlobal:
    if (Options.Arch != ptx::Arch::SM90a)
      throw UnsupportedConstruct(I.Loc, "fence_proxy_async_global: the async proxy (bulk tensor "
                                        "copies) needs sm_90a");
    B.emit("fence.proxy.async.global;");
    return;
  default:
    return lowerHopperOp(I);
  }
}

void FunctionLowering::lowerLocalLoad(const Instruction &I) {
  const ir::Type *Slot = I.getOperand(0)->getType();
  checkSlotElement(I, Slot->getElementType());
  if (UnloadedSlotReads.count(&I))
    return; // its dots read the slot
  const LinearLayout &L = LA.layoutOf(&I);
  SlotAccess A = slotAccess(Slot, L, 16);
  Ty T = ptxTypeOf(Slot->getElementType());
  Ty MT = moveTypeOf(T);
  bool Pairs = A.ElemBytes == 2 && A.Vec >= 2; // 16-bit elements move as b32 pairs
  Reg SlotAddr = Values.at(I.getOperand(0))[0];
  std::map<uint64_t, Reg> Bases;
  Regs Out(static_cast<size_t>(numRegisters(L)));
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += static_cast<int32_t>(A.Vec)) {
    auto [Base, Off] = slotAddress(A, SlotAddr, R0, Bases);
    Regs Words = B.ldShared(Pairs ? Ty::B32 : MT, Pairs ? A.Vec / 2 : A.Vec, Base, Off);
    size_t R = static_cast<size_t>(R0);
    for (const Reg &W : Words) {
      if (!Pairs) {
        Out[R++] = W.as(T);
        continue;
      }
      auto [Lo, Hi] = B.unpack2x16(W, Ty::B16);
      Out[R++] = Lo.as(T);
      Out[R++] = Hi.as(T);
    }
  }
  Values[&I] = std::move(Out);
}

void FunctionLowering::lowerLocalStore(const Instruction &I) {
  const ir::Type *Slot = I.getOperand(0)->getType();
  const ir::Value *Tile = I.getOperand(1);
  checkSlotElement(I, Slot->getElementType());
  LinearLayout L = operandLayout(Tile);
  Regs Vals = get(Tile, L);
  SlotAccess A = slotAccess(Slot, L, 16);
  Ty MT = moveTypeOf(ptxTypeOf(Slot->getElementType()));
  bool Pairs = A.ElemBytes == 2 && A.Vec >= 2;
  separateFromScratchOverRings();
  Reg SlotAddr = Values.at(I.getOperand(0))[0];
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  std::map<uint64_t, Reg> Bases;
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += static_cast<int32_t>(A.Vec)) {
    if (Dup[R0])
      continue;
    auto [Base, Off] = slotAddress(A, SlotAddr, R0, Bases);
    Regs Words;
    for (unsigned K = 0; K < A.Vec; K += Pairs ? 2 : 1)
      Words.push_back(Pairs ? B.pack2x16(Vals[R0 + K].as(MT), Vals[R0 + K + 1].as(MT), Ty::B32)
                            : Vals[R0 + K].as(MT));
    std::optional<ptx::Guard> G;
    if (Owner.valid())
      G = ptx::Guard{Owner, false};
    B.stShared(Pairs ? Ty::B32 : MT, Base, Off, Words, G);
  }
  if (SlotsReadByAsyncProxy)
    B.emit("fence.proxy.async.shared::cta;");
}

void FunctionLowering::lowerCpAsync(const Instruction &I) {
  const ir::Type *Slot = I.getOperand(0)->getType();
  checkSlotElement(I, Slot->getElementType());
  const AccessPlan &Plan = LA.accessOf(&I);
  const LinearLayout &L = Plan.Layout;
  SlotAccess A = slotAccess(Slot, L, Plan.Vec);
  unsigned Bytes = A.Vec * A.ElemBytes;
  if (Bytes < 4)
    throw UnsupportedConstruct(
        I.Loc, "cp_async of " + Slot->getElementType()->str() +
                   " elements copies at least 4 bytes at a time, but no thread is known to hold " +
                   std::to_string(4 / A.ElemBytes) +
                   " contiguous, aligned elements that also lie contiguously in the slot (the "
                   "pointers' contiguity and divisibility, the mask's constancy, the slot's "
                   "layout): " +
                   std::to_string(Plan.Vec) + " in global memory, " + std::to_string(A.Vec) +
                   " in all");
  // A vector of the global access that the slot does not keep contiguous
  // (A of an FMA dot loaded along K into column-major slots) is copied in
  // pieces, each from its vector's head pointer plus an immediate offset,
  // under the vector's one mask bit: one pointer and one size register per
  // vector, as in the back end's own FMA rings.
  unsigned HeadVec = std::max(Plan.Vec, A.Vec);
  Regs Ptrs = getVectorHeads(I.getOperand(1), L, HeadVec);
  CopyMask M = copyMask(I, Plan, A.Vec, HeadVec);
  separateFromScratchOverRings();
  Reg SlotAddr = Values.at(I.getOperand(0))[0];
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  std::map<uint64_t, Reg> Bases;
  // The copies read global memory that other threads may have written.
  globalAccess(I.getOperand(1), /*Reads=*/true, /*Writes=*/false, &L);
  // .cg (L2 only) exists for 16-byte copies alone. Slots that mma.sync or
  // FMA dots read hold rows of a few dozen bytes: L2 fetches the 256-byte
  // block around each.
  const Instruction *SlotOf = asInstr(I.getOperand(0));
  bool Prefetch = SlotOf && SlotOf->getOpcode() == Opcode::SmemSlot &&
                  PrefetchedBuffers.count(asInstr(SlotOf->getOperand(0)));
  std::string Op = std::string("cp.async.") + (Bytes == 16 ? "cg" : "ca") + ".shared.global" +
                   (Prefetch ? ".L2::256B " : " ");
  std::map<int32_t, std::string> Sizes; // per copy's first register
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += static_cast<int32_t>(A.Vec)) {
    if (Dup[R0])
      continue;
    auto [Base, Off] = slotAddress(A, SlotAddr, R0, Bases);
    int32_t Head = R0 / static_cast<int32_t>(HeadVec) * static_cast<int32_t>(HeadVec);
    int64_t SourceOff = static_cast<int64_t>(R0 - Head) * A.ElemBytes;
    // One source size per vector, which its pieces share, or under a
    // prefix mask one per copy.
    int32_t SizeAt = M.Prefix ? R0 : Head;
    std::string &Size = Sizes[SizeAt];
    if (Size.empty())
      Size = copySourceSize(M, SizeAt, A.Vec, A.ElemBytes);
    std::string Text = Op + "[" + Base.name() + (Off ? "+" + std::to_string(Off) : "") + "], [" +
                       Ptrs[Head].name() + (SourceOff ? "+" + std::to_string(SourceOff) : "") +
                       "], " + std::to_string(Bytes) + ", " + Size + ";";
    if (Owner.valid())
      Text = "@" + Owner.name() + " " + Text;
    B.emit(Text);
  }
}

FunctionLowering::CopyMask FunctionLowering::copyMask(const Instruction &I, const AccessPlan &Plan,
                                                      unsigned CopyVec, unsigned HeadVec) {
  CopyMask M;
  if (I.getNumOperands() <= 2)
    return M;
  const LinearLayout &L = Plan.Layout;
  const ir::Value *Mask = I.getOperand(2);
  if (Mask->getType()->isTile() && AI.get(Mask).Constancy[Plan.VecDim] < HeadVec) {
    M.Prefix = analysis::findPrefixMask(Mask, Plan.VecDim, AI);
    if (!M.Prefix || M.Prefix->Run < HeadVec)
      reportInternalError("codegen: cp_async's vectors reach past its mask's constancy, but the "
                          "mask is not true on a prefix of each");
  }
  if (!M.Prefix) {
    M.Bits = getVectorHeads(Mask, L, HeadVec);
    return M;
  }
  // The comparison's operands in the registers of the mask's elements,
  // through the broadcasts between them.
  LinearLayout At = L;
  for (const Instruction *Step : M.Prefix->Path)
    if (Step->getOpcode() == Opcode::Broadcast)
      At = analysis::broadcastOperandLayout(At, Step->getOperand(0)->getType()->getShape());
  M.Bits = getVectorHeads(Mask, L, CopyVec);
  M.Index = getVectorHeads(M.Prefix->Index, At, CopyVec);
  M.Bound = getVectorHeads(M.Prefix->Bound, At, CopyVec);
  return M;
}

std::string FunctionLowering::copySourceSize(const CopyMask &M, int32_t R, unsigned Elements,
                                             unsigned ElemBytes) {
  int64_t Bytes = static_cast<int64_t>(Elements * ElemBytes);
  if (M.Bits.empty())
    return std::to_string(Bytes);
  // Masked off: 0 source bytes, the slot zero-filled.
  if (!M.Prefix || Elements == 1)
    return B.selp(Ty::U32, Bytes, B.mov(Ty::U32, 0), M.Bits[R]).name();
  // Where the copy's first element is masked off, none (the other
  // conjuncts are constant over it); else min(bound - index, elements),
  // exact unsigned: the comparison held, so the difference lies in
  // [1, 2^bits - 1] (`<=`: in [0, 2^bits - 1], one more, hence the
  // minimum with one less).
  Ty T = ptxTypeOf(M.Prefix->Index->getType()->getScalarType());
  bool Wide = ptx::tyBits(T) == 64;
  Ty U = Wide ? Ty::U64 : Ty::U32;
  int64_t Limit = static_cast<int64_t>(Elements) - (M.Prefix->Inclusive ? 1 : 0);
  Reg Count = B.min(U, B.sub(T, M.Bound[R], M.Index[R]).as(U), Limit);
  if (Wide)
    Count = B.cvt(Ty::U32, Ty::U64, Count);
  if (M.Prefix->Inclusive)
    Count = B.add(Ty::U32, Count, 1);
  Reg Size = ElemBytes == 1 ? Count : B.shl(Ty::U32, Count, std::countr_zero(ElemBytes));
  return B.selp(Ty::U32, Size, B.mov(Ty::U32, 0), M.Bits[R]).name();
}

// --- Dots reading slots -------------------------------------------------------

const Instruction *FunctionLowering::slotLoadOperand(const Instruction &Dot, unsigned Idx,
                                                     std::string &Why) const {
  const Instruction *Load = asInstr(Dot.getOperand(Idx));
  if (!Load || Load->getOpcode() != Opcode::LocalLoad)
    return nullptr;
  // The slot must still hold what the local_load read when the dot runs.
  if (std::string Changed = analysis::whySlotChangedBeforeDot(*Load, Dot); !Changed.empty()) {
    Why = std::move(Changed);
    return nullptr;
  }
  return Load;
}

std::optional<MmaSharedLayout> FunctionLowering::wgmmaSlotLayout(const ir::Type *T,
                                                                 std::string &Why) const {
  const ir::Layout *SL = T->getLayout();
  unsigned ElemBytes = memBytesOf(T->getElementType());
  if (!SL || !SL->hasSwizzleMode() || SL->getSwizzleBytes() == 0) {
    Why = "the slot's layout is no wgmma swizzle mode (#shared<swizzle=32|64|128>)";
    return std::nullopt;
  }
  if (T->getRank() != 2 || ElemBytes != 2) {
    Why = "wgmma reads 2-D slots of 16-bit elements";
    return std::nullopt;
  }
  // A swizzle mode is the hardware's layout: rows of the swizzle width, or
  // column blocks of them (docs/IR.md), whose swizzle phase the descriptor
  // takes from the address: each block must hold whole 8-row patterns.
  unsigned Contig = SL->getOrder()[0];
  const ir::Shape &S = T->getShape();
  MmaSharedLayout M = MmaSharedLayout::make(S[0], S[1], Contig, ElemBytes);
  M.SwizzleBytes = static_cast<unsigned>(SL->getSwizzleBytes());
  uint64_t RowBytes = static_cast<uint64_t>(S[Contig]) * ElemBytes;
  if (RowBytes != M.SwizzleBytes && M.StridedExtent % 8 != 0) {
    Why = "its rows (" + std::to_string(RowBytes) + " bytes) are column blocks of the swizzle " +
          "width (" + std::to_string(M.SwizzleBytes) + " bytes) of " +
          std::to_string(M.StridedExtent) + " rows, not whole 8-row swizzle patterns";
    return std::nullopt;
  }
  return M;
}

std::optional<std::pair<const ir::Value *, MmaSharedLayout>>
FunctionLowering::directSlotOperand(const Instruction &Dot, unsigned Idx, std::string &Why) const {
  const Instruction *Load = slotLoadOperand(Dot, Idx, Why);
  if (!Load || !Why.empty())
    return std::nullopt;
  const ir::Value *Slot = Load->getOperand(0);
  std::optional<MmaSharedLayout> M = wgmmaSlotLayout(Slot->getType(), Why);
  if (!M)
    return std::nullopt;
  return std::make_pair(Slot, *M);
}

std::optional<std::pair<const ir::Value *, int64_t>>
FunctionLowering::plainSlotOperand(const Instruction &Dot, unsigned Idx, std::string &Why,
                                   bool ColumnMajor) const {
  const Instruction *Load = slotLoadOperand(Dot, Idx, Why);
  if (!Load || !Why.empty())
    return std::nullopt;
  const ir::Type *Slot = Load->getOperand(0)->getType();
  unsigned ElemBytes = memBytesOf(Slot->getElementType());
  const ir::Shape &S = Slot->getShape();
  std::vector<unsigned> Order =
      ColumnMajor ? std::vector<unsigned>{0, 1} : std::vector<unsigned>{1, 0};
  if (Slot->getRank() != 2 ||
      !(slotLayout(Slot) == analysis::swizzledSharedLayout(S, 1, 1, 1, Order))) {
    Why = ColumnMajor ? "this dot reads A as a column-major tile ([K, M], 16-byte vectors of "
                        "4 rows), and the slot is swizzled or row-major"
                      : "this dot reads its operands as row-major tiles, and the slot is "
                        "swizzled or column-major";
    return std::nullopt;
  }
  if (S[Order[0]] * ElemBytes % 16) {
    Why = "its rows are not a multiple of 16 bytes (the dot reads 16-byte aligned vectors)";
    return std::nullopt;
  }
  return std::make_pair(Load->getOperand(0), S[Order[0]]);
}

std::optional<std::pair<const ir::Value *, int64_t>>
FunctionLowering::dotSlotOperand(const Instruction &Dot, unsigned Idx, std::string &Why) const {
  return plainSlotOperand(Dot, Idx, Why, /*ColumnMajor=*/Idx == 0 && isVectorizedFmaDot(Dot));
}

const ir::Value *FunctionLowering::slot2DOperand(const Instruction &Dot, unsigned Idx,
                                                 unsigned ElemBytes, const char *NotIt,
                                                 std::string &Why) const {
  const Instruction *Load = slotLoadOperand(Dot, Idx, Why);
  if (!Load || !Why.empty())
    return nullptr;
  const ir::Type *Slot = Load->getOperand(0)->getType();
  if (Slot->getRank() != 2 || memBytesOf(Slot->getElementType()) != ElemBytes) {
    Why = NotIt;
    return nullptr;
  }
  return Load->getOperand(0);
}

const ir::Value *FunctionLowering::matrixSlotOperand(const Instruction &Dot, unsigned Idx,
                                                     std::string &Why, unsigned *ChunkDim) const {
  const ir::Value *SlotValue =
      slot2DOperand(Dot, Idx, 2, "ldmatrix reads 2-D slots of 16-bit elements", Why);
  if (!SlotValue)
    return nullptr;
  const ir::Type *Slot = SlotValue->getType();
  // ldmatrix reads 16-byte rows of 8 elements: every aligned run of 8
  // elements along the chunks' dimension (1 in a row-major slot, 0 in a
  // column-major one, read with `.trans` where the fragment wants the other)
  // must stay one aligned 16-byte chunk, so the offsets of its low three
  // bits are 1, 2, 4 and no other bit of either dimension moves an element
  // within its chunk.
  std::optional<LinearLayout> Inverse = slotLayout(Slot).invert();
  for (unsigned Along : {1u, 0u})
    if (Inverse && keepsChunks(*Inverse, Along, 3)) {
      if (ChunkDim)
        *ChunkDim = Along;
      return SlotValue;
    }
  Why = "the slot's layout does not keep runs of 8 elements along its rows or its columns as "
        "aligned 16-byte chunks, as ldmatrix reads them";
  return nullptr;
}

const ir::Value *FunctionLowering::swizzledColumnSlotOperand(const Instruction &Dot,
                                                             std::string &Why) const {
  const ir::Value *SlotValue =
      slot2DOperand(Dot, 0, 4, "this dot reads A from 2-D slots of 4-byte elements", Why);
  if (!SlotValue)
    return nullptr;
  // Runs of 4 rows (dimension 0) must stay aligned 16-byte chunks.
  std::optional<LinearLayout> Inverse = slotLayout(SlotValue->getType()).invert();
  if (!Inverse || !keepsChunks(*Inverse, 0, 2)) {
    Why = "this dot reads A as runs of 4 rows in 16-byte vectors, and the slot's layout does not "
          "keep them aligned 16-byte chunks";
    return nullptr;
  }
  return SlotValue;
}

const ir::Value *FunctionLowering::elementSlotOperand(const Instruction &Dot, unsigned Idx,
                                                      std::string &Why) const {
  return slot2DOperand(Dot, Idx, 4, "this dot reads 2-D slots of 4-byte elements", Why);
}

FunctionLowering::SlotAddresser
FunctionLowering::slotAddresser(const ir::Value *SlotValue, const Reg &ThreadRow, uint64_t RowBits,
                                const Reg &ThreadCol, uint64_t ColBits) {
  const ir::Type *Slot = SlotValue->getType();
  std::optional<LinearLayout> Inverse = slotLayout(Slot).invert();
  if (!Inverse) // a #shared layout is a permutation of each slot
    reportInternalError("codegen: the layout of " + Slot->str() + " is not invertible");
  int64_t ElemBytes = memBytesOf(Slot->getElementType());
  auto OffsetOf = [Inverse](int64_t Row, int64_t Col) {
    return static_cast<uint64_t>(
        Inverse
            ->apply({{analysis::tileDimName(0), static_cast<int32_t>(Row)},
                     {analysis::tileDimName(1), static_cast<int32_t>(Col)}})
            .front()
            .second);
  };
  // The thread's offset, once per slot layout and thread coordinates.
  uint64_t ThreadBits = 0;
  for (const auto &[Bits, IsRow] : {std::pair<uint64_t, bool>{RowBits, true}, {ColBits, false}})
    for (unsigned Bit = 0; Bit < 64; ++Bit)
      if (Bits >> Bit & 1)
        ThreadBits |= IsRow ? OffsetOf(int64_t(1) << Bit, 0) : OffsetOf(0, int64_t(1) << Bit);
  std::string Key = Slot->str() + "|" + ThreadRow.name() + ":" + std::to_string(RowBits) + "|" +
                    ThreadCol.name() + ":" + std::to_string(ColBits);
  auto It = ThreadSlotOffsets.find(Key);
  if (It == ThreadSlotOffsets.end()) {
    auto P = B.prologue();
    Reg Acc = B.mov(Ty::U32, 0);
    for (const auto &[Bits, Coord, IsRow] :
         {std::tuple<uint64_t, Reg, bool>{RowBits, ThreadRow, true}, {ColBits, ThreadCol, false}})
      for (unsigned Bit = 0; Bit < 64; ++Bit) {
        if (!(Bits >> Bit & 1))
          continue;
        uint64_t Off = IsRow ? OffsetOf(int64_t(1) << Bit, 0) : OffsetOf(0, int64_t(1) << Bit);
        if (!Off)
          continue;
        Reg One = B.inst("bfe.u32", Ty::U32, {Coord, static_cast<int64_t>(Bit), 1});
        Acc = B.bitXor(Ty::B32, Acc, B.mul(Ty::U32, One, static_cast<int64_t>(Off) * ElemBytes))
                  .as(Ty::U32);
      }
    It = ThreadSlotOffsets.emplace(Key, Acc).first;
  }
  Reg ThreadOffset = It->second;
  Reg SlotAddr = Values.at(SlotValue)[0];
  auto Bases = std::make_shared<std::map<uint64_t, Reg>>();
  return [this, OffsetOf, ThreadBits, ThreadOffset, SlotAddr, ElemBytes,
          Bases](int64_t Row, int64_t Col) -> std::pair<Reg, int64_t> {
    uint64_t Off = OffsetOf(Row, Col);
    uint64_t Flip = Off & ThreadBits; // bits the thread's offset may have too
    Reg &Base = (*Bases)[Flip];
    if (!Base.valid()) {
      Reg Thread = ThreadOffset;
      if (Flip) {
        auto P = B.prologue();
        Thread =
            B.bitXor(Ty::B32, ThreadOffset, static_cast<int64_t>(Flip) * ElemBytes).as(Ty::U32);
      }
      Base = B.add(Ty::U32, SlotAddr, Thread);
    }
    return {Base, static_cast<int64_t>(Off & ~ThreadBits) * ElemBytes};
  };
}

void FunctionLowering::remarkSlotStaged(const Instruction &Dot, unsigned Idx,
                                        const std::string &Why) {
  if (Why.empty() || !wantsRemark(RemarkKind::Missed, "dot"))
    return;
  remark(RemarkKind::Missed, "dot", Dot,
         std::string("operand ") + (Idx ? "B" : "A") + " (" +
             ir::printOperand(*Dot.getOperand(Idx)) +
             ", a local_load of a shared slot) goes through registers and is staged in shared "
             "memory again instead of being read from its slot: " +
             Why);
}

} // namespace tritonc::codegen
