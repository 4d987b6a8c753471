//===- LowerElementwise.cpp - Arithmetic, comparisons, casts, ranges ------===//
//
// Element-wise instructions are lowered register by register. Half-precision
// arithmetic (f16, bf16) is computed in f32 and rounded back: f32 holds the
// exact result of +, -, *, / and sqrt of two halves well enough that the one
// final rounding gives the correctly rounded half result, which is what the
// interpreter computes. i8 values are kept sign-extended in 16-bit registers
// and renormalized after every operation that can leave the low 8 bits.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/support/Diagnostics.h"

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;
using ptx::BinOp;
using ptx::Cmp;
using ptx::MathOp;
using ptx::Rounding;

namespace {

bool isHalf(const ir::Type *T) {
  T = T->getScalarType();
  return T->getKind() == ir::TypeKind::Float &&
         (T->getFloatKind() == ir::FloatKind::F16 || T->getFloatKind() == ir::FloatKind::BF16);
}

bool isI8(const ir::Type *T) {
  T = T->getScalarType();
  return T->getKind() == ir::TypeKind::Int && T->getIntBits() == 8;
}

Cmp intPredicate(ir::CmpPredicate P, bool &Unsigned) {
  using CP = ir::CmpPredicate;
  Unsigned = P == CP::ULT || P == CP::ULE || P == CP::UGT || P == CP::UGE;
  switch (P) {
  case CP::EQ:
    return Cmp::Eq;
  case CP::NE:
    return Cmp::Ne;
  case CP::SLT:
  case CP::ULT:
    return Cmp::Lt;
  case CP::SLE:
  case CP::ULE:
    return Cmp::Le;
  case CP::SGT:
  case CP::UGT:
    return Cmp::Gt;
  case CP::SGE:
  case CP::UGE:
    return Cmp::Ge;
  default:
    reportInternalError("codegen: float predicate on integers");
  }
}

Cmp floatPredicate(ir::CmpPredicate P) {
  using CP = ir::CmpPredicate;
  switch (P) {
  case CP::OEQ:
    return Cmp::Eq;
  case CP::ONE:
    return Cmp::Ne;
  case CP::OLT:
    return Cmp::Lt;
  case CP::OLE:
    return Cmp::Le;
  case CP::OGT:
    return Cmp::Gt;
  case CP::OGE:
    return Cmp::Ge;
  case CP::UNE:
    return Cmp::Neu;
  default:
    reportInternalError("codegen: integer predicate on floats");
  }
}

} // namespace

Reg FunctionLowering::toF32(const Reg &X, const ir::Type *T) {
  switch (T->getScalarType()->getFloatKind()) {
  case ir::FloatKind::F16:
    return B.cvt(Ty::F32, Ty::F16, X);
  case ir::FloatKind::BF16: {
    // bf16 is the high half of an f32: no conversion instruction needed.
    Reg Zero = B.mov(Ty::B16, Operand::hex(0));
    return B.bitcast(Ty::F32, B.pack2x16(Zero, X.as(Ty::B16), Ty::B32));
  }
  case ir::FloatKind::F32:
    return X;
  default:
    return B.cvt(Ty::F32, Ty::F64, X);
  }
}

Reg FunctionLowering::fromF32(const Reg &X, const ir::Type *T) {
  switch (T->getScalarType()->getFloatKind()) {
  case ir::FloatKind::F16:
    return B.cvt(Ty::F16, Ty::F32, X);
  case ir::FloatKind::BF16:
    return B.cvt(Ty::BF16, Ty::F32, X);
  case ir::FloatKind::F32:
    return X;
  default:
    return B.cvt(Ty::F64, Ty::F32, X);
  }
}

Reg FunctionLowering::predToU16(const Reg &P) { return B.selp(Ty::U16, 1, 0, P); }

Reg FunctionLowering::u16ToPred(const Reg &X) { return B.setp(Cmp::Ne, Ty::U16, X.as(Ty::U16), 0); }

Regs FunctionLowering::makeRange(const Instruction &I, const LinearLayout &L) {
  Reg Thread = threadCoords(L)[0];
  Regs Out;
  for (int32_t R = 0; R < numRegisters(L); ++R) {
    int64_t Offset = registerCoords(L, R)[0] + I.RangeStart;
    Out.push_back(B.add(Ty::S32, Thread.as(Ty::S32), Offset));
  }
  return Out;
}

