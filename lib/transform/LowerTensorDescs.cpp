//===- LowerTensorDescs.cpp - desc_load / desc_store to the GPU's forms ---===//
//
// Triton-C's tensor descriptors (`__desc`, make_desc, desc_load, desc_store;
// docs/LANGUAGE.md) reach the back end as make_tensor_desc, desc_load and
// desc_store. This pass, the first of the back end's, rewrites every access
// into a form the emitter knows:
//
//  - a bulk tensor copy (with `tma`, sm_90a), for a load whose descriptor the
//    launcher can encode as a tensor map (base a pointer parameter, extents
//    and strides polynomials over the integer parameters, 16-byte aligned
//    base and strides, an element type and row width the copy engine takes):
//    in the entry block one slot (the box as the 2-D tile of its rows, in
//    the hardware swizzle of its row width) and one mbarrier; at the load
//    mbarrier_expect_tx, tma_load, mbarrier_arrive, mbarrier_wait, then
//    local_load (and a reshape to the block). Each such load completes one
//    phase of the function's mbarrier, so the phase to wait for is a
//    counter threaded through the control flow (phis where paths meet).
//    Out-of-bounds elements are the copy engine's zero fill.
//  - otherwise a masked gather or scatter: per block dimension the indices
//    offset + 0..b-1, a bound check 0 <= index < extent and the index times
//    the stride, broadcast and summed into a pointer tile; masked_load with
//    zeros, or masked_store. Every target runs it, with any alignment.
//
// A descriptor that reaches an access through a phi or select is not a
// make_tensor_desc the pass can read, and is an error at the access.
//
//===----------------------------------------------------------------------===//
#include "TensorDescriptors.h"

#include "tritonc/analysis/AffineAccess.h"
#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/PassManager.h"
#include "tritonc/transform/Passes.h"

#include <map>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

class Rewriter {
public:
  Rewriter(Function &F, AnalysisManager &AM, bool TensorCopies)
      : F(F), AM(AM), M(*F.getParent()), TensorCopies(TensorCopies) {}
  bool run();

private:
  Instruction *insert(Instruction *Before, Opcode Op, const Type *T, std::vector<Value *> Ops) {
    auto I = Instruction::create(Op, T, std::move(Ops));
    I->Loc = Before->Loc;
    BasicBlock *BB = Before->getParent();
    return BB->insert(BB->iteratorTo(Before), std::move(I));
  }
  /// Why Access cannot be a bulk tensor copy, or "".
  std::string whyNotTensorCopy(const Instruction &Access, const Instruction &Desc);
  /// The slot type a tensor copy of Desc's box lands in.
  static const Type *slotTypeOf(const Type *Desc);
  void lowerToGather(Instruction &Access, Instruction &Desc);
  void lowerToTensorCopy(Instruction &Access);
  /// Gives every mbarrier_wait of the copies its phase (one counter).
  void threadPhases();

  Function &F;
  AnalysisManager &AM;
  Module &M;
  bool TensorCopies;
  std::unique_ptr<analysis::AxisInfoAnalysis> AI;
  std::unique_ptr<analysis::AffineAccessAnalysis> AA;
  Instruction *Barrier = nullptr;
  /// The mbarrier_wait of each tensor copy, in no particular order; their
  /// phase operands are set by threadPhases.
  std::vector<Instruction *> Waits;
};

const Type *Rewriter::slotTypeOf(const Type *Desc) {
  const Shape &Box = Desc->getShape();
  int64_t Rows = 1;
  for (size_t K = 0; K + 1 < Box.size(); ++K)
    Rows *= Box[K];
  int64_t RowBytes = Box.back() * int64_t(Desc->getElementType()->getScalarSizeInBytes());
  // The swizzle whose width is the row's; rows of other widths unswizzled
  // (tensorCopySlotProblem says whether the engine takes them).
  int32_t Swizzle = RowBytes == 32 || RowBytes == 64 || RowBytes == 128 ? int32_t(RowBytes) : 0;
  return Type::getSharedBuffer(Desc->getElementType(), Shape{Rows, Box.back()},
                               Layout::getSharedSwizzle(Swizzle, {1, 0}));
}

