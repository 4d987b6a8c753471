//===- GpuState.h - Shared memory and asynchronous work of a program -*- C++ -*-===//
//
// The interpreter runs GPU-level IR sequentially but keeps asynchronous
// work pending until the program waits for it, so that a wrong schedule
// is a located run-time error instead of a silently right answer:
//
//  - cp_async writes land in shared memory only when a cp_async_wait
//    retires their commit group; tma_load writes when an mbarrier_wait
//    observes the completed phase they signal; a wgmma result may be used
//    (other than as the accumulator of the next wgmma) only after the
//    wgmma_wait that retires its group; wgmma and tma_store keep reading
//    their shared operands until their wait. A tma_store writes global
//    memory when issued, but its bytes count as pending until a
//    `tma_store_wait N writes` retires it: any other access of them before
//    that (a load, a store, another tensor copy) is an error, and so is a
//    program that ends while a tma_store still reads shared memory.
//  - Reading shared memory with a pending write, writing shared memory that
//    a pending operation reads or writes, reading bytes never written,
//    crossing threads without a `barrier` (a write then a read, or a read
//    then a write, of the same bytes, unless both move them in one
//    thread-exclusive layout: threadExclusiveLayout), reading generic-proxy writes through
//    the async proxy without `fence_proxy_async`, waiting for an mbarrier
//    phase that cannot complete, and reading through one smem_alloc bytes
//    that another one wrote (offsets that overlap while both are live) are
//    errors.
//  - Between warp_specialize and warp_join the partitions are thread groups
//    of their own: each commits and waits for its own asynchronous work
//    and its `barrier` orders only its own accesses. Their hazards on shared
//    memory and mbarriers are the CTA's. Generic-proxy traffic between
//    partitions (one writes bytes by local_store, another reads them) is
//    not modelled, so it is an error until the warp_join.
//
// docs/IR.md ("GPU level", "Interpreter semantics") states the rules.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Compiled.h"

#include <map>
#include <unordered_map>

namespace tritonc::interp::detail {

/// Global-memory access with the executor's bounds and alignment checks.
class GlobalMemory {
public:
  virtual ~GlobalMemory() = default;
  virtual uint8_t *access(const CInst &I, uint64_t Addr, unsigned Size, const char *What) = 0;
};

class GpuState {
public:
  GpuState(const CompiledFunction &CF, std::vector<uint64_t> &Slots, GlobalMemory &Global,
           const SourceManager *SM);

  /// Clears shared memory and every pending operation: shared memory
  /// belongs to one program instance.
  void startProgram();
  /// Executes a GPU-category instruction; throws RunError.
  void exec(const CInst &I);
  /// desc_load / desc_store: one block of a tensor descriptor, elements
  /// outside its extents zero (load) or skipped (store).
  void execDescriptorAccess(const CInst &I);

  /// Fails if the program ends while a tma_store still reads shared memory
  /// (the GPU would free it under the copy engine). At: the `ret`.
  void endProgram(const CInst &At);
  /// Whether some tma_store's global writes are not yet retired.
  bool hasPendingGlobalWrites() const { return !PendingGlobal.empty(); }
  /// Fails if [Addr, Addr + Size) overlaps global bytes that a tma_store
  /// not yet retired by `tma_store_wait N writes` writes.
  void checkGlobalAccess(const CInst &I, uint64_t Addr, unsigned Size, const char *What);

  /// True while some wgmma result is not yet retired.
  bool hasPendingValues() const { return !PendingValues.empty(); }
  /// Fails if I reads a wgmma result that no wgmma_wait has retired (the
  /// accumulator of a wgmma and the operand of wgmma_wait may be pending).
  void checkOperandsReady(const CInst &I);
  /// Phi copies move pending marks with the values (Dst receives Src's).
  void copyPendingMarks(const std::vector<std::pair<uint32_t, uint32_t>> &DstSrc);

