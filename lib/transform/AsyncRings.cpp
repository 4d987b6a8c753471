//===- AsyncRings.cpp - Pipelined dot operands as async-copy rings --------===//
#include "tritonc/transform/AsyncRings.h"
#include "tritonc/transform/TensorCopies.h"
#include "tritonc/transform/TensorStores.h"

#include "BoxGathers.h"
#include "IterationValues.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The most slots a ring may have (docs/IR.md, "GPU types").
constexpr unsigned MaxSlots = 64;

bool isLoad(const Value *V) {
  const Instruction *I = asInstruction(const_cast<Value *>(V));
  return I && (I->getOpcode() == Opcode::Load || I->getOpcode() == Opcode::MaskedLoad);
}

/// One pipelined dot operand: the chain of phis `pipeline` made for it.
struct OperandChain {
  /// Q_0 .. Q_{D-1}.
  std::vector<Instruction *> Phis;
  /// I_0 .. I_{D-1}: the loads of iterations 0 .. D-1 in the preheader.
  std::vector<Instruction *> Initial;
  /// X: the load of iteration i + D at the end of the body.
  Instruction *Refill = nullptr;
  /// A prologue issued a tile ahead (TilePrefetch.cpp): I_j is loaded in
  /// the preheader of the loop around this one, for its first iteration,
  /// and N_j at the top of this loop's exit, its latch, for the next; the
  /// phi T_j of the outer header carries either to Q_j.
  std::vector<Instruction *> TilePhis, NextTile;
  const Layout *Shared = nullptr;
  Instruction *Ring = nullptr;
  /// The dot Q_0 feeds, as which operand, and whether through a `trans`.
  const Instruction *Dot = nullptr;
  unsigned OperandIdx = 0;
  bool ViaTrans = false;
  /// The ring holds the operand as the dot reads it, the transposition of
  /// the loaded tile (column-major slots; see transposesInRing).
  bool Transposed = false;
  /// Only tensor-copies' bulk tensor copies fill the ring: cp.async cannot
  /// copy its loads (see whyNotFilledInBulk).
  bool BulkOnly = false;
};

/// tensor-copies' answer about a ring (whyNotBulkTensorFills): its
/// prologue's loads, the next tile's, the refill, the ring's type and
/// whether the copies go through transposed pointers.
using BulkFillQuery = std::function<std::string(
    const std::vector<Instruction *> &Prologue, const std::vector<Instruction *> &NextTile,
    Instruction *Refill, const Type *RingTy, bool Transposed)>;

class RingBuilder {
public:
  /// WhyNotTensorStore: tensor-stores' answer about a store (Target's
  /// TensorStores).
  RingBuilder(const Loop &L, const analysis::AxisInfoAnalysis &AI, const AsyncRingsTarget *Target,
              const AssignLayoutsTarget *Dots, bool TransOperands,
              std::function<std::string(Instruction &Store)> WhyNotTensorStore,
              BulkFillQuery WhyNotBulkFills)
      : L(L), AI(AI), Target(Target), Dots(Dots), TransOperands(TransOperands),
        WhyNotTensorStore(std::move(WhyNotTensorStore)),
        WhyNotBulkFills(std::move(WhyNotBulkFills)), Header(L.getHeader()),
        M(*Header->getParent()->getParent()) {}

  /// Checks that the loop has the form `pipeline` leaves; returns why not.
  std::string analyze();
  const Instruction *culprit() const { return Culprit; }
  void rewrite();
  unsigned depth() const { return D; }
  unsigned slots() const { return D + 1 + ExtraSlots; }
  unsigned numRings() const { return static_cast<unsigned>(Chains.size()); }
  unsigned numBulkOnlyRings() const {
    return static_cast<unsigned>(std::count_if(Chains.begin(), Chains.end(),
                                               [](const OperandChain &C) { return C.BulkOnly; }));
  }

private:
  std::string collectChain(Instruction *Q0, const Instruction *Dot, unsigned OperandIdx,
                           bool ViaTrans);
  std::string collectTileAhead(OperandChain &C, unsigned J, Instruction *TilePhi);
  std::optional<analysis::DotPlan> planOf(const Instruction &Dot) const;
  bool runsOnFmaOrTF32(const OperandChain &C) const;
  const Layout *plainSlotLayout(const OperandChain &C) const;
  std::string checkTarget();
  /// Why tensor-stores will not stage Store, the exit's only tile store,
  /// in the slots the tile-ahead prologue leaves free, or "".
  std::string whyNotInFreeSlots(Instruction *Store, unsigned TileStores);
  std::string checkCopyable(Instruction *Load, const char *What);
  std::string whyNotFilledInBulk(OperandChain &C, const std::string &WhyNotCopied);
  const Type *ringType(const OperandChain &C) const;
  bool transposesInRing(const OperandChain &C) const;
  std::string refuse(const Instruction *At, std::string Why) {
    Culprit = At;
    return Why;
  }
  const Layout *chooseLayout(const Instruction *Load) const;
  Instruction *insertBefore(Instruction *Pos, std::unique_ptr<Instruction> I,
                            const std::string &Name = "", const Instruction *LocFrom = nullptr);
  Value *advanceModulo(Instruction *Index, Instruction *Pos);
  void copyInto(Instruction *Ring, Value *Slot, Instruction *Load, Instruction *Pos,
                bool Transposed);
  void eraseOldValues();