std::string Rewriter::whyNotTensorCopy(const Instruction &Access, const Instruction &Desc) {
  if (!TensorCopies)
    return "bulk tensor copies are off (not sm_90a, or --no-tma)";
  if (Access.getOpcode() != Opcode::DescLoad)
    return "stores are lowered as masked stores";
  if (Desc.getType()->getRank() < 2)
    return "a 1-D block (the copies land in 2-D slots)";
  const Type *Elem = Desc.getType()->getElementType();
  if (Elem != Type::getF16() && Elem != Type::getBF16() && Elem != Type::getF32())
    return "tensor copies of " + Elem->str() + " elements are not lowered";
  const Argument *Base = asArgument(Desc.getOperand(0));
  if (!Base)
    return "the base is not a pointer parameter (the launcher encodes the tensor map from the "
           "arguments)";
  if (!AI) {
    AI = std::make_unique<analysis::AxisInfoAnalysis>(F);
    AA = std::make_unique<analysis::AffineAccessAnalysis>(F, AM.get<DominatorTree>(F));
  }
  TensorDescriptorBuilder TB(F, *AA, *AI, AM.get<DominatorTree>(F));
  unsigned Rank = Desc.getType()->getRank();
  unsigned ElemBytes = Elem->getScalarSizeInBytes();
  for (unsigned K = 1; K < 1 + 2 * Rank; ++K) {
    // "extent 1 of %dx (%3)": the IR names the value, the index finds it
    // in the source's list.
    std::string What = std::string(K <= Rank ? "extent " : "stride ") +
                       std::to_string(K <= Rank ? K - 1 : K - 1 - Rank) + " of " +
                       printOperand(Desc) + " (" + printOperand(*Desc.getOperand(K)) + ")";
    std::optional<analysis::AffineTile> A = AA->affineOf(Desc.getOperand(K));
    if (!A || A->Base || !AA->isOverParameters(A->Offset))
      return What + " is not a polynomial over the kernel's integer parameters (the launcher "
                    "evaluates the tensor map's extents and strides)";
    bool OuterStride = K > Rank && K + 1 < 1 + 2 * Rank;
    if (OuterStride && TB.knownPow2Divisor(A->Offset) * ElemBytes % 16 != 0)
      return What + " is not known to be a multiple of 16 bytes (`__multipleof` on the "
                    "parameters says so)";
  }
  if (AI->get(Base).Divisibility[0] < 16)
    return "the base " + printOperand(*Base) +
           " is not known to be 16-byte aligned (`__aligned(16)` on the parameter says so)";
  if (std::string Why = tensorCopySlotProblem(slotTypeOf(Desc.getType())); !Why.empty())
    return "the block does not fit the copy engine: " + Why;
  return "";
}

void Rewriter::lowerToGather(Instruction &Access, Instruction &Desc) {
  const Type *DT = Desc.getType();
  const Shape &Block = DT->getShape();
  unsigned Rank = DT->getRank();
  const Type *Elem = DT->getElementType();
  const Type *I32 = Type::getI32(), *I64 = Type::getI64();
  Value *Offsets = nullptr, *Mask = nullptr;
  for (unsigned K = 0; K < Rank; ++K) {
    // Along dimension K: indices, their bound check and element offsets as
    // 1-D tiles, then reshaped to [1, .., b_K, .., 1] and broadcast.
    Shape Line = {Block[K]};
    Instruction *Range = insert(&Access, Opcode::MakeRange, Type::getTile(I32, Line), {});
    Range->RangeStart = 0;
    Range->RangeEnd = Block[K];
    Value *Start =
        insert(&Access, Opcode::Splat, Type::getTile(I32, Line), {Access.getOperand(1 + K)});
    Value *Index = insert(&Access, Opcode::Add, Type::getTile(I32, Line), {Start, Range});
    Value *Wide = insert(&Access, Opcode::SExt, Type::getTile(I64, Line), {Index});
    const Type *Bool = Type::getTile(Type::getI1(), Line);
    Instruction *NotBelow = insert(
        &Access, Opcode::ICmp, Bool,
        {Wide, insert(&Access, Opcode::Splat, Type::getTile(I64, Line), {M.getInt(I64, 0)})});
    NotBelow->Predicate = CmpPredicate::SGE;
    Value *Extent = Desc.getOperand(1 + K);
    if (Extent->getType() != I64)
      Extent = insert(&Access, Opcode::SExt, I64, {Extent});
    Instruction *Below =
        insert(&Access, Opcode::ICmp, Bool,
               {Wide, insert(&Access, Opcode::Splat, Type::getTile(I64, Line), {Extent})});
    Below->Predicate = CmpPredicate::SLT;
    Value *InBounds = insert(&Access, Opcode::And, Bool, {NotBelow, Below});
    Value *Stride =
        insert(&Access, Opcode::Splat, Type::getTile(I64, Line), {Desc.getOperand(1 + Rank + K)});
    Value *Offset = insert(&Access, Opcode::Mul, Type::getTile(I64, Line), {Wide, Stride});
    if (Rank > 1) {
      Shape Unit(Rank, 1);
      Unit[K] = Block[K];
      auto Spread = [&](Value *V, const Type *Scalar) {
        Value *R = insert(&Access, Opcode::Reshape, Type::getTile(Scalar, Unit), {V});
        return insert(&Access, Opcode::Broadcast, Type::getTile(Scalar, Block), {R});
      };
      Offset = Spread(Offset, I64);
      InBounds = Spread(InBounds, Type::getI1());
    }
    Offsets = Offsets ? insert(&Access, Opcode::Add, Type::getTile(I64, Block), {Offsets, Offset})
                      : Offset;
    Mask = Mask
               ? insert(&Access, Opcode::And, Type::getTile(Type::getI1(), Block), {Mask, InBounds})
               : InBounds;
  }
  const Type *PtrTile = Type::getTile(Type::getPointer(Elem), Block);
  Value *Bases = insert(&Access, Opcode::Splat, PtrTile, {Desc.getOperand(0)});
  Value *Pointers = insert(&Access, Opcode::GEP, PtrTile, {Bases, Offsets});
  if (Access.getOpcode() == Opcode::DescLoad) {
    const Type *Tile = Access.getType();
    Constant *Zero = Elem->isFloatOrFloatTile() ? M.getFloat(Elem, 0.0) : M.getInt(Elem, 0);
    Value *Zeros = insert(&Access, Opcode::Splat, Tile, {Zero});
    Instruction *Load = insert(&Access, Opcode::MaskedLoad, Tile, {Pointers, Mask, Zeros});
    Load->setName(Access.getName());
    Access.replaceAllUsesWith(Load);
  } else {
    insert(&Access, Opcode::MaskedStore, Type::getVoid(),
           {Pointers, Access.getOperand(1 + Rank), Mask});
  }
  Access.eraseFromParent();
}

