//===- AssignLayouts.cpp - The back end's layouts written into tile types --===//
//
// See AssignLayouts.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/AssignLayouts.h"

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LayoutAssignment.h"
#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Layout.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/Passes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace tritonc::transform {

using analysis::LayoutAssignment;
using analysis::LinearLayout;
using namespace ir;

namespace {

const char *const InDimNames[] = {"register", "lane", "warp"};

const std::vector<LinearLayout::Basis> &basesOf(const LinearLayout &L, const char *In) {
  static const std::vector<LinearLayout::Basis> None;
  for (const LinearLayout::InDim &D : L.getInDims())
    if (D.Name == In)
      return D.Bases;
  return None;
}

/// Equal as maps: the same tile and the same image of every register, lane
/// and warp bit (a missing input dimension has no bits).
bool sameLayout(const LinearLayout &A, const LinearLayout &B) {
  if (A.getOutDims() != B.getOutDims())
    return false;
  return std::all_of(std::begin(InDimNames), std::end(InDimNames),
                     [&](const char *In) { return basesOf(A, In) == basesOf(B, In); });
}

/// Whether attribute Attr on a tile of shape S is the layout L.
bool describes(const Layout *Attr, const LinearLayout &L, const Shape &S) {
  if (!Attr || !checkLayout(*Attr).empty() || Attr->getRank() != S.size())
    return false;
  std::optional<LinearLayout> Of = analysis::toLinearLayout(*Attr, S, /*ElemBits=*/32);
  return Of && sameLayout(*Of, L);
}

/// The #blocked attribute with dimension order Order that L would be, read
/// off its bases: leading register bits stepping through each dimension
/// (size_per_thread), then lane and warp bits, which may be zero where the
/// tile is smaller than the threads (replication). Null when the bits do not
/// read that way; the caller checks the candidate against L.
const Layout *blockedCandidate(const LinearLayout &L, const std::vector<unsigned> &Order) {
  size_t Rank = Order.size();
  std::vector<int32_t> Spt(Rank, 1), Tpw(Rank, 1), Wpc(Rank, 1);
  auto Take = [&](const std::vector<LinearLayout::Basis> &Bases, size_t &Next, unsigned Dim,
                  int32_t Below, int32_t &Count, bool ZerosToo) {
    while (Next < Bases.size()) {
      const LinearLayout::Basis &B = Bases[Next];
      bool Zero = std::all_of(B.begin(), B.end(), [](int32_t C) { return C == 0; });
      bool Unit = !Zero && B[Dim] == Below * Count &&
                  std::count(B.begin(), B.end(), 0) == static_cast<long>(Rank - 1);
      if (!Unit && !(ZerosToo && Zero))
        return;
      Count *= 2;
      ++Next;
    }
  };
  size_t R = 0, Ln = 0, W = 0;
  const auto &Regs = basesOf(L, "register"), &Lanes = basesOf(L, "lane"),
             &Warps = basesOf(L, "warp");
  for (unsigned D : Order)
    Take(Regs, R, D, 1, Spt[D], false);
  for (unsigned D : Order)
    Take(Lanes, Ln, D, Spt[D], Tpw[D], true);
  for (unsigned D : Order)
    Take(Warps, W, D, Spt[D] * Tpw[D], Wpc[D], true);
  if (Ln != Lanes.size() || W != Warps.size())
    return nullptr;
  return Layout::getBlocked(Spt, Tpw, Wpc, Order);
}

/// Gives linear layouts attribute names: the first of the hints, a #blocked
/// or (for dots) a #mma/#wgmma that describes the layout exactly, else
/// #linear with the layout's bases. Equal layouts get equal names where no
/// hint says otherwise, so element-wise operands and results agree.
class LayoutNamer {
public:
  const Layout *name(const LinearLayout &L, const Shape &S,
                     const std::vector<const Layout *> &Hints = {}) {
    for (const Layout *H : Hints)
      if (describes(H, L, S))
        return remember(L, H);
    std::string Key = analysis::compactLayoutString(L);
    if (auto It = Known.find(Key); It != Known.end())
      return It->second;
    std::vector<unsigned> Order(S.size());
    std::iota(Order.begin(), Order.end(), 0u);
    std::reverse(Order.begin(), Order.end()); // row-major first
    do {
      if (const Layout *B = blockedCandidate(L, Order); describes(B, L, S))
        return remember(L, B);
    } while (std::prev_permutation(Order.begin(), Order.end()));
    // A slice of a layout named before (index vectors of a 2-D tile).
    std::vector<const Layout *> Parents;
    for (const auto &[Key, Name] : Known)
      if (Name->getRank() == S.size() + 1 && Name->getKind() != LayoutKind::Linear)
        Parents.push_back(Name);
    for (const Layout *P : Parents)
      for (unsigned D = 0; D <= S.size(); ++D)
        if (const Layout *Slice = Layout::getSlice(static_cast<int32_t>(D), P);
            describes(Slice, L, S))
          return remember(L, Slice);
    const Layout *Linear =
        Layout::getLinear(basesOf(L, "register"), basesOf(L, "lane"), basesOf(L, "warp"));
    if (!describes(Linear, L, S))
      reportInternalError("assign-layouts: no attribute describes the layout " +
                          analysis::compactLayoutString(L));
    return remember(L, Linear);
  }

private:
  const Layout *remember(const LinearLayout &L, const Layout *Name) {
    Known.emplace(analysis::compactLayoutString(L), Name);
    return Name;
  }
  std::map<std::string, const Layout *> Known;
};

bool isElementwise(const Instruction &I) {
  switch (I.getCategory()) {
  case OpCategory::Binary:
  case OpCategory::Unary:
  case OpCategory::Ternary:
  case OpCategory::Cmp:
  case OpCategory::Cast:
    return true;
  default:
    return I.getOpcode() == Opcode::Select || I.getOpcode() == Opcode::GEP;
  }
}

bool isGlobalAccess(const Instruction &I) {
  return (I.accessesMemory() || I.getOpcode() == Opcode::CpAsync) &&
         I.getOperand(I.getOpcode() == Opcode::CpAsync ? 1 : 0)->getType()->isTile();
}

std::unique_ptr<Instruction> cloneDetached(const Instruction &I) {
  std::unique_ptr<Instruction> C = Instruction::create(I.getOpcode(), I.getType(), I.operands());
  C->Predicate = I.Predicate;
  C->Reduction = I.Reduction;
  C->Axis = I.Axis;
  C->RangeStart = I.RangeStart;
  C->RangeEnd = I.RangeEnd;
  C->Loc = I.Loc;
  C->Text = I.Text;
  C->MultipleOf = I.MultipleOf;
  C->Count = I.Count;
  C->setName(I.getName());
  return C;
}

/// Whether A comes before B in their (common) block.
bool precedes(const Instruction *A, const Instruction *B) {
  if (A->getParent() != B->getParent())
    return false;
  for (const auto &I : A->getParent()->instructions()) {
    if (I.get() == A)
      return true;
    if (I.get() == B)
      return false;
  }
  return false;
}

class Assigner {
public:
  Assigner(Function &F, const LayoutAssignment &LA) : F(F), LA(LA) {}

