//===- TensorStores.cpp - Epilogue stores as bulk tensor stores -----------===//
//
// See TensorStores.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/TensorStores.h"

#include "BoxGathers.h"
#include "SlotIndices.h"
#include "TensorDescriptors.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/analysis/PointerBase.h"
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

/// How a store's bulk tensor store is ordered with the program's other
/// global accesses (whyNotOrdered).
struct StoreOrder {
  /// Threads may write global memory before it (fence_proxy_async_global).
  bool AfterGlobalWrites = false;
  /// It may run again (it is in a loop): its staging waits for the
  /// previous run's store, and the loop's exits for the last one's reads.
  bool Repeats = false;
};

/// Why Store, which would write Base's tensor asynchronously, may not be a
/// bulk tensor store, or "" (then Order says how to order it).
std::string whyNotOrdered(const Instruction &Store, const Argument *Base, StoreOrder &Order);

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

/// The ring a fill (tma_load, cp_async) writes and the index of its slot;
/// {null, null} for other instructions.
std::pair<Instruction *, Value *> filledRingSlot(const Instruction &I) {
  if (I.getOpcode() != Opcode::TmaLoad && I.getOpcode() != Opcode::CpAsync)
    return {nullptr, nullptr};
  Value *Slot = I.getOperand(I.getOpcode() == Opcode::CpAsync ? 0 : I.getNumOperands() - 2);
  Instruction *S = asInstruction(Slot);
  if (!S || S->getOpcode() != Opcode::SmemSlot)
    return {nullptr, nullptr};
  Instruction *Ring = asInstruction(S->getOperand(0));
  if (!Ring || Ring->getOpcode() != Opcode::SmemAlloc || Ring->getType()->getNumSlots() < 2)
    return {nullptr, nullptr};
  return {Ring, S->getOperand(1)};
}

/// A store staged in ring slots that hold no data (see TensorStores.h):
/// the ring, the index of the last slot the prologue in the store's block
/// fills, and the tile's column pieces, one free slot each.
struct RingStaging {
  Instruction *Ring = nullptr;
  Value *LastFilled = nullptr;
  unsigned Pieces = 0;
};

/// Where a store writes: the tensor-map form of its pointers and mask, or
/// the box of a tensor descriptor that lower-tensor-descs wrote out as a
/// scatter (Box set; its row index divides, which the affine form lacks).
struct StoreForm {
  TensorAccess Map;
  std::optional<BoxGather> Box;
  StoreOrder Order;
  /// Staged in free ring slots instead of a slot of its own.
  std::optional<RingStaging> InRing;
};

class StoreRewriter {
public:
  StoreRewriter(Function &F, TensorDescriptorBuilder &TD, analysis::AffineAccessAnalysis &AA)
      : F(F), TD(TD), AA(AA), EntryTop(F.getEntryBlock()->instructions().front().get()) {}

