//===- AsyncCopies.cpp - Loads feeding a dot become cp.async into rings ----===//
//
// A load whose tile only reaches a `dot` operand (directly, through `trans`,
// or through loop phis: the shape the `pipeline` pass and the seeds' hand
// prefetch produce) never needs registers. This holds for wgmma dots (sm_90a),
// for mma.sync dots of f16/bf16 operands (sm_80+, and sm_90a dots too small
// for wgmma), and for f32 dots on FMA units that take the vectorized path
// (sm_80+). Such
// loads and phis form a component; each component gets a ring of NumSlots
// tiles at the start of shared memory. Every value of the component is then
// one u32 register: the shared address of its slot, and a phi only copies
// that address.
//
// Slot layouts. A wgmma operand's slot is swizzled (MmaSharedLayout, in the
// load's coordinates, contiguous along the load's vector dimension). An FMA
// operand's slot is "plain": A stored [K, M] and B [K, N], rows padded by 16
// bytes, the form lowerDotFmaVectorized reads with 16-byte vectors. A
// vector the slot keeps contiguous is one copy; one it transposes (A loaded
// K-contiguous) is one 4-byte copy per element. An mma.sync operand's slot
// is plain too, A stored [M, K] and B [K, N] with padded rows, as lowerDot
// stages them for ldmatrix; only loads whose vectors land contiguously
// qualify (no operand through a `trans`: 2-byte copies do not exist).
//
// A load becomes `cp.async` of its vectors (4, 8 or 16 bytes) into the slot
// at the component's write cursor, zero-filled where the mask is off
// (src-size 0), followed by `cp.async.commit_group`; the cursor then moves
// to the next slot. The dot waits with `cp.async.wait_group N` and a
// barrier; tensor cores also need the copies made visible to the async
// proxy (fence.proxy.async), FMA units read them like any shared data.
//
// Slot reuse. A chain of D phis carries the operands of D iterations; the
// load at the end of iteration i writes the operand of iteration i + D into
// the slot that iteration i - 1 read. NumSlots = max(2, D + 1) makes that
// safe: every thread passed iteration i's barrier, after finishing the
// (synchronous) dot of iteration i - 1, before any thread issues the load.
//
// MMAs left in flight (LowerWgmma.cpp). With one warpgroup, the dot ends
// with wgmma.wait_group 1: the group's MMAs of iteration i - 1 (collective
// instructions) are done before any of its threads copies into their slot.
// With several warpgroups, another group may still be reading that slot, so
// the rings get one more slot: the copies of iteration i overwrite the
// operands of iteration i - 2. Every group passed its wgmma.wait_group 1 of
// iteration i - 1, which leaves only the MMAs of i - 1 pending, before the
// barrier of iteration i: the MMAs of i - 2 are done everywhere before any
// thread copies. (wait_group 2 would leave those of i - 2 running.)
//
// Wait counts. Every cp.async load is its own commit group (bulk tensor
// copies complete on mbarriers and commit none). When the loop body holds,
// after the dot, one load per component and the preheader issued the first
// D operands iteration by iteration, then at the dot of iteration i the
// groups committed after iteration i's are those of the next D - 1
// iterations: N = (cp.async loads per iteration) (D - 1). Anything else waits
// for all groups (N = 0), which is always correct.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "MmaSharedLayout.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"

#include <algorithm>
#include <set>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

uint64_t alignTo(uint64_t V, uint64_t A) { return (V + A - 1) / A * A; }

bool isZeroTile(const ir::Value *V) {
  if (const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V)))
    return C->isZero();
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  return I && I->getOpcode() == Opcode::Splat && isZeroTile(I->getOperand(0));
}

const Instruction *asInst(const ir::Value *V) {
  return ir::asInstruction(const_cast<ir::Value *>(V));
}

} // namespace

std::string FunctionLowering::whyNarrowVectors(const Instruction &Load, unsigned ElemBytes) const {
  const analysis::AxisInfo &Ptr = AI.get(Load.getOperand(0));
  unsigned Dim = 0;
  for (unsigned D = 1; D < Ptr.rank(); ++D)
    if (Ptr.Contiguity[D] > Ptr.Contiguity[Dim])
      Dim = D;
  std::string Name = ir::printOperand(*Load.getOperand(0));
  if (Ptr.Contiguity[Dim] * ElemBytes < 4)
    return "the pointers " + Name +
           " are not known to be contiguous along either dimension (a gather reads each "
           "element on its own)";
  if (Ptr.Divisibility[Dim] < 4)
    return "the pointers " + Name + " are contiguous along dimension " + std::to_string(Dim) +
           " but not known to be aligned (pointers and strides that are multiples of 16, "
           "through --specialize or __multipleof, tell the compiler)";
  if (Load.getOpcode() == Opcode::MaskedLoad &&
      AI.get(Load.getOperand(1)).Constancy[Dim] * ElemBytes < 4)
    return "the mask may change from one element to the next along dimension " +
           std::to_string(Dim) +
           " (bounds that are multiples of 16, through --specialize or __multipleof, help)";
  return "the accesses are not known to be contiguous and aligned along one dimension";
}

