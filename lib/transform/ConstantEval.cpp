//===- ConstantEval.cpp - Scalar constant arithmetic ----------------------===//
#include "tritonc/transform/ConstantEval.h"

#include "tritonc/support/FloatFormats.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tritonc::transform {

using namespace ir;

namespace {

/// Width of an integer or pointer scalar (pointers are 64-bit addresses).
unsigned widthOf(const Type *T) {
  return T->getScalarType()->getKind() == TypeKind::Pointer ? 64 : T->getIntBits();
}

uint64_t maskTo(uint64_t V, unsigned Bits) {
  return Bits >= 64 ? V : V & ((uint64_t(1) << Bits) - 1);
}

/// Smallest signed value of a width (i1: -1).
int64_t signedMin(unsigned Bits) {
  return Bits >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (Bits - 1));
}

Constant *foldIntBinary(Module &M, Opcode Op, const Type *T, Constant &A, Constant &B) {
  unsigned Bits = widthOf(T);
  uint64_t UA = asUnsigned(A), UB = asUnsigned(B);
  int64_t SA = asSigned(A), SB = asSigned(B);
  auto Int = [&](uint64_t V) { return M.getInt(T, static_cast<int64_t>(V)); };
  switch (Op) {
  case Opcode::Add:
    return Int(UA + UB);
  case Opcode::Sub:
    return Int(UA - UB);
  case Opcode::Mul:
    return Int(UA * UB);
  case Opcode::SDiv:
  case Opcode::SRem:
    // Division by zero is a run-time error and MIN / -1 overflows: leave
    // both to run time.
    if (SB == 0 || (SA == signedMin(Bits) && SB == -1))
      return nullptr;
    return Int(static_cast<uint64_t>(Op == Opcode::SDiv ? SA / SB : SA % SB));
  case Opcode::UDiv:
  case Opcode::URem:
    if (UB == 0)
      return nullptr;
    return Int(Op == Opcode::UDiv ? UA / UB : UA % UB);
  case Opcode::Shl:
    return Int(UB >= Bits ? 0 : UA << UB);
  case Opcode::LShr:
    return Int(UB >= Bits ? 0 : UA >> UB);
  case Opcode::AShr:
    // Shifting by the width or more leaves only copies of the sign bit.
    return Int(static_cast<uint64_t>(SA >> (UB >= Bits ? 63 : UB)));
  case Opcode::And:
    return Int(UA & UB);
  case Opcode::Or:
    return Int(UA | UB);
  case Opcode::Xor:
    return Int(UA ^ UB);
  case Opcode::SMin:
    return SA <= SB ? &A : &B;
  case Opcode::SMax:
    return SA >= SB ? &A : &B;
  case Opcode::UMin:
    return UA <= UB ? &A : &B;
  case Opcode::UMax:
    return UA >= UB ? &A : &B;
  default:
    return nullptr;
  }
}

Constant *foldFloatBinary(Module &M, Opcode Op, const Type *T, double A, double B) {
  double R;
  switch (Op) {
  // Computing in double and rounding once to the type is exact for + - * /:
  // double has more than twice the precision of f32, f16 and bf16.
  case Opcode::FAdd:
    R = A + B;
    break;
  case Opcode::FSub:
    R = A - B;
    break;
  case Opcode::FMul:
    R = A * B;
    break;
  case Opcode::FDiv:
  case Opcode::FRem:
    if (B == 0)
      return nullptr;
    R = Op == Opcode::FDiv ? A / B : std::fmod(A, B);
    break;
  case Opcode::FMin:
  case Opcode::FMax:
    // The non-NaN operand wins. min(-0, +0) is left to run time: hardware
    // and libm disagree on the sign.
    if (std::isnan(A))
      R = B;
    else if (std::isnan(B))
      R = A;
    else if (A == 0 && B == 0 && std::signbit(A) != std::signbit(B))
      return nullptr;
    else
      R = Op == Opcode::FMin ? std::fmin(A, B) : std::fmax(A, B);
    break;
  default:
    return nullptr;
  }
  return M.getFloat(T, roundToFloatKind(R, T->getFloatKind()));
}

Constant *foldUnary(Module &M, Opcode Op, const Type *T, Constant &A) {
  if (Op == Opcode::IAbs) {
    int64_t S = asSigned(A);
    return M.getInt(T, S < 0 ? static_cast<int64_t>(0 - asUnsigned(A)) : S);
  }
  double X = A.getFloat();
  double R;
  switch (Op) {
  case Opcode::FNeg:
    R = -X;
    break;
  case Opcode::FAbs:
    R = std::fabs(X);
    break;
  case Opcode::Floor:
    R = std::floor(X);
    break;
  case Opcode::Ceil:
    R = std::ceil(X);
    break;
  case Opcode::Sqrt:
    // Correctly rounded in IEEE arithmetic, like + - * /.
    R = std::sqrt(X);
    break;
  default:
    // exp, log, sin, cos, tanh, rsqrt: the GPU uses approximations.
    return nullptr;
  }
  return M.getFloat(T, roundToFloatKind(R, T->getFloatKind()));
}