  void run() {
    std::vector<Instruction *> All;
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        All.push_back(I.get());
    for (Instruction *I : All)
      if (isRemat(I))
        Original[I] = I->operands();
    typeOwnLayouts();
    for (Instruction *U : All)
      if (!isRemat(U))
        for (unsigned K = 0; K < U->getNumOperands(); ++K)
          provideOperand(*U, K);
    // Rematerializable values no use reached (dead chains) take the
    // default layout, so that their types agree with their operands'.
    for (Instruction *I : All)
      if (isRemat(I) && !Retyped.count(I)) {
        LinearLayout L = LA.defaultLayout(I->getType()->getShape());
        materialize(I, L, Names.name(L, I->getType()->getShape()));
      }
  }

private:
  bool isRemat(const Value *V) const {
    return V->getType()->isTile() && ir::asInstruction(const_cast<Value *>(V)) &&
           LA.isRematerializable(V);
  }

  /// Every value with a layout of its own gets it, named. Operands come
  /// first (reverse post-order), so a value whose layout equals an
  /// operand's takes that operand's name (a reduction's #slice flows on).
  void typeOwnLayouts() {
    DominatorTree DT(F);
    // Accumulator layouts first, so that what else has them (the epilogue's
    // conversions, reached before the loop body) takes their #mma name.
    for (const auto &BB : F.blocks())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Dot && I->getType()->isTile())
          Names.name(LA.layoutOf(I.get()), I->getType()->getShape(), {accumulatorName(*I)});
    // Then reductions, whose type must be the #slice of their operand's:
    // equal layouts should have one name wherever possible (the back end
    // computes a rematerialized value once per block and name).
    for (const BasicBlock *BB : DT.reversePostOrder())
      for (const auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Reduce && I->getType()->isTile() && !isRemat(I.get()))
          if (const Layout *In = nameOfOperandLayout(I->getOperand(0)))
            Names.name(LA.layoutOf(I.get()), I->getType()->getShape(),
                       {Layout::getSlice(static_cast<int32_t>(I->Axis), In)});
    // Phis last: their layout comes around the loop from a value named in
    // the first sweep (a dot's #mma accumulator), whose name they share.
    for (bool Phis : {false, true})
      for (const BasicBlock *BB : DT.reversePostOrder())
        for (const auto &IP : BB->instructions())
          if ((IP->getOpcode() == Opcode::Phi) == Phis)
            typeOwnLayout(*IP);
  }