void Rewriter::lowerToTensorCopy(Instruction &Access) {
  Value *Desc = Access.getOperand(0);
  const Type *DT = Desc->getType();
  unsigned Rank = DT->getRank();
  BasicBlock *Entry = F.getEntryBlock();
  Instruction *Top = Entry->instructions().front().get();
  for (const auto &I : Entry->instructions())
    if (I->getOpcode() != Opcode::Phi) {
      Top = I.get();
      break;
    }
  if (!Barrier) {
    Barrier =
        insert(Top, Opcode::SmemAlloc, Type::getSharedBuffer(Type::getI64(), {1}, nullptr), {});
    Barrier->setName("desc_bar");
    insert(Top, Opcode::MbarrierInit, Type::getVoid(), {Barrier})->Count = 1;
  }
  // A slot per access: two loads of one iteration may both be live.
  const Type *SlotT = slotTypeOf(DT);
  Instruction *Slot = insert(Top, Opcode::SmemAlloc, SlotT, {});
  int64_t Bytes = DT->getNumElements() * int64_t(DT->getElementType()->getScalarSizeInBytes());
  insert(&Access, Opcode::MbarrierExpectTx, Type::getVoid(), {Barrier})->Count = Bytes;
  std::vector<Value *> CopyOps = {Desc};
  for (unsigned K = 0; K < Rank; ++K)
    CopyOps.push_back(Access.getOperand(1 + K));
  CopyOps.push_back(Slot);
  CopyOps.push_back(Barrier);
  insert(&Access, Opcode::TmaLoad, Type::getVoid(), CopyOps);
  insert(&Access, Opcode::MbarrierArrive, Type::getVoid(), {Barrier});
  // The phase operand is set once every wait is known (threadPhases).
  Waits.push_back(insert(&Access, Opcode::MbarrierWait, Type::getVoid(),
                         {Barrier, M.getInt(Type::getI32(), 0)}));
  const Type *Rows = Type::getTile(DT->getElementType(), SlotT->getShape());
  Value *Tile = insert(&Access, Opcode::LocalLoad, Rows, {Slot});
  if (Rows != Access.getType())
    Tile = insert(&Access, Opcode::Reshape, Access.getType(), {Tile});
  Tile->setName(Access.getName());
  Access.replaceAllUsesWith(Tile);
  Access.eraseFromParent();
}

