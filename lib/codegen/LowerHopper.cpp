//===- LowerHopper.cpp - mbarriers, bulk tensor copies, wgmma (sm_90a) -----===//
//
// The Hopper operations that GPU-level IR states itself (docs/IR.md, "GPU
// level"), each lowered to one PTX sequence. The IR describes one program
// instance; what the hardware wants done once per CTA is done by thread 0:
//
//   mbarrier_init N      thread 0: mbarrier.init N; after the last of
//                        consecutive inits (smem_alloc and smem_slot
//                        between them do not count), fence.mbarrier_init and
//                        fence.proxy.async (the copy engine signals it) and
//                        a barrier unless the IR's next operation is one: no
//                        thread may arrive or wait before the init is seen
//   mbarrier_arrive      thread 0: mbarrier.arrive (one arrival); in a
//                        partition of a warp_specialize, its thread 0 after
//                        the partition's barrier; `per_warp`, lane 0 of
//                        each warp (LowerWarpSpecialize.cpp)
//   mbarrier_expect_tx   thread 0: mbarrier.expect_tx BYTES
//   mbarrier_wait        every thread spins on mbarrier.try_wait.parity
//   make_tensor_desc     a hidden kernel parameter: the tensor map that the
//                        launcher encodes (TensorMapSpec.h) from the base
//                        parameter, the extents and the strides, which must
//                        be polynomials over integer parameters; its box is
//                        the descriptor's (times the traversal strides), its
//                        swizzle its slots'
//   tma_load             thread 0: cp.async.bulk.tensor into the slot,
//                        completing bytes on the mbarrier
//   tma_store            thread 0: cp.async.bulk.tensor from the slot, then
//                        cp.async.bulk.commit_group (one group per store)
//   tma_store_wait N     cp.async.bulk.wait_group.read N (only thread 0 has
//                        groups; others pass, so a later generic write of
//                        the slot needs a barrier after it, as in the IR);
//                        with `writes`, cp.async.bulk.wait_group N
//   wgmma                wgmma.mma_async per warpgroup block and k-step
//                        (LowerWgmma.cpp's descriptors), scale-d from
//                        use_acc on the first k-step; in place in the
//                        registers of the loop phi it feeds, or of the
//                        wgmma it continues, else in fresh registers
//   wgmma_fence/commit/wait N   wgmma.fence / commit_group / wait_group N
//
// Tensor copies need the slot in the copy engine's layout: a hardware
// swizzle mode (or swizzle 0). A slot whose rows in memory (along its
// contiguous dimension: the columns of a column-major slot, which holds
// the box transposed) are wider than its swizzle is column blocks
// (docs/IR.md): the tensor map's box is one block, and a copy of the slot
// is one copy per block, at the block's column and shared address. Other
// forms are located errors.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "MmaSharedLayout.h"

#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/ir/Printer.h"

#include <queue>

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

/// CUtensorMapDataType of an element type (CudaDriver.h), or -1.
int tensorMapDataTypeOf(const ir::Type *Elem) {
  if (Elem == ir::Type::getF16())
    return 6;
  if (Elem == ir::Type::getBF16())
    return 9;
  if (Elem == ir::Type::getF32())
    return 7;
  if (Elem == ir::Type::getF64())
    return 8;
  if (!Elem->isIntOrIntTile())
    return -1;
  switch (Elem->getIntBits()) {
  case 16:
    return 1;
  case 32:
    return 3;
  case 64:
    return 5;
  default:
    return -1;
  }
}

/// The slot operand of a tma_load or tma_store.
const ir::Value *tmaSlot(const Instruction &I) {
  return I.getOperand(1 + I.getOperand(0)->getType()->getRank());
}

/// The bytes of one row in memory of slot type T: rows run along its
/// contiguous dimension (dimension 0 of a column-major slot).
uint64_t slotRowBytes(const ir::Type *T) {
  const ir::Layout *L = T->getLayout();
  int64_t RowElems = L ? T->getShape()[L->getOrder()[0]] : T->getShape().back();
  return static_cast<uint64_t>(RowElems) * T->getElementType()->getScalarSizeInBytes();
}

