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
//    base and strides, an element type and row width the copy engine takes,
//    an innermost offset known to be a multiple of 16 bytes):
//    in the entry block one slot (the box as the 2-D tile of its rows, in
//    the hardware swizzle of its row width) and one mbarrier; at the load
//    mbarrier_expect_tx, tma_load, mbarrier_arrive, mbarrier_wait, then
//    local_load (and a reshape to the block). Each such load completes one
//    phase of the function's mbarrier, so the phase to wait for is a
//    counter threaded through the control flow (phis where paths meet).
//    Out-of-bounds elements are the copy engine's zero fill. Not for a load
//    feeding a dot in a loop (unless `all`): the copy is waited for at once,
//    while a gather is what the pipeline issues stages ahead into a ring,
//    and tensor-copies fills that ring with bulk tensor copies where this
//    pass's rules hold (`rings` says it runs, for the remarks).
//  - otherwise a masked gather or scatter over the block's rows (the 2-D
//    tile [b0 * .. * b(n-1), bn]): per dimension the indices, a bound check
//    0 <= index < extent and the index times the stride, broadcast and
//    summed into a pointer tile; masked_load with zeros, or masked_store.
//    Every target runs it, with any alignment. A desc_store's scatter is
//    read back as the descriptor's box by tensor-stores (TensorStores.h),
//    which makes an epilogue's last store a bulk tensor store under the
//    rules it applies to every store (it runs after the wgmma passes).
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
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/PassManager.h"
#include "tritonc/transform/Passes.h"

#include <map>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

bool feedsDot(const Instruction &I);

class Rewriter {
public:
  Rewriter(Function &F, AnalysisManager &AM, bool TensorCopies, bool CopiesFeedingDots,
           bool RingCopies)
      : F(F), AM(AM), M(*F.getParent()), TensorCopies(TensorCopies),
        CopiesFeedingDots(CopiesFeedingDots), RingCopies(RingCopies) {}
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
  /// Along dimension K of Desc, for the 1-D index tile Index (relative to
  /// At's offset K): the element offsets and the bound check, as i64 and i1
  /// tiles of Index's shape.
  struct Line {
    Value *Offset, *InBounds;
  };
  Line gatherLine(Instruction &At, Instruction &Desc, unsigned K, Value *Index);
  void lowerToGather(Instruction &Access, Instruction &Desc);
  void lowerToTensorCopy(Instruction &Access);
  /// Says what becomes of Access: a bulk tensor copy, a gather for the
  /// rings (InLoopDot: it feeds a dot in a loop), or a gather or scatter
  /// because of Why.
  void remark(const Instruction &Access, const std::string &Why, bool InLoopDot);
  /// Gives every mbarrier_wait of the copies its phase (one counter).
  void threadPhases();

  Function &F;
  AnalysisManager &AM;
  Module &M;
  bool TensorCopies;
  /// Also copy loads that feed a dot in a loop (option `all`).
  bool CopiesFeedingDots;
  /// tensor-copies runs later and fills the rings of gathers (option
  /// `rings`): only for the remarks.
  bool RingCopies;
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
  // tensor-stores, which runs with tensor-copies, reads the box back from
  // the scatter and decides with the rules of every epilogue store.
  if (Access.getOpcode() != Opcode::DescLoad)
    return RingCopies ? "stores are lowered as masked stores, which tensor-stores writes with a "
                        "bulk tensor store where it can"
                      : "stores are lowered as masked stores";
  if (Desc.getType()->getRank() < 2)
    return "a 1-D block (the copies land in 2-D slots)";
  if (!AI) {
    AI = std::make_unique<analysis::AxisInfoAnalysis>(F);
    AA = std::make_unique<analysis::AffineAccessAnalysis>(F, AM.get<DominatorTree>(F));
  }
  TensorDescriptorBuilder TB(F, *AA, *AI, AM.get<DominatorTree>(F));
  unsigned Rank = Desc.getType()->getRank();
  std::vector<Value *> Extents, Strides;
  for (unsigned K = 0; K < Rank; ++K) {
    Extents.push_back(Desc.getOperand(1 + K));
    Strides.push_back(Desc.getOperand(1 + Rank + K));
  }
  const Type *Elem = Desc.getType()->getElementType();
  if (std::string Why = TB.whyNotBoxCopy(Desc.getOperand(0), Extents, Strides, Elem,
                                         slotTypeOf(Desc.getType()), printOperand(Desc));
      !Why.empty())
    return Why;
  return TB.whyNotAlignedBoxStart(Access.getOperand(Access.getNumOperands() - 1),
                                  Elem->getScalarSizeInBytes());
}