const Instruction *FunctionLowering::inPlaceAccumulator(const Instruction &Dot) const {
  // c = phi [init, dot]; dot = dot(a, b, c), and the dot's only user is c.
  const Instruction *Phi = asInst(Dot.getOperand(2));
  if (!Phi || Phi->getOpcode() != Opcode::Phi || Dot.users().size() != 1 || Dot.users()[0] != Phi ||
      Phi->getType() != Dot.getType())
    return nullptr;
  unsigned FromDot = 0;
  for (const ir::Value *In : Phi->operands())
    FromDot += In == &Dot;
  if (FromDot != 1)
    return nullptr;
  for (const Instruction *U : Phi->users())
    if (U == &Dot ? false : U->getOpcode() == Opcode::Phi)
      return nullptr;
  return Phi;
}

bool FunctionLowering::collectAsyncComponent(const ir::Value *Root, const Instruction &Dot,
                                             unsigned OperandIdx, AsyncRing &Ring, std::string &Why,
                                             const Instruction *&At) {
  auto Decline = [&](const Instruction *Where, std::string Reason) {
    At = Where;
    Why = std::move(Reason);
    return false;
  };
  const Instruction *Trans = asInst(Root);
  bool ViaTrans = Trans && Trans->getOpcode() == Opcode::Trans;
  if (ViaTrans) {
    if (Trans->users().size() != 1)
      return Decline(Trans, "the operand's `trans` has other uses");
    Root = Trans->getOperand(0);
  }
  std::set<const Instruction *> Members;
  std::vector<const Instruction *> Work;
  auto Add = [&](const ir::Value *V) {
    const Instruction *I = asInst(V);
    if (!I || !I->getType()->isTile())
      return false;
    Opcode Op = I->getOpcode();
    if (Op != Opcode::Phi && Op != Opcode::Load && Op != Opcode::MaskedLoad)
      return false;
    if (Members.insert(I).second)
      Work.push_back(I);
    return true;
  };
  if (!Add(Root))
    return Decline(&Dot, "the operand is not a tile loaded from memory (it is computed in "
                         "registers)");
  while (!Work.empty()) {
    const Instruction *I = Work.back();
    Work.pop_back();
    if (I->getOpcode() == Opcode::Phi)
      for (const ir::Value *In : I->operands())
        if (!Add(In))
          return Decline(I, "the loop carries the operand in " + ir::printOperand(*I) +
                                ", which also takes " + ir::printOperand(*In) +
                                ", a value that is not loaded from memory");
    for (const Instruction *U : I->users()) {
      if (U->getOpcode() == Opcode::Phi) {
        if (!Add(U))
          return false; // unreachable: a tile phi always joins
      } else if (ViaTrans ? U != Trans : U != &Dot) {
        return Decline(I, "the loaded tile " + ir::printOperand(*I) +
                              " has another use besides the dot (" + ir::printOperand(*U) +
                              "): a copy into shared memory would leave it without registers");
      } else if (!ViaTrans &&
                 (U->getOperand(OperandIdx) != I || U->getOperand(1 - OperandIdx) == I)) {
        return Decline(I, "the loaded tile feeds both operands of the dot");
      }
    }
  }
  // Every load: 16-bit elements for tensor cores, f32 for FMA dots; zero
  // `other`, vectors cp.async can move, and one shape and vector dimension
  // for the whole ring.
  DotKind Kind = LA.dotOf(&Dot).Kind;
  bool Fma = Kind == DotKind::FMA;
  unsigned ElemBytes = Fma ? 4 : 2;
  const ir::Shape &S = Root->getType()->getShape();
  std::optional<unsigned> VecDim;
  for (const Instruction *I : Members) {
    if (I->getType()->getShape() != S || S.size() != 2)
      return Decline(I, "the operand's loads do not all have its 2-D shape");
    if (I->getOpcode() == Opcode::Phi) {
      Ring.Phis.push_back(I);
      continue;
    }
    if (memBytesOf(I->getType()->getScalarType()) != ElemBytes)
      return Decline(I, "its elements are " +
                            std::to_string(memBytesOf(I->getType()->getScalarType())) +
                            " bytes; this dot's shared operands hold " + std::to_string(ElemBytes) +
                            "-byte elements");
    if (I->getOpcode() == Opcode::MaskedLoad && !isZeroTile(I->getOperand(2)))
      return Decline(I, "its masked-off elements read as a value other than zero (an "
                        "asynchronous copy fills them with zeros)");
    const AccessPlan &P = LA.accessOf(I);
    unsigned Bytes = P.Vec * ElemBytes;
    if (Bytes != 4 && Bytes != 8 && Bytes != 16)
      return Decline(I, "each thread reads " + std::to_string(Bytes) +
                            "-byte vectors, and cp.async copies 4, 8 or 16 bytes: " +
                            whyNarrowVectors(*I, ElemBytes));
    if (VecDim && *VecDim != P.VecDim)
      return Decline(I, "the operand's loads are contiguous along different dimensions");
    VecDim = P.VecDim;
    Ring.Loads.push_back(I);
  }
  if (!VecDim)
    return Decline(&Dot, "the operand is not loaded from memory in this function's loops");
  Ring.Trans = ViaTrans ? Trans : nullptr;
  Ring.ElemBytes = ElemBytes;
  // The chain's phis are those of the header the operand is read from;
  // phis elsewhere (a loop around, carrying the prologue of its next run:
  // TilePrefetch.cpp) pass those slots on without holding more at once.
  unsigned ChainPhis = 0;
  if (const Instruction *R = asInst(Root); R->getOpcode() == Opcode::Phi)
    for (const Instruction *Phi : Ring.Phis)
      ChainPhis += Phi->getParent() == R->getParent();
  Ring.NumSlots = std::max<unsigned>(2, ChainPhis + 1);
  if (Fma) {
    // The slot holds A as [K, M] and B as [K, N], rows padded by 16 bytes
    // (sharedTileStrides), as lowerDotFmaVectorized stages them: in dot
    // coordinates A(m, k) sits at k KStride + m, B(k, n) at k KStride + n.
    ir::Shape DotShape = ViaTrans ? ir::Shape{S[1], S[0]} : S;
    int64_t K = DotShape[OperandIdx == 0 ? 1 : 0];
    int64_t Other = DotShape[OperandIdx == 0 ? 0 : 1];
    Ring.KStride = Other + 16 / ElemBytes;
    std::array<int64_t, 2> DotStrides = OperandIdx == 0 ? std::array<int64_t, 2>{1, Ring.KStride}
                                                        : std::array<int64_t, 2>{Ring.KStride, 1};
    Ring.PlainStrides =
        ViaTrans ? std::array<int64_t, 2>{DotStrides[1], DotStrides[0]} : DotStrides;
    Ring.SlotBytes = alignTo(static_cast<uint64_t>(K * Ring.KStride) * ElemBytes, 128);
    return true;
  }
  if (Kind == DotKind::MmaV2) {
    // The slot holds the operand as lowerDot stages it for ldmatrix: A as
    // [M, K] and B as [K, N], rows padded by 16 bytes (sharedTileStrides);
    // KStride is then the row stride. A vector must land contiguously
    // (cp.async moves 4 bytes at least): no operand through a trans.
    if (ViaTrans || *VecDim != 1)
      return Decline(Ring.Loads.front(),
                     "an mma.sync operand must be loaded contiguous along its rows (not "
                     "through a `trans`)");
    Ring.KStride = sharedTileStrides(S, ElemBytes)[0];
    Ring.PlainStrides = {Ring.KStride, 1};
    Ring.SlotBytes = alignTo(sharedTileBytes(S, ElemBytes), 128);
    return true;
  }
  Ring.SL = MmaSharedLayout::make(S[0], S[1], *VecDim, 2);
  if (!Ring.SL.valid())
    return Decline(Ring.Loads.front(), "the tile shape " +
                                           Root->getType()->withLayout(nullptr)->str() +
                                           " has no swizzled shared-memory layout for wgmma");
  Ring.SlotBytes = wgmmaSlotBytes(S[0], S[1]);
  return true;
}