  void typeOwnLayout(Instruction &I) {
    if (!I.getType()->isTile() || isRemat(&I))
      return;
    std::vector<const Layout *> Hints;
    if (const Layout *In = I.getNumOperands() ? layoutUsed(I.getOperand(0)) : nullptr;
        I.getOpcode() == Opcode::Reduce && In)
      Hints.push_back(Layout::getSlice(static_cast<int32_t>(I.Axis), In));
    if (I.getOpcode() == Opcode::Dot)
      Hints.push_back(accumulatorName(I));
    I.mutateType(
        I.getType()->withLayout(Names.name(LA.layoutOf(&I), I.getType()->getShape(), Hints)));
  }

  /// The name V's layout will have (before V is typed): its own, or the
  /// default one where it is rematerialized.
  const Layout *nameOfOperandLayout(const Value *V) {
    if (!V->getType()->isTile() || !asInstruction(const_cast<Value *>(V)))
      return nullptr;
    const Shape &S = V->getType()->getShape();
    return Names.name(isRemat(V) ? LA.defaultLayout(S) : LA.layoutOf(V), S);
  }

  /// The name of the layout V is read in by an operation that takes any:
  /// its own, or the default one where it is rematerialized.
  const Layout *layoutUsed(const Value *V) {
    if (isRemat(V))
      return Names.name(LA.defaultLayout(V->getType()->getShape()), V->getType()->getShape());
    return V->getType()->getLayout();
  }

  const Layout *accumulatorName(const Instruction &Dot) {
    const analysis::DotPlan &Plan = LA.dotOf(&Dot);
    if (Plan.Kind == analysis::DotKind::Wgmma) {
      int32_t KBytes =
          32 / static_cast<int32_t>(
                   Dot.getOperand(0)->getType()->getScalarType()->getScalarSizeInBytes());
      return Layout::getWgmma({4 * Plan.WarpsPerCTA[0], Plan.WarpsPerCTA[1]},
                              {64, Plan.InstrN, KBytes});
    }
    if (Plan.Kind != analysis::DotKind::FMA)
      return Layout::getMma(Plan.WarpsPerCTA, {16, 8});
    return nullptr;
  }

  /// The layout use K of U needs its operand in, if it needs one, and its
  /// name: the user's own where the types must agree (element-wise
  /// operations, phis, a dot's accumulator, a load's pointer and mask).
  std::optional<std::pair<LinearLayout, const Layout *>> need(const Instruction &U, unsigned K) {
    const Layout *Own = U.getType()->isTile() ? U.getType()->getLayout() : nullptr;
    auto Named = [&](const LinearLayout &L) {
      return std::make_pair(L, Own ? Own : Names.name(L, U.getOperand(K)->getType()->getShape()));
    };
    if (isGlobalAccess(U))
      return Named(LA.accessOf(&U).Layout);
    bool SameAsResult = (U.getType()->isTile() && isElementwise(U)) ||
                        U.getOpcode() == Opcode::Phi || U.getOpcode() == Opcode::ConvertLayout ||
                        (U.getOpcode() == Opcode::Dot && K == 2);
    if (SameAsResult && U.getType()->isTile())
      return Named(LA.layoutOf(&U));
    return std::nullopt;
  }

  void provideOperand(Instruction &U, unsigned K) {
    Value *Op = U.getOperand(K);
    if (!Op->getType()->isTile() || !ir::asInstruction(Op))
      return;
    auto Need = need(U, K);
    if (isRemat(Op)) {
      // Rematerialized wherever used: in the layout of the use, or the
      // default one (what the back end reads a dot operand or a reduction's
      // input in when they are rematerialized).
      if (!Need) {
        LinearLayout L = LA.defaultLayout(Op->getType()->getShape());
        Need = std::make_pair(L, Names.name(L, Op->getType()->getShape()));
      }
      U.setOperand(K, materialize(asInstruction(Op), Need->first, Need->second));
      return;
    }
    if (U.getOpcode() == Opcode::ConvertLayout || !Need)
      return; // The operation converts what it reads itself.
    if (U.getOpcode() == Opcode::Phi) {
      BasicBlock *From = U.getIncomingBlock(K);
      U.setOperand(K, convert(Op, Need->second, From, From->getTerminator()));
      return;
    }
    U.setOperand(K, convert(Op, Need->second, U.getParent(), &U));
  }

