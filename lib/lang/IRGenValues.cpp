//===- IRGenValues.cpp - Conversions, broadcasting and arithmetic --------===//
//
// IRBuilder neither converts nor broadcasts: this file turns Triton-C's
// implicit rules (C usual arithmetic conversions with weakly typed
// literals, numpy broadcasting, pointer arithmetic) into explicit casts,
// splats, reshapes and broadcasts.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tritonc::lang {

using namespace ir;
using ast::BaseType;
using ast::BinaryOp;
using ast::binaryOpSpelling;

static std::string describeShape(const Shape &S) {
  return S.empty() ? std::string("scalar") : shapeStr(S);
}

void IRGenerator::nameValue(Value *V, const std::string &Name) {
  if (Instruction *I = asInstruction(V))
    if (I->getName().empty())
      I->setName(Name);
}

TValue IRGenerator::constInt(const FEType &T, int64_t V, bool Weak) {
  Value *C = M.getInt(T.scalar().toIR(), V);
  if (T.isTile())
    C = B.createSplat(C, T.Shape);
  return TValue(C, T, Weak);
}

TValue IRGenerator::constFloat(const FEType &T, double V, bool Weak) {
  const Type *S = T.scalar().toIR();
  Value *C = M.getFloat(S, roundToFloatKind(V, S->getFloatKind()));
  if (T.isTile())
    C = B.createSplat(C, T.Shape);
  return TValue(C, T, Weak);
}

void IRGenerator::invalidOperands(const char *Op, const TValue &L, const TValue &R,
                                  SourceRange R0) {
  Diags.error(R0, std::string("invalid operands to '") + Op + "' ('" + L.T.str() + "' and '" +
                      R.T.str() + "')");
}

