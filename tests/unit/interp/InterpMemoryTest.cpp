//===- InterpMemoryTest.cpp - Loads, stores, atomics, checks, arguments ---===//
#include "InterpTestUtil.h"

#include <cmath>

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

namespace {

/// Pointers Base + Offsets for a tile of offsets.
Value *gepTile(IRBuilder &B, Value *Base, Value *Offsets) {
  return B.createGEP(B.createSplat(Base, Offsets->getType()->getShape()), Offsets);
}

/// Builds @k(f32* X, f32* Y, i32 N, i32 Shift): each program handles 8
/// elements at pid*8 + Shift; Y = 2*X where offset < N. Masked when Masked.
Function *buildScale(Module &M, bool Masked, SourceLoc LoadLoc = {}) {
  Function *F = M.createFunction("scale", Type::getVoid(), {ptr(f32()), ptr(f32()), i32(), i32()});
  F->getArg(0)->setName("X");
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *Pid = B.createGetProgramId(0);
  Value *Base =
      B.createBinary(Opcode::Add, B.createBinary(Opcode::Mul, Pid, B.getI32(8)), F->getArg(3));
  Value *Offs = B.createBinary(Opcode::Add, B.createSplat(Base, {8}), B.createMakeRange(0, 8));
  Value *Mask = B.createICmp(CmpPredicate::SLT, Offs, B.createSplat(F->getArg(2), {8}));
  B.setLoc(LoadLoc);
  Instruction *X =
      Masked ? B.createMaskedLoad(gepTile(B, F->getArg(0), Offs), Mask,
                                  B.getConstantOfType(Mask->getType()->withScalar(f32()), -1))
             : B.createLoad(gepTile(B, F->getArg(0), Offs));
  X->setName("x");
  B.setLoc({});
  Value *Y = B.createBinary(Opcode::FMul, X, B.getConstantOfType(X->getType(), 2));
  if (Masked)
    B.createMaskedStore(gepTile(B, F->getArg(1), Offs), Y, Mask);
  else
    B.createStore(gepTile(B, F->getArg(1), Offs), Y);
  B.createRet();
  return F;
}

} // namespace

TEST(InterpMemory, MaskedLoadStoreSkipsMaskedLanes) {
  Module M;
  Function *F = buildScale(M, /*Masked=*/true);
  std::vector<float> X(11), Y(11, 0);
  for (int I = 0; I < 11; ++I)
    X[I] = static_cast<float>(I);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Y, "Y")};
  std::vector<ArgValue> Args = {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(11),
                                ArgValue::integer(0)};
  InterpResult R = runKernel(*F, {2, 1, 1}, Args, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int I = 0; I < 11; ++I)
    EXPECT_EQ(Y[I], 2.0f * I);
  // Every lane masked off and pointing far outside any buffer: no error.
  Args[3] = ArgValue::integer(1 << 24);
  R = runKernel(*F, {2, 1, 1}, Args, Bufs);
  EXPECT_TRUE(R.Ok) << R.Error;
  Args[3] = ArgValue::integer(-(1 << 24));
  Args[2] = ArgValue::integer(-(1 << 24));
  R = runKernel(*F, {2, 1, 1}, Args, Bufs);
  EXPECT_TRUE(R.Ok) << R.Error;
}

