//===- Peephole.cpp - Block-level and scalar peephole rewrites ------------===//
#include "tritonc/transform/Peephole.h"

#include "tritonc/transform/ConstantEval.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

namespace tritonc::transform {

using namespace ir;

namespace {

/// The operand of I as an instruction with the given opcode, or null.
Instruction *operandOf(const Instruction &I, unsigned K, Opcode Op) {
  Instruction *D = asInstruction(I.getOperand(K));
  return D && D->getOpcode() == Op ? D : nullptr;
}

/// Creates a detached copy-like instruction of I's kind at I's position.
Instruction *insertBefore(Instruction &I, Opcode Op, const Type *T, std::vector<Value *> Ops) {
  auto New = Instruction::create(Op, T, Ops);
  New->Loc = I.Loc;
  BasicBlock *BB = I.getParent();
  return BB->insert(BB->iteratorTo(&I), std::move(New));
}

/// Rewrites I in place to take the operand of its single-input producer
/// (reshape(reshape x) -> reshape x), erasing the producer if now unused.
bool bypassOperand(Instruction &I, Instruction &Producer) {
  I.setOperand(0, Producer.getOperand(0));
  eraseIfTriviallyDead(&Producer);
  return true;
}

/// reduce(reduce(x, a), b) -> reduce(reshape(x, [N]), 0).
Value *flattenReductions(Instruction &Outer) {
  Instruction *Inner = operandOf(Outer, 0, Opcode::Reduce);
  if (!Inner || Inner->Reduction != Outer.Reduction || Inner->users().size() != 1)
    return nullptr;
  Value *X = Inner->getOperand(0);
  // Two reductions of a 2-D tile down to a scalar reduce every element.
  if (X->getType()->getRank() != 2 || !Outer.getType()->isScalar())
    return nullptr;
  const Type *Flat = X->getType()->withShape({X->getType()->getNumElements()});
  Instruction *Reshape = insertBefore(Outer, Opcode::Reshape, Flat, {X});
  Instruction *Reduce = insertBefore(Outer, Opcode::Reduce, Outer.getType(), {Reshape});
  Reduce->Reduction = Outer.Reduction;
  Reduce->Axis = 0;
  return Reduce;
}

/// add(dot(a, b, 0), c) or add(c, dot(a, b, 0)) -> dot(a, b, c).
Value *foldAccumulation(Instruction &Add) {
  for (unsigned K = 0; K < 2; ++K) {
    Instruction *Dot = operandOf(Add, K, Opcode::Dot);
    Value *C = Add.getOperand(1 - K);
    if (!Dot || Dot->users().size() != 1 || C->getType() != Dot->getType())
      continue;
    Constant *Acc = getConstantOrSplat(Dot->getOperand(2));
    if (!Acc || !Acc->isZero())
      continue;
    return insertBefore(Add, Opcode::Dot, Dot->getType(),
                        {Dot->getOperand(0), Dot->getOperand(1), C});
  }
  return nullptr;
}

/// mul x, 2^k -> shl x, k for integers (either operand order).
Value *mulToShift(Instruction &Mul) {
  for (unsigned K = 0; K < 2; ++K) {
    Constant *C = getConstantOrSplat(Mul.getOperand(K));
    if (!C || C->isUndef() || C->getType()->getKind() != TypeKind::Int)
      continue;
    uint64_t V = asUnsigned(*C);
    // Powers of two above 1 (x*1 is constfold's; i1 has no such constant).
    if (V < 2 || (V & (V - 1)) != 0)
      continue;
    int64_t Shift = 0;
    while ((uint64_t(1) << Shift) != V)
      ++Shift;
    Module &M = *Mul.getFunction()->getParent();
    Value *Amount = materializeConstant(M.getInt(C->getType(), Shift), Mul.getType(), &Mul);
    return insertBefore(Mul, Opcode::Shl, Mul.getType(), {Mul.getOperand(1 - K), Amount});
  }
  return nullptr;
}

/// Applies one rewrite to I. Returns the value replacing I, I itself when I
/// was changed in place, or null when nothing applies.
Value *rewrite(Instruction &I) {
  const Type *T = I.getType();
  switch (I.getOpcode()) {
  case Opcode::Trans:
    if (Instruction *Inner = operandOf(I, 0, Opcode::Trans))
      if (Inner->getOperand(0)->getType() == T)
        return Inner->getOperand(0);
    if (Instruction *S = operandOf(I, 0, Opcode::Splat))
      return insertBefore(I, Opcode::Splat, T, {S->getOperand(0)});
    return nullptr;
  case Opcode::Reshape:
  case Opcode::Broadcast:
    if (I.getOperand(0)->getType() == T)
      return I.getOperand(0);
    if (Instruction *Inner = operandOf(I, 0, I.getOpcode()))
      return bypassOperand(I, *Inner) ? &I : nullptr;
    if (Instruction *S = operandOf(I, 0, Opcode::Splat))
      return insertBefore(I, Opcode::Splat, T, {S->getOperand(0)});
    return nullptr;
  case Opcode::Reduce:
    return flattenReductions(I);
  case Opcode::FAdd:
  case Opcode::Add:
    return foldAccumulation(I);
  case Opcode::Select:
    return I.getOperand(1) == I.getOperand(2) ? I.getOperand(1) : nullptr;
  case Opcode::Mul:
    return mulToShift(I);
  default:
    return nullptr;
  }
}

} // namespace

bool PeepholePass::run(Function &F, AnalysisManager &) {
  // Chains (trans(trans(trans x)), reshape^n) shrink by one link per
  // rewrite; repeat until no rewrite applies.
  return sweepUntilUnchanged(F, [](Instruction &I) {
    Value *V = rewrite(I);
    if (!V)
      return false;
    if (V != &I)
      replaceAndErase(&I, V);
    return true;
  });
}

std::unique_ptr<Pass> createPeepholePass() { return std::make_unique<PeepholePass>(); }

} // namespace tritonc::transform