/// The swizzle (bytes) in which the copy engine writes or reads slot type T,
/// or a reason why it cannot.
std::optional<unsigned> tmaSwizzle(const ir::Type *T, std::string &Why) {
  const ir::Layout *L = T->getLayout(); // a hardware swizzle (the verifier)
  unsigned Swizzle = L ? static_cast<unsigned>(L->getSwizzleBytes()) : 0;
  uint64_t RowBytes = slotRowBytes(T);
  if (Swizzle && RowBytes != Swizzle) {
    // Column blocks: each starts a swizzle pattern of 8 rows of its own.
    // The order does not matter: a column-major slot's column blocks are
    // those of the row-major slot of its transposition (docs/IR.md).
    uint64_t Rows = RowBytes ? static_cast<uint64_t>(T->getNumElements()) *
                                   T->getElementType()->getScalarSizeInBytes() / RowBytes
                             : 0;
    if (RowBytes % Swizzle || Rows % 8) {
      Why = "its rows are " + std::to_string(RowBytes) + " bytes, not the swizzle width (" +
            std::to_string(Swizzle) + " bytes) or, in whole 8-row patterns, a multiple of " +
            "it (column blocks, one box each)";
      return std::nullopt;
    }
  }
  if (RowBytes % 16) {
    Why = "its rows are " + std::to_string(RowBytes) + " bytes, not a multiple of 16";
    return std::nullopt;
  }
  uint64_t Bytes =
      static_cast<uint64_t>(T->getNumElements()) * T->getElementType()->getScalarSizeInBytes();
  if (!Swizzle && Bytes % 128) {
    Why = "the slot is " + std::to_string(Bytes) +
          " bytes; slots of bulk tensor copies start at 128-byte boundaries";
    return std::nullopt;
  }
  return Swizzle;
}

/// The first instruction after I in its block that is not a shared-memory
/// address (smem_alloc, smem_slot: no thread reads or writes anything
/// there), or null.
const Instruction *nextAccessInBlock(const Instruction &I) {
  const auto &Insts = I.getParent()->instructions();
  auto It = std::find_if(Insts.begin(), Insts.end(), [&](const auto &P) { return P.get() == &I; });
  for (It = It == Insts.end() ? It : std::next(It); It != Insts.end(); ++It)
    if ((*It)->getOpcode() != Opcode::SmemAlloc && (*It)->getOpcode() != Opcode::SmemSlot)
      return It->get();
  return nullptr;
}

[[noreturn]] void unsupported(const Instruction &I, const std::string &Why) {
  throw UnsupportedConstruct(I.Loc, std::string(ir::opcodeName(I.getOpcode())) + ": " + Why);
}

/// P over the parameters as the launcher evaluates it.
ParamPoly toParamPoly(const analysis::Poly &P, const analysis::AffineAccessAnalysis &AA) {
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

/// Spins until the phase of parity Parity of the mbarrier at Mbar completed.
void emitPhaseWait(ptx::PTXFunctionBuilder &B, const Reg &Mbar, const Reg &Parity) {
  std::string Loop = B.newLabel("mbar_wait");
  B.label(Loop);
  Reg Done = B.newReg(Ty::Pred);
  B.emit("mbarrier.try_wait.parity.shared::cta.b64 " + Done.name() + ", [" + Mbar.name() + "], " +
         Parity.name() + ";");
  B.braIf(Done, Loop, /*Negated=*/true);
}

} // namespace

// --- Tensor maps ------------------------------------------------------------------

