//===- IRGenTest.cpp - Triton-C to Triton-IR ------------------------------===//
#include "tritonc/lang/IRGen.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/lang/Parser.h"
#include "tritonc/lang/Preprocessor.h"

#include <gtest/gtest.h>

#include <regex>

using namespace tritonc;

namespace {

struct Compiled {
  std::unique_ptr<ir::Module> M;
  std::string IR;    ///< Printed module (empty on failure).
  std::string Diags; ///< Formatted diagnostics.
  bool Verified = false;
  std::string VerifyErrors;
};

Compiled compile(const std::string &Src, DefineList Defines = {}, bool RunOnParseErrors = false) {
  SourceManager SM;
  FileId F = SM.addBuffer("test.tc", Src);
  DiagnosticEngine Diags(SM);
  PreprocessorOptions Opts;
  Opts.Defines = std::move(Defines);
  std::vector<Token> Toks = preprocess(SM, F, Opts, Diags);
  auto TU = parseTranslationUnit(Toks, Diags);
  Compiled C;
  if (!Diags.hasErrors() || RunOnParseErrors)
    C.M = generateIR(*TU, Diags);
  C.Diags = Diags.formatAll();
  if (C.M) {
    C.IR = ir::printModule(*C.M);
    std::vector<std::string> Errors;
    C.Verified = ir::verifyModule(*C.M, Errors);
    for (const auto &E : Errors)
      C.VerifyErrors += E + "\n";
  }
  return C;
}

/// Compiles and expects success with a module that verifies.
Compiled compileOk(const std::string &Src, DefineList Defines = {}) {
  Compiled C = compile(Src, std::move(Defines));
  EXPECT_TRUE(C.M) << C.Diags;
  EXPECT_TRUE(C.Verified) << C.VerifyErrors << C.IR;
  return C;
}

size_t count(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t P = Text.find(Needle); P != std::string::npos; P = Text.find(Needle, P + 1))
    ++N;
  return N;
}

bool matches(const std::string &Text, const std::string &Regex) {
  return std::regex_search(Text, std::regex(Regex));
}

const char *MatmulSrc = R"(
__global__ void dot(TYPE * A, TYPE * B, TYPE * C, int M, int N, int K,
                    int lda __multipleof(8), int ldb __multipleof(8), int ldc __multipleof(8)) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  float acc[TM, TN] = 0;
  TYPE* pa[TM, TK] = A + rk[newaxis, :] * 1 + rm[:, newaxis] * lda;
  TYPE* pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :] * 1;
  for (int k = K; k > 0; k -= TK) {
    TYPE a[TM, TK] = *pa;
    TYPE b[TK, TN] = *pb;
    acc += a @ b;
    pa += TK;
    pb += TK * ldb;
  }
  TYPE* pc[TM, TN] = C + rn[newaxis, :] + rm[:, newaxis] * ldc;
  *pc = acc;
}
)";

TEST(IRGen, MatmulLoopCarriesTilesThroughPhis) {
  Compiled C = compileOk(MatmulSrc, {{"TYPE", "half"}, {"TM", "64"}, {"TN", "32"}, {"TK", "16"}});
  EXPECT_TRUE(
      matches(C.IR, R"(%acc\.\d+ = phi \[%acc, \^entry\], \[%acc\.\d+, \^for\.inc\] : f32<64,32>)"))
      << C.IR;
  EXPECT_TRUE(matches(C.IR, R"(%pa\.\d+ = phi .* : f16\*<64,16>)")) << C.IR;
  EXPECT_TRUE(matches(C.IR, R"(%pb\.\d+ = phi .* : f16\*<16,32>)")) << C.IR;
  EXPECT_TRUE(matches(C.IR, R"(%k = phi \[%K, \^entry\])")) << C.IR;
  // dot with a zero accumulator, then the addition (peephole folds it).
  EXPECT_TRUE(matches(C.IR, R"(dot %a, %b, %\d+ : f32<64,32>)")) << C.IR;
  EXPECT_TRUE(matches(C.IR, R"(fptrunc %acc\.\d+ : f16<64,32>)")) << C.IR;
  EXPECT_TRUE(matches(C.IR, R"(define kernel void @dot\(.*i32 %lda multipleof\(8\))")) << C.IR;
  // No phi for the loop-invariant lda.
  EXPECT_EQ(count(C.IR, "phi"), 4u) << C.IR;
}

TEST(IRGen, EveryInstructionHasALocation) {
  Compiled C = compileOk(MatmulSrc, {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}, {"TK", "8"}});
  ASSERT_TRUE(C.M);
  for (const auto &F : C.M->functions())
    for (const auto &BB : F->blocks())
      for (const auto &I : BB->instructions())
        EXPECT_TRUE(I->Loc.isValid()) << ir::printInstruction(*I);
}