/// The chain of phis from the dot operand back to the load in the loop body
/// (Q_0, Q_1, ...) and the preheader loads of each (L_0, L_1, ...), if the
/// component is such a chain.
static bool walkChain(const ir::Value *Operand, const ir::DominatorTree &DT,
                      std::vector<const Instruction *> &PreLoads, const Instruction *&BodyLoad) {
  const Instruction *Q = asInst(Operand);
  while (Q && Q->getOpcode() == Opcode::Phi) {
    if (Q->getNumOperands() != 2)
      return false;
    const Instruction *Outside = nullptr, *Inside = nullptr;
    for (unsigned K = 0; K < 2; ++K) {
      bool BackEdge = DT.dominates(Q->getParent(), Q->getIncomingBlock(K));
      (BackEdge ? Inside : Outside) = asInst(Q->getOperand(K));
    }
    if (!Outside || !Inside || Outside->getOpcode() == Opcode::Phi)
      return false;
    PreLoads.push_back(Outside);
    Q = Inside;
  }
  if (!Q || Q->getOpcode() == Opcode::Phi)
    return false;
  BodyLoad = Q;
  return true;
}

void FunctionLowering::planAsyncCopies() {
  // cp.async exists from sm_80 on; wgmma only on sm_90a.
  ir::DominatorTree DT(F);
  std::vector<const Instruction *> Dots;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::Dot &&
          (LA.dotOf(I.get()).Kind == DotKind::Wgmma || LA.dotOf(I.get()).Kind == DotKind::MmaV2 ||
           isVectorizedFmaDot(*I)))
        Dots.push_back(I.get());
  // A dot with an operand GPU-level IR copied into a slot (async-rings)
  // is the passes' (its other operand, if any, is computed in registers:
  // async-rings takes every pipelined operand of a loop or none): the
  // planner has nothing to say about it.
  auto FromSlots = [](const Instruction &Dot) {
    for (unsigned Idx = 0; Idx < 2; ++Idx)
      if (const Instruction *Op = asInst(Dot.getOperand(Idx));
          Op && Op->getOpcode() == Opcode::LocalLoad)
        return true;
    return false;
  };
  if (wantsRemark(RemarkKind::Missed, "async-copy"))
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Dot && !FromSlots(*I) &&
            std::find(Dots.begin(), Dots.end(), I.get()) == Dots.end())
          remark(RemarkKind::Missed, "async-copy", *I,
                 "the dot's operands are not copied asynchronously into shared memory: it runs "
                 "on FMA units without the vectorized path (f32 operands and accumulator, with "
                 "4x4 blocks per thread)");
  uint64_t Offset = 0;
  std::map<const Instruction *, std::vector<unsigned>> RingsOfDot;
  for (const Instruction *Dot : Dots) {
    std::vector<unsigned> DotRings;
    for (unsigned Idx = 0; Idx < 2; ++Idx) {
      const ir::Value *Root = Dot->getOperand(Idx);
      const Instruction *RI = asInst(Root);
      if (RI && (AsyncOf.count(RI) || AsyncTrans.count(RI)))
        continue;
      // GPU-level IR copied it into a slot itself (LowerAsync.cpp).
      if (RI && RI->getOpcode() == Opcode::LocalLoad)
        continue;
      AsyncRing Ring;
      std::string Why;
      const Instruction *At = Dot;
      // Ring loads are copied ahead of their place, past any barrier that
      // would order them after the program's own writes (GlobalOrdering.cpp).
      if (!collectAsyncComponent(Root, *Dot, Idx, Ring, Why, At)) {
        if (!FromSlots(*Dot))
          remarkNotAsync(*At, Idx, Why);
        continue;
      }
      if (Offset + Ring.SlotBytes * Ring.NumSlots > ringBudget(Options)) {
        remarkNotAsync(*Ring.Loads.front(), Idx,
                       "its ring of " + std::to_string(Ring.NumSlots) + " slots (" +
                           std::to_string(Ring.SlotBytes * Ring.NumSlots / 1024) +
                           " KB) does not fit the shared memory left for rings (" +
                           std::to_string((ringBudget(Options) - Offset) / 1024) + " KB)");
        continue;
      }
      auto Written = std::find_if(Ring.Loads.begin(), Ring.Loads.end(),
                                  [&](const Instruction *L) { return mayReadProgramWrites(*L); });
      if (Written != Ring.Loads.end()) {
        remarkNotAsync(**Written, Idx,
                       "the kernel may write this memory before the load (a copy issued ahead "
                       "of its place could read stale data)");
        continue;
      }
      Ring.Offset = Offset;
      Offset += Ring.SlotBytes * Ring.NumSlots;
      unsigned Id = static_cast<unsigned>(Rings.size());
      for (const Instruction *M : Ring.Loads)
        AsyncOf[M] = Id;
      for (const Instruction *M : Ring.Phis)
        AsyncOf[M] = Id;
      if (Ring.Trans)
        AsyncTrans.insert(Ring.Trans);
      Rings.push_back(std::move(Ring));
      DotRings.push_back(Id);
    }
    RingsOfDot[Dot] = std::move(DotRings);
  }
  // In-flight MMAs, once every ring is known; the wait counts once the
  // bulk tensor copies are planned (they commit no cp.async groups).
  for (const Instruction *Dot : Dots) {
    const std::vector<unsigned> &DotRings = RingsOfDot[Dot];
    if (!DotRings.empty())
      DotWaits[Dot] = 0;

    // Both operands in rings and the accumulator carried by a loop phi: the
    // MMAs may stay in flight into the next iteration (LowerWgmma.cpp),
    // which needs one more slot per ring (see the file comment).
    if (DotRings.size() == 2 && LA.dotOf(Dot).Kind == DotKind::Wgmma && inPlaceAccumulator(*Dot)) {
      // One warpgroup waits for its own MMAs of iteration i - 1 (the
      // instructions are collective) before any of its threads copies: no
      // extra slot. Several need one (see the file comment).
      unsigned ExtraSlots = inFlightExtraSlots(Options.NumWarps);
      uint64_t Extra = 0;
      for (unsigned Id : DotRings)
        Extra += ExtraSlots * Rings[Id].SlotBytes;
      if (Offset + Extra > ringBudget(Options))
        remark(RemarkKind::Missed, "dot", *Dot,
               "the dot's MMAs are not left running into the next iteration: their rings' "
               "extra slots would exceed the shared memory for rings");
      if (Offset + Extra <= ringBudget(Options)) {
        // Known before any block is lowered: the blocks that read the
        // accumulator may be lowered before the dot's.
        // With the extra slot, the copies of iteration i only overwrite
        // the operands of iteration i - 2: the MMAs of i - 1 may still run
        // in other groups while this one copies.
        AsyncDots[Dot] = 1;
        PendingMma.insert(Dot);
        PendingMma.insert(inPlaceAccumulator(*Dot));
        for (unsigned Id : DotRings)
          Rings[Id].NumSlots += ExtraSlots;
        Offset = 0;
        for (AsyncRing &R : Rings) {
          R.Offset = Offset;
          Offset += R.SlotBytes * R.NumSlots;
        }
      }
    }
  }
  RingBytes = Offset;
  if (Rings.empty())
    return;
  markRingLiveBlocks(DT);
  markBlocksAfterScratchOverRings();
  planTensorCopies();
  for (auto &[Dot, Wait] : DotWaits)
    Wait = cpAsyncWaitCount(*Dot, RingsOfDot[Dot], DT);
  remarkRings();
}