Constant *foldCmp(Module &M, const Instruction &I, Constant &A, Constant &B) {
  bool R;
  if (I.getOpcode() == Opcode::ICmp) {
    uint64_t UA = asUnsigned(A), UB = asUnsigned(B);
    int64_t SA = asSigned(A), SB = asSigned(B);
    switch (I.Predicate) {
    case CmpPredicate::EQ:
      R = UA == UB;
      break;
    case CmpPredicate::NE:
      R = UA != UB;
      break;
    case CmpPredicate::SLT:
      R = SA < SB;
      break;
    case CmpPredicate::SLE:
      R = SA <= SB;
      break;
    case CmpPredicate::SGT:
      R = SA > SB;
      break;
    case CmpPredicate::SGE:
      R = SA >= SB;
      break;
    case CmpPredicate::ULT:
      R = UA < UB;
      break;
    case CmpPredicate::ULE:
      R = UA <= UB;
      break;
    case CmpPredicate::UGT:
      R = UA > UB;
      break;
    case CmpPredicate::UGE:
      R = UA >= UB;
      break;
    default:
      return nullptr;
    }
  } else {
    double X = A.getFloat(), Y = B.getFloat();
    // Ordered predicates are false on NaN; UNE is true.
    bool Unordered = std::isnan(X) || std::isnan(Y);
    switch (I.Predicate) {
    case CmpPredicate::OEQ:
      R = !Unordered && X == Y;
      break;
    case CmpPredicate::ONE:
      R = !Unordered && X != Y;
      break;
    case CmpPredicate::OLT:
      R = !Unordered && X < Y;
      break;
    case CmpPredicate::OLE:
      R = !Unordered && X <= Y;
      break;
    case CmpPredicate::OGT:
      R = !Unordered && X > Y;
      break;
    case CmpPredicate::OGE:
      R = !Unordered && X >= Y;
      break;
    case CmpPredicate::UNE:
      R = Unordered || X != Y;
      break;
    default:
      return nullptr;
    }
  }
  return M.getBool(R);
}

/// fptosi/fptoui: round toward zero, saturate, NaN -> 0 (PTX cvt.rzi).
Constant *foldFloatToInt(Module &M, bool Signed, const Type *To, double X) {
  unsigned Bits = To->getIntBits();
  if (std::isnan(X))
    return M.getInt(To, 0);
  double T = std::trunc(X);
  if (Signed) {
    int64_t Lo = signedMin(Bits);
    double Limit = std::ldexp(1.0, static_cast<int>(Bits) - 1); // first value too large
    if (T <= static_cast<double>(Lo))
      return M.getInt(To, Lo);
    if (T >= Limit)
      return M.getInt(To, Bits >= 64 ? std::numeric_limits<int64_t>::max()
                                     : (int64_t(1) << (Bits - 1)) - 1);
    return M.getInt(To, static_cast<int64_t>(T));
  }
  if (T <= 0)
    return M.getInt(To, 0);
  if (T >= std::ldexp(1.0, static_cast<int>(Bits)))
    return M.getInt(To, -1); // all ones
  return M.getInt(To, static_cast<int64_t>(static_cast<uint64_t>(T)));
}

/// uitofp/sitofp with a single rounding to the destination format.
Constant *foldIntToFloat(Module &M, const Type *To, bool Negative, uint64_t Magnitude) {
  FloatKind K = To->getFloatKind();
  double D;
  if (Magnitude <= (uint64_t(1) << 53)) {
    D = static_cast<double>(Magnitude); // exact
  } else if (K == FloatKind::F64) {
    D = static_cast<double>(Magnitude);
  } else if (K == FloatKind::F32) {
    D = static_cast<double>(static_cast<float>(Magnitude));
  } else {
    return nullptr; // would round twice (to double, then to 16 bits)
  }
  return M.getFloat(To, roundToFloatKind(Negative ? -D : D, K));
}

/// Bits of a float constant in its own format.
uint64_t floatBits(const Constant &C) {
  double D = C.getFloat();
  switch (C.getType()->getFloatKind()) {
  case FloatKind::F16:
    return floatToHalfBits(static_cast<float>(D));
  case FloatKind::BF16:
    return floatToBFloat16Bits(static_cast<float>(D));
  case FloatKind::F32: {
    float F = static_cast<float>(D);
    uint32_t B;
    std::memcpy(&B, &F, 4);
    return B;
  }
  case FloatKind::F64: {
    uint64_t B;
    std::memcpy(&B, &D, 8);
    return B;
  }
  }
  return 0;
}