TEST(IRGen, TransposeWithMasks) {
  Compiled C = compileOk(R"(
__global__ void transpose(float *X __noalias __readonly __aligned(16), float *Y __writeonly,
                          int M, int N, int ldx, int ldy) {
  int rm[16] = get_program_id(0) * 16 + 0 ... 16;
  int rn[8] = get_program_id(1) * 8 + 0 ... 8;
  float* px[16, 8] = X + rm[:, newaxis] * ldx + rn[newaxis, :];
  float* py[8, 16] = Y + rm[newaxis, :] + rn[:, newaxis] * ldy;
  bool checkx[16, 8] = (rm[:, newaxis] < M) && (rn[newaxis, :] < N);
  bool checky[8, 16] = (rm[newaxis, :] < M) && (rn[:, newaxis] < N);
  *?(checky)py = ^(*?(checkx)px);
}
)");
  EXPECT_TRUE(matches(C.IR, "f32\\* %X noalias readonly aligned\\(16\\)")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "f32\\* %Y writeonly")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "masked_load %px, %checkx, %\\d+ : f32<16,8>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "trans %\\d+ : f32<8,16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "masked_store %py, %\\d+, %checky")) << C.IR;
  // Tile && is element-wise: no extra blocks.
  EXPECT_EQ(count(C.IR, "cond_br"), 0u) << C.IR;
}

TEST(IRGen, WeakLiteralsAdoptTheOtherOperandType) {
  Compiled C = compileOk(R"(
__global__ void k(half *P, float *Q) {
  half x[16] = *(P + (0 ... 16));
  half y[16] = x * 2.0;
  float z[16] = *(Q + (0 ... 16));
  float w[16] = z * 0.5;
  *(P + (0 ... 16)) = y;
  *(Q + (0 ... 16)) = w;
}
)");
  EXPECT_TRUE(matches(C.IR, "%y = fmul %x, %\\d+ : f16<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%w = fmul %z, %\\d+ : f32<16>")) << C.IR;
  EXPECT_EQ(count(C.IR, "f64"), 0u) << C.IR;
  EXPECT_EQ(count(C.IR, "fpext"), 0u) << C.IR;
}

TEST(IRGen, UsualArithmeticConversions) {
  Compiled C = compileOk(R"(
__global__ void k(half *P, float *Q, int i, unsigned u, bfloat16 b, half h, float f) {
  *P = h * i;
  *Q = h * f;
  *Q = h + b;
  *Q = u / 3;
  *Q = i / 3;
  *Q = u < i;
  *Q = (u >> 1) + (i >> 1);
}
)");
  EXPECT_TRUE(matches(C.IR, "sitofp %i : f16")) << C.IR; // int with half -> half
  EXPECT_TRUE(matches(C.IR, "fpext %h : f32")) << C.IR;  // half with float -> float
  EXPECT_TRUE(matches(C.IR, "fpext %b : f32")) << C.IR;  // half with bfloat16 -> float
  EXPECT_TRUE(matches(C.IR, "udiv %u, i32 3")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "sdiv %i, i32 3")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "icmp ult %u, %i")) << C.IR; // int converts to unsigned
  EXPECT_TRUE(matches(C.IR, "lshr %u, i32 1")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "ashr %i, i32 1")) << C.IR;
}

TEST(IRGen, ScalarLogicalOperatorsShortCircuit) {
  Compiled C = compileOk(R"(
__global__ void k(int *P, int a, int b) {
  if (a > 0 && b > 0)
    *P = 1;
  bool c = a > 0 || *P > 2;
  *P = c;
}
)");
  EXPECT_TRUE(matches(C.IR, "land\\.rhs:")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "lor\\.rhs:")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "phi \\[i1 0, \\^entry\\], \\[%\\d+, \\^land\\.rhs\\] : i1")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "phi \\[i1 1, \\^if\\.end\\], \\[%\\d+, \\^lor\\.rhs\\] : i1")) << C.IR;
}

TEST(IRGen, ConditionalDereferenceIsAMaskedLoad) {
  Compiled C = compileOk(R"(
__global__ void k(half *X, int N) {
  int r[32] = 0 ... 32;
  half *p[32] = X + r;
  bool check[32] = r < N;
  half x[32] = check ? *p : -INFINITY;
  half y[32] = check ? 0 : *p;
  bool pre = N > 32;
  half z[32] = pre ? *?(check)p : 1;
  *p = x + y + z;
}
)");
  EXPECT_TRUE(matches(C.IR, "%x = masked_load %p, %check, %\\d+ : f16<32>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "splat f16 -inf : f16<32>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "xor %check, %\\d+ : i1<32>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%y = masked_load %p, %\\d+, %\\d+ : f16<32>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%z = masked_load %p, %\\d+, %\\d+ : f16<32>")) << C.IR;
  EXPECT_EQ(count(C.IR, "select"), 0u) << C.IR;
  EXPECT_EQ(count(C.IR, " load"), 0u) << C.IR;
}

