//===- LowerWarpSpecialize.cpp - Partitions of a CTA's warps --------------===//
//
// A `warp_specialize` splits the CTA's warps into partitions, each running
// its own region of blocks until its `warp_join` (docs/WARP-SPECIALIZATION.md).
// The kernel launches the partitions' sum of warps; partition k owns the
// warps [First_k, First_k + Warps_k), partition 0 the first.
//
//   fork          the warp index (tid.x / 32, made uniform with shfl.sync)
//                 picks the partition by range; each partition's entry is a
//                 trampoline that adjusts its registers (setmaxnreg) and
//                 branches to the region
//   region        emitted once, with a thread index relative to the
//                 partition's first thread: a partition's layouts, wgmma and
//                 elected-thread operations work as in a kernel of its warps
//                 (the thread geometry of the prologue is kept per partition)
//   barrier       inside a partition: `bar.sync 1 + k, 32 * Warps_k`, a named
//                 barrier of the partition's threads (0 is the CTA's)
//   mbarrier_arrive  one arrival for the partition: its thread 0 after the
//                 partition's named barrier; `per_warp`: lane 0 of each warp
//                 for its warp, no named barrier
//   warp_join     `bar.sync 0` of every thread of the CTA, then the join block
//
// With register budgets the kernel is compiled with `.maxnreg M`, M the
// registers per thread the register file gives the launch (a multiple of 8),
// so that ptxas knows the count every warp starts with; a partition below M
// releases the rest with setmaxnreg.dec, one above M takes more with
// setmaxnreg.inc (which waits until the pool has them). The budgets must fit
// the pool: the sum over partitions of budget x threads at most M x threads
// of the CTA.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/ir/WarpPartitions.h"
#include "tritonc/transform/Utils.h"

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

/// 64K 32-bit registers per SM on sm_80 and sm_90, at most 255 per thread
/// (248 in the multiples of 8 setmaxnreg works in).
constexpr unsigned RegisterFile = 64 * 1024;
constexpr unsigned MaxRegistersPerThread = 248;

[[noreturn]] void unsupported(const Instruction &I, const std::string &Why) {
  throw UnsupportedConstruct(I.Loc, std::string(ir::opcodeName(I.getOpcode())) + ": " + Why);
}

/// Whether I is a warpgroup-wide tensor-core operation (wgmma and its fence,
/// commit and wait), which needs whole warpgroups on warpgroup boundaries.
bool isWarpgroupOp(const Instruction &I) {
  Opcode Op = I.getOpcode();
  return Op == Opcode::Wgmma || Op == Opcode::WgmmaFence || Op == Opcode::WgmmaCommit ||
         Op == Opcode::WgmmaWait;
}

} // namespace

std::vector<PartitionBlocks> warpPartitionBlocks(const ir::Function &F, const Instruction *&At,
                                                 std::string &Error) {
  std::vector<PartitionBlocks> Out;
  for (const auto &BB : F.blocks()) {
    const Instruction *T = BB->getTerminator();
    if (!T || T->getOpcode() != Opcode::WarpSpecialize)
      continue;
    ir::WarpRegions Regions;
    Error = ir::checkWarpPartitions(*T);
    At = T;
    if (Error.empty())
      Error = ir::collectWarpRegions(*T, Regions, At);
    if (!Error.empty())
      return {};
    unsigned First = 0;
    for (size_t K = 0; K < Regions.Partitions.size(); ++K) {
      PartitionBlocks P;
      P.Fork = T;
      P.Index = static_cast<unsigned>(K);
      P.FirstWarp = First;
      P.Warps = static_cast<unsigned>(T->Partitions[K].Warps);
      P.Registers = static_cast<unsigned>(T->Partitions[K].Registers);
      P.Blocks.assign(Regions.Partitions[K].begin(), Regions.Partitions[K].end());
      First += P.Warps;
      Out.push_back(std::move(P));
    }
  }
  return Out;
}

unsigned kernelWarps(const std::vector<PartitionBlocks> &Partitions, unsigned NumWarps) {
  unsigned Sum = 0;
  for (const PartitionBlocks &P : Partitions) {
    if (P.Index == 0)
      Sum = 0;
    Sum += P.Warps;
  }
  return Partitions.empty() ? NumWarps : Sum;
}