/// Whether I's value reaches an operand of a dot (through reshapes and
/// transpositions).
bool feedsDot(const Instruction &I) {
  for (const Instruction *U : I.users()) {
    Opcode Op = U->getOpcode();
    if (Op == Opcode::Dot || ((Op == Opcode::Reshape || Op == Opcode::Trans) && feedsDot(*U)))
      return true;
  }
  return false;
}

/// The only user of Access when it is a reshape to Shape, else null.
static Instruction *onlyReshapeTo(Instruction &Access, const Shape &S) {
  if (Access.users().size() != 1)
    return nullptr;
  Instruction *U = Access.users()[0];
  return U->getOpcode() == Opcode::Reshape && U->getType()->getShape() == S ? U : nullptr;
}

Rewriter::Line Rewriter::gatherLine(Instruction &At, Instruction &Desc, unsigned K, Value *Index) {
  const Type *I64 = Type::getI64();
  Shape S = Index->getType()->getShape();
  Value *Start =
      insert(&At, Opcode::Splat, Type::getTile(Type::getI32(), S), {At.getOperand(1 + K)});
  Index = insert(&At, Opcode::Add, Type::getTile(Type::getI32(), S), {Start, Index});
  Value *Wide = insert(&At, Opcode::SExt, Type::getTile(I64, S), {Index});
  const Type *Bool = Type::getTile(Type::getI1(), S);
  auto Compare = [&](CmpPredicate P, Value *Bound) {
    if (Bound->getType() != I64)
      Bound = insert(&At, Opcode::SExt, I64, {Bound});
    Value *Splat = insert(&At, Opcode::Splat, Type::getTile(I64, S), {Bound});
    Instruction *C = insert(&At, Opcode::ICmp, Bool, {Wide, Splat});
    C->Predicate = P;
    return C;
  };
  Value *InBounds = insert(&At, Opcode::And, Bool,
                           {Compare(CmpPredicate::SGE, M.getInt(I64, 0)),
                            Compare(CmpPredicate::SLT, Desc.getOperand(1 + K))});
  unsigned Rank = Desc.getType()->getRank();
  Value *Stride =
      insert(&At, Opcode::Splat, Type::getTile(I64, S), {Desc.getOperand(1 + Rank + K)});
  return {insert(&At, Opcode::Mul, Type::getTile(I64, S), {Wide, Stride}), InBounds};
}

