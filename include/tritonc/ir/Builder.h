//===- Builder.h - Creates Triton-IR instructions --------------*- C++ -*-===//
//
// Convenience constructors that infer result types. They do not insert
// implicit broadcasts or conversions: operands must already have matching
// types (IRGen does the Triton-C conversions). The verifier checks the rules.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

namespace tritonc::ir {

class IRBuilder {
public:
  explicit IRBuilder(Module &M) : M(M) {}

  Module &getModule() { return M; }
  /// Instructions are appended at the end of BB.
  void setInsertPoint(BasicBlock *BB);
  /// Instructions are inserted before Pos in BB.
  void setInsertPoint(BasicBlock *BB, BasicBlock::iterator Pos);
  /// Instructions are inserted before I.
  void setInsertPoint(Instruction *I);
  BasicBlock *getInsertBlock() const { return BB; }
  /// Location attached to every created instruction.
  void setLoc(SourceLoc L) { Loc = L; }

  // Constants.
  Constant *getInt(const Type *T, int64_t V) { return M.getInt(T, V); }
  Constant *getI32(int32_t V) { return M.getI32(V); }
  Constant *getI64(int64_t V) { return M.getInt(Type::getI64(), V); }
  Constant *getBool(bool V) { return M.getBool(V); }
  Constant *getFloat(const Type *T, double V) { return M.getFloat(T, V); }
  /// A scalar constant of T's scalar type, splatted when T is a tile.
  Value *getConstantOfType(const Type *T, double V);

  /// Generic creation with an explicit result type (the IR parser uses it).
  Instruction *create(Opcode Op, const Type *ResultType, const std::vector<Value *> &Operands);

  // Element-wise.
  Instruction *createBinary(Opcode Op, Value *L, Value *R);
  Instruction *createUnary(Opcode Op, Value *V);
  Instruction *createFma(Value *A, Value *B, Value *C);
  Instruction *createICmp(CmpPredicate P, Value *L, Value *R);
  Instruction *createFCmp(CmpPredicate P, Value *L, Value *R);
  /// Cast V to the scalar type To (the shape of V is kept).
  Instruction *createCast(Opcode Op, Value *V, const Type *ToScalar);
  Instruction *createSelect(Value *Cond, Value *A, Value *B);
  Instruction *createGEP(Value *Ptr, Value *Offset);

  // Tiles.
  Instruction *createMakeRange(int64_t Start, int64_t End);
  Instruction *createSplat(Value *Scalar, const Shape &S);
  Instruction *createReshape(Value *V, const Shape &S);
  Instruction *createBroadcast(Value *V, const Shape &S);
  Instruction *createTrans(Value *V);
  /// dot A<M,K>, B<K,N>, Acc<M,N>: returns Acc + A x B with Acc's type.
  Instruction *createDot(Value *A, Value *B, Value *Acc);
  /// Reduces Axis away; a 1-D input gives a scalar.
  Instruction *createReduce(ReduceKind K, Value *V, int64_t Axis);

  // Memory.
  Instruction *createLoad(Value *Ptr);
  Instruction *createStore(Value *Ptr, Value *Val);
  Instruction *createMaskedLoad(Value *Ptr, Value *Mask, Value *Other);
  Instruction *createMaskedStore(Value *Ptr, Value *Val, Value *Mask);
  Instruction *createAtomicCAS(Value *Ptr, Value *Cmp, Value *Val);
  /// Mask may be null.
  Instruction *createAtomicRMW(ReduceKind K, Value *Ptr, Value *Val, Value *Mask);

  // Program ids.
  Instruction *createGetProgramId(int64_t Axis);
  Instruction *createGetNumPrograms(int64_t Axis);

  // Control flow.
  Instruction *createPhi(const Type *T);
  Instruction *createBr(BasicBlock *Dest);
  Instruction *createCondBr(Value *Cond, BasicBlock *True, BasicBlock *False);
  Instruction *createRet(Value *V = nullptr);

private:
  Module &M;
  BasicBlock *BB = nullptr;
  BasicBlock::iterator Pos;
  bool AtEnd = true;
  SourceLoc Loc;
};

} // namespace tritonc::ir
