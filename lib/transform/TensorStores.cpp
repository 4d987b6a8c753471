//===- TensorStores.cpp - Epilogue stores as bulk tensor stores -----------===//
//
// See TensorStores.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/TensorStores.h"

#include "BoxGathers.h"
#include "TensorDescriptors.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>

namespace tritonc::transform {

using namespace ir;
using analysis::TensorAccess;

namespace {

bool isGenericGlobalWrite(const Instruction &I) {
  switch (I.getOpcode()) {
  case Opcode::Store:
  case Opcode::MaskedStore:
  case Opcode::AtomicRMW:
  case Opcode::AtomicCAS:
    return true;
  default:
    return false;
  }
}

/// Why Store, which completes asynchronously, may not be a bulk tensor
/// store, or "" (then AfterGlobalWrites says whether threads may write
/// global memory before it).
std::string whyNotLast(const Instruction &Store, bool &AfterGlobalWrites);

/// The slot a tile of T is staged in: rows swizzled in the hardware mode of
/// their width, wider rows in column blocks of the 128-byte mode (whole
/// 8-row patterns), else plain rows.
const Type *stagingSlotType(const Type *T) {
  const Type *Elem = T->getScalarType();
  int64_t RowBytes = T->getShape()[1] * Elem->getScalarSizeInBytes();
  int32_t Swizzle = RowBytes == 32 || RowBytes == 64 || RowBytes == 128 ? int32_t(RowBytes) : 0;
  if (RowBytes > 128 && RowBytes % 128 == 0 && T->getShape()[0] % 8 == 0)
    Swizzle = 128;
  return Type::getSharedBuffer(Elem, T->getShape(), Layout::getSharedSwizzle(Swizzle, {1, 0}), 1);
}

/// Where a store writes: the tensor-map form of its pointers and mask, or
/// the box of a tensor descriptor that lower-tensor-descs wrote out as a
/// scatter (Box set; its row index divides, which the affine form lacks).
struct StoreForm {
  TensorAccess Map;
  std::optional<BoxGather> Box;
};

class StoreRewriter {
public:
  StoreRewriter(Function &F, TensorDescriptorBuilder &TD, analysis::AffineAccessAnalysis &AA)
      : F(F), TD(TD), AA(AA), EntryTop(F.getEntryBlock()->instructions().front().get()) {}

  /// Why Store cannot become a bulk tensor store, or "" (then its form is in
  /// Form, and AfterGlobalWrites says whether threads may write global
  /// memory before it).
  std::string check(Instruction &Store, StoreForm &Form, bool &AfterGlobalWrites);
  void rewrite(Instruction &Store, const StoreForm &Form, bool AfterGlobalWrites);

private:
  /// Why the box G a desc_store's scatter writes cannot be stored by the
  /// copy engine, or "".
  std::string checkBox(const Instruction &Store, const BoxGather &G);
  /// The descriptor (in the entry block) and coordinates of Form's store.
  std::pair<Instruction *, std::vector<Value *>> tensorMap(Instruction &Store,
                                                           const StoreForm &Form);
  Instruction *insert(Instruction *Before, Opcode Op, const Type *T, std::vector<Value *> Ops,
                      const std::string &Name = "");

