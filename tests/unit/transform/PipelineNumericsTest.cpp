// The bundled matmul kernels (hand-prefetch and tutorial forms, transposed
// operands, f32 and f16) give bit-identical results on the interpreter with
// and without `simplifycfg,pipeline` (and `async-rings` after it) after the
// default pipeline, for 2, 3 and 4 stages, for K not a multiple of TK, K < TK
// and K = 0. Buffers have their
// exact sizes, so a load the pipeliner issues for an iteration that does not
// run, unmasked, would be an interpreter error.
#include "tritonc/driver/Compiler.h"
#include "tritonc/interp/Interpreter.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/support/FloatFormats.h"
#include "tritonc/transform/Passes.h"

#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <sstream>

using namespace tritonc;

namespace {

const std::string KernelsDir = TRITONC_KERNELS_DIR;

// Tutorial form: masked loads at the top of the body, masks recomputed from
// the induction k, pointers advanced after the dot; K counts up.
const char *TutorialMatmul = R"(
__global__ void mm(TYPE *A, TYPE *B, TYPE *C, int M, int N, int K, int lda, int ldb, int ldc) {
  int pm = get_program_id(0);
  int pn = get_program_id(1);
  int rm[TM] = pm * TM + 0 ... TM;
  int rn[TN] = pn * TN + 0 ... TN;
  int rk[TK] = 0 ... TK;
  float c[TM, TN] = 0;
#if TRANS_A
  TYPE *pa[TK, TM] = A + rk[:, newaxis] * lda + rm[newaxis, :];
#else
  TYPE *pa[TM, TK] = A + rm[:, newaxis] * lda + rk[newaxis, :];
#endif
#if TRANS_B
  TYPE *pb[TN, TK] = B + rn[:, newaxis] * ldb + rk[newaxis, :];
#else
  TYPE *pb[TK, TN] = B + rk[:, newaxis] * ldb + rn[newaxis, :];
#endif
  for (int k = 0; k < K; k += TK) {
#if TRANS_A
    TYPE a[TK, TM] = rk[:, newaxis] < K - k && rm[newaxis, :] < M ? *pa : 0;
    pa += TK * lda;
#else
    TYPE a[TM, TK] = rm[:, newaxis] < M && rk[newaxis, :] < K - k ? *pa : 0;
    pa += TK;
#endif
#if TRANS_B
    TYPE b[TN, TK] = rn[:, newaxis] < N && rk[newaxis, :] < K - k ? *pb : 0;
    pb += TK;
#else
    TYPE b[TK, TN] = rk[:, newaxis] < K - k && rn[newaxis, :] < N ? *pb : 0;
    pb += TK * ldb;
#endif
#if TRANS_A && TRANS_B
    c += ^a @ ^b;
#elif TRANS_A
    c += ^a @ b;
#elif TRANS_B
    c += a @ ^b;
#else
    c += a @ b;
#endif
  }
  int rcm[TM] = pm * TM + 0 ... TM;
  int rcn[TN] = pn * TN + 0 ... TN;
  TYPE *pc[TM, TN] = C + rcm[:, newaxis] * ldc + rcn[newaxis, :];
  *?(rcm[:, newaxis] < M && rcn[newaxis, :] < N) pc = c;
}
)";

enum class Kernel { Prefetch, Tutorial, Grouped, SplitK };

struct Config {
  Kernel K;
  bool Half;
  bool TransA, TransB;
};

void PrintTo(const Config &C, std::ostream *OS) {
  static const char *const Names[] = {"matmul.tc", "tutorial", "matmul_grouped.tc",
                                      "matmul_splitk.tc"};
  *OS << Names[static_cast<int>(C.K)] << (C.Half ? " half" : " float") << " TRANS_A=" << C.TransA
      << " TRANS_B=" << C.TransB;
}

struct Problem {
  int M, N, K;
};

/// One matmul launch: buffers in kernel-parameter order plus scalars.
struct Launch {
  std::vector<std::vector<uint8_t>> Buffers;
  std::vector<interp::ArgValue> Args;
  interp::LaunchGrid Grid;
};

constexpr int TM = 16, TN = 32, TK = 16;

int cdiv(int A, int B) { return (A + B - 1) / B; }

/// A Rows x Ld matrix (at least one element) of small values exact in f16.
std::vector<uint8_t> matrix(int Rows, int Ld, bool Half, unsigned Seed) {
  size_t N = std::max<size_t>(1, static_cast<size_t>(Rows) * Ld);
  std::vector<uint8_t> Bytes(N * (Half ? 2 : 4));
  for (size_t I = 0; I < N; ++I) {
    float V = static_cast<float>(static_cast<int>((I * 7919 + Seed * 104729) % 17) - 8) / 4;
    if (Half) {
      uint16_t H = floatToHalfBits(V);
      std::memcpy(&Bytes[2 * I], &H, 2);
    } else {
      std::memcpy(&Bytes[4 * I], &V, 4);
    }
  }
  return Bytes;
}

