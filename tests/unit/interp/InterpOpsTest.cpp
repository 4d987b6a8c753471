//===- InterpOpsTest.cpp - Element-wise opcodes in the interpreter --------===//
#include "InterpTestUtil.h"

#include <cmath>
#include <limits>

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

TEST(InterpOps, IntegerArithmeticWraps) {
  EXPECT_EQ(evalIntBinary(Opcode::Add, i8(), 127, 1), -128);
  EXPECT_EQ(evalIntBinary(Opcode::Sub, i32(), INT32_MIN, 1), INT32_MAX);
  EXPECT_EQ(evalIntBinary(Opcode::Mul, i16(), 300, 300), static_cast<int16_t>(90000));
  EXPECT_EQ(evalIntBinary(Opcode::Add, i64(), INT64_MAX, 1), INT64_MIN);
  EXPECT_EQ(evalIntBinary(Opcode::Add, i1(), 1, 1), 0);
}

TEST(InterpOps, DivisionAndRemainder) {
  EXPECT_EQ(evalIntBinary(Opcode::SDiv, i32(), -7, 2), -3);
  EXPECT_EQ(evalIntBinary(Opcode::SRem, i32(), -7, 2), -1);
  EXPECT_EQ(evalIntBinary(Opcode::UDiv, i32(), -2, 2), 0x7fffffff);
  EXPECT_EQ(evalIntBinary(Opcode::URem, i8(), -1, 10), 255 % 10);
  EXPECT_EQ(evalIntBinary(Opcode::SDiv, i32(), INT32_MIN, -1), INT32_MIN);
  EXPECT_EQ(evalIntBinary(Opcode::SDiv, i64(), INT64_MIN, -1), INT64_MIN);
  EXPECT_EQ(evalIntBinary(Opcode::SRem, i64(), INT64_MIN, -1), 0);
}

TEST(InterpOps, DivisionByZeroIsAnError) {
  for (Opcode Op : {Opcode::SDiv, Opcode::UDiv, Opcode::SRem, Opcode::URem}) {
    EvalKernel K({i32(), i32()}, i32());
    K.finish(K.B.createBinary(Op, K.arg(0), K.arg(1)));
    std::vector<uint64_t> Out;
    InterpResult R = K.run({ArgValue::integer(5), ArgValue::integer(0)}, Out);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("by zero"), std::string::npos) << R.Error;
    EXPECT_NE(R.Error.find(opcodeName(Op)), std::string::npos) << R.Error;
  }
}

TEST(InterpOps, ShiftsClampLikePTX) {
  EXPECT_EQ(evalIntBinary(Opcode::Shl, i32(), 1, 31), INT32_MIN);
  EXPECT_EQ(evalIntBinary(Opcode::Shl, i32(), 1, 32), 0);
  EXPECT_EQ(evalIntBinary(Opcode::Shl, i32(), 1, -1), 0); // huge unsigned amount
  EXPECT_EQ(evalIntBinary(Opcode::LShr, i32(), -1, 28), 15);
  EXPECT_EQ(evalIntBinary(Opcode::LShr, i32(), -1, 40), 0);
  EXPECT_EQ(evalIntBinary(Opcode::AShr, i32(), -64, 3), -8);
  EXPECT_EQ(evalIntBinary(Opcode::AShr, i32(), -64, 100), -1);
  EXPECT_EQ(evalIntBinary(Opcode::AShr, i32(), 64, 100), 0);
  EXPECT_EQ(evalIntBinary(Opcode::LShr, i8(), -128, 7), 1);
  EXPECT_EQ(evalIntBinary(Opcode::Shl, i64(), 3, 63), INT64_MIN);
}

TEST(InterpOps, BitwiseAndMinMax) {
  EXPECT_EQ(evalIntBinary(Opcode::And, i32(), 0xf0f0, 0xff00), 0xf000);
  EXPECT_EQ(evalIntBinary(Opcode::Or, i32(), 0xf0f0, 0x0f00), 0xfff0);
  EXPECT_EQ(evalIntBinary(Opcode::Xor, i8(), -1, 0x0f), -16);
  EXPECT_EQ(evalIntBinary(Opcode::SMin, i32(), -1, 1), -1);
  EXPECT_EQ(evalIntBinary(Opcode::SMax, i32(), -1, 1), 1);
  EXPECT_EQ(evalIntBinary(Opcode::UMin, i32(), -1, 1), 1);
  EXPECT_EQ(evalIntBinary(Opcode::UMax, i32(), -1, 1), -1);
  EvalKernel K({i32()}, i32());
  K.finish(K.B.createUnary(Opcode::IAbs, K.arg(0)));
  EXPECT_EQ(K.runInt({ArgValue::integer(-5)}), 5);
  EXPECT_EQ(K.runInt({ArgValue::integer(INT32_MIN)}), INT32_MIN);
}

