//===- PadTiles.cpp - Tile extents that are not powers of two -------------===//
//
// The back end's layouts are linear maps over GF(2), so every tile extent
// must be a power of two. A kernel with other extents (a softmax row of
// 1536 = 3 * 512, a reduction over 96) is rewritten before lowering so that
// each tile covers the next power of two, the extra lanes masked off:
//
//  - every tile result takes the padded shape; `make_range lo, hi` runs on to
//    lo + padded (the extra lanes hold indices past the tile);
//  - loads, stores and atomics touch only the lanes of the original shape
//    (their mask is and-ed with "index < extent" along each padded axis);
//  - a reduction along a padded axis first replaces the extra lanes with the
//    neutral element, and a dot whose K is padded zeroes the extra K lanes
//    of both operands; other padded lanes hold values no store reads.
//
// Reshapes may only insert or remove extents of 1 (anything else would move
// the extra lanes between rows), and a tile `atomic_cas` has no mask to
// narrow; both are reported before anything changes. Functions with
// power-of-two tiles only are left untouched, so their code does not change.
//
//===----------------------------------------------------------------------===//
#include "tritonc/transform/PadTiles.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/transform/Passes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tritonc::transform {

using namespace ir;

namespace {

int64_t nextPowerOfTwo(int64_t N) {
  int64_t P = 1;
  while (P < N)
    P <<= 1;
  return P;
}

Shape padded(const Shape &S) {
  Shape P;
  for (int64_t D : S)
    P.push_back(nextPowerOfTwo(D));
  return P;
}

bool isPadded(const Shape &S) { return padded(S) != S; }

/// The value a reduction of kind K ignores, of scalar type T.
Value *neutralElement(IRBuilder &B, ReduceKind K, const Type *T) {
  bool Float = T->getKind() == TypeKind::Float;
  double Inf = std::numeric_limits<double>::infinity();
  unsigned Bits = Float ? 0 : T->getIntBits();
  // Floats have no sign bit of an integer (and Bits - 1 would not be a valid shift).
  int64_t SignBit = Float        ? 0
                    : Bits >= 64 ? std::numeric_limits<int64_t>::min()
                                 : -(int64_t(1) << (Bits - 1));
  switch (K) {
  case ReduceKind::FMax:
    return B.getFloat(T, -Inf);
  case ReduceKind::FMin:
    return B.getFloat(T, Inf);
  case ReduceKind::SMax:
    return B.getInt(T, SignBit);
  case ReduceKind::SMin:
    return B.getInt(T, ~SignBit);
  case ReduceKind::UMin:
  case ReduceKind::And:
    return B.getInt(T, -1);
  default: // add, fadd, umax, or, xor
    return Float ? static_cast<Value *>(B.getFloat(T, 0)) : B.getInt(T, 0);
  }
}

class TilePadder {
public:
  explicit TilePadder(Function &F) : F(F), M(*F.getParent()), B(M) {}

  /// Pads F; returns false (F unchanged) with Error set when it cannot.
  bool run() {
    if (!needsPadding())
      return true;
    // Original types first: rewriting changes them as it goes.
    std::vector<Instruction *> Work;
    for (auto &BB : F.blocks())
      for (auto &I : BB->instructions()) {
        Work.push_back(I.get());
        Original[I.get()] = I->getType();
      }
    for (Instruction *I : Work)
      if (!supported(*I))
        return false;
    for (Instruction *I : Work)
      rewrite(*I);
    for (Instruction *I : Dead)
      I->eraseFromParent();
    for (Instruction *I : DeadLast)
      I->eraseFromParent();
    Changed = true;
    return true;
  }

  std::optional<PadTilesError> Error;
  bool Changed = false;

private:
  bool needsPadding() const {
    for (auto &BB : F.blocks())
      for (auto &I : BB->instructions())
        if (I->getType()->isTile() && isPadded(I->getType()->getShape()))
          return true;
    return false;
  }

  const Type *originalType(Value *V) const {
    if (Instruction *I = asInstruction(V))
      if (auto It = Original.find(I); It != Original.end())
        return It->second;
    return V->getType();
  }

  bool unsupported(const Instruction &I, const Type *T, const std::string &What) {
    Error = PadTilesError{I.Loc, What + " of a tile whose extents are not all powers of two (" +
                                     T->str() + ") is not supported on the GPU"};
    return false;
  }

  static Shape nonUnit(const Shape &S) {
    Shape R;
    for (int64_t D : S)
      if (D != 1)
        R.push_back(D);
    return R;
  }

