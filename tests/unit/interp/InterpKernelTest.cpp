//===- InterpKernelTest.cpp - Control flow, tiles, dot, reduce ------------===//
#include "InterpTestUtil.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

namespace {

Value *gepTile(IRBuilder &B, Value *Base, Value *Offsets) {
  return B.createGEP(B.createSplat(Base, Offsets->getType()->getShape()), Offsets);
}

/// Offsets r * Ld + c of a Rows x Cols row-major tile.
Value *offsets2D(IRBuilder &B, int64_t Rows, int64_t Cols, int64_t Ld) {
  Value *R =
      B.createBroadcast(B.createReshape(B.createMakeRange(0, Rows), {Rows, 1}), {Rows, Cols});
  Value *C =
      B.createBroadcast(B.createReshape(B.createMakeRange(0, Cols), {1, Cols}), {Rows, Cols});
  Value *LdT = B.createSplat(B.getI32(static_cast<int32_t>(Ld)), {Rows, Cols});
  return B.createBinary(Opcode::Add, B.createBinary(Opcode::Mul, R, LdT), C);
}

/// @sum(i32 N, i32* Out): Out[0] = sum of 0..N-1, Out[1] = a + 10 b where
/// (a, b) start as (1, 2) and swap every iteration through two phis.
Function *buildLoop(Module &M) {
  Function *F = M.createFunction("sum", Type::getVoid(), {i32(), ptr(i32())});
  IRBuilder B(M);
  BasicBlock *Entry = F->createBlock("entry"), *Loop = F->createBlock("loop"),
             *Exit = F->createBlock("exit");
  B.setInsertPoint(Entry);
  B.createBr(Loop);
  B.setInsertPoint(Loop);
  Instruction *I = B.createPhi(i32()), *S = B.createPhi(i32());
  Instruction *A = B.createPhi(i32()), *Bv = B.createPhi(i32());
  Value *S1 = B.createBinary(Opcode::Add, S, I);
  Value *I1 = B.createBinary(Opcode::Add, I, B.getI32(1));
  B.createCondBr(B.createICmp(CmpPredicate::SLT, I1, F->getArg(0)), Loop, Exit);
  I->addIncoming(B.getI32(0), Entry);
  I->addIncoming(I1, Loop);
  S->addIncoming(B.getI32(0), Entry);
  S->addIncoming(S1, Loop);
  A->addIncoming(B.getI32(1), Entry);
  A->addIncoming(Bv, Loop);
  Bv->addIncoming(B.getI32(2), Entry);
  Bv->addIncoming(A, Loop);
  B.setInsertPoint(Exit);
  B.createStore(F->getArg(1), S1);
  B.createStore(B.createGEP(F->getArg(1), B.getI32(1)),
                B.createBinary(Opcode::Add, A, B.createBinary(Opcode::Mul, Bv, B.getI32(10))));
  B.createRet();
  return F;
}

} // namespace