TEST(InterpOps, HalfRounding) {
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f16(), 2048, 1), 2048);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f16(), 2048, 3), 2052); // tie to even
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f16(), 2050, 1), 2052); // tie to even
  EXPECT_EQ(evalFloatBinary(Opcode::FMul, f16(), 300, 300), INFINITY);
  EXPECT_EQ(evalFloatBinary(Opcode::FDiv, f16(), 1, 3), halfBitsToFloat(0x3555));
  // Scalar arguments are rounded to the parameter type.
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f16(), 2049, 0), 2048);
}

TEST(InterpOps, BFloat16Rounding) {
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, bf16(), 256, 1), 256);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, bf16(), 256, 3), 260);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, bf16(), 1, std::ldexp(1.0, -8)), 1);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, bf16(), 1, 3 * std::ldexp(1.0, -8)),
            1 + std::ldexp(1.0, -6));
  EXPECT_EQ(evalFloatBinary(Opcode::FMul, bf16(), 1e30, 1e30), INFINITY);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f32(), 16777216, 1), 16777216);
  EXPECT_EQ(evalFloatBinary(Opcode::FAdd, f64(), 16777216, 1), 16777217);
}

TEST(InterpOps, FloatMinMaxRemNeg) {
  EXPECT_EQ(evalFloatBinary(Opcode::FMin, f32(), NAN, 2), 2);
  EXPECT_EQ(evalFloatBinary(Opcode::FMax, f32(), 1, NAN), 1);
  EXPECT_EQ(evalFloatBinary(Opcode::FMax, f32(), -1, 3), 3);
  EXPECT_EQ(evalFloatBinary(Opcode::FRem, f32(), 7.5, 2), 1.5);
  EXPECT_EQ(evalFloatBinary(Opcode::FSub, f32(), 1, 0.25), 0.75);
  EXPECT_EQ(evalFloatUnary(Opcode::FNeg, f16(), 3), -3);
}