  /// A reshape to 1-D whose users all reduce it to a scalar: the peephole
  /// pass's form of `x[+]` on a tile of rank 2 or more. Padding turns it back
  /// into one reduction per axis.
  static bool isFlatReduction(const Instruction &I) {
    if (I.getType()->getRank() != 1 || I.users().empty())
      return false;
    for (const Instruction *U : I.users())
      if (U->getOpcode() != Opcode::Reduce)
        return false;
    return true;
  }

  /// Whether I can be padded (checked for every instruction before any
  /// change).
  bool supported(const Instruction &I) {
    const Type *T = Original[const_cast<Instruction *>(&I)];
    for (Value *Op : I.operands())
      if (Op->getValueKind() == ValueKind::Constant && Op->getType()->isTile() &&
          isPadded(Op->getType()->getShape()))
        return unsupported(I, Op->getType(), "a constant");
    if (I.getOpcode() == Opcode::Reshape) {
      const Type *In = originalType(I.getOperand(0));
      if (nonUnit(In->getShape()) != nonUnit(T->getShape()) &&
          (isPadded(In->getShape()) || isPadded(T->getShape())) && !isFlatReduction(I))
        return unsupported(I, In, "a reshape");
    }
    const Type *PtrT = I.getNumOperands() ? originalType(I.getOperand(0)) : T;
    if (I.getOpcode() == Opcode::AtomicCAS && PtrT->isTile() && isPadded(PtrT->getShape()))
      return unsupported(I, PtrT, "an atomic_cas");
    if (I.getOpcode() == Opcode::Print)
      for (Value *Op : I.operands())
        if (originalType(Op)->isTile() && isPadded(originalType(Op)->getShape()))
          return unsupported(I, originalType(Op), "a print");
    return true;
  }

  /// i1 tile of the padded shape of S: true on the lanes inside S. Built
  /// once per shape, at the start of the entry block.
  Value *validLanes(const Shape &S) {
    if (auto It = ValidMasks.find(S); It != ValidMasks.end())
      return It->second;
    Shape P = padded(S);
    BasicBlock *Entry = F.getEntryBlock();
    B.setInsertPoint(Entry, Entry->instructions().begin());
    B.setLoc(SourceLoc());
    Value *Mask = nullptr;
    for (size_t D = 0; D < S.size(); ++D) {
      if (S[D] == P[D])
        continue;
      Value *Axis = axisBelow(S, D);
      Mask = Mask ? B.createBinary(Opcode::And, Mask, Axis) : Axis;
    }
    ValidMasks[S] = Mask;
    return Mask;
  }

  /// i1 tile of padded(S): index along axis D < S[D].
  Value *axisBelow(const Shape &S, size_t D) {
    Shape P = padded(S);
    Value *Range = B.createMakeRange(0, P[D]);
    Value *Bound = B.createSplat(B.getI32(static_cast<int32_t>(S[D])), {P[D]});
    Value *Below = B.createICmp(CmpPredicate::SLT, Range, Bound);
    Shape Line(P.size(), 1);
    Line[D] = P[D];
    if (Line != Shape{P[D]})
      Below = B.createReshape(Below, Line);
    if (Line != P)
      Below = B.createBroadcast(Below, P);
    return Below;
  }

  /// V with the lanes past S[Axis] along Axis replaced by Fill.
  Value *fillPastAxis(Value *V, const Shape &S, size_t Axis, Value *Fill) {
    Value *Below = axisBelow(S, Axis);
    Value *FillTile = B.createSplat(Fill, padded(S));
    return B.createSelect(Below, V, FillTile);
  }