void FunctionLowering::planWarpPartitions() {
  const Instruction *At = nullptr;
  std::string Error;
  Partitions = warpPartitionBlocks(F, At, Error);
  if (!Error.empty())
    throw UnsupportedConstruct(At->Loc, Error);
  KernelWarps = kernelWarps(Partitions, Options.NumWarps);
  if (Partitions.empty())
    return;
  // Every fork splits the same warps: the launch has one block size.
  std::map<const Instruction *, unsigned> ForkWarps;
  for (const PartitionBlocks &P : Partitions)
    ForkWarps[P.Fork] += P.Warps;
  for (const auto &[Fork, Warps] : ForkWarps)
    if (Warps != KernelWarps)
      unsupported(*Fork, "its partitions have " + std::to_string(Warps) +
                             " warps, another warp_specialize's " + std::to_string(KernelWarps) +
                             "; the kernel launches one number of warps");
  if (KernelWarps > 32)
    unsupported(*Partitions[0].Fork, "its partitions have " + std::to_string(KernelWarps) +
                                         " warps; a CTA has at most 32");
  bool Budgets = false;
  for (size_t K = 0; K < Partitions.size(); ++K) {
    PartitionBlocks &P = Partitions[K];
    P.BarrierId = 1 + P.Index;
    if (P.BarrierId > 15)
      unsupported(*P.Fork, "partition " + std::to_string(P.Index) + " would need named barrier " +
                               std::to_string(P.BarrierId) + "; a CTA has 16 (0 is the CTA's)");
    Budgets |= P.Registers != 0;
    // The fork moves the entry's phis with the CTA's thread geometry, right
    // for scalars only.
    for (const auto &I : P.Blocks.front()->instructions())
      if (I->getOpcode() == Opcode::Phi && I->getType()->isTile())
        unsupported(*I, "a tile phi at the entry of partition " + std::to_string(P.Index) +
                            " is not lowered: pass tiles into a partition through shared memory");
    for (const ir::BasicBlock *BB : P.Blocks) {
      BlockPartition[BB] = static_cast<int>(K);
      for (const auto &I : BB->instructions())
        if (isWarpgroupOp(*I) && (P.FirstWarp % 4 || P.Warps % 4))
          unsupported(*I, "partition " + std::to_string(P.Index) + " (warps " +
                              std::to_string(P.FirstWarp) + " to " +
                              std::to_string(P.FirstWarp + P.Warps - 1) +
                              ") is not whole warpgroups on warpgroup boundaries, which wgmma "
                              "needs");
    }
  }
  if (!Budgets)
    return;
  // The registers every warp starts with: the register file's share of a
  // thread, which the budgets redistribute.
  MaxRegisters = std::min(MaxRegistersPerThread, RegisterFile / (32 * KernelWarps) / 8 * 8);
  for (const auto &[Fork, Warps] : ForkWarps) {
    uint64_t Wanted = 0;
    for (const PartitionBlocks &P : Partitions)
      if (P.Fork == Fork)
        Wanted += uint64_t(P.Registers ? P.Registers : MaxRegisters) * P.Warps * 32;
    uint64_t Pool = uint64_t(MaxRegisters) * KernelWarps * 32;
    if (Wanted > Pool)
      unsupported(*Fork, "the partitions' register budgets need " + std::to_string(Wanted) +
                             " registers, more than the " + std::to_string(Pool) +
                             " the launch has (" + std::to_string(MaxRegisters) +
                             " per thread for " + std::to_string(KernelWarps * 32) + " threads)");
  }
  B.setMaxRegisters(MaxRegisters);
}

void FunctionLowering::ringsLiveAcrossPartitions() {
  // bufferLiveBlocks follows the CFG from writes to reads, but a producer
  // partition's fills and a consumer's reads lie on no common path: the
  // other partitions run meanwhile, so none of them may put scratch over the
  // buffers.
  std::map<const Instruction *, bool> ForkUsesBuffers;
  for (const PartitionBlocks &P : Partitions)
    for (const ir::BasicBlock *BB : P.Blocks)
      ForkUsesBuffers[P.Fork] = ForkUsesBuffers[P.Fork] || ExplicitCopyBlocks.count(BB) ||
                                RingLiveBlocks.count(BlockIndex.at(BB));
  for (const PartitionBlocks &P : Partitions)
    if (ForkUsesBuffers[P.Fork])
      for (const ir::BasicBlock *BB : P.Blocks)
        RingLiveBlocks.insert(BlockIndex.at(BB));
}

