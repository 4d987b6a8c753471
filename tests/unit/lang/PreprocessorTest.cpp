//===- PreprocessorTest.cpp - Preprocessor and TuningSpace tests ----------===//
#include "tritonc/lang/Preprocessor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace tritonc;
namespace fs = std::filesystem;

namespace {

class PPTest : public ::testing::Test {
protected:
  SourceManager SM;
  DiagnosticEngine Diags{SM};
  size_t MaxExpansionTokens = PreprocessorOptions().MaxExpansionTokens;
  std::vector<Token> Toks;

  /// Preprocesses Src (named main.tc) and returns tokensToString.
  std::string run(const std::string &Src, const DefineList &Defines = {},
                  const std::vector<std::string> &IncludeDirs = {}) {
    return runFile(SM.addBuffer("main.tc", Src), Defines, IncludeDirs);
  }
  std::string runFile(FileId F, const DefineList &Defines = {},
                      const std::vector<std::string> &IncludeDirs = {}) {
    PreprocessorOptions Opts;
    Opts.Defines = Defines;
    Opts.IncludeDirs = IncludeDirs;
    Opts.MaxExpansionTokens = MaxExpansionTokens;
    Toks = preprocess(SM, F, Opts, Diags);
    return tokensToString(Toks);
  }
  /// Spellings of the output tokens separated by single spaces.
  std::string flat() const {
    std::string S;
    for (const Token &T : Toks)
      if (T.isNot(TokenKind::eof))
        S += (S.empty() ? "" : " ") + T.Text;
    return S;
  }
  /// Preprocesses Src and returns flat().
  std::string expand(const std::string &Src, const DefineList &Defines = {}) {
    run(Src, Defines);
    return flat();
  }
  std::string firstDiag() const {
    if (Diags.diagnostics().empty())
      return "";
    std::string S = Diags.format(Diags.diagnostics().front());
    return S.substr(0, S.find('\n'));
  }
  const Token &tok(const std::string &Text) const {
    for (const Token &T : Toks)
      if (T.Text == Text)
        return T;
    static Token None;
    ADD_FAILURE() << "no token " << Text;
    return None;
  }
};

TEST_F(PPTest, OutputEndsWithEof) {
  run("");
  ASSERT_EQ(Toks.size(), 1u);
  EXPECT_TRUE(Toks[0].is(TokenKind::eof));
  run("a");
  ASSERT_EQ(Toks.size(), 2u);
  EXPECT_TRUE(Toks[1].is(TokenKind::eof));
}

TEST_F(PPTest, ObjectLikeMacros) {
  EXPECT_EQ(expand("#define N 4\nint x = N;"), "int x = 4 ;");
  EXPECT_EQ(expand("#define TYPE float\n#define half TYPE\nhalf x;"), "float x ;");
  EXPECT_EQ(expand("#define E\na E b"), "a b");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, FunctionLikeMacros) {
  EXPECT_EQ(expand("#define ADD(a, b) ((a) + (b))\nADD(1, f(2, 3))"),
            "( ( 1 ) + ( f ( 2 , 3 ) ) )");
  EXPECT_EQ(expand("#define ONE 1\n#define TWICE(x) x x\nTWICE(ONE)"), "1 1");
  EXPECT_EQ(expand("#define f(x) x+1\n#define g f\ng(2)"), "2 + 1");
  EXPECT_EQ(expand("#define f(x) x\nint f;"), "int f ;");
  EXPECT_EQ(expand("#define f(x) [x]\nf(\n  1\n)"), "[ 1 ]");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, MultiLineInvocation) {
  EXPECT_EQ(run("#define f(x, y) x + y\nint a = f(1,\n  2); int b;"), "int a = 1 + 2; int b;\n");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, EmptyArguments) {
  EXPECT_EQ(expand("#define f(x) <x>\nf()"), "< >");
  EXPECT_EQ(expand("#define g() 7\ng()"), "7");
  EXPECT_EQ(expand("#define h(x, y) x|y\nh(,)"), "|");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, Stringize) {
  EXPECT_EQ(expand("#define S(x) #x\nS(a  +  \"q\\n\")"), "\"a + \\\"q\\\\n\\\"\"");
  EXPECT_TRUE(Toks[0].is(TokenKind::string_literal));
  EXPECT_EQ(expand("#define S(x) #x\nS()"), "\"\"");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, TokenPasting) {
  EXPECT_EQ(expand("#define CAT(a, b) a##b\nCAT(foo, bar) CAT(, x) CAT(y, ) CAT(1, 2) CAT(+, =) "
                   "CAT(,)"),
            "foobar x y 12 +=");
  EXPECT_TRUE(tok("foobar").is(TokenKind::identifier));
  EXPECT_TRUE(tok("12").is(TokenKind::int_literal));
  EXPECT_TRUE(tok("+=").is(TokenKind::plusequal));
  EXPECT_EQ(expand("#define V(n) var_ ## n ## _t\nV(3)"), "var_3_t");
  // A pasted token that names a macro is expanded on rescan.
  EXPECT_EQ(expand("#define AB 42\n#define CAT(a, b) a##b\nCAT(A, B)"), "42");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, InvalidPaste) {
  EXPECT_EQ(expand("#define CAT(a, b) a##b\nx = CAT(+, -);"), "x = + - ;");
  EXPECT_EQ(firstDiag(), "main.tc:2:5: error: pasting '+' and '-' does not give a valid token");
}

TEST_F(PPTest, VariadicMacros) {
  EXPECT_EQ(expand("#define V(f, ...) f(__VA_ARGS__)\nV(g, 1, (2, 3)) V(h)"),
            "g ( 1 , ( 2 , 3 ) ) h ( )");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, Undef) {
  EXPECT_EQ(expand("#define X 1\nX\n#undef X\nX\n#undef NEVER_DEFINED"), "1 X");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, RecursionGuards) {
  EXPECT_EQ(expand("#define A A\nA"), "A");
  EXPECT_EQ(expand("#define A B\n#define B A\nA B"), "A B");
  EXPECT_EQ(expand("#define X X + 1\nX"), "X + 1");
  EXPECT_EQ(expand("#define f(x) f(x)\nf(1)"), "f ( 1 )");
  EXPECT_EQ(expand("#define f(x) x * g(x)\n#define g(x) f(x)\nf(2)"), "2 * f ( 2 )");
  // The argument of a self-referencing macro is still expanded.
  EXPECT_EQ(expand("#define f(x) x\nf(f(3))"), "3");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, ExponentialExpansionIsCutOff) {
  std::string Src = "#define X0 a b\n";
  for (int I = 1; I <= 40; ++I)
    Src += "#define X" + std::to_string(I) + " X" + std::to_string(I - 1) + " X" +
           std::to_string(I - 1) + "\n";
  Src += "X40\n";
  // A small cap keeps the test fast (also under ASan); X40 would expand to
  // 2^41 tokens, so finishing at all shows the cap stops the expansion.
  MaxExpansionTokens = 20000;
  run(Src);
  EXPECT_EQ(firstDiag(), "main.tc:42:1: error: macro expansion is too large (more than 20000 "
                         "tokens)");
}

TEST_F(PPTest, NestedConditionals) {
  const char *Src = "#define A 2\n"
                    "#if A == 1\n"
                    "one\n"
                    "#elif A == 2\n"
                    "two\n"
                    "#  if defined(B) || defined A\n"
                    "inner\n"
                    "#  else\n"
                    "not\n"
                    "#  endif\n"
                    "#elif 1\n"
                    "three\n"
                    "#else\n"
                    "four\n"
                    "#endif\n"
                    "#ifdef A\n"
                    "a\n"
                    "#endif\n"
                    "#ifndef A\n"
                    "na\n"
                    "#else\n"
                    "else_na\n"
                    "#endif\n"
                    "#if 0\n"
                    "#if 1\n"
                    "deep\n"
                    "#else\n"
                    "deep_else\n"
                    "#endif\n"
                    "#elif 0\n"
                    "#else\n"
                    "last\n"
                    "#endif\n";
  EXPECT_EQ(expand(Src), "two inner a else_na last");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
}

class PPExprTest : public PPTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(PPExprTest, IsTrue) {
  std::string Src = std::string("#define TWO 2\n#define F(x) (x * 2)\n#if ") + GetParam() +
                    "\nyes\n#else\nno\n#endif\n";
  EXPECT_EQ(expand(Src), "yes");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
}

INSTANTIATE_TEST_SUITE_P(
    Expressions, PPExprTest,
    ::testing::Values(
        "1 + 2 * 3 == 7", "(1 + 2) * 3 == 9", "10 / 3 == 3", "10 % 3 == 1", "-7 / 2 == -3",
        "-7 % 2 == -1", "1 << 4 == 16", "-16 >> 2 == -4", "~0 == -1", "!0", "!!5 == 1", "+3 == 3",
        "5 - 7 == -2", "3 > 2 && 2 >= 2 && 1 < 2 && 2 <= 2 && 1 != 2",
        "(5 & 3) == 1 && (5 | 3) == 7 && (5 ^ 3) == 6", "1 ? 2 : 0", "0 ? 0 : 1",
        "1 ? 0 ? 0 : 1 : 0", "(0 ? 1 : 2) == 2", "UNDEFINED == 0", "!UNDEFINED", "0 || 1",
        "0x10 == 16 && 010 == 8 && 16u == 16", "'a' == 97", "'\\n' == 10", "-1 < 0", "!(-1 < 0u)",
        "-1 > 0u", "!(0 && 1 / 0)", "1 || 1 % 0", "0 ? 1 / 0 : 1", "1 ? 1 : 1 / 0",
        "true && !false", "defined(TWO) && defined TWO && !defined(NOPE) && !defined NOPE",
        "TWO * TWO == 4", "F(3) == 6", "F(TWO) == 4", "defined F", "18446744073709551615 == -1",
        "1 << 64 == 0", "(-1 >> 70) == -1", "int == 0", "2 * 3 % 4 == 2", "1 - 1 - 1 == -1",
        "(2 || 0) == 1", "9223372036854775807 + 1 < 0"));

TEST_F(PPTest, SkippedBlocksIgnoreGarbage) {
  EXPECT_EQ(expand("#if 0\n$ don't 'x\n0x\n#bogus\n#if 1/0\n#endif\n#error no\n#else\nok\n"
                   "#endif"),
            "ok");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
}

TEST_F(PPTest, ElifIsNotEvaluatedAfterTakenBranch) {
  EXPECT_EQ(expand("#if 1\na\n#elif 1/0\nb\n#elif garbage (\nc\n#endif"), "a");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
}

TEST_F(PPTest, DirectivesIgnoredOrErrors) {
  EXPECT_EQ(expand("#pragma unroll 4\n#\nx\n#pragma anything 'at all\n"), "x");
  EXPECT_TRUE(Diags.diagnostics().empty()) << Diags.formatAll();
  run("#error stop here, don't go on\nx");
  EXPECT_EQ(firstDiag(), "main.tc:1:1: error: #error stop here, don't go on");
  EXPECT_EQ(Diags.numErrors(), 1u);
}

TEST_F(PPTest, WarningDirective) {
  EXPECT_EQ(expand("#warning careful\nx"), "x");
  EXPECT_EQ(firstDiag(), "main.tc:1:1: warning: #warning careful");
  EXPECT_FALSE(Diags.hasErrors());
}

TEST_F(PPTest, ExtraTokensWarn) {
  EXPECT_EQ(expand("#ifdef A B\n#endif A\n#undef X Y"), "");
  EXPECT_FALSE(Diags.hasErrors());
  ASSERT_EQ(Diags.diagnostics().size(), 3u);
  EXPECT_EQ(firstDiag(), "main.tc:1:10: warning: extra tokens at end of #ifdef directive");
}

TEST_F(PPTest, RedefinitionWarns) {
  run("#define TM 64\n#define TN 32\n#define TN 32\nTM", {{"TM", "32"}});
  EXPECT_EQ(flat(), "64");
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_EQ(Diags.formatAll(), "main.tc:1:9: warning: 'TM' macro redefined\n"
                               "  #define TM 64\n"
                               "          ^~\n"
                               "<command line>:1:9: note: previous definition is here\n"
                               "  #define TM 32\n"
                               "          ^~\n");
}

// The matmul variants of the tutorial: transpositions chosen with -D.
TEST_F(PPTest, MatmulTranspositionDefines) {
  const char *Src =
      "TYPE* pa[SHAPE_A] = A + rk[BROADCAST_AK] * STRIDE_AK + rm[BROADCAST_AM] * STRIDE_AM;\n"
      "TYPE* pb[SHAPE_B] = B + rk[BROADCAST_BK] * STRIDE_BK + rn[BROADCAST_BN] * STRIDE_BN;\n"
      "c += USE_A @ USE_B;\n"
      "int rm[TM] = pm * TM + 0 ... TM;\n";
  // A not transposed, B transposed.
  DefineList D = {{"TYPE", "half"},
                  {"TM", "[32, 64, 128]"},
                  {"USE_A", "a"},
                  {"STRIDE_AK", "1"},
                  {"STRIDE_AM", "lda"},
                  {"BROADCAST_AK", "newaxis,:"},
                  {"BROADCAST_AM", ":,newaxis"},
                  {"SHAPE_A", "TM,TK"},
                  {"USE_B", "^b"},
                  {"STRIDE_BK", "1"},
                  {"STRIDE_BN", "ldb"},
                  {"BROADCAST_BK", "newaxis,:"},
                  {"BROADCAST_BN", ":,newaxis"},
                  {"SHAPE_B", "TN,TK"}};
  EXPECT_EQ(run(Src, D),
            "half* pa[[32, 64, 128],TK] = A + rk[newaxis,:] * 1 + rm[:,newaxis] * lda;\n"
            "half* pb[TN,TK] = B + rk[newaxis,:] * 1 + rn[:,newaxis] * ldb;\n"
            "c += a @ ^b;\n"
            "int rm[[32, 64, 128]] = pm * [32, 64, 128] + 0 ... [32, 64, 128];\n");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  // A transposed, with a concrete TM.
  D = {{"TM", "32"}, {"USE_A", "^a"}, {"SHAPE_A", "TK,TM"}, {"BROADCAST_AK", ":,newaxis"}};
  EXPECT_EQ(expand("TYPE a[SHAPE_A] = *pa; x = rk[BROADCAST_AK]; c += USE_A @ b;", D),
            "TYPE a [ TK , 32 ] = * pa ; x = rk [ : , newaxis ] ; c += ^ a @ b ;");
  EXPECT_TRUE(tok("^").is(TokenKind::caret));
  EXPECT_TRUE(tok(":").is(TokenKind::colon));
  EXPECT_TRUE(tok("newaxis").is(TokenKind::kw_newaxis));
}

TEST_F(PPTest, FunctionLikeMacrosWithCommaDefines) {
  DefineList D = {{"SHAPE_A", "TM,TK"}};
  EXPECT_EQ(expand("#define TILE(s) float t[s];\nTILE(SHAPE_A)", D), "float t [ TM , TK ] ;");
  // The argument is expanded before substitution; the comma then separates
  // arguments of the rescanned invocation.
  EXPECT_EQ(expand("#define PAIR(a, b) a + b\n#define APPLY(m, x) m(x)\nAPPLY(PAIR, SHAPE_A)", D),
            "TM + TK");
  // But it does not split the argument of the outer call.
  run("#define PAIR(a, b) a + b\nPAIR(SHAPE_A)", D);
  EXPECT_EQ(firstDiag(), "main.tc:2:1: error: macro 'PAIR' requires 2 arguments, but 1 was given");
}

TEST_F(PPTest, CommandLineDefineForms) {
  // The CLI turns -DX into {"X", "1"}; an explicit empty value is empty.
  EXPECT_EQ(expand("a X b Y", {{"X", "1"}, {"Y", ""}}), "a 1 b");
  EXPECT_EQ(expand("F(3)", {{"F(x)", "x*2"}}), "3 * 2");
  EXPECT_EQ(expand("#if defined(X) && X == 2\nyes\n#endif", {{"X", "2"}}), "yes");
  EXPECT_FALSE(Diags.hasErrors());
  EXPECT_EQ(expand("V", {{"V", "multi\nline"}}), "multi line");
  EXPECT_EQ(expand("W", {{"W", "a\\"}, {"Z", "1"}}), "a");
  EXPECT_EQ(Diags.numErrors(), 1u); // the stray backslash, not a spliced line
}

TEST_F(PPTest, CommandLineDefineErrors) {
  run("x", {{"1X", "2"}});
  EXPECT_EQ(firstDiag(), "tritonc: error: invalid macro name '1X' in -D option");
  SourceManager SM2;
  DiagnosticEngine D2(SM2);
  PreprocessorOptions Opts;
  Opts.Defines = {{"X", "0x"}};
  preprocess(SM2, SM2.addBuffer("main.tc", "X"), Opts, D2);
  EXPECT_EQ(D2.formatAll(), "<command line>:1:11: error: hexadecimal literal has no digits\n"
                            "  #define X 0x\n"
                            "            ^~\n");
}

TEST_F(PPTest, ExpansionLocations) {
  run("\nfoo(SHAPE_A);\n#define OUTER INNER\n#define INNER 7\nx = OUTER;\n"
      "#define ID(v) v\n  ID(abc)",
      {{"SHAPE_A", "TM,TK"}});
  const Token &TM = tok("TM");
  EXPECT_EQ(SM.getName(TM.Loc.File), "<command line>");
  EXPECT_EQ(TM.Loc.Line, 1u);
  EXPECT_EQ(TM.Loc.Col, 17u);
  EXPECT_EQ(SM.getName(TM.ExpansionLoc.File), "main.tc");
  EXPECT_EQ(TM.ExpansionLoc.Line, 2u);
  EXPECT_EQ(TM.ExpansionLoc.Col, 5u);
  EXPECT_EQ(tok("TK").Loc.Col, 20u);
  EXPECT_EQ(tok("TK").ExpansionLoc, TM.ExpansionLoc);
  // Nested expansion: spelled in INNER's definition, used at OUTER.
  const Token &Seven = tok("7");
  EXPECT_EQ(Seven.Loc.Line, 4u);
  EXPECT_EQ(Seven.Loc.Col, 15u);
  EXPECT_EQ(Seven.ExpansionLoc.Line, 5u);
  EXPECT_EQ(Seven.ExpansionLoc.Col, 5u);
  EXPECT_EQ(Seven.diagLoc(), Seven.ExpansionLoc);
  // Macro arguments written in the file keep their own location.
  const Token &Abc = tok("abc");
  EXPECT_EQ(Abc.Loc.Line, 7u);
  EXPECT_EQ(Abc.Loc.Col, 6u);
  EXPECT_FALSE(Abc.ExpansionLoc.isValid());
  EXPECT_TRUE(Abc.AtStartOfLine); // inherits the flags of the macro name
  // Tokens outside macros have no expansion location.
  EXPECT_FALSE(tok("foo").ExpansionLoc.isValid());
}

TEST_F(PPTest, TokensToStringKeepsLines) {
  EXPECT_EQ(run("int a;\n  b = c+d;\n#define E\nE x\n#define P +\n+P y\n"),
            "int a;\nb = c+d;\nx\n+ + y\n");
  EXPECT_EQ(run("#define F(a) a.5\nF(1)"), "1 .5\n");
  EXPECT_EQ(run(""), "");
}

struct PPErrorCase {
  const char *Source;
  const char *Expected; ///< First line of the first diagnostic.
};

class PPErrorTest : public PPTest, public ::testing::WithParamInterface<PPErrorCase> {};

TEST_P(PPErrorTest, Reports) {
  run(GetParam().Source);
  EXPECT_EQ(firstDiag(), GetParam().Expected) << Diags.formatAll();
  EXPECT_TRUE(Diags.hasErrors());
}

INSTANTIATE_TEST_SUITE_P(
    Errors, PPErrorTest,
    ::testing::Values(
        PPErrorCase{"#if 1\nx", "main.tc:1:1: error: unterminated #if (missing #endif)"},
        PPErrorCase{"x\n  #ifdef X\n", "main.tc:2:3: error: unterminated #ifdef (missing #endif)"},
        PPErrorCase{"#ifndef X\n#if 0\n#endif\n",
                    "main.tc:1:1: error: unterminated #ifndef (missing #endif)"},
        PPErrorCase{"#else", "main.tc:1:1: error: #else without #if"},
        PPErrorCase{"#endif", "main.tc:1:1: error: #endif without #if"},
        PPErrorCase{"#elif 1", "main.tc:1:1: error: #elif without #if"},
        PPErrorCase{"#if 1\n#else\n#elif 1\n#endif", "main.tc:3:1: error: #elif after #else"},
        PPErrorCase{"#if 1\n#else\n#else\n#endif", "main.tc:3:1: error: #else after #else"},
        PPErrorCase{"#define", "main.tc:1:2: error: missing macro name in #define"},
        PPErrorCase{"#define 3 x", "main.tc:1:9: error: macro name must be an identifier"},
        PPErrorCase{"#undef", "main.tc:1:2: error: missing macro name in #undef"},
        PPErrorCase{"#undef \"x\"", "main.tc:1:8: error: macro name must be an identifier"},
        PPErrorCase{"#ifdef\n#endif", "main.tc:1:2: error: missing macro name in #ifdef"},
        PPErrorCase{"#ifndef 1\n#endif", "main.tc:1:9: error: macro name must be an identifier"},
        PPErrorCase{"#define defined 1",
                    "main.tc:1:9: error: 'defined' cannot be used as a macro name"},
        PPErrorCase{"#define F(a, a) a", "main.tc:1:14: error: duplicate macro parameter 'a'"},
        PPErrorCase{"#define F(a b) a",
                    "main.tc:1:13: error: expected ',' or ')' in macro parameter list"},
        PPErrorCase{"#define F(1) a", "main.tc:1:11: error: expected parameter name in macro "
                                      "parameter list, found '1'"},
        PPErrorCase{"#define F(a", "main.tc:1:12: error: missing ')' in macro parameter list"},
        PPErrorCase{"#define F(..., b)",
                    "main.tc:1:14: error: expected ')' after '...' in macro parameter list"},
        PPErrorCase{"#define F(a) #b",
                    "main.tc:1:14: error: '#' is not followed by a macro parameter"},
        PPErrorCase{"#define F ## a",
                    "main.tc:1:11: error: '##' cannot appear at either end of a macro expansion"},
        PPErrorCase{"#define F(a) a ##",
                    "main.tc:1:16: error: '##' cannot appear at either end of a macro expansion"},
        PPErrorCase{"#define F(a,b) a\nF(1)",
                    "main.tc:2:1: error: macro 'F' requires 2 arguments, but 1 was given"},
        PPErrorCase{"#define F(a) a\nx = F(1,2);",
                    "main.tc:2:5: error: macro 'F' requires 1 argument, but 2 were given"},
        PPErrorCase{"#define F(a, b, ...) a\nF(1)",
                    "main.tc:2:1: error: macro 'F' requires at least 2 arguments, but 1 was given"},
        PPErrorCase{"#define G() 1\nG(2)",
                    "main.tc:2:1: error: macro 'G' requires 0 arguments, but 1 was given"},
        PPErrorCase{"#define F(a) a\n  F(1, (2)\n",
                    "main.tc:2:3: error: unterminated argument list invoking macro 'F'"},
        PPErrorCase{"#include \"nope.h\"", "main.tc:1:10: error: 'nope.h' file not found"},
        PPErrorCase{"#include <nope.h>", "main.tc:1:10: error: 'nope.h' file not found"},
        PPErrorCase{"#include",
                    "main.tc:1:2: error: expected \"FILENAME\" or <FILENAME> after #include"},
        PPErrorCase{"#include nope.h",
                    "main.tc:1:10: error: expected \"FILENAME\" or <FILENAME> after #include"},
        PPErrorCase{"#include \"\"", "main.tc:1:10: error: empty filename in #include"},
        PPErrorCase{"#if 1/0\n#endif",
                    "main.tc:1:6: error: division by zero in preprocessor expression"},
        PPErrorCase{"#define Z 0\n#if 1 % Z\n#endif",
                    "main.tc:2:7: error: remainder by zero in preprocessor expression"},
        PPErrorCase{"#if 0\n#elif 4 / (2 - 2)\n#endif",
                    "main.tc:2:9: error: division by zero in preprocessor expression"},
        PPErrorCase{"#if 1 +\n#endif",
                    "main.tc:1:8: error: expected value at end of preprocessor expression"},
        PPErrorCase{"#if\n#endif", "main.tc:1:2: error: #if with no expression"},
        PPErrorCase{"#if 0\n#elif\n#endif", "main.tc:2:2: error: #elif with no expression"},
        PPErrorCase{"#if 1 2\n#endif", "main.tc:1:7: error: unexpected '2' in preprocessor "
                                       "expression"},
        PPErrorCase{"#if X = 1\n#endif", "main.tc:1:7: error: unexpected '=' in preprocessor "
                                         "expression"},
        PPErrorCase{"#if (1\n#endif",
                    "main.tc:1:7: error: expected ')' in preprocessor expression"},
        PPErrorCase{"#if 1 ? 2\n#endif",
                    "main.tc:1:10: error: expected ':' in preprocessor expression"},
        PPErrorCase{"#if 1.5\n#endif",
                    "main.tc:1:5: error: floating-point literal in preprocessor expression"},
        PPErrorCase{"#if defined\n#endif",
                    "main.tc:1:12: error: expected macro name after 'defined'"},
        PPErrorCase{"#if defined(X\n#endif", "main.tc:1:14: error: expected ')' after 'defined(X'"},
        PPErrorCase{"#if \"s\"\n#endif", "main.tc:1:5: error: expected value in preprocessor "
                                         "expression, found '\"s\"'"},
        PPErrorCase{"#if @\n#endif", "main.tc:1:5: error: expected value in preprocessor "
                                     "expression, found '@'"},
        PPErrorCase{"#if 99999999999999999999\n#endif",
                    "main.tc:1:5: error: integer literal '99999999999999999999' is too large"},
        PPErrorCase{"#if 0x\n#endif", "main.tc:1:5: error: hexadecimal literal has no digits"},
        PPErrorCase{"#define C(a,b) a##b\nC(+,-)",
                    "main.tc:2:1: error: pasting '+' and '-' does not give a valid token"},
        PPErrorCase{"#foo bar", "main.tc:1:2: error: invalid preprocessing directive '#foo'"},
        PPErrorCase{"# 42", "main.tc:1:3: error: invalid preprocessing directive '#42'"},
        PPErrorCase{"#error", "main.tc:1:1: error: #error"},
        PPErrorCase{"#if 1\n#error bad config\n#endif", "main.tc:2:1: error: #error bad config"},
        PPErrorCase{"#if 1\n$\n#endif", "main.tc:2:1: error: invalid character '$' in source"}));

TEST_F(PPTest, ArgumentCountErrorHasNote) {
  run("#define F(a,b) a\nF(1)");
  EXPECT_EQ(Diags.formatAll(),
            "main.tc:2:1: error: macro 'F' requires 2 arguments, but 1 was given\n"
            "  F(1)\n"
            "  ^\n"
            "main.tc:1:9: note: macro 'F' defined here\n"
            "  #define F(a,b) a\n"
            "          ^\n");
}

TEST_F(PPTest, ElifAfterElseHasNote) {
  run("#if 1\n#else\n#elif 1\n#endif");
  ASSERT_EQ(Diags.diagnostics().size(), 1u);
  ASSERT_EQ(Diags.diagnostics()[0].Notes.size(), 1u);
  EXPECT_EQ(Diags.diagnostics()[0].Notes[0].Range.Begin.Line, 2u);
}

TEST_F(PPTest, ErrorInsideMacroPointsAtUse) {
  run("#define D 1/0\n#if D\n#endif");
  EXPECT_EQ(firstDiag(), "main.tc:2:5: error: division by zero in preprocessor expression");
}

/// Creates files in a fresh temporary directory.
class PPIncludeTest : public PPTest {
protected:
  fs::path Dir;
  void SetUp() override {
    Dir = fs::temp_directory_path() /
          ("tritonc-pp-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(Dir);
    fs::create_directories(Dir);
  }
  void TearDown() override { fs::remove_all(Dir); }
  std::string write(const std::string &Rel, const std::string &Text) {
    fs::path P = Dir / Rel;
    fs::create_directories(P.parent_path());
    std::ofstream(P) << Text;
    return P.string();
  }
  std::string runPath(const std::string &Path, const DefineList &D = {},
                      const std::vector<std::string> &Inc = {}) {
    std::optional<FileId> F = SM.addFile(Path);
    EXPECT_TRUE(F.has_value());
    return runFile(*F, D, Inc);
  }
};

TEST_F(PPIncludeTest, RelativeThenIncludeDirs) {
  write("sub/a.h", "a_begin\n#include \"b.h\"\na_end\n");
  write("sub/b.h", "b_in_sub\n");
  write("inc/b.h", "b_in_inc\n");
  write("inc/c.h", "#define C_VALUE 3\nc\n");
  write("inc/only_inc.h", "only_inc\n");
  std::string Main = write("main.tc", "#include \"sub/a.h\"\n#include <c.h>\n#include "
                                      "\"only_inc.h\"\n#include <b.h>\nC_VALUE\n");
  EXPECT_EQ(runPath(Main, {}, {(Dir / "inc").string()}),
            "a_begin\nb_in_sub\na_end\nc\nonly_inc\nb_in_inc\n3\n");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  // Locations of included tokens name the included file.
  EXPECT_EQ(SM.getName(tok("b_in_sub").Loc.File), (Dir / "sub/b.h").string());
  EXPECT_EQ(tok("b_in_sub").Loc.Line, 1u);
}

TEST_F(PPIncludeTest, AngledIncludeDoesNotSearchCurrentDir) {
  write("here.h", "here\n");
  std::string Main = write("main.tc", "#include <here.h>\n");
  runPath(Main);
  EXPECT_EQ(firstDiag(), Main + ":1:10: error: 'here.h' file not found");
}

TEST_F(PPIncludeTest, IncludeViaMacroAndGuards) {
  write("g.h", "#ifndef G_H\n#define G_H\nguarded\n#endif\n");
  write("o.h", "#pragma once\nonce\n");
  std::string Main = write("main.tc", "#define HDR \"g.h\"\n#include HDR\n#include \"g.h\"\n"
                                      "#include \"o.h\"\n#include \"o.h\"\nend\n");
  EXPECT_EQ(runPath(Main), "guarded\nonce\nend\n");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
}

TEST_F(PPIncludeTest, SelfIncludeStopsAtDepthLimit) {
  std::string Main = write("self.tc", "#include \"self.tc\"\n#include \"self.tc\"\nx\n");
  runPath(Main);
  EXPECT_EQ(Diags.numErrors(), 1u);
  EXPECT_EQ(firstDiag(), Main + ":1:10: error: #include nested too deeply (more than 200 levels)");
}

TEST_F(PPIncludeTest, ConditionalsDoNotCrossFiles) {
  write("open.h", "#if 1\n");
  write("close.h", "#endif\n");
  std::string Main = write("main.tc", "#include \"open.h\"\n#if 1\n#include \"close.h\"\n#endif\n");
  runPath(Main);
  std::string All = Diags.formatAll();
  EXPECT_NE(All.find((Dir / "open.h").string() + ":1:1: error: unterminated #if"),
            std::string::npos)
      << All;
  EXPECT_NE(All.find((Dir / "close.h").string() + ":1:1: error: #endif without #if"),
            std::string::npos)
      << All;
}

TEST(TuningSpaceTest, NoLists) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  DefineList D = {{"TYPE", "half"}, {"X", "x[0]"}, {"Y", "a[1],b[2]"}, {"Z", ""}};
  ASSERT_TRUE(TS.init(D, Diags));
  EXPECT_EQ(TS.size(), 1u);
  EXPECT_TRUE(TS.lists().empty());
  EXPECT_EQ(TS.configuration(0), D);
}

TEST(TuningSpaceTest, CrossProductLastListFastest) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  ASSERT_TRUE(TS.init({{"TM", "[32, 64, 128]"}, {"TYPE", "half"}, {"TK", " [ 8 ,16 ] "}}, Diags));
  EXPECT_FALSE(Diags.hasErrors());
  ASSERT_EQ(TS.size(), 6u);
  ASSERT_EQ(TS.lists().size(), 2u);
  EXPECT_EQ(TS.lists()[0].first, "TM");
  EXPECT_EQ(TS.lists()[0].second, (std::vector<std::string>{"32", "64", "128"}));
  EXPECT_EQ(TS.lists()[1].second, (std::vector<std::string>{"8", "16"}));
  const char *Expected[6][2] = {{"32", "8"},  {"32", "16"}, {"64", "8"},
                                {"64", "16"}, {"128", "8"}, {"128", "16"}};
  for (size_t I = 0; I < 6; ++I) {
    DefineList C = TS.configuration(I);
    EXPECT_EQ(C, (DefineList{{"TM", Expected[I][0]}, {"TYPE", "half"}, {"TK", Expected[I][1]}}))
        << I;
  }
  EXPECT_THROW(TS.configuration(6), InternalError);
}