void IRGenerator::noteDeclaration(const ast::Expr *E) {
  const auto *Id = E ? E->as<ast::IdentExpr>() : nullptr;
  if (!Id)
    return;
  VarInfo *V = lookupVar(Id->Name);
  if (!V || !V->DeclRange.isValid())
    return;
  Diags.note(V->DeclRange,
             "'" + V->Name + "' declared here with " +
                 (V->Type.isTile() ? "shape " + shapeStr(V->Type.Shape)
                                   : std::string("scalar type '") + V->Type.str() + "'"));
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

Value *IRGenerator::foldConversion(Constant *C, const FEType &From, const FEType &To) {
  if (C->isUndef())
    return M.getUndef(To.toIR());
  const Type *TT = To.toIR();
  if (From.isInt()) {
    int64_t V = C->getInt();
    if (!From.isSigned() && From.bits() < 64)
      V = static_cast<int64_t>(static_cast<uint64_t>(V) & ((uint64_t(1) << From.bits()) - 1));
    if (To.isBool())
      return M.getBool(V != 0);
    if (To.isInt())
      return M.getInt(TT, V);
    if (To.isFloat()) {
      double D =
          From.isSigned() ? static_cast<double>(V) : static_cast<double>(static_cast<uint64_t>(V));
      return M.getFloat(TT, roundToFloatKind(D, TT->getFloatKind()));
    }
    return nullptr;
  }
  if (From.isFloat()) {
    double D = C->getFloat();
    if (To.isBool())
      return M.getBool(D != 0);
    if (To.isFloat())
      return M.getFloat(TT, roundToFloatKind(D, TT->getFloatKind()));
    if (To.isInt()) {
      // Round toward zero and saturate, as fptosi/fptoui do.
      if (std::isnan(D))
        return M.getInt(TT, 0);
      // The bounds are compared as exact powers of two: 2^63 - 1 is not a
      // double (it rounds to 2^63), and converting 2^63 to int64_t is
      // undefined (it gave LONG_MIN for (long)1e19).
      D = std::trunc(D);
      unsigned Bits = To.bits();
      double Limit = std::ldexp(1.0, static_cast<int>(To.isSigned() ? Bits - 1 : Bits));
      if (To.isSigned()) {
        int64_t Max = static_cast<int64_t>((uint64_t(1) << (Bits - 1)) - 1);
        if (D >= Limit)
          return M.getInt(TT, Max);
        if (D <= -Limit)
          return M.getInt(TT, -Max - 1);
        return M.getInt(TT, static_cast<int64_t>(D));
      }
      if (D <= 0)
        return M.getInt(TT, 0);
      if (D >= Limit)
        return M.getInt(TT, -1); // all ones
      return M.getInt(TT, static_cast<int64_t>(static_cast<uint64_t>(D)));
    }
  }
  return nullptr;
}

Value *IRGenerator::emitConversion(Value *V, const FEType &From, const FEType &To) {
  if (Constant *C = asConstant(V))
    if (Value *F = foldConversion(C, From, To))
      return F;
  // A splatted constant converts as its scalar (keeps `0` tiles cheap).
  if (Instruction *I = asInstruction(V); I && I->getOpcode() == Opcode::Splat)
    if (Constant *C = asConstant(I->getOperand(0)))
      if (Value *F = foldConversion(C, From, To))
        return B.createSplat(F, I->getType()->getShape());
  const Type *VT = V->getType();
  if (To.isBool() && !From.isBool()) {
    Value *Zero;
    if (From.isPointer()) {
      Zero = M.getNullPointer(VT->getScalarType());
      if (VT->isTile())
        Zero = B.createSplat(Zero, VT->getShape());
    } else {
      Zero = B.getConstantOfType(VT, 0);
    }
    return From.isFloat() ? B.createFCmp(CmpPredicate::UNE, V, Zero)
                          : B.createICmp(CmpPredicate::NE, V, Zero);
  }
  if (From.isInt() && To.isInt()) {
    unsigned FB = From.bits(), TB = To.bits();
    if (FB == TB)
      return V;
    if (TB < FB)
      return B.createCast(Opcode::Trunc, V, To.toIR());
    return B.createCast(From.isSigned() ? Opcode::SExt : Opcode::ZExt, V, To.toIR());
  }
  if (From.isInt() && To.isFloat())
    return B.createCast(From.isSigned() ? Opcode::SIToFP : Opcode::UIToFP, V, To.toIR());
  if (From.isFloat() && To.isInt())
    return B.createCast(To.isSigned() ? Opcode::FPToSI : Opcode::FPToUI, V, To.toIR());
  if (From.isFloat() && To.isFloat()) {
    if (From.Base == To.Base)
      return V;
    if (From.bits() == To.bits()) {
      // half <-> bfloat16 goes through float, which holds both exactly.
      V = B.createCast(Opcode::FPExt, V, Type::getF32());
      return B.createCast(Opcode::FPTrunc, V, To.toIR());
    }
    return B.createCast(From.bits() < To.bits() ? Opcode::FPExt : Opcode::FPTrunc, V, To.toIR());
  }
  if (From.isPointer() && To.isPointer())
    return From.toIR() == To.toIR() ? V : B.createCast(Opcode::Bitcast, V, To.toIR());
  if (From.isPointer() && To.isInt()) {
    V = B.createCast(Opcode::PtrToInt, V, Type::getI64());
    return emitConversion(V, FEType(BaseType::Long), To);
  }
  if (From.isInt() && To.isPointer()) {
    V = emitConversion(V, From, FEType(From.isSigned() ? BaseType::Long : BaseType::ULong));
    return B.createCast(Opcode::IntToPtr, V, To.toIR());
  }
  reportInternalError("unsupported conversion from '" + From.str() + "' to '" + To.str() + "'");
}

TValue IRGenerator::convert(TValue V, const FEType &ToElem, SourceRange R, bool Explicit) {
  if (V.Error)
    return V;
  FEType To = ToElem.scalar();
  if (To.isVoid()) {
    if (Explicit)
      return TValue::voidValue();
    Diags.error(R, "cannot convert to void implicitly");
    return TValue::error();
  }
  if (V.isVoid()) {
    Diags.error(R, "cannot use a void value as '" + To.str() + "'");
    return TValue::error();
  }
  FEType From = V.T.scalar();
  if (From == To)
    return TValue(V.V, To.withShape(V.T.Shape));
  if (From.IsDesc || To.IsDesc) {
    // A descriptor converts to nothing else, not even another block shape.
    Diags.error(R, "cannot convert '" + V.T.str() + "' to '" + To.withShape(V.T.Shape).str() + "'");
    return TValue::error();
  }
  bool PtrInvolved = From.isPointer() || To.isPointer();
  if (PtrInvolved) {
    auto Fail = [&](const std::string &Why) {
      Diags.error(R, "cannot convert '" + V.T.str() + "' to '" + To.withShape(V.T.Shape).str() +
                         "'" + Why);
      return TValue::error();
    };
    if (From.isPointer() && To.isPointer()) {
      if (!Explicit)
        return Fail(" implicitly; use an explicit cast");
    } else if (From.isPointer() && To.isBool()) {
      // Pointers test against null, as in C.
    } else if (From.isPointer() && To.isInt()) {
      if (!Explicit)
        return Fail(" implicitly; use an explicit cast");
    } else if (From.isInt() && To.isPointer()) {
      Constant *C = asConstant(V.V);
      bool NullLiteral = V.Weak && C && !C->isUndef() && C->getInt() == 0 && !V.T.isTile();
      if (NullLiteral)
        return TValue(M.getNullPointer(To.toIR()), To);
      if (!Explicit)
        return Fail(" implicitly; use an explicit cast");
    } else {
      return Fail("");
    }
  }
  return TValue(emitConversion(V.V, From, To), To.withShape(V.T.Shape));
}

TValue IRGenerator::toBool(TValue V, SourceRange R) {
  return convert(V, FEType(BaseType::Bool), R);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

TValue IRGenerator::broadcastTo(TValue V, const Shape &S) {
  if (V.Error || V.T.Shape == S)
    return V;
  Value *X = V.V;
  const Shape &Cur = V.T.Shape;
  if (Cur.empty()) {
    X = B.createSplat(X, S);
  } else {
    Shape Padded(S.size() - std::min(S.size(), Cur.size()), 1);
    Padded.insert(Padded.end(), Cur.begin(), Cur.end());
    if (Padded != Cur)
      X = B.createReshape(X, Padded);
    if (Padded != S)
      X = B.createBroadcast(X, S);
  }
  return TValue(X, V.T.withShape(S), V.Weak);
}

bool IRGenerator::broadcastPair(TValue &L, TValue &R, SourceRange OpRange, const ast::Expr *LE,
                                const ast::Expr *RE) {
  if (L.T.Shape == R.T.Shape)
    return true;
  auto S = broadcastShapes(L.T.Shape, R.T.Shape);
  if (!S) {
    Diags.error(OpRange, "cannot broadcast tiles of shapes " + shapeStr(L.T.Shape) + " and " +
                             shapeStr(R.T.Shape));
    noteDeclaration(LE);
    noteDeclaration(RE);
    return false;
  }
  // Declared tiles are bounded, but broadcasting multiplies their sizes.
  if (numElements(*S) > MaxTileElements) {
    Diags.error(OpRange, "broadcasting tiles of shapes " + shapeStr(L.T.Shape) + " and " +
                             shapeStr(R.T.Shape) +
                             " gives a tile that is too large (the limit "
                             "is " +
                             std::to_string(MaxTileElements) + " elements)");
    return false;
  }
  L = broadcastTo(L, *S);
  R = broadcastTo(R, *S);
  return true;
}

bool IRGenerator::broadcastInto(TValue &V, const Shape &S, SourceRange R, const ast::Expr *VE) {
  if (V.Error)
    return false;
  if (!canBroadcastTo(V.T.Shape, S)) {
    Diags.error(R, "cannot broadcast a tile of shape " + shapeStr(V.T.Shape) + " to shape " +
                       shapeStr(S));
    noteDeclaration(VE);
    return false;
  }
  V = broadcastTo(V, S);
  return true;
}

//===----------------------------------------------------------------------===//
// Binary operators
//===----------------------------------------------------------------------===//

Value *IRGenerator::foldIntBinary(BinaryOp Op, Value *L, Value *R, bool Signed) {
  Constant *A = asConstant(L), *C = asConstant(R);
  if (!A || !C || A->isUndef() || C->isUndef())
    return nullptr;
  unsigned Bits = L->getType()->getIntBits();
  uint64_t Mask = Bits >= 64 ? ~0ull : (1ull << Bits) - 1;
  uint64_t X = static_cast<uint64_t>(A->getInt()), Y = static_cast<uint64_t>(C->getInt());
  int64_t SX = A->getInt(), SY = C->getInt();
  uint64_t Res;
  switch (Op) {
  case BinaryOp::Add:
    Res = X + Y;
    break;
  case BinaryOp::Sub:
    Res = X - Y;
    break;
  case BinaryOp::Mul:
    Res = X * Y;
    break;
  case BinaryOp::Div:
  case BinaryOp::Rem: {
    // Division by zero and overflow are left to run time.
    if (SY == 0 || (Signed && SY == -1))
      return nullptr;
    bool IsDiv = Op == BinaryOp::Div;
    if (Signed)
      Res = static_cast<uint64_t>(IsDiv ? SX / SY : SX % SY);
    else
      Res = IsDiv ? (X & Mask) / (Y & Mask) : (X & Mask) % (Y & Mask);
    break;
  }
  case BinaryOp::BitAnd:
    Res = X & Y;
    break;
  case BinaryOp::BitOr:
    Res = X | Y;
    break;
  case BinaryOp::BitXor:
    Res = X ^ Y;
    break;
  default:
    return nullptr;
  }
  return M.getInt(L->getType(), static_cast<int64_t>(Res));
}

static bool isComparison(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::LT:
  case BinaryOp::GT:
  case BinaryOp::LE:
  case BinaryOp::GE:
  case BinaryOp::EQ:
  case BinaryOp::NE:
    return true;
  default:
    return false;
  }
}

TValue IRGenerator::emitBinary(BinaryOp Op, TValue L, TValue R, SourceRange OpRange,
                               const ast::Expr *LE, const ast::Expr *RE) {
  if (L.Error || R.Error)
    return TValue::error();
  const char *Sp = binaryOpSpelling(Op);
  if (L.isVoid() || R.isVoid()) {
    invalidOperands(Sp, L, R, OpRange);
    return TValue::error();
  }
  if (Op == BinaryOp::Dot)
    return emitDot(L, R, OpRange);
  if (isComparison(Op))
    return emitCompare(Op, L, R, OpRange, LE, RE);
  if (L.T.isPointer() || R.T.isPointer()) {
    if (Op == BinaryOp::Add || Op == BinaryOp::Sub)
      return emitPointerArith(Op, L, R, OpRange, LE, RE);
    invalidOperands(Sp, L, R, OpRange);
    return TValue::error();
  }
  bool IntOnly = Op == BinaryOp::Shl || Op == BinaryOp::Shr || Op == BinaryOp::BitAnd ||
                 Op == BinaryOp::BitOr || Op == BinaryOp::BitXor;
  if (IntOnly && (!L.T.isInt() || !R.T.isInt())) {
    invalidOperands(Sp, L, R, OpRange);
    return TValue::error();
  }
  FEType Elem;
  if (Op == BinaryOp::Shl || Op == BinaryOp::Shr)
    Elem = promoteInt(L.T.scalar()); // The result has the (promoted) left type.
  else if (IntOnly && L.T.isBool() && R.T.isBool())
    Elem = FEType(BaseType::Bool); // Masks combine as bool.
  else
    Elem = commonArithmeticType(L.T, L.Weak, R.T, R.Weak);
  bool Weak = L.Weak && R.Weak;
  at(OpRange);
  L = convert(L, Elem, OpRange);
  R = convert(R, Elem, OpRange);
  if (L.Error || R.Error || !broadcastPair(L, R, OpRange, LE, RE))
    return TValue::error();
  at(OpRange);
  bool F = Elem.isFloat(), S = Elem.isSigned();
  if (!F && !L.T.isTile())
    if (Value *Folded = foldIntBinary(Op, L.V, R.V, S))
      return TValue(Folded, L.T, Weak);
  Opcode Code;
  switch (Op) {
  case BinaryOp::Add:
    Code = F ? Opcode::FAdd : Opcode::Add;
    break;
  case BinaryOp::Sub:
    Code = F ? Opcode::FSub : Opcode::Sub;
    break;
  case BinaryOp::Mul:
    Code = F ? Opcode::FMul : Opcode::Mul;
    break;
  case BinaryOp::Div:
    Code = F ? Opcode::FDiv : S ? Opcode::SDiv : Opcode::UDiv;
    break;
  case BinaryOp::Rem:
    Code = F ? Opcode::FRem : S ? Opcode::SRem : Opcode::URem;
    break;
  case BinaryOp::Shl:
    Code = Opcode::Shl;
    break;
  case BinaryOp::Shr:
    Code = S ? Opcode::AShr : Opcode::LShr;
    break;
  case BinaryOp::BitAnd:
    Code = Opcode::And;
    break;
  case BinaryOp::BitOr:
    Code = Opcode::Or;
    break;
  case BinaryOp::BitXor:
    Code = Opcode::Xor;
    break;
  default:
    reportInternalError(std::string("unexpected binary operator '") + Sp + "'");
  }
  return TValue(B.createBinary(Code, L.V, R.V), L.T, Weak);
}

TValue IRGenerator::emitPointerArith(BinaryOp Op, TValue L, TValue R, SourceRange OpRange,
                                     const ast::Expr *LE, const ast::Expr *RE) {
  const char *Sp = binaryOpSpelling(Op);
  at(OpRange);
  if (Op == BinaryOp::Sub && L.T.isPointer() && R.T.isPointer()) {
    // p - q: the distance in elements, as a long.
    if (!L.T.sameElement(R.T)) {
      invalidOperands(Sp, L, R, OpRange);
      return TValue::error();
    }
    if (!broadcastPair(L, R, OpRange, LE, RE))
      return TValue::error();
    at(OpRange);
    FEType Long(BaseType::Long);
    Value *A = B.createCast(Opcode::PtrToInt, L.V, Type::getI64());
    Value *C = B.createCast(Opcode::PtrToInt, R.V, Type::getI64());
    Value *D = B.createBinary(Opcode::Sub, A, C);
    unsigned Size = L.T.scalar().pointee().toIR()->getScalarSizeInBytes();
    TValue Res(D, Long.withShape(L.T.Shape));
    if (Size != 1) {
      TValue SizeV = constInt(Long.withShape(L.T.Shape), Size);
      Res.V = B.createBinary(Opcode::SDiv, D, SizeV.V);
    }
    return Res;
  }
  bool LPtr = L.T.isPointer();
  TValue P = LPtr ? L : R, I = LPtr ? R : L;
  const ast::Expr *PE = LPtr ? LE : RE, *IE = LPtr ? RE : LE;
  if (!I.T.isInt() || (Op == BinaryOp::Sub && !LPtr)) {
    invalidOperands(Sp, L, R, OpRange);
    return TValue::error();
  }
  // Offsets are sign-extended by gep: widen unsigned ones first.
  FEType OffT = promoteInt(I.T.scalar());
  if (OffT.Base == BaseType::UInt)
    OffT = FEType(BaseType::ULong);
  I = convert(I, OffT, OpRange);
  if (I.Error || !broadcastPair(P, I, OpRange, PE, IE))
    return TValue::error();
  at(OpRange);
  Value *Off = I.V;
  if (Op == BinaryOp::Sub) {
    Constant *C = asConstant(Off);
    if (C && !C->isUndef())
      Off = M.getInt(C->getType(), static_cast<int64_t>(0ull - static_cast<uint64_t>(C->getInt())));
    else
      Off = B.createBinary(Opcode::Sub, B.getConstantOfType(Off->getType(), 0), Off);
  }
  return TValue(B.createGEP(P.V, Off), P.T);
}

TValue IRGenerator::emitCompare(BinaryOp Op, TValue L, TValue R, SourceRange OpRange,
                                const ast::Expr *LE, const ast::Expr *RE) {
  const char *Sp = binaryOpSpelling(Op);
  at(OpRange);
  FEType Elem;
  if (L.T.isPointer() || R.T.isPointer()) {
    // Pointers compare with pointers of the same type, or with a literal 0.
    if (L.T.isPointer() && R.T.isPointer()) {
      if (!L.T.sameElement(R.T)) {
        Diags.error(OpRange, "comparison of distinct pointer types ('" + L.T.str() + "' and '" +
                                 R.T.str() + "')");
        return TValue::error();
      }
    } else {
      TValue &NonPtr = L.T.isPointer() ? R : L;
      Constant *C = asConstant(NonPtr.V);
      if (!(NonPtr.Weak && C && C->getInt() == 0 && NonPtr.T.isInt())) {
        invalidOperands(Sp, L, R, OpRange);
        return TValue::error();
      }
    }
    Elem = L.T.isPointer() ? L.T.scalar() : R.T.scalar();
  } else if (!L.T.isArithmetic() || !R.T.isArithmetic()) {
    invalidOperands(Sp, L, R, OpRange);
    return TValue::error();
  } else {
    Elem = commonArithmeticType(L.T, L.Weak, R.T, R.Weak);
  }
  L = convert(L, Elem, OpRange);
  R = convert(R, Elem, OpRange);
  if (L.Error || R.Error || !broadcastPair(L, R, OpRange, LE, RE))
    return TValue::error();
  at(OpRange);
  bool F = Elem.isFloat(), S = Elem.isSigned() && !Elem.isPointer();
  CmpPredicate P;
  switch (Op) {
  case BinaryOp::EQ:
    P = F ? CmpPredicate::OEQ : CmpPredicate::EQ;
    break;
  case BinaryOp::NE:
    P = F ? CmpPredicate::UNE : CmpPredicate::NE;
    break;
  case BinaryOp::LT:
    P = F ? CmpPredicate::OLT : S ? CmpPredicate::SLT : CmpPredicate::ULT;
    break;
  case BinaryOp::LE:
    P = F ? CmpPredicate::OLE : S ? CmpPredicate::SLE : CmpPredicate::ULE;
    break;
  case BinaryOp::GT:
    P = F ? CmpPredicate::OGT : S ? CmpPredicate::SGT : CmpPredicate::UGT;
    break;
  default:
    P = F ? CmpPredicate::OGE : S ? CmpPredicate::SGE : CmpPredicate::UGE;
    break;
  }
  Value *Res = F ? B.createFCmp(P, L.V, R.V) : B.createICmp(P, L.V, R.V);
  return TValue(Res, FEType(BaseType::Bool, 0, L.T.Shape));
}

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

TValue IRGenerator::emitDot(TValue L, TValue R, SourceRange OpRange) {
  if (L.Error || R.Error)
    return TValue::error();
  if (L.T.Shape.size() != 2 || R.T.Shape.size() != 2) {
    Diags.error(OpRange, "operands of '@' must be 2-D tiles (got " + describeShape(L.T.Shape) +
                             " and " + describeShape(R.T.Shape) + ")");
    return TValue::error();
  }
  if (L.T.Shape[1] != R.T.Shape[0]) {
    Diags.error(OpRange, "inner dimensions of '@' do not match: " + shapeStr(L.T.Shape) + " and " +
                             shapeStr(R.T.Shape));
    return TValue::error();
  }
  if (numElements({L.T.Shape[0], R.T.Shape[1]}) > MaxTileElements) {
    Diags.error(OpRange, "the product of tiles of shapes " + shapeStr(L.T.Shape) + " and " +
                             shapeStr(R.T.Shape) + " is too large (the limit is " +
                             std::to_string(MaxTileElements) + " elements)");
    return TValue::error();
  }
  if (!L.T.isArithmetic() || !R.T.isArithmetic() || L.T.isBool() || R.T.isBool()) {
    invalidOperands("@", L, R, OpRange);
    return TValue::error();
  }
  FEType Elem;
  if (L.T.isInt() && R.T.isInt() && L.T.bits() == 8 && R.T.bits() == 8)
    Elem = L.T.Base == R.T.Base ? L.T.scalar() : FEType(BaseType::Char);
  else
    Elem = commonArithmeticType(L.T, false, R.T, false);
  FEType Acc;
  if (Elem.isFloat())
    Acc = FEType(Elem.Base == BaseType::Double ? BaseType::Double : BaseType::Float);
  else if (Elem.bits() == 8)
    Acc = FEType(BaseType::Int);
  else {
    Diags.error(OpRange, "'@' does not support element type '" + Elem.str() +
                             "' (use half, bfloat16, float, double or 8-bit integers)");
    return TValue::error();
  }
  at(OpRange);
  L = convert(L, Elem, OpRange);
  R = convert(R, Elem, OpRange);
  if (L.Error || R.Error)
    return TValue::error();
  at(OpRange);
  Acc = Acc.withShape({L.T.Shape[0], R.T.Shape[1]});
  TValue Zero = Acc.isFloat() ? constFloat(Acc, 0) : constInt(Acc, 0);
  return TValue(B.createDot(L.V, R.V, Zero.V), Acc);
}

TValue IRGenerator::emitTrans(TValue V, SourceRange R) {
  if (V.Error)
    return V;
  if (V.T.Shape.size() != 2) {
    Diags.error(R, "operand of '^' must be a 2-D tile (got " + describeShape(V.T.Shape) + ")");
    return TValue::error();
  }
  at(R);
  Value *T = B.createTrans(V.V);
  return TValue(T, V.T.withShape(T->getType()->getShape()));
}

TValue IRGenerator::emitReduce(TValue V, ast::SubscriptItem::Kind K, int64_t Axis) {
  FEType Elem = V.T.isInt() ? promoteInt(V.T.scalar()) : V.T.scalar();
  if (!(Elem == V.T.scalar()))
    V = convert(V, Elem, SourceRange());
  ReduceKind RK;
  bool F = Elem.isFloat(), S = Elem.isSigned();
  switch (K) {
  case ast::SubscriptItem::ReduceAdd:
    RK = F ? ReduceKind::FAdd : ReduceKind::Add;
    break;
  case ast::SubscriptItem::ReduceMax:
    RK = F ? ReduceKind::FMax : S ? ReduceKind::SMax : ReduceKind::UMax;
    break;
  default:
    RK = F ? ReduceKind::FMin : S ? ReduceKind::SMin : ReduceKind::UMin;
    break;
  }
  Value *Res = B.createReduce(RK, V.V, Axis);
  return TValue(Res, V.T.withShape(Res->getType()->getShape()));
}

} // namespace tritonc::lang