  const Loop &L;
  const analysis::AxisInfoAnalysis &AI;
  const AsyncRingsTarget *Target;
  const AssignLayoutsTarget *Dots;
  /// Every `trans` operand of a wgmma dot gets column-major slots, not only
  /// descriptor boxes (the pass's `trans` option; see transposesInRing).
  bool TransOperands;
  std::function<std::string(Instruction &Store)> WhyNotTensorStore;
  BulkFillQuery WhyNotBulkFills;
  BasicBlock *Header;
  BasicBlock *Preheader = nullptr, *Body = nullptr, *Exit = nullptr;
  /// Set when the prologue is issued a tile ahead: the preheader of the
  /// loop around this one, where the rings and the first tile's fills go.
  BasicBlock *OuterPreheader = nullptr;
  /// Whether the chains seen so far issue their prologue a tile ahead.
  std::optional<bool> TileAhead;
  Module &M;
  unsigned D = 0;
  /// One more slot per ring where several warpgroups keep wgmma groups in
  /// flight (mma-in-flight): the refill then overwrites the slot of
  /// iteration i - 2, which every warpgroup retired before the barrier.
  unsigned ExtraSlots = 0;
  std::vector<OperandChain> Chains;
  const Instruction *Culprit = nullptr;
};

std::string RingBuilder::analyze() {
  std::string Why;
  std::optional<SingleBlockLoop> Shape = singleBlockLoop(L, Why);
  if (!Shape)
    return Why;
  Preheader = Shape->Preheader;
  Body = Shape->Branch.Body;
  Exit = Shape->Branch.Exit;
  if (Instruction *Write = firstSideEffect(L, Body))
    return refuse(Write, "the loop writes memory or already has GPU-level operations");

  for (auto &I : Body->instructions()) {
    if (I->getOpcode() != Opcode::Dot)
      continue;
    for (unsigned K = 0; K < 2; ++K) {
      Value *Stripped = stripTransInLoop(L, I->getOperand(K));
      Instruction *VI = asInstruction(Stripped);
      if (!VI || !L.contains(VI))
        continue;
      if (isLoad(VI))
        return refuse(VI, "this dot operand is loaded in the iteration that uses it (run "
                          "`pipeline` first, or see its remark)");
      if (VI->getOpcode() != Opcode::Phi || VI->getParent() != Header)
        continue; // computed in registers: nothing to copy
      bool Seen = std::any_of(Chains.begin(), Chains.end(),
                              [&](const OperandChain &C) { return C.Phis[0] == VI; });
      if (!Seen)
        if (std::string Why = collectChain(VI, I.get(), K, Stripped != I->getOperand(K));
            !Why.empty())
          return Why;
    }
  }
  if (Chains.empty())
    return "no dot operand is carried in pipelined phis";
  if (D + 1 > MaxSlots)
    return "a ring would need more than " + std::to_string(MaxSlots) + " slots";
  for (OperandChain &C : Chains) {
    C.Shared = chooseLayout(C.Refill);
    if (transposesInRing(C)) {
      // The slot of the dot's operand: the loaded rows are its columns.
      std::vector<unsigned> Order = C.Shared->getOrder();
      for (unsigned &Dim : Order)
        Dim = 1 - Dim;
      C.Shared = Layout::getSharedSwizzle(C.Shared->getSwizzleBytes(), Order);
      C.Transposed = true;
    }
    if (runsOnFmaOrTF32(C))
      C.Shared = plainSlotLayout(C);
  }
  if (Dots && Dots->NumWarps > 4)
    for (const OperandChain &C : Chains)
      if (analysis::planDot(*C.Dot, Dots->NumWarps, Dots->HasMmaV2, Dots->AllowTF32, Dots->HasWgmma)
              .Kind == analysis::DotKind::Wgmma)
        ExtraSlots = 1;
  return Target ? checkTarget() : "";
}

/// Bytes between consecutive slots, as the back end places them
/// (LowerAsync.cpp): whole 1024-byte swizzle atoms for a swizzle mode.
uint64_t slotBytes(const Type *Tile, const Layout *Shared) {
  uint64_t Bytes = static_cast<uint64_t>(Tile->getNumElements()) * Tile->getScalarSizeInBytes();
  uint64_t Align = Shared->getSwizzleBytes() != 0 ? 1024 : 16;
  return (Bytes + Align - 1) / Align * Align;
}