TEST(TuningSpaceTest, NestedEntries) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  ASSERT_TRUE(TS.init({{"S", "[(1, 2), x[0], [a,b]]"}, {"T", "[float]"}}, Diags));
  EXPECT_EQ(TS.lists()[0].second, (std::vector<std::string>{"(1, 2)", "x[0]", "[a,b]"}));
  EXPECT_EQ(TS.size(), 3u);
  EXPECT_EQ(TS.configuration(2), (DefineList{{"S", "[a,b]"}, {"T", "float"}}));
}

class TuningSpaceErrorTest : public ::testing::TestWithParam<const char *> {};

TEST_P(TuningSpaceErrorTest, MalformedList) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  EXPECT_FALSE(TS.init({{"A", "[1, 2]"}, {"TM", GetParam()}}, Diags));
  EXPECT_EQ(Diags.numErrors(), 1u);
  // A failed init leaves an empty space, not a half-built one.
  EXPECT_EQ(TS.size(), 1u);
  EXPECT_TRUE(TS.lists().empty());
}

INSTANTIATE_TEST_SUITE_P(Malformed, TuningSpaceErrorTest,
                         ::testing::Values("[32,", "[]", "[ ]", "[32,,64]", "[,32]", "[32,]",
                                           "[32]]", "[32] x", "[32", "[[32]", "[32)"));

TEST(TuningSpaceTest, ErrorMessage) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  EXPECT_FALSE(TS.init({{"TM", "[32,"}, {"TN", "[32,,64]"}, {"TK", "[]"}}, Diags));
  EXPECT_EQ(Diags.formatAll(),
            "tritonc: error: malformed tuning list -DTM=[32,: missing ']' (expected [v1, v2, "
            "...])\n"
            "tritonc: error: malformed tuning list -DTN=[32,,64]: entry 2 is empty (expected [v1, "
            "v2, ...])\n"
            "tritonc: error: malformed tuning list -DTK=[]: the list is empty (expected [v1, v2, "
            "...])\n");
}

TEST(TuningSpaceTest, ReinitResets) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  TuningSpace TS;
  ASSERT_TRUE(TS.init({{"TM", "[1,2]"}}, Diags));
  ASSERT_TRUE(TS.init({{"TN", "[1,2,3]"}}, Diags));
  EXPECT_EQ(TS.size(), 3u);
  EXPECT_EQ(TS.lists().size(), 1u);
}

} // namespace