Launch makeLaunch(const Config &C, const Problem &P) {
  using interp::ArgValue;
  Launch L;
  int Lda = C.TransA ? P.M + 1 : P.K + 3, Ldb = C.TransB ? P.K + 2 : P.N + 1, Ldc = P.N + 2;
  L.Buffers.push_back(C.TransA ? matrix(P.K, Lda, C.Half, 1) : matrix(P.M, Lda, C.Half, 1));
  L.Buffers.push_back(C.TransB ? matrix(P.N, Ldb, C.Half, 2) : matrix(P.K, Ldb, C.Half, 2));
  L.Buffers.push_back(matrix(P.M, Ldc, C.Half, 3));
  L.Args = {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2)};
  L.Grid = {static_cast<uint32_t>(cdiv(P.M, TM)), static_cast<uint32_t>(cdiv(P.N, TN)), 1};
  if (C.K == Kernel::SplitK) {
    L.Grid.Z = 3;
    L.Buffers.push_back(std::vector<uint8_t>(2 * L.Grid.X * L.Grid.Y * 4, 0));
    L.Args.push_back(ArgValue::buffer(3));
    L.Args.push_back(ArgValue::floating(1.5));
  }
  if (C.K == Kernel::Grouped)
    L.Grid = {L.Grid.X * L.Grid.Y, 1, 1};
  for (int V : {P.M, P.N, P.K, Lda, Ldb, Ldc})
    L.Args.push_back(ArgValue::integer(V));
  return L;
}

/// Compiles the kernel of C after the default pipeline, then simplifycfg and
/// pipeline with NumStages when NumStages > 0. WithRemat runs the GPU back
/// end's sequence instead: remat-inductions first (tile inductions become
/// scalar offsets), cse and dce after. WithRings ends with async-rings and
/// insert-barriers (the pipelined operands as cp_async rings, whose waits
/// and barriers the interpreter checks).
std::unique_ptr<ir::Module> compile(const Config &C, unsigned NumStages, bool WithRemat = false,
                                    bool WithRings = false) {
  driver::CompileOptions Opts;
  Opts.Defines = {{"TYPE", C.Half ? "half" : "float"}, {"TM", std::to_string(TM)},
                  {"TN", std::to_string(TN)},          {"TK", std::to_string(TK)},
                  {"TRANS_A", C.TransA ? "1" : "0"},   {"TRANS_B", C.TransB ? "1" : "0"}};
  if (C.K == Kernel::SplitK)
    Opts.Defines.push_back({"TZ", "3"});
  Opts.Passes.VerifyEach = true;
  if (NumStages) {
    if (WithRemat)
      Opts.ExtraPasses.push_back([] { return transform::createPassByName("remat-inductions"); });
    Opts.ExtraPasses.push_back([] { return transform::createPassByName("simplifycfg"); });
    Opts.ExtraPasses.push_back(
        [NumStages] { return transform::createLoopPipelinePass(NumStages); });
    if (WithRemat)
      for (const char *Name : {"cse", "dce"})
        Opts.ExtraPasses.push_back([Name] { return transform::createPassByName(Name); });
    if (WithRings)
      for (const char *Name : {"async-rings", "insert-barriers"})
        Opts.ExtraPasses.push_back([Name] { return transform::createPassByName(Name); });
  }
  driver::CompileResult R =
      C.K == Kernel::Tutorial
          ? driver::compileSource("tutorial.tc", TutorialMatmul, Opts)
          : driver::compileFile(KernelsDir + (C.K == Kernel::Prefetch  ? "/matmul.tc"
                                              : C.K == Kernel::Grouped ? "/matmul_grouped.tc"
                                                                       : "/matmul_splitk.tc"),
                                Opts);
  EXPECT_TRUE(R.ok()) << R.formattedDiagnostics();
  return R.takeModule();
}

std::vector<std::vector<uint8_t>> run(const ir::Module &M, Launch L) {
  std::vector<interp::HostBuffer> Hosts;
  for (auto &B : L.Buffers)
    Hosts.push_back({B.data(), B.size(), "buf"});
  interp::InterpResult R = interp::runKernel(*M.functions()[0], L.Grid, L.Args, Hosts);
  EXPECT_TRUE(R.Ok) << R.Error << "\n" << ir::printModule(M);
  return L.Buffers;
}