/// The loops the back end hands over to this pass: those whose rings it
/// would fill with cp.async (see the header).
std::string RingBuilder::checkTarget() {
  uint64_t Bytes = 0;
  for (OperandChain &C : Chains) {
    analysis::DotPlan Plan = *planOf(*C.Dot);
    bool Plain = runsOnFmaOrTF32(C);
    if (C.ViaTrans && !C.Transposed)
      return refuse(C.Refill, "the operand reaches the dot through a `trans` (the `trans` "
                              "option rings it in column-major slots)");
    if (Plan.Kind == analysis::DotKind::Wgmma) {
      // A swizzle mode (rows wider than it are column blocks, docs/IR.md);
      // a wgmma operand has 16 rows or more per block, whole 8-row patterns.
      if (C.Shared->getSwizzleBytes() == 0)
        return refuse(C.Refill, "wgmma reads its operands from slots in a swizzle mode, and this "
                                "operand's contiguous rows are under 32 bytes");
      ExtraSlots = Target->NumWarps > 4 ? 1 : 0;
    } else if (!Plain && !C.Transposed && C.Shared->getOrder()[0] != 1)
      // A transposed operand's slot is read with or without ldmatrix's
      // `.trans`, as its order asks; the others take the row-major path.
      return refuse(C.Refill, "mma.sync reads its operands from row-major slots (ldmatrix), and "
                              "this operand's loads are contiguous along its first dimension");
    std::vector<Instruction *> Loads = C.Initial;
    Loads.insert(Loads.end(), C.NextTile.begin(), C.NextTile.end());
    Loads.push_back(C.Refill);
    for (Instruction *Load : Loads)
      if (std::string Why =
              Target->CopyFilter ? Target->CopyFilter(*Load, C.Shared, C.Transposed) : "";
          !Why.empty()) {
        if (std::string Still = whyNotFilledInBulk(C, Why); !Still.empty())
          return refuse(Load, Still);
        break;
      }
  }
  for (OperandChain &C : Chains)
    Bytes += slotBytes(C.Refill->getType(), C.Shared) * slots();
  // A tile ahead, the rings hold the next tile's first fills through the
  // epilogue: the shared memory the epilogue's stores take (a conversion
  // of the tile, or its staging slot) cannot lie over them.
  // Unless tensor-stores stages the tile in the slots the prologue leaves
  // free.
  if (OuterPreheader) {
    uint64_t Epilogue = 0;
    Instruction *Largest = nullptr;
    unsigned TileStores = 0;
    for (auto &I : Exit->instructions())
      if (I->getOpcode() == Opcode::Store || I->getOpcode() == Opcode::MaskedStore) {
        const Type *T = I->getOperand(1)->getType();
        uint64_t TileBytes = static_cast<uint64_t>(T->getNumElements()) * T->getScalarSizeInBytes();
        TileStores += T->isTile();
        if (T->isTile() && TileBytes > Epilogue) {
          Epilogue = TileBytes;
          Largest = I.get();
        }
      }
    if (Bytes + Epilogue > Target->RingBudget)
      if (std::string Why = whyNotInFreeSlots(Largest, TileStores); !Why.empty())
        return refuse(Chains[0].Dot,
                      "the rings would take " + std::to_string(Bytes / 1024) +
                          " KB of shared memory and, as the next tile's prologue is issued "
                          "above the epilogue, stay in use under its " +
                          std::to_string(Epilogue / 1024) + " KB tile: more than the " +
                          std::to_string(Target->RingBudget / 1024) +
                          " KB the back end gives rings, and " + Why);
  }
  if (Bytes > Target->RingBudget)
    return refuse(Chains[0].Dot, "the rings would take " + std::to_string(Bytes / 1024) +
                                     " KB of shared memory, more than the " +
                                     std::to_string(Target->RingBudget / 1024) +
                                     " KB the back end gives rings");
  return "";
}

/// The ring C's loads become: S slots of the operand as the ring holds it.
const Type *RingBuilder::ringType(const OperandChain &C) const {
  const Type *T = C.Refill->getType();
  Shape Sh = T->getShape();
  if (C.Transposed)
    std::swap(Sh[0], Sh[1]);
  return Type::getSharedBuffer(T->getScalarType(), Sh, C.Shared, slots());
}

/// Where cp.async cannot copy a load of C (WhyNotCopied, the back end's
/// CopyFilter: masks along K that vary within a 4-byte copy, K not known a
/// multiple of the vector), the ring is still made when tensor-copies runs
/// after this pass and will fill it with bulk tensor copies, whose boxes
/// bound the masks themselves (the copy engine zero-fills outside the
/// tensor map's extents). That is tensor-copies' own decision, asked here
/// (whyNotBulkTensorFills), so no ring is made that nothing can fill.
/// Returns "" and marks C when it will, else the combined reason.
std::string RingBuilder::whyNotFilledInBulk(OperandChain &C, const std::string &WhyNotCopied) {
  if (!Target->TensorCopies || !WhyNotBulkFills)
    return WhyNotCopied;
  std::string Why = WhyNotBulkFills(C.Initial, C.NextTile, C.Refill, ringType(C), C.Transposed);
  if (!Why.empty())
    return WhyNotCopied + "; nor would tensor-copies fill the ring with bulk tensor copies: " + Why;
  C.BulkOnly = true;
  return "";
}

std::string RingBuilder::whyNotInFreeSlots(Instruction *Store, unsigned TileStores) {
  if (!Target->TensorStores || !WhyNotTensorStore)
    return "its store is no bulk tensor store, which could take free ring slots";
  if (TileStores != 1)
    return "the epilogue has " + std::to_string(TileStores) +
           " tile stores, of which only one could take free ring slots";
  if (std::string Why = WhyNotTensorStore(*Store); !Why.empty())
    return "its store is no bulk tensor store, which could take free ring slots: " + Why;
  // The prologue fills D slots of each ring; the others hold no data under
  // the epilogue.
  const Type *Tile = Store->getOperand(1)->getType();
  for (const OperandChain &C : Chains) {
    const Type *T = C.Refill->getType();
    const Type *Ring = Type::getSharedBuffer(T->getScalarType(), T->getShape(), C.Shared, slots());
    if (ringStagingPieces(Tile, Ring, slots() - D) != 0)
      return "";
  }
  return "its tile's column pieces fit in no ring's " + std::to_string(slots() - D) +
         " slots the prologue leaves free";
}