  // Warp specialization (Interpreter.cpp schedules the partitions).
  /// warp_specialize: its partitions start, none with work in flight.
  void forkPartitions(const std::vector<ir::WarpPartition> &Partitions);
  /// The following instructions run as partition K (0-based).
  void enterPartition(size_t K) { Current = static_cast<uint8_t>(K + 1); }
  /// warp_join of the current partition: fails if it leaves shared-memory
  /// work of its own in flight (no warp could wait for it afterwards).
  void leavePartition(const CInst &At);
  /// Every partition joined: the CTA runs on, past a CTA-wide barrier.
  void joinPartitions();
  /// Whether the mbarrier_wait I would return now.
  bool waitReady(const CInst &I);
  /// "phase N: A of B arrivals missing, ..." for the barrier I waits on.
  std::string waitState(const CInst &I);
  /// Phases completed so far: a change may let a blocked partition go on.
  uint64_t completedPhases() const { return CompletedPhases; }

private:
  enum class AsyncKind : uint8_t { CpAsync, TmaLoad, TmaStore, WgmmaRead };
  struct AsyncOp {
    AsyncKind Kind;
    uint64_t Begin, End;       ///< Shared byte range.
    uint32_t Buffer = 0;       ///< GpuOpInfo::Buffers number of its slot.
    std::vector<uint8_t> Data; ///< Bytes to write (cp_async, tma_load).
    int64_t Group = -1;        ///< Commit group (-1: not yet committed).
    uint8_t Owner = 0;         ///< Thread group that issued it (Current).
    uint64_t Barrier = 0;      ///< tma_load: mbarrier offset...
    uint64_t Phase = 0;        ///< ...and the phase its bytes complete.
    bool Landed = false;       ///< tma_load: its phase completed.
    const ir::Instruction *Src = nullptr;
  };
  struct Mbarrier {
    int64_t Arrivals = 0; ///< Per phase (mbarrier_init).
    int64_t Pending = 0;  ///< Arrivals still missing in the current phase.
    int64_t TxExpected = 0, TxIssued = 0;
    uint64_t Phase = 0; ///< Completed phases.
    const ir::Instruction *Init = nullptr;
    /// Inside a warp_specialize: the partitions' clocks that the arrivals
    /// of the current phase released, and those of the completed phases,
    /// which a wait acquires (indexed by thread group; empty outside).
    std::vector<uint64_t> Released, Completed;
  };
  /// A read of [Begin, End) through the async proxy by partition Owner,
  /// retired (its wgmma_wait) in Owner's epoch Epoch: a later write by
  /// another partition must be ordered after it through an mbarrier.
  struct RetiredRead {
    uint64_t Begin, End;
    uint8_t Owner;
    uint64_t Epoch;
    const ir::Instruction *Src;
  };

  [[noreturn]] void fail(const CInst &I, const std::string &Msg);
  std::string where(const ir::Instruction *I) const;
  /// A buffer number as the smem_alloc's name and place.
  std::string bufferName(uint32_t Buffer) const;
  const GpuOpInfo &info(const CInst &I) const { return CF.GpuOps[I.D0]; }
  uint64_t slotValue(const GpuOpInfo &G, unsigned K) const { return Slots[G.Ops[K].Off]; }
  /// The byte range [slot, slot + Bytes) of the shared operand K.
  std::pair<uint64_t, uint64_t> range(const CInst &I, unsigned K, uint64_t Bytes);

  // Hazard checks on shared byte ranges.
  const AsyncOp *pendingOverlap(uint64_t Begin, uint64_t End, bool Writes, bool Reads) const;
  /// The buffer number of shared operand K (GpuOpInfo::Buffers).
  uint32_t bufferOf(const CInst &I, unsigned K) const { return info(I).Buffers[K]; }
  /// A read of [Begin, End) of Buffer by the generic proxy (local_load) or
  /// the async proxy (wgmma, tma_store). By: the layout in which each thread
  /// reads the elements it holds (threadExclusiveLayout), or null.
  void checkRead(const CInst &I, uint64_t Begin, uint64_t End, bool AsyncProxy, uint32_t Buffer,
                 const ir::Layout *By = nullptr);
  void checkWrite(const CInst &I, uint64_t Begin, uint64_t End, const char *What,
                  const ir::Layout *By = nullptr);
  /// The layout of a local_load's result or a local_store's value when each
  /// thread moves exactly the elements it holds, once (a #blocked layout
  /// without replication, and no dot reading the slot directly): a thread
  /// then needs no barrier to read back or overwrite what it accessed itself.
  static const ir::Layout *threadExclusiveLayout(const ir::Instruction &I);
  void land(const AsyncOp &Op, uint8_t Flags);
  /// Records that Buffer wrote [Begin, End).
  void own(uint64_t Begin, uint64_t End, uint32_t Buffer);

  // Elements of shared memory, row-major within a slot.
  uint64_t readShared(uint64_t Addr, ElemKind K) const;
  void writeShared(std::vector<uint8_t> &To, uint64_t Addr, uint64_t Slot, ElemKind K) const;