TEST(InterpOps, MathFunctionsRoundToType) {
  const double X = 0.7;
  float XF = static_cast<float>(X);
  auto F32 = [](double V) { return static_cast<double>(static_cast<float>(V)); };
  EXPECT_EQ(evalFloatUnary(Opcode::Exp, f32(), X), F32(std::exp(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::Log, f32(), X), F32(std::log(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::Sqrt, f32(), X), F32(std::sqrt(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::Rsqrt, f32(), 4), 0.5);
  EXPECT_EQ(evalFloatUnary(Opcode::Sin, f32(), X), F32(std::sin(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::Cos, f32(), X), F32(std::cos(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::Tanh, f32(), X), F32(std::tanh(double(XF))));
  EXPECT_EQ(evalFloatUnary(Opcode::FAbs, f32(), -X), F32(X));
  EXPECT_EQ(evalFloatUnary(Opcode::Floor, f32(), -1.5), -2);
  EXPECT_EQ(evalFloatUnary(Opcode::Ceil, f32(), -1.5), -1);
  EXPECT_EQ(evalFloatUnary(Opcode::Exp, f16(), 1), roundToHalf(std::exp(1.0)));
  EXPECT_EQ(evalFloatUnary(Opcode::Exp, f64(), 1), std::exp(1.0));
  EXPECT_TRUE(std::isnan(evalFloatUnary(Opcode::Log, f32(), -1)));
}

static double evalFma(const Type *T, double A, double B, double C) {
  EvalKernel K({T, T, T}, T);
  K.finish(K.B.createFma(K.arg(0), K.arg(1), K.arg(2)));
  return K.runFloat({ArgValue::floating(A), ArgValue::floating(B), ArgValue::floating(C)});
}

TEST(InterpOps, FmaRoundsOnce) {
  double E = std::ldexp(1.0, -23);
  // (1+e)(1-e) - 1 = -e^2: lost entirely with two roundings.
  EXPECT_EQ(evalFma(f32(), 1 + E, 1 - E, -1), -E * E);
  double H = std::ldexp(1.0, -10);
  EXPECT_EQ(evalFma(f16(), 1 + H, 1 - H, -1), roundToHalf(-H * H));
  EXPECT_EQ(evalFma(f64(), 3, 4, 5), 17);
  // The exact result lies just below a tie of f32: rounding to double first
  // would land on the tie and then round to even (1 + 2^-22).
  double A = 1 + std::ldexp(1.0, -18), B = std::ldexp(1.0, -24) - std::ldexp(1.0, -42);
  double C = 1 + std::ldexp(1.0, -23);
  EXPECT_EQ(static_cast<float>(std::fma(A, B, C)), 1 + std::ldexp(1.0f, -22)); // the trap
  EXPECT_EQ(evalFma(f32(), A, B, C), 1 + std::ldexp(1.0, -23));
  // f16: 2048 + 1*1 + tiny sticky part must round up, not tie to even.
  EXPECT_EQ(evalFma(f16(), 1 + H, 1, 2048), 2050);
}

static int64_t evalCmp(Opcode Op, CmpPredicate P, const Type *T, double A, double B) {
  EvalKernel K({T, T}, i1());
  K.finish(Op == Opcode::ICmp ? K.B.createICmp(P, K.arg(0), K.arg(1))
                              : K.B.createFCmp(P, K.arg(0), K.arg(1)));
  return K.runInt({argFor(T, A), argFor(T, B)});
}

TEST(InterpOps, Comparisons) {
  using CP = CmpPredicate;
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::SLT, i32(), -1, 1), 1);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::ULT, i32(), -1, 1), 0);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::UGE, i8(), -1, 127), 1);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::SGE, i8(), -1, 127), 0);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::EQ, i64(), 5, 5), 1);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::NE, i64(), 5, 5), 0);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::SLE, i32(), 5, 5), 1);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::SGT, i32(), 5, 5), 0);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::ULE, i32(), 6, 5), 0);
  EXPECT_EQ(evalCmp(Opcode::ICmp, CP::UGT, i32(), -6, 5), 1);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::OLT, f32(), 1, 2), 1);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::OGE, f32(), 1, 2), 0);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::OLE, f32(), 2, 2), 1);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::OGT, f32(), 3, 2), 1);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::ONE, f32(), 3, 2), 1);
  for (CP P : {CP::OEQ, CP::ONE, CP::OLT, CP::OLE, CP::OGT, CP::OGE})
    EXPECT_EQ(evalCmp(Opcode::FCmp, P, f32(), NAN, 2), 0) << predicateName(P);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::UNE, f32(), NAN, NAN), 1);
  EXPECT_EQ(evalCmp(Opcode::FCmp, CP::UNE, f32(), 2, 2), 0);
}

TEST(InterpOps, PointerComparisonAndCasts) {
  // icmp on pointers, gep, ptrtoint and inttoptr over a real buffer.
  Module M;
  const Type *PT = ptr(f32());
  Function *F = M.createFunction("k", Type::getVoid(), {PT, ptr(i64())});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *P1 = B.createGEP(F->getArg(0), B.getI32(3));
  Value *Lt = B.createICmp(CmpPredicate::ULT, F->getArg(0), P1);
  Value *Diff = B.createBinary(Opcode::Sub, B.createCast(Opcode::PtrToInt, P1, i64()),
                               B.createCast(Opcode::PtrToInt, F->getArg(0), i64()));
  Value *Back = B.createCast(Opcode::IntToPtr, B.createCast(Opcode::PtrToInt, P1, i64()), PT);
  Value *Same = B.createICmp(CmpPredicate::EQ, Back, P1);
  Value *Out = F->getArg(1);
  B.createStore(Out, B.createCast(Opcode::ZExt, Lt, i64()));
  B.createStore(B.createGEP(Out, B.getI32(1)), Diff);
  B.createStore(B.createGEP(Out, B.getI32(2)), B.createCast(Opcode::ZExt, Same, i64()));
  Value *Neg = B.createGEP(P1, B.getInt(i8(), -2)); // offsets are sign-extended
  Value *NegDiff = B.createBinary(Opcode::Sub, B.createCast(Opcode::PtrToInt, Neg, i64()),
                                  B.createCast(Opcode::PtrToInt, F->getArg(0), i64()));
  B.createStore(B.createGEP(Out, B.getI32(3)), NegDiff);
  B.createRet();
  std::vector<float> X(8);
  std::vector<int64_t> O(4);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(O, "O")};
  InterpResult R = runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(O[0], 1);
  EXPECT_EQ(O[1], 12);
  EXPECT_EQ(O[2], 1);
  EXPECT_EQ(O[3], 4);
}

