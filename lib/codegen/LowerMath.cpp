//===- LowerMath.cpp - Transcendental functions ---------------------------===//
//
// f32 (and f16/bf16, computed in f32): the hardware approximations, with
// the scaling they need (exp(x) = 2^(x log2 e), log(x) = log2(x) ln 2);
// their errors (a few f32 ulps, or ~2^-21 absolute for sin/cos on [-pi, pi])
// are far below what an f32 result needs for tile kernels. tanh.approx is
// too coarse (2^-11), so tanh goes through ex2.
//
// f64 has no hardware approximations: exp, log, sin and cos are computed in
// software with range reduction and polynomials accurate to a few f64 ulps
// over the ranges kernels use (sin/cos: |x| < 2^20).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/support/Diagnostics.h"

#include <cmath>

namespace tritonc::codegen {

using ir::Opcode;
using ptx::BinOp;
using ptx::Cmp;
using ptx::MathOp;
using ptx::Rounding;

namespace {

constexpr double Log2E = 1.4426950408889634;
constexpr double Ln2 = 0.6931471805599453;
constexpr double Ln2Hi = 6.93147180369123816490e-01; // fdlibm's split of ln 2
constexpr double Ln2Lo = 1.90821492927058770002e-10;
constexpr double TwoOverPi = 0.6366197723675814;
constexpr double PiOver2Hi = 1.57079632673412561417e+00; // 33 bits: k * hi is exact
constexpr double PiOver2Mid = 6.07710050650619224932e-11;
constexpr double PiOver2Lo = 2.02226624879595063154e-21;

/// Horner evaluation of sum Coeffs[i] * X^i.
Reg horner(ptx::PTXFunctionBuilder &B, const Reg &X, const std::vector<double> &Coeffs) {
  Reg P = B.mov(Ty::F64, Operand::f64(Coeffs.back()));
  for (size_t I = Coeffs.size() - 1; I-- > 0;)
    P = B.fma(Ty::F64, P, X, Operand::f64(Coeffs[I]));
  return P;
}

Reg exp64(ptx::PTXFunctionBuilder &B, const Reg &X) {
  // Clamp so that the two-step scaling below stays in range; e^-746 is 0 and
  // e^710 overflows anyway. NaN is restored at the end (min/max drop it).
  Reg C = B.min(Ty::F64, B.max(Ty::F64, X, Operand::f64(-746.0)), Operand::f64(710.0));
  Reg K = B.cvt(Ty::F64, Ty::F64, B.mul(Ty::F64, C, Operand::f64(Log2E)), Rounding::Rni);
  Reg NegK = B.unary(MathOp::Neg, Ty::F64, K);
  Reg R = B.fma(Ty::F64, NegK, Operand::f64(Ln2Hi), C);
  R = B.fma(Ty::F64, NegK, Operand::f64(Ln2Lo), R);
  std::vector<double> Coeffs;
  double Fact = 1;
  for (int I = 0; I <= 13; ++I) {
    if (I)
      Fact *= I;
    Coeffs.push_back(1.0 / Fact);
  }
  Reg P = horner(B, R, Coeffs);
  // 2^k as two factors 2^k1 * 2^k2 so that each exponent field is valid.
  Reg KI = B.cvt(Ty::S32, Ty::F64, K, Rounding::Rni);
  Reg K1 = B.shr(Ty::S32, KI, 1);
  Reg K2 = B.sub(Ty::S32, KI, K1);
  for (const Reg &Part : {K1, K2}) {
    Reg E = B.add(Ty::S64, B.cvt(Ty::S64, Ty::S32, Part), 1023);
    Reg Scale = B.bitcast(Ty::F64, B.shl(Ty::B64, E.as(Ty::B64), 52));
    P = B.mul(Ty::F64, P, Scale);
  }
  Reg IsNan = B.setp(Cmp::Nan, Ty::F64, X, X);
  return B.selp(Ty::F64, X, P, IsNan);
}

Reg log64(ptx::PTXFunctionBuilder &B, const Reg &X) {
  // Subnormals are scaled into the normal range first.
  Reg Tiny = B.setp(Cmp::Lt, Ty::F64, X, Operand::f64(0x1p-1022));
  Reg Scaled = B.selp(Ty::F64, B.mul(Ty::F64, X, Operand::f64(0x1p54)), X, Tiny);
  Reg Bits = B.bitcast(Ty::B64, Scaled);
  Reg Exp = B.sub(Ty::S64, B.shr(Ty::U64, Bits.as(Ty::U64), 52).as(Ty::S64), 1023);
  Exp = B.sub(Ty::S64, Exp, B.selp(Ty::S64, 54, 0, Tiny));
  Reg MBits = B.bitOr(Ty::B64, B.bitAnd(Ty::B64, Bits, Operand::hex(0x000FFFFFFFFFFFFFull)),
                      Operand::hex(0x3FF0000000000000ull));
  Reg M = B.bitcast(Ty::F64, MBits);
  // m in [sqrt(1/2), sqrt(2)): log m = 2 atanh(s), s = (m - 1) / (m + 1).
  Reg Big = B.setp(Cmp::Gt, Ty::F64, M, Operand::f64(1.4142135623730951));
  M = B.selp(Ty::F64, B.mul(Ty::F64, M, Operand::f64(0.5)), M, Big);
  Exp = B.add(Ty::S64, Exp, B.selp(Ty::S64, 1, 0, Big));
  Reg S =
      B.div(Ty::F64, B.sub(Ty::F64, M, Operand::f64(1.0)), B.add(Ty::F64, M, Operand::f64(1.0)));
  Reg Z = B.mul(Ty::F64, S, S);
  std::vector<double> Coeffs;
  for (int J = 0; J <= 11; ++J)
    Coeffs.push_back(1.0 / (2 * J + 1));
  Reg LogM = B.mul(Ty::F64, B.mul(Ty::F64, S, Operand::f64(2.0)), horner(B, Z, Coeffs));
  Reg E = B.cvt(Ty::F64, Ty::S64, Exp);
  Reg R = B.fma(Ty::F64, E, Operand::f64(Ln2), LogM);
  // log 0 = -inf, log of a negative = NaN, log inf = inf, NaN stays NaN.
  R = B.selp(Ty::F64, Operand::f64(-INFINITY), R, B.setp(Cmp::Eq, Ty::F64, X, Operand::f64(0)));
  R = B.selp(Ty::F64, X, R, B.setp(Cmp::Eq, Ty::F64, X, Operand::f64(INFINITY)));
  return B.selp(Ty::F64, Operand::f64(NAN), R, B.setp(Cmp::Ltu, Ty::F64, X, Operand::f64(0)));
}

/// sin(x) (Cosine false) or cos(x) = sin(x + pi/2) (Cosine true).
Reg sincos64(ptx::PTXFunctionBuilder &B, const Reg &X, bool Cosine) {
  Reg K = B.cvt(Ty::F64, Ty::F64, B.mul(Ty::F64, X, Operand::f64(TwoOverPi)), Rounding::Rni);
  Reg NegK = B.unary(MathOp::Neg, Ty::F64, K);
  Reg R = B.fma(Ty::F64, NegK, Operand::f64(PiOver2Hi), X);
  R = B.fma(Ty::F64, NegK, Operand::f64(PiOver2Mid), R);
  R = B.fma(Ty::F64, NegK, Operand::f64(PiOver2Lo), R);
  Reg R2 = B.mul(Ty::F64, R, R);
  std::vector<double> SinC, CosC;
  double Fact = 1;
  for (int I = 1; I <= 21; ++I) {
    Fact *= I;
    double Sign = ((I / 2) % 2) ? -1.0 : 1.0;
    if (I % 2)
      SinC.push_back(Sign / Fact); // coefficient of r^I, I odd
    else
      CosC.push_back(Sign / Fact); // coefficient of r^I, I even
  }
  CosC.insert(CosC.begin(), 1.0);
  Reg SinR = B.mul(Ty::F64, R, horner(B, R2, SinC));
  Reg CosR = horner(B, R2, CosC);
  Reg Q = B.cvt(Ty::S32, Ty::F64, K, Rounding::Rni);
  if (Cosine)
    Q = B.add(Ty::S32, Q, 1);
  Reg Odd = B.setp(Cmp::Ne, Ty::B32, B.bitAnd(Ty::B32, Q.as(Ty::B32), 1), 0);
  Reg Neg = B.setp(Cmp::Ne, Ty::B32, B.bitAnd(Ty::B32, Q.as(Ty::B32), 2), 0);
  Reg V = B.selp(Ty::F64, CosR, SinR, Odd);
  return B.selp(Ty::F64, B.unary(MathOp::Neg, Ty::F64, V), V, Neg);
}

/// tanh(x) = sign(x) (1 - 2 / (e^(2|x|) + 1)); Exp computes e^y.
template <typename ExpFn> Reg tanhVia(ptx::PTXFunctionBuilder &B, Ty T, const Reg &X, ExpFn Exp) {
  auto Imm = [&](double V) { return T == Ty::F64 ? Operand::f64(V) : Operand::f32(float(V)); };
  Reg A = B.unary(MathOp::Abs, T, X);
  Reg E = Exp(B.mul(T, A, Imm(2.0)));
  Reg Q = B.div(T, Imm(2.0), B.add(T, E, Imm(1.0)));
  Reg Mag = B.sub(T, Imm(1.0), Q);
  Reg Negative = B.setp(Cmp::Lt, T, X, Imm(0.0));
  return B.selp(T, B.unary(MathOp::Neg, T, Mag), Mag, Negative);
}

} // namespace

Reg FunctionLowering::lowerMath(Opcode Op, const ir::Type *T, const Reg &X) {
  Ty PT = ptxTypeOf(T);
  if (PT == Ty::F64) {
    switch (Op) {
    case Opcode::Exp:
      return exp64(B, X);
    case Opcode::Log:
      return log64(B, X);
    case Opcode::Sqrt:
      return B.unary(MathOp::SqrtRn, Ty::F64, X);
    case Opcode::Rsqrt:
      return B.div(Ty::F64, Operand::f64(1.0), B.unary(MathOp::SqrtRn, Ty::F64, X));
    case Opcode::Sin:
      return sincos64(B, X, false);
    case Opcode::Cos:
      return sincos64(B, X, true);
    case Opcode::Tanh:
      return tanhVia(B, Ty::F64, X, [&](const Reg &Y) { return exp64(B, Y); });
    default:
      break;
    }
  } else {
    Reg F = PT == Ty::F32 ? X : toF32(X, T);
    auto Exp2 = [&](const Reg &Y) {
      return B.unary(MathOp::Ex2Approx, Ty::F32,
                     B.mul(Ty::F32, Y, Operand::f32(static_cast<float>(Log2E))));
    };
    Reg R;
    switch (Op) {
    case Opcode::Exp:
      R = Exp2(F);
      break;
    case Opcode::Log:
      R = B.mul(Ty::F32, B.unary(MathOp::Lg2Approx, Ty::F32, F),
                Operand::f32(static_cast<float>(Ln2)));
      break;
    case Opcode::Sqrt:
      R = B.unary(MathOp::SqrtRn, Ty::F32, F);
      break;
    case Opcode::Rsqrt:
      R = B.unary(MathOp::RsqrtApprox, Ty::F32, F);
      break;
    case Opcode::Sin:
      R = B.unary(MathOp::SinApprox, Ty::F32, F);
      break;
    case Opcode::Cos:
      R = B.unary(MathOp::CosApprox, Ty::F32, F);
      break;
    case Opcode::Tanh:
      R = tanhVia(B, Ty::F32, F, Exp2);
      break;
    default:
      break;
    }
    if (R.valid())
      return PT == Ty::F32 ? R : fromF32(R, T);
  }
  reportInternalError(std::string("codegen: no lowering for ") + ir::opcodeName(Op));
}

} // namespace tritonc::codegen
