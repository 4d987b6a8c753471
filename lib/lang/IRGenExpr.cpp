//===- IRGenExpr.cpp - Expressions ----------------------------------------===//
#include "IRGenImpl.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tritonc::lang {

using namespace ir;
using ast::BaseType;
using ast::BinaryOp;
using ast::UnaryOp;

TValue IRGenerator::genExpr(const ast::Expr *E) {
  // A null expression comes from a parse error that was already reported.
  if (!E || Diags.reachedErrorLimit())
    return TValue::error();
  at(E->Range);
  switch (E->Kind) {
  case ast::ExprKind::IntLiteral:
    return genIntLiteral(*E->as<ast::IntLiteralExpr>());
  case ast::ExprKind::FloatLiteral: {
    const auto *F = E->as<ast::FloatLiteralExpr>();
    if (F->IsFloat)
      return constFloat(FEType(BaseType::Float), F->Value);
    return constFloat(FEType(BaseType::Double), F->Value, /*Weak=*/true);
  }
  case ast::ExprKind::BoolLiteral:
    return TValue(B.getBool(E->as<ast::BoolLiteralExpr>()->Value), FEType(BaseType::Bool));
  case ast::ExprKind::Ident:
    return genIdent(*E->as<ast::IdentExpr>());
  case ast::ExprKind::Unary:
    return genUnary(*E->as<ast::UnaryExpr>());
  case ast::ExprKind::Binary:
    return genBinary(*E->as<ast::BinaryExpr>());
  case ast::ExprKind::Assign:
    return genAssign(*E->as<ast::AssignExpr>());
  case ast::ExprKind::Conditional:
    return genConditional(*E->as<ast::ConditionalExpr>());
  case ast::ExprKind::Cast:
    return genCast(*E->as<ast::CastExpr>());
  case ast::ExprKind::Call:
    return genCall(*E->as<ast::CallExpr>());
  case ast::ExprKind::Range:
    return genRange(*E->as<ast::RangeExpr>(), std::nullopt);
  case ast::ExprKind::Subscript:
    return genSubscript(*E->as<ast::SubscriptExpr>());
  case ast::ExprKind::MaskedDeref:
    return genMaskedDeref(*E->as<ast::MaskedDerefExpr>());
  case ast::ExprKind::StringLiteral:
    Diags.error(E->Range, "a string literal is only allowed as the format of 'print' or the "
                          "message of 'assert'");
    return TValue::error();
  case ast::ExprKind::List:
    Diags.error(E->Range, "a brace list is only allowed as an argument of 'make_desc', "
                          "'desc_load', 'desc_store' or 'reshape'");
    return TValue::error();
  }
  return TValue::error();
}