TEST(InterpKernel, LoopWithPhis) {
  Module M;
  Function *F = buildLoop(M);
  std::vector<int32_t> Out(2);
  std::vector<HostBuffer> Bufs = {bufferOf(Out, "Out")};
  InterpResult R = runKernel(*F, {}, {ArgValue::integer(100), ArgValue::buffer(0)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(Out[0], 4950);
  EXPECT_EQ(Out[1], 2 + 10 * 1); // 100 iterations: swapped an odd number of times
  R = runKernel(*F, {}, {ArgValue::integer(3), ArgValue::buffer(0)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(Out[0], 3);
  EXPECT_EQ(Out[1], 1 + 10 * 2);
}

TEST(InterpKernel, StepLimit) {
  Module M;
  Function *F = buildLoop(M);
  std::vector<int32_t> Out(2);
  std::vector<HostBuffer> Bufs = {bufferOf(Out, "Out")};
  InterpOptions Opts;
  Opts.MaxStepsPerProgram = 1000;
  InterpResult R = runKernel(*F, {}, {ArgValue::integer(1 << 30), ArgValue::buffer(0)}, Bufs, Opts);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("step limit of 1000"), std::string::npos) << R.Error;
  R = runKernel(*F, {}, {ArgValue::integer(10), ArgValue::buffer(0)}, Bufs, Opts);
  EXPECT_TRUE(R.Ok) << R.Error;
}

namespace {
/// Split-K style accumulation: @splitk(i32* Lock, i32* Count, f32* C, i32* Old).
/// Each program takes the spin lock `while (atomic_cas(Lock, 0, 1) == 1);`,
/// stores its partial tile (first program) or adds it to C, bumps Count, and
/// releases with atomic_xchg, recording the value it swapped out.
Function *buildSplitK(Module &M) {
  Function *F =
      M.createFunction("splitk", Type::getVoid(), {ptr(i32()), ptr(i32()), ptr(f32()), ptr(i32())});
  IRBuilder B(M);
  BasicBlock *Entry = F->createBlock("entry"), *Spin = F->createBlock("spin"),
             *Body = F->createBlock("body"), *First = F->createBlock("first"),
             *Accum = F->createBlock("accum"), *Done = F->createBlock("done");
  Value *Lock = F->getArg(0), *Count = F->getArg(1), *C = F->getArg(2), *OldOut = F->getArg(3);
  B.setInsertPoint(Entry);
  B.createBr(Spin);
  B.setInsertPoint(Spin);
  Value *Got = B.createAtomicCAS(Lock, B.getI32(0), B.getI32(1));
  B.createCondBr(B.createICmp(CmpPredicate::EQ, Got, B.getI32(1)), Spin, Body);
  B.setInsertPoint(Body);
  Value *Cnt = B.createLoad(Count);
  Value *Pid = B.createGetProgramId(0);
  Value *R8 = B.createMakeRange(0, 8);
  Value *Part = B.createCast(
      Opcode::SIToFP,
      B.createBinary(Opcode::Add, R8,
                     B.createSplat(B.createBinary(Opcode::Mul, Pid, B.getI32(100)), {8})),
      f32());
  Value *CPtrs = gepTile(B, C, R8);
  B.createCondBr(B.createICmp(CmpPredicate::EQ, Cnt, B.getI32(0)), First, Accum);
  B.setInsertPoint(First);
  B.createStore(CPtrs, Part);
  B.createBr(Done);
  B.setInsertPoint(Accum);
  B.createStore(CPtrs, B.createBinary(Opcode::FAdd, B.createLoad(CPtrs), Part));
  B.createBr(Done);
  B.setInsertPoint(Done);
  B.createStore(Count, B.createBinary(Opcode::Add, Cnt, B.getI32(1)));
  Value *Released = B.createAtomicRMW(ReduceKind::Xchg, Lock, B.getI32(0), nullptr);
  B.createStore(B.createGEP(OldOut, Pid), Released);
  B.createRet();
  return F;
}
} // namespace

TEST(InterpKernel, SplitKSpinLock) {
  Module M;
  Function *F = buildSplitK(M);
  std::vector<int32_t> Lock = {0}, Count = {0}, Old(4, -1);
  std::vector<float> C(8, -1);
  std::vector<HostBuffer> Bufs = {bufferOf(Lock, "Lock"), bufferOf(Count, "Count"),
                                  bufferOf(C, "C"), bufferOf(Old, "Old")};
  std::vector<ArgValue> Args = {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2),
                                ArgValue::buffer(3)};
  InterpResult R = runKernel(*F, {4, 1, 1}, Args, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int I = 0; I < 8; ++I)
    EXPECT_EQ(C[I], 4.0f * I + 600.0f);
  EXPECT_EQ(Count[0], 4);
  EXPECT_EQ(Lock[0], 0);
  EXPECT_EQ(Old, (std::vector<int32_t>{1, 1, 1, 1}));
  // A lock that is never released spins until the step limit.
  Lock[0] = 1;
  InterpOptions Opts;
  Opts.MaxStepsPerProgram = 5000;
  R = runKernel(*F, {4, 1, 1}, Args, Bufs, Opts);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("program (0,0,0)"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("step limit"), std::string::npos) << R.Error;
}

TEST(InterpKernel, BroadcastTransReshape) {
  // In = 0..23 as <2,3,4>; Out1 = trans -> <4,3,2>; Out2 = broadcast of the
  // row <1,4> and the column <3,1> of In[0] summed into <3,4>.
  Module M;
  Function *F = M.createFunction("tiles", Type::getVoid(), {ptr(i32()), ptr(i32())});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *In = B.createReshape(B.createMakeRange(0, 24), {2, 3, 4});
  Value *T = B.createTrans(In);
  B.createStore(gepTile(B, F->getArg(0), B.createMakeRange(0, 24)), B.createReshape(T, {24}));
  Value *Row = B.createReshape(B.createMakeRange(0, 4), {1, 4});
  Value *Col = B.createReshape(B.createMakeRange(10, 13), {3, 1});
  Value *Sum =
      B.createBinary(Opcode::Add, B.createBroadcast(Row, {3, 4}), B.createBroadcast(Col, {3, 4}));
  B.createStore(gepTile(B, F->getArg(1), B.createMakeRange(0, 12)), B.createReshape(Sum, {12}));
  B.createRet();
  std::vector<int32_t> O1(24), O2(12);
  std::vector<HostBuffer> Bufs = {bufferOf(O1, "O1"), bufferOf(O2, "O2")};
  InterpResult R = runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int I = 0; I < 2; ++I)
    for (int J = 0; J < 3; ++J)
      for (int K = 0; K < 4; ++K)
        EXPECT_EQ(O1[(K * 3 + J) * 2 + I], (I * 3 + J) * 4 + K);
  for (int I = 0; I < 3; ++I)
    for (int J = 0; J < 4; ++J)
      EXPECT_EQ(O2[I * 4 + J], J + 10 + I);
}

namespace {
/// @mm(A*, B*, C*): C = C + A x B for one tile, A: MxK, B: KxN, C: MxN.
Function *buildDot(Module &M, const Type *In, const Type *Acc, int64_t Mt, int64_t Nt, int64_t Kt) {
  Function *F = M.createFunction("mm", Type::getVoid(), {ptr(In), ptr(In), ptr(Acc)});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *A = B.createLoad(gepTile(B, F->getArg(0), offsets2D(B, Mt, Kt, Kt)));
  Value *Bt = B.createLoad(gepTile(B, F->getArg(1), offsets2D(B, Kt, Nt, Nt)));
  Value *CPtrs = gepTile(B, F->getArg(2), offsets2D(B, Mt, Nt, Nt));
  B.createStore(CPtrs, B.createDot(A, Bt, B.createLoad(CPtrs)));
  B.createRet();
  return F;
}
} // namespace

TEST(InterpKernel, DotF16MatchesNaiveReference) {
  const int Mt = 64, Nt = 64, Kt = 32;
  Module M;
  Function *F = buildDot(M, f16(), f32(), Mt, Nt, Kt);
  std::mt19937 Rng(42);
  std::uniform_real_distribution<float> Dist(-4, 4);
  std::vector<uint16_t> A(Mt * Kt), Bm(Kt * Nt);
  std::vector<float> C(Mt * Nt), Ref(Mt * Nt);
  for (auto &V : A)
    V = floatToHalfBits(Dist(Rng));
  for (auto &V : Bm)
    V = floatToHalfBits(Dist(Rng));
  for (size_t I = 0; I < C.size(); ++I)
    C[I] = Ref[I] = Dist(Rng) * 1000;
  for (int Mi = 0; Mi < Mt; ++Mi)
    for (int Ni = 0; Ni < Nt; ++Ni)
      for (int Ki = 0; Ki < Kt; ++Ki)
        Ref[Mi * Nt + Ni] = std::fmaf(halfBitsToFloat(A[Mi * Kt + Ki]),
                                      halfBitsToFloat(Bm[Ki * Nt + Ni]), Ref[Mi * Nt + Ni]);
  std::vector<HostBuffer> Bufs = {bufferOf(A, "A"), bufferOf(Bm, "B"), bufferOf(C, "C")};
  std::vector<ArgValue> Args = {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)};
  InterpResult R = runKernel(*F, {}, Args, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (size_t I = 0; I < C.size(); ++I)
    ASSERT_EQ(C[I], Ref[I]) << "element " << I;

  // Rough throughput of whole runs (lowering, 3 loads, dot, store), in CPU
  // time since the machine running the tests may be shared.
  const int Reps = 20;
  std::clock_t T0 = std::clock();
  for (int I = 0; I < Reps; ++I)
    ASSERT_TRUE(runKernel(*F, {}, Args, Bufs).Ok);
  double Us = static_cast<double>(std::clock() - T0) * 1e6 / CLOCKS_PER_SEC / Reps;
  std::printf("[interp] 64x64x32 f16 dot kernel: %.1f us CPU per run\n", Us);
}

TEST(InterpKernel, DotF32AndBF16Inputs) {
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> Dist(-1, 1);
  for (const Type *In : {f32(), bf16()}) {
    Module M;
    Function *F = buildDot(M, In, f32(), 8, 16, 24);
    std::vector<float> A(8 * 24), Bm(24 * 16), C(8 * 16), Ref(8 * 16);
    std::vector<uint16_t> A16(A.size()), B16(Bm.size());
    for (size_t I = 0; I < A.size(); ++I) {
      A16[I] = floatToBFloat16Bits(Dist(Rng) * 3);
      A[I] = In == f32() ? Dist(Rng) * 3 : bfloat16BitsToFloat(A16[I]);
    }
    for (size_t I = 0; I < Bm.size(); ++I) {
      B16[I] = floatToBFloat16Bits(Dist(Rng));
      Bm[I] = In == f32() ? Dist(Rng) : bfloat16BitsToFloat(B16[I]);
    }
    for (size_t I = 0; I < C.size(); ++I)
      C[I] = Ref[I] = Dist(Rng);
    for (int Mi = 0; Mi < 8; ++Mi)
      for (int Ni = 0; Ni < 16; ++Ni)
        for (int Ki = 0; Ki < 24; ++Ki)
          Ref[Mi * 16 + Ni] = std::fmaf(A[Mi * 24 + Ki], Bm[Ki * 16 + Ni], Ref[Mi * 16 + Ni]);
    std::vector<HostBuffer> Bufs = {In == f32() ? bufferOf(A, "A") : bufferOf(A16, "A"),
                                    In == f32() ? bufferOf(Bm, "B") : bufferOf(B16, "B"),
                                    bufferOf(C, "C")};
    InterpResult R =
        runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)}, Bufs);
    ASSERT_TRUE(R.Ok) << R.Error;
    EXPECT_EQ(C, Ref) << In->str();
  }
  // One multiply-add whose exact value is just below an f32 tie (see
  // InterpOps.FmaRoundsOnce): the result must not double-round.
  Module M;
  Function *F = buildDot(M, f32(), f32(), 1, 1, 1);
  std::vector<float> A = {1 + std::ldexp(1.0f, -18)};
  std::vector<float> Bm = {std::ldexp(1.0f, -24) - std::ldexp(1.0f, -42)};
  std::vector<float> C = {1 + std::ldexp(1.0f, -23)};
  std::vector<HostBuffer> Bufs = {bufferOf(A, "A"), bufferOf(Bm, "B"), bufferOf(C, "C")};
  InterpResult R =
      runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(C[0], 1 + std::ldexp(1.0f, -23));
}

