//===- ParserTest.cpp - Triton-C parser tests -----------------------------===//
#include "tritonc/lang/Parser.h"
#include "tritonc/lang/Preprocessor.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

using namespace tritonc;
using namespace tritonc::ast;

namespace {

/// The bundled kernels' folder, from CMake (not from __FILE__, which a compiler
/// cache may have made relative to another folder).
std::string kernelsDir() { return TRITONC_KERNELS_DIR; }

class ParserTest : public ::testing::Test {
protected:
  SourceManager SM;
  DiagnosticEngine Diags{SM};
  std::vector<Token> Toks;
  std::unique_ptr<TranslationUnit> TU;

  /// Preprocesses and parses Src (named t.tc); returns the AST dump.
  std::string parse(const std::string &Src, const DefineList &Defines = {}) {
    PreprocessorOptions Opts;
    Opts.Defines = Defines;
    Toks = preprocess(SM, SM.addBuffer("t.tc", Src), Opts, Diags);
    TU = parseTranslationUnit(Toks, Diags);
    return dumpAST(*TU);
  }

  /// Parses `void f() { Src; }` and returns the dump of the expression.
  std::string expr(const std::string &Src) {
    parse("void f() {\n" + Src + ";\n}");
    EXPECT_FALSE(Diags.hasErrors()) << Src << "\n" << Diags.formatAll();
    const Stmt *S = firstStmt();
    if (!S || !S->as<ExprStmt>() || !S->as<ExprStmt>()->E)
      return "<no expression>";
    return dumpExpr(*S->as<ExprStmt>()->E);
  }

  /// The first statement of the first function body.
  const Stmt *firstStmt() const {
    if (!TU || TU->Functions.empty() || !TU->Functions[0]->Body ||
        TU->Functions[0]->Body->Body.empty())
      return nullptr;
    return TU->Functions[0]->Body->Body[0].get();
  }

  /// Parses `void f() { Src }` and returns the body's dump lines (without
  /// the function line).
  std::string body(const std::string &Src, const DefineList &Defines = {}) {
    std::string D = parse("void f() {\n" + Src + "\n}", Defines);
    EXPECT_FALSE(Diags.hasErrors()) << Src << "\n" << Diags.formatAll();
    return D;
  }