TValue IRGenerator::genIntLiteral(const ast::IntLiteralExpr &E) {
  uint64_t V = E.Value;
  BaseType T;
  if (E.IsUnsigned)
    T = E.IsLong || V > std::numeric_limits<uint32_t>::max() ? BaseType::ULong : BaseType::UInt;
  else if (E.IsLong)
    T = V > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? BaseType::ULong
                                                                       : BaseType::Long;
  else if (V <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    T = BaseType::Int;
  else
    T = V > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? BaseType::ULong
                                                                       : BaseType::Long;
  // Only a literal that is an `int` is weakly typed: one too large for int is
  // a `long` as in C, and letting it adopt a narrower operand type would
  // silently truncate its value.
  return constInt(FEType(T), static_cast<int64_t>(V), T == BaseType::Int && !E.IsUnsigned);
}

TValue IRGenerator::genIdent(const ast::IdentExpr &E) {
  if (VarInfo *V = lookupVar(E.Name))
    return TValue(readVariable(V, curBlock()), V->Type);
  if (E.Name == "INFINITY")
    return constFloat(FEType(BaseType::Float), std::numeric_limits<double>::infinity(), true);
  if (E.Name == "NAN")
    return constFloat(FEType(BaseType::Float), std::numeric_limits<double>::quiet_NaN(), true);
  // The original Triton runtime's names for +infinity of a given type: unlike
  // INFINITY they are strongly typed.
  if (E.Name == "F32_INFINITY" || E.Name == "F16_INFINITY")
    return constFloat(FEType(E.Name[1] == '3' ? BaseType::Float : BaseType::Half),
                      std::numeric_limits<double>::infinity());
  if (ReportedUndeclared.insert(E.Name).second)
    Diags.error(E.Range, "use of undeclared identifier '" + E.Name + "'");
  return TValue::error();
}

//===----------------------------------------------------------------------===//
// Unary operators
//===----------------------------------------------------------------------===//

TValue IRGenerator::genUnary(const ast::UnaryExpr &E) {
  switch (E.Op) {
  case UnaryOp::Deref:
    return genDeref(E);
  case UnaryOp::AddrOf:
    genExpr(E.Operand.get());
    Diags.error(E.OpRange.isValid() ? E.OpRange : E.Range,
                "Triton-C has no address-of operator '&'");
    return TValue::error();
  case UnaryOp::Transpose:
    return emitTrans(genExpr(E.Operand.get()), E.OpRange.isValid() ? E.OpRange : E.Range);
  case UnaryOp::PreInc:
  case UnaryOp::PreDec:
  case UnaryOp::PostInc:
  case UnaryOp::PostDec:
    return genIncDec(E);
  default:
    break;
  }
  TValue V = genExpr(E.Operand.get());
  if (V.Error)
    return V;
  SourceRange OpR = E.OpRange.isValid() ? E.OpRange : E.Range;
  static const char *Spell[] = {"+", "-", "!", "~"};
  const char *Sp = Spell[static_cast<int>(E.Op)];
  bool Ok = E.Op == UnaryOp::Not      ? (V.T.isArithmetic() || V.T.isPointer())
            : E.Op == UnaryOp::BitNot ? V.T.isInt()
                                      : V.T.isArithmetic();
  if (!Ok) {
    Diags.error(OpR,
                std::string("invalid argument type '") + V.T.str() + "' to unary '" + Sp + "'");
    return TValue::error();
  }
  at(OpR);
  if (E.Op == UnaryOp::Not) {
    TValue Bv = toBool(V, OpR);
    if (Constant *C = asConstant(Bv.V))
      return TValue(B.getBool(C->getInt() == 0), Bv.T);
    Value *True = B.getConstantOfType(Bv.V->getType(), 1);
    return TValue(B.createBinary(Opcode::Xor, Bv.V, True), Bv.T);
  }
  if (V.T.isInt())
    V = convert(V, promoteInt(V.T.scalar()), OpR);
  if (E.Op == UnaryOp::Plus)
    return V;
  Constant *C = asConstant(V.V);
  if (C && C->isUndef())
    C = nullptr;
  if (E.Op == UnaryOp::Minus) {
    if (V.T.isFloat()) {
      if (C)
        return TValue(M.getFloat(C->getType(), -C->getFloat()), V.T, V.Weak);
      return TValue(B.createUnary(Opcode::FNeg, V.V), V.T, V.Weak);
    }
    if (C)
      return TValue(M.getInt(C->getType(), static_cast<int64_t>(0ull - uint64_t(C->getInt()))), V.T,
                    V.Weak);
    Value *Zero = B.getConstantOfType(V.V->getType(), 0);
    return TValue(B.createBinary(Opcode::Sub, Zero, V.V), V.T, V.Weak);
  }
  // BitNot.
  if (C)
    return TValue(M.getInt(C->getType(), ~C->getInt()), V.T, V.Weak);
  Value *Ones = B.getConstantOfType(V.V->getType(), -1);
  return TValue(B.createBinary(Opcode::Xor, V.V, Ones), V.T, V.Weak);
}

TValue IRGenerator::genPointerOperand(const ast::Expr *E, SourceRange OpRange, bool Masked) {
  TValue P = genExpr(E);
  if (P.Error)
    return P;
  if (!P.T.isPointer()) {
    Diags.error(OpRange,
                Masked ? "masked dereference of a non-pointer value of type '" + P.T.str() + "'"
                       : "cannot dereference a value of type '" + P.T.str() + "'");
    return TValue::error();
  }
  return P;
}

TValue IRGenerator::genMask(const ast::Expr *E) {
  TValue Mk = genExpr(E);
  if (Mk.Error)
    return Mk;
  if (!Mk.T.isArithmetic() && !Mk.T.isPointer()) {
    Diags.error(E->Range, "mask of type '" + Mk.T.str() + "' is not a boolean");
    return TValue::error();
  }
  at(E->Range);
  return toBool(Mk, E->Range);
}

TValue IRGenerator::genDeref(const ast::UnaryExpr &E) {
  TValue P = genPointerOperand(E.Operand.get(), E.OpRange.isValid() ? E.OpRange : E.Range, false);
  if (P.Error)
    return P;
  at(E.Range);
  return emitLoad(P, nullptr);
}

TValue IRGenerator::genMaskedDeref(const ast::MaskedDerefExpr &E) {
  TValue Mk = genMask(E.Mask.get());
  TValue P = genPointerOperand(E.Pointer.get(), E.Range, true);
  if (P.Error || Mk.Error)
    return TValue::error();
  if (!broadcastPair(P, Mk, E.Range, E.Pointer.get(), E.Mask.get()))
    return TValue::error();
  at(E.Range);
  return emitLoad(P, Mk.V);
}

//===----------------------------------------------------------------------===//
// Lvalues and assignment
//===----------------------------------------------------------------------===//

LValue IRGenerator::genLValue(const ast::Expr *E) {
  LValue L;
  if (!E)
    return L;
  if (const auto *Id = E->as<ast::IdentExpr>()) {
    VarInfo *V = lookupVar(Id->Name);
    if (!V) {
      if (ReportedUndeclared.insert(Id->Name).second)
        Diags.error(Id->Range, "use of undeclared identifier '" + Id->Name + "'");
      return L;
    }
    if (V->IsConst) {
      Diags.error(Id->Range, "cannot assign to const variable '" + Id->Name + "'");
      Diags.note(V->DeclRange, "'" + Id->Name + "' declared here");
      return L;
    }
    L.K = LValue::Var;
    L.Variable = V;
    return L;
  }
  if (const auto *U = E->as<ast::UnaryExpr>(); U && U->Op == UnaryOp::Deref) {
    L.Ptr =
        genPointerOperand(U->Operand.get(), U->OpRange.isValid() ? U->OpRange : U->Range, false);
    if (!L.Ptr.Error)
      L.K = LValue::Mem;
    return L;
  }
  if (const auto *MD = E->as<ast::MaskedDerefExpr>()) {
    TValue Mk = genMask(MD->Mask.get());
    TValue P = genPointerOperand(MD->Pointer.get(), MD->Range, true);
    if (Mk.Error || P.Error || !broadcastPair(P, Mk, MD->Range, MD->Pointer.get(), MD->Mask.get()))
      return L;
    L.K = LValue::MaskedMem;
    L.Ptr = P;
    L.Mask = Mk;
    return L;
  }
  genExpr(E);
  Diags.error(E->Range, "expression is not assignable");
  return L;
}

TValue IRGenerator::loadLValue(const LValue &L, SourceRange R) {
  at(R);
  switch (L.K) {
  case LValue::Var:
    return TValue(readVariable(L.Variable, curBlock()), L.Variable->Type);
  case LValue::Mem:
    return TValue(B.createLoad(L.Ptr.V), L.type());
  case LValue::MaskedMem: {
    FEType T = L.type();
    Value *Undef = M.getUndef(T.scalar().toIR());
    if (T.isTile())
      Undef = B.createSplat(Undef, T.Shape);
    return TValue(B.createMaskedLoad(L.Ptr.V, L.Mask.V, Undef), T);
  }
  case LValue::Invalid:
    break;
  }
  return TValue::error();
}

TValue IRGenerator::storeLValue(const LValue &L, TValue V, SourceRange R,
                                const ast::Expr *ValueExpr) {
  if (L.K == LValue::Invalid || V.Error)
    return TValue::error();
  FEType T = L.type();
  if (V.isVoid()) {
    Diags.error(R, "cannot assign a void value");
    return TValue::error();
  }
  if (!T.isTile() && V.T.isTile()) {
    if (L.K == LValue::Var)
      Diags.error(R, "cannot assign a tile of shape " + shapeStr(V.T.Shape) + " to scalar '" +
                         L.Variable->Name + "'");
    else
      Diags.error(R, "cannot store a tile of shape " + shapeStr(V.T.Shape) +
                         " through a scalar pointer of type '" + L.Ptr.T.str() + "'");
    noteDeclaration(ValueExpr);
    return TValue::error();
  }
  at(R);
  TValue C = convert(V, T.scalar(), R);
  if (C.Error || !broadcastInto(C, T.Shape, R, ValueExpr))
    return TValue::error();
  at(R);
  switch (L.K) {
  case LValue::Var:
    nameValue(C.V, L.Variable->Name);
    applyMultipleOf(L.Variable, C.V);
    writeVariable(L.Variable, curBlock(), C.V);
    break;
  case LValue::Mem:
    B.createStore(L.Ptr.V, C.V);
    break;
  case LValue::MaskedMem:
    B.createMaskedStore(L.Ptr.V, C.V, L.Mask.V);
    break;
  case LValue::Invalid:
    break;
  }
  return C;
}

TValue IRGenerator::genAssign(const ast::AssignExpr &E) {
  SourceRange OpR = E.OpRange.isValid() ? E.OpRange : E.Range;
  LValue L = genLValue(E.Target.get());
  TValue V;
  if (E.IsCompound) {
    TValue Cur = L.K == LValue::Invalid ? TValue::error() : loadLValue(L, E.Range);
    TValue Rhs = genExpr(E.Value.get());
    V = emitBinary(E.Op, Cur, Rhs, OpR, E.Target.get(), E.Value.get());
  } else {
    V = genExpr(E.Value.get());
  }
  return storeLValue(L, V, OpR, E.IsCompound ? nullptr : E.Value.get());
}

TValue IRGenerator::genIncDec(const ast::UnaryExpr &E) {
  SourceRange OpR = E.OpRange.isValid() ? E.OpRange : E.Range;
  LValue L = genLValue(E.Operand.get());
  if (L.K == LValue::Invalid)
    return TValue::error();
  TValue Old = loadLValue(L, E.Range);
  bool Inc = E.Op == UnaryOp::PreInc || E.Op == UnaryOp::PostInc;
  at(OpR);
  TValue One = constInt(FEType(BaseType::Int), 1, /*Weak=*/true);
  TValue New =
      emitBinary(Inc ? BinaryOp::Add : BinaryOp::Sub, Old, One, OpR, E.Operand.get(), nullptr);
  TValue Stored = storeLValue(L, New, OpR, nullptr);
  if (Stored.Error)
    return Stored;
  return E.Op == UnaryOp::PreInc || E.Op == UnaryOp::PreDec ? Stored : Old;
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

TValue IRGenerator::genBinary(const ast::BinaryExpr &E) {
  if (E.Op == BinaryOp::Comma) {
    genExpr(E.LHS.get());
    return genExpr(E.RHS.get());
  }
  if (E.Op == BinaryOp::LogicalAnd || E.Op == BinaryOp::LogicalOr)
    return genLogical(E);
  TValue L = genExpr(E.LHS.get());
  TValue R = genExpr(E.RHS.get());
  SourceRange OpR = E.OpRange.isValid() ? E.OpRange : E.Range;
  if ((!L.Error && L.T.IsDesc) || (!R.Error && R.T.IsDesc)) {
    // Before the operands' conversions, which would blame a literal.
    invalidOperands(binaryOpSpelling(E.Op), L, R, OpR);
    return TValue::error();
  }
  return emitBinary(E.Op, L, R, OpR, E.LHS.get(), E.RHS.get());
}

TValue IRGenerator::genLogical(const ast::BinaryExpr &E) {
  bool IsAnd = E.Op == BinaryOp::LogicalAnd;
  const char *Sp = IsAnd ? "&&" : "||";
  SourceRange OpR = E.OpRange.isValid() ? E.OpRange : E.Range;
  auto CheckOperand = [&](TValue &V) {
    if (V.Error)
      return;
    if (!V.T.isArithmetic() && !V.T.isPointer()) {
      Diags.error(OpR, std::string("invalid operand of type '") + V.T.str() + "' to '" + Sp + "'");
      V = TValue::error();
      return;
    }
    at(OpR);
    V = toBool(V, OpR);
  };
  TValue L = genExpr(E.LHS.get());
  CheckOperand(L);
  if (L.Error || L.T.isTile()) {
    // Tiles combine element-wise: both sides are evaluated.
    TValue R = genExpr(E.RHS.get());
    CheckOperand(R);
    if (L.Error || R.Error || !broadcastPair(L, R, OpR, E.LHS.get(), E.RHS.get()))
      return TValue::error();
    at(OpR);
    return TValue(B.createBinary(IsAnd ? Opcode::And : Opcode::Or, L.V, R.V), L.T);
  }
  // Scalars short-circuit.
  BasicBlock *LhsEnd = curBlock();
  BasicBlock *RhsBB = newBlock(IsAnd ? "land.rhs" : "lor.rhs");
  BasicBlock *EndBB = newBlock(IsAnd ? "land.end" : "lor.end");
  at(OpR);
  if (IsAnd)
    condBranch(L.V, RhsBB, EndBB);
  else
    condBranch(L.V, EndBB, RhsBB);
  sealBlock(RhsBB);
  setBlock(RhsBB);
  TValue R = genExpr(E.RHS.get());
  CheckOperand(R);
  BasicBlock *RhsEnd = curBlock();
  at(OpR);
  branchTo(EndBB);
  sealBlock(EndBB);
  setBlock(EndBB);
  if (R.Error)
    return R;
  // The value when the left side decides: false for &&, true for ||.
  Value *Short = B.getBool(!IsAnd);
  if (R.T.isTile()) {
    Instruction *Term = LhsEnd->getTerminator();
    B.setInsertPoint(Term);
    Short = B.createSplat(Short, R.T.Shape);
    setBlock(EndBB);
  }
  Instruction *Phi = B.createPhi(R.V->getType());
  Phi->addIncoming(Short, LhsEnd);
  Phi->addIncoming(R.V, RhsEnd);
  return TValue(Phi, R.T);
}

//===----------------------------------------------------------------------===//
// Conditional operator
//===----------------------------------------------------------------------===//

static bool isDerefExpr(const ast::Expr *E) {
  if (!E)
    return false;
  if (E->Kind == ast::ExprKind::MaskedDeref)
    return true;
  const auto *U = E->as<ast::UnaryExpr>();
  return U && U->Op == UnaryOp::Deref;
}

/// Finds the type both arms of ?: convert to; false (with an error) if none.
static bool commonArmType(const TValue &T, const TValue &F, FEType &Out) {
  if (T.T.isArithmetic() && F.T.isArithmetic()) {
    Out = commonArithmeticType(T.T, T.Weak, F.T, F.Weak);
    return true;
  }
  if (T.T.isPointer() && F.T.sameElement(T.T)) {
    Out = T.T.scalar();
    return true;
  }
  auto IsNullLit = [](const TValue &V) {
    Constant *C = asConstant(V.V);
    return V.Weak && V.T.isInt() && !V.T.isTile() && C && !C->isUndef() && C->getInt() == 0;
  };
  if (T.T.isPointer() && IsNullLit(F)) {
    Out = T.T.scalar();
    return true;
  }
  if (F.T.isPointer() && IsNullLit(T)) {
    Out = F.T.scalar();
    return true;
  }
  return false;
}

TValue IRGenerator::genConditional(const ast::ConditionalExpr &E) {
  TValue C = genExpr(E.Cond.get());
  if (!C.Error && !C.T.isArithmetic() && !C.T.isPointer()) {
    Diags.error(E.Cond->Range, "condition of '?:' has type '" + C.T.str() + "'");
    C = TValue::error();
  }
  if (C.Error) {
    // Still check the arms, then give up.
    genExpr(E.Then.get());
    genExpr(E.Else.get());
    return TValue::error();
  }
  bool ThenDeref = isDerefExpr(E.Then.get()), ElseDeref = isDerefExpr(E.Else.get());
  if (ThenDeref && (ElseDeref || !hasSideEffects(E.Else.get())))
    return genMaskedConditional(E, C, /*DerefInThen=*/true);
  if (ElseDeref && !hasSideEffects(E.Then.get()))
    return genMaskedConditional(E, C, /*DerefInThen=*/false);
  if (!C.T.isTile() && (hasSideEffects(E.Then.get()) || hasSideEffects(E.Else.get())))
    return genBranchyConditional(E, C);

  // A tile condition: both arms are computed, their loads only where the
  // lane belongs to them.
  TValue Cb = toBool(C, E.Cond->Range);
  if (Cb.Error)
    return Cb;
  TValue T = genGuardedArm(E.Then.get(), Cb, /*Negated=*/false);
  TValue F = genGuardedArm(E.Else.get(), Cb, /*Negated=*/true);
  return emitSelect(C, T, F, {E.Cond.get(), E.Then.get(), E.Else.get()}, E.Range, "'?:'");
}

TValue IRGenerator::emitSelect(TValue C, TValue T, TValue F,
                               std::array<const ast::Expr *, 3> Operands, SourceRange R,
                               const char *What) {
  if (C.Error || T.Error || F.Error)
    return TValue::error();
  auto [CE, TE, FE] = Operands;
  FEType Elem;
  if (!commonArmType(T, F, Elem)) {
    Diags.error(R, "incompatible operand types ('" + T.T.str() + "' and '" + F.T.str() + "') in " +
                       What);
    return TValue::error();
  }
  bool Weak = T.Weak && F.Weak;
  at(R);
  TValue Cb = toBool(C, CE->Range);
  T = convert(T, Elem, TE->Range);
  F = convert(F, Elem, FE->Range);
  if (Cb.Error || T.Error || F.Error || !broadcastPair(T, F, R, TE, FE))
    return TValue::error();
  if (Cb.T.isTile() && !broadcastPair(Cb, T, R, CE, TE))
    return TValue::error();
  if (Cb.T.isTile())
    broadcastPair(Cb, F, R, CE, FE);
  at(R);
  return TValue(B.createSelect(Cb.V, T.V, F.V), T.T, Weak);
}

TValue IRGenerator::genMaskedConditional(const ast::ConditionalExpr &E, TValue Cond,
                                         bool DerefInThen) {
  at(E.Range);
  TValue Guard = toBool(Cond, E.Cond->Range);
  if (Guard.Error)
    return Guard;
  // Loads through DE where G holds; Other (or undef) elsewhere.
  auto GuardedLoad = [&](const ast::Expr *DE, TValue G, TValue *Other,
                         const ast::Expr *OtherE) -> TValue {
    TValue P, Mask = G;
    // Loads that compute the address or the mask are guarded too.
    const auto *MD = DE->as<ast::MaskedDerefExpr>();
    const auto *U = DE->as<ast::UnaryExpr>();
    bool Nested = hasSideEffects(MD ? MD->Pointer.get() : U->Operand.get()) ||
                  (MD && hasSideEffects(MD->Mask.get()));
    if (Nested)
      pushLoadGuard(G);
    if (MD) {
      TValue Mk = genMask(MD->Mask.get());
      P = genPointerOperand(MD->Pointer.get(), MD->Range, true);
      if (Nested)
        LoadGuards.pop_back();
      if (Mk.Error || P.Error || !broadcastPair(Mask, Mk, MD->Range, E.Cond.get(), MD->Mask.get()))
        return TValue::error();
      at(MD->Range);
      Mask = TValue(B.createBinary(Opcode::And, Mask.V, Mk.V), Mask.T);
    } else {
      P = genPointerOperand(U->Operand.get(), U->OpRange.isValid() ? U->OpRange : U->Range, false);
      if (Nested)
        LoadGuards.pop_back();
    }
    if (P.Error)
      return P;
    FEType Pointee = P.T.scalar().pointee();
    FEType ResElem = Pointee;
    TValue O;
    // Converting the other arm to the pointee type could lose its value
    // (`c ? *pi : 0.5` with int *pi): when the common type differs, the load
    // leaves the other lanes undefined and a select after it fills them.
    bool SelectAfter = false;
    if (Other) {
      if (Other->Error)
        return *Other;
      FEType Common;
      if (!commonArmType(TValue(P.V, Pointee.withShape(P.T.Shape)), *Other, Common)) {
        Diags.error(E.Range, "incompatible operand types ('" + Pointee.str() + "' and '" +
                                 Other->T.str() + "') in '?:'");
        return TValue::error();
      }
      ResElem = Common;
      SelectAfter = !(Common == Pointee);
      at(OtherE->Range);
      O = convert(*Other, SelectAfter ? Common : Pointee, OtherE->Range);
      if (O.Error)
        return O;
    } else {
      O = TValue(M.getUndef(Pointee.toIR()), Pointee);
    }
    // Pointer, mask and other value agree on one shape.
    if (!broadcastPair(P, Mask, E.Range, DE, E.Cond.get()) ||
        !broadcastPair(P, O, E.Range, DE, OtherE) ||
        !broadcastPair(Mask, O, E.Range, E.Cond.get(), OtherE))
      return TValue::error();
    at(E.Range);
    if (TValue Outer = enclosingLoadGuard(P.T.Shape); Outer.V)
      Mask.V = B.createBinary(Opcode::And, Mask.V, Outer.V);
    Value *LoadOther = O.V;
    if (SelectAfter) {
      LoadOther = M.getUndef(Pointee.toIR());
      if (P.T.isTile())
        LoadOther = B.createSplat(LoadOther, P.T.Shape);
    }
    TValue Loaded(B.createMaskedLoad(P.V, Mask.V, LoadOther), Pointee.withShape(P.T.Shape));
    TValue Res = convert(Loaded, ResElem, E.Range);
    if (SelectAfter && !Res.Error)
      Res.V = B.createSelect(Mask.V, Res.V, O.V);
    return Res;
  };
  const ast::Expr *DE = DerefInThen ? E.Then.get() : E.Else.get();
  const ast::Expr *OE = DerefInThen ? E.Else.get() : E.Then.get();
  TValue Other;
  if (isDerefExpr(OE))
    Other = GuardedLoad(OE, DerefInThen ? negateGuard(Guard) : Guard, nullptr, nullptr);
  else
    Other = genExpr(OE);
  if (Other.Error)
    return Other;
  return GuardedLoad(DE, DerefInThen ? Guard : negateGuard(Guard), &Other, OE);
}

TValue IRGenerator::genBranchyConditional(const ast::ConditionalExpr &E, TValue Cond) {
  at(E.Range);
  TValue Cb = toBool(Cond, E.Cond->Range);
  if (Cb.Error)
    return Cb;
  BasicBlock *TrueBB = newBlock("cond.true");
  BasicBlock *FalseBB = newBlock("cond.false");
  BasicBlock *EndBB = newBlock("cond.end");
  condBranch(Cb.V, TrueBB, FalseBB);
  sealBlock(TrueBB);
  sealBlock(FalseBB);
  setBlock(TrueBB);
  TValue T = genExpr(E.Then.get());
  BasicBlock *TrueEnd = curBlock();
  setBlock(FalseBB);
  TValue F = genExpr(E.Else.get());
  BasicBlock *FalseEnd = curBlock();
  auto Finish = [&](TValue Res) {
    setBlock(TrueEnd);
    branchTo(EndBB);
    setBlock(FalseEnd);
    branchTo(EndBB);
    sealBlock(EndBB);
    setBlock(EndBB);
    return Res;
  };
  if (T.Error || F.Error)
    return Finish(TValue::error());
  if (T.isVoid() && F.isVoid())
    return Finish(TValue::voidValue());
  FEType Elem;
  if (T.isVoid() || F.isVoid() || !commonArmType(T, F, Elem)) {
    Diags.error(E.Range,
                "incompatible operand types ('" + T.T.str() + "' and '" + F.T.str() + "') in '?:'");
    return Finish(TValue::error());
  }
  auto S = broadcastShapes(T.T.Shape, F.T.Shape);
  if (!S) {
    Diags.error(E.Range, "cannot broadcast tiles of shapes " + shapeStr(T.T.Shape) + " and " +
                             shapeStr(F.T.Shape));
    return Finish(TValue::error());
  }
  bool Weak = T.Weak && F.Weak;
  setBlock(TrueEnd);
  at(E.Then->Range);
  T = broadcastTo(convert(T, Elem, E.Then->Range), *S);
  setBlock(FalseEnd);
  at(E.Else->Range);
  F = broadcastTo(convert(F, Elem, E.Else->Range), *S);
  Finish(TValue());
  if (T.Error || F.Error)
    return TValue::error();
  at(E.Range);
  Instruction *Phi = B.createPhi(T.V->getType());
  Phi->addIncoming(T.V, TrueEnd);
  Phi->addIncoming(F.V, FalseEnd);
  return TValue(Phi, T.T, Weak);
}

//===----------------------------------------------------------------------===//
// Casts, ranges, subscripts
//===----------------------------------------------------------------------===//

TValue IRGenerator::genCast(const ast::CastExpr &E) {
  TValue V = genExpr(E.Operand.get());
  if (V.Error)
    return V;
  FEType To = typeFromSpec(E.To);
  if (To.IsDesc) {
    Diags.error(E.To.Range, "nothing converts to a tensor descriptor: declare one with "
                            "'__desc' and make_desc");
    return TValue::error();
  }
  if (To.Base == BaseType::Void && To.isPointer()) {
    Diags.error(E.To.Range, "pointers to void are not supported");
    return TValue::error();
  }
  at(E.Range);
  if (E.IsBitcast)
    return emitBitcast(V, To, E.Range);
  TValue Converted = convert(V, To, E.Range, /*Explicit=*/true);
  if (E.Shape.empty() || Converted.Error)
    return Converted;
  // `(float[TN]) x`: convert the elements, then splat a scalar or broadcast a
  // tile into the shape, with the rules of a declaration's initializer.
  std::optional<Shape> S = foldShape(E.Shape, E.ShapeRange);
  if (!S || Converted.isVoid()) {
    if (S)
      Diags.error(E.ShapeRange, "a cast to void has no tile shape");
    return TValue::error();
  }
  at(E.Range);
  if (!broadcastInto(Converted, *S, E.Range, E.Operand.get()))
    return TValue::error();
  return Converted;
}

TValue IRGenerator::emitBitcast(TValue V, const FEType &To, SourceRange R) {
  FEType From = V.T.scalar();
  if (To.isPointer() != From.isPointer() || To.isBool() || From.isBool() || To.isVoid() ||
      From.isVoid()) {
    Diags.error(R, "cannot bitcast '" + V.T.str() + "' to '" + To.str() +
                       "': both must be numbers of one width, or both pointers");
    return TValue::error();
  }
  // An unsuffixed literal takes the width of the target, so that
  // `bitcast<half>(0x7C00)` reads the 16-bit pattern it spells.
  if (V.Weak && From.isInt() && !To.isPointer() && From.bits() != To.bits()) {
    FEType Sized(To.bits() == 8    ? BaseType::UChar
                 : To.bits() == 16 ? BaseType::UShort
                 : To.bits() == 32 ? BaseType::UInt
                                   : BaseType::ULong);
    V = convert(V, Sized, R);
    From = Sized;
  }
  if (!To.isPointer() && From.bits() != To.bits()) {
    Diags.error(R, "cannot bitcast '" + V.T.str() + "' (" + std::to_string(From.bits()) +
                       " bits) to '" + To.str() + "' (" + std::to_string(To.bits()) + " bits)");
    return TValue::error();
  }
  if (From.toIR() == To.toIR())
    return TValue(V.V, To.withShape(V.T.Shape));
  at(R);
  return TValue(B.createCast(Opcode::Bitcast, V.V, To.toIR()), To.withShape(V.T.Shape));
}

TValue IRGenerator::genRange(const ast::RangeExpr &E, std::optional<int64_t> Expected) {
  bool Reported = false;
  std::optional<int64_t> Lo, Hi;
  for (const ast::Expr *Bound : {E.Lo.get(), E.Hi.get()}) {
    if (!Bound)
      return TValue::error();
    auto V = foldInt(Bound, Reported);
    if (!V) {
      if (!Reported)
        Diags.error(Bound->Range, "range bounds must be constant expressions");
      return TValue::error();
    }
    (Bound == E.Lo.get() ? Lo : Hi) = V;
  }
  if (*Lo < std::numeric_limits<int32_t>::min() || *Hi > std::numeric_limits<int32_t>::max()) {
    Diags.error(E.Range, "range bounds must fit in 'int'");
    return TValue::error();
  }
  if (*Hi <= *Lo) {
    Diags.error(E.Range,
                "range '" + std::to_string(*Lo) + " ... " + std::to_string(*Hi) + "' is empty");
    return TValue::error();
  }
  if (Expected && *Hi - *Lo != *Expected) {
    Diags.error(E.Range, "range of " + std::to_string(*Hi - *Lo) +
                             " elements does not fit tile of " + std::to_string(*Expected) +
                             " elements");
    return TValue::error();
  }
  at(E.Range);
  return TValue(B.createMakeRange(*Lo, *Hi), FEType(BaseType::Int, 0, {*Hi - *Lo}));
}

TValue IRGenerator::genSubscript(const ast::SubscriptExpr &E) {
  TValue V = genExpr(E.Base.get());
  if (V.Error)
    return V;
  if (!V.T.isTile()) {
    Diags.error(E.Range, "cannot subscript a scalar value of type '" + V.T.str() + "'");
    return TValue::error();
  }
  bool AnyReduce = false;
  size_t NonNew = 0;
  for (const auto &It : E.Items) {
    if (It.K != ast::SubscriptItem::NewAxis)
      ++NonNew;
    if (It.K != ast::SubscriptItem::NewAxis && It.K != ast::SubscriptItem::Keep)
      AnyReduce = true;
  }
  if (AnyReduce && (V.T.isPointer() || !V.T.isArithmetic())) {
    Diags.error(E.Range, "cannot reduce a tile of type '" + V.T.str() + "'");
    return TValue::error();
  }
  at(E.Range);
  // A lone reduction reduces every axis: x[+] is the sum of all elements.
  if (E.Items.size() == 1 && AnyReduce) {
    while (V.T.isTile())
      V = emitReduce(V, E.Items[0].K, static_cast<int64_t>(V.T.Shape.size()) - 1);
    return V;
  }
  if (NonNew != V.T.Shape.size()) {
    Diags.error(E.Range, "subscript has " + std::to_string(NonNew) +
                             " items (not counting newaxis) for a tile of rank " +
                             std::to_string(V.T.Shape.size()));
    return TValue::error();
  }
  Shape Final;
  std::vector<std::pair<int64_t, ast::SubscriptItem::Kind>> Reductions;
  int64_t Axis = 0;
  for (const auto &It : E.Items) {
    switch (It.K) {
    case ast::SubscriptItem::Keep:
      Final.push_back(V.T.Shape[Axis++]);
      break;
    case ast::SubscriptItem::NewAxis:
      Final.push_back(1);
      break;
    default:
      Reductions.push_back({Axis++, It.K});
      break;
    }
  }
  // Reduce the highest axis first so that lower axis numbers stay valid.
  for (auto It = Reductions.rbegin(); It != Reductions.rend(); ++It)
    V = emitReduce(V, It->second, It->first);
  if (V.T.Shape == Final)
    return V;
  if (!V.T.isTile())
    return TValue(B.createSplat(V.V, Final), V.T.withShape(Final));
  return TValue(B.createReshape(V.V, Final), V.T.withShape(Final));
}

} // namespace tritonc::lang
