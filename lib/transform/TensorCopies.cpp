//===- TensorCopies.cpp - Async-copy rings filled by bulk tensor copies ---===//
//
// See TensorCopies.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/TensorCopies.h"

#include "BoxGathers.h"
#include "TensorDescriptors.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <map>
#include <set>

namespace tritonc::transform {

using namespace ir;
using analysis::TensorAccess;

namespace {

bool isIntConstant(const Value *V, int64_t C) {
  const Constant *K = asConstant(const_cast<Value *>(V));
  return K && !K->isUndef() && K->getType()->isIntOrIntTile() && K->getInt() == C;
}

/// `%i = phi [Init, Preheader], [select (i+1 == S), 0, i+1, Latch]`: the
/// slot index of a ring of S slots (async-rings' advanceModulo). Returns
/// the `icmp` that says the index wraps, or null.
Instruction *moduloIndexWraps(const Value *V, const Loop &L, const BasicBlock *Preheader,
                              const BasicBlock *Latch, int64_t Init, int64_t S) {
  const Instruction *Phi = asInstruction(const_cast<Value *>(V));
  if (!Phi || Phi->getOpcode() != Opcode::Phi || Phi->getParent() != L.getHeader() ||
      Phi->getNumOperands() != 2 || !isIntConstant(Phi->getIncomingValueFor(Preheader), Init))
    return nullptr;
  Instruction *Next = asInstruction(Phi->getIncomingValueFor(Latch));
  if (!Next || Next->getOpcode() != Opcode::Select || !isIntConstant(Next->getOperand(1), 0))
    return nullptr;
  Instruction *Inc = asInstruction(Next->getOperand(2));
  Instruction *Wraps = asInstruction(Next->getOperand(0));
  if (!Inc || Inc->getOpcode() != Opcode::Add || Inc->getOperand(0) != Phi ||
      !isIntConstant(Inc->getOperand(1), 1) || !Wraps || Wraps->getOpcode() != Opcode::ICmp ||
      Wraps->Predicate != CmpPredicate::EQ || Wraps->getOperand(0) != Inc ||
      !isIntConstant(Wraps->getOperand(1), S) || Wraps->getParent() != Latch)
    return nullptr;
  return Wraps;
}

/// One ring as async-rings leaves it.
struct Ring {
  Instruction *Alloc = nullptr;
  /// The ring's type (Alloc's; async-rings asks about a ring it has not
  /// made yet, see whyNotBulkTensorFills).
  const Type *Ty = nullptr;
  int64_t Slots = 0;
  /// The cp_async of fill j < P (slot j, in the preheader; P is S-1, or
  /// less where the ring has slots to spare), then the refill (slot
  /// %write, which starts at P, in the body).
  std::vector<Instruction *> Fills;
  /// With a prologue issued a tile ahead (async-rings' form of
  /// TilePrefetch.cpp's): the fills of slot j < P for the next tile, in the
  /// exit of the loop (the loop around it goes round from there); Fills
  /// then holds the first tile's, in the outer preheader.
  std::vector<Instruction *> Ahead;
  /// The smem_slots of %read.
  std::vector<Instruction *> Reads;
  Value *ReadIndex = nullptr, *WriteIndex = nullptr;
  /// The tensor-map form of each fill; empty when the ring is declined.
  std::vector<TensorAccess> Forms;
  /// Or, for fills that gather boxes of a tensor descriptor, the boxes.
  std::vector<BoxGather> Boxes;
  std::string Why;
  const Instruction *At = nullptr;
  /// Set where Fills are the loads async-rings asks about, which it will
  /// copy through transposed pointers (whyNotBulkTensorFills).
  bool TransposedLoads = false;