TEST(InterpKernel, DotI8AndF64) {
  {
    Module M;
    Function *F = buildDot(M, i8(), i32(), 4, 3, 5);
    std::vector<int8_t> A(20), Bm(15);
    std::vector<int32_t> C(12, 7);
    for (int I = 0; I < 20; ++I)
      A[I] = static_cast<int8_t>(I * 37 - 128);
    for (int I = 0; I < 15; ++I)
      Bm[I] = static_cast<int8_t>(I * 53 + 100);
    std::vector<HostBuffer> Bufs = {bufferOf(A, "A"), bufferOf(Bm, "B"), bufferOf(C, "C")};
    InterpResult R =
        runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)}, Bufs);
    ASSERT_TRUE(R.Ok) << R.Error;
    for (int Mi = 0; Mi < 4; ++Mi)
      for (int Ni = 0; Ni < 3; ++Ni) {
        int32_t S = 7;
        for (int Ki = 0; Ki < 5; ++Ki)
          S += A[Mi * 5 + Ki] * Bm[Ki * 3 + Ni];
        EXPECT_EQ(C[Mi * 3 + Ni], S);
      }
  }
  {
    Module M;
    Function *F = buildDot(M, f64(), f64(), 2, 2, 3);
    std::vector<double> A = {0.1, 0.2, 0.3, 1e16, 1, -1e16}, Bm = {1, 2, 3, 4, 5, 6},
                        C = {0.5, 0, 0, 0};
    std::vector<double> Expect(4);
    for (int Mi = 0; Mi < 2; ++Mi)
      for (int Ni = 0; Ni < 2; ++Ni) {
        double S = C[Mi * 2 + Ni];
        for (int Ki = 0; Ki < 3; ++Ki)
          S = std::fma(A[Mi * 3 + Ki], Bm[Ki * 2 + Ni], S);
        Expect[Mi * 2 + Ni] = S;
      }
    std::vector<HostBuffer> Bufs = {bufferOf(A, "A"), bufferOf(Bm, "B"), bufferOf(C, "C")};
    InterpResult R =
        runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)}, Bufs);
    ASSERT_TRUE(R.Ok) << R.Error;
    EXPECT_EQ(C, Expect);
  }
}