static uint64_t castRaw(Opcode Op, const Type *From, const Type *To, ArgValue A) {
  return evalCastRaw(Op, From, To, A)[0];
}

TEST(InterpOps, IntegerCasts) {
  auto I = [](int64_t V) { return ArgValue::integer(V); };
  EXPECT_EQ(static_cast<int8_t>(castRaw(Opcode::Trunc, i32(), i8(), I(0x1ff))), -1);
  EXPECT_EQ(static_cast<uint32_t>(castRaw(Opcode::ZExt, i8(), i32(), I(-1))), 255u);
  EXPECT_EQ(static_cast<int32_t>(castRaw(Opcode::SExt, i8(), i32(), I(-1))), -1);
  EXPECT_EQ(static_cast<int32_t>(castRaw(Opcode::SExt, i1(), i32(), I(1))), -1);
  EXPECT_EQ(static_cast<int32_t>(castRaw(Opcode::ZExt, i1(), i32(), I(1))), 1);
  EXPECT_EQ(castRaw(Opcode::Trunc, i32(), i1(), I(6)) & 0xff, 0u);
}

TEST(InterpOps, FloatToIntSaturates) {
  auto F = [](double V) { return ArgValue::floating(V); };
  auto SI32 = [&](double V) {
    return static_cast<int32_t>(castRaw(Opcode::FPToSI, f32(), i32(), F(V)));
  };
  EXPECT_EQ(SI32(-3.7), -3);
  EXPECT_EQ(SI32(3.7), 3);
  EXPECT_EQ(SI32(1e10), INT32_MAX);
  EXPECT_EQ(SI32(-1e10), INT32_MIN);
  EXPECT_EQ(SI32(NAN), 0);
  EXPECT_EQ(SI32(INFINITY), INT32_MAX);
  auto UI8 = [&](double V) {
    return static_cast<uint8_t>(castRaw(Opcode::FPToUI, f32(), i8(), F(V)));
  };
  EXPECT_EQ(UI8(-5), 0);
  EXPECT_EQ(UI8(300), 255);
  EXPECT_EQ(UI8(200.9), 200);
  EXPECT_EQ(static_cast<int64_t>(castRaw(Opcode::FPToSI, f64(), i64(), F(1e300))), INT64_MAX);
  EXPECT_EQ(castRaw(Opcode::FPToUI, f64(), i64(), F(1e300)), UINT64_MAX);
}

TEST(InterpOps, IntToFloat) {
  auto I = [](int64_t V) { return ArgValue::integer(V); };
  auto AsF32 = [](uint64_t Raw) { return std::bit_cast<float>(static_cast<uint32_t>(Raw)); };
  EXPECT_EQ(AsF32(castRaw(Opcode::SIToFP, i32(), f32(), I(-7))), -7.0f);
  EXPECT_EQ(AsF32(castRaw(Opcode::UIToFP, i32(), f32(), I(-1))), 4294967296.0f);
  EXPECT_EQ(AsF32(castRaw(Opcode::SIToFP, i8(), f32(), I(-128))), -128.0f);
  // 2^60 + 2^36 + 1 is just above a tie for f32: one correct rounding gives
  // 2^60 + 2^37, rounding through double first would give 2^60.
  int64_t V = (int64_t(1) << 60) + (int64_t(1) << 36) + 1;
  EXPECT_EQ(AsF32(castRaw(Opcode::SIToFP, i64(), f32(), I(V))), static_cast<float>(V));
  EXPECT_EQ(AsF32(castRaw(Opcode::SIToFP, i64(), f32(), I(V))),
            std::ldexp(1.0f, 60) + std::ldexp(1.0f, 37));
  EXPECT_EQ(halfBitsToFloat(castRaw(Opcode::SIToFP, i32(), f16(), I(2049))), 2048.0f);
  EXPECT_EQ(halfBitsToFloat(castRaw(Opcode::SIToFP, i32(), f16(), I(70000))), INFINITY);
  EXPECT_EQ(bfloat16BitsToFloat(castRaw(Opcode::UIToFP, i8(), bf16(), I(-1))), 255.0f);
}