  /// Op in layout Want at Before (in block BB): Op itself when its type
  /// already names it, else a convert_layout (one per block and layout, as
  /// long as the first one placed comes before the later uses).
  Value *convert(Value *Op, const Layout *Want, BasicBlock *BB, Instruction *Before) {
    if (Op->getType()->getLayout() == Want)
      return Op;
    auto Key = std::make_tuple(Op, Want, BB);
    if (auto It = Converts.find(Key); It != Converts.end() && precedes(It->second, Before))
      return It->second;
    auto C = Instruction::create(Opcode::ConvertLayout, Op->getType()->withLayout(Want), {Op});
    if (const Instruction *I = asInstruction(Op))
      C->Loc = I->Loc;
    C->setName(Op->getName());
    Instruction *Placed = BB->insert(BB->iteratorTo(Before), std::move(C));
    Converts[Key] = Placed;
    return Placed;
  }

  /// The rematerializable value I computed in layout L, named Name: I
  /// itself, retyped, for the first layout asked for; a copy next to it for
  /// each further one. Its operands are provided in the layouts L needs
  /// (element-wise operands under the same name).
  Value *materialize(Instruction *I, const LinearLayout &L, const Layout *Name) {
    auto Key = std::make_pair(I, Name);
    if (auto It = Copies.find(Key); It != Copies.end())
      return It->second;
    Instruction *Copy = I;
    if (!Retyped.insert(I).second) {
      auto C = cloneDetached(*I);
      Copy = I->getParent()->insert(std::next(I->getParent()->iteratorTo(I)), std::move(C));
    }
    Copy->mutateType(I->getType()->withLayout(Name));
    Copies[Key] = Copy;
    const std::vector<Value *> &Ops = Original.at(I);
    for (unsigned K = 0; K < Ops.size(); ++K) {
      Value *Op = Ops[K];
      if (!Op->getType()->isTile() || !asInstruction(Op))
        continue;
      bool Relabel = I->getOpcode() == Opcode::Reshape || I->getOpcode() == Opcode::Trans ||
                     I->getOpcode() == Opcode::Broadcast;
      LinearLayout Need = operandLayout(*I, Op, L);
      const Layout *NeedName = Relabel ? Names.name(Need, Op->getType()->getShape()) : Name;
      Copy->setOperand(K, isRemat(Op) ? materialize(asInstruction(Op), Need, NeedName)
                                      : convert(Op, NeedName, Copy->getParent(), Copy));
    }
    return Copy;
  }

  /// The layout operand Op of the rematerializable I is computed in when I
  /// is computed in L (what the back end's recomputation reads).
  static LinearLayout operandLayout(const Instruction &I, const Value *Op, const LinearLayout &L) {
    const Shape &From = Op->getType()->getShape();
    switch (I.getOpcode()) {
    case Opcode::Reshape:
      return analysis::reshapeLayout(L, From);
    case Opcode::Trans:
      return analysis::transposeLayout(L);
    case Opcode::Broadcast:
      return analysis::broadcastOperandLayout(L, From).removeZeroBases("register");
    default:
      return L;
    }
  }

  Function &F;
  const LayoutAssignment &LA;
  LayoutNamer Names;
  std::map<const Instruction *, std::vector<Value *>> Original;
  std::set<const Instruction *> Retyped;
  std::map<std::pair<Instruction *, const Layout *>, Instruction *> Copies;
  std::map<std::tuple<Value *, const Layout *, BasicBlock *>, Instruction *> Converts;
};

/// The first instruction with a tile (operand or result) whose shape has a
/// dimension that is not a power of two.
const Instruction *unpaddedTile(const Function &F) {
  auto Unpadded = [](const Value *V) {
    if (!V->getType()->isTile())
      return false;
    const Shape &S = V->getType()->getShape();
    return std::any_of(S.begin(), S.end(), [](int64_t D) { return D <= 0 || (D & (D - 1)); });
  };
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (Unpadded(I.get()) || std::any_of(I->operands().begin(), I->operands().end(), Unpadded))
        return I.get();
  return nullptr;
}

} // namespace

bool AssignLayoutsPass::run(Function &F, AnalysisManager &AM) {
  if (const Instruction *At = unpaddedTile(F)) {
    if (DiagnosticEngine *Diags = AM.diagnostics())
      Diags->remark(RemarkKind::Missed, "assign-layouts", SourceRange(At->Loc),
                    "layouts not assigned: a tile dimension is not a power of two (pad-tiles "
                    "pads tiles first in the GPU back end)");
    return false;
  }
  const auto &AI = AM.get<analysis::AxisInfoAnalysis>(F);
  LayoutAssignment LA(F, AI, Target.NumWarps, Target.HasMmaV2, Target.AllowTF32, Target.HasWgmma);
  Assigner(F, LA).run();
  return true;
}

std::unique_ptr<Pass> createAssignLayoutsPass() { return std::make_unique<AssignLayoutsPass>(); }

std::unique_ptr<Pass> createAssignLayoutsPass(AssignLayoutsTarget Target) {
  return std::make_unique<AssignLayoutsPass>(Target);
}

} // namespace tritonc::transform