  Instruction *refill() const { return Fills.back(); }
  /// Whether the slot receives the transposition of what Fill's pointers,
  /// as they stand, address: a cp_async's pointers are already those the
  /// copy reads (transposed by async-rings' copyInto where it does); a load
  /// async-rings asks about is copied through transposed pointers where
  /// TransposedLoads says so.
  bool transposes(const Instruction &Fill) const {
    return TransposedLoads && Fill.getOpcode() != Opcode::CpAsync;
  }
  /// Fill K of Fills, then of Ahead (the numbering of Forms and Boxes).
  Instruction *fill(size_t K) const {
    return K < Fills.size() ? Fills[K] : Ahead[K - Fills.size()];
  }
  size_t numFills() const { return Fills.size() + Ahead.size(); }
  bool converted() const { return !Forms.empty() || !Boxes.empty(); }
  uint64_t slotBytes() const {
    const Type *T = Ty;
    return static_cast<uint64_t>(T->getNumElements()) * T->getElementType()->getScalarSizeInBytes();
  }
  bool decline(const Instruction *Where, std::string Reason) {
    At = Where;
    Why = std::move(Reason);
    return false;
  }
};

/// A fill's pointers and mask (null without one): a cp_async's, or those of
/// the load async-rings will make one of (whyNotBulkTensorFills).
Value *fillPointers(const Instruction &Fill) {
  return Fill.getOperand(Fill.getOpcode() == Opcode::CpAsync ? 1 : 0);
}
Value *fillMask(const Instruction &Fill) {
  unsigned Mask = Fill.getOpcode() == Opcode::CpAsync ? 2 : 1;
  bool Masked = Fill.getOpcode() == Opcode::CpAsync ? Fill.getNumOperands() > 2
                                                    : Fill.getOpcode() == Opcode::MaskedLoad;
  return Masked ? Fill.getOperand(Mask) : nullptr;
}

bool isColumnMajor(const Type *RingTy) {
  return RingTy->getLayout() && RingTy->getLayout()->getOrder()[0] == 0;
}

/// The slot the copy engine writes, row by row: a column-major slot is the
/// row-major one of its transposition, column blocks included (docs/IR.md:
/// rows wider than the swizzle are blocks of it in either order), so the
/// checks of row-major slots and the emitter's one box per block apply.
const Type *rowMajorSlot(const Type *RingTy) {
  Shape Rows = RingTy->getShape();
  const Layout *L = RingTy->getLayout();
  if (isColumnMajor(RingTy)) {
    std::swap(Rows[0], Rows[1]);
    L = Layout::getSharedSwizzle(L->getSwizzleBytes(), {1, 0});
  }
  return Type::getSharedBuffer(RingTy->getElementType(), Rows, L, 1);
}

/// TA of a transposed tile as the access of the tile itself (the fill of a
/// column-major slot through transposed pointers reads the loaded tile).
void transposeAccess(TensorAccess &TA) {
  TA.UnitDim = 1 - TA.UnitDim;
  std::swap(TA.Bound[0], TA.Bound[1]);
  std::swap(TA.Coord[0], TA.Coord[1]);
}

/// The rings of one loop (those that share its read and write indices).
struct LoopRings {
  Loop *L = nullptr;
  BasicBlock *Preheader = nullptr, *Latch = nullptr, *Exit = nullptr;
  Instruction *ReadWraps = nullptr;
  /// The loop that runs L again (a persistent kernel's loop over tiles),
  /// or null: the slot and the parity where the fills go on are carried
  /// across it (see startWhereTheLastRunEnded).
  Loop *Outer = nullptr;
  BasicBlock *OuterPreheader = nullptr, *OuterLatch = nullptr;
  /// The prologue is issued a tile ahead (Ring::Ahead).
  bool TileAhead = false;
  std::vector<Ring *> Rings;
};

/// Why the rings of L, left to Exit, cannot carry their slot and mbarrier
/// parity across the loop around L, or "": one enclosing loop, entered
/// from a preheader, going round from one latch that every run of L to its
/// exit reaches (so every outer iteration runs L to its exit once).
std::string outerLoopProblem(const Loop &L, const BasicBlock *Exit, const DominatorTree &DT) {
  const Loop *Outer = L.getParentLoop();
  if (Outer->getParentLoop())
    return "the loop is inside two loops: the mbarriers' phases are carried across one "
           "enclosing loop only (not handled)";
  std::vector<BasicBlock *> Latches = Outer->getLatches();
  if (!Outer->getPreheader() || Latches.size() != 1)
    return "the loop around it has no preheader or several latches, across which the "
           "mbarriers' phases would be carried (not handled)";
  if (!DT.dominates(Exit, Latches[0]))
    return "the loop around it may go round without leaving this loop to its exit, where the "
           "mbarriers' phases are carried from (not handled)";
  return "";
}

/// The exit of L, entered from its header alone, or null.
BasicBlock *headerExit(const Loop &L) {
  BasicBlock *Exit = nullptr;
  for (BasicBlock *S : L.getHeader()->successors())
    if (!L.contains(S))
      Exit = Exit ? nullptr : S;
  return Exit && Exit->predecessors().size() == 1 ? Exit : nullptr;
}

/// Why the ring stays filled by cp.async although the copy engine may fill
/// it, or "": its slots hold elements of 4 bytes or more (cp.async copies
/// each of them whatever the masks, so the ring never needs the engine) and
/// feed a dot on FMA units, which reads them into registers with ld.shared.
/// In such a loop ptxas wraps the issue of a bulk copy by one thread in a
/// convergence region (or an elect loop), and the loop comes out longer: the
/// f32 stream-K tile 256 x 128 x 16 moved 80 accumulators with MOVs every
/// iteration (docs/BACKEND-NOTES.md, "stream-K fp32").
std::string whyLeftToCpAsync(const Ring &R, const AssignLayoutsTarget &Dots) {
  if (R.Ty->getElementType()->getScalarSizeInBytes() < 4)
    return "";
  for (const Instruction *Slot : R.Reads)
    for (const Instruction *Load : Slot->users()) {
      if (Load->getOpcode() != Opcode::LocalLoad)
        continue;
      for (const Instruction *Dot : Load->users())
        if (Dot->getOpcode() == Opcode::Dot &&
            analysis::planDot(*Dot, Dots.NumWarps, Dots.HasMmaV2, Dots.AllowTF32, Dots.HasWgmma)
                    .Kind == analysis::DotKind::FMA)
          return "the dot that reads it runs on FMA units, whose loop ptxas makes longer around "
                 "a bulk copy's issue than around cp.async (which copies its 4-byte elements "
                 "whatever the masks)";
    }
  return "";
}

class TensorCopyRewriter {
public:
  TensorCopyRewriter(Function &F, const LoopInfo &LI, const DominatorTree &DT,
                     TensorDescriptorBuilder &TD, analysis::AffineAccessAnalysis &AA)
      : F(F), M(*F.getParent()), LI(LI), DT(DT), TD(TD), AA(AA) {}