  void rewrite(Instruction &I) {
    const Type *Old = Original[&I];
    if (Old->isTile() && isPadded(Old->getShape()))
      I.mutateType(Type::getTile(Old->getScalarType(), padded(Old->getShape())));
    B.setInsertPoint(&I);
    B.setLoc(I.Loc);
    switch (I.getOpcode()) {
    case Opcode::MakeRange:
      I.RangeEnd = I.RangeStart + I.getType()->getShape()[0];
      return;
    case Opcode::Reduce: {
      Instruction *Flat = asInstruction(I.getOperand(0));
      if (Flat && Flat->getOpcode() == Opcode::Reshape && isFlatReduction(*Flat) &&
          isPadded(originalType(Flat->getOperand(0))->getShape())) {
        unflattenReduction(I, *Flat);
        return;
      }
      const Type *In = originalType(I.getOperand(0));
      const Shape &S = In->getShape();
      size_t Axis = static_cast<size_t>(I.Axis);
      if (S[Axis] != nextPowerOfTwo(S[Axis]))
        I.setOperand(0, fillPastAxis(I.getOperand(0), S, Axis,
                                     neutralElement(B, I.Reduction, In->getScalarType())));
      return;
    }
    case Opcode::Dot: {
      const Shape &SA = originalType(I.getOperand(0))->getShape();
      const Shape &SB = originalType(I.getOperand(1))->getShape();
      if (SA[1] == nextPowerOfTwo(SA[1]))
        return;
      for (unsigned Op = 0; Op < 2; ++Op) {
        const Type *T = originalType(I.getOperand(Op))->getScalarType();
        Value *Zero = T->getKind() == TypeKind::Float ? static_cast<Value *>(B.getFloat(T, 0))
                                                      : B.getInt(T, 0);
        I.setOperand(Op, fillPastAxis(I.getOperand(Op), Op == 0 ? SA : SB, Op == 0 ? 1 : 0, Zero));
      }
      return;
    }
    case Opcode::Load:
    case Opcode::MaskedLoad:
    case Opcode::Store:
    case Opcode::MaskedStore:
    case Opcode::AtomicRMW:
      maskMemory(I);
      return;
    case Opcode::Assert: {
      // The extra lanes hold: cond || !valid.
      const Type *C = originalType(I.getOperand(0));
      if (C->isTile() && isPadded(C->getShape())) {
        Value *Valid = validLanes(C->getShape());
        B.setInsertPoint(&I);
        Value *Invalid =
            B.createBinary(Opcode::Xor, Valid, B.getConstantOfType(Valid->getType(), 1));
        I.setOperand(0, B.createBinary(Opcode::Or, I.getOperand(0), Invalid));
      }
      return;
    }
    default:
      return;
    }
  }

  /// Replaces reduce(reshape(x, [N]), 0) by a reduction of each axis of x,
  /// the innermost first, each over the original lanes only.
  void unflattenReduction(Instruction &Reduce, Instruction &Flat) {
    Value *V = Flat.getOperand(0);
    Shape S = originalType(V)->getShape();
    const Type *Elem = originalType(V)->getScalarType();
    while (!S.empty()) {
      size_t Axis = S.size() - 1;
      if (S[Axis] != nextPowerOfTwo(S[Axis]))
        V = fillPastAxis(V, S, Axis, neutralElement(B, Reduce.Reduction, Elem));
      V = B.createReduce(Reduce.Reduction, V, static_cast<int64_t>(Axis));
      S.pop_back();
    }
    Reduce.replaceAllUsesWith(V);
    Dead.push_back(&Reduce);
    if (std::find(DeadLast.begin(), DeadLast.end(), &Flat) == DeadLast.end())
      DeadLast.push_back(&Flat);
  }

  /// Narrows a memory instruction on a padded tile to the original lanes.
  void maskMemory(Instruction &I) {
    const Type *PtrT = originalType(I.getOperand(0));
    if (!PtrT->isTile() || !isPadded(PtrT->getShape()))
      return;
    Value *Valid = validLanes(PtrT->getShape());
    B.setInsertPoint(&I);
    B.setLoc(I.Loc);
    auto And = [&](Value *Mask) { return B.createBinary(Opcode::And, Mask, Valid); };
    switch (I.getOpcode()) {
    case Opcode::Load: {
      const Type *Elem = I.getType()->getScalarType();
      Value *Undef = B.createSplat(M.getUndef(Elem), I.getType()->getShape());
      Instruction *Masked = B.createMaskedLoad(I.getOperand(0), Valid, Undef);
      Masked->setName(I.getName());
      I.replaceAllUsesWith(Masked);
      Dead.push_back(&I);
      return;
    }
    case Opcode::Store:
      B.createMaskedStore(I.getOperand(0), I.getOperand(1), Valid);
      Dead.push_back(&I);
      return;
    case Opcode::MaskedLoad:
      I.setOperand(1, And(I.getOperand(1)));
      return;
    case Opcode::MaskedStore:
      I.setOperand(2, And(I.getOperand(2)));
      return;
    default: // atomic_rmw
      if (I.getNumOperands() == 3)
        I.setOperand(2, And(I.getOperand(2)));
      else
        I.addOperand(Valid);
      return;
    }
  }

  Function &F;
  Module &M;
  IRBuilder B;
  std::map<Instruction *, const Type *> Original;
  std::map<Shape, Value *> ValidMasks;
  std::vector<Instruction *> Dead;
  std::vector<Instruction *> DeadLast; ///< Erased after Dead (their users are in it).
};

} // namespace

std::optional<PadTilesError> padTilesToPowersOfTwo(Function &F) {
  TilePadder P(F);
  P.run();
  return P.Error;
}

bool PadTilesPass::run(Function &F, AnalysisManager &) {
  TilePadder P(F);
  P.run();
  return P.Changed;
}

std::unique_ptr<Pass> createPadTilesPass() { return std::make_unique<PadTilesPass>(); }

} // namespace tritonc::transform