TEST(InterpMemory, OutOfBoundsLoadNamesInstructionAndProgram) {
  SourceManager SM;
  FileId Id = SM.addBuffer("kernel.tc", "\n");
  Module M;
  Function *F = buildScale(M, /*Masked=*/false, SourceLoc{Id, 12, 5});
  std::vector<float> X(11), Y(16);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Y, "Y")};
  InterpOptions Opts;
  Opts.Sources = &SM;
  InterpResult R = runKernel(
      *F, {2, 1, 1},
      {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(11), ArgValue::integer(0)}, Bufs,
      Opts);
  ASSERT_FALSE(R.Ok);
  EXPECT_EQ(R.Error.rfind("program (1,0,0): load at kernel.tc:12:5", 0), 0u) << R.Error;
  EXPECT_NE(R.Error.find("%x = load"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("out-of-bounds read of 4 bytes"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("buffer 'X'"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("+44), index 11 of 11)"), std::string::npos) << R.Error;
  // Program 0 ran completely before program 1 failed.
  for (int I = 0; I < 8; ++I)
    EXPECT_EQ(Y[I], 2.0f * X[I]);
}

TEST(InterpMemory, OutOfBoundsStoreAndMisalignedAccess) {
  Module M;
  Function *F = buildScale(M, /*Masked=*/false);
  std::vector<float> X(16), Y(12);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Y, "Y")};
  InterpResult R = runKernel(
      *F, {2, 1, 1},
      {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(16), ArgValue::integer(0)},
      Bufs);
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("program (1,0,0): store"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("out-of-bounds write"), std::string::npos) << R.Error;

  // An i8* moved by one byte and reinterpreted as f32*.
  Module M2;
  Function *G = M2.createFunction("mis", Type::getVoid(), {ptr(i8()), ptr(f32())});
  IRBuilder B(M2);
  B.setInsertPoint(G->createBlock("entry"));
  Value *P = B.createCast(Opcode::Bitcast, B.createGEP(G->getArg(0), B.getI32(1)), ptr(f32()));
  B.createStore(G->getArg(1), B.createLoad(P));
  B.createRet();
  std::vector<float> Bytes(4);
  std::vector<HostBuffer> Bufs2 = {bufferOf(Bytes, "bytes"), bufferOf(Y, "Y")};
  R = runKernel(*G, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs2);
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("misaligned read of 4 bytes"), std::string::npos) << R.Error;
}