/// The cp.async.wait_group count of Dot (see the file comment): 0 unless
/// the loop has the exact pipelined shape. Only cp.async rings count: the
/// bulk tensor copies of the other rings complete on mbarriers and commit no
/// groups, so a dot with one ring of each kind (conv_nhwc: A by cp.async, B
/// by TMA) still waits for just its own iteration's copies.
unsigned FunctionLowering::cpAsyncWaitCount(const Instruction &Dot,
                                            const std::vector<unsigned> &DotRingIds,
                                            const ir::DominatorTree &DT) const {
  std::vector<unsigned> DotRings;
  for (unsigned Id : DotRingIds)
    if (Rings[Id].TensorMap < 0)
      DotRings.push_back(Id);
  auto IsCopy = [&](const Instruction *I) {
    auto It = AsyncOf.find(I);
    return It != AsyncOf.end() && I->getOpcode() != Opcode::Phi && Rings[It->second].TensorMap < 0;
  };
  unsigned Wait = 0;
  std::vector<std::vector<const Instruction *>> Pre;
  std::vector<const Instruction *> Body;
  bool Chains = !DotRings.empty();
  for (unsigned Id : DotRings) {
    // The dot operand (under a folded trans) that belongs to ring Id.
    const ir::Value *Operand = nullptr;
    for (unsigned Idx = 0; Idx < 2; ++Idx)
      if (auto [Member, RingId] = ringOperand(Dot, Idx); Member && RingId == Id)
        Operand = Member;
    std::vector<const Instruction *> PreLoads;
    const Instruction *BodyLoad = nullptr;
    if (!walkChain(Operand, DT, PreLoads, BodyLoad) || PreLoads.empty() ||
        BodyLoad->getParent() != Dot.getParent())
      Chains = false;
    Pre.push_back(PreLoads);
    Body.push_back(BodyLoad);
  }
  unsigned D = Chains ? static_cast<unsigned>(Pre[0].size()) : 0;
  for (size_t C = 0; Chains && C < Pre.size(); ++C)
    Chains = Pre[C].size() == D;
  if (Chains) {
    // Async loads of the dot's block: all after the dot, one per ring.
    const ir::BasicBlock *BB = Dot.getParent();
    unsigned PerIteration = 0;
    bool AfterDot = false;
    for (const auto &I : BB->instructions()) {
      if (I.get() == &Dot)
        AfterDot = true;
      else if (IsCopy(I.get())) {
        Chains = Chains && AfterDot;
        ++PerIteration;
      }
    }
    Chains = Chains && PerIteration == Body.size();
    // And no other ring loads anywhere (their commit groups would count).
    size_t AllLoads = 0;
    for (const auto &[I, Id] : AsyncOf)
      AllLoads += IsCopy(I);
    Chains = Chains && AllLoads == static_cast<size_t>(PerIteration) * (D + 1);
    // The preheader loads, iteration by iteration, in one block.
    std::map<const Instruction *, size_t> Pos;
    if (Chains) {
      const ir::BasicBlock *PreBB = Pre[0][0]->getParent();
      size_t N = 0;
      for (const auto &I : PreBB->instructions())
        Pos[I.get()] = N++;
      for (size_t J = 0; Chains && J < D; ++J)
        for (const auto &P : Pre) {
          Chains = Chains && Pos.count(P[J]);
          for (size_t J2 = J + 1; Chains && J2 < D; ++J2)
            for (const auto &P2 : Pre)
              Chains = Chains && Pos.count(P2[J2]) && Pos.at(P[J]) < Pos.at(P2[J2]);
        }
    }
    if (Chains && D >= 1)
      Wait = PerIteration * (D - 1);
  }
  return Wait;
}