double floatFromBits(uint64_t Bits, FloatKind K) {
  switch (K) {
  case FloatKind::F16:
    return halfBitsToFloat(static_cast<uint16_t>(Bits));
  case FloatKind::BF16:
    return bfloat16BitsToFloat(static_cast<uint16_t>(Bits));
  case FloatKind::F32: {
    uint32_t B = static_cast<uint32_t>(Bits);
    float F;
    std::memcpy(&F, &B, 4);
    return F;
  }
  case FloatKind::F64: {
    double D;
    std::memcpy(&D, &Bits, 8);
    return D;
  }
  }
  return 0;
}

Constant *foldCast(Module &M, Opcode Op, const Type *To, Constant &A) {
  const Type *From = A.getType();
  switch (Op) {
  case Opcode::Trunc:
    return M.getInt(To, A.getInt());
  case Opcode::ZExt:
    return M.getInt(To, static_cast<int64_t>(asUnsigned(A)));
  case Opcode::SExt:
    return M.getInt(To, asSigned(A));
  case Opcode::FPTrunc:
  case Opcode::FPExt:
    return M.getFloat(To, roundToFloatKind(A.getFloat(), To->getFloatKind()));
  case Opcode::FPToSI:
  case Opcode::FPToUI:
    return foldFloatToInt(M, Op == Opcode::FPToSI, To, A.getFloat());
  case Opcode::UIToFP:
    return foldIntToFloat(M, To, false, asUnsigned(A));
  case Opcode::SIToFP: {
    int64_t S = asSigned(A);
    return foldIntToFloat(M, To, S < 0, S < 0 ? 0 - static_cast<uint64_t>(S) : S);
  }
  case Opcode::PtrToInt:
    return M.getInt(To, 0); // the only pointer constant is null
  case Opcode::IntToPtr:
    return A.getInt() == 0 ? M.getNullPointer(To) : nullptr;
  case Opcode::Bitcast: {
    if (From->getKind() == TypeKind::Pointer && To->getKind() == TypeKind::Pointer)
      return M.getNullPointer(To);
    uint64_t Bits = From->getKind() == TypeKind::Float ? floatBits(A) : asUnsigned(A);
    if (From->getKind() == TypeKind::Float && std::isnan(A.getFloat()))
      return nullptr; // NaN payloads are not kept by constants
    if (To->getKind() == TypeKind::Int)
      return M.getInt(To, static_cast<int64_t>(Bits));
    if (To->getKind() != TypeKind::Float)
      return nullptr;
    double D = floatFromBits(Bits, To->getFloatKind());
    return std::isnan(D) ? nullptr : M.getFloat(To, D);
  }
  default:
    return nullptr;
  }
}

} // namespace

uint64_t asUnsigned(const Constant &C) {
  return maskTo(static_cast<uint64_t>(C.getInt()), widthOf(C.getType()));
}

int64_t asSigned(const Constant &C) {
  unsigned Bits = widthOf(C.getType());
  // Constants of other widths are stored sign-extended already; i1 is 0/1.
  return Bits == 1 ? -(C.getInt() & 1) : C.getInt();
}

Constant *evaluateScalar(Module &M, const Instruction &I, const std::vector<Constant *> &Ops) {
  for (Constant *C : Ops)
    if (!C || C->isUndef())
      return nullptr;
  const Type *T = I.getType()->getScalarType();
  switch (I.getCategory()) {
  case OpCategory::Binary:
    if (T->getKind() == TypeKind::Int)
      return foldIntBinary(M, I.getOpcode(), T, *Ops[0], *Ops[1]);
    return foldFloatBinary(M, I.getOpcode(), T, Ops[0]->getFloat(), Ops[1]->getFloat());
  case OpCategory::Unary:
    return foldUnary(M, I.getOpcode(), T, *Ops[0]);
  case OpCategory::Cmp:
    return foldCmp(M, I, *Ops[0], *Ops[1]);
  case OpCategory::Cast:
    return foldCast(M, I.getOpcode(), T, *Ops[0]);
  case OpCategory::Misc:
    if (I.getOpcode() == Opcode::Select)
      return Ops[0]->getInt() ? Ops[1] : Ops[2];
    return nullptr;
  default:
    // fma: a*b+c rounded once; double cannot hold the exact sum in general,
    // so it is left to run time.
    return nullptr;
  }
}

} // namespace tritonc::transform