  Function &F;
  TensorDescriptorBuilder &TD;
  analysis::AffineAccessAnalysis &AA;
  Instruction *EntryTop;
};

std::string StoreRewriter::checkBox(const Instruction &Store, const BoxGather &G) {
  const Type *T = Store.getOperand(1)->getType();
  const Type *Elem = T->getScalarType();
  if (G.Transposed)
    return "the scatter writes a transposed box";
  // The rules of lower-tensor-descs' and tensor-copies' boxes (a pointer
  // parameter, 16-byte aligned base and outer strides, the innermost
  // coordinate a multiple of 16 bytes, a slot the engine reads), and the
  // store's own: the row extent a multiple of 16 bytes, as below.
  if (std::string Why = TD.whyNotBoxCopy(G.Base, G.Extents, G.Strides, Elem, stagingSlotType(T),
                                         "the descriptor of " + printOperand(*G.Base));
      !Why.empty())
    return Why;
  if (std::string Why = TD.whyNotAlignedBoxStart(G.Coords.back(), Elem->getScalarSizeInBytes());
      !Why.empty())
    return Why;
  std::optional<analysis::AffineTile> Row = AA.affineOf(G.Extents.back());
  if (TD.knownPow2Divisor(Row->Offset) * Elem->getScalarSizeInBytes() % 16 != 0)
    return "the row extent " + printOperand(*G.Extents.back()) +
           " is not known to be a multiple of 16 bytes (the engine writes whole 16-byte pieces "
           "of a row)";
  return "";
}

std::string StoreRewriter::check(Instruction &Store, StoreForm &Form, bool &AfterGlobalWrites) {
  const Type *T = Store.getOperand(1)->getType();
  const Type *Elem = T->getScalarType();
  if (Elem->isPointerOrPointerTile() || Elem->getScalarSizeInBytes() < 2)
    return "the copy engine stores elements of 2, 4 or 8 bytes, not " + Elem->str();
  std::string Why;
  std::optional<TensorAccess> TA = AA.tensorAccessOf(Store, &Why);
  // A desc_store's scatter: its tensor map is the descriptor's, read back
  // from the scatter here rather than stored by lower-tensor-descs, which
  // runs before the pipeline and the wgmma passes, so that this pass's
  // rules (the last access, the fences, the slot over the rings) decide
  // for every epilogue store alike.
  if (!TA && Store.getOpcode() == Opcode::MaskedStore)
    if (std::optional<BoxGather> G = matchBoxGather(Store.getOperand(0), Store.getOperand(2))) {
      if (std::string Why = checkBox(Store, *G); !Why.empty())
        return "it stores a box of a tensor descriptor, but " + Why;
      Form.Box = std::move(*G);
      return whyNotLast(Store, AfterGlobalWrites);
    }
  if (!TA)
    return Why;
  if (TA->UnitDim != 1)
    return "the tile is not contiguous along its last dimension";
  // Both bounded: no coordinate takes what is left of the address (see
  // TensorDescriptorBuilder::whyMayBeNegative, which tensor-copies checks).
  if (!TA->Bound[0] || !TA->Bound[1])
    return "the mask does not bound both dimensions by an extent (a store map needs both)";
  unsigned ElemBytes = Elem->getScalarSizeInBytes();
  if (TD.knownPow2Divisor(*TA->Bound[1]) * ElemBytes % 16 != 0)
    return "the row extent " + AA.str(*TA->Bound[1]) +
           " is not known to be a multiple of 16 bytes (the engine writes whole 16-byte pieces "
           "of a row)";
  if (std::string Why = TD.whyNotAligned(*TA, ElemBytes); !Why.empty())
    return Why;
  if (std::string Why = tensorCopySlotProblem(stagingSlotType(T)); !Why.empty())
    return "the tile cannot be staged in one slot of the copy engine: " + Why;
  if (!TD.availableAt(*TA, Store))
    return "the box's coordinates use values that are not scalars available at the store";
  Form.Map = std::move(*TA);
  return whyNotLast(Store, AfterGlobalWrites);
}

std::string whyNotLast(const Instruction &Store, bool &AfterGlobalWrites) {
  std::vector<const Instruction *> After = instructionsAround(Store, /*Forward=*/true);
  // Again, its slot would be written while one thread may still wait for
  // the engine to read it, and two bulk stores are not ordered.
  if (std::count(After.begin(), After.end(), &Store))
    return "the store may run again (it is in a loop)";
  // Bulk copies of GPU-level IR (an earlier run of this pass's tma_store)
  // access global memory too.
  auto BulkCopy = [](const Instruction &I) {
    Opcode Op = I.getOpcode();
    return Op == Opcode::TmaStore || Op == Opcode::TmaLoad || Op == Opcode::CpAsync;
  };
  for (const Instruction *I : After)
    if (I != &Store && (I->accessesMemory() || BulkCopy(*I)))
      return "memory may be accessed after the store, which would complete asynchronously "
             "(only an epilogue's last store becomes a bulk tensor store)";
  std::vector<const Instruction *> Before = instructionsAround(Store, /*Forward=*/false);
  AfterGlobalWrites = std::any_of(Before.begin(), Before.end(), [&](const Instruction *I) {
    return I != &Store && isGenericGlobalWrite(*I);
  });
  return "";
}

Instruction *StoreRewriter::insert(Instruction *Before, Opcode Op, const Type *T,
                                   std::vector<Value *> Ops, const std::string &Name) {
  auto I = Instruction::create(Op, T, std::move(Ops));
  I->Loc = Before->Loc;
  if (!Name.empty())
    I->setName(Name);
  BasicBlock *BB = Before->getParent();
  return BB->insert(BB->iteratorTo(Before), std::move(I));
}

std::pair<Instruction *, std::vector<Value *>> StoreRewriter::tensorMap(Instruction &Store,
                                                                        const StoreForm &Form) {
  const Type *T = Store.getOperand(1)->getType();
  // Nothing is written where an extent is not positive: the launcher maps
  // such a tensor onto a block of zeros, which the store must not touch.
  std::vector<Value *> Positive;
  auto IsPositive = [&](Value *Extent) {
    Instruction *Cmp = insert(&Store, Opcode::ICmp, Type::getI1(),
                              {Extent, F.getParent()->getInt(Extent->getType(), 0)});
    Cmp->Predicate = CmpPredicate::SGT;
    Positive.push_back(Cmp);
  };
  if (const std::optional<BoxGather> &G = Form.Box) {
    Instruction *Desc = TD.makeBoxDescriptor(G->Base, G->Extents, G->Strides, T->getScalarType(),
                                             G->Box, EntryTop, Store.Loc);
    for (Value *Extent : G->Extents)
      IsPositive(Extent);
    std::vector<Value *> Guards = G->Guards;
    Guards.insert(Guards.end(), Positive.begin(), Positive.end());
    return {Desc, TD.boxCoordinates(G->Coords, Guards, &Store)};
  }
  Instruction *Desc =
      TD.makeDescriptor(Form.Map, T->getScalarType(), T->getShape(), EntryTop, Store.Loc);
  for (const auto &Bound : Form.Map.Bound)
    IsPositive(TD.polyValue(*Bound, Type::getI32(), &Store));
  return {Desc, TD.coordinates(Form.Map, &Store, Positive)};
}

void StoreRewriter::rewrite(Instruction &Store, const StoreForm &Form, bool AfterGlobalWrites) {
  Value *Tile = Store.getOperand(1);
  const Type *T = Tile->getType();
  const Type *SlotTy = stagingSlotType(T);
  const Type *Void = Type::getVoid();
  std::string Name = Tile->getName().empty() ? "store" : Tile->getName();
  Instruction *Slot = insert(&Store, Opcode::SmemAlloc, SlotTy, {}, Name + ".stage");
  // allocate-shared may place the slot over buffers other threads read
  // last (a loop's rings): they are done once every thread got here.
  insert(&Store, Opcode::Barrier, Void, {});
  insert(&Store, Opcode::LocalStore, Void, {Slot, Tile});
  insert(&Store, Opcode::FenceProxyAsync, Void, {});
  // The threads' own global writes before it come first too (the engine
  // may write the same bytes): each thread fences them before the barrier.
  if (AfterGlobalWrites)
    insert(&Store, Opcode::FenceProxyAsyncGlobal, Void, {});
  insert(&Store, Opcode::Barrier, Void, {});
  auto [Desc, Coords] = tensorMap(Store, Form);
  Desc->setName(Name + ".desc");
  std::vector<Value *> Ops = {Desc};
  Ops.insert(Ops.end(), Coords.begin(), Coords.end());
  Ops.push_back(Slot);
  insert(&Store, Opcode::TmaStore, Void, Ops);
  insert(&Store, Opcode::TmaStoreWait, Void, {})->Count = 0;
  std::vector<Value *> Old(Store.operands().begin(), Store.operands().end());
  Store.dropAllOperands();
  Store.eraseFromParent();
  eraseTriviallyDead(Old);
}

} // namespace

bool TensorStoresPass::run(Function &F, AnalysisManager &AM) {
  if (F.blocks().empty())
    return false;
  DiagnosticEngine *Diags = AM.diagnostics();
  auto Remark = [&](RemarkKind Kind, const Instruction &At, std::string Message) {
    if (Diags)
      Diags->remark(Kind, "tensor-stores", SourceRange(At.Loc), std::move(Message));
  };
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  DominatorTree DT(F);
  analysis::AffineAccessAnalysis AA(F, DT);
  TensorDescriptorBuilder TD(F, AA, AI, DT);
  StoreRewriter RW(F, TD, AA);
  // Decide for every store on the IR as it came, then rewrite.
  struct Choice {
    Instruction *Store;
    StoreForm Form;
    bool AfterGlobalWrites;
  };
  std::vector<Choice> Chosen;
  for (auto &BB : F.blocks())
    for (auto &IP : BB->instructions()) {
      Instruction &I = *IP;
      if ((I.getOpcode() != Opcode::Store && I.getOpcode() != Opcode::MaskedStore) ||
          !I.getOperand(0)->getType()->isTile() || I.getOperand(0)->getType()->getRank() != 2)
        continue;
      StoreForm Form;
      bool AfterGlobalWrites = false;
      std::string Why = Keep ? Keep(I) : "";
      if (Why.empty())
        Why = RW.check(I, Form, AfterGlobalWrites);
      if (!Why.empty()) {
        Remark(RemarkKind::Missed, I, "this store is not a bulk tensor store (tma_store): " + Why);
        continue;
      }
      Chosen.push_back({&I, std::move(Form), AfterGlobalWrites});
    }
  for (auto &[Store, Form, AfterGlobalWrites] : Chosen) {
    const Type *T = Store->getOperand(1)->getType();
    int32_t Swizzle = stagingSlotType(T)->getLayout()->getSwizzleBytes();
    Remark(RemarkKind::Passed, *Store,
           "this store goes through a shared slot" +
               (Swizzle ? " (" + std::to_string(Swizzle) + "-byte swizzle)" : std::string()) +
               " and a bulk tensor store (tma_store)" +
               (Form.Box ? std::string(" of its tensor descriptor's box") : "") +
               (AfterGlobalWrites ? ", after a proxy fence of the global writes before it" : ""));
    RW.rewrite(*Store, Form, AfterGlobalWrites);
  }
  return !Chosen.empty();
}

std::unique_ptr<Pass> createTensorStoresPass() { return std::make_unique<TensorStoresPass>(); }

std::unique_ptr<Pass>
createTensorStoresPass(std::function<std::string(const ir::Instruction &Store)> Keep) {
  return std::make_unique<TensorStoresPass>(std::move(Keep));
}

} // namespace tritonc::transform