bool FunctionLowering::isForkBlock(const ir::BasicBlock &BB) const {
  const Instruction *T = BB.getTerminator();
  return T && T->getOpcode() == Opcode::WarpSpecialize;
}

void FunctionLowering::partitionUsesScratch() {
  const PartitionBlocks *P = currentPartition();
  if (!P)
    return;
  auto [It, First] = ScratchPartition.emplace(P->Fork, static_cast<int>(P->Index));
  if (First || It->second == static_cast<int>(P->Index))
    return;
  SourceLoc At = CurrentInst ? CurrentInst->Loc : P->Fork->Loc;
  int Other = It->second, This = static_cast<int>(P->Index);
  throw UnsupportedConstruct(At, "partitions " + std::to_string(std::min(Other, This)) + " and " +
                                     std::to_string(std::max(Other, This)) +
                                     " of a warp_specialize both go through shared memory "
                                     "(layout conversions or reductions), which the emitter places "
                                     "at one address for all code: not lowered yet");
}

const PartitionBlocks *FunctionLowering::currentPartition() const {
  return CurrentPartition < 0 ? nullptr : &Partitions[static_cast<size_t>(CurrentPartition)];
}

void FunctionLowering::enterPartitionOf(const ir::BasicBlock &BB) {
  auto It = BlockPartition.find(&BB);
  int Next = It == BlockPartition.end() ? -1 : It->second;
  if (Next == CurrentPartition)
    return;
  // The prologue's thread geometry is per partition: keep this one's, and
  // take the next one's (empty the first time: made again on first use).
  ThreadGeometry &Saved = SavedGeometry[CurrentPartition];
  Saved.Tid = Tid;
  Saved.Lane = Lane;
  Saved.Warp = Warp;
  Saved.Coords = std::move(Coords);
  Saved.Owners = std::move(Owners);
  Saved.SlotOffsets = std::move(ThreadSlotOffsets);
  ThreadGeometry &Load = SavedGeometry[Next];
  Tid = Load.Tid;
  Lane = Load.Lane;
  Warp = Load.Warp;
  Coords = std::move(Load.Coords);
  Owners = std::move(Load.Owners);
  ThreadSlotOffsets = std::move(Load.SlotOffsets);
  CurrentPartition = Next;
}

Reg FunctionLowering::partitionThreadId() {
  Reg T = B.special(ptx::SpecialReg::TidX);
  const PartitionBlocks *P = currentPartition();
  if (!P || P->FirstWarp == 0)
    return T;
  return B.sub(Ty::U32, T, static_cast<int64_t>(P->FirstWarp * 32));
}

void FunctionLowering::emitBarrier(bool WholeCTA) {
  const PartitionBlocks *P = WholeCTA ? nullptr : currentPartition();
  if (P)
    B.barSync(P->BarrierId, 32 * P->Warps);
  else
    B.barSync(0);
}

void FunctionLowering::lowerWarpSpecialize(const Instruction &I) {
  std::vector<const PartitionBlocks *> Mine;
  for (const PartitionBlocks &P : Partitions)
    if (P.Fork == &I)
      Mine.push_back(&P);
  // Scratch over the buffers before the fork (or no buffer data yet) is
  // separated from every partition's copies into them here, once, rather
  // than in a partition's loop (markBlocksAfterScratchOverRings).
  bool ScratchHere = false;
  for (const analysis::SyncStatement &S : Sync[CurrentBlock].Statements)
    ScratchHere |= !S.IsBarrier;
  bool Dirty = AfterScratchOverRings.count(CurrentBlock) ||
               (!RingLiveBlocks.count(CurrentBlock) && ScratchHere);
  if (hasRingSpace() && Dirty) {
    if (Options.Arch == ptx::Arch::SM90a)
      B.emit("fence.proxy.async.shared::cta;");
    forcedBarrier(/*WholeCTA=*/true);
  }
  // The warp index, uniform in each warp (ptxas cannot tell that tid.x / 32
  // is), picks the partition by range.
  Reg Tid = B.special(ptx::SpecialReg::TidX);
  Reg WarpIndex = B.shflSync(ptx::ShflMode::Idx, B.shr(Ty::U32, Tid, 5).as(Ty::B32), 0, 31);
  std::vector<std::string> Entries;
  for (size_t K = 0; K < Mine.size(); ++K) {
    Entries.push_back(B.newLabel("partition"));
    if (K + 1 == Mine.size()) {
      B.bra(Entries.back(), /*Uniform=*/true);
      break;
    }
    int64_t End = Mine[K]->FirstWarp + Mine[K]->Warps;
    B.braIf(B.setp(ptx::Cmp::Lt, Ty::U32, WarpIndex.as(Ty::U32), End), Entries.back());
  }
  for (size_t K = 0; K < Mine.size(); ++K) {
    const PartitionBlocks &P = *Mine[K];
    B.label(Entries[K]);
    if (P.Registers && P.Registers != MaxRegisters)
      B.emit(std::string("setmaxnreg.") + (P.Registers < MaxRegisters ? "dec" : "inc") +
             ".sync.aligned.u32 " + std::to_string(P.Registers) + ";");
    B.bra(Labels.at(I.successors()[K]), /*Uniform=*/true);
  }
}