  /// "line:col: message" of every error, one per line.
  std::string errors() const {
    std::string S;
    for (const Diagnostic &D : Diags.diagnostics())
      S += std::to_string(D.Range.Begin.Line) + ":" + std::to_string(D.Range.Begin.Col) + ": " +
           D.Message + "\n";
    return S;
  }
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(expr("a + b * c"), "(+ a (* b c))");
  EXPECT_EQ(expr("a * b + c"), "(+ (* a b) c)");
  EXPECT_EQ(expr("a - b - c"), "(- (- a b) c)");
  EXPECT_EQ(expr("a / b % c * d"), "(* (% (/ a b) c) d)");
  EXPECT_EQ(expr("(a + b) * c"), "(* (+ a b) c)");
  EXPECT_EQ(expr("a << 1 + b"), "(<< a (+ 1 b))");
  EXPECT_EQ(expr("a < b == c > d"), "(== (< a b) (> c d))");
  EXPECT_EQ(expr("a || b && c | d ^ e & f == g"), "(|| a (&& b (| c (^ d (& e (== f g))))))");
  EXPECT_EQ(expr("a, b = c, d"), "(, (, a (= b c)) d)");
}

TEST_F(ParserTest, AssignmentIsRightAssociative) {
  EXPECT_EQ(expr("a = b = c"), "(= a (= b c))");
  EXPECT_EQ(expr("a += b * c"), "(+= a (* b c))");
  EXPECT_EQ(expr("a -= b"), "(-= a b)");
  EXPECT_EQ(expr("a <<= b >>= 2"), "(<<= a (>>= b 2))");
  EXPECT_EQ(expr("a %= b |= c ^= d &= e /= f *= g"), "(%= a (|= b (^= c (&= d (/= e (*= f g))))))");
}

TEST_F(ParserTest, ConditionalIsRightAssociative) {
  EXPECT_EQ(expr("a ? b : c ? d : e"), "(? a b (? c d e))");
  EXPECT_EQ(expr("x = c ? *p : 0"), "(= x (? c (deref p) 0))");
  EXPECT_EQ(expr("m = (m == 0) ? -INFINITY : 0"), "(= m (? (== m 0) (- INFINITY) 0))");
}

TEST_F(ParserTest, MatrixProductHasMultiplicativePrecedence) {
  EXPECT_EQ(expr("c += a @ b"), "(+= c (@ a b))");
  EXPECT_EQ(expr("a @ b + c"), "(+ (@ a b) c)");
  EXPECT_EQ(expr("a * b @ c"), "(@ (* a b) c)");
  EXPECT_EQ(expr("a @ b * c"), "(* (@ a b) c)");
  EXPECT_EQ(expr("(*pa) @ (*pb)"), "(@ (deref pa) (deref pb))");
}

TEST_F(ParserTest, CaretIsTransposeInPrefixPosition) {
  EXPECT_EQ(expr("^a"), "(trans a)");
  EXPECT_EQ(expr("a @ ^b"), "(@ a (trans b))");
  EXPECT_EQ(expr("^a @ b"), "(@ (trans a) b)");
  EXPECT_EQ(expr("a ^ b"), "(^ a b)");
  EXPECT_EQ(expr("a ^ ^b"), "(^ a (trans b))");
  EXPECT_EQ(expr("*py = ^(*px)"), "(= (deref py) (trans (deref px)))");
}

TEST_F(ParserTest, RangeBindsTighterThanArithmetic) {
  EXPECT_EQ(expr("0 ... TM"), "(... 0 TM)");
  EXPECT_EQ(expr("pid * TM + 0 ... TM"), "(+ (* pid TM) (... 0 TM))");
  EXPECT_EQ(expr("2 * 0 ... 4"), "(* 2 (... 0 4))");
  EXPECT_EQ(expr("-1 ... n"), "(... (- 1) n)");
  EXPECT_EQ(expr("a < 0 ... 4"), "(< a (... 0 4))");
  EXPECT_EQ(expr("(int)a ... b"), "(... (cast int a) b)");
}

TEST_F(ParserTest, RangesDoNotChain) {
  parse("void f() { x = 0 ... 4 ... 8; }");
  EXPECT_EQ(errors(), "1:24: ranges cannot be chained: 'lo ... hi' takes exactly two bounds\n");
}

TEST_F(ParserTest, UnaryOperators) {
  EXPECT_EQ(expr("-a * b"), "(* (- a) b)");
  EXPECT_EQ(expr("!a && ~b"), "(&& (! a) (~ b))");
  EXPECT_EQ(expr("+a"), "(+ a)");
  EXPECT_EQ(expr("*p + 1"), "(+ (deref p) 1)");
  EXPECT_EQ(expr("*(p + 1)"), "(deref (+ p 1))");
  EXPECT_EQ(expr("&x"), "(addr x)");
  EXPECT_EQ(expr("++i + i++"), "(+ (pre++ i) (post++ i))");
  EXPECT_EQ(expr("--i - i--"), "(- (pre-- i) (post-- i))");
  EXPECT_EQ(expr("- -a"), "(- (- a))");
  EXPECT_EQ(expr("**pp"), "(deref (deref pp))");
}

TEST_F(ParserTest, MaskedDereference) {
  EXPECT_EQ(expr("x = *?(check)px"), "(= x (masked-deref check px))");
  EXPECT_EQ(expr("*?(m) p = v"), "(= (masked-deref m p) v)");
  EXPECT_EQ(expr("*?(in_bounds)py = *?(in_bounds)px"),
            "(= (masked-deref in_bounds py) (masked-deref in_bounds px))");
  EXPECT_EQ(expr("*?(checkc) pc = c + *?(checkc)pc"),
            "(= (masked-deref checkc pc) (+ c (masked-deref checkc pc)))");
  EXPECT_EQ(expr("*? (rm[:, newaxis] < M && rn [newaxis, :] < N) pc = acc"),
            "(= (masked-deref (&& (< (slice rm [:, newaxis]) M) (< (slice rn [newaxis, :]) N)) "
            "pc) acc)");
  EXPECT_EQ(expr("*?(checky)py = ^(*?(checkx)px)"),
            "(= (masked-deref checky py) (trans (masked-deref checkx px)))");
  EXPECT_EQ(expr("*?(m)(p + 1)"), "(masked-deref m (+ p 1))");
  EXPECT_EQ(expr("c ? *?(c)p : 0"), "(? c (masked-deref c p) 0)");
}

TEST_F(ParserTest, SlicesAndReductions) {
  EXPECT_EQ(expr("rm[:, newaxis]"), "(slice rm [:, newaxis])");
  EXPECT_EQ(expr("rn[newaxis, :]"), "(slice rn [newaxis, :])");
  EXPECT_EQ(expr("x[+]"), "(slice x [+])");
  EXPECT_EQ(expr("x[:, +]"), "(slice x [:, +])");
  EXPECT_EQ(expr("x[max]"), "(slice x [max])");
  EXPECT_EQ(expr("x[min]"), "(slice x [min])");
  EXPECT_EQ(expr("x[:, max]"), "(slice x [:, max])");
  EXPECT_EQ(expr("Fx - Fx[max]"), "(- Fx (slice Fx [max]))");
  EXPECT_EQ(expr("(check ? Fy : 0)[+]"), "(slice (? check Fy 0) [+])");
  EXPECT_EQ(expr("x[:, newaxis][newaxis, :, :]"), "(slice (slice x [:, newaxis]) [newaxis, :, :])");
  EXPECT_EQ(expr("max(mx, x[:, max])"), "(call max mx (slice x [:, max]))");
  EXPECT_EQ(expr("-x[+]"), "(- (slice x [+]))");
}

TEST_F(ParserTest, BadSliceItemsAreReportedAndSkipped) {
  parse("void f() {\n  y = x[0] + x[:, a + b] + x[max + 1];\n  z = q[];\n}");
  const char *M = "tile slicing only accepts ':', 'newaxis' or a reduction (+, max, min)";
  EXPECT_EQ(errors(),
            std::string("2:9: ") + M + "\n2:19: " + M + "\n2:30: " + M + "\n3:9: " + M + "\n");
  // The underline covers the whole bad item.
  ASSERT_GE(Diags.diagnostics().size(), 2u);
  EXPECT_EQ(Diags.diagnostics()[1].Range.End.Col, 24u);
}

TEST_F(ParserTest, LiteralsAndCalls) {
  EXPECT_EQ(expr("42"), "42");
  EXPECT_EQ(expr("0x10 + 010"), "(+ 16 8)");
  EXPECT_EQ(expr("7u + 7l + 7ul"), "(+ (+ 7u 7l) 7ul)");
  EXPECT_EQ(expr("1.5f + 2.0 + 1e3"), "(+ (+ 1.5f 2.0) 1000.0)");
  EXPECT_EQ(expr("'a'"), "97");
  EXPECT_EQ(expr("true || false"), "(|| true false)");
  EXPECT_EQ(expr("get_program_id(0)"), "(call get_program_id 0)");
  EXPECT_EQ(expr("atomic_cas(plock, 0, 1)"), "(call atomic_cas plock 0 1)");
  EXPECT_EQ(expr("f()"), "(call f)");
  EXPECT_EQ(expr("exp(Fx - Fx[max])"), "(call exp (- Fx (slice Fx [max])))");
}

TEST_F(ParserTest, Casts) {
  EXPECT_EQ(expr("(float)x"), "(cast float x)");
  EXPECT_EQ(expr("(const half*)p + 1"), "(+ (cast const half* p) 1)");
  EXPECT_EQ(expr("(unsigned long)-x"), "(cast unsigned long (- x))");
  EXPECT_EQ(expr("(int)(float)x"), "(cast int (cast float x))");
  EXPECT_EQ(expr("(x)"), "x");
}

TEST_F(ParserTest, IntegerLiteralTooLarge) {
  parse("void f() { x = 99999999999999999999; }");
  EXPECT_EQ(errors(), "1:16: integer literal '99999999999999999999' is too large\n");
}

//===----------------------------------------------------------------------===//
// Declarations and types
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, TileAndScalarDeclarations) {
  EXPECT_NE(
      body("int a[16], b[32, 16], c;").find("(decl int (var a [16]) (var b [32, 16]) (var c))"),
      std::string::npos);
  EXPECT_NE(body("TYPE* pa[TM, TK] = A + offa;", {{"TYPE", "half"}})
                .find("(decl half (var *pa [TM, TK] = (+ A offa)))"),
            std::string::npos);
  EXPECT_NE(body("int *p = x, **q;").find("(decl int (var *p = x) (var **q))"), std::string::npos);
  EXPECT_NE(body("int rm[TM] = pid * TM + 0 ... TM;")
                .find("(decl int (var rm [TM] = (+ (* pid TM) (... 0 TM))))"),
            std::string::npos);
  EXPECT_NE(body("float x[2 * TM, N / 2];").find("(var x [(* 2 TM), (/ N 2)])"), std::string::npos);
}