/// Follows Q_0 through the back edges to the refill load and records the
/// preheader loads.
std::string RingBuilder::collectChain(Instruction *Q0, const Instruction *Dot, unsigned OperandIdx,
                                      bool ViaTrans) {
  OperandChain C;
  C.Dot = Dot;
  C.OperandIdx = OperandIdx;
  C.ViaTrans = ViaTrans;
  Instruction *Q = Q0;
  while (true) {
    if (Q->getNumOperands() != 2 || !Q->getIncomingValueFor(Preheader))
      return refuse(Q, "the dot operand phi " + printOperand(*Q) +
                           " is not a pipelined operand (two entries: preheader, body)");
    C.Phis.push_back(Q);
    Instruction *Back = asInstruction(Q->getIncomingValueFor(Body));
    if (Back && Back->getOpcode() == Opcode::Phi && Back->getParent() == Header &&
        C.Phis.size() <= MaxSlots) {
      Q = Back;
      continue;
    }
    if (!Back || !isLoad(Back) || Back->getParent() != Body)
      return refuse(Q0, "the dot operand " + printOperand(*Q0) +
                            " is not carried from a load at the end of the body");
    C.Refill = Back;
    break;
  }
  unsigned Depth = static_cast<unsigned>(C.Phis.size());
  if (D != 0 && Depth != D) {
    // The back end's pipeline issues the loads it will not copy fewer
    // iterations ahead (LoopPipeline.h): that is the reason to give.
    std::vector<Instruction *> Refills = {C.Refill};
    for (const OperandChain &Other : Chains)
      Refills.push_back(Other.Refill);
    for (Instruction *Load : Refills)
      if (std::string Why =
              Target && Target->CopyFilter ? Target->CopyFilter(*Load, nullptr, false) : "";
          !Why.empty())
        return refuse(Load, Why);
    return refuse(Q0, "the dot operands are issued different numbers of iterations ahead (" +
                          std::to_string(D) + " and " + std::to_string(Depth) + ")");
  }
  D = Depth;
  for (unsigned J = 0; J < D; ++J) {
    Value *Init = C.Phis[J]->getIncomingValueFor(Preheader);
    Instruction *I = asInstruction(Init);
    bool Ahead = I && I->getOpcode() == Opcode::Phi;
    if (TileAhead && *TileAhead != Ahead)
      return refuse(C.Phis[J], "some of the dot operands' first iterations are loaded a tile "
                               "ahead and others in the loop's preheader");
    TileAhead = Ahead;
    if (Ahead) {
      if (std::string Why = collectTileAhead(C, J, I); !Why.empty())
        return Why;
      continue;
    }
    if (!isLoad(Init) || I->getParent() != Preheader)
      return refuse(C.Phis[J], "the operand of iteration " + std::to_string(J) +
                                   " is not loaded in the loop's preheader");
    // The copies are issued at the preheader's end: nothing may write memory
    // between the load and there.
    for (auto It = Preheader->iteratorTo(I); It != Preheader->instructions().end(); ++It)
      if ((*It)->hasSideEffects() && !(*It)->isTerminator())
        return refuse(I, "memory is written between this load and the loop");
    if (std::string Why = checkCopyable(I, "prologue load"); !Why.empty())
      return Why;
    C.Initial.push_back(I);
  }
  if (std::string Why = checkCopyable(C.Refill, "load"); !Why.empty())
    return Why;
  // Q_0 is replaced by a local_load at the top of the body: every use must
  // be there. The other phis and the loads feed only the chain.
  for (Instruction *U : Q0->users())
    if (U->getParent() != Body)
      return refuse(U, "the dot operand " + printOperand(*Q0) + " is used outside the body");
  for (unsigned J = 1; J < D; ++J)
    if (C.Phis[J]->users().size() != 1)
      return refuse(C.Phis[J], "a pipelined operand phi has other uses");
  if (C.Refill->users().size() != 1)
    return refuse(C.Refill, "the refill load has other uses");
  Chains.push_back(std::move(C));
  return "";
}

/// The prologue load of iteration J of C issued a tile ahead, carried by
/// TilePhi: `phi [I_J, outer preheader], [N_J, exit]` in the header of the
/// loop around this one, whose only latch is this loop's exit, where N_J is
/// loaded before anything writes memory (TilePrefetch.cpp's form).
std::string RingBuilder::collectTileAhead(OperandChain &C, unsigned J, Instruction *TilePhi) {
  std::string Iteration = "the operand of iteration " + std::to_string(J);
  const Loop *Outer = L.getParentLoop();
  if (!Outer || TilePhi->getParent() != Outer->getHeader())
    return refuse(C.Phis[J], Iteration + " comes from a phi that is not in the header of the "
                                         "loop around this one (a prologue issued a tile "
                                         "ahead is)");
  std::vector<BasicBlock *> Latches = Outer->getLatches();
  BasicBlock *OuterPre = Outer->getPreheader();
  if (!OuterPre || Latches.size() != 1 || Latches[0] != Exit || TilePhi->getNumOperands() != 2)
    return refuse(TilePhi, Iteration + " is issued a tile ahead, but not from the preheader of "
                                       "the loop around this one and from this loop's exit, "
                                       "its only latch");
  if (TilePhi->users().size() != 1)
    return refuse(TilePhi, "a phi of an operand issued a tile ahead has other uses");
  Instruction *First = asInstruction(TilePhi->getIncomingValueFor(OuterPre));
  Instruction *Next = asInstruction(TilePhi->getIncomingValueFor(Exit));
  if (!First || !isLoad(First) || First->getParent() != OuterPre || !Next || !isLoad(Next) ||
      Next->getParent() != Exit || First->users().size() != 1 || Next->users().size() != 1)
    return refuse(TilePhi, Iteration + " is issued a tile ahead, but not by a load in the "
                                       "preheader of the loop around this one and one in this "
                                       "loop's exit");
  // The first tile's copies are issued at the end of the outer preheader,
  // the next tile's after the last of the exit's loads: no memory may be
  // written before either.
  for (auto It = OuterPre->iteratorTo(First); It != OuterPre->instructions().end(); ++It)
    if ((*It)->hasSideEffects() && !(*It)->isTerminator())
      return refuse(First, "memory is written between this load and the loop around the loop");
  for (auto &I : Exit->instructions()) {
    if (I.get() == Next)
      break;
    if (I->hasSideEffects())
      return refuse(Next, "memory is written before this load of the next tile's operand");
  }
  if (std::string Why = checkCopyable(First, "prologue load"); !Why.empty())
    return Why;
  if (std::string Why = checkCopyable(Next, "prologue load"); !Why.empty())
    return Why;
  OuterPreheader = OuterPre;
  C.Initial.push_back(First);
  C.NextTile.push_back(Next);
  C.TilePhis.push_back(TilePhi);
  return "";
}

