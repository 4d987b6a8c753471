//===- ParserTest.cpp - .tir parser diagnostics and robustness ------------===//
#include "IRTestUtil.h"

#include "tritonc/ir/Verifier.h"

#include "../RandomEdit.h"

#include <gtest/gtest.h>
#include <random>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::ir::test;

namespace {

/// Parsing Text must fail with a diagnostic containing Expected.
void expectError(const std::string &Text, const std::string &Expected) {
  ParseResult R = parseString(Text);
  EXPECT_FALSE(R.M) << Text;
  EXPECT_NE(R.Diags.find(Expected), std::string::npos)
      << "expected: " << Expected << "\ngot: " << R.Diags;
}

std::string wrap(const std::string &Body) {
  return "define void @f(i32 %a, f32 %x, f32* %p) {\nentry:\n" + Body + "  ret\n}\n";
}

TEST(Parser, ValidInputKeepsStructure) {
  ParseResult R = parseString(AddKernelText);
  ASSERT_TRUE(R.M) << R.Diags;
  Function *F = R.M->getFunction("add");
  ASSERT_TRUE(F);
  EXPECT_TRUE(F->attrs().IsKernel);
  EXPECT_EQ(F->getNumArgs(), 3u);
  EXPECT_EQ(F->getArg(0)->attrs().Aligned, 16);
  EXPECT_TRUE(F->getArg(0)->attrs().NoAlias);
  EXPECT_EQ(F->getArg(2)->attrs().MultipleOf, 16);
  EXPECT_EQ(F->getArg(2)->getName(), "N");
  Instruction *First = F->getEntryBlock()->front();
  EXPECT_EQ(First->getOpcode(), Opcode::GetProgramId);
  EXPECT_EQ(First->Loc.Line, 3u);
  EXPECT_EQ(First->Loc.Col, 3u);
  // Unnamed values (%0) are stored without a hint.
  EXPECT_EQ((*std::next(F->getEntryBlock()->instructions().begin()))->getName(), "");
  std::vector<std::string> Errors;
  EXPECT_TRUE(verifyModule(*R.M, Errors));
}

TEST(Parser, ForwardReferencesAndBlockOrder) {
  // Blocks appear before their dominators and values are used before they
  // are defined (legal in the text; the verifier checks dominance).
  const char *Text = "define i32 @f(i32 %n) {\n"
                     "entry:\n"
                     "  br ^b\n"
                     "c:\n"
                     "  ret %v\n"
                     "b:\n"
                     "  %v = add %n, i32 1 : i32\n"
                     "  br ^c\n"
                     "}\n";
  ParseResult R = parseString(Text);
  ASSERT_TRUE(R.M) << R.Diags;
  EXPECT_EQ(printModule(*R.M), Text);
  std::vector<std::string> Errors;
  EXPECT_TRUE(verifyModule(*R.M, Errors)) << Errors[0];
  EXPECT_EQ(R.M->functions()[0]->getEntryBlock()->instructions().size(), 1u);
}

TEST(Parser, Errors) {
  expectError(wrap("  %b = frob %a : i32\n"), "test.tir:3:8: error: unknown opcode 'frob'");
  expectError(wrap("  %b = add %a, %foo : i32\n"),
              "test.tir:3:16: error: use of undefined value '%foo'");
  expectError(wrap("  %a = add %a, %a : i32\n"), "test.tir:3:3: error: redefinition of value '%a'");
  expectError(wrap("  %b = add %a, %a : i64\n"),
              "test.tir:3:3: error: operand 0 has type 'i32' but the result type is 'i64'");
  expectError(wrap("  %b = icmp olt %a, %a : i1\n"), "test.tir:3:13: error: expected an icmp");
  expectError(wrap("  %b = reduce xor %a, 0 : i32\n"), "expected a reduce kind");
  expectError(wrap("  %b = atomic_rmw fmax %p, %x : f32\n"), "expected a atomic_rmw kind");
  expectError("define void @f(i32 %a bogus) {\nentry:\n  ret\n}\n",
              "test.tir:1:23: error: unknown argument attribute 'bogus'");
  expectError("define void @f(i32* %a aligned(0)) {\nentry:\n  ret\n}\n",
              "aligned needs a positive integer");
  expectError(wrap("  br ^nowhere\n"), "test.tir:3:6: error: use of undefined block '^nowhere'");
  expectError(wrap("  %b = add %a, i32 99999999999 : i32\n"), "does not fit in i32");
  expectError(wrap("  %b = fadd %x, f32 1e99 : f32\n"), "out of range for f32");
  expectError(wrap("  %b = add %a, %a : i32<0>\n"), "tile dimensions must be positive");
  expectError(wrap("  %b = add %a, %a : i13\n"), "expected a type");
  expectError(wrap("  %b = splat %a : void<4>\n"), "tile of void");
  expectError(wrap("  %b = add %a, i32<4> 1 : i32\n"), "constants are scalars");
  expectError(wrap("  store %p, %x : f32\n"), "expected an opcode");
  expectError(wrap("  %s = store %p, %x\n"), "'store' produces no value");
  expectError(wrap("  add %a, %a : i32\n"), "'add' produces a value");
  expectError(wrap("  %b = add %a : i32\n"), "'add' needs 2 operands, not 1");
  expectError(wrap("  %b = get_program_id 3 : i32\n"), "axis 3 is not 0, 1 or 2");
  expectError(wrap("  %b = make_range 4, 4 : i32<0>\n"), "tile dimensions must be positive");
  expectError(wrap("  %b = make_range 0, 8 : i32<4>\n"), "should be 'i32<8>'");
  expectError(wrap("  %b = add %a, %a : i32 $\n"), "unexpected character '$'");
  expectError("define void @f() {\nentry:\n  ret\n", "expected '}'");
  expectError("define void @f() {\n  ret\n}\n", "expected a block label");
  expectError("define void @f() {\nentry:\n  ret\nentry:\n  ret\n}\n",
              "test.tir:4:1: error: redefinition of block 'entry'");
  expectError("define void @f() {\nentry:\n  ret\n}\ndefine void @f() {\nentry:\n  ret\n}\n",
              "redefinition of function '@f'");
  expectError("define void @f() {\n}\n", "has no blocks");
  expectError("declare void @f()\n", "test.tir:1:1: error: expected 'define'");
}

TEST(Parser, RetOperandStaysOnItsLine) {
  // A value-less ret followed by an instruction on the next line: the
  // instruction is not taken as ret's operand (the verifier reports it).
  ParseResult R =
      parseString("define void @f(i32 %a) {\nentry:\n  ret\n  %b = add %a, %a : i32\n}\n");
  ASSERT_TRUE(R.M) << R.Diags;
  std::vector<std::string> Errors;
  EXPECT_FALSE(verifyModule(*R.M, Errors));
  ASSERT_FALSE(Errors.empty());
  EXPECT_NE(Errors[0].find("terminator in the middle"), std::string::npos) << Errors[0];
}

/// Every prefix and many garbled variants of a valid module must give either
/// a module or diagnostics: never a crash, an abort or an internal error.
TEST(Parser, TruncatedAndGarbledInputNeverCrash) {
  std::string Valid = std::string(AllOpcodes) + LoopText;
  auto Check = [](const std::string &Text) {
    ParseResult R = parseString(Text);
    EXPECT_EQ(R.Diags.find("internal"), std::string::npos) << R.Diags;
    if (R.M) {
      std::vector<std::string> Errors;
      verifyModule(*R.M, Errors);
      std::string Printed = printModule(*R.M);
      ParseResult Again = parseString(Printed);
      ASSERT_TRUE(Again.M) << Again.Diags << Printed;
      EXPECT_EQ(printModule(*Again.M), Printed);
    } else {
      EXPECT_NE(R.Diags.find("error:"), std::string::npos) << Text;
    }
  };
  for (size_t Len = 0; Len <= Valid.size(); Len += 3)
    Check(Valid.substr(0, Len));
  std::mt19937 Rng(1234);
  const std::string Alphabet = "%^@:,=<>[](){}*- \n;0123456789abcfix.";
  for (int Round = 0; Round < 1500; ++Round) {
    std::string Text = Valid;
    int Edits = 1 + Round % 4;
    for (int E = 0; E < Edits; ++E) {
      tritonc::test::applyRandomEdit(Text, Rng, Alphabet, 8);
    }
    Check(Text);
  }
}

} // namespace