TEST_F(ParserTest, DeclaratorStarsBelongToTheDeclarator) {
  body("float *restrict p[4], q;");
  const DeclStmt *D = firstStmt()->as<DeclStmt>();
  ASSERT_TRUE(D);
  EXPECT_EQ(D->Type.PointerDepth, 0u);
  ASSERT_EQ(D->Decls.size(), 2u);
  EXPECT_EQ(D->Decls[0].ExtraPointerDepth, 1u);
  ASSERT_EQ(D->Decls[0].Attrs.size(), 1u);
  EXPECT_EQ(D->Decls[0].Attrs[0].K, Attribute::Restrict);
  EXPECT_EQ(D->Decls[1].ExtraPointerDepth, 0u);
  EXPECT_EQ(D->Decls[0].ShapeRange.Begin.Col, 18u);
  EXPECT_EQ(D->Decls[0].ShapeRange.End.Col, 21u);
}

TEST_F(ParserTest, BaseTypes) {
  std::vector<std::pair<std::string, std::string>> Cases = {
      {"unsigned", "unsigned int"},
      {"unsigned int", "unsigned int"},
      {"long long", "long"},
      {"long", "long"},
      {"unsigned long long", "unsigned long"},
      {"signed char", "char"},
      {"unsigned char", "unsigned char"},
      {"short int", "short"},
      {"unsigned short", "unsigned short"},
      {"signed", "int"},
      {"half", "half"},
      {"bfloat16", "bfloat16"},
      {"double", "double"},
      {"bool", "bool"},
      {"const float", "const float"},
      {"float const", "const float"},
      {"long int", "long"},
  };
  for (const auto &[Spelling, Expected] : Cases) {
    SourceManager LocalSM;
    DiagnosticEngine LocalDiags(LocalSM);
    auto Toks = preprocess(LocalSM, LocalSM.addBuffer("t.tc", "void f() { " + Spelling + " x; }"),
                           {}, LocalDiags);
    auto Tree = parseTranslationUnit(Toks, LocalDiags);
    EXPECT_FALSE(LocalDiags.hasErrors()) << Spelling;
    EXPECT_NE(dumpAST(*Tree).find("(decl " + Expected + " (var x))"), std::string::npos)
        << Spelling;
  }
}

TEST_F(ParserTest, InvalidTypeCombinations) {
  parse("void f() {\n  unsigned float a;\n  long short b;\n  int int c;\n  long long long d;\n"
        "  float double e;\n  signed unsigned g;\n  int ok;\n}");
  EXPECT_EQ(errors(), "2:3: invalid combination of type specifiers\n"
                      "3:3: invalid combination of type specifiers\n"
                      "4:3: invalid combination of type specifiers\n"
                      "5:3: invalid combination of type specifiers\n"
                      "6:3: invalid combination of type specifiers\n"
                      "7:3: invalid combination of type specifiers\n");
}

TEST_F(ParserTest, NestedArrayDeclaratorIsRejected) {
  parse("void f() { int x[4][4]; int y; }");
  EXPECT_EQ(errors(), "1:20: tiles are declared as 'name[d0, d1]', not 'name[d0][d1]'\n");
  EXPECT_NE(dumpAST(*TU).find("(decl int (var y))"), std::string::npos);
}

TEST_F(ParserTest, EmptyTileShape) {
  parse("void f() { int x[] = 0; }");
  EXPECT_EQ(errors(), "1:17: a tile shape needs at least one dimension\n");
}