  /// Finds the rings and decides for each; returns them.
  std::vector<Ring> &collect();
  /// Whether R has the form of the file comment; fills LR if so.
  bool recognize(Ring &R, LoopRings &LR);
  /// Whether R's fills can be bulk tensor copies; records their forms.
  bool checkForms(Ring &R);
  /// checkForms for fills that gather boxes of a tensor descriptor.
  bool checkBoxes(Ring &R);
  /// Rewrites the converted rings of LR; returns how many.
  unsigned rewrite(LoopRings &LR, bool DropCommitGroups);
  void eraseDead();

private:
  Instruction *insert(Instruction *Before, std::unique_ptr<Instruction> I,
                      const std::string &Name = "");
  Instruction *voidOp(Instruction *Before, Opcode Op, std::vector<Value *> Ops, int64_t Count = 0);
  Instruction *barrierSlot(Instruction *Bars, Value *Index, Instruction *Before);
  void fillGroup(const std::vector<Ring *> &Rings, const std::vector<Instruction *> &Descs,
                 size_t Fill, Instruction *Bars, Value *Index);
  std::pair<Value *, Value *> drainAtExit(LoopRings &LR, Instruction *Bars, Instruction *Phase,
                                          int64_t Slots, Instruction *Before);
  Value *nextSlot(Instruction *Before, Value *Slot, int64_t Slots, Instruction **Wraps = nullptr);
  /// The start of a run of a loop inside another one; see
  /// startWhereTheLastRunEnded.
  struct CarriedStart {
    Instruction *Base = nullptr, *Phase = nullptr;
    std::vector<Value *> Slots;
  };
  CarriedStart startWhereTheLastRunEnded(LoopRings &LR, int64_t Slots);

