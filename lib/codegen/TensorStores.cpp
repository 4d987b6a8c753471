//===- TensorStores.cpp - Tile stores as bulk tensor stores (TMA, sm_90a) --===//
//
// A store of a 2-D tile of 16-bit elements whose pointer tile has the
// tensor-map form of TensorCopies.cpp (AffineAccess.h: a pointer parameter,
// unit stride along dimension 1, the row stride and the mask's extents
// polynomials over the integer parameters) is written by the bulk tensor
// copy engine instead of per-thread st.global:
//
//  * every thread writes its registers straight from the value's own layout
//    (a wgmma accumulator, typically) into scratch shared memory, in the
//    swizzled layout of MmaSharedLayout.h (128-byte rows: bank-conflict free
//    from the accumulator layout, and one of the engine's swizzle modes);
//  * each thread fences its writes to the async proxy, a barrier follows,
//    and thread 0 issues one `cp.async.bulk.tensor.2d` store per column
//    block of the scratch tile, commits them as a bulk group and waits until
//    the engine has read the scratch (`wait_group.read`, not the writes to
//    global memory, which go on while the program moves on). The engine
//    clips at the map's extents, which is what the mask means, but in whole
//    16-byte pieces of a row: the mask must bound both extents, the row
//    extent being a known multiple of 8 elements (unbounded store maps were
//    an illegal instruction on the H100); a false
//    scalar guard, or an extent of at most zero (whose map the launcher
//    points at its zero block), moves the box out of bounds so that nothing
//    is written.
//  * where the rings are live (a persistent kernel's epilogue, while the
//    next tile's operands arrive), the staging tile borrows ring slots if
//    enough are free: a block that drained the rings before refilling them
//    (the tile prefetch fills S - 1 of a ring's slots) leaves the others
//    empty until the next K loop refills them. Each column block (a box of
//    the engine) then sits in such a slot, found from the ring's cursor at
//    run time; the whole tile goes out at once, and the read is waited for
//    not here but by thread 0 before any later ring copy or drain
//    (waitForStagingReads), so it overlaps the next tile's first MMAs. The
//    copies are issued by thread 0 too, and everyone else's later writes to
//    those slots follow a drain and its barrier.
//  * otherwise, where the scratch must fit next to live rings, the tile
//    goes out in row blocks, one after the other through the same scratch,
//    each block's registers written by their owners only.
//
// This skips the layout conversion a vectorized st.global needs (scratch
// writes, a barrier, scratch reads) and the threads' global stores.
//
// The store completes asynchronously, unordered with this program's later
// loads of the same memory. So a store becomes a tensor store only when
// nothing touches memory after it (the usual epilogue), or when everything
// that may run after it is a bulk-copy ring load from another `restrict`
// pointer than the store's own, itself `restrict` (a persistent kernel).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "MmaSharedLayout.h"
#include "tritonc/analysis/PointerBase.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/Utils.h"

#include <set>

namespace tritonc::codegen {

using analysis::TensorAccess;
using ir::Instruction;
using ir::Opcode;

using transform::instructionsAround;

std::vector<RingSlotBox> FunctionLowering::freeRingSlotBoxes(const Instruction &Store,
                                                             unsigned Boxes,
                                                             uint64_t BoxBytes) const {
  // The store's block must have drained every ring (its first ring copy
  // does, after the loop that read them: drainBeforeRefill), and its copies
  // must all come before the store: they fill the slots from each ring's
  // cursor on, and the slots after those stay empty.
  const ir::BasicBlock *BB = Store.getParent();
  if (!RefillBlocks.count(BlockIndex.at(BB)) || BoxBytes % 1024 != 0)
    return {};
  std::vector<unsigned> Fills(Rings.size(), 0);
  bool BeforeStore = true, AnyFill = false;
  for (const auto &I : BB->instructions()) {
    if (I.get() == &Store) {
      BeforeStore = false;
      continue;
    }
    auto It = AsyncOf.find(I.get());
    if (It == AsyncOf.end() || I->getOpcode() == Opcode::Phi)
      continue;
    if (!BeforeStore)
      return {};
    ++Fills[It->second];
    AnyFill = true;
  }
  std::vector<RingSlotBox> Out;
  for (unsigned R = 0; AnyFill && R < Rings.size(); ++R) {
    // Only TMA rings: their copies wait for the staging reads.
    const AsyncRing &Ring = Rings[R];
    if (Ring.TensorMap < 0 || Ring.Offset % 1024 != 0 || Ring.SlotBytes % 1024 != 0)
      continue;
    for (unsigned K = 0; K + Fills[R] < Ring.NumSlots; ++K)
      for (uint64_t Off = 0; Off + BoxBytes <= Ring.SlotBytes; Off += BoxBytes) {
        Out.push_back({R, K, Off});
        if (Out.size() == Boxes)
          return Out;
      }
  }
  return {};
}

void FunctionLowering::waitForStagingReads() {
  if (StagesInRingSlots && StagingReadsWaited.insert(CurrentBlock).second)
    B.emit("@" + B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0).name() +
           " cp.async.bulk.wait_group.read 0;");
}