/// cp_async copies a tile of elements and zero-fills masked-off ones.
std::string RingBuilder::checkCopyable(Instruction *Load, const char *What) {
  const Type *T = Load->getType();
  if (!T->isTile())
    return refuse(Load, std::string("this ") + What + " reads a scalar, not a tile");
  if (T->getScalarType()->isPointerOrPointerTile() || T->isBoolOrBoolTile())
    return refuse(Load, std::string("this ") + What + " reads pointers or booleans");
  if (Load->getOpcode() == Opcode::Load)
    return "";
  Constant *Other = getConstantOrSplat(Load->getOperand(2));
  bool PlusZero =
      Other && Other->isZero() && !(T->isFloatOrFloatTile() && std::signbit(Other->getFloat()));
  if (!PlusZero)
    return refuse(Load, std::string("this ") + What +
                            " gives masked-off elements a value other than +0 (cp_async "
                            "zero-fills them)");
  return "";
}

/// How the back end runs Dot, where the pass knows the target (the back
/// end's facts or accelerate-dot's options).
std::optional<analysis::DotPlan> RingBuilder::planOf(const Instruction &Dot) const {
  if (Target)
    return analysis::planDot(Dot, Target->NumWarps, /*HasMmaV2=*/true, Target->AllowTF32,
                             Target->HasWgmma);
  if (Dots)
    return analysis::planDot(Dot, Dots->NumWarps, Dots->HasMmaV2, Dots->AllowTF32, Dots->HasWgmma);
  return std::nullopt;
}

/// Dots on FMA units and on tf32 tensor cores read their operands from
/// shared memory element by element (or, for f32 FMA dots of 4 x 4 blocks
/// per thread, A's columns and B's rows in 16-byte vectors), not through
/// ldmatrix or wgmma descriptors: their slots are plain (plainSlotLayout).
bool RingBuilder::runsOnFmaOrTF32(const OperandChain &C) const {
  std::optional<analysis::DotPlan> Plan = planOf(*C.Dot);
  return Plan && (Plan->Kind == analysis::DotKind::FMA || Plan->Kind == analysis::DotKind::MmaTF32);
}

/// The widest swizzle mode (128, 64 or 32 bytes) that a slot row of Bytes
/// holds; 0 below 32 bytes.
int32_t widestSwizzle(int64_t Bytes) {
  for (int32_t Mode : {128, 64, 32})
    if (Bytes >= Mode)
      return Mode;
  return 0;
}

/// The slots the back end's FMA and tf32 lowerings read in place (codegen's
/// lowerDot and lowerDotFmaVectorized), in the dot's coordinates, row-major,
/// swizzled for tf32 (its reads go through the slot's layout), else with no
/// swizzle: B [K, N] (a k-step is one row), A [M, K], except for an f32 FMA
/// dot with 4 x 4 blocks per thread, which reads the
/// 4 rows of a block at one k as one 16-byte vector: A column-major, stored
/// as [K, M]. A vector the slot does not keep contiguous (A loaded along K
/// into column-major slots) is copied element by element, 4 bytes each, as
/// the back end's own FMA rings copy it.
const Layout *RingBuilder::plainSlotLayout(const OperandChain &C) const {
  unsigned NumWarps = Target ? Target->NumWarps : Dots->NumWarps;
  analysis::DotKind Kind = planOf(*C.Dot)->Kind;
  if (Kind == analysis::DotKind::MmaTF32) {
    // The tf32 lowering reads a fragment's 8 rows (A) or 4 rows (B) at
    // one column per lane group, element by element through the slot's
    // layout: a swizzle mode puts those rows in different banks (row-major
    // slots of 32 floats would put all 8 in one).
    const Type *T = C.Refill->getType();
    int64_t Row = C.Transposed ? T->getShape()[0] : T->getShape()[1];
    return Layout::getSharedSwizzle(widestSwizzle(Row * T->getScalarSizeInBytes()), {1, 0});
  }
  bool ColumnMajor = C.OperandIdx == 0 && Kind == analysis::DotKind::FMA &&
                     analysis::fmaDotHasFourByFourBlocks(*C.Dot, NumWarps);
  if (!ColumnMajor)
    return Layout::getSharedSwizzle(0, {1, 0});
  // A column-major A ([K, M] in memory) loaded along K lands as 4-byte
  // copies one slot row apart: in unswizzled rows of a multiple of 128
  // bytes, the four threads that share a row of A would write one bank.
  // A swizzle mode moves each slot row's 16-byte chunks by its row, which
  // halves that (2-way, as padded rows would), and keeps every run
  // of 4 rows of A one 16-byte vector, as the FMA loop reads it. A loaded
  // along M (a `trans` operand) copies whole vectors: unswizzled.
  unsigned Contiguous = chooseLayout(C.Refill)->getOrder()[0];
  if ((C.Transposed ? 1 - Contiguous : Contiguous) != 1)
    return Layout::getSharedSwizzle(0, {0, 1});
  const Type *T = C.Refill->getType();
  int64_t Column = C.Transposed ? T->getShape()[1] : T->getShape()[0];
  return Layout::getSharedSwizzle(widestSwizzle(Column * T->getScalarSizeInBytes()), {0, 1});
}