void FunctionLowering::remarkNotAsync(const Instruction &At, unsigned OperandIdx,
                                      const std::string &Why) {
  remark(RemarkKind::Missed, "async-copy", At,
         std::string("operand ") + (OperandIdx == 0 ? "A" : "B") +
             " of the dot is not copied asynchronously (cp.async) into shared memory: " + Why);
}

void FunctionLowering::remarkRings() {
  // Known once the bulk tensor copies are planned: they take rings out of
  // the cp.async groups (and report themselves), and may reset the counts.
  // In program order, so that the remarks come in a stable order.
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions()) {
      auto It = DotWaits.find(I.get());
      if (It == DotWaits.end())
        continue;
      const Instruction &Dot = *I;
      bool CpAsync = false;
      for (unsigned Idx = 0; Idx < 2; ++Idx) {
        auto [Member, Id] = ringOperand(Dot, Idx);
        if (!Member || Rings[Id].TensorMap >= 0)
          continue;
        CpAsync = true;
        if (wantsRemark(RemarkKind::Passed, "async-copy"))
          for (const Instruction *L : Rings[Id].Loads)
            remark(RemarkKind::Passed, "async-copy", *L,
                   std::string("operand ") + (Idx == 0 ? "A" : "B") +
                       " of the dot is copied asynchronously (cp.async) into a ring of " +
                       std::to_string(Rings[Id].NumSlots) + " shared-memory slots");
      }
      if (CpAsync && It->second == 0)
        remark(RemarkKind::Missed, "async-copy", Dot,
               "the dot waits for all of its operands' asynchronous copies every iteration "
               "(cp.async.wait_group 0), so loads are not overlapped with MMAs: " +
                   std::string("the loop is not in the pipelined shape (one load per "
                               "operand after the dot in the loop body and num_stages - 1 of "
                               "each before the loop)"));
    }
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