  Function &F;
  Module &M;
  const LoopInfo &LI;
  const DominatorTree &DT;
  TensorDescriptorBuilder &TD;
  analysis::AffineAccessAnalysis &AA;
  std::vector<Ring> Rings;
  /// The entry block's first instruction before the rewrite: descriptors
  /// and mbarriers go before it, in the order they are made.
  Instruction *EntryTop = nullptr;
  std::vector<Value *> MaybeDead;
};

std::vector<Ring> &TensorCopyRewriter::collect() {
  for (auto &BB : F.blocks())
    for (auto &I : BB->instructions()) {
      if (I->getOpcode() != Opcode::SmemAlloc)
        continue;
      bool Copied = std::any_of(I->users().begin(), I->users().end(), [&](Instruction *S) {
        return S->getOpcode() == Opcode::SmemSlot &&
               std::any_of(S->users().begin(), S->users().end(), [&](Instruction *U) {
                 return U->getOpcode() == Opcode::CpAsync && U->getOperand(0) == S;
               });
      });
      if (!Copied)
        continue;
      Ring R;
      R.Alloc = I.get();
      R.Ty = I->getType();
      R.Slots = I->getType()->getNumSlots();
      Rings.push_back(std::move(R));
    }
  EntryTop = F.getEntryBlock()->instructions().front().get();
  return Rings;
}

bool TensorCopyRewriter::recognize(Ring &R, LoopRings &LR) {
  const char *NotRing = "the ring does not have the form async-rings makes (one fill of each of "
                        "its first slots before the loop, one refill and reads per iteration)";
  std::map<int64_t, std::vector<Instruction *>> First;
  Instruction *Refill = nullptr;
  for (Instruction *S : R.Alloc->users()) {
    if (S->getOpcode() != Opcode::SmemSlot || S->getOperand(0) != R.Alloc)
      return R.decline(S, NotRing);
    std::vector<Instruction *> Copies;
    for (Instruction *U : S->users())
      if (U->getOpcode() == Opcode::CpAsync)
        Copies.push_back(U);
    if (Copies.empty()) {
      if (R.ReadIndex && R.ReadIndex != S->getOperand(1))
        return R.decline(S, NotRing);
      R.ReadIndex = S->getOperand(1);
      R.Reads.push_back(S);
      continue;
    }
    if (Copies.size() != 1 || S->users().size() != 1 || Copies[0]->getOperand(0) != S)
      return R.decline(S, NotRing);
    const Constant *C = asConstant(S->getOperand(1));
    if (C && C->isUndef())
      return R.decline(S, NotRing);
    if (C) {
      First[C->getInt()].push_back(Copies[0]);
    } else {
      if (Refill)
        return R.decline(Copies[0], NotRing);
      Refill = Copies[0];
      R.WriteIndex = S->getOperand(1);
    }
  }
  // Fills of slots 0 .. P-1 with P < S (keys are distinct and sorted).
  int64_t Prologue = static_cast<int64_t>(First.size());
  if (!Refill || R.Reads.empty() || First.empty() || Prologue >= R.Slots ||
      First.begin()->first != 0 || First.rbegin()->first != Prologue - 1)
    return R.decline(Refill ? Refill : R.Alloc, NotRing);
  Loop *L = LI.getLoopFor(Refill->getParent());
  if (!L)
    return R.decline(Refill, NotRing);
  std::vector<BasicBlock *> Latches = L->getLatches();
  BasicBlock *Preheader = L->getPreheader();
  if (Latches.size() != 1 || !Preheader || Refill->getParent() != Latches[0])
    return R.decline(Refill, NotRing);
  BasicBlock *Latch = Latches[0];
  Instruction *ReadWraps = moduloIndexWraps(R.ReadIndex, *L, Preheader, Latch, 0, R.Slots);
  if (!ReadWraps || !moduloIndexWraps(R.WriteIndex, *L, Preheader, Latch, Prologue, R.Slots))
    return R.decline(Refill, NotRing);
  for (Instruction *S : R.Reads)
    if (S->getParent() != Latch)
      return R.decline(S, NotRing);
  // The exit: the header's only successor outside the loop, entered from
  // the header alone (its phis see %read as the loop left it).
  BasicBlock *Exit = headerExit(*L);
  if (!Exit)
    return R.decline(Refill, "the loop is not left from its header alone");
  if (L->getParentLoop())
    if (std::string Why = outerLoopProblem(*L, Exit, DT); !Why.empty())
      return R.decline(Refill, Why);
  // Each prologue slot: one fill in the preheader, or (a tile ahead) one in
  // the outer preheader and one in the exit.
  BasicBlock *OuterPre = L->getParentLoop() ? L->getParentLoop()->getPreheader() : nullptr;
  for (const auto &[J, Copies] : First) {
    if (Copies.size() == 1 && Copies[0]->getParent() == Preheader) {
      R.Fills.push_back(Copies[0]);
      continue;
    }
    Instruction *Here = nullptr, *Next = nullptr;
    for (Instruction *Copy : Copies)
      (Copy->getParent() == OuterPre ? Here : Next) = Copy;
    if (Copies.size() != 2 || !OuterPre || !Here || !Next || Next->getParent() != Exit)
      return R.decline(Copies[0], NotRing);
    R.Fills.push_back(Here);
    R.Ahead.push_back(Next);
  }
  if (!R.Ahead.empty() && R.Ahead.size() != R.Fills.size())
    return R.decline(Refill, "some of the ring's first slots are filled a tile ahead and others "
                             "in the loop's preheader");
  R.Fills.push_back(Refill);
  if (LR.L && (LR.L != L || LR.ReadWraps != ReadWraps || LR.TileAhead != !R.Ahead.empty()))
    return R.decline(Refill, NotRing);
  LR.TileAhead = !R.Ahead.empty();
  LR.L = L;
  LR.Preheader = Preheader;
  LR.Latch = Latch;
  LR.Exit = Exit;
  LR.ReadWraps = ReadWraps;
  if ((LR.Outer = L->getParentLoop())) {
    LR.OuterPreheader = LR.Outer->getPreheader();
    LR.OuterLatch = LR.Outer->getLatches()[0];
  }
  return true;
}

bool TensorCopyRewriter::checkForms(Ring &R) {
  Instruction *Refill = R.refill();
  if (matchBoxGather(fillPointers(*Refill), fillMask(*Refill)))
    return checkBoxes(R);
  const Type *RingTy = R.Ty;
  // A column-major ring (async-rings' slots of a `trans` operand, filled
  // through transposed pointers) is the row-major slot of the loaded tile:
  // the engine writes that, from the untransposed access.
  bool ColumnMajor = isColumnMajor(RingTy);
  const Type *SlotTy = rowMajorSlot(RingTy);
  if (std::string Why = tensorCopySlotProblem(SlotTy); !Why.empty())
    return R.decline(R.refill(), "the slot " + SlotTy->str() +
                                     " cannot be written by the copy "
                                     "engine: " +
                                     Why);
  unsigned ElemBytes = SlotTy->getElementType()->getScalarSizeInBytes();
  std::vector<TensorAccess> Forms;
  for (size_t K = 0; K < R.numFills(); ++K) {
    Instruction *Fill = R.fill(K);
    std::string Why;
    std::optional<TensorAccess> TA = AA.tensorAccessOf(*Fill, &Why);
    if (!TA)
      return R.decline(Fill, (Fill == R.refill() ? std::string("its refill in the loop: ")
                              : K < R.Fills.size()
                                  ? "its fill of slot " + std::to_string(K) + " before the loop: "
                                  : "its fill of slot " + std::to_string(K - R.Fills.size()) +
                                        " for the next tile: ") +
                                 Why);
    if (ColumnMajor != R.transposes(*Fill))
      transposeAccess(*TA);
    if (TA->UnitDim != 1)
      return R.decline(Fill, "the fill is contiguous along the slot's first dimension, and the "
                             "copy engine writes row-major slots");
    const TensorAccess &F0 = Forms.empty() ? *TA : Forms[0];
    if (TA->Base != F0.Base || !(TA->OuterStride == F0.OuterStride) ||
        TA->Bound[0] != F0.Bound[0] || TA->Bound[1] != F0.Bound[1])
      return R.decline(Fill, "the fills do not read one tensor with the same row stride and "
                             "extents (one tensor map)");
    if (!TD.availableAt(*TA, *Fill))
      return R.decline(Fill, "the box's coordinates use values that are not scalars available "
                             "at the fill");
    if (std::string Why = TD.whyMayBeNegative(*TA); !Why.empty())
      return R.decline(Fill, Why);
    Forms.push_back(std::move(*TA));
  }
  if (std::string Why = TD.whyNotAligned(Forms[0], ElemBytes); !Why.empty())
    return R.decline(R.refill(), Why);
  R.Forms = std::move(Forms);
  return true;
}

bool TensorCopyRewriter::checkBoxes(Ring &R) {
  // The gathers lower-tensor-descs made of desc_loads feeding the dot,
  // issued stages ahead by the pipeline: the same tensor map for every
  // fill, the box of each fill's coordinates, under lower-tensor-descs'
  // rules (the innermost coordinate a multiple of 16 bytes included).
  const Type *RingTy = R.Ty;
  const Type *Elem = RingTy->getElementType();
  bool ColumnMajor = isColumnMajor(RingTy);
  std::vector<BoxGather> Boxes;
  for (size_t K = 0; K < R.numFills(); ++K) {
    Instruction *Fill = R.fill(K);
    std::string Why;
    std::optional<BoxGather> G = matchBoxGather(fillPointers(*Fill), fillMask(*Fill), &Why);
    if (!G)
      return R.decline(Fill, "its fill " +
                                 std::string(Fill == R.refill() ? "in the loop"
                                                                : "before "
                                                                  "the loop") +
                                 " is not a box of the tensor descriptor its refill reads: " + Why);
    const BoxGather &G0 = Boxes.empty() ? *G : Boxes[0];
    // The pipeline computes a fill's extents and strides again where they
    // were computed in the loop: the same polynomials, other values.
    auto Same = [&](const std::vector<Value *> &A, const std::vector<Value *> &B) {
      for (size_t K = 0; K < A.size(); ++K) {
        std::optional<analysis::AffineTile> TA = AA.affineOf(A[K]), TB = AA.affineOf(B[K]);
        if (A[K] != B[K] && !(TA && TB && !TA->Base && !TB->Base && TA->Offset == TB->Offset))
          return false;
      }
      return A.size() == B.size();
    };
    if (G->Base != G0.Base || !Same(G->Extents, G0.Extents) || !Same(G->Strides, G0.Strides) ||
        G->Box != G0.Box || G->Transposed != G0.Transposed)
      return R.decline(Fill, "the fills do not read boxes of one tensor descriptor");
    if ((G->Transposed != R.transposes(*Fill)) != ColumnMajor)
      return R.decline(Fill, "the slots' order is not the boxes' (a transposed gather fills "
                             "column-major slots)");
    if (std::string Why = TD.whyNotAlignedBoxStart(G->Coords.back(), Elem->getScalarSizeInBytes());
        !Why.empty())
      return R.decline(Fill, Why);
    Boxes.push_back(std::move(*G));
  }
  const Type *Slot = rowMajorSlot(RingTy);
  if (std::string Why = TD.whyNotBoxCopy(Boxes[0].Base, Boxes[0].Extents, Boxes[0].Strides, Elem,
                                         Slot, "the descriptor of " + printOperand(*Boxes[0].Base));
      !Why.empty())
    return R.decline(R.refill(), Why);
  R.Boxes = std::move(Boxes);
  return true;
}

Instruction *TensorCopyRewriter::insert(Instruction *Before, std::unique_ptr<Instruction> I,
                                        const std::string &Name) {
  I->Loc = Before->Loc;
  if (!Name.empty())
    I->setName(Name);
  BasicBlock *BB = Before->getParent();
  return BB->insert(BB->iteratorTo(Before), std::move(I));
}

Instruction *TensorCopyRewriter::voidOp(Instruction *Before, Opcode Op, std::vector<Value *> Ops,
                                        int64_t Count) {
  auto I = Instruction::create(Op, Type::getVoid(), std::move(Ops));
  I->Count = Count;
  return insert(Before, std::move(I));
}

Instruction *TensorCopyRewriter::barrierSlot(Instruction *Bars, Value *Index, Instruction *Before) {
  const Type *BarTy = Type::getSharedBuffer(Type::getI64(), {1}, nullptr, 1);
  return insert(Before, Instruction::create(Opcode::SmemSlot, BarTy, {Bars, Index}),
                Bars->getName() + ".slot");
}

/// Fill number Fill of every ring in Rings (into slot Index) as bulk
/// tensor copies on that slot's mbarrier.
void TensorCopyRewriter::fillGroup(const std::vector<Ring *> &Rings,
                                   const std::vector<Instruction *> &Descs, size_t Fill,
                                   Instruction *Bars, Value *Index) {
  // The group's copies in block order: the mbarrier's expectation comes
  // before the first, its arrival after the last.
  std::vector<size_t> Order(Rings.size());
  for (size_t K = 0; K < Order.size(); ++K)
    Order[K] = K;
  BasicBlock *BB = Rings[0]->fill(Fill)->getParent();
  std::map<const Instruction *, size_t> Position;
  size_t N = 0;
  for (auto &I : BB->instructions())
    Position[I.get()] = N++;
  std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) {
    return Position[Rings[A]->fill(Fill)] < Position[Rings[B]->fill(Fill)];
  });
  Instruction *FirstCopy = Rings[Order.front()]->fill(Fill);
  Instruction *Bar = barrierSlot(Bars, Index, FirstCopy);
  uint64_t Bytes = 0;
  for (Ring *R : Rings)
    Bytes += R->slotBytes();
  voidOp(FirstCopy, Opcode::MbarrierExpectTx, {Bar}, static_cast<int64_t>(Bytes));
  Instruction *Last = nullptr;
  for (size_t K : Order) {
    Instruction *Copy = Rings[K]->fill(Fill);
    std::vector<Value *> Coords =
        Rings[K]->Boxes.empty()
            ? TD.coordinates(Rings[K]->Forms[Fill], Copy)
            : TD.boxCoordinates(Rings[K]->Boxes[Fill].Coords, Rings[K]->Boxes[Fill].Guards, Copy);
    std::vector<Value *> Ops = {Descs[K]};
    Ops.insert(Ops.end(), Coords.begin(), Coords.end());
    Ops.push_back(Copy->getOperand(0));
    Ops.push_back(Bar);
    Last = voidOp(Copy, Opcode::TmaLoad, Ops);
    for (Value *V : Copy->operands())
      MaybeDead.push_back(V);
    Copy->dropAllOperands();
    Copy->eraseFromParent();
  }
  BasicBlock *LastBB = Last->getParent();
  voidOp(std::next(LastBB->iteratorTo(Last))->get(), Opcode::MbarrierArrive, {Bar});
}