namespace {
/// Reduces a 4x6 tile loaded from X along Axis with K; stores to Out.
std::vector<uint64_t> runReduce(ReduceKind K, const Type *T, int64_t Axis,
                                std::vector<uint64_t> &X) {
  EvalKernel Kr({ptr(T)}, T);
  Value *Tile = Kr.B.createLoad(gepTile(Kr.B, Kr.arg(0), offsets2D(Kr.B, 4, 6, 6)));
  Kr.finish(Kr.B.createReduce(K, Tile, Axis));
  std::vector<uint64_t> Out(6, 0);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Out, "out")};
  InterpResult R = runKernel(*Kr.F, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
  EXPECT_TRUE(R.Ok) << R.Error;
  return Out;
}
} // namespace

TEST(InterpKernel, ReduceEveryKind) {
  std::vector<int32_t> XI(24);
  std::vector<float> XF(24);
  for (int I = 0; I < 24; ++I) {
    XI[I] = (I * 7919) % 23 - 11 + (I == 5 ? INT32_MIN / 2 : 0);
    XF[I] = static_cast<float>((I * 31) % 17) - 8.5f + 1e-7f * I;
  }
  XF[7] = NAN; // fmax/fmin ignore NaN
  using RK = ReduceKind;
  auto IntRef = [](RK K, int32_t A, int32_t B) -> int32_t {
    uint32_t UA = static_cast<uint32_t>(A), UB = static_cast<uint32_t>(B);
    switch (K) {
    case RK::Add:
      return static_cast<int32_t>(UA + UB);
    case RK::SMax:
      return std::max(A, B);
    case RK::SMin:
      return std::min(A, B);
    case RK::UMax:
      return static_cast<int32_t>(std::max(UA, UB));
    case RK::UMin:
      return static_cast<int32_t>(std::min(UA, UB));
    case RK::And:
      return A & B;
    case RK::Or:
      return A | B;
    default:
      return A ^ B;
    }
  };
  for (int64_t Axis : {0, 1}) {
    int Outer = Axis == 0 ? 6 : 4, Len = Axis == 0 ? 4 : 6;
    auto Elem = [&](int O, int L) { return Axis == 0 ? L * 6 + O : O * 6 + L; };
    for (RK K : {RK::Add, RK::SMax, RK::SMin, RK::UMax, RK::UMin, RK::And, RK::Or, RK::Xor}) {
      std::vector<uint64_t> X(12);
      std::memcpy(X.data(), XI.data(), 96);
      std::vector<uint64_t> Out = runReduce(K, i32(), Axis, X);
      const int32_t *O = reinterpret_cast<const int32_t *>(Out.data());
      for (int Oi = 0; Oi < Outer; ++Oi) {
        int32_t S = XI[Elem(Oi, 0)];
        for (int L = 1; L < Len; ++L)
          S = IntRef(K, S, XI[Elem(Oi, L)]);
        EXPECT_EQ(O[Oi], S) << reduceKindName(K) << " axis " << Axis << " row " << Oi;
      }
    }
    for (RK K : {RK::FAdd, RK::FMax, RK::FMin}) {
      std::vector<uint64_t> X(12);
      std::memcpy(X.data(), XF.data(), 96);
      std::vector<uint64_t> Out = runReduce(K, f32(), Axis, X);
      const float *O = reinterpret_cast<const float *>(Out.data());
      for (int Oi = 0; Oi < Outer; ++Oi) {
        float S = XF[Elem(Oi, 0)];
        for (int L = 1; L < Len; ++L) {
          float V = XF[Elem(Oi, L)];
          S = K == RK::FAdd ? S + V : K == RK::FMax ? std::fmax(S, V) : std::fmin(S, V);
        }
        if (std::isnan(S))
          EXPECT_TRUE(std::isnan(O[Oi])) << reduceKindName(K);
        else
          EXPECT_EQ(O[Oi], S) << reduceKindName(K) << " axis " << Axis << " row " << Oi;
      }
    }
  }
  // Rank 1 gives a scalar; f16 sums round after each step (2048 + 1 + 1 = 2048).
  EvalKernel K({}, f16());
  Value *Ones = K.B.getConstantOfType(Type::getTile(f16(), {3}), 1);
  Value *Start = K.B.createSplat(K.B.getFloat(f16(), 2048), {1});
  Value *Tile =
      K.B.createReshape(K.B.createSelect(K.B.createICmp(CmpPredicate::EQ, K.B.createMakeRange(0, 3),
                                                        K.B.createSplat(K.B.getI32(0), {3})),
                                         K.B.createBroadcast(Start, {3}), Ones),
                        {3});
  Instruction *Sum = K.B.createReduce(ReduceKind::FAdd, Tile, 0);
  EXPECT_TRUE(Sum->getType()->isScalar());
  K.finish(Sum);
  EXPECT_EQ(K.runFloat({}), 2048);
}