  void execLocal(const CInst &I);
  void execCpAsync(const CInst &I);
  void execMbarrier(const CInst &I);
  Mbarrier &barrierAt(const CInst &I, uint64_t Addr);
  void tryCompletePhase(uint64_t Addr, Mbarrier &B);
  void execTensorCopy(const CInst &I);
  /// Calls Visit(L, Inside, Addr) for element L (row-major) of the box of
  /// descriptor slots Desc at coordinates Coord: whether it lies within the
  /// extents, and its global address.
  template <typename Fn>
  void walkBox(const uint64_t *Desc, const std::vector<int64_t> &Coord, const GpuOpInfo &G,
               uint64_t Count, Fn &&Visit) const;
  /// Global.access after checkGlobalAccess.
  uint8_t *globalAccess(const CInst &I, uint64_t Addr, unsigned Size, const char *What) {
    if (!PendingGlobal.empty())
      checkGlobalAccess(I, Addr, Size, What);
    return Global.access(I, Addr, Size, What);
  }
  void execWgmma(const CInst &I);
  void execWgmmaWait(const CInst &I);
  /// Retires the current thread group's operations of Kind in groups
  /// before Before.
  void retire(AsyncKind Kind, int64_t Before);
  /// Fails if I, run by the current thread group, accesses bytes another
  /// partition accessed through the generic proxy (not modelled).
  void checkPartitionAccess(const CInst &I, uint64_t Begin, uint64_t End);

  const CompiledFunction &CF;
  std::vector<uint64_t> &Slots;
  GlobalMemory &Global;
  const SourceManager *SM;

  std::vector<uint8_t> Shared;
  /// Per shared byte: Init (written), UnsyncedWrite / UnsyncedRead (since
  /// the last barrier), Unfenced (generic-proxy write since the last
  /// fence_proxy_async).
  std::vector<uint8_t> Flags;
  /// Per shared byte: the thread-exclusive layout of the accesses behind
  /// UnsyncedWrite and UnsyncedRead (null: several, or any thread).
  std::vector<const ir::Layout *> WrittenBy, ReadBy;
  /// Per shared byte: the buffer that last wrote it (0: none known). A read
  /// through another buffer means two buffers live at the same time share
  /// bytes (a wrong smem_alloc offset).
  std::vector<uint32_t> Owner;
  /// Per shared byte: the thread group of its last generic-proxy access
  /// since the last CTA-wide barrier (0: the whole CTA, or none).
  std::vector<uint8_t> AccessedBy;
  std::vector<AsyncOp> Pending;
  std::map<uint64_t, Mbarrier> Barriers;
  /// Global byte ranges tma_stores write that no `tma_store_wait N writes`
  /// retired yet: begin -> (end, store group, the tma_store). Disjoint: an
  /// overlapping store is an error.
  struct PendingWrite {
    uint64_t End;
    int64_t Group;
    const ir::Instruction *Src;
    uint8_t Owner; ///< Thread group that issued it.
  };
  std::map<uint64_t, PendingWrite> PendingGlobal;
  struct PendingValue {
    int64_t Group;
    uint8_t Owner;
  };
  std::unordered_map<uint32_t, PendingValue> PendingValues; ///< wgmma result slot -> group.
  /// What each thread group issues and waits for on its own: 0 is the whole
  /// CTA, k + 1 partition k of the running warp_specialize.
  struct ThreadGroup {
    int64_t NextCpGroup = 0, NextStoreGroup = 0, NextWgmmaGroup = 0;
    bool WgmmaFenced = false;
    /// A partition's warps: the arrivals of its `mbarrier_arrive per_warp`.
    int64_t Warps = 0;
    /// Inside a warp_specialize, a vector clock: Clock[k] is the last epoch
    /// of partition k (thread group k) this group is ordered after; its own
    /// entry is its current epoch, which each mbarrier_arrive ends.
    std::vector<uint64_t> Clock;
  };
  /// Reads by partitions that a write by another must follow; cleared at
  /// the join (a CTA-wide barrier).
  std::vector<RetiredRead> RetiredReads;
  /// Fails if the current partition writes [Begin, End) without being
  /// ordered after another partition's retired read of those bytes, and
  /// forgets the reads the write covers.
  void checkOrderedAfterReads(const CInst &I, uint64_t Begin, uint64_t End);
  std::vector<ThreadGroup> Groups;
  uint8_t Current = 0;
  ThreadGroup &group() { return Groups[Current]; }
  uint64_t CompletedPhases = 0;
  std::vector<uint64_t> ScratchA, ScratchB, ScratchC;
  DotScratch Scratch;
};

} // namespace tritonc::interp::detail