  /// Why Store cannot become a bulk tensor store, or "" (then its form and
  /// order are in Form).
  std::string check(Instruction &Store, StoreForm &Form);
  void rewrite(Instruction &Store, const StoreForm &Form, const LoopInfo &LI);
  /// The free ring slots Store may be staged in, if any (TensorStores.h).
  std::optional<RingStaging> findRingStaging(Instruction &Store);

private:
  /// The column pieces of Store's tile staged in free slots of S.Ring and
  /// stored one by one, waited for before the ring's next fills.
  void stageInRing(Instruction &Store, const StoreForm &Form, const LoopInfo &LI);
  /// `tma_store_wait 0` at the top of each block of the outermost loop
  /// Store runs in that fills Ring: the next fill of a slot the store reads
  /// waits until the engine has read it.
  void waitBeforeFills(Instruction &Store, Instruction *Ring, const LoopInfo &LI);
  /// `tma_store_wait 0` at the exits of the outermost loop Store is in.
  void waitAtExits(Instruction &Store, const LoopInfo &LI);
  /// Why the box G a desc_store's scatter writes cannot be stored by the
  /// copy engine, or "".
  std::string checkBox(const Instruction &Store, const BoxGather &G);
  /// The descriptor (in the entry block) and coordinates of Form's store.
  std::pair<Instruction *, std::vector<Value *>> tensorMap(Instruction &Store,
                                                           const StoreForm &Form, const Shape &Box);
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

std::string StoreRewriter::check(Instruction &Store, StoreForm &Form) {
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
      return whyNotOrdered(Store, Form.Box->Base, Form.Order);
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
  return whyNotOrdered(Store, Form.Map.Base, Form.Order);
}

/// The pointer parameter through which I, an instruction that accesses
/// global memory, does so; null when unknown or I touches no global memory
/// (Global false).
const Argument *globalBase(const Instruction &I, bool &Global) {
  Global = true;
  switch (I.getOpcode()) {
  case Opcode::Load:
  case Opcode::MaskedLoad:
  case Opcode::Store:
  case Opcode::MaskedStore:
  case Opcode::AtomicRMW:
  case Opcode::AtomicCAS:
    return analysis::pointerBase(I.getOperand(0));
  case Opcode::CpAsync:
    return analysis::pointerBase(I.getOperand(1));
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
  case Opcode::DescLoad:
  case Opcode::DescStore: {
    const Instruction *Desc = asInstruction(I.getOperand(0));
    return Desc && Desc->getOpcode() == Opcode::MakeTensorDesc
               ? analysis::pointerBase(Desc->getOperand(0))
               : nullptr;
  }
  default:
    Global = false;
    return nullptr;
  }
}

// A bulk tensor store completes asynchronously: tma_store_wait (without
// `writes`) waits only until the engine has read the slot, and the engine
// writes global memory later, unordered with the threads' accesses and with
// other bulk copies. So no access that may run after the store may touch
// the bytes it writes: every global access after it (in its loop, the
// following iterations' too, and after the loop) must go through another
// `restrict` (noalias) parameter than Base, itself `restrict`
// (parametersMayOverlap). The one exception is the store itself run again
// (a persistent kernel's epilogue, tile after tile): its staging starts
// with `tma_store_wait 0 writes`, so the previous run's writes are done
// before the next run's store (thread 0 issues and waits for both) and its
// slot is read before the threads overwrite it.
std::string whyNotOrdered(const Instruction &Store, const Argument *Base, StoreOrder &Order) {
  std::vector<const Instruction *> After = instructionsAround(Store, /*Forward=*/true);
  Order.Repeats = std::count(After.begin(), After.end(), &Store) != 0;
  for (const Instruction *I : After) {
    bool Global = false;
    const Argument *Other = globalBase(*I, Global);
    if (I == &Store || !Global || !analysis::parametersMayOverlap(Base, Other))
      continue;
    return std::string("memory that may overlap the stored tensor may be accessed after the "
                       "store, whose bulk tensor store would complete asynchronously (") +
           ir::opcodeName(I->getOpcode()) + " through " +
           (Other ? printOperand(*Other) : std::string("a pointer of unknown origin")) +
           "; later accesses must go through other `restrict` (noalias) parameters)";
  }
  std::vector<const Instruction *> Before = instructionsAround(Store, /*Forward=*/false);
  Order.AfterGlobalWrites = std::any_of(Before.begin(), Before.end(), [&](const Instruction *I) {
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

std::pair<Instruction *, std::vector<Value *>>
StoreRewriter::tensorMap(Instruction &Store, const StoreForm &Form, const Shape &Box) {
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
  Instruction *Desc = TD.makeDescriptor(Form.Map, T->getScalarType(), Box, EntryTop, Store.Loc);
  for (const auto &Bound : Form.Map.Bound)
    IsPositive(TD.polyValue(*Bound, Type::getI32(), &Store));
  return {Desc, TD.coordinates(Form.Map, &Store, Positive)};
}

void StoreRewriter::rewrite(Instruction &Store, const StoreForm &Form, const LoopInfo &LI) {
  if (Form.InRing)
    return stageInRing(Store, Form, LI);
  Value *Tile = Store.getOperand(1);
  const Type *T = Tile->getType();
  const Type *SlotTy = stagingSlotType(T);
  const Type *Void = Type::getVoid();
  std::string Name = Tile->getName().empty() ? "store" : Tile->getName();
  Instruction *Slot = insert(&Store, Opcode::SmemAlloc, SlotTy, {}, Name + ".stage");
  // Run again, the store first waits for its previous run: the engine must
  // have read the slot before the threads overwrite it, and written global
  // memory before this run's store may write the same bytes (whyNotOrdered).
  // Issued a whole tile earlier, both are long done.
  if (Form.Order.Repeats) {
    Instruction *Wait = insert(&Store, Opcode::TmaStoreWait, Void, {});
    Wait->Count = 0;
    Wait->WaitsForWrites = true;
  }
  // allocate-shared may place the slot over buffers other threads read
  // last (a loop's rings): they are done once every thread got here. Thread
  // 0 alone waited for the previous run's store: the others pass this
  // barrier before they write the slot.
  insert(&Store, Opcode::Barrier, Void, {});
  insert(&Store, Opcode::LocalStore, Void, {Slot, Tile});
  insert(&Store, Opcode::FenceProxyAsync, Void, {});
  // The threads' own global writes before it come first too (the engine
  // may write the same bytes): each thread fences them before the barrier.
  if (Form.Order.AfterGlobalWrites)
    insert(&Store, Opcode::FenceProxyAsyncGlobal, Void, {});
  insert(&Store, Opcode::Barrier, Void, {});
  auto [Desc, Coords] = tensorMap(Store, Form, T->getShape());
  Desc->setName(Name + ".desc");
  std::vector<Value *> Ops = {Desc};
  Ops.insert(Ops.end(), Coords.begin(), Coords.end());
  Ops.push_back(Slot);
  insert(&Store, Opcode::TmaStore, Void, Ops);
  if (Form.Order.Repeats)
    waitAtExits(Store, LI);
  else
    insert(&Store, Opcode::TmaStoreWait, Void, {})->Count = 0;
  std::vector<Value *> Old(Store.operands().begin(), Store.operands().end());
  Store.dropAllOperands();
  Store.eraseFromParent();
  eraseTriviallyDead(Old);
}

std::optional<RingStaging> StoreRewriter::findRingStaging(Instruction &Store) {
  // The fills of each ring in the store's block before it (a prologue
  // issued a tile ahead, after the inner loop's drain), in order.
  BasicBlock *BB = Store.getParent();
  std::map<Instruction *, std::vector<Value *>> Fills;
  std::vector<Instruction *> Rings; // in the order of their first fills
  std::set<Instruction *> UsedAfter;
  bool Before = true, WgmmasRetired = false;
  for (auto &IP : BB->instructions()) {
    if (IP.get() == &Store) {
      Before = false;
      continue;
    }
    if (IP->getOpcode() == Opcode::WgmmaWait && IP->Count == 0 && Fills.empty())
      WgmmasRetired = true;
    for (Value *Op : IP->operands())
      if (Instruction *S = asInstruction(Op); S && S->getOpcode() == Opcode::SmemSlot && !Before)
        UsedAfter.insert(asInstruction(S->getOperand(0)));
    if (auto [Ring, Index] = filledRingSlot(*IP); Ring && Before) {
      if (!Fills.count(Ring))
        Rings.push_back(Ring);
      Fills[Ring].push_back(Index);
    }
  }
  // The slots the K loop's wgmmas read are free once their groups retired:
  // waited for here, or each in its own block (mma-in-flight, later, keeps
  // one group in flight only where the loop's exits wait for it).
  for (const auto &B : BB->getParent()->blocks()) {
    bool Pending = false;
    for (const auto &I : B->instructions()) {
      if (I->getOpcode() == Opcode::Wgmma)
        Pending = true;
      else if (I->getOpcode() == Opcode::WgmmaWait && I->Count == 0)
        Pending = false;
    }
    if (Pending && !WgmmasRetired)
      return std::nullopt;
  }
  const Type *T = Store.getOperand(1)->getType();
  std::optional<RingStaging> Best;
  uint64_t BestBytes = 0;
  for (Instruction *Ring : Rings) {
    const std::vector<Value *> &Indices = Fills[Ring];
    int64_t Slots = Ring->getType()->getNumSlots();
    if (UsedAfter.count(Ring) || static_cast<int64_t>(Indices.size()) >= Slots)
      continue;
    bool Consecutive = true;
    for (size_t K = 1; K < Indices.size(); ++K)
      Consecutive &= previousRingIndex(Indices[K], Slots) == Indices[K - 1];
    unsigned Free = static_cast<unsigned>(Slots - static_cast<int64_t>(Indices.size()));
    unsigned Pieces = ringStagingPieces(T, Ring->getType(), Free);
    uint64_t Bytes = analysis::sharedSlotStride(Ring->getType());
    if (Consecutive && Pieces && Bytes > BestBytes) {
      Best = RingStaging{Ring, Indices.back(), Pieces};
      BestBytes = Bytes;
    }
  }
  return Best;
}

void StoreRewriter::stageInRing(Instruction &Store, const StoreForm &Form, const LoopInfo &LI) {
  const RingStaging &S = *Form.InRing;
  Value *Tile = Store.getOperand(1);
  const Type *T = Tile->getType();
  Shape Piece = {T->getShape()[0], T->getShape()[1] / S.Pieces};
  const Type *PieceTy = Type::getTile(T->getScalarType(), Piece);
  const Type *SlotTy = stagingSlotType(PieceTy);
  const Type *Void = Type::getVoid();
  const Type *I32 = Type::getI32();
  Module *M = F.getParent();
  std::string Name = Tile->getName().empty() ? "store" : Tile->getName();
  int64_t Slots = S.Ring->getType()->getNumSlots();
  // The slots after the last one the prologue fills, wrapping around. The
  // previous run's store was waited for (its reads) before the ring's
  // fills since, and the wgmmas that read these slots last are retired:
  // what barrier the writes still need, against the other warps' reads
  // of the slots, is insert-barriers' (the one before this block's fills).
  std::vector<Instruction *> Views;
  Value *Index = S.LastFilled;
  for (unsigned K = 0; K < S.Pieces; ++K) {
    Instruction *Next = insert(&Store, Opcode::Add, I32, {Index, M->getInt(I32, 1)});
    Instruction *Wraps = insert(&Store, Opcode::ICmp, Type::getI1(), {Next, M->getInt(I32, Slots)});
    Wraps->Predicate = CmpPredicate::EQ;
    Index = insert(&Store, Opcode::Select, I32, {Wraps, M->getInt(I32, 0), Next});
    Instruction *View = insert(&Store, Opcode::SmemSlot, SlotTy, {S.Ring, Index}, Name + ".stage");
    Instruction *Part = insert(&Store, Opcode::ExtractSlice, PieceTy,
                               {Tile, M->getInt(I32, 0), M->getInt(I32, K * Piece[1])});
    insert(&Store, Opcode::LocalStore, Void, {View, Part});
    Views.push_back(View);
  }
  insert(&Store, Opcode::FenceProxyAsync, Void, {});
  if (Form.Order.AfterGlobalWrites)
    insert(&Store, Opcode::FenceProxyAsyncGlobal, Void, {});
  insert(&Store, Opcode::Barrier, Void, {});
  auto [Desc, Coords] = tensorMap(Store, Form, Piece);
  Desc->setName(Name + ".desc");
  // Thread 0 issues the stores after the previous run's are written.
  insert(&Store, Opcode::TmaStoreWait, Void, {})->WaitsForWrites = true;
  for (unsigned K = 0; K < S.Pieces; ++K) {
    std::vector<Value *> Ops = {Desc};
    Ops.insert(Ops.end(), Coords.begin(), Coords.end());
    // Out of the tensor (a guard or an empty extent) stays out: the
    // coordinate's sentinel leaves room for a box's width.
    if (K)
      Ops.back() = insert(&Store, Opcode::Add, I32, {Coords.back(), M->getInt(I32, K * Piece[1])});
    Ops.push_back(Views[K]);
    insert(&Store, Opcode::TmaStore, Void, Ops);
  }
  waitBeforeFills(Store, S.Ring, LI);
  waitAtExits(Store, LI);
  std::vector<Value *> Old(Store.operands().begin(), Store.operands().end());
  Store.dropAllOperands();
  Store.eraseFromParent();
  eraseTriviallyDead(Old);
}

void StoreRewriter::waitBeforeFills(Instruction &Store, Instruction *Ring, const LoopInfo &LI) {
  const Loop *L = LI.getLoopFor(Store.getParent());
  while (L->getParentLoop())
    L = L->getParentLoop();
  for (BasicBlock *BB : L->blocks()) {
    bool Fills = std::any_of(BB->instructions().begin(), BB->instructions().end(),
                             [&](const auto &I) { return filledRingSlot(*I).first == Ring; });
    if (!Fills)
      continue;
    // At the top of the block: the barrier before its fills (which orders
    // them after the reads of every warp) then follows the wait as well,
    // so the fills need no barrier of their own.
    auto It = BB->instructions().begin();
    while ((*It)->getOpcode() == Opcode::Phi)
      ++It;
    auto Wait = Instruction::create(Opcode::TmaStoreWait, Type::getVoid(), {});
    Wait->Loc = Store.Loc;
    BB->insert(It, std::move(Wait));
  }
}

void StoreRewriter::waitAtExits(Instruction &Store, const LoopInfo &LI) {
  // The outermost loop the store runs in: its slot stays in use until the
  // last run's store has read it, which the program must wait for before
  // it ends (or reuses the bytes), and nothing after the loop accesses
  // what it writes (whyNotOrdered), so a wait for the reads is enough.
  const Loop *L = LI.getLoopFor(Store.getParent());
  while (L->getParentLoop())
    L = L->getParentLoop();
  for (BasicBlock *BB : L->blocks())
    for (BasicBlock *Exit : BB->successors()) {
      if (L->contains(Exit))
        continue;
      auto It = Exit->instructions().begin();
      while (It != Exit->instructions().end() && (*It)->getOpcode() == Opcode::Phi)
        ++It;
      // Several stores of the loop share one wait (it retires them all).
      if (It != Exit->instructions().end() && (*It)->getOpcode() == Opcode::TmaStoreWait &&
          (*It)->Count == 0)
        continue;
      auto Wait = Instruction::create(Opcode::TmaStoreWait, Type::getVoid(), {});
      Wait->Loc = Store.Loc;
      Exit->insert(It, std::move(Wait));
    }
}

} // namespace

std::string whyNotBulkTensorStore(Function &F, Instruction &Store, AnalysisManager &AM) {
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  DominatorTree DT(F);
  analysis::AffineAccessAnalysis AA(F, DT);
  TensorDescriptorBuilder TD(F, AA, AI, DT);
  StoreRewriter RW(F, TD, AA);
  StoreForm Form;
  if (std::string Why = RW.check(Store, Form); !Why.empty())
    return Why;
  return Form.Box ? "it stores a tensor descriptor's box, which is staged in a slot of its own"
                  : "";
}

unsigned ringStagingPieces(const Type *Tile, const Type *Ring, unsigned FreeSlots) {
  const Layout *RingL = Ring->getLayout();
  bool RingAtoms = RingL && RingL->hasSwizzleMode() && RingL->getSwizzleBytes() != 0 &&
                   analysis::sharedSlotStride(Ring) % 1024 == 0;
  uint64_t SlotBytes = static_cast<uint64_t>(Ring->getSlotTileType()->getNumElements()) *
                       Ring->getElementType()->getScalarSizeInBytes();
  if (Tile->getRank() != 2 || Ring->getElementType() != Tile->getScalarType())
    return 0;
  for (unsigned Pieces = 1; Pieces <= FreeSlots && Tile->getShape()[1] % Pieces == 0; Pieces *= 2) {
    const Type *Piece =
        Type::getTile(Tile->getScalarType(), {Tile->getShape()[0], Tile->getShape()[1] / Pieces});
    const Type *Slot = stagingSlotType(Piece);
    bool Swizzled = Slot->getLayout()->getSwizzleBytes() != 0;
    if (tensorCopySlotProblem(Slot).empty() && analysis::sharedBufferBytes(Slot) <= SlotBytes &&
        (!Swizzled || RingAtoms))
      return Pieces;
  }
  return 0;
}

std::string TensorStoresPass::overBudget(const Function &F, const Instruction &Store) const {
  if (!SharedBytes)
    return "";
  // Counted as if no two buffers shared bytes: in the loop they are all in
  // use (allocate-shared covers a loop whole).
  uint64_t Buffers = 0;
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::SmemAlloc)
        Buffers += analysis::sharedBufferBytes(I->getType());
  uint64_t Slot = analysis::sharedBufferBytes(stagingSlotType(Store.getOperand(1)->getType()));
  if (Buffers + Slot <= SharedBytes)
    return "";
  return "its staging slot (" + std::to_string(Slot) +
         " bytes) would be in use over the loop with the function's other shared buffers (" +
         std::to_string(Buffers) + " bytes), more than the " + std::to_string(SharedBytes) +
         " bytes of shared memory";
}

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
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  // Decide for every store on the IR as it came, then rewrite.
  std::vector<std::pair<Instruction *, StoreForm>> Chosen;
  for (auto &BB : F.blocks())
    for (auto &IP : BB->instructions()) {
      Instruction &I = *IP;
      if ((I.getOpcode() != Opcode::Store && I.getOpcode() != Opcode::MaskedStore) ||
          !I.getOperand(0)->getType()->isTile() || I.getOperand(0)->getType()->getRank() != 2)
        continue;
      StoreForm Form;
      std::string Why = RW.check(I, Form);
      // (A cycle that is no natural loop has no exits to wait at.)
      if (Why.empty() && Form.Order.Repeats && !LI.getLoopFor(I.getParent()))
        Why = "the store runs again in a cycle that is not a loop";
      // Over the budget with a slot of its own, a store after a prologue
      // issued a tile ahead may take ring slots that hold no data.
      if (Why.empty() && Form.Order.Repeats && !overBudget(F, I).empty()) {
        if (!Form.Box)
          Form.InRing = RW.findRingStaging(I);
        if (!Form.InRing)
          Why = overBudget(F, I) +
                ", and no ring has enough slots free under it for its column pieces";
      }
      if (!Why.empty()) {
        Remark(RemarkKind::Missed, I, "this store is not a bulk tensor store (tma_store): " + Why);
        continue;
      }
      Chosen.push_back({&I, std::move(Form)});
    }
  for (auto &[Store, Form] : Chosen) {
    const Type *T = Store->getOperand(1)->getType();
    int32_t Swizzle = stagingSlotType(T)->getLayout()->getSwizzleBytes();
    Remark(RemarkKind::Passed, *Store,
           "this store goes through a shared slot" +
               (Swizzle ? " (" + std::to_string(Swizzle) + "-byte swizzle)" : std::string()) +
               " and a bulk tensor store (tma_store)" +
               (Form.Box ? std::string(" of its tensor descriptor's box") : "") +
               (Form.Order.AfterGlobalWrites
                    ? ", after a proxy fence of the global writes before it"
                    : "") +
               (Form.Order.Repeats
                    ? "; in a loop, each run first waits for the previous run's store "
                      "(tma_store_wait 0 writes), the loop's exits for the last one's reads"
                    : "") +
               (Form.InRing ? "; staged in " + std::to_string(Form.InRing->Pieces) +
                                  " column piece" + (Form.InRing->Pieces > 1 ? "s" : "") +
                                  " in the slots of " + printOperand(*Form.InRing->Ring) +
                                  " its prologue leaves free, each store's reads waited for "
                                  "before the ring's next fills"
                            : ""));
    RW.rewrite(*Store, Form, LI);
  }
  return !Chosen.empty();
}

std::unique_ptr<Pass> createTensorStoresPass() { return std::make_unique<TensorStoresPass>(); }

std::unique_ptr<Pass> createTensorStoresPass(uint64_t SharedBytes) {
  return std::make_unique<TensorStoresPass>(SharedBytes);
}

} // namespace tritonc::transform
