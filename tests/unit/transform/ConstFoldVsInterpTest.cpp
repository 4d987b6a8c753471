// Differential property test: the constant folder and the interpreter both
// implement the scalar semantics of docs/IR.md and must agree bit for bit.
// Each case computes `op(operands)` twice: once from kernel arguments, run by
// the interpreter, and once from constants, folded by `constfold`. Cases the
// folder declines (division by zero, approximated math, ...) are skipped; NaN
// results are compared by NaN-ness only.
#include "TestUtil.h"

#include "tritonc/interp/Interpreter.h"
#include "tritonc/ir/Builder.h"
#include "tritonc/support/FloatFormats.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>

using namespace tritonc;
using namespace tritonc::transform;
using namespace tritonc::transform::test;
using ir::CmpPredicate;
using ir::FloatKind;
using ir::Opcode;
using ir::Type;

namespace {

/// One scalar operand value of a given type.
struct Val {
  const Type *T;
  int64_t I = 0; ///< For integers, normalized to the width.
  double F = 0;  ///< For floats, exactly representable in T.
};

/// The operation under test: opcode, predicate and result/operand types.
struct OpSpec {
  Opcode Op;
  CmpPredicate Pred = CmpPredicate::EQ;
  const Type *Result;
  std::vector<const Type *> Operands;
  /// For `reduce`: the combining kind and the length of the splatted tile.
  ir::ReduceKind Reduction = ir::ReduceKind::Add;
  int64_t Length = 0;
};

bool isFloat(const Type *T) { return T->getKind() == ir::TypeKind::Float; }

unsigned storeBytes(const Type *T) {
  unsigned Bits = isFloat(T) ? (T->getFloatKind() == FloatKind::F64   ? 64
                                : T->getFloatKind() == FloatKind::F32 ? 32
                                                                      : 16)
                             : T->getIntBits();
  return Bits < 8 ? 1 : Bits / 8;
}

uint64_t floatBitsOf(double D, FloatKind K) {
  switch (K) {
  case FloatKind::F16:
    return floatToHalfBits(static_cast<float>(D));
  case FloatKind::BF16:
    return floatToBFloat16Bits(static_cast<float>(D));
  case FloatKind::F32:
    return std::bit_cast<uint32_t>(static_cast<float>(D));
  case FloatKind::F64:
    return std::bit_cast<uint64_t>(D);
  }
  return 0;
}

double floatOfBits(uint64_t B, FloatKind K) {
  switch (K) {
  case FloatKind::F16:
    return halfBitsToFloat(static_cast<uint16_t>(B));
  case FloatKind::BF16:
    return bfloat16BitsToFloat(static_cast<uint16_t>(B));
  case FloatKind::F32:
    return std::bit_cast<float>(static_cast<uint32_t>(B));
  case FloatKind::F64:
    return std::bit_cast<double>(B);
  }
  return 0;
}

std::string describe(const Val &V) {
  std::ostringstream OS;
  OS.precision(17);
  if (isFloat(V.T))
    OS << V.F << " (0x" << std::hex << floatBitsOf(V.F, V.T->getFloatKind()) << ")";
  else
    OS << V.I;
  return OS.str();
}

std::string describe(const OpSpec &S, const std::vector<Val> &Ops) {
  std::string R = ir::opcodeName(S.Op);
  if (S.Op == Opcode::ICmp || S.Op == Opcode::FCmp)
    R += std::string(" ") + ir::predicateName(S.Pred);
  if (S.Op == Opcode::Reduce)
    R += std::string(" ") + ir::reduceKindName(S.Reduction) + " of splat<" +
         std::to_string(S.Length) + ">";
  for (size_t I = 0; I < Ops.size(); ++I)
    R += (I ? ", " : " ") + describe(Ops[I]);
  return R + " -> " + S.Result->str();
}

ir::Value *constantOf(ir::Module &M, const Val &V) {
  return isFloat(V.T) ? M.getFloat(V.T, V.F) : M.getInt(V.T, V.I);
}

ir::Instruction *emit(ir::IRBuilder &B, const OpSpec &S, const std::vector<ir::Value *> &Ops) {
  if (S.Op == Opcode::Reduce)
    return B.createReduce(S.Reduction, B.createSplat(Ops[0], {S.Length}), 0);
  switch (ir::opcodeCategory(S.Op)) {
  case ir::OpCategory::Binary:
    return B.createBinary(S.Op, Ops[0], Ops[1]);
  case ir::OpCategory::Unary:
    return B.createUnary(S.Op, Ops[0]);
  case ir::OpCategory::Cmp:
    return S.Op == Opcode::ICmp ? B.createICmp(S.Pred, Ops[0], Ops[1])
                                : B.createFCmp(S.Pred, Ops[0], Ops[1]);
  case ir::OpCategory::Cast:
    return B.createCast(S.Op, Ops[0], S.Result);
  default:
    return B.createSelect(Ops[0], Ops[1], Ops[2]);
  }
}

/// Totals over the whole test binary, printed by the last test.
struct Counters {
  uint64_t Checked = 0, Declined = 0;
};
Counters &counters() {
  static Counters C;
  return C;
}

/// The folded constant of case K, or null when the folder declined.
using FoldedList = std::vector<ir::Constant *>;

/// Builds `store out[k], op(consts of case k)` for every case, runs
/// constfold and returns what each store received.
FoldedList foldAll(ir::Module &M, const OpSpec &S, const std::vector<std::vector<Val>> &Cases) {
  ir::Function *F = M.createFunction("fold", Type::getVoid(), {Type::getPointer(S.Result)});
  F->attrs().IsKernel = true;
  ir::IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  for (size_t K = 0; K < Cases.size(); ++K) {
    std::vector<ir::Value *> Ops;
    for (const Val &V : Cases[K])
      Ops.push_back(constantOf(M, V));
    ir::Instruction *R = emit(B, S, Ops);
    B.createStore(B.createGEP(F->getArg(0), M.getI32(static_cast<int32_t>(K))), R);
  }
  B.createRet();
  EXPECT_TRUE(isValid(M));
  PassManager PM;
  std::string Error;
  EXPECT_TRUE(PM.addPipeline("constfold", Error)) << Error;
  EXPECT_TRUE(PM.run(M, Error)) << Error;

  FoldedList Folded(Cases.size(), nullptr);
  size_t Left = 0, NotFolded = 0;
  for (auto &I : F->getEntryBlock()->instructions()) {
    if (I->getOpcode() == S.Op)
      ++Left;
    if (I->getOpcode() != Opcode::Store)
      continue;
    ir::Constant *Off = ir::asConstant(ir::asInstruction(I->getOperand(0))->getOperand(1));
    ir::Constant *C = ir::asConstant(I->getOperand(1));
    Folded[static_cast<size_t>(Off->getInt())] = C;
    NotFolded += C ? 0 : 1;
  }
  // A case counts as folded only if its instruction is really gone.
  EXPECT_EQ(Left, NotFolded) << describe(S, Cases[0]);
  return Folded;
}

/// Runs op(args) on the interpreter for every case and returns the stored
/// bytes of each result (little-endian, zero-extended to 64 bits).
std::vector<uint64_t> interpretAll(const OpSpec &S, const std::vector<std::vector<Val>> &Cases) {
  ir::Module M;
  std::vector<const Type *> ArgTypes{Type::getPointer(S.Result)};
  for (size_t K = 0; K < Cases.size(); ++K)
    for (const Val &V : Cases[K])
      ArgTypes.push_back(V.T);
  ir::Function *F = M.createFunction("interp", Type::getVoid(), ArgTypes);
  F->attrs().IsKernel = true;
  ir::IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  std::vector<interp::ArgValue> Args{interp::ArgValue::buffer(0)};
  unsigned Next = 1;
  for (size_t K = 0; K < Cases.size(); ++K) {
    std::vector<ir::Value *> Ops;
    for (const Val &V : Cases[K]) {
      Ops.push_back(F->getArg(Next++));
      Args.push_back(isFloat(V.T) ? interp::ArgValue::floating(V.F)
                                  : interp::ArgValue::integer(V.I));
    }
    ir::Instruction *R = emit(B, S, Ops);
    B.createStore(B.createGEP(F->getArg(0), M.getI32(static_cast<int32_t>(K))), R);
  }
  B.createRet();
  EXPECT_TRUE(isValid(M));
  unsigned Bytes = storeBytes(S.Result);
  std::vector<uint8_t> Out(Cases.size() * Bytes, 0xCD);
  std::vector<interp::HostBuffer> Buffers{{Out.data(), Out.size(), "out"}};
  interp::InterpResult Res = interp::runKernel(*F, {1, 1, 1}, Args, Buffers);
  EXPECT_TRUE(Res.Ok) << Res.Error;
  std::vector<uint64_t> Results(Cases.size(), 0);
  for (size_t K = 0; K < Cases.size(); ++K)
    std::memcpy(&Results[K], &Out[K * Bytes], Bytes);
  return Results;
}

/// Compares folder and interpreter on every case of one operation.
void check(const OpSpec &S, const std::vector<std::vector<Val>> &All) {
  const size_t Batch = 400;
  for (size_t Start = 0; Start < All.size(); Start += Batch) {
    std::vector<std::vector<Val>> Cases(All.begin() + Start,
                                        All.begin() + std::min(All.size(), Start + Batch));
    ir::Module FM;
    FoldedList Folded = foldAll(FM, S, Cases);
    std::vector<std::vector<Val>> Kept;
    std::vector<ir::Constant *> KeptConst;
    for (size_t K = 0; K < Cases.size(); ++K) {
      if (Folded[K]) {
        Kept.push_back(Cases[K]);
        KeptConst.push_back(Folded[K]);
      } else {
        ++counters().Declined;
      }
    }
    if (Kept.empty())
      continue;
    std::vector<uint64_t> Got = interpretAll(S, Kept);
    unsigned Bytes = storeBytes(S.Result);
    uint64_t Mask = Bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * Bytes)) - 1;
    for (size_t K = 0; K < Kept.size(); ++K) {
      ++counters().Checked;
      ir::Constant *C = KeptConst[K];
      if (isFloat(S.Result)) {
        FloatKind FK = S.Result->getFloatKind();
        double Interp = floatOfBits(Got[K], FK);
        if (std::isnan(C->getFloat()) || std::isnan(Interp)) {
          EXPECT_EQ(std::isnan(C->getFloat()), std::isnan(Interp))
              << describe(S, Kept[K]) << ": folded " << C->getFloat() << ", interpreted " << Interp;
          continue;
        }
        EXPECT_EQ(floatBitsOf(C->getFloat(), FK), Got[K])
            << describe(S, Kept[K]) << ": folded " << C->getFloat() << ", interpreted " << Interp;
      } else {
        uint64_t Want = static_cast<uint64_t>(C->getInt());
        if (S.Result->getIntBits() == 1)
          Want &= 1;
        EXPECT_EQ(Want & Mask, Got[K]) << describe(S, Kept[K]) << ": folded " << C->getInt()
                                       << ", interpreted 0x" << std::hex << Got[K];
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Operand generators
//===----------------------------------------------------------------------===//

const std::vector<const Type *> &intTypes() {
  static std::vector<const Type *> Ts{Type::getI1(), Type::getInt(8), Type::getInt(16),
                                      Type::getI32(), Type::getI64()};
  return Ts;
}
const std::vector<const Type *> &floatTypes() {
  static std::vector<const Type *> Ts{Type::getF16(), Type::getBF16(), Type::getF32(),
                                      Type::getF64()};
  return Ts;
}

unsigned floatBits(const Type *T) { return storeBytes(T) * 8; }

std::mt19937_64 &rng() {
  static std::mt19937_64 R(0x7215C0DEu);
  return R;
}

/// Edge values and random values of an integer type.
std::vector<Val> intValues(const Type *T, unsigned Random) {
  unsigned W = T->getIntBits();
  int64_t Min = W >= 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (W - 1));
  int64_t Max = W >= 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (W - 1)) - 1;
  std::vector<int64_t> Raw{0,
                           1,
                           -1,
                           2,
                           -2,
                           3,
                           7,
                           W - 1,
                           W,
                           W + 1,
                           2 * W,
                           31,
                           32,
                           63,
                           64,
                           127,
                           128,
                           255,
                           Min,
                           Min + 1,
                           Max,
                           Max - 1,
                           0x5555555555555555,
                           -0x5555555555555556,
                           int64_t(1) << (W / 2),
                           1000,
                           -1000};
  for (unsigned I = 0; I < Random; ++I)
    Raw.push_back(static_cast<int64_t>(rng()() >> (rng()() % 64)));
  std::vector<Val> Vs;
  for (int64_t R : Raw)
    Vs.push_back({T, ir::normalizeInt(R, W), 0});
  return Vs;
}

/// Edge values (signed zeros, infinities, NaN, denormals, extremes, values
/// near the f16/bf16/f32 rounding ties and the integer saturation limits) and
/// random bit patterns of a float type. Values not representable in T are
/// rounded to it (both sides see the same rounded value).
std::vector<Val> floatValues(const Type *T, unsigned Random) {
  FloatKind K = T->getFloatKind();
  double Inf = std::numeric_limits<double>::infinity();
  std::vector<double> Raw{0.0,
                          -0.0,
                          1.0,
                          -1.0,
                          0.5,
                          -0.5,
                          1.5,
                          -1.5,
                          2.5,
                          -2.5,
                          3.0,
                          0.1,
                          -7.75,
                          100.25,
                          Inf,
                          -Inf,
                          std::numeric_limits<double>::quiet_NaN(),
                          65504.0,
                          65519.0,
                          65520.0,
                          -65520.0,
                          127.9,
                          128.0,
                          -128.5,
                          -129.0,
                          255.5,
                          256.0,
                          32767.5,
                          -32769.0,
                          2147483647.0,
                          2147483648.0,
                          -2147483648.0,
                          -2147483649.0,
                          4294967295.0,
                          4294967296.0,
                          9223372036854775807.0,
                          -9223372036854775808.0,
                          18446744073709551616.0,
                          1 + std::ldexp(1.0, -11),     // f16 tie (even below)
                          1 + 3 * std::ldexp(1.0, -11), // f16 tie (even above)
                          1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                          1 + std::ldexp(1.0, -8), // bf16 tie
                          1 + 3 * std::ldexp(1.0, -8),
                          1 + std::ldexp(1.0, -8) + std::ldexp(1.0, -45),
                          1 + std::ldexp(1.0, -24), // f32 tie
                          1 + std::ldexp(1.0, -24) + std::ldexp(1.0, -52),
                          std::ldexp(1.0, -24),    // smallest f16 denormal
                          std::ldexp(1.0, -25),    // half of it (tie to 0)
                          std::ldexp(3.0, -26),    // rounds up to it
                          std::ldexp(1023.0, -24), // largest f16 denormal
                          std::ldexp(1.0, -14),    // smallest f16 normal
                          std::ldexp(1.0, -126),   // smallest f32/bf16 normal
                          std::ldexp(1.0, -149),   // smallest f32 denormal
                          std::ldexp(1.0, -133),   // smallest bf16 denormal
                          std::ldexp(1.0, -1074),  // smallest f64 denormal
                          std::numeric_limits<double>::min(),
                          std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(),
                          std::numeric_limits<double>::max(),
                          -std::numeric_limits<double>::max(),
                          std::ldexp(255.0, 120)}; // largest bf16
  // Float -> integer edges around 2^63 and 2^64: just inside, beyond, far out
  // ((long)1e19 and (unsigned long)1e20 once folded differently from run time).
  const double Below63 = std::nextafter(std::ldexp(1.0, 63), 0.0);
  const double Below64 = std::nextafter(std::ldexp(1.0, 64), 0.0);
  for (double D : {Below63, -Below63, Below64, 9.3e18, -9.3e18, 1e19, -1e19, 1e20, -1e20, 1e300,
                   2147483647.75})
    Raw.push_back(D);
  unsigned Bits = floatBits(T);
  for (unsigned I = 0; I < Random; ++I) {
    uint64_t B = rng()();
    if (Bits < 64)
      B &= (uint64_t(1) << Bits) - 1;
    Raw.push_back(floatOfBits(B, K));
    // Also moderately sized values, the interesting range for int casts.
    Raw.push_back(std::ldexp(static_cast<double>(static_cast<int64_t>(rng()())),
                             -static_cast<int>(rng()() % 70)));
  }
  std::vector<Val> Vs;
  for (double D : Raw)
    Vs.push_back({T, 0, ir::roundToFloatKind(D, K)});
  return Vs;
}

std::vector<Val> valuesOf(const Type *T, unsigned Random) {
  return isFloat(T) ? floatValues(T, Random) : intValues(T, Random);
}

std::vector<std::vector<Val>> unaryCases(const Type *T) {
  std::vector<std::vector<Val>> Cases;
  for (const Val &V : valuesOf(T, 300))
    Cases.push_back({V});
  return Cases;
}

/// Every pair of edge values plus random pairs.
std::vector<std::vector<Val>> binaryCases(const Type *T) {
  std::vector<Val> Edge = valuesOf(T, 0);
  std::vector<std::vector<Val>> Cases;
  for (const Val &A : Edge)
    for (const Val &B : Edge)
      Cases.push_back({A, B});
  std::vector<Val> R1 = valuesOf(T, 200), R2 = valuesOf(T, 200);
  for (size_t I = Edge.size(); I < R1.size(); ++I) {
    Cases.push_back({R1[I], R2[I]});
    Cases.push_back({R1[I], Edge[I % Edge.size()]});
    Cases.push_back({Edge[I % Edge.size()], R2[I]});
  }
  return Cases;
}

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

TEST(ConstFoldVsInterp, IntegerBinary) {
  for (Opcode Op : {Opcode::Add, Opcode::Sub, Opcode::Mul, Opcode::SDiv, Opcode::UDiv, Opcode::SRem,
                    Opcode::URem, Opcode::Shl, Opcode::LShr, Opcode::AShr, Opcode::And, Opcode::Or,
                    Opcode::Xor, Opcode::SMin, Opcode::SMax, Opcode::UMin, Opcode::UMax})
    for (const Type *T : intTypes())
      check({Op, CmpPredicate::EQ, T, {T, T}}, binaryCases(T));
}

TEST(ConstFoldVsInterp, FloatBinary) {
  for (Opcode Op : {Opcode::FAdd, Opcode::FSub, Opcode::FMul, Opcode::FDiv, Opcode::FRem,
                    Opcode::FMin, Opcode::FMax})
    for (const Type *T : floatTypes())
      check({Op, CmpPredicate::EQ, T, {T, T}}, binaryCases(T));
}

TEST(ConstFoldVsInterp, Unary) {
  for (Opcode Op : {Opcode::FNeg, Opcode::FAbs, Opcode::Floor, Opcode::Ceil, Opcode::Sqrt})
    for (const Type *T : floatTypes())
      check({Op, CmpPredicate::EQ, T, {T}}, unaryCases(T));
  for (const Type *T : intTypes())
    check({Opcode::IAbs, CmpPredicate::EQ, T, {T}}, unaryCases(T));
}

TEST(ConstFoldVsInterp, Compare) {
  for (CmpPredicate P : {CmpPredicate::EQ, CmpPredicate::NE, CmpPredicate::SLT, CmpPredicate::SLE,
                         CmpPredicate::SGT, CmpPredicate::SGE, CmpPredicate::ULT, CmpPredicate::ULE,
                         CmpPredicate::UGT, CmpPredicate::UGE})
    for (const Type *T : intTypes())
      check({Opcode::ICmp, P, Type::getI1(), {T, T}}, binaryCases(T));
  for (CmpPredicate P : {CmpPredicate::OEQ, CmpPredicate::ONE, CmpPredicate::OLT, CmpPredicate::OLE,
                         CmpPredicate::OGT, CmpPredicate::OGE, CmpPredicate::UNE})
    for (const Type *T : floatTypes())
      check({Opcode::FCmp, P, Type::getI1(), {T, T}}, binaryCases(T));
}

TEST(ConstFoldVsInterp, Casts) {
  for (const Type *From : intTypes())
    for (const Type *To : intTypes()) {
      if (From->getIntBits() > To->getIntBits())
        check({Opcode::Trunc, CmpPredicate::EQ, To, {From}}, unaryCases(From));
      if (From->getIntBits() < To->getIntBits()) {
        check({Opcode::ZExt, CmpPredicate::EQ, To, {From}}, unaryCases(From));
        check({Opcode::SExt, CmpPredicate::EQ, To, {From}}, unaryCases(From));
      }
    }
  for (const Type *From : floatTypes())
    for (const Type *To : floatTypes()) {
      if (floatBits(From) > floatBits(To))
        check({Opcode::FPTrunc, CmpPredicate::EQ, To, {From}}, unaryCases(From));
      if (floatBits(From) < floatBits(To))
        check({Opcode::FPExt, CmpPredicate::EQ, To, {From}}, unaryCases(From));
      if (From != To && floatBits(From) == floatBits(To))
        check({Opcode::Bitcast, CmpPredicate::EQ, To, {From}}, unaryCases(From));
    }
  for (const Type *F : floatTypes())
    for (const Type *I : intTypes()) {
      check({Opcode::FPToSI, CmpPredicate::EQ, I, {F}}, unaryCases(F));
      check({Opcode::FPToUI, CmpPredicate::EQ, I, {F}}, unaryCases(F));
      check({Opcode::SIToFP, CmpPredicate::EQ, F, {I}}, unaryCases(I));
      check({Opcode::UIToFP, CmpPredicate::EQ, F, {I}}, unaryCases(I));
      if (floatBits(F) == I->getIntBits()) {
        check({Opcode::Bitcast, CmpPredicate::EQ, I, {F}}, unaryCases(F));
        check({Opcode::Bitcast, CmpPredicate::EQ, F, {I}}, unaryCases(I));
      }
    }
}

TEST(ConstFoldVsInterp, Select) {
  std::vector<const Type *> Ts = intTypes();
  Ts.insert(Ts.end(), floatTypes().begin(), floatTypes().end());
  for (const Type *T : Ts) {
    std::vector<std::vector<Val>> Cases;
    std::vector<Val> A = valuesOf(T, 20), B = valuesOf(T, 20);
    for (size_t I = 0; I < A.size(); ++I)
      for (int64_t C : {0, 1})
        Cases.push_back({{Type::getI1(), C, 0}, A[I], B[(I * 7) % B.size()]});
    check({Opcode::Select, CmpPredicate::EQ, T, {Type::getI1(), T, T}}, Cases);
  }
}

// reduce of a splat is folded too (ConstantFold.cpp): it must combine in
// index order in the element type, like the interpreter.
TEST(ConstFoldVsInterp, ReduceOfSplat) {
  using RK = ir::ReduceKind;
  for (int64_t N : {1, 2, 3, 8, 37, 128, 4099}) {
    for (RK K : {RK::Add, RK::SMax, RK::SMin, RK::UMax, RK::UMin})
      for (const Type *T : intTypes())
        check({Opcode::Reduce, CmpPredicate::EQ, T, {T}, K, N}, unaryCases(T));
    for (RK K : {RK::FAdd, RK::FMax, RK::FMin})
      for (const Type *T : floatTypes())
        check({Opcode::Reduce, CmpPredicate::EQ, T, {T}, K, N}, unaryCases(T));
  }
}

// Runs last (gtest keeps definition order): the totals must be meaningful.
TEST(ConstFoldVsInterp, ZZCoverage) {
  std::cout << "[constfold vs interp] checked " << counters().Checked << " cases, folder declined "
            << counters().Declined << "\n";
  EXPECT_GT(counters().Checked, 100000u);
}

} // namespace