TEST(InterpOps, FloatCastsAndBitcasts) {
  auto F = [](double V) { return ArgValue::floating(V); };
  auto I = [](int64_t V) { return ArgValue::integer(V); };
  EXPECT_EQ(castRaw(Opcode::FPTrunc, f32(), f16(), F(1.0)), 0x3c00u);
  EXPECT_EQ(halfBitsToFloat(castRaw(Opcode::FPTrunc, f32(), f16(), F(65519))), 65504.0f);
  EXPECT_EQ(halfBitsToFloat(castRaw(Opcode::FPTrunc, f32(), f16(), F(65520))), INFINITY);
  EXPECT_EQ(castRaw(Opcode::FPExt, f16(), f64(), F(0.5)), std::bit_cast<uint64_t>(0.5));
  // f16 <-> i16 reinterpretation.
  EXPECT_EQ(castRaw(Opcode::Bitcast, f16(), i16(), F(1.0)) & 0xffff, 0x3c00u);
  EXPECT_EQ(castRaw(Opcode::Bitcast, f16(), i16(), F(-2.0)) & 0xffff, 0xc000u);
  EXPECT_EQ(halfBitsToFloat(castRaw(Opcode::Bitcast, i16(), f16(), I(0x3555))),
            halfBitsToFloat(0x3555));
  EXPECT_EQ(castRaw(Opcode::Bitcast, f32(), i32(), F(1.0)) & 0xffffffffu, 0x3f800000u);
  EXPECT_EQ(std::bit_cast<float>(
                static_cast<uint32_t>(castRaw(Opcode::Bitcast, i32(), f32(), I(0x40490fdb)))),
            std::bit_cast<float>(0x40490fdbu));
  EXPECT_EQ(castRaw(Opcode::Bitcast, bf16(), i16(), F(1.0)) & 0xffff, 0x3f80u);
  EXPECT_EQ(castRaw(Opcode::Bitcast, f64(), i64(), F(2.0)), std::bit_cast<uint64_t>(2.0));
}

TEST(InterpOps, SelectScalarAndTileCondition) {
  EvalKernel K({i1(), i32(), i32()}, i32());
  Value *Range = K.B.createMakeRange(0, 4);
  Value *Two = K.B.createSplat(K.B.getI32(2), {4});
  Value *TileCond = K.B.createICmp(CmpPredicate::SLT, Range, Two);
  Value *A = K.B.createSplat(K.arg(1), {4}), *Bv = K.B.createSplat(K.arg(2), {4});
  Value *S1 = K.B.createSelect(TileCond, A, Bv);     // 10 10 20 20
  Value *S2 = K.B.createSelect(K.arg(0), S1, Range); // scalar condition
  K.finish(K.B.createBinary(Opcode::Add, S2, Range));
  std::vector<uint64_t> Out;
  InterpResult R =
      K.run({ArgValue::integer(1), ArgValue::integer(10), ArgValue::integer(20)}, Out, 2);
  ASSERT_TRUE(R.Ok) << R.Error;
  const int32_t *O = reinterpret_cast<const int32_t *>(Out.data());
  EXPECT_EQ(std::vector<int32_t>(O, O + 4), (std::vector<int32_t>{10, 11, 22, 23}));
  R = K.run({ArgValue::integer(0), ArgValue::integer(10), ArgValue::integer(20)}, Out, 2);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(std::vector<int32_t>(O, O + 4), (std::vector<int32_t>{0, 2, 4, 6}));
}

TEST(InterpOps, UndefIsZero) {
  EvalKernel K({}, f32());
  K.finish(K.B.createBinary(Opcode::FAdd, K.M.getUndef(f32()), K.B.getFloat(f32(), 1.5)));
  EXPECT_EQ(K.runFloat({}), 1.5);
}