//===----------------------------------------------------------------------===//
// Functions and parameters
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, ParametersWithAttributesInAnyOrder) {
  std::string D = parse("__global__ void transpose(float *X __noalias __readonly __aligned(16),\n"
                        "  float* Y __aligned(4 * 4) __writeonly __noalias,\n"
                        "  int M __multipleof(8), const int N, float *restrict Z,\n"
                        "  double **W restrict) {}");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  EXPECT_EQ(D, "(function __global__ void transpose\n"
               "  (param float* X __noalias __readonly __aligned(16))\n"
               "  (param float* Y __aligned(16) __writeonly __noalias)\n"
               "  (param int M __multipleof(8))\n"
               "  (param const int N)\n"
               "  (param float* restrict Z)\n"
               "  (param double** restrict W)\n"
               "  (compound))\n");
  const FunctionDecl &F = *TU->Functions[0];
  ASSERT_EQ(F.Params.size(), 6u);
  EXPECT_EQ(F.Params[0].Attrs[2].K, Attribute::Aligned);
  EXPECT_EQ(F.Params[0].Attrs[2].Value, 16);
  EXPECT_EQ(F.Params[0].Attrs[2].Range.Begin.Col, 57u);
  EXPECT_EQ(F.Params[0].Attrs[2].Range.End.Col, 70u);
  EXPECT_EQ(F.Params[2].Attrs[0].K, Attribute::MultipleOf);
  EXPECT_EQ(F.Params[2].Attrs[0].Value, 8);
  EXPECT_TRUE(F.Params[4].Type.IsRestrict);
  EXPECT_EQ(F.Params[4].Attrs.size(), 1u);
  EXPECT_EQ(F.Params[0].NameRange.Begin.Col, 34u);
  EXPECT_EQ(F.Params[0].Range.Begin.Col, 27u);
}

TEST_F(ParserTest, AttributeArgumentsMustBePositiveConstants) {
  parse("void f(int a __multipleof(N), int b __aligned(0), int c __multipleof(2 - 5),\n"
        "       int d __multipleof(1 << 3 ? 8 : 2), int e __aligned(16 / 0)) {}");
  EXPECT_EQ(errors(), "1:27: argument of '__multipleof' must be an integer constant expression\n"
                      "1:47: argument of '__aligned' must be positive (it is 0)\n"
                      "1:70: argument of '__multipleof' must be positive (it is -3)\n"
                      "2:60: argument of '__aligned' must be an integer constant expression\n");
  EXPECT_EQ(TU->Functions[0]->Params[3].Attrs[0].Value, 8);
}

TEST_F(ParserTest, DeclarationsWithoutBodyAndVoidParams) {
  std::string D = parse("void f(void);\nvoid g();\n;\nint *h(int x) { return x; }");
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  EXPECT_EQ(D, "(function void f)\n(function void g)\n"
               "(function int* h\n  (param int x)\n  (compound\n    (return x)))\n");
  EXPECT_EQ(TU->Functions[0]->Body, nullptr);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, AllStatements) {
  std::string D = body("for (int k = K; k > 0; k -= TK) { acc += a @ b; }\n"
                       "for (i = 0; i < n; i++) ;\n"
                       "for (;;) break;\n"
                       "while (x) { continue; }\n"
                       "do x--; while (x > 0);\n"
                       "if (a) b = 1; else if (c) b = 2; else { b = 3; }\n"
                       "{ ; }\n"
                       "return;\n"
                       "return x + 1;");
  EXPECT_EQ(D, "(function void f\n"
               "  (compound\n"
               "    (for (decl int (var k = K)) (> k 0) (-= k TK)\n"
               "      (compound\n"
               "        (expr (+= acc (@ a b)))))\n"
               "    (for (expr (= i 0)) (< i n) (post++ i)\n"
               "      (null))\n"
               "    (for () () ()\n"
               "      (break))\n"
               "    (while x\n"
               "      (compound\n"
               "        (continue)))\n"
               "    (do-while (> x 0)\n"
               "      (expr (post-- x)))\n"
               "    (if a\n"
               "      (expr (= b 1))\n"
               "      (if c\n"
               "        (expr (= b 2))\n"
               "        (compound\n"
               "          (expr (= b 3)))))\n"
               "    (compound\n"
               "      (null))\n"
               "    (return)\n"
               "    (return (+ x 1))))\n");
}

TEST_F(ParserTest, DanglingElseBindsToInnerIf) {
  EXPECT_NE(body("if (a) if (b) x; else y;")
                .find("(if a\n      (if b\n        (expr x)\n"
                      "        (expr y)))"),
            std::string::npos);
}