/// (Slot + 1) mod Slots, before Before; Wraps gets the `icmp` that says it
/// wrapped.
Value *TensorCopyRewriter::nextSlot(Instruction *Before, Value *Slot, int64_t Slots,
                                    Instruction **Wraps) {
  const Type *I32 = Type::getI32();
  Instruction *Next =
      insert(Before, Instruction::create(Opcode::Add, I32, {Slot, M.getInt(I32, 1)}));
  auto Cmp = Instruction::create(Opcode::ICmp, Type::getI1(), {Next, M.getInt(I32, Slots)});
  Cmp->Predicate = CmpPredicate::EQ;
  Instruction *Wrapped = insert(Before, std::move(Cmp));
  if (Wraps)
    *Wraps = Wrapped;
  return insert(Before,
                Instruction::create(Opcode::Select, I32, {Wrapped, M.getInt(I32, 0), Next}));
}

/// The fills the loop issued for iterations it did not run, waited for
/// before Before (the exit's top): one per prologue fill, into the slots
/// from %read on (of Slots), with the
/// parities from %phase on. Returns the slot and the parity of the fill
/// after them (where a loop around this one goes on; else the last waited).
std::pair<Value *, Value *> TensorCopyRewriter::drainAtExit(LoopRings &LR, Instruction *Bars,
                                                            Instruction *Phase, int64_t Slots,
                                                            Instruction *Before) {
  int64_t InFlight = static_cast<int64_t>(LR.Rings[0]->Fills.size()) - 1;
  const Type *I32 = Type::getI32();
  Value *Slot = LR.Rings[0]->ReadIndex;
  Value *Parity = Phase;
  for (int64_t K = 0; K < InFlight; ++K) {
    voidOp(Before, Opcode::MbarrierWait, {barrierSlot(Bars, Slot, Before), Parity});
    if (K + 1 == InFlight && !LR.Outer)
      break;
    Instruction *Wraps = nullptr;
    Slot = nextSlot(Before, Slot, Slots, &Wraps);
    Instruction *Flipped =
        insert(Before, Instruction::create(Opcode::Xor, I32, {Parity, M.getInt(I32, 1)}));
    Parity = insert(Before, Instruction::create(Opcode::Select, I32, {Wraps, Flipped, Parity}));
  }
  return {Slot, Parity};
}