bool FunctionLowering::tensorStoreIsOrdered(const Instruction &Store,
                                            const TensorAccess &TA) const {
  for (const Instruction *I : instructionsAround(Store, /*Forward=*/true)) {
    if (I == &Store || !I->accessesMemory())
      continue;
    auto It = TensorAccesses.find(I);
    if (It == TensorAccesses.end() || analysis::parametersMayOverlap(It->second.Base, TA.Base))
      return false;
  }
  return true;
}

bool FunctionLowering::genericAccessBefore(const Instruction &Store) const {
  for (const Instruction *I : instructionsAround(Store, /*Forward=*/false))
    if (I != &Store && I->accessesMemory() && !TensorAccesses.count(I))
      return true;
  return false;
}

std::string FunctionLowering::whyNotTensorStore(const Instruction &Store, const TensorAccess &TA) {
  if (TA.UnitDim != 1)
    return "the tile is not contiguous along its last dimension";
  if (!TA.Bound[0] || !TA.Bound[1])
    return "the mask does not bound both dimensions by an extent (the engine needs both)";
  if (knownPow2Divisor(*TA.Bound[1]) * 2 % 16 != 0)
    return "the row extent is not known to be a multiple of 8 elements (the engine writes whole "
           "16-byte pieces of a row)";
  if (!tensorMapAligned(TA, 2))
    return "the base pointer or the row stride is not known to be a multiple of 16 bytes";
  if (!tensorStoreIsOrdered(Store, TA))
    return "the code after the store may touch the memory it writes before the asynchronous "
           "store is known to be done";
  return "";
}

void FunctionLowering::planTensorStores() {
  if (Options.Arch != ptx::Arch::SM90a || !Options.TensorCopies || !Options.TensorStores)
    return;
  for (const auto &BB : F.blocks()) {
    bool RingsLive = RingLiveBlocks.count(BlockIndex.at(BB.get())) != 0;
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      if ((I.getOpcode() != Opcode::Store && I.getOpcode() != Opcode::MaskedStore) ||
          !I.getOperand(0)->getType()->isTile())
        continue;
      Ty T = ptxTypeOf(I.getOperand(1)->getType()->getScalarType());
      const ir::Shape &S = I.getOperand(0)->getType()->getShape();
      if (S.size() != 2)
        continue;
      if (T != Ty::F16 && T != Ty::BF16) {
        remark(RemarkKind::Missed, "tensor-store", I,
               "this store is not a bulk tensor store (TMA), it uses st.global: only tiles of "
               "16-bit elements are");
        continue;
      }
      ensureAffineAccess();
      std::string Why;
      std::optional<TensorAccess> TA = Affine->tensorAccessOf(I, &Why);
      // The engine writes whole 16-byte pieces of a row even where they
      // cross the row's extent (measured on the H100: N = 45 wrote columns
      // 45..47), so the row extent must be a known multiple of 8 elements;
      // a map with an unbounded extent made the store an illegal instruction.
      if (!TA || TA->UnitDim != 1 || !TA->Bound[0] || !TA->Bound[1] ||
          knownPow2Divisor(*TA->Bound[1]) * 2 % 16 != 0 || !tensorMapAligned(*TA, 2) ||
          !tensorStoreIsOrdered(I, *TA)) {
        if (wantsRemark(RemarkKind::Missed, "tensor-store"))
          remark(RemarkKind::Missed, "tensor-store", I,
                 "this store is not a bulk tensor store (TMA), it uses st.global: " +
                     (TA ? whyNotTensorStore(I, *TA) : Why));
        continue;
      }
      TensorStorePlan Plan;
      // The whole tile in free ring slots, one box per column block.
      if (RingsLive && S[0] <= 256) {
        MmaSharedLayout Whole = MmaSharedLayout::make(S[0], S[1], /*ContigDim=*/1, 2);
        // Each thread's offset stays inside the first column block.
        if (Whole.valid() && S[1] % Whole.elemsPerRow() == 0 &&
            threadCoordinateBelow(operandLayout(beforeConversions(I.getOperand(1))), 1,
                                  Whole.elemsPerRow()))
          Plan.RingBoxes =
              freeRingSlotBoxes(I, static_cast<unsigned>(S[1] / Whole.elemsPerRow()),
                                static_cast<uint64_t>(Whole.StridedExtent) * Whole.SwizzleBytes);
      }
      // Row blocks: at most 256 rows (a box's limit), and next to live rings
      // within the shared memory the rings leave.
      int64_t Rows = S[0];
      while (Plan.RingBoxes.empty() &&
             (Rows > 256 || (RingsLive && RingBytes + uint64_t(Rows * S[1]) * 2 > scratchLimit())))
        Rows /= 2;
      MmaSharedLayout SL = MmaSharedLayout::make(Rows, S[1], /*ContigDim=*/1, 2);
      if (Rows < 8 || S[0] % Rows != 0 || !SL.valid() || S[1] % SL.elemsPerRow() != 0 ||
          (RingsLive && RingBytes % 1024 != 0)) {
        remark(RemarkKind::Missed, "tensor-store", I,
               "this store is not a bulk tensor store (TMA), it uses st.global: the tile " +
                   I.getOperand(0)->getType()->withLayout(nullptr)->str() +
                   " cannot be staged in shared memory in the engine's row blocks");
        continue;
      }
      remark(RemarkKind::Passed, "tensor-store", I,
             "this store is a bulk tensor store (TMA) of " + std::to_string(S[0] / Rows) +
                 " block" + (S[0] / Rows == 1 ? "" : "s") + " of " + std::to_string(Rows) +
                 " rows");
      StagesInRingSlots |= !Plan.RingBoxes.empty();
      Plan.SL = SL;
      Plan.Chunks = static_cast<unsigned>(S[0] / Rows);
      Plan.FenceGlobal = genericAccessBefore(I);
      Plan.TensorMap = static_cast<int>(TensorMaps.size());
      TensorMaps.push_back(tensorMapSpecOf(*TA, T, SL));
      Plan.MapParam = B.addByteArrayParam(128, 64);
      Plan.TA = std::move(*TA);
      TensorStores.emplace(&I, std::move(Plan));
    }
  }
}