void Rewriter::threadPhases() {
  // Each copy completes one phase and is waited for at once, so the phase
  // a wait expects is the number of copies before it on the path taken,
  // mod 2: a counter in SSA form, with a phi wherever paths meet.
  std::set<Instruction *> IsWait(Waits.begin(), Waits.end());
  const Type *I32 = Type::getI32();
  std::map<BasicBlock *, Value *> Out;
  std::map<BasicBlock *, Instruction *> Phis;
  DominatorTree &DT = AM.get<DominatorTree>(F);
  std::vector<BasicBlock *> Order = DT.reversePostOrder();
  for (BasicBlock *BB : Order)
    if (BB->predecessors().size() > 1) {
      auto Phi = Instruction::create(Opcode::Phi, I32, {});
      Phi->setName("phase");
      Phi->Loc = BB->instructions().front()->Loc;
      Phis[BB] = BB->insert(BB->instructions().begin(), std::move(Phi));
    }
  for (BasicBlock *BB : Order) {
    Value *Phase = M.getInt(I32, 0);
    if (Phis.count(BB))
      Phase = Phis[BB];
    else if (BB != F.getEntryBlock())
      Phase = Out.at(BB->predecessors().front()); // its only predecessor, earlier in RPO
    for (auto It = BB->instructions().begin(); It != BB->instructions().end(); ++It)
      if (IsWait.count(It->get())) {
        (*It)->setOperand(1, Phase);
        // Inserted before the next instruction (a wait is no terminator).
        Phase = insert(std::next(It)->get(), Opcode::Xor, I32, {Phase, M.getInt(I32, 1)});
      }
    Out[BB] = Phase;
  }
  for (auto &[BB, Phi] : Phis)
    for (BasicBlock *Pred : BB->predecessors())
      Phi->addIncoming(Out.count(Pred) ? Out[Pred] : M.getInt(I32, 0), Pred);
}

bool Rewriter::run() {
  std::vector<Instruction *> Accesses;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::DescLoad || I->getOpcode() == Opcode::DescStore)
        Accesses.push_back(I.get());
  if (Accesses.empty())
    return false;
  std::set<Instruction *> Descs;
  std::vector<Instruction *> Copies;
  for (Instruction *A : Accesses) {
    Instruction *D = asInstruction(A->getOperand(0));
    if (!D || D->getOpcode() != Opcode::MakeTensorDesc)
      throw PassInputError{std::string(opcodeName(A->getOpcode())) +
                               ": its tensor descriptor is chosen at run time (a phi or "
                               "select), which the back end does not lower; assign each "
                               "descriptor once",
                           A->Loc};
    Descs.insert(D);
    std::string Why = whyNotTensorCopy(*A, *D);
    if (DiagnosticEngine *Diags = AM.diagnostics())
      Diags->remark(Why.empty() ? RemarkKind::Passed : RemarkKind::Missed, "tensor-descs",
                    SourceRange(A->Loc),
                    Why.empty() ? std::string("desc_load becomes a bulk tensor copy")
                                : std::string(opcodeName(A->getOpcode())) + " becomes a masked " +
                                      (A->getOpcode() == Opcode::DescLoad ? "gather" : "scatter") +
                                      ", not a bulk tensor copy: " + Why);
    if (Why.empty())
      Copies.push_back(A);
  }
  std::set<Instruction *> Copied(Copies.begin(), Copies.end());
  for (Instruction *A : Accesses)
    if (!Copied.count(A))
      lowerToGather(*A, *asInstruction(A->getOperand(0)));
  for (Instruction *A : Copies)
    lowerToTensorCopy(*A);
  if (!Waits.empty())
    threadPhases();
  // Descriptors only gathers read are gone; the emitter builds a tensor map
  // for each one left.
  for (Instruction *D : Descs)
    if (!D->hasUses())
      D->eraseFromParent();
  return true;
}

class LowerTensorDescsPass : public Pass {
public:
  explicit LowerTensorDescsPass(bool TensorCopies) : TensorCopies(TensorCopies) {}
  const char *name() const override { return "lower-tensor-descs"; }
  bool run(Function &F, AnalysisManager &AM) override {
    return Rewriter(F, AM, TensorCopies).run();
  }

private:
  bool TensorCopies;
};

} // namespace

std::unique_ptr<Pass> createLowerTensorDescsPass() {
  return std::make_unique<LowerTensorDescsPass>(false);
}

std::unique_ptr<Pass> createTensorDescLoweringPass(bool TensorCopies) {
  return std::make_unique<LowerTensorDescsPass>(TensorCopies);
}

} // namespace tritonc::transform
