//===- PrinterTest.cpp - Printer and print/parse round trips --------------===//
#include "IRTestUtil.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::ir::test;

namespace {

/// print(parse(Text)) must be Text exactly.
void expectRoundTrip(const std::string &Text) {
  ParseResult R = parseString(Text);
  ASSERT_TRUE(R.M) << R.Diags;
  EXPECT_EQ(printModule(*R.M), Text);
}

TEST(Printer, AddKernelMatchesDocs) {
  Module M;
  buildAddKernel(M);
  EXPECT_EQ(printModule(M), AddKernelText);
}

TEST(Printer, PrintInstructionUsesFunctionNames) {
  Module M;
  Function *F = buildAddKernel(M);
  std::vector<std::string> Lines;
  for (auto &I : F->getEntryBlock()->instructions())
    Lines.push_back(printInstruction(*I));
  EXPECT_EQ(Lines[1], "%0 = mul %pid, i32 128 : i32");
  EXPECT_EQ(Lines[10], "%x = masked_load %px, %mask, %5 : f32<128>");
  EXPECT_EQ(Lines[13], "masked_store %py, %x, %mask");
  EXPECT_EQ(printOperand(*F->getArg(2)), "%N");
  EXPECT_EQ(printOperand(*M.getI32(-3)), "i32 -3");
  EXPECT_EQ(printBlockName(*F->getEntryBlock()), "^entry");
}

TEST(Printer, ParseOfPrintedAddKernelIsIdentity) {
  Module M;
  buildAddKernel(M);
  expectRoundTrip(printModule(M));
}

TEST(Printer, NameUniquing) {
  Module M;
  const Type *I32 = Type::getI32();
  Function *F = M.createFunction("f", I32, {I32, I32});
  F->getArg(0)->setName("x");
  F->getArg(1)->setName("x");
  IRBuilder B(M);
  BasicBlock *BB0 = F->createBlock("");
  BasicBlock *BB1 = F->createBlock("bb0");
  BasicBlock *BB2 = F->createBlock("loop");
  BasicBlock *BB3 = F->createBlock("loop");
  B.setInsertPoint(BB0);
  Instruction *A = B.createBinary(Opcode::Add, F->getArg(0), F->getArg(1));
  A->setName("x.1"); // collides with the name given to the second "x"
  Instruction *C = B.createBinary(Opcode::Add, A, A);
  C->setName("7");
  Instruction *D = B.createBinary(Opcode::Add, C, C);
  D->setName("a b$");
  Instruction *E = B.createBinary(Opcode::Add, D, D); // unnamed
  B.createBr(BB1);
  B.setInsertPoint(BB1);
  B.createBr(BB2);
  B.setInsertPoint(BB2);
  B.createBr(BB3);
  B.setInsertPoint(BB3);
  B.createRet(E);
  std::string Expected = "define i32 @f(i32 %x, i32 %x.1) {\n"
                         "bb0:\n"
                         "  %x.1.1 = add %x, %x.1 : i32\n"
                         "  %_7 = add %x.1.1, %x.1.1 : i32\n"
                         "  %a_b_ = add %_7, %_7 : i32\n"
                         "  %0 = add %a_b_, %a_b_ : i32\n"
                         "  br ^bb0.1\n"
                         "bb0.1:\n"
                         "  br ^loop\n"
                         "loop:\n"
                         "  br ^loop.1\n"
                         "loop.1:\n"
                         "  ret %0\n"
                         "}\n";
  // The unnamed first block takes "bb0" first; the block hinted "bb0" is
  // made unique like any other hint.
  EXPECT_EQ(printModule(M), Expected);
  expectRoundTrip(Expected);
}

TEST(Printer, NumericNamesAreRenumbered) {
  ParseResult R = parseString("define i32 @f(i32 %5) {\n"
                              "b:\n"
                              "  %9 = add %5, %5 : i32\n"
                              "  %x = add %9, %9 : i32\n"
                              "  %2 = add %x, %9 : i32\n"
                              "  ret %2\n"
                              "}\n");
  ASSERT_TRUE(R.M) << R.Diags;
  const char *Expected = "define i32 @f(i32 %0) {\n"
                         "b:\n"
                         "  %1 = add %0, %0 : i32\n"
                         "  %x = add %1, %1 : i32\n"
                         "  %2 = add %x, %1 : i32\n"
                         "  ret %2\n"
                         "}\n";
  EXPECT_EQ(printModule(*R.M), Expected);
  expectRoundTrip(Expected);
}

TEST(Printer, IntegerConstantsAreNormalized) {
  Module M;
  Function *F = M.createFunction("f", Type::getVoid(), {});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  B.createBinary(Opcode::Add, B.getInt(Type::getInt(8), 255), B.getInt(Type::getInt(8), 128));
  B.createBinary(Opcode::And, B.getBool(true), B.getInt(Type::getI1(), 0));
  B.createBinary(Opcode::Add, B.getI64(std::numeric_limits<int64_t>::min()), B.getI64(-4));
  B.createRet();
  std::string Text = printModule(M);
  EXPECT_NE(Text.find("add i8 -1, i8 -128 : i8"), std::string::npos) << Text;
  EXPECT_NE(Text.find("and i1 1, i1 0 : i1"), std::string::npos) << Text;
  EXPECT_NE(Text.find("add i64 -9223372036854775808, i64 -4 : i64"), std::string::npos) << Text;
  expectRoundTrip(Text);
}

TEST(Printer, FloatConstantsRoundTripBitExactly) {
  const double Inf = std::numeric_limits<double>::infinity();
  struct Case {
    const Type *T;
    double V;
  } Cases[] = {
      {Type::getF32(), 0.1f},       {Type::getF32(), 1e-45f},     {Type::getF32(), 3.4028234e38f},
      {Type::getF32(), -0.0},       {Type::getF32(), Inf},        {Type::getF32(), -Inf},
      {Type::getF32(), 16777217.0}, {Type::getF64(), 0.1},        {Type::getF64(), 5e-324},
      {Type::getF64(), 1e300},      {Type::getF64(), -1.0 / 3.0}, {Type::getF16(), 0.1},
      {Type::getF16(), 65504},      {Type::getF16(), 6e-8},       {Type::getBF16(), 3.14159},
      {Type::getBF16(), -1e38},
  };
  for (const Case &C : Cases) {
    Module M;
    Function *F = M.createFunction("f", C.T, {});
    IRBuilder B(M);
    B.setInsertPoint(F->createBlock("entry"));
    Constant *K = B.getFloat(C.T, C.V);
    B.createRet(K);
    std::string Text = printModule(M);
    ParseResult R = parseString(Text);
    ASSERT_TRUE(R.M) << R.Diags << Text;
    auto *Back = asConstant(R.M->functions()[0]->getEntryBlock()->back()->getOperand(0));
    ASSERT_TRUE(Back);
    double A = K->getFloat(), Bv = Back->getFloat();
    EXPECT_EQ(std::memcmp(&A, &Bv, sizeof(double)), 0) << Text;
    EXPECT_EQ(printModule(*R.M), Text);
  }
  // f32 prints its own shortest form, not the double's.
  Module M;
  Function *F = M.createFunction("f", Type::getF32(), {});
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  B.createRet(B.getFloat(Type::getF32(), 0.1));
  EXPECT_NE(printModule(M).find("ret f32 0.1\n"), std::string::npos) << printModule(M);
}

TEST(Printer, NanAndSpecialLiterals) {
  const char *Text = "define void @f(f32* %p) {\n"
                     "entry:\n"
                     "  %0 = fadd f32 nan, f32 -inf : f32\n"
                     "  %1 = fadd %0, f32 undef : f32\n"
                     "  %2 = icmp eq %p, f32* null : i1\n"
                     "  %3 = select %2, f32 inf, %1 : f32\n"
                     "  store %p, %3\n"
                     "  ret\n"
                     "}\n";
  expectRoundTrip(Text);
  ParseResult R = parseString(Text);
  auto *Nan = asConstant(R.M->functions()[0]->getEntryBlock()->front()->getOperand(0));
  ASSERT_TRUE(Nan);
  EXPECT_TRUE(std::isnan(Nan->getFloat()));
}

TEST(Printer, LoopRoundTrip) { expectRoundTrip(LoopText); }

/// Every opcode's syntax, in one valid module of two functions.
const char *AllOpcodes = "define kernel void @all(f16* %a, f32* %b, i32 %n, i8* %q, f64* %d) {\n"
                         "entry:\n"
                         "  %pid = get_program_id 1 : i32\n"
                         "  %np = get_num_programs 2 : i32\n"
                         "  %r = make_range 0, 16 : i32<16>\n"
                         "  %r2 = reshape %r : i32<16,1>\n"
                         "  %rb = broadcast %r2 : i32<16,16>\n"
                         "  %rt = trans %rb : i32<16,16>\n"
                         "  %s = add %rb, %rt : i32<16,16>\n"
                         "  %0 = sub %s, %rt : i32<16,16>\n"
                         "  %1 = mul %pid, %np : i32\n"
                         "  %2 = sdiv %1, i32 3 : i32\n"
                         "  %3 = udiv %2, i32 3 : i32\n"
                         "  %4 = srem %3, i32 3 : i32\n"
                         "  %5 = urem %4, i32 3 : i32\n"
                         "  %6 = shl %5, i32 1 : i32\n"
                         "  %7 = lshr %6, i32 1 : i32\n"
                         "  %8 = ashr %7, i32 1 : i32\n"
                         "  %9 = and %8, i32 255 : i32\n"
                         "  %10 = or %9, i32 1 : i32\n"
                         "  %11 = xor %10, i32 -1 : i32\n"
                         "  %12 = smin %11, %n : i32\n"
                         "  %13 = smax %12, %n : i32\n"
                         "  %14 = umin %13, %n : i32\n"
                         "  %15 = umax %14, %n : i32\n"
                         "  %16 = iabs %15 : i32\n"
                         "  %pa = splat %a : f16*<16,16>\n"
                         "  %pa2 = gep %pa, %0 : f16*<16,16>\n"
                         "  %x = load %pa2 : f16<16,16>\n"
                         "  %xt = trans %x : f16<16,16>\n"
                         "  %acc = splat f32 0 : f32<16,16>\n"
                         "  %dt = dot %x, %xt, %acc : f32<16,16>\n"
                         "  %f0 = fadd %dt, %dt : f32<16,16>\n"
                         "  %f1 = fsub %f0, %dt : f32<16,16>\n"
                         "  %f2 = fmul %f1, %dt : f32<16,16>\n"
                         "  %f3 = fdiv %f2, %dt : f32<16,16>\n"
                         "  %f4 = frem %f3, %dt : f32<16,16>\n"
                         "  %f5 = fmin %f4, %dt : f32<16,16>\n"
                         "  %f6 = fmax %f5, %dt : f32<16,16>\n"
                         "  %u0 = fneg %f6 : f32<16,16>\n"
                         "  %u1 = exp %u0 : f32<16,16>\n"
                         "  %u2 = log %u1 : f32<16,16>\n"
                         "  %u3 = sqrt %u2 : f32<16,16>\n"
                         "  %u4 = rsqrt %u3 : f32<16,16>\n"
                         "  %u5 = sin %u4 : f32<16,16>\n"
                         "  %u6 = cos %u5 : f32<16,16>\n"
                         "  %u7 = tanh %u6 : f32<16,16>\n"
                         "  %u8 = fabs %u7 : f32<16,16>\n"
                         "  %u9 = floor %u8 : f32<16,16>\n"
                         "  %u10 = ceil %u9 : f32<16,16>\n"
                         "  %fm = fma %u10, %u10, %dt : f32<16,16>\n"
                         "  %red = reduce fadd %fm, 1 : f32<16>\n"
                         "  %mx = reduce fmax %red, 0 : f32\n"
                         "  %ir = reduce umin %s, 0 : i32<16>\n"
                         "  %m = fcmp olt %fm, %dt : i1<16,16>\n"
                         "  %m2 = icmp uge %s, %rt : i1<16,16>\n"
                         "  %m3 = and %m, %m2 : i1<16,16>\n"
                         "  %sel = select %m3, %fm, %dt : f32<16,16>\n"
                         "  %h = fptrunc %sel : f16<16,16>\n"
                         "  %e = fpext %h : f32<16,16>\n"
                         "  %i = fptosi %e : i32<16,16>\n"
                         "  %iu = fptoui %e : i32<16,16>\n"
                         "  %fi = sitofp %i : f32<16,16>\n"
                         "  %fu = uitofp %iu : f64<16,16>\n"
                         "  %l = sext %i : i64<16,16>\n"
                         "  %z = zext %m : i8<16,16>\n"
                         "  %t = trunc %l : i16<16,16>\n"
                         "  %bc = bitcast %fi : i32<16,16>\n"
                         "  %pb = splat %b : f32*<16,16>\n"
                         "  %pbi = ptrtoint %pb : i64<16,16>\n"
                         "  %pbp = inttoptr %pbi : f32*<16,16>\n"
                         "  %pbc = bitcast %pbp : i32*<16,16>\n"
                         "  %old = atomic_rmw fadd %pbp, %fi, %m : f32<16,16>\n"
                         "  %old2 = atomic_rmw xchg %pbp, %fi : f32<16,16>\n"
                         "  %cas = atomic_cas %pbc, %bc, %bc : i32<16,16>\n"
                         "  %ml = masked_load %pbp, %m, %fi : f32<16,16>\n"
                         "  masked_store %pbp, %ml, %m3\n"
                         "  store %pbp, %e\n"
                         "  store %b, %mx\n"
                         "  %c = icmp sgt %n, i32 0 : i1\n"
                         "  cond_br %c, ^then, ^done\n"
                         "then:\n"
                         "  %q8 = load %q : i8\n"
                         "  %dd = load %d : f64\n"
                         "  br ^done\n"
                         "done:\n"
                         "  %ph = phi [i8 0, ^entry], [%q8, ^then] : i8\n"
                         "  store %q, %ph\n"
                         "  ret\n"
                         "}\n"
                         "\n"
                         "define i64 @g(i64 %v) {\n"
                         "entry:\n"
                         "  ret %v\n"
                         "}\n";

TEST(Printer, AllOpcodesRoundTrip) { expectRoundTrip(AllOpcodes); }

} // namespace

namespace tritonc::ir::test {
const char *allOpcodesText() { return AllOpcodes; }
} // namespace tritonc::ir::test