void FunctionLowering::lowerWarpJoin(const Instruction &I) {
  // The code after the join runs on every warp with the registers it had at
  // launch: a partition that changed its own gives them back first (its
  // warpgroups in step, as setmaxnreg wants between two changes). Before a
  // plain `ret` nothing needs them.
  const PartitionBlocks *P = currentPartition();
  const ir::BasicBlock *Join = I.successors()[0];
  bool JustReturns =
      Join->instructions().size() == 1 && Join->instructions().front()->getOpcode() == Opcode::Ret;
  if (P && P->Registers && P->Registers != MaxRegisters && !JustReturns) {
    // A barrier since the entry's setmaxnreg: the one that ends this block,
    // or a new one.
    const std::vector<analysis::SyncStatement> &Done = Sync[CurrentBlock].Statements;
    if (Done.empty() || !Done.back().IsBarrier)
      forcedBarrier();
    B.emit(std::string("setmaxnreg.") + (P->Registers < MaxRegisters ? "inc" : "dec") +
           ".sync.aligned.u32 " + std::to_string(MaxRegisters) + ";");
  }
  // Every partition waits here for the others: a barrier of the whole CTA.
  forcedBarrier(/*WholeCTA=*/true);
  B.bra(Labels.at(I.successors()[0]), /*Uniform=*/true);
}

void FunctionLowering::lowerPerWarpArrival(const Instruction &I, Reg Barrier) {
  // Each warp arrives for itself: the barrier's count is the arriving
  // partitions' warps, and no warp waits for another. Lane 0 arrives (with
  // release semantics) for its warp, whose other lanes must be done with
  // what the arrival releases first: a `bar.warp.sync` orders their
  // accesses before lane 0's arrival. Right after a wgmma_wait (only pure
  // operations between) it is not needed: wgmma.wait_group is .sync.aligned,
  // so every lane of the warp has passed it with lane 0, and the wgmma
  // reads it retires are the warpgroup's, complete for each of its threads.
  ir::BasicBlock &BB = *const_cast<ir::BasicBlock *>(I.getParent());
  bool AfterWgmmaWait = false;
  for (auto It = BB.iteratorTo(const_cast<Instruction *>(&I)); It != BB.instructions().begin();) {
    const Instruction &Prev = **--It;
    if (Prev.getOpcode() == Opcode::WgmmaWait)
      AfterWgmmaWait = true;
    else if (transform::isPure(Prev))
      continue;
    break;
  }
  if (!AfterWgmmaWait)
    B.emit("bar.warp.sync -1;");
  Reg State = B.newReg(Ty::B64);
  B.emit("@" + B.setp(ptx::Cmp::Eq, Ty::U32, laneId(), 0).name() +
         " mbarrier.arrive.shared::cta.b64 " + State.name() + ", [" + Barrier.name() + "];");
}

void FunctionLowering::electedArrivalBarrier() {
  // One thread arrives for the partition: the partition's other warps must
  // be done with what the arrival releases (their wgmma reads, retired by
  // their own wgmma_wait, or their generic accesses) before it.
  const PartitionBlocks *P = currentPartition();
  if (!P)
    return;
  // The IR's own `barrier` right before the arrival (the partition's named
  // barrier, emitted there since the arrival is a GPU-level operation)
  // serves as this one.
  ir::BasicBlock &BB = *const_cast<ir::BasicBlock *>(CurrentInst->getParent());
  auto At = BB.iteratorTo(CurrentInst);
  if (At != BB.instructions().begin() && (*std::prev(At))->getOpcode() == Opcode::Barrier)
    return;
  if (P->Warps > 1)
    forcedBarrier();
  else
    B.emit("bar.warp.sync -1;");
}

} // namespace tritonc::codegen
