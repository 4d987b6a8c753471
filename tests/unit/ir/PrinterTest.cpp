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

TEST(Printer, AllOpcodesRoundTrip) { expectRoundTrip(AllOpcodes); }

} // namespace