/// A `trans` operand of a wgmma dot whose loads are boxes of a tensor
/// descriptor (BoxGathers.h) is ringed as the dot reads it: column-major
/// slots, which cp_async fills through transposed pointers and which
/// tensor-copies fills with transposed bulk copies (a K-major B, the
/// convolution's filter). With the `trans` option (always in the back end)
/// so is every other `trans` operand of a wgmma dot (tensor-copies fills
/// those whose pointers are affine boxes of one tensor); without it the
/// registered pass rings the loaded tile and the dot reads its transposition.
/// With the option, an mma.sync dot's `trans` operand is ringed the same
/// way: the slot's bytes are the loaded tile's, row-major in its own
/// coordinates, and ldmatrix reads the 8 x 8 matrices of the dot's
/// fragments from them with `.trans` where the fragment wants the other
/// major-ness (A; for B the plain ldmatrix). ldmatrix moves 16-bit
/// elements, which are all mma.sync dots have (analysis::planDot).
bool RingBuilder::transposesInRing(const OperandChain &C) const {
  if (!C.ViaTrans || C.Refill->getType()->getRank() != 2)
    return false;
  // Plain slots hold the operand as the dot reads it, whatever the loads.
  if (runsOnFmaOrTF32(C))
    return true;
  if (std::optional<analysis::DotPlan> Plan = planOf(*C.Dot);
      Plan && Plan->Kind == analysis::DotKind::MmaV2)
    return TransOperands;
  bool Wgmma = false;
  if (Target)
    Wgmma = Target->HasWgmma &&
            analysis::planDot(*C.Dot, Target->NumWarps, true, Target->AllowTF32, true).Kind ==
                analysis::DotKind::Wgmma;
  else if (Dots)
    Wgmma = Dots->HasWgmma &&
            analysis::planDot(*C.Dot, Dots->NumWarps, Dots->HasMmaV2, Dots->AllowTF32, true).Kind ==
                analysis::DotKind::Wgmma;
  if (!Wgmma)
    return false;
  if (TransOperands)
    return true;
  if (!isBoxGather(*C.Refill))
    return false;
  return std::all_of(C.Initial.begin(), C.Initial.end(),
                     [](const Instruction *I) { return isBoxGather(*I); });
}

const Layout *RingBuilder::chooseLayout(const Instruction *Load) const {
  const Type *T = Load->getType();
  unsigned Rank = T->getRank();
  const analysis::AxisInfo &Info = AI.get(Load->getOperand(0));
  // Fastest dimension first: the most contiguous one, the last on ties.
  std::vector<unsigned> Order(Rank);
  std::iota(Order.rbegin(), Order.rend(), 0u);
  std::stable_sort(Order.begin(), Order.end(),
                   [&](unsigned A, unsigned B) { return Info.Contiguity[A] > Info.Contiguity[B]; });
  int64_t RowBytes = T->getShape()[Order[0]] * T->getScalarSizeInBytes();
  int32_t Swizzle = 0;
  for (int32_t Mode : {128, 64, 32})
    if (RowBytes >= Mode) {
      Swizzle = Mode;
      break;
    }
  return Layout::getSharedSwizzle(Swizzle, Order);
}

Instruction *RingBuilder::insertBefore(Instruction *Pos, std::unique_ptr<Instruction> I,
                                       const std::string &Name, const Instruction *LocFrom) {
  I->Loc = (LocFrom ? LocFrom : Pos)->Loc;
  if (!Name.empty())
    I->setName(Name);
  BasicBlock *BB = Pos->getParent();
  return BB->insert(BB->iteratorTo(Pos), std::move(I));
}

/// (Index + 1) mod S as an add, a compare and a select.
Value *RingBuilder::advanceModulo(Instruction *Index, Instruction *Pos) {
  const Type *I32 = Type::getI32();
  Instruction *Next = insertBefore(
      Pos, Instruction::create(Opcode::Add, I32, {Index, M.getInt(I32, 1)}), Index->getName());
  auto Wraps = Instruction::create(Opcode::ICmp, Type::getI1(), {Next, M.getInt(I32, slots())});
  Wraps->Predicate = CmpPredicate::EQ;
  Instruction *Cmp = insertBefore(Pos, std::move(Wraps));
  return insertBefore(Pos, Instruction::create(Opcode::Select, I32, {Cmp, M.getInt(I32, 0), Next}),
                      Index->getName());
}