void FunctionLowering::lowerTensorStore(const Instruction &I, TensorStorePlan &P) {
  const ir::Value *V = beforeConversions(I.getOperand(1));
  const LinearLayout L = operandLayout(V);
  // The accumulator of a loop that may be skipped (ZeroTripGuard.cpp) is
  // converted on the path where the loop ran only.
  auto Zeros = ZeroStagedStores.find(&I);
  Reg ZerosIf = Zeros != ZeroStagedStores.end() ? Zeros->second.Skipped : Reg();
  std::optional<PackableRegs> Vals;
  if (!ZerosIf.valid())
    Vals = getForPacking(V, L);
  std::optional<PackableRegs> Narrowed;
  auto convertedValues = [&]() -> PackableRegs {
    if (Narrowed)
      return *Narrowed;
    for (const Instruction *C : Zeros->second.Conversions)
      if (!Values.count(C) && !LA.isRematerializable(C)) {
        waitForPendingMma(*C);
        // The stored value itself rounds to halves as they are packed
        // (PackedNarrowing.cpp).
        if (C == V && isPackableNarrowing(*C))
          return *(Narrowed = wideNarrowing(*C));
        Values[C] = lowerElementwise(*C, &LA.layoutOf(C));
      }
    return getOwn(V);
  };
  const TensorAccess &TA = P.TA;
  const MmaSharedLayout &SL = P.SL;
  B.comment("bulk tensor store through shared memory");
  if (!P.MapAddress.valid()) {
    auto Prologue = B.prologue();
    Reg Param = B.newReg(Ty::B64);
    B.emit("mov.b64 " + Param.name() + ", " + P.MapParam + ";");
    P.MapAddress = B.newReg(Ty::B64);
    B.emit("cvta.param.u64 " + P.MapAddress.name() + ", " + Param.name() + ";");
  }
  Reg Unit = polyValue(TA.Coord[1]);
  Reg Outer = polyValue(TA.Coord[0]);
  // Nothing is written unless every guard holds and every bounded extent is
  // positive (the launcher maps an empty tensor onto its zero block).
  std::optional<Reg> Writes;
  auto Require = [&](const Reg &C) { Writes = Writes ? B.predAnd(*Writes, C) : C; };
  for (const ir::Value *G : TA.Guards)
    Require(scalar(G));
  for (const auto &Bound : TA.Bound)
    if (Bound)
      Require(B.setp(ptx::Cmp::Gt, Ty::S32, polyValue(*Bound), 0));
  if (Writes)
    Unit = B.selp(Ty::S32, Unit, static_cast<int64_t>(TensorMapOutOfBounds), *Writes);

  // Addresses of the column blocks in borrowed ring slots: the slot
  // SlotsAhead after the ring's cursor, wrapping around the ring.
  Regs BoxBases;
  std::map<std::pair<unsigned, unsigned>, Reg> SlotAddress;
  for (const RingSlotBox &Box : P.RingBoxes) {
    const AsyncRing &Ring = Rings[Box.Ring];
    Reg &Slot = SlotAddress[{Box.Ring, Box.SlotsAhead}];
    if (!Slot.valid()) {
      // The cursor is below the ring's size; a slot ahead of it may wrap.
      uint64_t RingSize = Ring.SlotBytes * Ring.NumSlots;
      Reg Offset = Ring.Cursor;
      if (Box.SlotsAhead) {
        Reg Ahead =
            B.add(Ty::U32, Ring.Cursor, static_cast<int64_t>(Box.SlotsAhead * Ring.SlotBytes));
        Reg Wraps = B.setp(ptx::Cmp::Ge, Ty::U32, Ahead, static_cast<int64_t>(RingSize));
        Offset =
            B.selp(Ty::U32, B.sub(Ty::U32, Ahead, static_cast<int64_t>(RingSize)), Ahead, Wraps);
      }
      Slot = B.add(Ty::U32, B.add(Ty::U32, ringBase(), Offset), static_cast<int64_t>(Ring.Offset));
    }
    BoxBases.push_back(Box.Offset ? B.add(Ty::U32, Slot, static_cast<int64_t>(Box.Offset)) : Slot);
  }
  bool InRingSlots = !BoxBases.empty();

  int64_t Rows = SL.StridedExtent;
  unsigned Shift = static_cast<unsigned>(__builtin_ctzll(static_cast<uint64_t>(Rows)));
  Reg ThreadBlock;
  if (P.Chunks > 1)
    ThreadBlock = B.shr(Ty::U32, threadCoords(L)[0], static_cast<int64_t>(Shift));
  Reg Thread0 = B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0);
  for (unsigned C = 0; C < P.Chunks; ++C) {
    // Registers of other row blocks wait for their turn. Coordinates are
    // the thread's XOR the register's (linear layouts).
    std::map<int64_t, Reg> InBlock;
    std::function<Reg(int32_t)> Guard;
    if (P.Chunks > 1)
      Guard = [&](int32_t R) {
        int64_t Own = registerCoords(L, R)[0] >> Shift;
        Reg &G = InBlock[Own];
        if (!G.valid())
          G = B.setp(ptx::Cmp::Eq, Ty::U32, B.bitXor(Ty::B32, ThreadBlock, Own), C);
        return G;
      };
    Reg Base;
    if (InRingSlots) {
      Base = BoxBases[0];
    } else {
      sharedAccess(true, SL.bytes());
      Base = sharedBase();
    }
    storeTileToMmaShared([&] { return ZerosIf.valid() ? convertedValues() : *Vals; }, L, SL, Base,
                         Guard, BoxBases, ZerosIf);
    B.emit("fence.proxy.async.shared::cta;");
    if (P.FenceGlobal)
      B.emit("fence.proxy.async.global;");
    forcedBarrier();
    // Earlier bulk stores (of the previous tile, in a persistent kernel)
    // must be in global memory before this one may overwrite what they
    // wrote; row blocks of one store do not overlap.
    if (C == 0)
      B.emit("@" + Thread0.name() + " cp.async.bulk.wait_group 0;");
    Reg Row = C ? B.add(Ty::S32, Outer, static_cast<int64_t>(C) * Rows) : Outer;
    int64_t E = SL.elemsPerRow();
    auto [Hint, Policy] = ptx::PTXFunctionBuilder::cacheHintFor(cachePolicy(TA.Base));
    for (int64_t Block = 0; Block * E < SL.ContigExtent; ++Block) {
      Reg Src = InRingSlots
                    ? BoxBases[static_cast<size_t>(Block)]
                    : B.add(Ty::U32, Base, static_cast<int64_t>(Block * Rows * SL.SwizzleBytes));
      Reg Col = Block ? B.add(Ty::S32, Unit, Block * E) : Unit;
      B.emit("@" + Thread0.name() + " cp.async.bulk.tensor.2d.global.shared::cta.bulk_group" +
             Hint + " [" + P.MapAddress.name() + ", {" + Col.name() + ", " + Row.name() + "}], [" +
             Src.name() + "]" + Policy + ";");
    }
    B.emit("@" + Thread0.name() + " cp.async.bulk.commit_group;");
    if (InRingSlots)
      continue; // waited for by waitForStagingReads
    // The scratch may be reused once the engine has read it; every later
    // user passes a barrier after this wait.
    B.emit("@" + Thread0.name() + " cp.async.bulk.wait_group.read 0;");
    sharedAccess(false, SL.bytes());
  }
}

} // namespace tritonc::codegen