TEST_F(ParserTest, SpinLockLoopWithEmptyBody) {
  EXPECT_NE(body("for(int repeat = 1; repeat == 1; repeat = atomic_cas(plock, 0, 1));")
                .find("(for (decl int (var repeat = 1)) (== repeat 1) (= repeat (call atomic_cas "
                      "plock 0 1))\n      (null))"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Source ranges
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, ExpressionRanges) {
  parse("void f() {\n  acc += a @ ^b;\n  x = (p + 1)[+];\n}");
  ASSERT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  auto &Body = TU->Functions[0]->Body->Body;
  const auto *A = Body[0]->as<ExprStmt>()->E->as<AssignExpr>();
  ASSERT_TRUE(A);
  EXPECT_EQ(A->Range.Begin.Line, 2u);
  EXPECT_EQ(A->Range.Begin.Col, 3u);
  EXPECT_EQ(A->Range.End.Col, 16u);
  EXPECT_EQ(A->OpRange.Begin.Col, 7u);
  EXPECT_EQ(A->OpRange.End.Col, 9u);
  const auto *Dot = A->Value->as<BinaryExpr>();
  ASSERT_TRUE(Dot);
  EXPECT_EQ(Dot->Range.Begin.Col, 10u);
  EXPECT_EQ(Dot->OpRange.Begin.Col, 12u);
  const auto *T = Dot->RHS->as<UnaryExpr>();
  ASSERT_TRUE(T);
  EXPECT_EQ(T->Op, UnaryOp::Transpose);
  EXPECT_EQ(T->Range.Begin.Col, 14u);
  EXPECT_EQ(T->Range.End.Col, 16u);
  EXPECT_EQ(T->OpRange.Begin.Col, 14u);
  EXPECT_EQ(Body[0]->Range.Begin.Col, 3u);
  const auto *S = Body[1]->as<ExprStmt>()->E->as<AssignExpr>()->Value->as<SubscriptExpr>();
  ASSERT_TRUE(S);
  EXPECT_EQ(S->Range.Begin.Col, 7u);
  EXPECT_EQ(S->Range.End.Col, 17u);
  EXPECT_EQ(S->Base->Range.Begin.Col, 7u); // parentheses included
  EXPECT_EQ(S->Base->Range.End.Col, 14u);
  ASSERT_EQ(S->Items.size(), 1u);
  EXPECT_EQ(S->Items[0].Range.Begin.Col, 15u);
  EXPECT_EQ(TU->Functions[0]->Range.Begin.Line, 1u);
  EXPECT_EQ(TU->Functions[0]->Range.End.Line, 4u);
  EXPECT_EQ(TU->Functions[0]->NameRange.Begin.Col, 6u);
}

TEST_F(ParserTest, RangesOfTokensFromMacrosPointAtTheMacroUse) {
  parse("#define SUM(a, b) (a + b)\nvoid f() { x = SUM(1, 2) * 3; }");
  ASSERT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  const auto *A = firstStmt()->as<ExprStmt>()->E->as<AssignExpr>();
  EXPECT_EQ(A->Value->Range.Begin.Line, 2u);
  EXPECT_EQ(A->Value->Range.Begin.Col, 16u);
}

//===----------------------------------------------------------------------===//
// Errors and recovery
//===----------------------------------------------------------------------===//

TEST_F(ParserTest, SeveralErrorsAreReportedInOneRun) {
  parse("void f() {\n"
        "  int a = 1 2;\n"
        "  b = ;\n"
        "  c = (d + 1;\n"
        "  e = f(1, 2;\n"
        "  if (x y) z = 1;\n"
        "  int ok = 3;\n"
        "}\n");
  EXPECT_EQ(errors(), "2:13: expected ';' after declaration, found integer literal '2'\n"
                      "3:7: expected expression, found ';'\n"
                      "4:13: expected ')' to match this '(', found ';'\n"
                      "5:13: expected ')' to match this '(', found ';'\n"
                      "6:9: expected ')' to match this '(', found identifier 'y'\n");
  // Notes point at the opening parenthesis.
  ASSERT_EQ(Diags.diagnostics()[2].Notes.size(), 1u);
  EXPECT_EQ(Diags.diagnostics()[2].Notes[0].Range.Begin.Col, 7u);
  EXPECT_EQ(Diags.diagnostics()[2].Notes[0].Message, "'(' opened here");
  // Parsing went on after each error.
  std::string D = dumpAST(*TU);
  EXPECT_NE(D.find("(if x\n      (expr (= z 1)))"), std::string::npos) << D;
  EXPECT_NE(D.find("(decl int (var ok = 3))"), std::string::npos) << D;
}

TEST_F(ParserTest, MissingSemicolonAtEndOfLineIsReportedAfterThePreviousToken) {
  parse("void f() {\n  x = 1\n  y = 2;\n  return\n}\n");
  EXPECT_EQ(errors(), "2:8: expected ';' after expression, found identifier 'y'\n"
                      "4:9: expected ';' after return statement, found '}'\n");
  EXPECT_NE(dumpAST(*TU).find("(expr (= y 2))"), std::string::npos);
}

TEST_F(ParserTest, MissingClosingBraceAtEndOfFile) {
  parse("void f() {\n  if (a) {\n    x = 1;\n");
  EXPECT_EQ(errors(), "3:11: expected '}' to match this '{', found end of file\n"
                      "3:11: expected '}' to match this '{', found end of file\n");
}

TEST_F(ParserTest, TopLevelErrors) {
  parse("int;\nx = 3;\nvoid (int a) {}\nvoid g(int a b) {}\nvoid h(int) {}\n}\nvoid ok() {}");
  EXPECT_EQ(errors(), "1:4: expected a function name, found ';'\n"
                      "2:1: expected a function definition, found identifier 'x'\n"
                      "3:6: expected a function name, found '('\n"
                      "4:14: expected ',' or ')' after a parameter, found identifier 'b'\n"
                      "5:11: expected a parameter name, found ')'\n"
                      "6:1: extraneous closing brace ('}')\n");
  ASSERT_FALSE(TU->Functions.empty());
  EXPECT_EQ(TU->Functions.back()->Name, "ok");
}

TEST_F(ParserTest, MiscStatementErrors) {
  parse("void f() {\n"
        "  else x;\n"
        "  do x; y;\n"
        "  for (int i = 0; i < 4 i++) {}\n"
        "  while x) {}\n"
        "  q = newaxis;\n"
        "  x = *?m p;\n"
        "  y = a ? b;\n"
        "  (f)(x);\n"
        "}\n");
  EXPECT_EQ(errors(), "2:3: 'else' without a matching 'if'\n"
                      "3:9: expected 'while' after the body of a 'do' loop, found identifier 'y'\n"
                      "4:25: expected ';' after the 'for' condition, found identifier 'i'\n"
                      "5:9: expected '(' after 'while', found identifier 'x'\n"
                      "6:7: 'newaxis' can only be used inside a subscript, as in 'x[:, newaxis]'\n"
                      "7:9: expected '(' after '*?', found identifier 'm'\n"
                      "8:12: expected ':' in the conditional expression, found ';'\n"
                      "9:6: only builtin functions can be called, by name\n");
}

TEST_F(ParserTest, ForHeaderErrorsSkipTheWholeHeader) {
  parse("void f() {\n"
        "  for (int = 0; i < n; i++) { x = 1; }\n"
        "  for (int i = 0 i < n; i++) y = 2;\n"
        "  for (i = 0; i < n; i++ { z = 3; }\n"
        "  for (i = 0; i < n; ) ) w = 4;\n"
        "  ok = 1;\n"
        "}\n");
  EXPECT_EQ(errors(), "2:12: expected a variable name, found '='\n"
                      "3:18: expected ';' after declaration, found identifier 'i'\n"
                      "4:26: expected ')' to match this '(', found '{'\n"
                      "5:24: expected expression, found ')'\n");
  std::string D = dumpAST(*TU);
  for (const char *S : {"(expr (= x 1))", "(expr (= y 2))", "(expr (= z 3))", "(expr (= ok 1))"})
    EXPECT_NE(D.find(S), std::string::npos) << S << "\n" << D;
}

TEST_F(ParserTest, StopsAtTheErrorLimit) {
  Diags.setErrorLimit(5);
  std::string Src = "void f() {\n";
  for (int I = 0; I < 100; ++I)
    Src += "  x = ;\n";
  Src += "}\n";
  parse(Src);
  EXPECT_EQ(Diags.numErrors(), 5u);
  EXPECT_EQ(Diags.diagnostics().size(), 5u);
}

TEST_F(ParserTest, DeepNestingIsAnErrorNotACrash) {
  std::string Src = "void f() { x = ";
  Src += std::string(100000, '(');
  Src += "1";
  Src += std::string(100000, ')');
  Src += "; ";
  Src += std::string(50000, '{');
  Src += "}";
  parse(Src);
  EXPECT_EQ(Diags.numErrors(), 1u) << errors();
  EXPECT_NE(errors().find("nested too deeply"), std::string::npos);
  SourceManager SM2;
  DiagnosticEngine D2(SM2);
  std::string Src2 = "void f() { " + std::string(50000, '{') + " }";
  auto T2 = preprocess(SM2, SM2.addBuffer("u.tc", Src2), {}, D2);
  parseTranslationUnit(T2, D2);
  EXPECT_EQ(D2.numErrors(), 1u);
  EXPECT_NE(D2.formatAll().find("nested too deeply"), std::string::npos);
}

TEST_F(ParserTest, EmptyInputs) {
  EXPECT_EQ(parse(""), "");
  EXPECT_FALSE(Diags.hasErrors());
  DiagnosticEngine D2(SM);
  auto Tree = parseTranslationUnit({}, D2);
  ASSERT_TRUE(Tree);
  EXPECT_TRUE(Tree->Functions.empty());
  std::vector<Token> NoEof(1);
  NoEof[0].Kind = TokenKind::kw_void;
  Tree = parseTranslationUnit(NoEof, D2);
  EXPECT_TRUE(D2.hasErrors());
}

//===----------------------------------------------------------------------===//
// Real programs
//===----------------------------------------------------------------------===//

/// The seed programs, with the OCR damage of the thesis listings repaired.
const char *SeedMatmul = R"(
void matmul(TYPE * A, TYPE * B, TYPE * C, float alpha, int M, int N, int K,
            int lda, int ldb, int ldc, int *locks) {
  int ridx = get_program_id(0);
  int ridy = get_program_id(1);
  int ridz = get_program_id(2);
  int rid = ridx + ridy * get_num_programs(0);
  K = K / TZ;
  int rm[TM] = ridx * TM + 0 ... TM;
  int rn[TN] = ridy * TN + 0 ... TN;
  int rk[TK] = ridz * TZ + 0 ... TK;
  int offa[TM, TK] = rk[newaxis, :] * STRIDE_AK + rm[:, newaxis] * STRIDE_AM;
  int offb[TK, TN] = rk[:, newaxis] * STRIDE_BK + rn[newaxis, :] * STRIDE_BN;
  TYPE* pa[TM, TK] = A + offa;
  TYPE* pb[TK, TN] = B + offb;
  bool checka[TM, TK] = rk[newaxis, :] < K;
  bool checkb[TK, TN] = rk[:, newaxis] < K;
  TYPE a[TM, TK] = checka ? *pa : 0;
  TYPE b[TK, TN] = checkb ? *pb : 0;
  float acc[TM, TN] = 0;
  for(int k = K; k > 0; k -= TK){
    acc += a @ b;
    bool checka[TM, TK] = k > TK;
    bool checkb[TK, TN] = k > TK;
    pa += TK * STRIDE_AK;
    pb += TK * STRIDE_BK;
    a = *?(checka)pa;
    b = *?(checkb)pb;
  }
  acc = acc * alpha;
  TYPE c[TM, TN] = acc;
  int rxm[TM] = get_program_id(0) * TM + 0 ... TM;
  int rxn[TN] = get_program_id(1) * TN + 0 ... TN;
  int offc[TM, TN] = rxm[:, newaxis] * ldc + rxn[newaxis, :];
  TYPE* pc[TM, TN] = C + offc;
  bool checkc[TM, TN] = (rxm[:, newaxis] < M) && (rxn[newaxis, :] < N);
#if (TZ==1)
  *?(checkc) pc = c;
#else
  int *plock = locks + rid;
  int *pcount = plock + get_num_programs(0) * get_num_programs(1);
  for(int repeat = 1; repeat == 1; repeat = atomic_cas(plock, 0, 1));
  int count = *pcount;
  if(count == 0)
    *?(checkc) pc = c;
  else
    *?(checkc) pc = c + *?(checkc)pc;
  atomic_xchg(pcount, (count + 1) % TZ);
  atomic_xchg(plock, 0);
#endif
}
)";

const char *SeedTranspose = R"(
void transpose(float * X __noalias __readonly __aligned(16),
               float* Y __noalias __writeonly __aligned(16),
               int M __multipleof(8), int N __multipleof(8)) {
  int pid0 = get_program_id(0);
  int pid1 = get_program_id(1);
  int rm[TM] = pid0 * TM + 0 ... TM;
  int rn[TN] = pid1 * TN + 0 ... TN;
  bool in_bounds[TM, TN] = rm[:, newaxis] < M && rn[newaxis, :] < N;
  float* px[TM, TN] = X + rm[:, newaxis] * 1 + rn[newaxis, :] * N;
  float* py[TM, TN] = Y + rm[:, newaxis] * N + rn[newaxis, :] * 1;
  *?(in_bounds)py = *?(in_bounds)px;
}
__global__ void transpose2(TYPE * X, TYPE * Y, int M, int N, int ldx, int ldy) {
  int pidm = get_program_id(0);
  int pidn = get_program_id(1);
  int rm[TM] = pidm * TM + 0 ... TM;
  int rn[TN] = pidn * TN + 0 ... TN;
  TYPE* px[TM, TN] = X + rm[:, newaxis] * ldx + rn[newaxis, :];
  TYPE* py[TN, TM] = Y + rm[newaxis, :] + rn[:, newaxis] * ldy;
  bool checkx[TM, TN] = (rm[:, newaxis] < M) && (rn[newaxis, :] < N);
  bool checky[TN, TM] = (rm[newaxis, :] < M) && (rn[:, newaxis] < N);
  *?(checky)py = ^(*?(checkx)px);
}
)";