/// `smem_slot Ring, Slot` and a cp_async of Load's pointers and mask into
/// it (transposed with Transposed), before Pos.
void RingBuilder::copyInto(Instruction *Ring, Value *Slot, Instruction *Load, Instruction *Pos,
                           bool Transposed) {
  const Type *RT = Ring->getType();
  const Type *SlotTy =
      Type::getSharedBuffer(RT->getElementType(), RT->getShape(), RT->getLayout(), 1);
  Instruction *S = insertBefore(Pos, Instruction::create(Opcode::SmemSlot, SlotTy, {Ring, Slot}),
                                Ring->getName() + ".slot", Load);
  auto Operand = [&](unsigned K) -> Value * {
    Value *V = Load->getOperand(K);
    if (!Transposed)
      return V;
    const Shape &Sh = V->getType()->getShape();
    const Type *T = Type::getTile(V->getType()->getScalarType(), {Sh[1], Sh[0]});
    return insertBefore(Pos, Instruction::create(Opcode::Trans, T, {V}), "", Load);
  };
  std::vector<Value *> Ops = {S, Operand(0)};
  if (Load->getOpcode() == Opcode::MaskedLoad)
    Ops.push_back(Operand(1));
  insertBefore(Pos, Instruction::create(Opcode::CpAsync, Type::getVoid(), Ops), "", Load);
}

/// The name the values of a chain are named after: Q_0's without the
/// `.pipe0` that `pipeline` adds.
std::string baseName(const Instruction *Q0) {
  std::string N = Q0->getName();
  if (N.size() > 6 && N.compare(N.size() - 6, 6, ".pipe0") == 0)
    N.resize(N.size() - 6);
  return N.empty() ? "operand" : N;
}

void RingBuilder::rewrite() {
  const Type *I32 = Type::getI32();
  auto Void = [](Opcode Op, int64_t Count = 0) {
    auto I = Instruction::create(Op, Type::getVoid(), {});
    I->Count = Count;
    return I;
  };
  // Preheader (the outer one with a prologue a tile ahead): the rings, then
  // the copies of iterations 0 .. D-1, one commit group per iteration.
  Instruction *PreEnd = (OuterPreheader ? OuterPreheader : Preheader)->getTerminator();
  for (OperandChain &C : Chains)
    C.Ring = insertBefore(PreEnd, Instruction::create(Opcode::SmemAlloc, ringType(C), {}),
                          baseName(C.Phis[0]) + ".ring", C.Initial[0]);
  for (unsigned J = 0; J < D; ++J) {
    for (OperandChain &C : Chains)
      copyInto(C.Ring, M.getInt(I32, J), C.Initial[J], PreEnd, C.Transposed);
    insertBefore(PreEnd, Void(Opcode::CpAsyncCommit));
  }
  // A tile ahead: the next tile's copies of iterations 0 .. D-1 after the
  // last of the exit's loads of them (after the wait for every copy of this
  // tile, placed at the exit's top below).
  if (OuterPreheader) {
    Instruction *LastNext = nullptr;
    for (auto &I : Exit->instructions())
      for (const OperandChain &C : Chains)
        if (std::count(C.NextTile.begin(), C.NextTile.end(), I.get()))
          LastNext = I.get();
    Instruction *AheadPos = std::next(Exit->iteratorTo(LastNext))->get();
    for (unsigned J = 0; J < D; ++J) {
      for (OperandChain &C : Chains)
        copyInto(C.Ring, M.getInt(I32, J), C.NextTile[J], AheadPos, C.Transposed);
      insertBefore(AheadPos, Void(Opcode::CpAsyncCommit), "", LastNext);
    }
  }

  // Header: the read and write slots.
  auto FirstNonPhi = Header->instructions().begin();
  while ((*FirstNonPhi)->getOpcode() == Opcode::Phi)
    ++FirstNonPhi;
  auto MakeIndex = [&](const char *Name, unsigned Init) {
    auto Phi = Instruction::create(Opcode::Phi, I32, {});
    Phi->Loc = Header->getTerminator()->Loc;
    Phi->setName(Name);
    Instruction *P = Header->insert(FirstNonPhi, std::move(Phi));
    P->addIncoming(M.getInt(I32, Init), Preheader);
    return P;
  };
  Instruction *Read = MakeIndex("ring.read", 0);
  Instruction *Write = MakeIndex("ring.write", D);

  // Body top: wait for the group of this iteration, read the slots (the
  // barrier that makes them visible to all threads is insert-barriers').
  auto TopIt = Body->instructions().begin();
  while ((*TopIt)->getOpcode() == Opcode::Phi)
    ++TopIt;
  Instruction *Top = TopIt->get();
  const Instruction *FirstUse = Chains[0].Phis[0];
  insertBefore(Top, Void(Opcode::CpAsyncWait, D - 1), "", FirstUse);
  std::vector<Instruction *> Unused;
  for (OperandChain &C : Chains) {
    Instruction *Q0 = C.Phis[0];
    const Type *RT = C.Ring->getType();
    const Type *SlotTy =
        Type::getSharedBuffer(RT->getElementType(), RT->getShape(), RT->getLayout(), 1);
    Instruction *S =
        insertBefore(Top, Instruction::create(Opcode::SmemSlot, SlotTy, {C.Ring, Read}),
                     C.Ring->getName() + ".slot", Q0);
    const Type *SlotTile =
        C.Transposed ? Type::getTile(RT->getElementType(), RT->getShape()) : Q0->getType();
    Instruction *X =
        insertBefore(Top, Instruction::create(Opcode::LocalLoad, SlotTile, {S}), baseName(Q0), Q0);
    if (!C.Transposed) {
      Q0->replaceAllUsesWith(X);
      continue;
    }
    // The slot holds the operand as the dot reads it: the `trans` users of
    // Q0 read the slot's tile, any other user its transposition.
    Instruction *Back = insertBefore(Top, Instruction::create(Opcode::Trans, Q0->getType(), {X}),
                                     baseName(Q0) + ".rows", Q0);
    Q0->replaceAllUsesWith(Back);
    for (Instruction *U : std::vector<Instruction *>(Back->users()))
      if (U->getOpcode() == Opcode::Trans) {
        U->replaceAllUsesWith(X);
        Unused.push_back(U);
      }
    Unused.push_back(Back);
  }
  // Erased after every chain's reads: a `trans` may be Top, before which the
  // next chain's reads go.
  for (Instruction *I : Unused)
    if (!I->hasUses())
      I->eraseFromParent();

  // Body end: the refills of iteration i + D where the loads were, one
  // commit, the indices advanced.
  for (OperandChain &C : Chains)
    copyInto(C.Ring, Write, C.Refill, C.Refill, C.Transposed);
  Instruction *End = Body->getTerminator();
  insertBefore(End, Void(Opcode::CpAsyncCommit), "", Chains.back().Refill);
  Read->addIncoming(advanceModulo(Read, End), Body);
  Write->addIncoming(advanceModulo(Write, End), Body);

  // Exit: nothing in flight after the loop (a loop run again, nested, must
  // not refill slots other threads may still be reading: insert-barriers
  // orders that).
  auto ExitPos = Exit->instructions().begin();
  while ((*ExitPos)->getOpcode() == Opcode::Phi)
    ++ExitPos;
  insertBefore(ExitPos->get(), Void(Opcode::CpAsyncWait, 0), "", Header->getTerminator());
  eraseOldValues();
}