std::string describe(const Config &C, const Problem &P, unsigned S, bool WithRemat,
                     bool WithRings = false) {
  std::ostringstream OS;
  PrintTo(C, &OS);
  OS << " M=" << P.M << " N=" << P.N << " K=" << P.K << " stages=" << S
     << (WithRemat ? " after remat-inductions" : "") << (WithRings ? " with async-rings" : "");
  return OS.str();
}

void checkConfig(const Config &C) {
  const Problem Problems[] = {{37, 45, 70}, {37, 45, 5}, {20, 17, 0}, {32, 64, 48}};
  auto Reference = compile(C, 0);
  ASSERT_TRUE(Reference);
  for (bool WithRemat : {false, true}) {
    for (bool WithRings : {false, true}) {
      for (unsigned S : {2u, 3u, 4u}) {
        auto Pipelined = compile(C, S, WithRemat, WithRings);
        ASSERT_TRUE(Pipelined);
        std::string Text = ir::printModule(*Pipelined);
        // The passes did their work: the body ends with the new loads, or
        // waits until S - 2 copy groups are in flight.
        std::string Expect = WithRings ? "cp_async_wait " + std::to_string(S - 2) + "\n"
                                       : std::string(".next = masked_load");
        EXPECT_TRUE(Text.find(Expect) != std::string::npos)
            << describe(C, {0, 0, 0}, S, WithRemat, WithRings) << "\n"
            << Text;
        for (const Problem &P : Problems) {
          Launch L = makeLaunch(C, P);
          auto Expected = run(*Reference, L), Got = run(*Pipelined, L);
          for (size_t I = 0; I < Expected.size(); ++I)
            EXPECT_TRUE(Expected[I] == Got[I])
                << "buffer " << I << " differs: " << describe(C, P, S, WithRemat, WithRings);
        }
      }
    }
  }
}

class PipelineNumerics : public ::testing::TestWithParam<Config> {};

TEST_P(PipelineNumerics, SameResultsAsWithoutPipelining) { checkConfig(GetParam()); }

std::vector<Config> allConfigs() {
  std::vector<Config> All;
  for (bool Half : {false, true}) {
    for (Kernel K : {Kernel::Prefetch, Kernel::Tutorial})
      for (bool TA : {false, true})
        for (bool TB : {false, true})
          All.push_back({K, Half, TA, TB});
    All.push_back({Kernel::Grouped, Half, false, false});
    All.push_back({Kernel::SplitK, Half, false, false});
  }
  return All;
}

std::string configName(const ::testing::TestParamInfo<Config> &Info) {
  const Config &C = Info.param;
  static const char *const Names[] = {"matmul", "tutorial", "grouped", "splitk"};
  return std::string(Names[static_cast<int>(C.K)]) + (C.Half ? "_half" : "_float") +
         (C.TransA ? "_TA" : "") + (C.TransB ? "_TB" : "");
}

INSTANTIATE_TEST_SUITE_P(Kernels, PipelineNumerics, ::testing::ValuesIn(allConfigs()), configName);

TEST(PipelineNumerics, ConvIsPipelined) {
  // conv.tc advances A by deltas read from a look-up table in the loop: the
  // pass runs that recurrence ahead (a gather), so both operands are
  // pipelined. Its numerics on the interpreter, bit for bit against the
  // unpipelined kernel, are checked over every configuration of the kernel
  // tests (tests/kernels/test_kernels.py, the "pipelined" variant).
  auto Compile = [](bool Pipeline) {
    driver::CompileOptions Opts;
    Opts.Defines = {{"TYPE", "half"}};
    Opts.Passes.VerifyEach = true;
    Opts.ExtraPasses.push_back([] { return transform::createPassByName("simplifycfg"); });
    if (Pipeline)
      Opts.ExtraPasses.push_back([] { return transform::createLoopPipelinePass(3); });
    driver::CompileResult R = driver::compileFile(KernelsDir + "/conv.tc", Opts);
    EXPECT_TRUE(R.ok()) << R.formattedDiagnostics();
    return R.module() ? ir::printModule(*R.module()) : std::string();
  };
  std::string Without = Compile(false), With = Compile(true);
  EXPECT_EQ(Without.find(".pipe1"), std::string::npos);
  EXPECT_NE(With.find("%a.pipe1 = phi"), std::string::npos) << With;
  EXPECT_NE(With.find("%b.pipe1 = phi"), std::string::npos) << With;
  EXPECT_NE(With.find("%a.next = masked_load"), std::string::npos) << With;
  EXPECT_NE(With.find("%b.next = masked_load"), std::string::npos) << With;
}

} // namespace