const char *SeedSoftmax = R"(
__global__ void softmax(TYPE *X, TYPE *P, TYPE *M, int *LUT,
                        float scale, int num_blocks, long stride_zx, int stride_zm,
                        long stride_zp, int stride_hp, int stride_sp) {
  int pidhm = get_program_id(0);
  int pidz = get_program_id(1);
  int rxm = pidhm % BLOCK;
  int rbm = pidhm / BLOCK;
  int rxn[TN] = (0 ... TN) % BLOCK;
  int rbn[TN] = (0 ... TN) / BLOCK;
  int* header = LUT + rbm * 2;
  int size = *(header + 0);
  int offset = *(header + 1);
  bool check[TN] = rbn < size;
  int rbmn[TN] = check ? rbn : size - 1;
  long blockid[TN] = *(LUT + offset + rbmn*4 + 0);
  long columnid[TN] = *(LUT + offset + rbmn*4 + 1);
  long rowid[TN] = *(LUT + offset + rbmn*4 + 2);
  long headid[TN] = *(LUT + offset + rbmn*4 + 3);
  TYPE* px[TN] = X + pidz * stride_zx + blockid * BLOCK * BLOCK + rxm * BLOCK + rxn;
  TYPE x[TN] = check ? *px : -INFINITY;
  TYPE* pp[TN] = P + pidz * stride_zp + headid * stride_hp + (rxm + rowid * BLOCK) * stride_sp
                   + rxn + columnid * BLOCK;
  TYPE p[TN] = check ? *pp : 0;
  TYPE* pm[TN] = M + columnid * BLOCK + (rxm + rowid * BLOCK) * stride_zm + rxn;
  TYPE m[TN] = check ? *pm : -INFINITY;
  m = (m == 0) ? -INFINITY : 0;
  x = x * scale + p + m;
  float Fx[TN] = x;
  float Fy[TN] = exp(Fx - Fx[max]);
  float Fysum = (check ? Fy : 0)[+];
  *?(check)px = Fy / Fysum;
}
)";