void RingBuilder::eraseOldValues() {
  std::vector<Instruction *> Loads;
  for (OperandChain &C : Chains) {
    for (Instruction *Q : C.Phis)
      Q->dropAllOperands();
    for (Instruction *Q : C.Phis)
      Q->eraseFromParent();
    for (Instruction *T : C.TilePhis)
      T->dropAllOperands();
    for (Instruction *T : C.TilePhis)
      T->eraseFromParent();
    Loads.push_back(C.Refill);
    Loads.insert(Loads.end(), C.Initial.begin(), C.Initial.end());
    Loads.insert(Loads.end(), C.NextTile.begin(), C.NextTile.end());
  }
  // The loads, then what only they used. Values are shared between the
  // loads (a guard, a zero): a value leaves the set when it is erased, so
  // nothing is looked at after.
  std::set<Instruction *> Candidates(Loads.begin(), Loads.end());
  for (bool Progress = true; Progress;) {
    Progress = false;
    for (auto It = Candidates.begin(); It != Candidates.end();) {
      Instruction *I = *It;
      if (I->hasUses() || !(isPure(*I) || isLoad(I))) {
        ++It;
        continue;
      }
      for (Value *V : I->operands())
        if (Instruction *Op = asInstruction(V))
          Candidates.insert(Op);
      I->dropAllOperands();
      I->eraseFromParent();
      It = Candidates.erase(It);
      Progress = true;
    }
  }
}

} // namespace

bool AsyncRingsPass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  auto Remark = [&](RemarkKind Kind, const Instruction &At, std::string Message) {
    if (Diags)
      Diags->remark(Kind, "async-rings", SourceRange(At.Loc), std::move(Message));
  };
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  bool Changed = false;
  // The rewrite adds instructions but no blocks or edges: the loop info
  // stays valid. The axis info of the values it reads is computed before.
  for (Loop *L : LI.loopsInnermostFirst()) {
    const Instruction *Dot = firstDotOf(*L, LI);
    if (!Dot)
      continue;
    const Instruction *T = L->getHeader()->getTerminator();
    const Instruction &LoopAt = T ? *T : *Dot;
    RingBuilder B(
        *L, AI, Target ? &*Target : nullptr, Dots ? &*Dots : nullptr, Target || TransOperands,
        [&](Instruction &Store) { return whyNotBulkTensorStore(F, Store, AM); },
        [&](const std::vector<Instruction *> &Prologue, const std::vector<Instruction *> &NextTile,
            Instruction *Refill, const Type *RingTy, bool Transposed) {
          return whyNotBulkTensorFills(F, AM, *L, Prologue, NextTile, Refill, RingTy, Transposed);
        });
    if (std::string Why = B.analyze(); !Why.empty()) {
      Remark(RemarkKind::Missed, B.culprit() ? *B.culprit() : LoopAt,
             "dot operands not copied into shared-memory rings: " + Why);
      continue;
    }
    B.rewrite();
    Changed = true;
    unsigned N = B.numRings(), Bulk = B.numBulkOnlyRings();
    Remark(RemarkKind::Passed, LoopAt,
           std::to_string(N) + " dot operand" + (N == 1 ? "" : "s") +
               " copied asynchronously (cp_async) into shared-memory ring" + (N == 1 ? "" : "s") +
               " of " + std::to_string(B.slots()) + " slots, waiting with cp_async_wait " +
               std::to_string(B.depth() - 1) +
               (Bulk ? "; " + std::to_string(Bulk) + " of them for tensor-copies' bulk tensor " +
                           "copies only, whose boxes bound the masks cp.async could not copy"
                     : ""));
  }
  return Changed;
}

std::unique_ptr<Pass> createAsyncRingsPass() { return std::make_unique<AsyncRingsPass>(); }

std::unique_ptr<Pass> createAsyncRingsPass(AsyncRingsTarget Target) {
  return std::make_unique<AsyncRingsPass>(std::move(Target));
}

std::unique_ptr<Pass> createAsyncRingsPass(AssignLayoutsTarget Dots, bool TransOperands) {
  return std::make_unique<AsyncRingsPass>(Dots, TransOperands);
}

} // namespace tritonc::transform