void FunctionLowering::planTensorDescriptors() {
  for (const auto &BB : F.blocks())
    for (const auto &IP : BB->instructions()) {
      const Instruction &I = *IP;
      if (I.getOpcode() != Opcode::MakeTensorDesc)
        continue;
      if (Options.Arch != ptx::Arch::SM90a)
        unsupported(I, "bulk tensor copies need sm_90a");
      const ir::Type *D = I.getType();
      unsigned Rank = D->getRank();
      ensureAffineAccess();
      const ir::Value *BaseV = I.getOperand(0);
      const ir::Argument *Base = ir::asArgument(const_cast<ir::Value *>(BaseV));
      if (!Base)
        unsupported(I, "the base " + ir::printOperand(*BaseV) +
                           " must be a pointer parameter of the kernel: the launcher encodes "
                           "the tensor map from the arguments");
      // A polynomial over integer parameters, for the launcher.
      auto paramPoly = [&](const ir::Value *V, const char *What) {
        std::optional<analysis::AffineTile> A = Affine->affineOf(V);
        if (!A || A->Base || !Affine->isOverParameters(A->Offset))
          unsupported(I, std::string(What) + " " + ir::printOperand(*V) +
                             " is not a polynomial over the kernel's integer parameters, which "
                             "the launcher could evaluate");
        return toParamPoly(A->Offset, *Affine);
      };
      TensorMapSpec Spec;
      Spec.BaseParam = Base->getIndex();
      const ir::Type *Elem = D->getElementType();
      int DataType = tensorMapDataTypeOf(Elem);
      if (DataType < 0)
        unsupported(I, "tensor maps of " + Elem->str() + " elements are not lowered");
      Spec.DataType = static_cast<unsigned>(DataType);
      Spec.ElemBytes = Elem->getScalarSizeInBytes();
      // The IR lists dimensions outermost first, the tensor map innermost
      // first. With traversal strides (the verifier checked them), the box
      // spans E elements per element it loads, as the driver wants it.
      bool Traversal = I.getNumOperands() == 1 + 3 * Rank;
      bool Strided = false;
      for (unsigned K = Rank; K-- > 0;) {
        Spec.Dims.push_back(paramPoly(I.getOperand(1 + K), "extent"));
        unsigned E = 1;
        if (Traversal)
          E = static_cast<unsigned>(
              ir::asConstant(const_cast<ir::Value *>(I.getOperand(1 + 2 * Rank + K)))->getInt());
        Strided |= E != 1;
        Spec.Box.push_back(static_cast<unsigned>(D->getShape()[K]) * E);
        Spec.ElementStrides.push_back(E);
      }
      if (!Strided)
        Spec.ElementStrides.clear(); // the text form of unit strides is none
      const ir::Value *Inner = I.getOperand(2 * Rank);
      const ir::Constant *One = ir::asConstant(const_cast<ir::Value *>(Inner));
      if (!One || One->getInt() != 1)
        unsupported(I, "the innermost stride must be the constant 1");
      for (unsigned K = Rank - 1; K-- > 0;)
        Spec.Strides.push_back(paramPoly(I.getOperand(1 + Rank + K), "stride"));
      // The swizzle is the slots': every copy through the map must agree.
      std::optional<unsigned> Swizzle;
      for (const Instruction *U : I.users()) {
        Opcode Op = U->getOpcode();
        if ((Op != Opcode::TmaLoad && Op != Opcode::TmaStore) || U->getOperand(0) != &I)
          unsupported(*U, "a tensor descriptor is lowered only as the descriptor operand of "
                          "tma_load and tma_store, not through " +
                              std::string(ir::opcodeName(Op)));
        if (Op == Opcode::TmaStore && Strided)
          unsupported(*U, "stores through a tensor descriptor with traversal strides are not "
                          "lowered (they gather loads)");
        std::string Why;
        std::optional<unsigned> S = tmaSwizzle(tmaSlot(*U)->getType(), Why);
        if (!S)
          unsupported(*U, "the slot " + tmaSlot(*U)->getType()->str() +
                              " is not in the copy engine's layout: " + Why);
        if (Swizzle && *Swizzle != *S)
          unsupported(*U, "the copies through one tensor descriptor use different swizzles (" +
                              std::to_string(*Swizzle) + " and " + std::to_string(*S) +
                              " bytes); a tensor map has one");
        Swizzle = S;
      }
      Spec.SwizzleBytes = Swizzle.value_or(0);
      // Slots of column blocks: the box is one block (the users agree on
      // the slot's shape, which is the descriptor's).
      uint64_t BoxRowBytes = uint64_t(Spec.Box[0]) * Spec.ElemBytes;
      if (Spec.SwizzleBytes && BoxRowBytes > Spec.SwizzleBytes) {
        if (Strided)
          unsupported(I, "a tensor descriptor with traversal strides copies rows of at most its "
                         "swizzle width (" +
                             std::to_string(Spec.SwizzleBytes) + " bytes), not " +
                             std::to_string(BoxRowBytes));
        Spec.Box[0] = Spec.SwizzleBytes / Spec.ElemBytes;
      }
      TensorMaps.push_back(std::move(Spec));
      DescriptorParams[&I] = B.addByteArrayParam(128, 64);
    }
}

void FunctionLowering::ensureAffineAccess() {
  if (!Affine)
    Affine = std::make_unique<analysis::AffineAccessAnalysis>(F, *RunDominators);
}