TEST(InterpKernel, EmptyKernel) {
  Module M;
  Function *F = M.createFunction("k", Type::getVoid(), {});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  B.createRet();
  std::vector<HostBuffer> Bufs;
  InterpResult R = runKernel(*F, {3, 2, 1}, {}, Bufs);
  EXPECT_TRUE(R.Ok) << R.Error;
  R = runKernel(*F, {0, 1, 1}, {}, Bufs); // an empty grid runs nothing
  EXPECT_TRUE(R.Ok) << R.Error;
}

TEST(InterpKernel, BadIRIsAnErrorNotACrash) {
  {
    // Block without a terminator.
    Module M;
    Function *F = M.createFunction("k", Type::getVoid(), {});
    IRBuilder B(M);
    B.setInsertPoint(F->createBlock("entry"));
    B.createMakeRange(0, 4);
    std::vector<HostBuffer> Bufs;
    InterpResult R = runKernel(*F, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("terminator"), std::string::npos) << R.Error;
  }
  {
    // Dot with mismatched shapes, created without the builder's checks.
    Module M;
    Function *F = M.createFunction("k", Type::getVoid(), {});
    IRBuilder B(M);
    B.setInsertPoint(F->createBlock("entry"));
    Value *A = B.createSplat(B.getFloat(f32(), 1), {4, 8});
    Value *Bt = B.createSplat(B.getFloat(f32(), 1), {4, 8});
    Value *C = B.createSplat(B.getFloat(f32(), 0), {4, 8});
    B.create(Opcode::Dot, C->getType(), {A, Bt, C});
    B.createRet();
    std::vector<HostBuffer> Bufs;
    InterpResult R = runKernel(*F, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("invalid IR"), std::string::npos) << R.Error;
  }
  {
    // Element-count mismatch and an operand from another function.
    Module M;
    Function *G = M.createFunction("g", Type::getVoid(), {i32()});
    Function *F = M.createFunction("k", Type::getVoid(), {});
    IRBuilder B(M);
    B.setInsertPoint(F->createBlock("entry"));
    Value *X = B.createMakeRange(0, 4);
    B.create(Opcode::Add, X->getType(), {X, B.createMakeRange(0, 8)});
    B.createRet();
    std::vector<HostBuffer> Bufs;
    InterpResult R = runKernel(*F, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    Module M2;
    Function *H = M2.createFunction("h", Type::getVoid(), {});
    IRBuilder B2(M2);
    B2.setInsertPoint(H->createBlock("entry"));
    B2.createBinary(Opcode::Add, G->getArg(0), G->getArg(0));
    B2.createRet();
    R = runKernel(*H, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("not defined in this function"), std::string::npos) << R.Error;
  }
  {
    // A value-producing opcode with a void result type.
    Module M;
    Function *F = M.createFunction("k", Type::getVoid(), {});
    IRBuilder B(M);
    B.setInsertPoint(F->createBlock("entry"));
    B.create(Opcode::Add, Type::getVoid(), {B.getI32(1), B.getI32(2)});
    B.createRet();
    std::vector<HostBuffer> Bufs;
    InterpResult R = runKernel(*F, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("type void"), std::string::npos) << R.Error;
  }
  {
    // A phi without an incoming value for the edge taken.
    Module M;
    Function *F = M.createFunction("k", Type::getVoid(), {});
    IRBuilder B(M);
    BasicBlock *Entry = F->createBlock("entry"), *Next = F->createBlock("next");
    B.setInsertPoint(Entry);
    B.createBr(Next);
    B.setInsertPoint(Next);
    Instruction *P = B.createPhi(i32());
    P->addIncoming(B.getI32(1), Next);
    B.createRet();
    std::vector<HostBuffer> Bufs;
    InterpResult R = runKernel(*F, {}, {}, Bufs);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("phi"), std::string::npos) << R.Error;
  }
}