/// A loop inside another one (a persistent kernel's K loop in its loop over
/// tiles) fills its rings again on every outer iteration, and the
/// mbarriers' phases go on from where the previous run left them. The fills
/// of all runs are one sequence: fill k of the kernel goes to slot k mod S
/// with parity (k / S) & 1, as within one run. So each run starts where the
/// previous one's drain ended: at %ring.base, an outer header phi (0 on
/// entry), with the parity %ring.phase.outer. The prologue fills go to the
/// slots from %ring.base on, %read starts there and %write P slots later
/// (every ring of the loop, converted or not: they share the indices). With
/// a prologue issued a tile ahead, the fills of the next tile are issued in
/// the exit, after the drain, into the slots from where it ended.
/// Returns the two phis (their incoming values from the outer latch are
/// the drain's) and the slots of the prologue fills.
TensorCopyRewriter::CarriedStart TensorCopyRewriter::startWhereTheLastRunEnded(LoopRings &LR,
                                                                               int64_t Slots) {
  const Type *I32 = Type::getI32();
  BasicBlock *OuterHeader = LR.Outer->getHeader();
  auto MakePhi = [&](const char *Name) {
    auto Phi = Instruction::create(Opcode::Phi, I32, {});
    Phi->Loc = OuterHeader->getTerminator()->Loc;
    Phi->setName(Name);
    Instruction *P = OuterHeader->insert(OuterHeader->instructions().begin(), std::move(Phi));
    P->addIncoming(M.getInt(I32, 0), LR.OuterPreheader);
    return P;
  };
  CarriedStart Start;
  Start.Phase = MakePhi("ring.phase.outer");
  Start.Base = MakePhi("ring.base");
  auto Pos = LR.Preheader->instructions().begin();
  while ((*Pos)->getOpcode() == Opcode::Phi)
    ++Pos;
  size_t Prologue = LR.Rings[0]->Fills.size() - 1;
  Start.Slots.push_back(Start.Base);
  while (Start.Slots.size() <= Prologue)
    Start.Slots.push_back(nextSlot(Pos->get(), Start.Slots.back(), Slots));
  auto SetIncoming = [&](Value *Phi, Value *V) {
    Instruction *P = asInstruction(Phi);
    for (unsigned K = 0; K < P->getNumOperands(); ++K)
      if (P->getIncomingBlock(K) == LR.Preheader)
        P->setOperand(K, V);
  };
  std::set<Value *> Indices;
  for (Ring *R : LR.Rings) {
    // A tile ahead, the first tile's fills stay in slots 0 .. P-1 (%ring.base
    // is 0 on entry); the next tile's go on after the drain (rewrite).
    for (size_t J = 0; J < Prologue && !LR.TileAhead; ++J)
      asInstruction(R->Fills[J]->getOperand(0))->setOperand(1, Start.Slots[J]);
    Indices.insert(R->ReadIndex);
    Indices.insert(R->WriteIndex);
  }
  for (Value *Index : Indices)
    SetIncoming(Index, Index == LR.Rings[0]->ReadIndex ? Start.Slots[0] : Start.Slots[Prologue]);
  return Start;
}