void FunctionLowering::markRingLiveBlocks(const ir::DominatorTree &DT) {
  // Ring data is live in the innermost loop around each dot that reads
  // rings (its MMAs, the copies of later iterations), in the blocks of the
  // ring loads, phis and dots, and on every path from a load outside that
  // loop (the pipeline's prologue, a hand prefetch) to the loop's header.
  // Loops further out are not live as a whole: between two runs of the
  // inner loop (the epilogue of one tile of a persistent kernel and the
  // prologue of the next), scratch may reuse the rings' space.
  transform::LoopInfo LI(F, DT);
  std::set<const ir::BasicBlock *> Live;
  // The block each ring's data must reach: the header of the loop around
  // a dot reading it, or the dot's own block outside loops.
  std::map<unsigned, std::set<std::pair<const ir::BasicBlock *, const transform::Loop *>>>
      TargetsOfRing;
  for (const auto &[I, Id] : AsyncOf)
    Live.insert(I->getParent());
  for (const auto &[Dot, Wait] : DotWaits) {
    Live.insert(Dot->getParent());
    const transform::Loop *L = LI.getLoopFor(Dot->getParent());
    if (L)
      Live.insert(L->blocks().begin(), L->blocks().end());
    for (unsigned Idx = 0; Idx < 2; ++Idx)
      if (auto [Member, Id] = ringOperand(*Dot, Idx); Member)
        TargetsOfRing[Id].insert({L ? L->getHeader() : Dot->getParent(), L});
  }
  // Per target: the blocks that reach it; per loop: the blocks that may run
  // after it did (reachable from its exits).
  std::map<const ir::BasicBlock *, std::set<const ir::BasicBlock *>> ReachTarget;
  std::map<const transform::Loop *, std::set<const ir::BasicBlock *>> AfterLoop;
  for (const auto &[I, Id] : AsyncOf) {
    if (I->getOpcode() == Opcode::Phi)
      continue;
    for (auto [Target, L] : TargetsOfRing[Id]) {
      if (L && L->contains(I))
        continue; // a load of a later iteration, in the live loop
      if (!ReachTarget.count(Target))
        ReachTarget[Target] = reachableBlocks({Target}, /*Forward=*/false);
      if (L && !AfterLoop.count(L)) {
        std::vector<const ir::BasicBlock *> Exits;
        for (const ir::BasicBlock *LB : L->blocks())
          for (const ir::BasicBlock *S : LB->successors())
            if (!L->contains(S))
              Exits.push_back(S);
        AfterLoop[L] = reachableBlocks(Exits, /*Forward=*/true);
      }
      if (L && AfterLoop[L].count(I->getParent()))
        RefillBlocks.insert(BlockIndex.at(I->getParent()));
      // The blocks on a path from the load to Target.
      for (const ir::BasicBlock *BB : reachableBlocks({I->getParent()}, /*Forward=*/true, Target))
        if (ReachTarget[Target].count(BB))
          Live.insert(BB);
    }
  }
  for (const ir::BasicBlock *BB : Live)
    RingLiveBlocks.insert(BlockIndex.at(BB));
}