void Rewriter::lowerToGather(Instruction &Access, Instruction &Desc) {
  // The block as the 2-D tile of its rows [b0 * .. * b(n-1), bn]: the outer
  // dimensions' indices are functions of the row number r (dimension k's is
  // r / (b(k+1) * .. * b(n-1)) % bk), so each row has one offset and one
  // bound check, the last dimension's contiguous run is the columns, and a
  // `reshape` of a block to its rows (a convolution's operand) is the load
  // itself, which the pipeline can then issue ahead like any load.
  const Type *DT = Desc.getType();
  const Shape &Block = DT->getShape();
  unsigned Rank = DT->getRank();
  const Type *Elem = DT->getElementType();
  const Type *I32 = Type::getI32(), *I64 = Type::getI64(), *I1 = Type::getI1();
  int64_t Rows = 1;
  for (unsigned K = 0; K + 1 < Rank; ++K)
    Rows *= Block[K];
  int64_t Cols = Block.back();
  Shape Flat = Rank == 1 ? Shape{Cols} : Shape{Rows, Cols};
  auto Range = [&](int64_t N) {
    Instruction *R = insert(&Access, Opcode::MakeRange, Type::getTile(I32, {N}), {});
    R->RangeStart = 0;
    R->RangeEnd = N;
    return R;
  };
  auto Spread = [&](Value *V, const Type *Scalar, Shape Unit) -> Value * {
    if (Rank == 1)
      return V;
    Value *R = insert(&Access, Opcode::Reshape, Type::getTile(Scalar, Unit), {V});
    return insert(&Access, Opcode::Broadcast, Type::getTile(Scalar, Flat), {R});
  };
  Line Col = gatherLine(Access, Desc, Rank - 1, Range(Cols));
  Value *Offsets = Spread(Col.Offset, I64, {1, Cols});
  Value *Mask = Spread(Col.InBounds, I1, {1, Cols});
  if (Rank > 1) {
    Value *Row = Range(Rows), *RowOffset = nullptr, *RowMask = nullptr;
    int64_t Inner = Rows;
    for (unsigned K = 0; K + 1 < Rank; ++K) {
      Inner /= Block[K];
      Value *Index = Row;
      const Type *RowT = Type::getTile(I32, {Rows});
      if (Inner > 1)
        Index = insert(&Access, Opcode::UDiv, RowT,
                       {Index, insert(&Access, Opcode::Splat, RowT, {M.getInt(I32, Inner)})});
      if (K > 0)
        Index = insert(&Access, Opcode::URem, RowT,
                       {Index, insert(&Access, Opcode::Splat, RowT, {M.getInt(I32, Block[K])})});
      Line L = gatherLine(Access, Desc, K, Index);
      RowOffset = RowOffset
                      ? insert(&Access, Opcode::Add, L.Offset->getType(), {RowOffset, L.Offset})
                      : L.Offset;
      RowMask = RowMask ? insert(&Access, Opcode::And, L.InBounds->getType(), {RowMask, L.InBounds})
                        : L.InBounds;
    }
    Offsets = insert(&Access, Opcode::Add, Type::getTile(I64, Flat),
                     {Spread(RowOffset, I64, {Rows, 1}), Offsets});
    Mask = insert(&Access, Opcode::And, Type::getTile(I1, Flat),
                  {Spread(RowMask, I1, {Rows, 1}), Mask});
  }
  const Type *PtrTile = Type::getTile(Type::getPointer(Elem), Flat);
  Value *Bases = insert(&Access, Opcode::Splat, PtrTile, {Desc.getOperand(0)});
  Value *Pointers = insert(&Access, Opcode::GEP, PtrTile, {Bases, Offsets});
  const Type *FlatT = Type::getTile(Elem, Flat);
  if (Access.getOpcode() == Opcode::DescLoad) {
    Constant *Zero = Elem->isFloatOrFloatTile() ? M.getFloat(Elem, 0.0) : M.getInt(Elem, 0);
    Value *Zeros = insert(&Access, Opcode::Splat, FlatT, {Zero});
    Instruction *Load = insert(&Access, Opcode::MaskedLoad, FlatT, {Pointers, Mask, Zeros});
    if (Instruction *User = onlyReshapeTo(Access, Flat)) {
      Load->setName(User->getName());
      User->replaceAllUsesWith(Load);
      User->eraseFromParent();
    } else {
      Load->setName(Access.getName());
      Value *Tile = FlatT == Access.getType()
                        ? Load
                        : insert(&Access, Opcode::Reshape, Access.getType(), {Load});
      Access.replaceAllUsesWith(Tile);
    }
  } else {
    // A value reshaped from the rows' shape is stored from that tile.
    Value *V = Access.getOperand(1 + Rank);
    Instruction *From = asInstruction(V);
    if (V->getType() != FlatT)
      V = From && From->getOpcode() == Opcode::Reshape && From->getOperand(0)->getType() == FlatT
              ? From->getOperand(0)
              : insert(&Access, Opcode::Reshape, FlatT, {V});
    insert(&Access, Opcode::MaskedStore, Type::getVoid(), {Pointers, V, Mask});
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
  if (Instruction *User =
          Rows != Access.getType() ? onlyReshapeTo(Access, Rows->getShape()) : nullptr) {
    // The block reshaped to its rows is what the slot holds.
    Tile->setName(User->getName());
    User->replaceAllUsesWith(Tile);
    User->eraseFromParent();
  } else {
    if (Rows != Access.getType())
      Tile = insert(&Access, Opcode::Reshape, Access.getType(), {Tile});
    Tile->setName(Access.getName());
  }
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

void Rewriter::remark(const Instruction &A, const std::string &Why, bool InLoopDot) {
  DiagnosticEngine *Diags = AM.diagnostics();
  if (!Diags)
    return;
  std::string Gather = std::string(opcodeName(A.getOpcode())) + " becomes a masked " +
                       (A.getOpcode() == Opcode::DescLoad ? "gather" : "scatter");
  if (InLoopDot && Why.empty() && RingCopies)
    Diags->remark(RemarkKind::Passed, "tensor-descs", SourceRange(A.Loc),
                  Gather + " for the pipeline's rings, which tensor-copies can fill with bulk "
                           "tensor copies (it feeds a dot in a loop)");
  else if (InLoopDot)
    Diags->remark(RemarkKind::Missed, "tensor-descs", SourceRange(A.Loc),
                  Gather +
                      " for the pipeline's cp.async rings, not ring-copied by bulk tensor "
                      "copies (it feeds a dot in a loop): " +
                      (Why.empty() ? std::string("tensor-copies does not run (the back end runs "
                                                 "it on sm_90a with TMA on)")
                                   : Why));
  else
    Diags->remark(Why.empty() ? RemarkKind::Passed : RemarkKind::Missed, "tensor-descs",
                  SourceRange(A.Loc),
                  Why.empty() ? std::string("desc_load becomes a bulk tensor copy")
                              : Gather + ", not a bulk tensor copy: " + Why);
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
    // A load feeding a dot in a loop is a gather either way: a bulk tensor
    // copy here would be waited for at once, while the pipeline issues the
    // gather stages ahead into a ring, whose fills tensor-copies turns back
    // into bulk tensor copies (BoxGathers.h).
    bool InLoopDot = A->getOpcode() == Opcode::DescLoad && !CopiesFeedingDots && feedsDot(*A) &&
                     AM.get<LoopInfo>(F).getLoopFor(A->getParent());
    remark(*A, Why, InLoopDot);
    if (Why.empty() && !InLoopDot)
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
  LowerTensorDescsPass(bool TensorCopies, bool CopiesFeedingDots, bool RingCopies)
      : TensorCopies(TensorCopies), CopiesFeedingDots(CopiesFeedingDots), RingCopies(RingCopies) {}
  const char *name() const override { return "lower-tensor-descs"; }
  bool run(Function &F, AnalysisManager &AM) override {
    return Rewriter(F, AM, TensorCopies, CopiesFeedingDots, RingCopies).run();
  }

private:
  bool TensorCopies, CopiesFeedingDots, RingCopies;
};

} // namespace

std::unique_ptr<Pass> createLowerTensorDescsPass() {
  return std::make_unique<LowerTensorDescsPass>(false, false, false);
}

std::unique_ptr<Pass> createTensorDescLoweringPass(bool TensorCopies, bool CopiesFeedingDots,
                                                   bool RingCopies) {
  return std::make_unique<LowerTensorDescsPass>(TensorCopies, CopiesFeedingDots, RingCopies);
}

} // namespace tritonc::transform