TEST_F(ParserTest, SeedProgramsParse) {
  DefineList Defs = {{"TYPE", "float"},  {"TM", "32"},         {"TN", "32"},
                     {"TK", "8"},        {"TZ", "1"},          {"BLOCK", "16"},
                     {"STRIDE_AK", "1"}, {"STRIDE_AM", "lda"}, {"STRIDE_BK", "ldb"},
                     {"STRIDE_BN", "1"}};
  for (const char *Src : {SeedMatmul, SeedTranspose, SeedSoftmax}) {
    SourceManager LocalSM;
    DiagnosticEngine LocalDiags(LocalSM);
    PreprocessorOptions Opts;
    Opts.Defines = Defs;
    auto Tree = parseTranslationUnit(
        preprocess(LocalSM, LocalSM.addBuffer("seed.tc", Src), Opts, LocalDiags), LocalDiags);
    EXPECT_FALSE(LocalDiags.hasErrors()) << LocalDiags.formatAll();
    EXPECT_FALSE(Tree->Functions.empty());
  }
  // Split-K variant.
  Defs[4].second = "4";
  PreprocessorOptions Opts;
  Opts.Defines = Defs;
  auto Tree =
      parseTranslationUnit(preprocess(SM, SM.addBuffer("seed.tc", SeedMatmul), Opts, Diags), Diags);
  EXPECT_FALSE(Diags.hasErrors()) << Diags.formatAll();
  std::string D = dumpAST(*Tree);
  EXPECT_NE(D.find("(expr (= (masked-deref checkc pc) (+ c (masked-deref checkc pc))))"),
            std::string::npos)
      << D;
}