void FunctionLowering::drainBeforeRefill() {
  // A ring load after an earlier run of its loop (the prologue of the next
  // tile, issued above the current tile's epilogue: TilePrefetch.cpp) reuses
  // slots that the loop's last MMAs may still read and that masked-off
  // copies of its last iterations may still fill: everything is finished,
  // in every warpgroup, before the first such copy of the block.
  if (!RefillBlocks.count(CurrentBlock) || !RefilledBlocks.insert(CurrentBlock).second)
    return;
  drainTensorCopies();
  waitForCopiesAndMmas();
}

void FunctionLowering::markBlocksAfterScratchOverRings() {
  // A block must separate its ring copies from scratch over the rings when
  // some path reaches it from a block using such scratch (one that is not
  // ring-live) without passing a block that copies into the rings, since
  // that one separated them already. Marking every block reachable from
  // scratch would put a fence and a barrier into each iteration of a loop
  // nested in one whose body uses scratch (a persistent kernel's epilogue).
  std::set<const ir::BasicBlock *> CopyBlocks = ExplicitCopyBlocks;
  for (const auto &[I, Id] : AsyncOf)
    if (I->getOpcode() != Opcode::Phi)
      CopyBlocks.insert(I->getParent());
  auto DirtyAtEnd = [&](const ir::BasicBlock *BB) {
    unsigned Index = BlockIndex.at(BB);
    if (!RingLiveBlocks.count(Index))
      return true;
    return AfterScratchOverRings.count(Index) && !CopyBlocks.count(BB);
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
  // Scratch over the rings, earlier on some path, read and wrote this space
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

void FunctionLowering::lowerAsyncLoad(const Instruction &I, AsyncRing &Ring) {
  drainBeforeRefill();
  if (Ring.TensorMap >= 0)
    return lowerTensorLoad(I, Ring);
  separateFromScratchOverRings();
  if (!Ring.Cursor.valid()) {
    auto P = B.prologue();
    Ring.Cursor = B.mov(Ty::U32, 0);
  }
  const AccessPlan &Plan = LA.accessOf(&I);
  const LinearLayout &L = Plan.Layout;
  Regs Ptrs = getVectorHeads(I.getOperand(0), L, Plan.Vec);
  Regs Mask;
  if (I.getOpcode() == Opcode::MaskedLoad)
    Mask = getVectorHeads(I.getOperand(1), L, Plan.Vec);
  B.comment("asynchronous copy into a shared ring slot");
  Reg Slot =
      B.add(Ty::U32, B.add(Ty::U32, ringBase(), static_cast<int64_t>(Ring.Offset)), Ring.Cursor);
  const Regs &Coords = threadCoords(L);
  // The slot offset of the thread's base coordinate and that of a register
  // combine by XOR in a swizzled slot, where they route disjoint bits; a
  // plain slot adds them, and ThreadOff is then the thread's base address.
  Reg ThreadOff;
  if (Ring.isPlain()) {
    Reg Index = B.mul(Ty::U32, Coords[0], Ring.PlainStrides[0]);
    Index = B.madLo(Ty::U32, Coords[1], Ring.PlainStrides[1], Index);
    ThreadOff = B.madLo(Ty::U32, Index, static_cast<int64_t>(Ring.ElemBytes), Slot);
  } else {
    ThreadOff = emitSwizzledOffset(B, Ring.SL, Coords[0], Coords[1]);
  }
  // The destination operand of register R's copy.
  auto RegisterDst = [&](int32_t R) {
    std::vector<int64_t> C = registerCoords(L, R);
    if (!Ring.isPlain()) {
      Reg Off = B.bitXor(Ty::U32, ThreadOff, static_cast<int64_t>(Ring.SL.offset(C[0], C[1])));
      return "[" + B.add(Ty::U32, Slot, Off).name() + "]";
    }
    int64_t Off = (C[0] * Ring.PlainStrides[0] + C[1] * Ring.PlainStrides[1]) * Ring.ElemBytes;
    return "[" + ThreadOff.name() + (Off ? "+" + std::to_string(Off) : "") + "]";
  };
  Reg Owner = ownerPredicate(L);
  std::vector<bool> Dup = duplicateRegisters(L);
  // A vector lands contiguously unless a plain slot transposes it (A of an
  // FMA dot loaded k-contiguous): then each element is its own copy.
  bool Split = Ring.isPlain() && Ring.PlainStrides[Plan.VecDim] != 1;
  unsigned Bytes = Split ? Ring.ElemBytes : Plan.Vec * Ring.ElemBytes;
  std::string Cache = Bytes == 16 ? "cg" : "ca";
  // Plain rings (FMA and mma.sync dots): a row of a tile is a few dozen
  // bytes, so let L2 fetch the 256-byte block around it (measured on FMA
  // rings: 45.9 vs 45.2 TFLOP/s for f32 256x128x8 on an H100; 128 bytes
  // gives 45.7).
  std::string Prefetch = Ring.isPlain() ? ".L2::256B" : "";
  for (int32_t R0 = 0; R0 < numRegisters(L); R0 += static_cast<int32_t>(Plan.Vec)) {
    if (Dup[R0])
      continue;
    std::string Size = std::to_string(Bytes);
    if (!Mask.empty()) {
      Reg Zero = B.mov(Ty::U32, 0);
      Size = B.selp(Ty::U32, static_cast<int64_t>(Bytes), Zero, Mask[R0]).name();
    }
    for (unsigned J = 0; J < (Split ? Plan.Vec : 1); ++J) {
      std::string Dst = RegisterDst(R0 + static_cast<int32_t>(J));
      std::string Src = Ptrs[R0].name() + (J ? "+" + std::to_string(J * Ring.ElemBytes) : "");
      // No `.L2::cache_hint` (see FunctionLowering::cachePolicy).
      std::string Text = "cp.async." + Cache + ".shared.global" + Prefetch + " " + Dst + ", [" +
                         Src + "], " + std::to_string(Bytes) + ", " + Size + ";";
      if (Owner.valid())
        Text = "@" + Owner.name() + " " + Text;
      B.emit(Text);
    }
  }
  B.emit("cp.async.commit_group;");
  // Next slot.
  Reg Next = B.add(Ty::U32, Ring.Cursor, static_cast<int64_t>(Ring.SlotBytes));
  Reg Wrap =
      B.setp(ptx::Cmp::Ge, Ty::U32, Next, static_cast<int64_t>(Ring.SlotBytes * Ring.NumSlots));
  Reg Zero = B.mov(Ty::U32, 0);
  B.movTo(Ring.Cursor, B.selp(Ty::U32, Zero, Next, Wrap));
  Values[&I] = {Slot};
}

std::pair<const Instruction *, unsigned> FunctionLowering::ringOperand(const Instruction &Dot,
                                                                       unsigned Idx) const {
  const Instruction *VI = asInst(Dot.getOperand(Idx));
  if (VI && AsyncTrans.count(VI))
    VI = asInst(VI->getOperand(0));
  auto It = VI ? AsyncOf.find(VI) : AsyncOf.end();
  if (It == AsyncOf.end())
    return {nullptr, 0};
  return {VI, It->second};
}

std::optional<std::pair<Reg, MmaSharedLayout>>
FunctionLowering::asyncOperand(const Instruction &Dot, unsigned Idx) {
  auto [Member, Id] = ringOperand(Dot, Idx);
  if (!Member)
    return std::nullopt;
  const AsyncRing &Ring = Rings[Id];
  MmaSharedLayout SL = Ring.SL;
  if (Member != Dot.getOperand(Idx)) // read through the folded trans
    SL.ContigDim = 1 - SL.ContigDim;
  Reg Value = Values.at(Member)[0];
  return std::make_pair(Ring.TensorMap >= 0 ? tensorSlotAddress(Value) : Value, SL);
}

std::optional<std::pair<Reg, int64_t>> FunctionLowering::plainRingOperand(const Instruction &Dot,
                                                                          unsigned Idx) {
  auto [Member, Id] = ringOperand(Dot, Idx);
  if (!Member)
    return std::nullopt;
  return std::make_pair(Values.at(Member)[0], Rings[Id].KStride);
}

void FunctionLowering::waitForAsyncOperands(const Instruction &Dot) {
  // FMA dots read their slots through the generic proxy, as cp.async wrote
  // them: the wait and the barrier suffice. Tensor cores read through the
  // async proxy and need the fence as well.
  bool Fence = LA.dotOf(&Dot).Kind == DotKind::Wgmma;
  bool CpAsync = false;
  std::pair<const Instruction *, unsigned> Waited = {nullptr, 0};
  // The ring whose mbarriers ring R's copies arrive on (TensorCopies.cpp).
  auto MbarOwner = [&](unsigned R) { return Rings[R].MbarShare < 0 ? int(R) : Rings[R].MbarShare; };
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    auto [Member, Id] = ringOperand(Dot, Idx);
    if (!Member)
      continue;
    const AsyncRing &Ring = Rings[Id];
    if (Ring.TensorMap < 0) {
      CpAsync = true;
      continue;
    }
    // Rings sharing mbarriers: the other operand's wait covers this one when
    // both hold the same fill (the same slot and phase).
    std::set<std::pair<const Instruction *, const Instruction *>> Assumed;
    auto [Other, OtherId] = Waited;
    if (Other && MbarOwner(OtherId) == MbarOwner(Id) &&
        sameFill(Other, Rings[OtherId], Member, Ring, Assumed))
      continue;
    waitForTensorSlot(Values.at(Member)[0], Ring);
    Waited = {Member, Id};
  }
  if (CpAsync) {
    B.emit("cp.async.wait_group " + std::to_string(DotWaits.at(&Dot)) + ";");
    if (Fence)
      B.emit("fence.proxy.async.shared::cta;");
  }
  forcedBarrier();
}

} // namespace tritonc::codegen