const Instruction *FunctionLowering::inPlaceAccumulator(const Instruction &Dot) const {
  // c = phi [init, dot]; dot = dot(a, b, c), and the dot's only user is c.
  const Instruction *Phi = ir::asInstruction(const_cast<ir::Value *>(Dot.getOperand(2)));
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

// --- Operations -------------------------------------------------------------------

void FunctionLowering::lowerHopperOp(const Instruction &I) {
  Opcode Op = I.getOpcode();
  bool Hopper = Op == Opcode::MbarrierInit || Op == Opcode::MbarrierArrive ||
                Op == Opcode::MbarrierExpectTx || Op == Opcode::MbarrierWait ||
                Op == Opcode::MakeTensorDesc || Op == Opcode::TmaLoad || Op == Opcode::TmaStore ||
                Op == Opcode::TmaStoreWait || Op == Opcode::Wgmma || Op == Opcode::WgmmaFence ||
                Op == Opcode::WgmmaCommit || Op == Opcode::WgmmaWait;
  if (!Hopper)
    throw UnsupportedConstruct(I.Loc, std::string("the GPU back end does not lower ") +
                                          ir::opcodeName(Op) + " yet");
  if (Options.Arch != ptx::Arch::SM90a)
    unsupported(I, "mbarriers, bulk tensor copies and wgmma need sm_90a");
  auto thread0 = [&] { return "@" + B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0).name() + " "; };
  auto barrierAddress = [&] { return Values.at(I.getOperand(0))[0]; };
  switch (Op) {
  case Opcode::MbarrierInit: {
    B.emit(thread0() + "mbarrier.init.shared::cta.b64 [" + barrierAddress().name() + "], " +
           std::to_string(I.Count) + ";");
    // Slot addresses between the inits (warp-specialize's empty barriers)
    // do not end the run.
    const Instruction *Next = nextAccessInBlock(I);
    if (Next && Next->getOpcode() == Opcode::MbarrierInit)
      return; // the last init of the run makes them all visible
    B.emit("fence.mbarrier_init.release.cluster;");
    B.emit("fence.proxy.async.shared::cta;");
    if (!Next || Next->getOpcode() != Opcode::Barrier)
      forcedBarrier();
    return;
  }
  case Opcode::MbarrierArrive: {
    if (I.PerWarp)
      return lowerPerWarpArrival(I, barrierAddress());
    electedArrivalBarrier(); // in a partition: one arrival for all its warps
    Reg State = B.newReg(Ty::B64);
    B.emit(thread0() + "mbarrier.arrive.shared::cta.b64 " + State.name() + ", [" +
           barrierAddress().name() + "];");
    return;
  }
  case Opcode::MbarrierExpectTx:
    B.emit(thread0() + "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [" +
           barrierAddress().name() + "], " + std::to_string(I.Count) + ";");
    return;
  case Opcode::MbarrierWait: {
    const ir::Value *Phase = I.getOperand(1);
    Reg P = scalar(Phase);
    Reg Parity = Phase->getType()->getIntBits() == 1
                     ? B.selp(Ty::B32, B.mov(Ty::B32, 1), B.mov(Ty::B32, 0), P)
                     : B.bitAnd(Ty::B32, P.as(Ty::B32), 1);
    emitPhaseWait(B, barrierAddress(), Parity);
    return;
  }
  case Opcode::MakeTensorDesc: {
    auto P = B.prologue();
    Reg Param = B.newReg(Ty::B64);
    B.emit("mov.b64 " + Param.name() + ", " + DescriptorParams.at(&I) + ";");
    Reg Map = B.newReg(Ty::B64);
    B.emit("cvta.param.u64 " + Map.name() + ", " + Param.name() + ";");
    Values[&I] = {Map};
    return;
  }
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
    return lowerTmaCopy(I);
  case Opcode::TmaStoreWait:
    B.emit(std::string("cp.async.bulk.wait_group") + (I.WaitsForWrites ? " " : ".read ") +
           std::to_string(I.Count) + ";");
    return;
  case Opcode::Wgmma:
    return lowerWgmmaOp(I);
  case Opcode::WgmmaFence:
    B.emit("wgmma.fence.sync.aligned;");
    return;
  case Opcode::WgmmaCommit:
    B.emit("wgmma.commit_group.sync.aligned;");
    return;
  case Opcode::WgmmaWait:
    B.emit("wgmma.wait_group.sync.aligned " + std::to_string(I.Count) + ";");
    return;
  default:
    reportInternalError("codegen: lowerHopperOp");
  }
}

