//===- SlotIndices.cpp - Which slot of a ring a shared operand names ------===//
#include "SlotIndices.h"

#include "tritonc/transform/Utils.h"

namespace tritonc::transform {

using namespace ir;

namespace {

std::optional<int64_t> intConstant(Value *V) {
  Constant *C = getConstantOrSplat(V);
  if (!C || C->isUndef())
    return std::nullopt;
  return C->getInt();
}

/// (X, S) when Next is `select (icmp eq (X + 1), S), 0, X + 1`: the ring
/// advance async-rings writes (or with sge/uge, the same while X is in
/// [0, S)).
std::optional<std::pair<Value *, int64_t>> ringAdvance(Value *Next) {
  Instruction *Sel = asInstruction(Next);
  if (!Sel || Sel->getOpcode() != Opcode::Select || intConstant(Sel->getOperand(1)) != 0)
    return std::nullopt;
  Instruction *Add = asInstruction(Sel->getOperand(2));
  Instruction *Cmp = asInstruction(Sel->getOperand(0));
  if (!Add || Add->getOpcode() != Opcode::Add || !Cmp || Cmp->getOpcode() != Opcode::ICmp ||
      Cmp->getOperand(0) != Add ||
      (Cmp->Predicate != CmpPredicate::EQ && Cmp->Predicate != CmpPredicate::SGE &&
       Cmp->Predicate != CmpPredicate::UGE))
    return std::nullopt;
  Value *X = nullptr;
  if (intConstant(Add->getOperand(1)) == 1)
    X = Add->getOperand(0);
  else if (intConstant(Add->getOperand(0)) == 1)
    X = Add->getOperand(1);
  std::optional<int64_t> S = intConstant(Cmp->getOperand(1));
  if (!X || !S || *S <= 0)
    return std::nullopt;
  return std::make_pair(X, *S);
}

/// S when Next is the ring advance of X modulo S.
std::optional<int64_t> advanceModulus(Value *Next, const Value *X) {
  std::optional<std::pair<Value *, int64_t>> Adv = ringAdvance(Next);
  if (!Adv || Adv->first != X)
    return std::nullopt;
  return Adv->second;
}

/// (S, D) when B is A advanced D times (0 < D < S) modulo S: the start of a
/// write counter a fixed distance ahead of a read counter whose start is not
/// a constant (a ring whose slots carry on across an outer loop, as
/// tensor-copies writes for nested loops). The two then name different
/// slots as long as A is a slot index in [0, S).
std::optional<std::pair<int64_t, int64_t>> advancedFrom(Value *B, const Value *A) {
  std::optional<int64_t> Modulus;
  for (int64_t D = 1; (!Modulus || D < *Modulus) && D <= 64; ++D) {
    std::optional<std::pair<Value *, int64_t>> Adv = ringAdvance(B);
    if (!Adv || (Modulus && *Modulus != Adv->second))
      return std::nullopt;
    Modulus = Adv->second;
    if (Adv->first == A)
      return D < *Modulus ? std::optional(std::make_pair(*Modulus, D)) : std::nullopt;
    B = Adv->first;
  }
  return std::nullopt;
}

/// Whether ring counters P and Q always differ: phis of one block that
/// every edge either enters with two different constants in [0, S), or
/// with a start and that start advanced 0 < D < S times modulo S, or
/// advances both modulo the same S (their difference modulo S never
/// changes within one run of the loop).
bool distinctCounters(const Value *PV, const Value *QV) {
  const Instruction *P = asInstruction(const_cast<Value *>(PV));
  const Instruction *Q = asInstruction(const_cast<Value *>(QV));
  if (!P || !Q || P->getOpcode() != Opcode::Phi || Q->getOpcode() != Opcode::Phi ||
      P->getParent() != Q->getParent())
    return false;
  std::optional<int64_t> Modulus;
  std::vector<std::pair<int64_t, int64_t>> Starts;
  std::vector<int64_t> StartModuli; ///< of starts a fixed distance apart
  for (const BasicBlock *Pred : P->getParent()->predecessors()) {
    Value *A = P->getIncomingValueFor(Pred), *B = Q->getIncomingValueFor(Pred);
    if (!A || !B)
      return false;
    std::optional<int64_t> CA = intConstant(A), CB = intConstant(B);
    if (CA && CB) {
      Starts.push_back({*CA, *CB});
      continue;
    }
    std::optional<std::pair<int64_t, int64_t>> Apart;
    if (A != B && !(Apart = advancedFrom(B, A)))
      Apart = advancedFrom(A, B);
    if (Apart) {
      StartModuli.push_back(Apart->first);
      continue;
    }
    std::optional<int64_t> MA = advanceModulus(A, P), MB = advanceModulus(B, Q);
    if (!MA || MA != MB || (Modulus && Modulus != MA))
      return false;
    Modulus = MA;
  }
  for (auto [A, B] : Starts)
    if (A == B || (Modulus && (A < 0 || B < 0 || A >= *Modulus || B >= *Modulus)))
      return false;
  // A distance is kept only modulo the loop's own advance.
  for (int64_t S : StartModuli)
    if (S != Modulus)
      return false;
  return true;
}

/// Index V as Steps ring advances modulo Modulus from Root (V itself, 0
/// steps, where it is no advance).
struct RingSteps {
  const Value *Root;
  int64_t Steps = 0;
  std::optional<int64_t> Modulus;
};

RingSteps ringStepsOf(const Value *V) {
  RingSteps R{V, 0, std::nullopt};
  while (Instruction *Sel = asInstruction(const_cast<Value *>(R.Root))) {
    if (Sel->getOpcode() != Opcode::Select)
      break;
    Instruction *Add = asInstruction(Sel->getOperand(2));
    if (!Add || Add->getOpcode() != Opcode::Add)
      break;
    Value *X = intConstant(Add->getOperand(1)) == 1 ? Add->getOperand(0) : Add->getOperand(1);
    std::optional<int64_t> S = advanceModulus(Sel, X);
    if (!S || (R.Modulus && R.Modulus != S))
      break;
    R = {X, R.Steps + 1, S};
  }
  return R;
}

/// Whether A and B are the same index advanced a different number of
/// times, modulo the ring's slots (the slots a tile-ahead prologue fills
/// and the ones after them, where tensor-stores stages the epilogue).
bool distinctAdvances(const Value *A, const Value *B) {
  RingSteps RA = ringStepsOf(A), RB = ringStepsOf(B);
  if (RA.Root != RB.Root)
    return false;
  std::optional<int64_t> S = RA.Modulus ? RA.Modulus : RB.Modulus;
  if (!S || (RA.Modulus && RB.Modulus && RA.Modulus != RB.Modulus))
    return false;
  return (RA.Steps - RB.Steps) % *S != 0;
}

} // namespace

SlotRef slotRefOf(Value *Slot) {
  Instruction *I = asInstruction(Slot);
  if (!I)
    return {};
  if (I->getOpcode() == Opcode::SmemAlloc)
    return I->getType()->getNumSlots() == 1 ? SlotRef{I, 0, nullptr} : SlotRef{I, {}, nullptr};
  if (I->getOpcode() != Opcode::SmemSlot)
    return {};
  Instruction *Buffer = asInstruction(I->getOperand(0));
  if (!Buffer || Buffer->getOpcode() != Opcode::SmemAlloc)
    return {};
  if (Constant *C = getConstantOrSplat(I->getOperand(1)))
    return {Buffer, C->getInt(), nullptr};
  return {Buffer, {}, I->getOperand(1)};
}

Value *previousRingIndex(Value *Next, int64_t Slots) {
  RingSteps R = ringStepsOf(Next);
  if (R.Steps == 0 || R.Modulus != Slots)
    return nullptr;
  // One advance back: the add's other operand.
  Instruction *Add = asInstruction(asInstruction(Next)->getOperand(2));
  return intConstant(Add->getOperand(1)) == 1 ? Add->getOperand(0) : Add->getOperand(1);
}

bool mayNameSameSlot(const SlotRef &A, const SlotRef &B) {
  if (A.Constant && B.Constant)
    return *A.Constant == *B.Constant;
  if (A.Index && B.Index)
    return A.Index == B.Index ||
           !(distinctCounters(A.Index, B.Index) || distinctAdvances(A.Index, B.Index));
  return true;
}

} // namespace tritonc::transform