TEST(InterpMemory, NarrowAndBoolFormats) {
  // Y16 = X16 + 1 (f16 in memory), YB = XB + 1 (bf16), YI = zext(XI1) (i1 bytes),
  // ZI1 = (XI1 == 0) stored as bytes, W = sext(XI8).
  Module M;
  Function *F = M.createFunction("fmt", Type::getVoid(),
                                 {ptr(f16()), ptr(f16()), ptr(bf16()), ptr(bf16()), ptr(i1()),
                                  ptr(i32()), ptr(i1()), ptr(i8()), ptr(i64())});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *R4 = B.createMakeRange(0, 4);
  auto Arg = [&](unsigned I) { return F->getArg(I); };
  Value *H = B.createLoad(gepTile(B, Arg(0), R4));
  B.createStore(gepTile(B, Arg(1), R4),
                B.createBinary(Opcode::FAdd, H, B.getConstantOfType(H->getType(), 1)));
  Value *BF = B.createLoad(gepTile(B, Arg(2), R4));
  B.createStore(gepTile(B, Arg(3), R4),
                B.createBinary(Opcode::FAdd, BF, B.getConstantOfType(BF->getType(), 1)));
  Value *Bools = B.createLoad(gepTile(B, Arg(4), R4));
  B.createStore(gepTile(B, Arg(5), R4), B.createCast(Opcode::ZExt, Bools, i32()));
  B.createStore(gepTile(B, Arg(6), R4),
                B.createICmp(CmpPredicate::EQ, Bools, B.getConstantOfType(Bools->getType(), 0)));
  Value *Bytes = B.createLoad(gepTile(B, Arg(7), R4));
  B.createStore(gepTile(B, Arg(8), R4), B.createCast(Opcode::SExt, Bytes, i64()));
  B.createRet();

  std::vector<uint16_t> X16 = {0x3c00, 0x6800 /*2048*/, 0xc000, 0x7bff}, Y16(4);
  std::vector<uint16_t> XB = {0x3f80, 0x4380 /*256*/, 0xbf80, 0}, YB(4);
  std::vector<uint8_t> XI1 = {0, 1, 2, 0}, ZI1(4, 7);
  std::vector<int32_t> YI(4);
  std::vector<int8_t> XI8 = {-1, 5, -128, 127};
  std::vector<int64_t> W(4);
  std::vector<HostBuffer> Bufs = {bufferOf(X16, "X16"), bufferOf(Y16, "Y16"), bufferOf(XB, "XB"),
                                  bufferOf(YB, "YB"),   bufferOf(XI1, "XI1"), bufferOf(YI, "YI"),
                                  bufferOf(ZI1, "ZI1"), bufferOf(XI8, "XI8"), bufferOf(W, "W")};
  std::vector<ArgValue> Args;
  for (size_t I = 0; I < Bufs.size(); ++I)
    Args.push_back(ArgValue::buffer(I));
  InterpResult R = runKernel(*F, {}, Args, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(Y16, (std::vector<uint16_t>{0x4000, 0x6800, 0xbc00, 0x7bff}));
  EXPECT_EQ(YB, (std::vector<uint16_t>{0x4000, 0x4380, 0x0000, 0x3f80}));
  EXPECT_EQ(YI, (std::vector<int32_t>{0, 1, 1, 0}));
  EXPECT_EQ(ZI1, (std::vector<uint8_t>{1, 0, 0, 1}));
  EXPECT_EQ(W, (std::vector<int64_t>{-1, 5, -128, 127}));
}

TEST(InterpMemory, AtomicAddTileWithDuplicateAddresses) {
  Module M;
  Function *F = M.createFunction("aadd", Type::getVoid(), {ptr(i32()), ptr(i32())});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *R8 = B.createMakeRange(0, 8);
  Value *Slot = B.createBinary(Opcode::URem, R8, B.createSplat(B.getI32(3), {8}));
  Value *Vals = B.createBinary(Opcode::Add, R8, B.createSplat(B.getI32(1), {8}));
  Value *Mask = B.createICmp(CmpPredicate::SLT, R8, B.createSplat(B.getI32(7), {8}));
  Value *Old = B.createAtomicRMW(ReduceKind::Add, gepTile(B, F->getArg(0), Slot), Vals, Mask);
  B.createStore(gepTile(B, F->getArg(1), R8), Old);
  B.createRet();
  std::vector<int32_t> X = {100, 200, 300}, O(8, -1);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(O, "O")};
  InterpResult R = runKernel(*F, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(X, (std::vector<int32_t>{100 + 1 + 4 + 7, 200 + 2 + 5, 300 + 3 + 6}));
  EXPECT_EQ(O, (std::vector<int32_t>{100, 200, 300, 101, 202, 303, 105, 0}));
}

namespace {
struct RmwCase {
  ReduceKind K;
  const Type *T;
  double Init, Val, Expect;
};
} // namespace

TEST(InterpMemory, AtomicRMWKinds) {
  const RmwCase Cases[] = {
      {ReduceKind::Add, i32(), 5, -7, -2},      {ReduceKind::SMax, i32(), -5, -7, -5},
      {ReduceKind::SMin, i32(), -5, -7, -7},    {ReduceKind::UMax, i32(), -5, 7, -5},
      {ReduceKind::UMin, i32(), -5, 7, 7},      {ReduceKind::And, i32(), 12, 10, 8},
      {ReduceKind::Or, i32(), 12, 10, 14},      {ReduceKind::Xor, i32(), 12, 10, 6},
      {ReduceKind::Xchg, i32(), 12, 10, 10},    {ReduceKind::FAdd, f32(), 1.5, 2.25, 3.75},
      {ReduceKind::FAdd, f16(), 2048, 1, 2048}, {ReduceKind::FMax, f32(), 1, -3, 1},
      {ReduceKind::FMin, f32(), 1, -3, -3},     {ReduceKind::Xchg, f64(), 1, -3, -3},
      {ReduceKind::Add, i8(), 127, 1, -128},
  };
  for (const RmwCase &C : Cases) {
    EvalKernel K({C.T, ptr(C.T)}, C.T);
    Value *Old = K.B.createAtomicRMW(C.K, K.arg(1), K.arg(0), nullptr);
    K.finish(Old);
    std::vector<uint64_t> Mem(1, 0), Out(1, 0);
    // Encode Init into Mem with the interpreter itself (a store kernel).
    EvalKernel Init({C.T}, C.T);
    Init.finish(Init.arg(0));
    ASSERT_TRUE(Init.run({argFor(C.T, C.Init)}, Mem).Ok);
    std::vector<HostBuffer> Bufs = {bufferOf(Mem, "mem"), bufferOf(Out, "out")};
    InterpResult R =
        runKernel(*K.F, {}, {argFor(C.T, C.Val), ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
    ASSERT_TRUE(R.Ok) << R.Error;
    std::string What = std::string(reduceKindName(C.K)) + " " + C.T->str();
    if (C.T->isFloatOrFloatTile()) {
      EXPECT_EQ(readFloat(Mem.data(), C.T), C.Expect) << What;
      EXPECT_EQ(readFloat(Out.data(), C.T), C.Init) << What;
    } else {
      EXPECT_EQ(readInt(Mem.data(), C.T), static_cast<int64_t>(C.Expect)) << What;
      EXPECT_EQ(readInt(Out.data(), C.T), static_cast<int64_t>(C.Init)) << What;
    }
  }
}

TEST(InterpMemory, AtomicCasComparesAndReturnsOld) {
  EvalKernel K({ptr(i32())}, i32());
  Value *A = K.B.createAtomicCAS(K.arg(0), K.B.getI32(3), K.B.getI32(9));
  Value *Bv = K.B.createAtomicCAS(K.arg(0), K.B.getI32(3), K.B.getI32(11));
  K.finish(K.B.createBinary(Opcode::Add, K.B.createBinary(Opcode::Mul, A, K.B.getI32(100)), Bv));
  std::vector<int32_t> Mem = {3};
  std::vector<uint64_t> Out(1);
  std::vector<HostBuffer> Bufs = {bufferOf(Mem, "mem"), bufferOf(Out, "out")};
  InterpResult R = runKernel(*K.F, {}, {ArgValue::buffer(0), ArgValue::buffer(1)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(Mem[0], 9);
  EXPECT_EQ(readInt(Out.data(), i32()), 3 * 100 + 9);
}

TEST(InterpMemory, ArgumentChecks) {
  Module M;
  Function *F = buildScale(M, true);
  std::vector<float> X(8), Y(8);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Y, "Y")};
  auto Run = [&](std::vector<ArgValue> Args) { return runKernel(*F, {}, Args, Bufs); };
  InterpResult R = Run({ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(8)});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("takes 4 arguments"), std::string::npos) << R.Error;
  R = Run({ArgValue::buffer(0), ArgValue::integer(1), ArgValue::integer(8), ArgValue::integer(0)});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("argument 1"), std::string::npos) << R.Error;
  R = Run({ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::floating(8), ArgValue::integer(0)});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("argument 2"), std::string::npos) << R.Error;
  R = Run({ArgValue::buffer(0), ArgValue::buffer(5), ArgValue::integer(8), ArgValue::integer(0)});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("buffer 5"), std::string::npos) << R.Error;
  R = Run({ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(8), ArgValue::integer(0)});
  EXPECT_TRUE(R.Ok) << R.Error;
}