Regs FunctionLowering::lowerElementwise(const Instruction &I, const LinearLayout *L) {
  std::vector<Regs> Ops;
  for (const ir::Value *Op : I.operands())
    Ops.push_back(L ? get(Op, *L) : Regs{scalar(Op)});
  size_t N = L ? static_cast<size_t>(numRegisters(*L)) : 1;
  Regs Out;
  for (size_t R = 0; R < N; ++R) {
    std::vector<Reg> Scalars;
    for (const Regs &Op : Ops)
      Scalars.push_back(Op[R]);
    Out.push_back(lowerScalarOp(I, Scalars));
  }
  return Out;
}

Reg FunctionLowering::lowerScalarOp(const Instruction &I, const std::vector<Reg> &Ops) {
  const ir::Type *T = I.getType()->getScalarType();
  const ir::Type *OT = I.getNumOperands() ? I.getOperand(0)->getType()->getScalarType() : T;
  Opcode Op = I.getOpcode();
  Ty PT = ptxTypeOf(T);
  auto Normalize = [&](Reg R) { return isI8(T) ? B.inst("cvt.s16.s8", Ty::S16, {R}) : R; };

  switch (I.getCategory()) {
  case ir::OpCategory::Binary: {
    if (T->getKind() == ir::TypeKind::Float) {
      if (Op == Opcode::FRem) {
        // fmod is exact; a - trunc(a / b) * b in f64 is for the quotients
        // the kernels see (below 2^53).
        auto ToF64 = [&](const Reg &X) {
          return PT == Ty::F64 ? X : B.cvt(Ty::F64, Ty::F32, isHalf(T) ? toF32(X, T) : X);
        };
        Reg A = ToF64(Ops[0]), C = ToF64(Ops[1]);
        Reg Q = B.cvt(Ty::F64, Ty::F64, B.div(Ty::F64, A, C), Rounding::Rzi);
        Reg Rem = B.fma(Ty::F64, B.unary(MathOp::Neg, Ty::F64, Q), C, A);
        if (PT == Ty::F64)
          return Rem;
        Reg F = B.cvt(Ty::F32, Ty::F64, Rem);
        return PT == Ty::F32 ? F : fromF32(F, T);
      }
      BinOp BO = Op == Opcode::FAdd   ? BinOp::Add
                 : Op == Opcode::FSub ? BinOp::Sub
                 : Op == Opcode::FMul ? BinOp::MulLo
                 : Op == Opcode::FDiv ? BinOp::Div
                 : Op == Opcode::FMin ? BinOp::Min
                                      : BinOp::Max;
      if (isHalf(T))
        return fromF32(B.binary(BO, Ty::F32, toF32(Ops[0], T), toF32(Ops[1], T)), T);
      return B.binary(BO, PT, Ops[0], Ops[1]);
    }
    if (PT == Ty::Pred) {
      switch (Op) {
      case Opcode::Add:
      case Opcode::Sub:
      case Opcode::Xor:
        return B.binary(BinOp::Xor, Ty::Pred, Ops[0], Ops[1]);
      case Opcode::Mul:
      case Opcode::And:
      case Opcode::SMax:
      case Opcode::UMin:
        return B.predAnd(Ops[0], Ops[1]);
      case Opcode::Or:
      case Opcode::SMin:
      case Opcode::UMax:
        return B.predOr(Ops[0], Ops[1]);
      default:
        return u16ToPred(lowerScalarOp(I, {predToU16(Ops[0]), predToU16(Ops[1])}));
      }
    }
    Ty UT = unsignedTy(PT);
    switch (Op) {
    case Opcode::Add:
      return Normalize(B.add(PT, Ops[0], Ops[1]));
    case Opcode::Sub:
      return Normalize(B.sub(PT, Ops[0], Ops[1]));
    case Opcode::Mul:
      return Normalize(B.mul(PT, Ops[0], Ops[1]));
    case Opcode::SDiv:
      return Normalize(B.div(PT, Ops[0], Ops[1]));
    case Opcode::SRem:
      return Normalize(B.rem(PT, Ops[0], Ops[1]));
    case Opcode::UDiv:
    case Opcode::URem: {
      Reg A = Ops[0].as(UT), C = Ops[1].as(UT);
      if (isI8(T)) {
        A = B.bitAnd(Ty::B16, A.as(Ty::B16), 0xff).as(UT);
        C = B.bitAnd(Ty::B16, C.as(Ty::B16), 0xff).as(UT);
      }
      Reg R = Op == Opcode::UDiv ? B.div(UT, A, C) : B.rem(UT, A, C);
      return Normalize(R.as(PT));
    }
    case Opcode::Shl:
    case Opcode::LShr:
    case Opcode::AShr: {
      // The amount is read as unsigned; PTX clamps amounts above the width.
      Reg Amt = Ops[1].as(UT);
      if (isI8(T))
        Amt = B.bitAnd(Ty::B16, Amt.as(Ty::B16), 0xff).as(UT);
      if (PT == Ty::S64)
        Amt = B.cvt(Ty::U32, Ty::U64, B.min(Ty::U64, Amt, 64));
      else if (PT == Ty::S16)
        Amt = B.cvt(Ty::U32, Ty::U16, Amt);
      if (Op == Opcode::Shl)
        return Normalize(B.shl(bitsTy(PT), Ops[0].as(bitsTy(PT)), Amt).as(PT));
      if (Op == Opcode::AShr)
        return Normalize(B.shr(PT, Ops[0], Amt));
      Reg A = Ops[0].as(UT);
      if (isI8(T))
        A = B.bitAnd(Ty::B16, A.as(Ty::B16), 0xff).as(UT);
      return Normalize(B.shr(UT, A, Amt).as(PT));
    }
    case Opcode::And:
      return B.bitAnd(bitsTy(PT), Ops[0].as(bitsTy(PT)), Ops[1].as(bitsTy(PT))).as(PT);
    case Opcode::Or:
      return B.bitOr(bitsTy(PT), Ops[0].as(bitsTy(PT)), Ops[1].as(bitsTy(PT))).as(PT);
    case Opcode::Xor:
      return B.bitXor(bitsTy(PT), Ops[0].as(bitsTy(PT)), Ops[1].as(bitsTy(PT))).as(PT);
    case Opcode::SMin:
      return B.min(PT, Ops[0], Ops[1]);
    case Opcode::SMax:
      return B.max(PT, Ops[0], Ops[1]);
    case Opcode::UMin:
      return B.min(UT, Ops[0].as(UT), Ops[1].as(UT)).as(PT);
    case Opcode::UMax:
      return B.max(UT, Ops[0].as(UT), Ops[1].as(UT)).as(PT);
    default:
      break;
    }
    break;
  }
  case ir::OpCategory::Unary:
    switch (Op) {
    case Opcode::IAbs:
      return Normalize(B.inst(std::string("abs.") + ptx::tyName(PT), PT, {Ops[0]}));
    case Opcode::FNeg:
    case Opcode::FAbs:
    case Opcode::Floor:
    case Opcode::Ceil: {
      Reg X = isHalf(T) ? toF32(Ops[0], T) : Ops[0];
      Ty FT = isHalf(T) ? Ty::F32 : PT;
      Reg R = Op == Opcode::FNeg ? B.unary(MathOp::Neg, FT, X)
              : Op == Opcode::FAbs
                  ? B.unary(MathOp::Abs, FT, X)
                  : B.cvt(FT, FT, X, Op == Opcode::Floor ? Rounding::Rmi : Rounding::Rpi);
      return isHalf(T) ? fromF32(R, T) : R;
    }
    default:
      return lowerMath(Op, T, Ops[0]);
    }
  case ir::OpCategory::Ternary: {
    if (isHalf(T))
      return fromF32(B.fma(Ty::F32, toF32(Ops[0], T), toF32(Ops[1], T), toF32(Ops[2], T)), T);
    return B.fma(PT, Ops[0], Ops[1], Ops[2]);
  }
  case ir::OpCategory::Cmp: {
    Ty OPT = ptxTypeOf(OT);
    if (Op == Opcode::FCmp) {
      Cmp C = floatPredicate(I.Predicate);
      if (isHalf(OT))
        return B.setp(C, Ty::F32, toF32(Ops[0], OT), toF32(Ops[1], OT));
      return B.setp(C, OPT, Ops[0], Ops[1]);
    }
    bool Unsigned = false;
    Cmp C = intPredicate(I.Predicate, Unsigned);
    Reg A = Ops[0], Bv = Ops[1];
    if (OPT == Ty::Pred) {
      // i1 true is -1 as a signed value and 1 unsigned.
      A = Unsigned ? predToU16(A) : B.selp(Ty::S16, -1, 0, A);
      Bv = Unsigned ? predToU16(Bv) : B.selp(Ty::S16, -1, 0, Bv);
      OPT = Unsigned ? Ty::U16 : Ty::S16;
      return B.setp(C, OPT, A, Bv);
    }
    if (OPT == Ty::U64 && !Unsigned)
      OPT = Ty::S64;
    Ty CT = Unsigned ? unsignedTy(OPT) : OPT;
    return B.setp(C, CT, A.as(CT), Bv.as(CT));
  }
  case ir::OpCategory::Cast:
    return convertScalar(Ops[0], OT, T, Op);
  case ir::OpCategory::Misc:
    if (Op == Opcode::Select) {
      if (PT == Ty::Pred)
        return B.predOr(B.predAnd(Ops[0], Ops[1]), B.predAnd(B.predNot(Ops[0]), Ops[2]));
      if (PT == Ty::F16 || PT == Ty::BF16)
        return B.inst("selp.b16", PT, {Ops[1], Ops[2], Ops[0]});
      return B.selp(PT, Ops[1], Ops[2], Ops[0]);
    }
    if (Op == Opcode::GEP) {
      const ir::Type *OffT = I.getOperand(1)->getType()->getScalarType();
      int64_t Size = memBytesOf(T->getPointee());
      Reg Off = Ops[1];
      Reg Bytes;
      if (OffT->getIntBits() == 64)
        Bytes = B.mul(Ty::S64, Off, Size);
      else if (OffT->getIntBits() == 32)
        Bytes = B.mulWide(Ty::S32, Off, Size);
      else if (OffT->getIntBits() == 1)
        Bytes = B.selp(Ty::S64, Size, 0, Off);
      else
        Bytes = B.mul(Ty::S64, B.cvt(Ty::S64, Ty::S16, Off), Size);
      return B.add(Ty::U64, Ops[0], Bytes.as(Ty::U64));
    }
    break;
  default:
    break;
  }
  reportInternalError(std::string("codegen: cannot lower ") + ir::opcodeName(Op));
}

