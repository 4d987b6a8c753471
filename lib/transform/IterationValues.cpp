//===- IterationValues.cpp - A loop's values at later iterations ----------===//
#include "IterationValues.h"

#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>

namespace tritonc::transform {

using namespace ir;

static bool isDivision(Opcode Op) {
  return Op == Opcode::SDiv || Op == Opcode::UDiv || Op == Opcode::SRem || Op == Opcode::URem;
}

IterationValues::IterationValues(const Loop &L, BasicBlock *Preheader, BasicBlock *Latch,
                                 Instruction *BodyPoint, bool NextAtBodyPoint)
    : L(L), Preheader(Preheader), Latch(Latch), BodyPoint(BodyPoint),
      NextAtBodyPoint(NextAtBodyPoint), M(*L.getHeader()->getParent()->getParent()) {}

void IterationValues::findInductions() {
  for (auto &IPtr : L.getHeader()->instructions()) {
    Instruction *Phi = IPtr.get();
    if (Phi->getOpcode() != Opcode::Phi)
      break;
    Induction Ind;
    Ind.Phi = Phi;
    Ind.Init = Phi->getIncomingValueFor(Preheader);
    Value *Back = Phi->getIncomingValueFor(Latch);
    if (!Ind.Init || !Back || Phi->getNumOperands() != 2)
      continue;
    if (Back != Phi) {
      Instruction *Next = asInstruction(Back);
      if (!Next || !L.contains(Next))
        continue;
      Opcode Op = Next->getOpcode();
      if (Op != Opcode::Add && Op != Opcode::Sub && Op != Opcode::GEP)
        continue;
      if (Next->getOperand(0) == Phi)
        Ind.Step = Next->getOperand(1);
      else if (Op == Opcode::Add && Next->getOperand(1) == Phi)
        Ind.Step = Next->getOperand(0);
      if (!Ind.Step)
        continue;
      Ind.Next = Next;
      if (!isInvariant(Ind.Step)) {
        Gathers[Phi] = Ind;
        continue;
      }
      NextOf[Next] = Phi;
    }
    Inductions[Phi] = Ind;
  }
}

void IterationValues::enableGathers(const ExitBranch &Branch) {
  GatherBranch = Branch;
  for (auto &[Phi, Ind] : Gathers)
    NextOf[Ind.Next] = Phi;
}

const Induction *IterationValues::gatherInduction(Value *V) const {
  auto It = Gathers.find(asInstruction(V));
  return It == Gathers.end() ? nullptr : &It->second;
}

bool IterationValues::isInvariant(Value *V) {
  Instruction *I = asInstruction(V);
  if (!I || !L.contains(I))
    return true;
  if (auto It = InvariantMemo.find(V); It != InvariantMemo.end())
    return It->second;
  bool Ok = I->getOpcode() != Opcode::Phi && isSafeToSpeculate(*I) &&
            std::all_of(I->operands().begin(), I->operands().end(),
                        [&](Value *Op) { return isInvariant(Op); });
  return InvariantMemo[V] = Ok;
}

bool IterationValues::isSliceClean(Value *V) { return isClean(V, GatherBranch.has_value()); }

bool IterationValues::isSliceCleanWithoutLoads(Value *V) { return isClean(V, false); }

bool IterationValues::isClean(Value *V, bool WithGathers) {
  Instruction *I = asInstruction(V);
  if (!I || !L.contains(I))
    return true;
  std::map<Value *, bool> &Memo = WithGathers ? GatherCleanMemo : CleanMemo;
  if (auto It = Memo.find(V); It != Memo.end())
    return It->second;
  if (I->getOpcode() == Opcode::Phi) {
    if (Inductions.count(I))
      return true;
    auto It = Gathers.find(I);
    if (!WithGathers || It == Gathers.end())
      return false;
    // A step computed from the phi itself (a pointer chased through memory)
    // would need the value of the iteration before: not clean.
    Memo[V] = false;
    return Memo[V] = isClean(It->second.Step, true);
  }
  bool Ok =
      mayClone(*I, WithGathers) && std::all_of(I->operands().begin(), I->operands().end(),
                                               [&](Value *Op) { return isClean(Op, WithGathers); });
  return Memo[V] = Ok;
}

bool IterationValues::mayClone(const Instruction &I, bool WithGathers) const {
  if (WithGathers && (I.getOpcode() == Opcode::Load || I.getOpcode() == Opcode::MaskedLoad))
    return true;
  return isSafeToSpeculate(I) || (GuardDivisors && isDivision(I.getOpcode()) && isPure(I));
}

Instruction *IterationValues::sliceObstacle(Value *V) {
  if (isSliceClean(V))
    return nullptr;
  Instruction *I = asInstruction(V);
  if (I->getOpcode() == Opcode::Phi || !mayClone(*I, GatherBranch.has_value()))
    return I;
  for (Value *Op : I->operands())
    if (Instruction *O = sliceObstacle(Op))
      return O;
  return I;
}

Instruction *IterationValues::insertPoint(Where W) const {
  return W == Where::Body ? BodyPoint : Preheader->getTerminator();
}

Instruction *IterationValues::insert(Where W, std::unique_ptr<Instruction> I,
                                     const Instruction *Like) {
  if (Like) {
    I->Loc = Like->Loc;
    I->setName(Like->getName());
  }
  Instruction *Pos = insertPoint(W);
  BasicBlock *BB = Pos->getParent();
  return BB->insert(BB->iteratorTo(Pos), std::move(I));
}

bool IterationValues::availableAtBodyPoint(const Instruction *I) const {
  // At the end of the latch (NextAtBodyPoint) everything is. Elsewhere the
  // body point's block is dominated by the loop's other instructions that
  // slices use, but its own instructions after the point (the update of an
  // induction and its step, in a latch that was not cleaned up) are not.
  if (NextAtBodyPoint || I->getParent() != BodyPoint->getParent())
    return true;
  for (const auto &J : I->getParent()->instructions()) {
    if (J.get() == BodyPoint)
      return false;
    if (J.get() == I)
      return true;
  }
  return false;
}

Value *IterationValues::valueAt(Value *V, Where W, unsigned T) {
  Instruction *I = asInstruction(V);
  if (!I || !L.contains(I) || (W == Where::Body && T == 0 && availableAtBodyPoint(I)))
    return V;
  // An invariant has the same value at every iteration: the loop's own
  // instruction where it is available, else a clone.
  if (isInvariant(V)) {
    if (W == Where::Body && availableAtBodyPoint(I))
      return V;
    T = 0;
  }
  if (I->getOpcode() == Opcode::Phi)
    return Inductions.count(I) ? inductionAt(Inductions.at(I), W, T)
                               : gatherInductionAt(Gathers.at(I), W, T);
  // The update of an induction at iteration i + T is the induction at
  // i + T + 1: one instruction instead of two.
  if (auto It = NextOf.find(I); It != NextOf.end())
    return Inductions.count(It->second) ? inductionAt(Inductions.at(It->second), W, T + 1)
                                        : gatherInductionAt(Gathers.at(It->second), W, T + 1);
  auto Key = std::make_tuple(V, W, T);
  if (auto It = ValueMemo.find(Key); It != ValueMemo.end())
    return It->second;
  if (I->getOpcode() == Opcode::Load || I->getOpcode() == Opcode::MaskedLoad)
    return ValueMemo[Key] = loadAt(I, W, T);
  std::vector<Value *> Ops;
  for (Value *Op : I->operands())
    Ops.push_back(valueAt(Op, W, T));
  if (isDivision(I->getOpcode()) && !isSafeToSpeculate(*I)) {
    const Type *DT = Ops[1]->getType();
    Value *Zero = materializeConstant(M.getInt(DT->getScalarType(), 0), DT, insertPoint(W));
    Value *One = materializeConstant(M.getInt(DT->getScalarType(), 1), DT, insertPoint(W));
    auto IsZero = Instruction::create(Opcode::ICmp, DT->withScalar(Type::getI1()), {Ops[1], Zero});
    IsZero->Predicate = CmpPredicate::EQ;
    Value *Cmp = insert(W, std::move(IsZero), nullptr);
    Ops[1] = insert(W, Instruction::create(Opcode::Select, DT, {Cmp, One, Ops[1]}), nullptr);
  }
  auto Clone = Instruction::create(I->getOpcode(), I->getType(), Ops);
  Clone->Predicate = I->Predicate;
  Clone->Reduction = I->Reduction;
  Clone->Axis = I->Axis;
  Clone->RangeStart = I->RangeStart;
  Clone->RangeEnd = I->RangeEnd;
  return ValueMemo[Key] = insert(W, std::move(Clone), I);
}

Value *IterationValues::inductionAt(const Induction &Ind, Where W, unsigned T) {
  Value *Base = W == Where::Body ? static_cast<Value *>(Ind.Phi) : Ind.Init;
  if (T == 0 || !Ind.Next)
    return Base;
  // The loop's own update already is the induction at i + 1.
  if (W == Where::Body && T == 1 && NextAtBodyPoint)
    return Ind.Next;
  auto Key = std::make_tuple(static_cast<Value *>(Ind.Phi), W, T);
  if (auto It = ValueMemo.find(Key); It != ValueMemo.end())
    return It->second;

  Opcode Op = Ind.Next->getOpcode();
  Value *Step = valueAt(Ind.Step, W, 0);
  Value *Result = nullptr;
  // A constant step folds into one constant T * step. Integer add and sub
  // wrap like the repeated additions they replace; gep sign-extends its
  // offset, so there the product must fit in the offset's type.
  if (Constant *C = getConstantOrSplat(Step); C && !C->isUndef()) {
    unsigned Bits = Step->getType()->getIntBits();
    int64_t Product = 0;
    bool Fits = !__builtin_mul_overflow(C->getInt(), static_cast<int64_t>(T), &Product);
    Constant *B = asConstant(Base);
    if (Fits && Op != Opcode::GEP && B && !B->isUndef()) {
      // A constant initial value (`for (k = 0; ...)`) folds completely.
      int64_t V = Op == Opcode::Add ? static_cast<int64_t>(static_cast<uint64_t>(B->getInt()) +
                                                           static_cast<uint64_t>(Product))
                                    : static_cast<int64_t>(static_cast<uint64_t>(B->getInt()) -
                                                           static_cast<uint64_t>(Product));
      return ValueMemo[Key] = M.getInt(Ind.Phi->getType(), V);
    }
    if (Fits && (Op != Opcode::GEP || normalizeInt(Product, Bits) == Product)) {
      Constant *TC = M.getInt(Step->getType()->getScalarType(), Product);
      // A splatted constant is loop-invariant: it goes in the preheader.
      Value *Offset = materializeConstant(TC, Step->getType(), Preheader->getTerminator());
      Result = insert(W, Instruction::create(Op, Ind.Phi->getType(), {Base, Offset}), Ind.Next);
    }
  }
  if (!Result) {
    Value *Prev = inductionAt(Ind, W, T - 1);
    Result = insert(W, Instruction::create(Op, Ind.Phi->getType(), {Prev, Step}), Ind.Next);
  }
  return ValueMemo[Key] = Result;
}

Value *IterationValues::gatherInductionAt(const Induction &Ind, Where W, unsigned T) {
  if (T == 0)
    return W == Where::Body ? static_cast<Value *>(Ind.Phi) : Ind.Init;
  if (W == Where::Body && T == 1)
    return Ind.Next;
  auto Key = std::make_tuple(static_cast<Value *>(Ind.Phi), W, T);
  if (auto It = ValueMemo.find(Key); It != ValueMemo.end())
    return It->second;
  ClonedGathers = true;
  Value *Prev = nullptr;
  Instruction *Carried = nullptr;
  if (W == Where::Preheader) {
    Prev = gatherInductionAt(Ind, W, T - 1);
  } else if (T == 2) {
    Prev = Ind.Next;
  } else {
    // The value of iteration i + T - 1, carried around the loop, so that
    // each iteration adds one step instead of T - 1.
    Value *Start = gatherInductionAt(Ind, Where::Preheader, T - 1);
    BasicBlock *Header = L.getHeader();
    auto FirstNonPhi = Header->instructions().begin();
    while ((*FirstNonPhi)->getOpcode() == Opcode::Phi)
      ++FirstNonPhi;
    auto Phi = Instruction::create(Opcode::Phi, Ind.Phi->getType(), {});
    Phi->Loc = Ind.Phi->Loc;
    Phi->setName(Ind.Phi->getName().empty() ? "ahead" : Ind.Phi->getName() + ".ahead");
    Carried = Header->insert(FirstNonPhi, std::move(Phi));
    Carried->addIncoming(Start, Preheader);
    Prev = Carried;
  }
  Value *Step = valueAt(Ind.Step, W, T - 1);
  Instruction *Result = insert(
      W, Instruction::create(Ind.Next->getOpcode(), Ind.Phi->getType(), {Prev, Step}), Ind.Next);
  ValueMemo[Key] = Result;
  if (Carried)
    Carried->addIncoming(Result, Latch);
  return Result;
}

Value *IterationValues::loadAt(Instruction *I, Where W, unsigned T) {
  ClonedGathers = true;
  const Type *Ty = I->getType();
  Value *Guard = runsThrough(*GatherBranch, W, T);
  if (Ty->isTile()) {
    const Type *MaskTy = Ty->withScalar(Type::getI1());
    Value *&Splat = SplatMemo[{W, Guard, MaskTy}];
    if (!Splat)
      Splat = insert(W, Instruction::create(Opcode::Splat, MaskTy, {Guard}), nullptr);
    Guard = Splat;
  }
  Value *Ptr = valueAt(I->getOperand(0), W, T);
  Value *Mask = Guard, *Other = nullptr;
  if (I->getOpcode() == Opcode::MaskedLoad) {
    Mask = andWith(W, valueAt(I->getOperand(1), W, T), Guard);
    Other = valueAt(I->getOperand(2), W, T);
  } else {
    Other = zeroOf(Ty);
  }
  return insert(W, Instruction::create(Opcode::MaskedLoad, Ty, {Ptr, Mask, Other}), I);
}

Value *IterationValues::zeroOf(const Type *T) {
  Value *&Zero = ZeroMemo[T];
  if (!Zero)
    Zero = zeroOfType(M, T, Preheader->getTerminator());
  return Zero;
}

Value *IterationValues::runsThrough(const ExitBranch &Branch, Where W, unsigned T) {
  unsigned First = W == Where::Body ? 1 : 0;
  if (T < First)
    return nullptr;
  auto Key = std::make_pair(W, T);
  if (auto It = RunsThroughMemo.find(Key); It != RunsThroughMemo.end())
    return It->second;
  // The earlier iterations first: the chain reads in iteration order.
  Value *Before = T > First ? runsThrough(Branch, W, T - 1) : nullptr;
  Value *Runs = loopRunsAt(Branch, W, T);
  return RunsThroughMemo[Key] = Before ? andWith(W, Before, Runs) : Runs;
}

Value *zeroOfType(Module &M, const Type *T, Instruction *InsertBefore) {
  const Type *S = T->getScalarType();
  Constant *C = S->getKind() == TypeKind::Float     ? M.getFloat(S, 0)
                : S->getKind() == TypeKind::Pointer ? M.getNullPointer(S)
                                                    : M.getInt(S, 0);
  return materializeConstant(C, T, InsertBefore);
}

std::optional<ExitBranch> exitBranch(const Loop &L, std::string &Why) {
  Instruction *T = L.getHeader()->getTerminator();
  if (!T || T->getOpcode() != Opcode::CondBr) {
    Why = "the header does not end with a conditional branch";
    return std::nullopt;
  }
  BasicBlock *S0 = T->successors()[0], *S1 = T->successors()[1];
  if (L.contains(S0) == L.contains(S1)) {
    Why = "the header's branch does not exit the loop";
    return std::nullopt;
  }
  ExitBranch E;
  E.Cond = T->getOperand(0);
  E.BodyOnTrue = L.contains(S0);
  E.Body = E.BodyOnTrue ? S0 : S1;
  E.Exit = E.BodyOnTrue ? S1 : S0;
  return E;
}

std::optional<SingleBlockLoop> singleBlockLoop(const Loop &L, std::string &Why) {
  BasicBlock *Header = L.getHeader();
  SingleBlockLoop S;
  if (!L.subLoops().empty())
    Why = "contains a nested loop";
  else if (L.blocks().size() != 2)
    Why = "the body is not a single block";
  else if (!(S.Preheader = L.getPreheader()))
    Why = "no preheader";
  if (!Why.empty())
    return std::nullopt;
  std::optional<ExitBranch> Branch = exitBranch(L, Why);
  if (!Branch)
    return std::nullopt;
  S.Branch = *Branch;
  Instruction *BT = S.Branch.Body->getTerminator();
  if (S.Branch.Body == Header)
    Why = "the header is the body";
  else if (!BT || BT->getOpcode() != Opcode::Br || BT->successors()[0] != Header)
    Why = "the body does not branch back to the header";
  if (!Why.empty())
    return std::nullopt;
  return S;
}

Instruction *firstSideEffect(const Loop &L, BasicBlock *Body) {
  for (BasicBlock *BB : {L.getHeader(), Body})
    for (auto &I : BB->instructions())
      if (I->hasSideEffects() && !I->isTerminator())
        return I.get();
  return nullptr;
}

const Instruction *firstDotOf(const Loop &L, const LoopInfo &LI) {
  for (BasicBlock *BB : L.blocks())
    if (LI.getLoopFor(BB) == &L)
      for (auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::Dot)
          return I.get();
  return nullptr;
}

Value *stripTransInLoop(const Loop &L, Value *V) {
  while (Instruction *Tr = asInstruction(V))
    if (Tr->getOpcode() == Opcode::Trans && L.contains(Tr))
      V = Tr->getOperand(0);
    else
      break;
  return V;
}

Value *IterationValues::loopRunsAt(const ExitBranch &Branch, Where W, unsigned T) {
  auto Key = std::make_pair(W, T);
  if (auto It = RunsMemo.find(Key); It != RunsMemo.end())
    return It->second;
  Value *C = valueAt(Branch.Cond, W, T);
  if (!Branch.BodyOnTrue)
    C = insert(W, Instruction::create(Opcode::Xor, C->getType(), {C, M.getBool(true)}), nullptr);
  return RunsMemo[Key] = C;
}

/// The operand of the tile mask And (an `and`) that broadcasts the fewest
/// elements, or -1 when neither is a broadcast of a tile.
static int smallestBroadcastFactor(const Instruction &And) {
  int Pick = -1;
  int64_t Fewest = And.getType()->getNumElements();
  for (int K = 0; K < 2; ++K) {
    const Instruction *Bc = asInstruction(And.getOperand(K));
    if (!Bc || Bc->getOpcode() != Opcode::Broadcast || !Bc->getOperand(0)->getType()->isTile())
      continue;
    if (int64_t N = Bc->getOperand(0)->getType()->getNumElements(); N < Fewest) {
      Pick = K;
      Fewest = N;
    }
  }
  return Pick;
}

Value *IterationValues::andWith(Where W, Value *A, Value *B) {
  Value *&And = AndMemo[std::make_tuple(W, A, B)];
  if (And)
    return And;
  // A uniform guard (a splat) is folded into the mask's smallest broadcast
  // factor: `(rows && cols) && g` becomes `rows && (cols && g)` with
  // `cols && g` computed before the broadcast, once per column a thread
  // holds, instead of once more per element of the tile (the guards of
  // pipelined loads whose masks are per element: unaligned rows).
  Instruction *AI = asInstruction(A), *BI = asInstruction(B);
  bool GuardOfAnd = AI && BI && AI->getOpcode() == Opcode::And && BI->getOpcode() == Opcode::Splat;
  // (s && X) && g with s uniform too: X && (s && g), the guards joined as
  // scalars, so that X's factors can take them.
  for (int K = 0; GuardOfAnd && K < 2; ++K)
    if (const Instruction *S = asInstruction(AI->getOperand(K));
        S && S->getOpcode() == Opcode::Splat) {
      Value *Both = andWith(W, S->getOperand(0), BI->getOperand(0));
      Value *&Splat = SplatMemo[{W, Both, A->getType()}];
      if (!Splat)
        Splat = insert(W, Instruction::create(Opcode::Splat, A->getType(), {Both}), nullptr);
      Value *Folded = andWith(W, AI->getOperand(1 - K), Splat);
      return AndMemo[std::make_tuple(W, A, B)] = Folded;
    }
  int Pick = GuardOfAnd ? smallestBroadcastFactor(*AI) : -1;
  if (Pick < 0) {
    And = insert(W, Instruction::create(Opcode::And, A->getType(), {A, B}), nullptr);
    return And;
  }
  Instruction *Factor = asInstruction(AI->getOperand(Pick));
  Value *Source = Factor->getOperand(0);
  Value *&Guard = SplatMemo[{W, BI->getOperand(0), Source->getType()}];
  if (!Guard)
    Guard = insert(W, Instruction::create(Opcode::Splat, Source->getType(), {BI->getOperand(0)}),
                   nullptr);
  Value *Guarded = insert(
      W, Instruction::create(Opcode::Broadcast, Factor->getType(), {andWith(W, Source, Guard)}),
      nullptr);
  Value *Rest = AI->getOperand(1 - Pick);
  And = insert(W,
               Instruction::create(Opcode::And, A->getType(),
                                   {Pick == 0 ? Guarded : Rest, Pick == 0 ? Rest : Guarded}),
               nullptr);
  return And;
}

} // namespace tritonc::transform