unsigned TensorCopyRewriter::rewrite(LoopRings &LR, bool DropCommitGroups) {
  std::vector<Ring *> Converted;
  for (Ring *R : LR.Rings)
    if (R->converted())
      Converted.push_back(R);
  if (Converted.empty())
    return 0;
  const Type *I32 = Type::getI32();
  int64_t Slots = Converted[0]->Slots;
  // Entry: the descriptors, the mbarriers (one per slot, one arrival per
  // phase: the thread that issues the copies), a barrier before any use.
  std::vector<Instruction *> Descs;
  for (Ring *R : Converted) {
    const Type *T = R->Alloc->getType();
    Instruction *D =
        R->Boxes.empty()
            ? TD.makeDescriptor(R->Forms[0], T->getElementType(), rowMajorSlot(T)->getShape(),
                                EntryTop, R->Alloc->Loc)
            : TD.makeBoxDescriptor(R->Boxes[0].Base, R->Boxes[0].Extents, R->Boxes[0].Strides,
                                   T->getElementType(), R->Boxes[0].Box, EntryTop, R->Alloc->Loc);
    D->setName(R->Alloc->getName() + ".desc");
    Descs.push_back(D);
  }
  const Type *BarsTy = Type::getSharedBuffer(Type::getI64(), {1}, nullptr, Slots);
  Instruction *Bars =
      insert(EntryTop, Instruction::create(Opcode::SmemAlloc, BarsTy, {}), "ring.bars");
  Bars->Loc = Converted[0]->Alloc->Loc;
  // The initializations in one run: the emitter makes them visible to the
  // copy engine once, after the last.
  std::vector<Instruction *> BarSlots;
  for (int64_t S = 0; S < Slots; ++S)
    BarSlots.push_back(barrierSlot(Bars, M.getInt(I32, S), EntryTop));
  for (Instruction *Bar : BarSlots)
    voidOp(EntryTop, Opcode::MbarrierInit, {Bar}, 1);
  voidOp(EntryTop, Opcode::Barrier, {});

  // Nested: the run starts at the slot and parity the previous run ended at.
  CarriedStart Start;
  if (LR.Outer)
    Start = startWhereTheLastRunEnded(LR, Slots);

  // The parity of the fill %read reads: flips whenever %read wraps.
  BasicBlock *Header = LR.L->getHeader();
  auto Phi = Instruction::create(Opcode::Phi, I32, {});
  Phi->Loc = Header->getTerminator()->Loc;
  Phi->setName("ring.phase");
  Instruction *Phase = Header->insert(Header->instructions().begin(), std::move(Phi));
  Phase->addIncoming(Start.Phase ? static_cast<Value *>(Start.Phase) : M.getInt(I32, 0),
                     LR.Preheader);
  Instruction *LatchEnd = LR.Latch->getTerminator();
  Instruction *Flipped =
      insert(LatchEnd, Instruction::create(Opcode::Xor, I32, {Phase, M.getInt(I32, 1)}));
  Phase->addIncoming(
      insert(LatchEnd, Instruction::create(Opcode::Select, I32, {LR.ReadWraps, Flipped, Phase}),
             "ring.phase"),
      LR.Latch);

  // The wait: where the cp_async wait of the read slots is (before their
  // barrier), else before the first read of any converted ring.
  std::set<const Instruction *> Reads;
  for (Ring *R : Converted)
    Reads.insert(R->Reads.begin(), R->Reads.end());
  Instruction *FirstRead = nullptr;
  for (auto &I : LR.Latch->instructions())
    if (Reads.count(I.get())) {
      FirstRead = I.get();
      break;
    }
  Instruction *OldWait = nullptr;
  for (auto &I : LR.Latch->instructions()) {
    if (I.get() == FirstRead)
      break;
    if (I->getOpcode() == Opcode::CpAsyncWait)
      OldWait = I.get();
  }
  Instruction *WaitAt = OldWait ? OldWait : FirstRead;
  voidOp(WaitAt, Opcode::MbarrierWait, {barrierSlot(Bars, Converted[0]->ReadIndex, WaitAt), Phase});

  // Commit groups to drop, found before the fills they follow go.
  std::vector<Instruction *> Commits;
  if (DropCommitGroups)
    for (size_t K = 0; K < Converted[0]->numFills(); ++K) {
      Instruction *Fill = Converted[0]->fill(K);
      BasicBlock *BB = Fill->getParent();
      for (auto It = std::next(BB->iteratorTo(Fill)); It != BB->instructions().end(); ++It)
        if ((*It)->getOpcode() == Opcode::CpAsyncCommit) {
          Commits.push_back(It->get());
          break;
        }
    }
  for (size_t Fill = 0; Fill < Converted[0]->Fills.size(); ++Fill) {
    bool Refill = Fill + 1 == Converted[0]->Fills.size();
    Value *Index = Refill                        ? Converted[0]->WriteIndex
                   : Start.Base && !LR.TileAhead ? Start.Slots[Fill]
                                                 : M.getInt(I32, static_cast<int64_t>(Fill));
    fillGroup(Converted, Descs, Fill, Bars, Index);
  }
  auto Pos = LR.Exit->instructions().begin();
  while ((*Pos)->getOpcode() == Opcode::Phi)
    ++Pos;
  Instruction *ExitTop = Pos->get();
  auto [EndSlot, EndParity] = drainAtExit(LR, Bars, Phase, Slots, ExitTop);
  if (LR.TileAhead) {
    // The next tile's fills, into the slots from the drain's end on.
    std::vector<Value *> AheadSlots = {EndSlot};
    while (AheadSlots.size() < Converted[0]->Ahead.size())
      AheadSlots.push_back(nextSlot(ExitTop, AheadSlots.back(), Slots));
    for (Ring *R : LR.Rings)
      for (size_t J = 0; J < R->Ahead.size(); ++J)
        asInstruction(R->Ahead[J]->getOperand(0))->setOperand(1, AheadSlots[J]);
    for (size_t J = 0; J < AheadSlots.size(); ++J)
      fillGroup(Converted, Descs, Converted[0]->Fills.size() + J, Bars, AheadSlots[J]);
  }
  if (Start.Base) {
    Start.Base->addIncoming(EndSlot, LR.OuterLatch);
    Start.Phase->addIncoming(EndParity, LR.OuterLatch);
  }
  if (DropCommitGroups) {
    for (Instruction *C : Commits)
      C->eraseFromParent();
    if (OldWait)
      OldWait->eraseFromParent();
    for (auto &I : LR.Exit->instructions())
      if (I->getOpcode() == Opcode::CpAsyncWait) {
        I->eraseFromParent();
        break;
      }
  }
  return static_cast<unsigned>(Converted.size());
}

