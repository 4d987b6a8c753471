//===- GpuOps.cpp - Sequential semantics of GPU-level Triton-IR -----------===//
//
// See GpuState.h for the model. Shared memory holds each slot's elements
// row-major: a #shared swizzle is a bijection within the slot, so the
// values a program observes do not depend on it (the back end's address
// computation is tested against the layouts separately).
//
//===----------------------------------------------------------------------===//
#include "GpuState.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/ir/ThreadOwnership.h"

#include <algorithm>

namespace tritonc::interp::detail {

using ir::Opcode;

namespace {
constexpr uint8_t Init = 1;          ///< Written at least once.
constexpr uint8_t UnsyncedWrite = 2; ///< Written since the last barrier.
constexpr uint8_t UnsyncedRead = 4;  ///< Read by local_load since the last barrier.
constexpr uint8_t Unfenced = 8;      ///< Generic-proxy write since the last proxy fence.
/// The wait that retires a pending operation of an AsyncKind.
const char *retiredBy(uint8_t Kind);
} // namespace

GpuState::GpuState(const CompiledFunction &CF, std::vector<uint64_t> &Slots, GlobalMemory &Global,
                   const SourceManager *SM)
    : CF(CF), Slots(Slots), Global(Global), SM(SM) {}

void GpuState::startProgram() {
  Shared.assign(CF.SharedBytes, 0);
  Flags.assign(CF.SharedBytes, 0);
  WrittenBy.assign(CF.SharedBytes, nullptr);
  ReadBy.assign(CF.SharedBytes, nullptr);
  Owner.assign(CF.SharedBytes, 0);
  AccessedBy.assign(CF.SharedBytes, 0);
  Pending.clear();
  PendingGlobal.clear(); // the program's stores complete when it ends
  Barriers.clear();
  PendingValues.clear();
  Groups.assign(1, ThreadGroup{});
  Current = 0;
  RetiredReads.clear();
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

void GpuState::forkPartitions(const std::vector<ir::WarpPartition> &Partitions) {
  size_t Count = Partitions.size();
  Groups.resize(1);
  Groups.resize(Count + 1);
  for (size_t K = 1; K <= Count; ++K) {
    Groups[K].Clock.assign(Count + 1, 0);
    Groups[K].Clock[K] = 1;
    Groups[K].Warps = Partitions[K - 1].Warps;
  }
  RetiredReads.clear();
  for (auto &[Addr, B] : Barriers) {
    B.Released.assign(Count + 1, 0);
    B.Completed.assign(Count + 1, 0);
  }
}

namespace {
void joinClocks(std::vector<uint64_t> &Into, const std::vector<uint64_t> &From) {
  Into.resize(std::max(Into.size(), From.size()), 0);
  for (size_t K = 0; K < From.size(); ++K)
    Into[K] = std::max(Into[K], From[K]);
}
} // namespace

void GpuState::checkOrderedAfterReads(const CInst &I, uint64_t Begin, uint64_t End) {
  const std::vector<uint64_t> &Clock = group().Clock;
  for (const RetiredRead &R : RetiredReads)
    if (R.Owner != Current && R.Begin < End && Begin < R.End && Clock[R.Owner] < R.Epoch)
      fail(I, "overwrites shared memory that the " + where(R.Src) + " of partition " +
                  std::to_string(R.Owner - 1) +
                  " read, but no mbarrier_wait orders this write after that read's wgmma_wait "
                  "(missing a wait on the mbarrier the reading partition arrives on)");
  std::erase_if(RetiredReads,
                [&](const RetiredRead &R) { return Begin <= R.Begin && R.End <= End; });
}

void GpuState::leavePartition(const CInst &At) {
  for (const AsyncOp &Op : Pending)
    if (Op.Owner == Current && Op.Kind != AsyncKind::TmaLoad)
      fail(At, "the partition ends while the " + where(Op.Src) +
                   " it issued is in flight (missing " + retiredBy(static_cast<uint8_t>(Op.Kind)) +
                   ")");
  for (auto &[Slot, V] : PendingValues)
    if (V.Owner == Current)
      fail(At, "the partition ends with a wgmma result that no wgmma_wait retired");
}

void GpuState::joinPartitions() {
  // warp_join is a CTA-wide barrier: every access before it is ordered
  // before every access after it.
  for (uint8_t &F : Flags)
    F &= static_cast<uint8_t>(~(UnsyncedWrite | UnsyncedRead));
  std::fill(AccessedBy.begin(), AccessedBy.end(), 0);
  Current = 0;
  Groups.resize(1);
  RetiredReads.clear();
  for (auto &[Addr, B] : Barriers) {
    B.Released.clear();
    B.Completed.clear();
  }
}

bool GpuState::waitReady(const CInst &I) {
  const GpuOpInfo &G = info(I);
  return (barrierAt(I, slotValue(G, 0)).Phase & 1) != (slotValue(G, 1) & 1);
}

std::string GpuState::waitState(const CInst &I) {
  const GpuOpInfo &G = info(I);
  const Mbarrier &B = barrierAt(I, slotValue(G, 0));
  return "phase " + std::to_string(B.Phase) + ": " + std::to_string(B.Pending) + " of " +
         std::to_string(B.Arrivals) + " arrivals missing, " + std::to_string(B.TxIssued) + " of " +
         std::to_string(B.TxExpected) + " expected bytes in flight";
}

void GpuState::checkPartitionAccess(const CInst &I, uint64_t Begin, uint64_t End) {
  for (uint64_t B = Begin; B < End; ++B)
    if (AccessedBy[B] && AccessedBy[B] != Current)
      fail(I, "accesses shared memory that partition " + std::to_string(AccessedBy[B] - 1) +
                  " accessed through the generic proxy before the warp_join (generic traffic "
                  "between partitions is not modelled: pass data through tensor copies and "
                  "mbarriers)");
}

void GpuState::fail(const CInst &I, const std::string &Msg) { throw RunError{I.Src, Msg}; }

void GpuState::endProgram(const CInst &At) {
  for (const AsyncOp &Op : Pending)
    if (Op.Kind == AsyncKind::TmaStore)
      fail(At, "the program ends while the " + where(Op.Src) +
                   " still reads shared memory (missing tma_store_wait)");
}

void GpuState::checkGlobalAccess(const CInst &I, uint64_t Addr, unsigned Size, const char *What) {
  auto It = PendingGlobal.upper_bound(Addr + Size - 1);
  if (It == PendingGlobal.begin() || std::prev(It)->second.End <= Addr)
    return;
  fail(I, std::string(What) + " of global memory that the pending " +
              where(std::prev(It)->second.Src) + " still writes (missing tma_store_wait N writes)");
}

std::string GpuState::where(const ir::Instruction *I) const {
  if (!I)
    return "an earlier operation";
  std::string S = ir::opcodeName(I->getOpcode());
  if (I->Loc.isValid()) {
    S += " at ";
    S += SM && I->Loc.File < SM->numBuffers() ? SM->getName(I->Loc.File)
                                              : "<file " + std::to_string(I->Loc.File) + ">";
    S += ":" + std::to_string(I->Loc.Line) + ":" + std::to_string(I->Loc.Col);
  }
  return S;
}

std::pair<uint64_t, uint64_t> GpuState::range(const CInst &I, unsigned K, uint64_t Bytes) {
  uint64_t Begin = slotValue(info(I), K);
  // Slot values come only from smem_alloc and smem_slot, which stay inside
  // the program's shared memory; this guards the host against bad IR.
  if (Begin > Shared.size() || Bytes > Shared.size() - Begin)
    fail(I, "internal: a shared-memory operand lies outside the program's shared memory");
  return {Begin, Begin + Bytes};
}

//===----------------------------------------------------------------------===//
// Hazards
//===----------------------------------------------------------------------===//

const GpuState::AsyncOp *GpuState::pendingOverlap(uint64_t Begin, uint64_t End, bool Writes,
                                                  bool Reads) const {
  for (const AsyncOp &Op : Pending) {
    bool IsWrite = Op.Kind == AsyncKind::CpAsync || Op.Kind == AsyncKind::TmaLoad;
    if ((IsWrite ? Writes : Reads) && Op.Begin < End && Begin < Op.End)
      return &Op;
  }
  return nullptr;
}

namespace {
const char *retiredBy(uint8_t Kind) {
  switch (Kind) {
  case 0:
    return "a cp_async_wait that retires its group";
  case 1:
    return "an mbarrier_wait on the phase it completes";
  case 2:
    return "a tma_store_wait that retires it";
  default:
    return "a wgmma_wait that retires its group";
  }
}
} // namespace

const ir::Layout *GpuState::threadExclusiveLayout(const ir::Instruction &I) {
  bool Load = I.getOpcode() == Opcode::LocalLoad;
  const ir::Type *Tile = Load ? I.getType() : I.getOperand(1)->getType();
  const ir::Layout *L = Tile->getLayout();
  if (!L || !ir::holdsEachElementOnce(*L, Tile->getShape()))
    return nullptr;
  if (Load)
    for (const ir::Instruction *U : I.users())
      if (U->getOpcode() == Opcode::Dot)
        return nullptr; // read from the slot by the dot's lanes for each other
  return L;
}

void GpuState::checkRead(const CInst &I, uint64_t Begin, uint64_t End, bool AsyncProxy,
                         uint32_t Buffer, const ir::Layout *By) {
  if (Groups.size() > 1)
    checkPartitionAccess(I, Begin, End);
  if (const AsyncOp *Op = pendingOverlap(Begin, End, true, false))
    fail(I, "reads shared memory that the pending " + where(Op->Src) + " still writes (missing " +
                retiredBy(static_cast<uint8_t>(Op->Kind)) + ")");
  for (uint64_t B = Begin; B < End; ++B) {
    if (!(Flags[B] & Init))
      fail(I, "reads shared memory that was never written (byte " + std::to_string(B) + ")");
    if ((Flags[B] & UnsyncedWrite) && !(By && WrittenBy[B] == By))
      fail(I, "reads shared memory written since the last barrier by other threads (missing "
              "barrier)");
    if (AsyncProxy && (Flags[B] & Unfenced))
      fail(I, "reads generic-proxy writes through the async proxy (missing fence_proxy_async)");
    if (Buffer && Owner[B] && Owner[B] != Buffer)
      fail(I, "reads bytes of " + bufferName(Buffer) + " that " + bufferName(Owner[B]) +
                  " wrote since: the two buffers share shared memory while both are live (their "
                  "smem_alloc offsets overlap)");
  }
  // Reads through the async proxy are tracked as pending operations until
  // their wait; generic reads must be separated from later writes by a
  // barrier.
  if (!AsyncProxy)
    for (uint64_t B = Begin; B < End; ++B) {
      ReadBy[B] = (Flags[B] & UnsyncedRead) && ReadBy[B] != By ? nullptr : By;
      Flags[B] |= UnsyncedRead;
      AccessedBy[B] = Current;
    }
}

void GpuState::checkWrite(const CInst &I, uint64_t Begin, uint64_t End, const char *What,
                          const ir::Layout *By) {
  if (Groups.size() > 1) {
    checkPartitionAccess(I, Begin, End);
    checkOrderedAfterReads(I, Begin, End);
  }
  if (const AsyncOp *Op = pendingOverlap(Begin, End, true, true)) {
    bool IsWrite = Op->Kind == AsyncKind::CpAsync || Op->Kind == AsyncKind::TmaLoad;
    fail(I, std::string(What) + " shared memory that the pending " + where(Op->Src) + " still " +
                (IsWrite ? "writes" : "reads") + " (missing " +
                retiredBy(static_cast<uint8_t>(Op->Kind)) + ")");
  }
  for (uint64_t B = Begin; B < End; ++B)
    if ((Flags[B] & UnsyncedRead) && !(By && ReadBy[B] == By))
      fail(I, std::string(What) +
                  " shared memory that other threads read since the last barrier (missing "
                  "barrier)");
}

void GpuState::land(const AsyncOp &Op, uint8_t Set) {
  std::copy(Op.Data.begin(), Op.Data.end(), Shared.begin() + static_cast<std::ptrdiff_t>(Op.Begin));
  for (uint64_t B = Op.Begin; B < Op.End; ++B) {
    Flags[B] = static_cast<uint8_t>((Flags[B] & ~(UnsyncedWrite | Unfenced)) | Set);
    WrittenBy[B] = nullptr;
    // cp_async data is the issuing threads' generic write; tensor copies
    // land through an mbarrier that orders them for every waiter.
    AccessedBy[B] = Set & UnsyncedWrite ? Current : 0;
  }
  own(Op.Begin, Op.End, Op.Buffer);
}

void GpuState::own(uint64_t Begin, uint64_t End, uint32_t Buffer) {
  std::fill(Owner.begin() + static_cast<std::ptrdiff_t>(Begin),
            Owner.begin() + static_cast<std::ptrdiff_t>(End), Buffer);
}

std::string GpuState::bufferName(uint32_t Buffer) const {
  return ir::printOperand(*CF.SharedBuffers[Buffer - 1]) + " (" +
         where(CF.SharedBuffers[Buffer - 1]) + ")";
}

uint64_t GpuState::readShared(uint64_t Addr, ElemKind K) const {
  return decodeRaw(readRaw(&Shared[Addr], storeSize(K)), K);
}

void GpuState::writeShared(std::vector<uint8_t> &To, uint64_t Addr, uint64_t Slot,
                           ElemKind K) const {
  writeRaw(&To[Addr], encodeRaw(Slot, K), storeSize(K));
}

//===----------------------------------------------------------------------===//
// Pending values (wgmma results)
//===----------------------------------------------------------------------===//

void GpuState::checkOperandsReady(const CInst &I) {
  auto Check = [&](uint32_t Off) {
    if (PendingValues.count(Off))
      fail(I, "uses a wgmma result before a wgmma_wait retires its group");
  };
  if (opcodeCategory(I.Op) != ir::OpCategory::Gpu && !isDescriptorAccess(I.Op)) {
    for (unsigned K = 0; K < I.NumOps; ++K)
      Check(I.Ops[K].Off);
    return;
  }
  const GpuOpInfo &G = info(I);
  for (unsigned K = 0; K < G.Ops.size(); ++K) {
    // A wgmma may accumulate into a result still in flight (the hardware
    // chains them); no other operation may read one.
    if (!(I.Op == Opcode::Wgmma && K == 2))
      Check(G.Ops[K].Off);
  }
}

void GpuState::copyPendingMarks(const std::vector<std::pair<uint32_t, uint32_t>> &DstSrc) {
  std::vector<std::pair<uint32_t, PendingValue>> Marks; // read all before writing any
  std::vector<uint32_t> Cleared;
  for (auto [Dst, Src] : DstSrc) {
    auto It = PendingValues.find(Src);
    if (It != PendingValues.end())
      Marks.push_back({Dst, It->second});
    else
      Cleared.push_back(Dst);
  }
  for (uint32_t Dst : Cleared)
    PendingValues.erase(Dst);
  for (auto [Dst, Mark] : Marks)
    PendingValues[Dst] = Mark;
}

void GpuState::retire(AsyncKind Kind, int64_t Before) {
  std::vector<AsyncOp> Kept;
  for (AsyncOp &Op : Pending) {
    if (Op.Kind != Kind || Op.Owner != Current || Op.Group < 0 || Op.Group >= Before) {
      Kept.push_back(std::move(Op));
      continue;
    }
    // cp.async data is a generic-proxy write each thread waited for only
    // for its own copies: other threads need a barrier, the async proxy a
    // fence.
    if (Kind == AsyncKind::CpAsync)
      land(Op, Init | UnsyncedWrite | Unfenced);
    if (Kind == AsyncKind::WgmmaRead && Current)
      RetiredReads.push_back({Op.Begin, Op.End, Current, group().Clock[Current], Op.Src});
  }
  Pending = std::move(Kept);
}

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

void GpuState::exec(const CInst &I) {
  const GpuOpInfo &G = info(I);
  uint64_t *R = &Slots[I.Res];
  switch (I.Op) {
  case Opcode::ConvertLayout:
    std::copy_n(&Slots[G.Ops[0].Off], I.N, R);
    return;
  case Opcode::ExtractSlice: {
    // Row-major elements: each of the window's, at its offset in the tile.
    size_t Rank = G.Shape.size();
    for (uint64_t E = 0; E < I.N; ++E) {
      uint64_t Rest = E, From = 0, Scale = 1;
      for (size_t D = Rank; D-- > 0;) {
        uint64_t Extent = static_cast<uint64_t>(G.WindowShape[D]);
        From += (Rest % Extent + slotValue(G, static_cast<unsigned>(1 + D))) * Scale;
        Rest /= Extent;
        Scale *= static_cast<uint64_t>(G.Shape[D]);
      }
      R[E] = Slots[G.Ops[0].Off + From];
    }
    return;
  }
  case Opcode::SmemAlloc:
    *R = G.SharedOffset;
    return;
  case Opcode::SmemSlot: {
    int64_t Index = static_cast<int64_t>(slotValue(G, 1));
    if (Index < 0 || static_cast<uint64_t>(Index) >= G.Slots)
      fail(I, "slot index " + std::to_string(Index) + " is outside the ring's " +
                  std::to_string(G.Slots) + " slots");
    *R = slotValue(G, 0) + static_cast<uint64_t>(Index) * G.SlotBytes;
    return;
  }
  case Opcode::LocalLoad:
  case Opcode::LocalStore:
    execLocal(I);
    return;
  case Opcode::CpAsync:
  case Opcode::CpAsyncCommit:
  case Opcode::CpAsyncWait:
    execCpAsync(I);
    return;
  case Opcode::MbarrierInit:
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierWait:
    execMbarrier(I);
    return;
  case Opcode::MakeTensorDesc:
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
  case Opcode::TmaStoreWait:
    execTensorCopy(I);
    return;
  case Opcode::Wgmma:
    execWgmma(I);
    return;
  case Opcode::WgmmaFence:
    group().WgmmaFenced = true;
    return;
  case Opcode::WgmmaCommit:
    for (AsyncOp &Op : Pending)
      if (Op.Kind == AsyncKind::WgmmaRead && Op.Owner == Current && Op.Group < 0)
        Op.Group = group().NextWgmmaGroup;
    for (auto &[Off, V] : PendingValues)
      if (V.Owner == Current && V.Group < 0)
        V.Group = group().NextWgmmaGroup;
    ++group().NextWgmmaGroup;
    return;
  case Opcode::WgmmaWait:
    execWgmmaWait(I);
    return;
  case Opcode::FenceProxyAsync:
    // A thread's fence covers its own writes: a partition's, those of the
    // partition (AccessedBy is 0 everywhere outside a warp_specialize).
    for (size_t B = 0; B < Flags.size(); ++B)
      if (AccessedBy[B] == Current)
        Flags[B] &= static_cast<uint8_t>(~Unfenced);
    return;
  case Opcode::FenceProxyAsyncGlobal:
    // Global memory is one sequential store here: a bulk tensor store's
    // writes land in program order, after the threads' own.
    return;
  case Opcode::Barrier:
    // A partition's barrier synchronizes its own warps only.
    for (size_t B = 0; B < Flags.size(); ++B)
      if (AccessedBy[B] == Current)
        Flags[B] &= static_cast<uint8_t>(~(UnsyncedWrite | UnsyncedRead));
    return;
  default:
    fail(I, "not a GPU-level operation");
  }
}

void GpuState::execLocal(const CInst &I) {
  const GpuOpInfo &G = info(I);
  auto [Begin, End] = range(I, 0, G.SlotBytes);
  const ir::Layout *By = threadExclusiveLayout(*I.Src);
  if (I.Op == Opcode::LocalLoad) {
    checkRead(I, Begin, End, /*AsyncProxy=*/false, bufferOf(I, 0), By);
    uint64_t *R = &Slots[I.Res];
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = readShared(Begin + uint64_t(L) * G.ElemBytes, G.Elem);
    return;
  }
  checkWrite(I, Begin, End, "overwrites", By);
  const uint64_t *V = &Slots[G.Ops[1].Off];
  uint64_t Count = G.SlotBytes / G.ElemBytes;
  for (uint64_t L = 0; L < Count; ++L)
    writeShared(Shared, Begin + L * G.ElemBytes, V[L], G.Elem);
  for (uint64_t B = Begin; B < End; ++B) {
    WrittenBy[B] = (Flags[B] & UnsyncedWrite) && WrittenBy[B] != By ? nullptr : By;
    Flags[B] |= Init | UnsyncedWrite | Unfenced;
    AccessedBy[B] = Current;
  }
  own(Begin, End, bufferOf(I, 0));
}

void GpuState::execCpAsync(const CInst &I) {
  const GpuOpInfo &G = info(I);
  if (I.Op == Opcode::CpAsyncCommit) {
    for (AsyncOp &Op : Pending)
      if (Op.Kind == AsyncKind::CpAsync && Op.Owner == Current && Op.Group < 0)
        Op.Group = group().NextCpGroup;
    ++group().NextCpGroup;
    return;
  }
  if (I.Op == Opcode::CpAsyncWait) {
    retire(AsyncKind::CpAsync, group().NextCpGroup - I.Src->Count);
    return;
  }
  auto [Begin, End] = range(I, 0, G.SlotBytes);
  checkWrite(I, Begin, End, "cp_async overwrites");
  // The global reads happen now (the sources must not change while the
  // copy is in flight); the bytes land when the group is retired.
  AsyncOp Op{AsyncKind::CpAsync, Begin, End, bufferOf(I, 0), std::vector<uint8_t>(End - Begin, 0)};
  Op.Src = I.Src;
  Op.Owner = Current;
  const uint64_t *P = &Slots[G.Ops[1].Off];
  const uint64_t *Mask = G.Ops.size() == 3 ? &Slots[G.Ops[2].Off] : nullptr;
  uint64_t Count = G.SlotBytes / G.ElemBytes;
  for (uint64_t L = 0; L < Count; ++L) {
    if (Mask && !(Mask[L] & 1))
      continue; // zero-filled (src-size 0)
    const uint8_t *H = globalAccess(I, P[L], G.ElemBytes, "read");
    writeRaw(&Op.Data[L * G.ElemBytes], readRaw(H, G.ElemBytes), G.ElemBytes);
  }
  Pending.push_back(std::move(Op));
}

GpuState::Mbarrier &GpuState::barrierAt(const CInst &I, uint64_t Addr) {
  auto It = Barriers.find(Addr);
  if (It == Barriers.end())
    fail(I, "uses an mbarrier that mbarrier_init has not initialized");
  return It->second;
}

void GpuState::tryCompletePhase(uint64_t Addr, Mbarrier &B) {
  if (B.Pending != 0 || B.TxIssued != B.TxExpected)
    return;
  for (AsyncOp &Op : Pending)
    if (Op.Kind == AsyncKind::TmaLoad && Op.Barrier == Addr && Op.Phase == B.Phase)
      Op.Landed = true;
  ++B.Phase;
  ++CompletedPhases;
  if (!B.Released.empty()) {
    joinClocks(B.Completed, B.Released);
    std::fill(B.Released.begin(), B.Released.end(), 0);
  }
  B.Pending = B.Arrivals;
  B.TxExpected = B.TxIssued = 0;
}

void GpuState::execMbarrier(const CInst &I) {
  const GpuOpInfo &G = info(I);
  uint64_t Addr = slotValue(G, 0);
  switch (I.Op) {
  case Opcode::MbarrierInit: {
    for (const AsyncOp &Op : Pending)
      if (Op.Kind == AsyncKind::TmaLoad && Op.Barrier == Addr)
        fail(I, "initializes an mbarrier that the pending " + where(Op.Src) + " still signals");
    Mbarrier &B = Barriers[Addr];
    B = Mbarrier{I.Src->Count, I.Src->Count, 0, 0, 0, I.Src, {}, {}};
    return;
  }
  case Opcode::MbarrierArrive: {
    Mbarrier &B = barrierAt(I, Addr);
    // Per warp: one arrival of each warp of the partition (the verifier
    // keeps per_warp inside partitions), all in this phase: arrivals past
    // its count would complete the next phase early.
    int64_t Arrivals = I.Src->PerWarp ? group().Warps : 1;
    if (Arrivals > B.Pending)
      fail(I, std::string("arrives ") +
                  (I.Src->PerWarp
                       ? "for each of its partition's " + std::to_string(Arrivals) + " warps"
                       : "once") +
                  " on an mbarrier phase that misses only " + std::to_string(B.Pending) + " of " +
                  std::to_string(B.Arrivals) +
                  " arrivals: the rest would count towards the next phase (a wrong "
                  "mbarrier_init count?)");
    if (Current) {
      // The arrival releases what the partition did so far.
      joinClocks(B.Released, group().Clock);
      ++group().Clock[Current];
    }
    B.Pending -= Arrivals;
    tryCompletePhase(Addr, B);
    return;
  }
  case Opcode::MbarrierExpectTx: {
    Mbarrier &B = barrierAt(I, Addr);
    B.TxExpected += I.Src->Count;
    return;
  }
  default: { // wait
    Mbarrier &B = barrierAt(I, Addr);
    uint64_t Parity = slotValue(G, 1) & 1;
    if ((B.Phase & 1) == Parity)
      // The phase waited for is the current one; nothing else runs, so it
      // could only complete through this program's own later operations.
      fail(I, "waits for the mbarrier phase of parity " + std::to_string(Parity) +
                  ", which cannot complete here (phase " + std::to_string(B.Phase) + ": " +
                  std::to_string(B.Pending) + " of " + std::to_string(B.Arrivals) +
                  " arrivals missing, " + std::to_string(B.TxIssued) + " of " +
                  std::to_string(B.TxExpected) + " expected bytes in flight); a wrong phase?");
    if (Current)
      joinClocks(group().Clock, B.Completed); // the wait acquires the releases
    std::vector<AsyncOp> Kept;
    for (AsyncOp &Op : Pending) {
      if (Op.Kind == AsyncKind::TmaLoad && Op.Barrier == Addr && Op.Landed)
        land(Op, Init); // every thread waited: no barrier needed
      else
        Kept.push_back(std::move(Op));
    }
    Pending = std::move(Kept);
    return;
  }
  }
}

template <typename Fn>
void GpuState::walkBox(const uint64_t *Desc, const std::vector<int64_t> &Coord, const GpuOpInfo &G,
                       uint64_t Count, Fn &&Visit) const {
  // Row-major over the box, every E-th element of the tensor along a
  // dimension of traversal stride E (element i along dimension k is tensor
  // element Coord[k] + i * E[k]). The address arithmetic wraps as the
  // hardware's does; only addresses of elements inside are used.
  size_t Rank = Coord.size();
  const uint64_t *Traversal = Desc + 1 + 2 * Rank;
  std::vector<int64_t> Idx(Rank, 0);
  for (uint64_t L = 0; L < Count; ++L) {
    bool Inside = true;
    uint64_t Addr = Desc[0];
    for (size_t D = 0; D < Rank; ++D) {
      int64_t X = Coord[D] + Idx[D] * static_cast<int64_t>(Traversal[D]);
      Inside &= X >= 0 && X < static_cast<int64_t>(Desc[1 + D]);
      Addr += static_cast<uint64_t>(X) * Desc[1 + Rank + D] * G.ElemBytes;
    }
    Visit(L, Inside, Addr);
    for (size_t D = Rank; D-- > 0;) {
      if (++Idx[D] < G.Shape[D])
        break;
      Idx[D] = 0;
    }
  }
}

void GpuState::execDescriptorAccess(const CInst &I) {
  const GpuOpInfo &G = info(I);
  size_t Rank = G.Shape.size();
  const uint64_t *Desc = &Slots[G.Ops[0].Off];
  std::vector<int64_t> Coord(Rank);
  for (size_t D = 0; D < Rank; ++D)
    Coord[D] = static_cast<int32_t>(slotValue(G, 1 + unsigned(D)));
  uint64_t Count = G.SlotBytes / G.ElemBytes;
  if (I.Op == Opcode::DescLoad) {
    uint64_t *R = &Slots[I.Res];
    walkBox(Desc, Coord, G, Count, [&](uint64_t L, bool Inside, uint64_t Addr) {
      R[L] = Inside ? decodeRaw(readRaw(globalAccess(I, Addr, G.ElemBytes, "read"), G.ElemBytes),
                                G.Elem)
                    : 0; // the slot of a zero is 0 in every element kind
    });
    return;
  }
  const uint64_t *V = &Slots[G.Ops[1 + Rank].Off];
  walkBox(Desc, Coord, G, Count, [&](uint64_t L, bool Inside, uint64_t Addr) {
    if (Inside)
      writeRaw(globalAccess(I, Addr, G.ElemBytes, "write"), encodeRaw(V[L], G.Elem), G.ElemBytes);
  });
}

void GpuState::execTensorCopy(const CInst &I) {
  const GpuOpInfo &G = info(I);
  size_t Rank = G.Shape.size();
  if (I.Op == Opcode::TmaStoreWait) {
    int64_t Before = group().NextStoreGroup - I.Src->Count;
    std::vector<AsyncOp> Kept;
    for (AsyncOp &Op : Pending)
      if (!(Op.Kind == AsyncKind::TmaStore && Op.Owner == Current && Op.Group < Before))
        Kept.push_back(std::move(Op));
    Pending = std::move(Kept);
    if (I.Src->WaitsForWrites)
      for (auto It = PendingGlobal.begin(); It != PendingGlobal.end();)
        It = It->second.Owner == Current && It->second.Group < Before ? PendingGlobal.erase(It)
                                                                      : std::next(It);
    return;
  }
  if (I.Op == Opcode::MakeTensorDesc) {
    // Base, extents, strides and traversal strides, as the launcher's
    // tensor map would encode them; the copy engine's rules on them are
    // checked here (the verifier checked the traversal strides).
    // A descriptor only desc_load and desc_store read needs no alignment.
    uint64_t *R = &Slots[I.Res];
    bool Traversal = G.Ops.size() == 1 + 3 * Rank;
    R[0] = slotValue(G, 0);
    if (G.CopyEngine && R[0] % 16 != 0)
      fail(I, "the base address of a tensor descriptor must be 16-byte aligned");
    for (size_t D = 0; D < Rank; ++D) {
      int64_t Extent = static_cast<int64_t>(slotValue(G, 1 + unsigned(D)));
      int64_t Stride = static_cast<int64_t>(slotValue(G, 1 + unsigned(Rank + D)));
      // Positive strides always: a load through the descriptor may become
      // a bulk tensor copy on the GPU wherever the launch's arguments allow.
      if (D + 1 == Rank ? Stride != 1
                        : Stride < 1 || (G.CopyEngine && Stride * G.ElemBytes % 16 != 0))
        fail(I, "stride " + std::to_string(D) + " of " + std::to_string(Stride) +
                    (D + 1 == Rank  ? " must be 1 (the innermost dimension is contiguous)"
                     : G.CopyEngine ? " elements must be a positive multiple of 16 bytes"
                                    : " elements must be positive"));
      // An extent of at most 0 leaves every element outside: the launcher
      // encodes such a map as one that reads zeros (TensorMapSpec.h).
      R[1 + D] = static_cast<uint64_t>(std::max<int64_t>(Extent, 0));
      R[1 + Rank + D] = static_cast<uint64_t>(Stride);
      R[1 + 2 * Rank + D] = Traversal ? slotValue(G, 1 + unsigned(2 * Rank + D)) : 1;
    }
    return;
  }
  const uint64_t *Desc = &Slots[G.Ops[0].Off];
  const uint64_t *Traversal = Desc + 1 + 2 * Rank;
  bool IsLoad = I.Op == Opcode::TmaLoad;
  if (!IsLoad && std::any_of(Traversal, Traversal + Rank, [](uint64_t E) { return E != 1; }))
    fail(I, "stores through a tensor descriptor with traversal strides are not supported "
            "(they gather loads)");
  std::vector<int64_t> Coord(Rank);
  for (size_t D = 0; D < Rank; ++D)
    Coord[D] = static_cast<int32_t>(slotValue(G, 1 + unsigned(D)));
  auto [Begin, End] = range(I, 1 + unsigned(Rank), G.SlotBytes);
  std::vector<uint8_t> Data(End - Begin, 0);
  if (IsLoad)
    checkWrite(I, Begin, End, "tma_load overwrites");
  else
    checkRead(I, Begin, End, /*AsyncProxy=*/true, bufferOf(I, 1 + unsigned(Rank)));
  // Elements outside the tensor (negative coordinates included) are zero
  // (load) or skipped (store), as the copy engine does.
  uint64_t Count = G.SlotBytes / G.ElemBytes;
  // A store's bytes, as runs of consecutive addresses, pending until its
  // `tma_store_wait N writes` (recorded after the walk, which checks them
  // against earlier stores').
  std::vector<std::pair<uint64_t, uint64_t>> Written;
  walkBox(Desc, Coord, G, Count, [&](uint64_t L, bool Inside, uint64_t Addr) {
    if (Inside && !IsLoad) {
      if (!Written.empty() && Written.back().second == Addr)
        Written.back().second += G.ElemBytes;
      else
        Written.push_back({Addr, Addr + G.ElemBytes});
    }
    // The slot's element that the copy's L-th lands in (the slot's bytes are
    // its elements in row-major order, whatever its layout).
    uint64_t Element = L;
    if (uint64_t Row = static_cast<uint64_t>(G.ColumnMajorRow))
      Element = (L % Row) * (Count / Row) + L / Row;
    uint64_t Off = Element * G.ElemBytes;
    if (Inside && IsLoad)
      writeRaw(&Data[Off], readRaw(globalAccess(I, Addr, G.ElemBytes, "read"), G.ElemBytes),
               G.ElemBytes);
    else if (Inside)
      writeRaw(globalAccess(I, Addr, G.ElemBytes, "write"),
               readRaw(&Shared[Begin + Off], G.ElemBytes), G.ElemBytes);
  });
  AsyncOp Op{IsLoad ? AsyncKind::TmaLoad : AsyncKind::TmaStore,
             Begin,
             End,
             bufferOf(I, 1 + unsigned(Rank)),
             {}};
  Op.Src = I.Src;
  Op.Owner = Current;
  if (!IsLoad) {
    // The store reads shared memory until its bulk group is waited for;
    // each tma_store is its own group.
    Op.Group = group().NextStoreGroup++;
    for (auto [Begin, End] : Written)
      PendingGlobal[Begin] = {End, Op.Group, I.Src, Current};
    Pending.push_back(std::move(Op));
    return;
  }
  uint64_t BarAddr = slotValue(G, 2 + unsigned(Rank));
  Mbarrier &B = barrierAt(I, BarAddr);
  Op.Data = std::move(Data);
  Op.Barrier = BarAddr;
  Op.Phase = B.Phase;
  Pending.push_back(std::move(Op));
  // The copy engine always reports the whole box, zero-filled or not.
  B.TxIssued += static_cast<int64_t>(End - Begin);
  tryCompletePhase(BarAddr, B);
}

void GpuState::execWgmma(const CInst &I) {
  const GpuOpInfo &G = info(I);
  if (!group().WgmmaFenced)
    fail(I, "issues a wgmma without a wgmma_fence since the last wgmma_wait");
  uint32_t M = static_cast<uint32_t>(G.Shape[0]), K = static_cast<uint32_t>(G.Shape[1]),
           N = static_cast<uint32_t>(G.Shape[2]);
  // A is [M, K] and B [K, N] elements (GpuOpInfo::SlotBytes is B's).
  auto ReadSlot = [&](unsigned Operand, uint64_t Elements, std::vector<uint64_t> &To) {
    auto [Begin, End] = range(I, Operand, Elements * G.ElemBytes);
    checkRead(I, Begin, End, /*AsyncProxy=*/true, bufferOf(I, Operand));
    To.resize((End - Begin) / G.ElemBytes);
    for (size_t L = 0; L < To.size(); ++L)
      To[L] = readShared(Begin + L * G.ElemBytes, G.Elem);
    AsyncOp Op{AsyncKind::WgmmaRead, Begin, End, bufferOf(I, Operand), {}};
    Op.Src = I.Src;
    Op.Owner = Current;
    Pending.push_back(std::move(Op));
  };
  const uint64_t *A;
  if (G.ARegisters) {
    A = &Slots[G.Ops[0].Off];
  } else {
    ReadSlot(0, uint64_t(M) * K, ScratchA);
    A = ScratchA.data();
  }
  ReadSlot(1, uint64_t(K) * N, ScratchB);
  const uint64_t *C = &Slots[G.Ops[2].Off];
  if (!(slotValue(G, 3) & 1)) {
    // use_acc false: the accumulator input is ignored (zero).
    ScratchC.assign(size_t(M) * N, isFloatKind(G.AccKind) ? doubleToSlot(0.0) : 0);
    C = ScratchC.data();
  }
  dotProduct(M, K, N, A, ScratchB.data(), C, &Slots[I.Res], G.Elem, G.AccKind, Scratch);
  PendingValues[I.Res] = {-1, Current};
}

void GpuState::execWgmmaWait(const CInst &I) {
  int64_t Before = group().NextWgmmaGroup - I.Src->Count;
  retire(AsyncKind::WgmmaRead, Before);
  for (auto It = PendingValues.begin(); It != PendingValues.end();) {
    const PendingValue &V = It->second;
    It = V.Owner == Current && V.Group >= 0 && V.Group < Before ? PendingValues.erase(It)
                                                                : std::next(It);
  }
  group().WgmmaFenced = false;
}

} // namespace tritonc::interp::detail