void FunctionLowering::lowerTmaCopy(const Instruction &I) {
  const Instruction *Desc = ir::asInstruction(const_cast<ir::Value *>(I.getOperand(0)));
  if (!Desc || !DescriptorParams.count(Desc))
    unsupported(I, "its descriptor must be a make_tensor_desc of this function");
  // A fill after scratch that reused its ring's bytes (an epilogue's
  // conversion between two tiles' loops) waits for every thread to be done
  // with them, and orders their generic accesses before the engine's.
  if (I.getOpcode() == Opcode::TmaLoad)
    separateFromScratchOverRings();
  unsigned Rank = I.getOperand(0)->getType()->getRank();
  // One copy per column block of the slot (planTensorDescriptors made the
  // box one block): block J is BlockElems elements further along the
  // tensor's contiguous dimension (the innermost coordinate; the slot's
  // rows in memory, whatever its order) and Rows * swizzle bytes further
  // in shared memory.
  const ir::Type *SlotTy = tmaSlot(I)->getType();
  uint64_t RowBytes = slotRowBytes(SlotTy);
  uint64_t Swizzle = SlotTy->getLayout() ? uint64_t(SlotTy->getLayout()->getSwizzleBytes()) : 0;
  uint64_t Blocks = Swizzle && RowBytes > Swizzle ? RowBytes / Swizzle : 1;
  uint64_t BlockElems = RowBytes / SlotTy->getElementType()->getScalarSizeInBytes() / Blocks;
  uint64_t BlockBytes =
      SlotTy->getNumElements() * SlotTy->getElementType()->getScalarSizeInBytes() / Blocks;
  Reg Inner = scalar(I.getOperand(Rank));
  Reg SlotBase = Values.at(tmaSlot(I))[0];
  Reg Thread0 = B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0);
  std::string Issue = "@" + Thread0.name() + " cp.async.bulk.tensor." + std::to_string(Rank) + "d";
  // The L2 eviction attribute of the tensor's base parameter (cachePolicy).
  auto [Hint, Policy] = ptx::PTXFunctionBuilder::cacheHintFor(cachePolicy(Desc->getOperand(0)));
  for (uint64_t J = 0; J < Blocks; ++J) {
    // Coordinates innermost first, as PTX lists them.
    std::string Coords =
        (J ? B.add(Ty::S32, Inner, static_cast<int64_t>(J * BlockElems)) : Inner).name();
    for (unsigned K = Rank - 1; K-- > 0;)
      Coords += ", " + scalar(I.getOperand(1 + K)).name();
    std::string Map = "[" + Values.at(Desc)[0].name() + ", {" + Coords + "}]";
    Reg Address =
        J ? B.add(SlotBase.type(), SlotBase, static_cast<int64_t>(J * BlockBytes)) : SlotBase;
    std::string Slot = "[" + Address.name() + "]";
    if (I.getOpcode() == Opcode::TmaLoad) {
      std::string Bar = "[" + Values.at(I.getOperand(2 + Rank))[0].name() + "]";
      B.emit(Issue + ".shared::cluster.global.mbarrier::complete_tx::bytes" + Hint + " " + Slot +
             ", " + Map + ", " + Bar + Policy + ";");
    } else {
      B.emit(Issue + ".global.shared::cta.bulk_group" + Hint + " " + Map + ", " + Slot + Policy +
             ";");
    }
  }
  // One bulk group per tma_store, whatever its number of boxes.
  if (I.getOpcode() == Opcode::TmaStore)
    B.emit("@" + Thread0.name() + " cp.async.bulk.commit_group;");
}