TEST(InterpMemory, ProgramIdsAndGridOrder) {
  // Out[linear] = pid.x + 10 pid.y + 100 pid.z; Order[linear] = execution rank;
  // Num = (nx, ny, nz).
  Module M;
  Function *F = M.createFunction("ids", Type::getVoid(), {ptr(i32()), ptr(i32()), ptr(i32())});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Value *P[3], *N[3];
  for (int A = 0; A < 3; ++A) {
    P[A] = B.createGetProgramId(A);
    N[A] = B.createGetNumPrograms(A);
  }
  auto Add = [&](Value *L, Value *R) { return B.createBinary(Opcode::Add, L, R); };
  auto Mul = [&](Value *L, Value *R) { return B.createBinary(Opcode::Mul, L, R); };
  Value *Linear = Add(P[0], Mul(N[0], Add(P[1], Mul(N[1], P[2]))));
  Value *Code = Add(P[0], Add(Mul(P[1], B.getI32(10)), Mul(P[2], B.getI32(100))));
  B.createStore(B.createGEP(F->getArg(0), Linear), Code);
  Value *Rank = B.createAtomicRMW(ReduceKind::Add, F->getArg(2), B.getI32(1), nullptr);
  B.createStore(B.createGEP(F->getArg(1), Linear), Rank);
  B.createRet();
  std::vector<int32_t> Out(24, -1), Order(24, -1), Counter(1, 0);
  std::vector<HostBuffer> Bufs = {bufferOf(Out, "Out"), bufferOf(Order, "Order"),
                                  bufferOf(Counter, "Counter")};
  InterpResult R = runKernel(*F, {2, 3, 4},
                             {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)}, Bufs);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int Z = 0; Z < 4; ++Z)
    for (int Y = 0; Y < 3; ++Y)
      for (int X = 0; X < 2; ++X) {
        int L = X + 2 * (Y + 3 * Z);
        EXPECT_EQ(Out[L], X + 10 * Y + 100 * Z);
        EXPECT_EQ(Order[L], L); // x fastest, then y, then z
      }
  EXPECT_EQ(Counter[0], 24);
}