TEST_F(ParserTest, BundledKernelsParse) {
  std::filesystem::path Dir = std::filesystem::path(kernelsDir());
  ASSERT_TRUE(std::filesystem::exists(Dir)) << Dir;
  unsigned Count = 0;
  for (const auto &Entry : std::filesystem::directory_iterator(Dir)) {
    if (Entry.path().extension() != ".tc")
      continue;
    ++Count;
    SourceManager LocalSM;
    DiagnosticEngine LocalDiags(LocalSM);
    std::optional<FileId> F = LocalSM.addFile(Entry.path().string());
    ASSERT_TRUE(F);
    auto Tree = parseTranslationUnit(preprocess(LocalSM, *F, {}, LocalDiags), LocalDiags);
    EXPECT_FALSE(LocalDiags.hasErrors()) << Entry.path() << "\n" << LocalDiags.formatAll();
    EXPECT_FALSE(Tree->Functions.empty()) << Entry.path();
  }
  EXPECT_GT(Count, 3u);
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

/// Every prefix of a real program, and random token soup, must parse to a
/// (partial) tree without crashing or hanging.
TEST_F(ParserTest, NoCrashOnTruncatedPrograms) {
  DefineList Defs = {{"TYPE", "float"},  {"TM", "32"},         {"TN", "32"},
                     {"TK", "8"},        {"TZ", "4"},          {"BLOCK", "16"},
                     {"STRIDE_AK", "1"}, {"STRIDE_AM", "lda"}, {"STRIDE_BK", "ldb"},
                     {"STRIDE_BN", "1"}};
  PreprocessorOptions Opts;
  Opts.Defines = Defs;
  for (const char *Src : {SeedMatmul, SeedSoftmax, SeedTranspose}) {
    std::vector<Token> Full = preprocess(SM, SM.addBuffer("seed.tc", Src), Opts, Diags);
    ASSERT_FALSE(Diags.hasErrors());
    for (size_t N = 0; N + 1 < Full.size(); ++N) {
      std::vector<Token> Prefix(Full.begin(), Full.begin() + static_cast<long>(N));
      Prefix.push_back(Full.back());
      DiagnosticEngine D(SM);
      auto Tree = parseTranslationUnit(Prefix, D);
      ASSERT_TRUE(Tree);
      dumpAST(*Tree);
      // Dropping one token anywhere must be survivable too.
      std::vector<Token> Holed = Full;
      Holed.erase(Holed.begin() + static_cast<long>(N));
      DiagnosticEngine D2(SM);
      dumpAST(*parseTranslationUnit(Holed, D2));
    }
    // Replacing tokens by other tokens of the program.
    std::mt19937 Rng(42);
    for (int Iter = 0; Iter < 300; ++Iter) {
      std::vector<Token> Mutated = Full;
      for (int K = 0; K < 3; ++K)
        Mutated[Rng() % (Full.size() - 1)] = Full[Rng() % (Full.size() - 1)];
      DiagnosticEngine D3(SM);
      dumpAST(*parseTranslationUnit(Mutated, D3));
    }
  }
}

TEST_F(ParserTest, NoCrashOnRandomTokens) {
  std::vector<Token> Pool;
  auto Add = [&](TokenKind K, const char *Text) {
    Token T;
    T.Kind = K;
    T.Text = Text;
    T.Loc = SourceLoc{0, 1, 1};
    Pool.push_back(T);
  };
  SM.addBuffer("fuzz.tc", "x\n");
#define TOK(Name)
#define KEYWORD(Name, Spelling) Add(TokenKind::kw_##Name, Spelling);
#define PUNCT(Name, Spelling) Add(TokenKind::Name, Spelling);
#include "tritonc/lang/TokenKinds.def"
  for (int I = 0; I < 8; ++I) {
    Add(TokenKind::identifier, "x");
    Add(TokenKind::identifier, "max");
    Add(TokenKind::int_literal, "3");
    Add(TokenKind::l_paren, "(");
    Add(TokenKind::r_paren, ")");
    Add(TokenKind::semi, ";");
    Add(TokenKind::star, "*");
  }
  Add(TokenKind::float_literal, "1.5f");
  Add(TokenKind::char_literal, "'a'");
  Add(TokenKind::char_literal, "'ab'");
  Add(TokenKind::int_literal, "123456789012345678901234567890");
  Add(TokenKind::string_literal, "\"s\"");
  std::mt19937 Rng(1234);
  for (int Iter = 0; Iter < 3000; ++Iter) {
    std::vector<Token> Toks;
    // Half of the inputs start like a function so that statements and
    // expressions get exercised, not only the top level.
    if (Iter % 2) {
      for (TokenKind K : {TokenKind::kw_void, TokenKind::identifier, TokenKind::l_paren,
                          TokenKind::r_paren, TokenKind::l_brace}) {
        Token T;
        T.Kind = K;
        T.Text = "f";
        T.Loc = SourceLoc{0, 1, 1};
        Toks.push_back(T);
      }
    }
    size_t Len = Rng() % 60;
    for (size_t I = 0; I < Len; ++I)
      Toks.push_back(Pool[Rng() % Pool.size()]);
    if (Iter % 3)
      Toks.push_back(Token{});
    DiagnosticEngine D(SM);
    auto Tree = parseTranslationUnit(Toks, D);
    ASSERT_TRUE(Tree);
    dumpAST(*Tree);
  }
}

} // namespace