/// Whether Acc, a phi, keeps no reader that would see the registers of
/// Wgmma (which accumulates in them) too early: every other user lies where
/// Wgmma's block reaches only through the phi's block (a later iteration or
/// the loop's exit), and is no phi.
static bool phiRegistersFree(const Instruction &Phi, const Instruction &Wgmma) {
  const ir::BasicBlock *Header = Phi.getParent();
  std::set<const ir::BasicBlock *> Reached;
  std::queue<const ir::BasicBlock *> Work;
  Work.push(Wgmma.getParent());
  while (!Work.empty()) {
    const ir::BasicBlock *BB = Work.front();
    Work.pop();
    for (const ir::BasicBlock *S : BB->successors())
      if (S != Header && Reached.insert(S).second)
        Work.push(S);
  }
  for (const Instruction *U : Phi.users()) {
    if (U == &Wgmma)
      continue;
    if (U->getOpcode() == Opcode::Phi || Reached.count(U->getParent()))
      return false;
    if (U->getParent() != Wgmma.getParent())
      continue;
    // In the wgmma's block: only before it.
    for (const auto &IP : U->getParent()->instructions()) {
      if (IP.get() == U)
        break;
      if (IP.get() == &Wgmma)
        return false;
    }
  }
  return true;
}

void FunctionLowering::lowerWgmmaOp(const Instruction &I) {
  const ir::Value *A = I.getOperand(0), *Bv = I.getOperand(1), *AccV = I.getOperand(2);
  if (!A->getType()->isSharedBuffer())
    unsupported(I, "A in registers (#dot_op) is not lowered yet; give A as a shared slot");
  const ir::Type *AElem = A->getType()->getElementType();
  bool Half = AElem == ir::Type::getF16() || AElem == ir::Type::getBF16();
  if (!Half || I.getType()->getScalarType() != ir::Type::getF32())
    unsupported(I, "only f16 and bf16 products into f32 are lowered, not " + AElem->str() +
                       " into " + I.getType()->getScalarType()->str());
  MmaSharedLayout SL[2];
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    std::string Why;
    std::optional<MmaSharedLayout> M = wgmmaSlotLayout(I.getOperand(Idx)->getType(), Why);
    if (!M)
      unsupported(I, std::string(Idx ? "B" : "A") + " " + I.getOperand(Idx)->getType()->str() +
                         ": " + Why);
    SL[Idx] = *M;
  }
  const ir::Layout *W = I.getType()->getLayout();
  if (W->getInstrShape()[2] != 16)
    unsupported(I, "16-bit products are 16 deep (instr_shape k=16), not " +
                       std::to_string(W->getInstrShape()[2]));
  int64_t M = I.getType()->getShape()[0], N = I.getType()->getShape()[1];
  WgmmaTiling T;
  T.Gm = static_cast<int32_t>(W->getWarpsPerCTA()[0] / 4);
  T.Gn = static_cast<int32_t>(W->getWarpsPerCTA()[1]);
  T.InstrN = static_cast<int32_t>(W->getInstrShape()[1]);
  T.MReps = M / (64 * T.Gm);
  T.NReps = N / (int64_t(T.InstrN) * T.Gn);

  // The registers to accumulate in (wgmma writes its accumulator in place).
  Regs Acc;
  const Instruction *AccI = ir::asInstruction(const_cast<ir::Value *>(AccV));
  if (const Instruction *Phi = inPlaceAccumulator(I); Phi && phiRegistersFree(*Phi, I)) {
    Acc = phiRegs(*Phi);
    InPlaceWgmma.insert(&I);
  } else if (AccI && AccI->getOpcode() == Opcode::Wgmma && AccV->users().size() == 1) {
    Acc = Values.at(AccV); // continues that wgmma's group
  } else {
    Regs In = get(AccV, LA.layoutOf(&I));
    for (const Reg &R : In)
      Acc.push_back(B.mov(Ty::F32, R));
  }
  auto [DescA, DescB] = warpgroupDescriptors(T, SL[0], Values.at(A)[0], SL[1], Values.at(Bv)[0]);
  Reg UseAcc = scalar(I.getOperand(3));
  Reg Always = B.setp(ptx::Cmp::Ne, Ty::U32, B.mov(Ty::U32, 1), 0);
  std::string InTy = AElem == ir::Type::getBF16() ? "bf16" : "f16";
  int64_t K = A->getType()->getShape()[1];
  for (int64_t K0 = 0; K0 < K; K0 += 16)
    issueWgmmaStep(T, SL[0], SL[1], DescA.as(Ty::S64), DescB.as(Ty::S64), K0, K0 ? Always : UseAcc,
                   InTy, Acc);
  Values[&I] = std::move(Acc);
}

} // namespace tritonc::codegen