Reg FunctionLowering::convertScalar(const Reg &X, const ir::Type *From, const ir::Type *To,
                                    Opcode Op) {
  Ty FT = ptxTypeOf(From), TT = ptxTypeOf(To);
  unsigned FB = From->getScalarBits(), TB = To->getScalarBits();
  switch (Op) {
  case Opcode::Trunc:
    if (TT == Ty::Pred)
      return B.setp(Cmp::Ne, bitsTy(FT), B.bitAnd(bitsTy(FT), X.as(bitsTy(FT)), 1), 0);
    if (TB == 8) {
      Reg H = FT == Ty::S16 ? X : B.cvt(Ty::U16, unsignedTy(FT), X.as(unsignedTy(FT)));
      return B.inst("cvt.s16.s8", Ty::S16, {H.as(Ty::S16)});
    }
    if (ptx::tyBits(TT) == ptx::tyBits(FT))
      return B.mov(TT, X.as(TT));
    return B.cvt(unsignedTy(TT), unsignedTy(FT), X.as(unsignedTy(FT))).as(TT);
  case Opcode::ZExt:
  case Opcode::SExt: {
    bool Signed = Op == Opcode::SExt;
    if (FT == Ty::Pred)
      return B.selp(TT, Signed ? -1 : 1, 0, X);
    Reg Src = X;
    if (FB == 8 && !Signed)
      Src = B.bitAnd(Ty::B16, X.as(Ty::B16), 0xff).as(Ty::S16);
    if (TB == 8 || ptx::tyBits(TT) == ptx::tyBits(FT))
      return B.mov(TT, Src.as(TT));
    Ty SrcTy = Signed ? FT : unsignedTy(FT);
    return B.cvt(Signed ? TT : unsignedTy(TT), SrcTy, Src.as(SrcTy)).as(TT);
  }
  case Opcode::FPTrunc:
  case Opcode::FPExt: {
    if (FT == TT)
      return X;
    if (TT == Ty::F64)
      return B.cvt(Ty::F64, Ty::F32, FT == Ty::F32 ? X : toF32(X, From));
    if (FT == Ty::F64 && TT == Ty::F16)
      return B.cvt(Ty::F16, Ty::F64, X);
    if (FT == Ty::F64 && TT == Ty::BF16) {
      // No direct f64 -> bf16 on sm_80: round to odd in f32 first keeps the
      // final rounding correct (f32 has more than 8 + 2 extra bits).
      Reg Odd = B.cvt(Ty::F32, Ty::F64, X, Rounding::Rz);
      Reg Back = B.cvt(Ty::F64, Ty::F32, Odd);
      Reg Inexact = B.setp(Cmp::Neu, Ty::F64, Back, X);
      Reg Bits = B.bitcast(Ty::B32, Odd);
      Reg Sticky = B.bitOr(Ty::B32, Bits, 1);
      Reg Fixed = B.selp(Ty::B32, Sticky, Bits, Inexact);
      return B.cvt(Ty::BF16, Ty::F32, B.bitcast(Ty::F32, Fixed));
    }
    Reg F = FT == Ty::F32 ? X : (FT == Ty::F64 ? B.cvt(Ty::F32, Ty::F64, X) : toF32(X, From));
    return fromF32(F, To);
  }
  case Opcode::FPToSI:
  case Opcode::FPToUI: {
    bool Signed = Op == Opcode::FPToSI;
    Reg F = isHalf(From) ? toF32(X, From) : X;
    Ty SrcTy = isHalf(From) ? Ty::F32 : FT;
    if (TT == Ty::Pred)
      return B.setp(Cmp::Neu, SrcTy, F, SrcTy == Ty::F64 ? Operand::f64(0) : Operand::f32(0));
    if (TB == 8) {
      Reg W = B.cvt(Signed ? Ty::S32 : Ty::U32, SrcTy, F, Rounding::Rzi);
      return convertScalar(W.as(Ty::S32), ir::Type::getI32(), To, Opcode::Trunc);
    }
    return B.cvt(Signed ? TT : unsignedTy(TT), SrcTy, F, Rounding::Rzi).as(TT);
  }
  case Opcode::SIToFP:
  case Opcode::UIToFP: {
    bool Signed = Op == Opcode::SIToFP;
    if (FT == Ty::Pred) {
      Reg F = B.selp(Ty::F32, Operand::f32(Signed ? -1.0f : 1.0f), Operand::f32(0), X);
      return TT == Ty::F32 ? F : (TT == Ty::F64 ? B.cvt(Ty::F64, Ty::F32, F) : fromF32(F, To));
    }
    Reg Src = X;
    Ty SrcTy = Signed ? FT : unsignedTy(FT);
    if (FB == 8 && !Signed)
      Src = B.bitAnd(Ty::B16, X.as(Ty::B16), 0xff);
    Src = Src.as(SrcTy);
    if (TT == Ty::F32 || TT == Ty::F64)
      return B.cvt(TT, SrcTy, Src);
    // Through f64 (exact for up to 53 bits), then one rounding to the half type.
    return convertScalar(B.cvt(Ty::F64, SrcTy, Src), ir::Type::getF64(), To, Opcode::FPTrunc);
  }
  case Opcode::PtrToInt:
  case Opcode::IntToPtr:
  case Opcode::Bitcast: {
    if (FT == Ty::Pred || TT == Ty::Pred)
      break;
    if (ptx::tyBits(FT) == ptx::tyBits(TT) && FB == TB)
      return B.mov(bitsTy(TT), X.as(bitsTy(FT))).as(TT);
    if (Op == Opcode::Bitcast)
      break;
    // Pointer <-> narrower integer: zero-extend or truncate through 64 bits.
    if (Op == Opcode::IntToPtr)
      return convertScalar(X, From, ir::Type::getI64(), Opcode::ZExt).as(Ty::U64);
    return convertScalar(X.as(Ty::S64), ir::Type::getI64(), To, Opcode::Trunc);
  }
  default:
    break;
  }
  reportInternalError(std::string("codegen: cannot convert ") + From->str() + " to " + To->str());
}

} // namespace tritonc::codegen
