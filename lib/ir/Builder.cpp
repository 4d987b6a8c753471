//===- Builder.cpp --------------------------------------------------------===//
#include "tritonc/ir/Builder.h"

#include "tritonc/support/Diagnostics.h"

namespace tritonc::ir {

void IRBuilder::setInsertPoint(BasicBlock *Block) {
  BB = Block;
  AtEnd = true;
}

void IRBuilder::setInsertPoint(BasicBlock *Block, BasicBlock::iterator P) {
  BB = Block;
  Pos = P;
  AtEnd = false;
}

void IRBuilder::setInsertPoint(Instruction *I) {
  setInsertPoint(I->getParent(), I->getParent()->iteratorTo(I));
}

Instruction *IRBuilder::create(Opcode Op, const Type *ResultType,
                               const std::vector<Value *> &Operands) {
  if (!BB)
    reportInternalError("IRBuilder has no insertion point");
  auto I = Instruction::create(Op, ResultType, Operands);
  I->Loc = Loc;
  return BB->insert(AtEnd ? BB->instructions().end() : Pos, std::move(I));
}

Value *IRBuilder::getConstantOfType(const Type *T, double V) {
  const Type *S = T->getScalarType();
  Value *C = S->getKind() == TypeKind::Float
                 ? static_cast<Value *>(M.getFloat(S, V))
                 : static_cast<Value *>(M.getInt(S, static_cast<int64_t>(V)));
  if (T->isTile())
    return createSplat(C, T->getShape());
  return C;
}

Instruction *IRBuilder::createBinary(Opcode Op, Value *L, Value *R) {
  return create(Op, L->getType(), {L, R});
}

Instruction *IRBuilder::createUnary(Opcode Op, Value *V) { return create(Op, V->getType(), {V}); }

Instruction *IRBuilder::createFma(Value *A, Value *B, Value *C) {
  return create(Opcode::Fma, A->getType(), {A, B, C});
}

Instruction *IRBuilder::createICmp(CmpPredicate P, Value *L, Value *R) {
  Instruction *I = create(Opcode::ICmp, L->getType()->withScalar(Type::getI1()), {L, R});
  I->Predicate = P;
  return I;
}

Instruction *IRBuilder::createFCmp(CmpPredicate P, Value *L, Value *R) {
  Instruction *I = create(Opcode::FCmp, L->getType()->withScalar(Type::getI1()), {L, R});
  I->Predicate = P;
  return I;
}

Instruction *IRBuilder::createCast(Opcode Op, Value *V, const Type *ToScalar) {
  return create(Op, V->getType()->withScalar(ToScalar->getScalarType()), {V});
}

Instruction *IRBuilder::createSelect(Value *Cond, Value *A, Value *B) {
  return create(Opcode::Select, A->getType(), {Cond, A, B});
}

Instruction *IRBuilder::createGEP(Value *Ptr, Value *Offset) {
  return create(Opcode::GEP, Ptr->getType(), {Ptr, Offset});
}

Instruction *IRBuilder::createMakeRange(int64_t Start, int64_t End) {
  Instruction *I = create(Opcode::MakeRange, Type::getTile(Type::getI32(), {End - Start}), {});
  I->RangeStart = Start;
  I->RangeEnd = End;
  return I;
}

Instruction *IRBuilder::createSplat(Value *Scalar, const Shape &S) {
  return create(Opcode::Splat, Scalar->getType()->withShape(S), {Scalar});
}

Instruction *IRBuilder::createReshape(Value *V, const Shape &S) {
  return create(Opcode::Reshape, V->getType()->withShape(S), {V});
}

Instruction *IRBuilder::createBroadcast(Value *V, const Shape &S) {
  return create(Opcode::Broadcast, V->getType()->withShape(S), {V});
}

Instruction *IRBuilder::createTrans(Value *V) {
  Shape S = V->getType()->getShape();
  Shape T(S.rbegin(), S.rend());
  return create(Opcode::Trans, V->getType()->withShape(T), {V});
}

Instruction *IRBuilder::createDot(Value *A, Value *B, Value *Acc) {
  return create(Opcode::Dot, Acc->getType(), {A, B, Acc});
}

Instruction *IRBuilder::createReduce(ReduceKind K, Value *V, int64_t Axis) {
  Shape S = V->getType()->getShape();
  if (Axis < 0 || Axis >= static_cast<int64_t>(S.size()))
    reportInternalError("reduce axis out of range");
  S.erase(S.begin() + Axis);
  Instruction *I = create(Opcode::Reduce, V->getType()->withShape(S), {V});
  I->Reduction = K;
  I->Axis = Axis;
  return I;
}

Instruction *IRBuilder::createLoad(Value *Ptr) {
  const Type *PT = Ptr->getType();
  return create(Opcode::Load, PT->withScalar(PT->getPointee()), {Ptr});
}

Instruction *IRBuilder::createStore(Value *Ptr, Value *Val) {
  return create(Opcode::Store, Type::getVoid(), {Ptr, Val});
}

Instruction *IRBuilder::createMaskedLoad(Value *Ptr, Value *Mask, Value *Other) {
  const Type *PT = Ptr->getType();
  return create(Opcode::MaskedLoad, PT->withScalar(PT->getPointee()), {Ptr, Mask, Other});
}

Instruction *IRBuilder::createMaskedStore(Value *Ptr, Value *Val, Value *Mask) {
  return create(Opcode::MaskedStore, Type::getVoid(), {Ptr, Val, Mask});
}

Instruction *IRBuilder::createAtomicCAS(Value *Ptr, Value *Cmp, Value *Val) {
  return create(Opcode::AtomicCAS, Val->getType(), {Ptr, Cmp, Val});
}

Instruction *IRBuilder::createAtomicRMW(ReduceKind K, Value *Ptr, Value *Val, Value *Mask) {
  std::vector<Value *> Ops = {Ptr, Val};
  if (Mask)
    Ops.push_back(Mask);
  Instruction *I = create(Opcode::AtomicRMW, Val->getType(), Ops);
  I->Reduction = K;
  return I;
}

Instruction *IRBuilder::createGetProgramId(int64_t Axis) {
  Instruction *I = create(Opcode::GetProgramId, Type::getI32(), {});
  I->Axis = Axis;
  return I;
}

Instruction *IRBuilder::createGetNumPrograms(int64_t Axis) {
  Instruction *I = create(Opcode::GetNumPrograms, Type::getI32(), {});
  I->Axis = Axis;
  return I;
}

Instruction *IRBuilder::createPhi(const Type *T) { return create(Opcode::Phi, T, {}); }

Instruction *IRBuilder::createBr(BasicBlock *Dest) {
  Instruction *I = create(Opcode::Br, Type::getVoid(), {});
  I->addSuccessor(Dest);
  return I;
}

Instruction *IRBuilder::createCondBr(Value *Cond, BasicBlock *True, BasicBlock *False) {
  Instruction *I = create(Opcode::CondBr, Type::getVoid(), {Cond});
  I->addSuccessor(True);
  I->addSuccessor(False);
  return I;
}

Instruction *IRBuilder::createRet(Value *V) {
  return create(Opcode::Ret, Type::getVoid(), V ? std::vector<Value *>{V} : std::vector<Value *>{});
}

} // namespace tritonc::ir