TEST(IRGen, ConditionalWithSideEffectsBranches) {
  Compiled C = compileOk(R"(
__global__ void k(int *I, int n) {
  int v = n > 0 ? atomic_add(I, 1) : 0;
  int w = n > 1 ? n : 5;
  *I = v + w;
}
)");
  EXPECT_TRUE(matches(C.IR, "cond\\.true:")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%v = phi \\[%\\d+, \\^cond\\.true\\], \\[i32 0, \\^cond\\.false\\]"))
      << C.IR;
  EXPECT_TRUE(matches(C.IR, "%w = select %\\d+, %n, i32 5 : i32")) << C.IR;
}

TEST(IRGen, Reductions) {
  Compiled C = compileOk(R"(
__global__ void k(float *X, int *I) {
  float x[8, 16] = *(X + (0 ... 16)[newaxis, :] + (0 ... 8)[:, newaxis] * 16);
  float rows[8] = x[:, +];
  float cols[16] = x[max, :];
  float all = x[+];
  bool m[16] = cols > 0;
  int nm = m[+];
  unsigned u[16] = 0 ... 16;
  *I = nm + u[min];
  *X = all + rows[min];
  float e[1, 8, 1] = rows[newaxis, :, newaxis];
  *X = e[+];
}
)");
  EXPECT_TRUE(matches(C.IR, "%rows = reduce fadd %x, 1 : f32<8>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%cols = reduce fmax %x, 0 : f32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "reduce fadd %x, 1 : f32<8>\n  %all = reduce fadd %\\d+, 0 : f32\n"))
      << C.IR;
  EXPECT_TRUE(matches(C.IR, "zext %m : i32<16>\n  %nm = reduce add %\\d+, 0 : i32")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "reduce umin %u, 0 : i32")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%e = reshape %rows : f32<1,8,1>")) << C.IR;
}

TEST(IRGen, DotWithTransposes) {
  Compiled C = compileOk(R"(
__global__ void k(half *A, float *C) {
  half a[16, 32] = 0;
  half b[64, 32] = 0;
  float c[16, 64] = a @ ^b;
  float d[64, 16] = dot(b, trans(a));
  double x[4, 4] = 1;
  char i8[4, 4] = 2;
  *(C + (0 ... 64)[:, newaxis] + (0 ... 16)[newaxis, :]) = d + ^c;
  *(C + (0 ... 4)[:, newaxis] + (0 ... 4)[newaxis, :]) = x @ x + i8 @ i8;
}
)");
  EXPECT_TRUE(matches(C.IR, "trans %b : f16<32,64>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%c = dot %a, %\\d+, %\\d+ : f32<16,64>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "dot %x, %x, %\\d+ : f64<4,4>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "dot %i8, %i8, %\\d+ : i32<4,4>")) << C.IR;
}

TEST(IRGen, LoopsWithBreakAndContinue) {
  Compiled C = compileOk(R"(
__global__ void k(int *P, int n) {
  int s = 0;
  int i = 0;
  while (i < n) {
    i++;
    if (i == 3)
      continue;
    if (s > 100)
      break;
    s += i;
  }
  do {
    s -= 1;
  } while (s > 10);
  for (;;) {
    if (s < 0) break;
    s = s - 2;
  }
  *P = s;
}
)");
  EXPECT_TRUE(matches(C.IR, "while\\.cond:")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "do\\.body:")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%s\\.\\d+ = phi")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%i = phi \\[i32 0, \\^entry\\]")) << C.IR;
  EXPECT_EQ(count(C.IR, "dead"), 0u) << C.IR; // unreachable blocks are removed
}

TEST(IRGen, PointerArithmeticAndCasts) {
  Compiled C = compileOk(R"(
__global__ void k(float *X, float *Y, long *L, unsigned u) {
  long d = Y - X;
  float *p = X + u;
  p++;
  p -= 2;
  *L = d + (long)p;
  int *q = (int *)*L;
  half *h = (half *)X;
  *L = (long)q + (long)h;
  *L = (float)(*L) > 0.5f;
  bool nz = X != 0;
  *L = nz;
}
)");
  EXPECT_TRUE(matches(C.IR, "ptrtoint %Y : i64")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%d = sdiv %\\d+, i64 4 : i64")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "zext %u : i64")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "gep %p\\.1, i32 -2")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "inttoptr %\\d+ : i32\\*")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "bitcast %X : f16\\*")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "icmp ne %X, f32\\* null")) << C.IR;
}

TEST(IRGen, AtomicsAndMath) {
  Compiled C = compileOk(R"(
__global__ void k(float *X, int *I, unsigned *U) {
  int r[16] = 0 ... 16;
  float old[16] = atomic_add(X + r, 1, r < 8);
  int o = atomic_cas(I, 0, 1);
  atomic_xchg(I, o);
  atomic_max(U + r, 3);
  atomic_min(I, -3);
  float y[16] = exp(old) + sqrt(r) + abs(old) + fma(old, old, 1) + max(old, 2);
  int z[16] = abs(r) + min(r, 4);
  *(X + r) = y + z + rsqrt(2.0f) + tanh(old) + floor(old) + ceil(old) + log(old) + sin(old) + cos(old);
}
)");
  EXPECT_TRUE(matches(C.IR, "%old = atomic_rmw fadd %\\d+, %\\d+, %\\d+ : f32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "%o = atomic_cas %I, i32 0, i32 1 : i32")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "atomic_rmw xchg %I, %o : i32")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "atomic_rmw umax %\\d+, %\\d+ : i32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "atomic_rmw smin %I, i32 -3 : i32")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "sitofp %r : f32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "iabs %r : i32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "smin %r, %\\d+ : i32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "fma %old, %old, %\\d+ : f32<16>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "fmax %old, %\\d+ : f32<16>")) << C.IR;
}

TEST(IRGen, ShadowingAndUninitializedTiles) {
  Compiled C = compileOk(R"(
__global__ void k(float *X, int n) {
  float t[8];
  int a = 1;
  {
    int a = 2;
    *X = a;
  }
  *X = a + t[+];
}
)");
  EXPECT_TRUE(matches(C.IR, "%t = splat f32 undef : f32<8>")) << C.IR;
  EXPECT_TRUE(matches(C.IR, "store %X, f32 2")) << C.IR;
}

TEST(IRGen, BroadcastingFollowsNumpyRules) {
  Compiled C = compileOk(R"(
__global__ void k(int *P) {
  int a[16] = 0 ... 16;
  int b[32, 16] = 1;
  int c[16, 1] = 2;
  int x1[32, 16] = a[newaxis, :] + b;
  int x2[32, 16] = a + b;
  int y[16, 16] = a + c;
  *P = x1[+] + x2[+] + y[+];
}
)");
  EXPECT_TRUE(matches(C.IR, "reshape %a : i32<1,16>\n  %\\d+ = broadcast %\\d+ : i32<32,16>"))
      << C.IR;
  EXPECT_TRUE(matches(C.IR, "broadcast %c : i32<16,16>")) << C.IR;
}

TEST(IRGen, ErrorsProduceNoModule) {
  Compiled C = compile("__global__ void k(float *X) { *X = y; }\n");
  EXPECT_FALSE(C.M);
  EXPECT_NE(C.Diags.find("test.tc:1:36: error: use of undeclared identifier 'y'"),
            std::string::npos)
      << C.Diags;
}

TEST(IRGen, StopsAtTheErrorLimit) {
  std::string Src = "__global__ void k(float *X) {\n";
  for (int I = 0; I < 100; ++I)
    Src += "  *X = u" + std::to_string(I) + ";\n";
  Src += "}\n";
  Compiled C = compile(Src);
  EXPECT_FALSE(C.M);
  EXPECT_LE(count(C.Diags, "error:"), 21u) << C.Diags;
}

TEST(IRGen, SurvivesPartialTreesAfterParseErrors) {
  // The parser leaves null sub-expressions and statements behind; IRGen must
  // not crash on any of them.
  const char *Snippets[] = {
      "__global__ void k(float *X) { int a[16] = ; *X = a[+]; }",
      "__global__ void k(float *X) { int a[] = 0; }",
      "__global__ void k(float *X) { if () *X = 1; while (*X >) ; }",
      "__global__ void k(float *X) { for (int i = 0; i < ; i++) { *X = *X +; } }",
      "__global__ void k(float *X) { float y = X ? : 1; *?() X = 2; }",
      "__global__ void k(float *X) { int r[16] = 0 ... ; float z = exp(, ); }",
      "__global__ void k(float *X) { int a = (int); a = [:, newaxis]; }",
      "__global__ void k(float *X) { return }",
      "__global__ void k(float *X, ) { }",
      "__global__ void k(float *X) { int r[16] = 0 ... 16; r[:, ] = 1; ^; @; }",
  };
  for (const char *S : Snippets) {
    Compiled C = compile(S, {}, /*RunOnParseErrors=*/true);
    EXPECT_FALSE(C.Diags.empty()) << S;
    if (C.M) {
      EXPECT_TRUE(C.Verified) << S << "\n" << C.VerifyErrors;
    }
  }
}

} // namespace