void TensorCopyRewriter::eraseDead() {
  // The fills' pointer and mask tiles, and what only they used.
  eraseTriviallyDead(MaybeDead);
}

} // namespace

std::string whyNotBulkTensorFills(Function &F, AnalysisManager &AM, const Loop &L,
                                  const std::vector<Instruction *> &Prologue,
                                  const std::vector<Instruction *> &NextTile, Instruction *Refill,
                                  const Type *RingTy, bool Transposed) {
  // The checks of the pass's run on the ring async-rings would make: the
  // loop's (recognize) and every fill's (checkForms), on the loads the
  // fills copy.
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  DominatorTree DT(F);
  BasicBlock *Exit = headerExit(L);
  if (!Exit)
    return "the loop is not left from its header alone";
  if (L.getParentLoop())
    if (std::string Why = outerLoopProblem(L, Exit, DT); !Why.empty())
      return Why;
  analysis::AffineAccessAnalysis AA(F, DT);
  TensorDescriptorBuilder TD(F, AA, AI, DT);
  TensorCopyRewriter RW(F, LI, DT, TD, AA);
  Ring R;
  R.Ty = RingTy;
  R.Slots = RingTy->getNumSlots();
  R.Fills = Prologue;
  R.Fills.push_back(Refill);
  R.Ahead = NextTile;
  R.TransposedLoads = Transposed;
  return RW.checkForms(R) ? "" : R.Why;
}

bool TensorCopiesPass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  auto Remark = [&](RemarkKind Kind, const Instruction &At, std::string Message) {
    if (Diags)
      Diags->remark(Kind, "tensor-copies", SourceRange(At.Loc), std::move(Message));
  };
  if (F.blocks().empty())
    return false;
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  DominatorTree DT(F);
  analysis::AffineAccessAnalysis AA(F, DT);
  TensorDescriptorBuilder TD(F, AA, AI, DT);
  TensorCopyRewriter RW(F, LI, DT, TD, AA);
  std::vector<Ring> &Rings = RW.collect();
  // Group the rings by loop; each is decided before anything changes (the
  // analyses see the IR as it came).
  std::map<const Loop *, LoopRings> Loops;
  std::vector<const Loop *> LoopOrder;
  for (Ring &R : Rings) {
    LoopRings Probe;
    if (!RW.recognize(R, Probe))
      continue;
    LoopRings &LR = Loops[Probe.L];
    if (!LR.L) {
      LR = Probe;
      LoopOrder.push_back(Probe.L);
    } else if (LR.ReadWraps != Probe.ReadWraps || LR.TileAhead != Probe.TileAhead) {
      R.decline(R.refill(), "the ring does not share its loop's slot indices");
      continue;
    }
    LR.Rings.push_back(&R);
    if (Dots)
      if (std::string Why = whyLeftToCpAsync(R, *Dots); !Why.empty()) {
        R.decline(R.refill(), Why);
        continue;
      }
    RW.checkForms(R);
  }
  // Commit groups and cp_async waits go only if no cp_async stays.
  bool AllConverted =
      std::all_of(Rings.begin(), Rings.end(), [](const Ring &R) { return R.converted(); });
  for (auto &BB : F.blocks())
    for (auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::CpAsync &&
          std::none_of(Rings.begin(), Rings.end(), [&](const Ring &R) {
            return std::count(R.Fills.begin(), R.Fills.end(), I.get()) != 0 ||
                   std::count(R.Ahead.begin(), R.Ahead.end(), I.get()) != 0;
          }))
        AllConverted = false;
  for (Ring &R : Rings)
    if (!R.converted())
      Remark(RemarkKind::Missed, R.At ? *R.At : *R.Alloc,
             "the ring " + printOperand(*R.Alloc) +
                 " is not filled by bulk tensor copies (tma_load): " + R.Why);
  bool Changed = false;
  for (const Loop *L : LoopOrder) {
    LoopRings &LR = Loops[L];
    int64_t Slots = LR.Rings[0]->Slots;
    unsigned N = RW.rewrite(LR, AllConverted);
    if (!N)
      continue;
    Changed = true;
    Remark(RemarkKind::Passed, *L->getHeader()->getTerminator(),
           std::to_string(N) + " ring" + (N == 1 ? "" : "s") + " of " + std::to_string(Slots) +
               " slots filled by bulk tensor copies (tma_load), waited for on " +
               std::to_string(Slots) + " mbarriers by phase");
  }
  RW.eraseDead();
  return Changed;
}

std::unique_ptr<Pass> createTensorCopiesPass() { return std::make_unique<TensorCopiesPass>(); }

std::unique_ptr<Pass> createTensorCopiesPass(AssignLayoutsTarget Dots) {
  return std::make_unique<TensorCopiesPass>(Dots);
}

} // namespace tritonc::transform
