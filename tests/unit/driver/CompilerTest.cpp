//===- CompilerTest.cpp - The public compile API --------------------------===//

#include "tritonc/driver/Compiler.h"

#include "tritonc/ir/Printer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace tritonc;
using namespace tritonc::driver;

namespace {

const char *AddKernel = R"(
__global__ void add(float *X, float *Y, int N) {
  int pid = get_program_id(0);
  int off[TN] = pid * TN + 0 ... TN;
  bool check[TN] = off < N;
  float *px[TN] = X + off;
  float *py[TN] = Y + off;
  *?(check) py = *?(check) px + *?(check) py;
}
)";

CompileOptions withTN(const std::string &TN) {
  CompileOptions Opts;
  Opts.Defines = {{"TN", TN}};
  return Opts;
}

bool hasSeverity(const CompileResult &R, Severity S) {
  for (const Diagnostic &D : R.diagnostics())
    if (D.Sev == S)
      return true;
  return false;
}

/// A pass that raises an internal compiler error.
class ThrowingPass : public transform::Pass {
public:
  const char *name() const override { return "throwing"; }
  bool run(ir::Function &, transform::AnalysisManager &) override {
    reportInternalError("broken invariant in a test pass");
  }
};

/// A pass that leaves the entry block without its terminator.
class BreakingPass : public transform::Pass {
public:
  const char *name() const override { return "breaking"; }
  bool run(ir::Function &F, transform::AnalysisManager &) override {
    F.getEntryBlock()->getTerminator()->eraseFromParent();
    return true;
  }
};

} // namespace

TEST(Compiler, CompilesASmallKernel) {
  CompileResult R = compileSource("add.tc", AddKernel, withTN("32"));
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  ASSERT_NE(R.module(), nullptr);
  ASSERT_NE(R.module()->getFunction("add"), nullptr);
  EXPECT_TRUE(R.module()->getFunction("add")->attrs().IsKernel);
  EXPECT_NE(ir::printModule(*R.module()).find("define kernel void @add("), std::string::npos);
  ASSERT_NE(R.ast(), nullptr);
  EXPECT_TRUE(R.diagnostics().empty());

  // The result owns its module: taking it leaves the diagnostics behind.
  std::unique_ptr<ir::Module> M = R.takeModule();
  EXPECT_NE(M, nullptr);
  EXPECT_EQ(R.module(), nullptr);
}

TEST(Compiler, UserErrorsAreDiagnostics) {
  CompileResult R = compileSource("bad.tc", "__global__ void f(int N) { int x = ; }\n", {});
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.module(), nullptr);
  ASSERT_FALSE(R.diagnostics().empty());
  EXPECT_EQ(R.diagnostics().front().Sev, Severity::Error);
  EXPECT_NE(R.formattedDiagnostics().find("bad.tc:1:"), std::string::npos);
  EXPECT_FALSE(hasSeverity(R, Severity::Internal));
}

TEST(Compiler, SemanticErrorsStopBeforePasses) {
  CompileResult R = compileSource("sema.tc", "__global__ void f(int N) { N = undeclared; }\n", {});
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.module(), nullptr);
  EXPECT_NE(R.formattedDiagnostics().find("undeclared"), std::string::npos);
}

TEST(Compiler, MissingFile) {
  CompileResult R = compileFile("/nonexistent/nope.tc", {});
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.formattedDiagnostics(),
            "tritonc: error: cannot open '/nonexistent/nope.tc': No such file or directory\n");
}

TEST(Compiler, CompilesAFileWithIncludes) {
  std::filesystem::path Dir = std::filesystem::temp_directory_path() / "tritonc-compiler-test";
  std::filesystem::create_directories(Dir / "inc");
  std::ofstream(Dir / "inc" / "tile.h") << "#define TN 16\n";
  std::ofstream(Dir / "k.tc") << "#include \"tile.h\"\n" << AddKernel;
  CompileOptions Opts;
  Opts.IncludeDirs = {(Dir / "inc").string()};
  CompileResult R = compileFile((Dir / "k.tc").string(), Opts);
  EXPECT_TRUE(R.ok()) << R.formattedDiagnostics();
  std::filesystem::remove_all(Dir);
}

TEST(Compiler, StopAfterEarlyStages) {
  CompileOptions Opts = withTN("8");
  Opts.Stop = StopAfter::Preprocess;
  CompileResult PP = compileSource("add.tc", AddKernel, Opts);
  ASSERT_TRUE(PP.ok()) << PP.formattedDiagnostics();
  EXPECT_NE(PP.preprocessed().find("8"), std::string::npos);
  EXPECT_EQ(PP.preprocessed().find("TN"), std::string::npos);
  EXPECT_EQ(PP.ast(), nullptr);

  Opts.Stop = StopAfter::Parse;
  CompileResult AST = compileSource("add.tc", AddKernel, Opts);
  ASSERT_TRUE(AST.ok());
  ASSERT_NE(AST.ast(), nullptr);
  EXPECT_EQ(AST.module(), nullptr);
}

TEST(Compiler, ContinueAfterPreprocessing) {
  CompileOptions Opts = withTN("32");
  Opts.Stop = StopAfter::Preprocess;
  CompileResult PP = compileSource("add.tc", AddKernel, Opts);
  ASSERT_TRUE(PP.ok()) << PP.formattedDiagnostics();
  EXPECT_GT(PP.timings().Preprocess, 0);
  EXPECT_EQ(PP.timings().Parse, 0);
  double Preprocessing = PP.timings().Preprocess;

  Opts.Stop = StopAfter::IR;
  CompileResult R = continueCompilation(std::move(PP), Opts);
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  ASSERT_NE(R.module(), nullptr);
  CompileResult Direct = compileSource("add.tc", AddKernel, Opts);
  EXPECT_EQ(ir::printModule(*R.module()), ir::printModule(*Direct.module()));
  // The phases of both calls are in the result.
  EXPECT_EQ(R.timings().Preprocess, Preprocessing);
  EXPECT_GT(R.timings().Parse, 0);
  EXPECT_GT(R.timings().IRGen, 0);
  EXPECT_GT(R.timings().Passes, 0);
  EXPECT_EQ(R.timings().CodeGen, 0);

  // A result that did not stop after preprocessing cannot go on.
  CompileResult Again = continueCompilation(std::move(R), Opts);
  EXPECT_FALSE(Again.ok());
  EXPECT_TRUE(hasSeverity(Again, Severity::Internal));

  // Errors of the continued stages carry their locations.
  Opts.Stop = StopAfter::Preprocess;
  CompileResult Bad = compileSource("bad.tc", "__global__ void f(int N) {\n  N = y;\n}\n", Opts);
  ASSERT_TRUE(Bad.ok());
  Opts.Stop = StopAfter::IR;
  CompileResult BadIR = continueCompilation(std::move(Bad), Opts);
  EXPECT_FALSE(BadIR.ok());
  EXPECT_NE(BadIR.formattedDiagnostics().find("bad.tc:2:"), std::string::npos)
      << BadIR.formattedDiagnostics();
}

TEST(Compiler, TritonIRNamesCompileAsIR) {
  // A .tir name makes compileSource (and compileFile) read Triton-IR: the
  // same passes as for Triton-C (here the default pipeline's constfold).
  const char *IR = "define kernel void @f(i32* %p) {\n"
                   "entry:\n"
                   "  %a = add i32 2, i32 3 : i32\n"
                   "  store %p, %a\n"
                   "  ret\n"
                   "}\n";
  CompileOptions Opts;
  CompileResult R = compileSource("f.tir", IR, Opts);
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  std::string Printed = ir::printModule(*R.module());
  EXPECT_EQ(Printed.find("add"), std::string::npos) << Printed;
  EXPECT_NE(Printed.find("store %p, i32 5"), std::string::npos) << Printed;

  // Stopped after "preprocessing" (the JIT's cache key: the text itself)
  // and continued, it gives the same module.
  Opts.Stop = StopAfter::Preprocess;
  CompileResult PP = compileSource("f.tir", IR, Opts);
  ASSERT_TRUE(PP.ok()) << PP.formattedDiagnostics();
  EXPECT_EQ(PP.preprocessed(), IR);
  Opts.Stop = StopAfter::IR;
  CompileResult Continued = continueCompilation(std::move(PP), Opts);
  ASSERT_TRUE(Continued.ok()) << Continued.formattedDiagnostics();
  EXPECT_EQ(ir::printModule(*Continued.module()), Printed);

  // There is no syntax tree to stop at; broken IR is a located user error.
  Opts.Stop = StopAfter::Parse;
  CompileResult AST = compileSource("f.tir", IR, Opts);
  EXPECT_FALSE(AST.ok());
  EXPECT_FALSE(hasSeverity(AST, Severity::Internal));
  Opts.Stop = StopAfter::IR;
  CompileResult Bad =
      compileSource("g.tir", "define void @g(i32 %n) {\nentry:\n  ret %n\n}\n", Opts);
  EXPECT_FALSE(Bad.ok());
  EXPECT_FALSE(hasSeverity(Bad, Severity::Internal));
  EXPECT_NE(Bad.formattedDiagnostics().find("g.tir:3:"), std::string::npos)
      << Bad.formattedDiagnostics();
  // Other names stay Triton-C.
  EXPECT_FALSE(compileSource("f.tc", IR, Opts).ok());
}

TEST(Compiler, PipelineSelection) {
  CompileOptions Opts = withTN("32");
  Opts.UsePipelineDefault = false;
  Opts.Pipeline = "";
  CompileResult None = compileSource("add.tc", AddKernel, Opts);
  ASSERT_TRUE(None.ok()) << None.formattedDiagnostics();

  Opts.Pipeline = "dce,cse";
  EXPECT_TRUE(compileSource("add.tc", AddKernel, Opts).ok());

  Opts.Pipeline = "dce,nosuchpass";
  CompileResult Bad = compileSource("add.tc", AddKernel, Opts);
  EXPECT_FALSE(Bad.ok());
  EXPECT_NE(Bad.formattedDiagnostics().find("nosuchpass"), std::string::npos);
  EXPECT_FALSE(hasSeverity(Bad, Severity::Internal));
}

TEST(Compiler, TuningSpaces) {
  CompileOptions Opts = withTN("[16,32]");
  CompileResult Ambiguous = compileSource("add.tc", AddKernel, Opts);
  EXPECT_FALSE(Ambiguous.ok());
  EXPECT_NE(Ambiguous.formattedDiagnostics().find("the tuning list TN defines 2 configurations"),
            std::string::npos);

  Opts.Config = 1;
  CompileResult Second = compileSource("add.tc", AddKernel, Opts);
  ASSERT_TRUE(Second.ok()) << Second.formattedDiagnostics();
  EXPECT_NE(ir::printModule(*Second.module()).find("<32>"), std::string::npos);

  Opts.Config = 2;
  CompileResult Out = compileSource("add.tc", AddKernel, Opts);
  EXPECT_FALSE(Out.ok());
  EXPECT_NE(Out.formattedDiagnostics().find("configuration 2 does not exist"), std::string::npos);

  // A single-valued list is one configuration: no --config needed.
  EXPECT_TRUE(compileSource("add.tc", AddKernel, withTN("[64]")).ok());

  CompileResult Malformed = compileSource("add.tc", AddKernel, withTN("[16,"));
  EXPECT_FALSE(Malformed.ok());
  EXPECT_NE(Malformed.formattedDiagnostics().find("malformed tuning list"), std::string::npos);
}

TEST(Compiler, ListConfigurations) {
  std::vector<Configuration> Configs;
  std::string Error;
  ASSERT_TRUE(
      listConfigurations({{"TM", "[32,64]"}, {"K", "4"}, {"TN", "[16, 32]"}}, {}, Configs, Error));
  ASSERT_EQ(Configs.size(), 4u);
  EXPECT_EQ(Configs[0].Description, "TM=32 TN=16");
  EXPECT_EQ(Configs[1].Description, "TM=32 TN=32");
  EXPECT_EQ(Configs[3].Description, "TM=64 TN=32");
  DefineList Expected = {{"TM", "64"}, {"K", "4"}, {"TN", "16"}};
  EXPECT_EQ(Configs[2].Defines, Expected);

  ASSERT_TRUE(listConfigurations({{"K", "4"}}, {}, Configs, Error));
  ASSERT_EQ(Configs.size(), 1u);
  EXPECT_EQ(Configs[0].Description, "");

  EXPECT_FALSE(listConfigurations({{"TM", "[32,"}}, {}, Configs, Error));
  EXPECT_NE(Error.find("TM"), std::string::npos);
  EXPECT_TRUE(Configs.empty());
}

TEST(Compiler, OptionListsAreDimensionsAfterTheDefines) {
  std::vector<Configuration> Configs;
  std::string Error;
  TunedOptions Tuned;
  Tuned.NumWarps = {4, 8};
  Tuned.NumStages = {2, 3, 4};
  ASSERT_TRUE(listConfigurations({{"TM", "[32,64]"}}, Tuned, Configs, Error)) << Error;
  ASSERT_EQ(Configs.size(), 12u);
  EXPECT_EQ(Configs[0].Description, "TM=32 num_warps=4 num_stages=2");
  EXPECT_EQ(Configs[5].Description, "TM=32 num_warps=8 num_stages=4");
  EXPECT_EQ(Configs[7].Description, "TM=64 num_warps=4 num_stages=3");
  // The options are fields, never defines.
  DefineList Expected = {{"TM", "64"}};
  EXPECT_EQ(Configs[7].Defines, Expected);
  EXPECT_EQ(Configs[7].NumWarps, 4u);
  EXPECT_EQ(Configs[7].NumStages, 3u);
  ASSERT_TRUE(listConfigurations({}, TunedOptions{{16}, {}}, Configs, Error));
  ASSERT_EQ(Configs.size(), 1u);
  EXPECT_EQ(Configs[0].Description, "num_warps=16");
  EXPECT_FALSE(Configs[0].NumStages);

  // --config counts the option lists; without it the front end names them.
  CompileOptions Opts = withTN("[16,32]");
  Opts.Tuned.NumWarps = {4, 8};
  CompileResult Ambiguous = compileSource("add.tc", AddKernel, Opts);
  EXPECT_NE(Ambiguous.formattedDiagnostics().find(
                "the tuning lists TN, num_warps define 4 configurations"),
            std::string::npos)
      << Ambiguous.formattedDiagnostics();
  Opts.Config = 3;
  EXPECT_TRUE(compileSource("add.tc", AddKernel, Opts).ok());
  Opts.Config = 4;
  EXPECT_NE(compileSource("add.tc", AddKernel, Opts)
                .formattedDiagnostics()
                .find("configuration 4 does not exist: the tuning space has 4 configurations"),
            std::string::npos);

  // The retired macros are errors that name the option to use instead.
  CompileOptions Retired = withTN("16");
  Retired.Defines.emplace_back("TRITONC_NUM_STAGES", "[3,4]");
  CompileResult R = compileSource("add.tc", AddKernel, Retired);
  EXPECT_NE(R.formattedDiagnostics().find(
                "-DTRITONC_NUM_STAGES=[3,4] does not set the pipelining depth: use "
                "--num-stages=[3,4] (num_stages= in Python)"),
            std::string::npos)
      << R.formattedDiagnostics();
  EXPECT_FALSE(listConfigurations({{"TRITONC_NUM_WARPS", "4"}}, {}, Configs, Error));
  EXPECT_NE(Error.find("--num-warps=4"), std::string::npos) << Error;
}

TEST(Compiler, RunGuardedCatchesEverything) {
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  EXPECT_TRUE(runGuarded(Diags, [] {}));
  EXPECT_FALSE(Diags.hasErrors());

  EXPECT_FALSE(runGuarded(Diags, [] { reportInternalError("invariant X broken"); }));
  ASSERT_EQ(Diags.diagnostics().size(), 1u);
  EXPECT_EQ(Diags.diagnostics()[0].Sev, Severity::Internal);
  EXPECT_NE(Diags.diagnostics()[0].Message.find("invariant X broken"), std::string::npos);
  EXPECT_NE(Diags.diagnostics()[0].Message.find("please report"), std::string::npos);

  EXPECT_FALSE(runGuarded(Diags, [] { throw std::out_of_range("vector::at"); }));
  EXPECT_EQ(Diags.diagnostics().back().Sev, Severity::Internal);
  EXPECT_NE(Diags.diagnostics().back().Message.find("vector::at"), std::string::npos);

  EXPECT_FALSE(runGuarded(Diags, [] { throw 42; }));
  EXPECT_EQ(Diags.diagnostics().back().Sev, Severity::Internal);
}

TEST(Compiler, InternalErrorInAPassBecomesADiagnostic) {
  CompileOptions Opts = withTN("32");
  Opts.ExtraPasses.push_back([] { return std::make_unique<ThrowingPass>(); });
  CompileResult R = compileSource("add.tc", AddKernel, Opts);
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.module(), nullptr);
  EXPECT_TRUE(hasSeverity(R, Severity::Internal));
  EXPECT_NE(R.formattedDiagnostics().find("broken invariant in a test pass"), std::string::npos);
}

TEST(Compiler, InvalidIRAfterPassesIsAnInternalError) {
  CompileOptions Opts = withTN("32");
  Opts.ExtraPasses.push_back([] { return std::make_unique<BreakingPass>(); });
  CompileResult R = compileSource("add.tc", AddKernel, Opts);
  EXPECT_FALSE(R.ok());
  EXPECT_TRUE(hasSeverity(R, Severity::Internal));
  EXPECT_NE(R.formattedDiagnostics().find("produced invalid IR"), std::string::npos);
}

TEST(Compiler, OptimizeIR) {
  const char *IR = "define void @f(i32 %n) {\n"
                   "entry:\n"
                   "  %a = add %n, i32 1 : i32\n"
                   "  ret\n"
                   "}\n";
  CompileOptions Opts;
  Opts.UsePipelineDefault = false;
  Opts.Pipeline = "dce";
  CompileResult R = optimizeIRSource("f.tir", IR, Opts);
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  EXPECT_EQ(ir::printModule(*R.module()).find("add"), std::string::npos);

  CompileResult Syntax = optimizeIRSource("g.tir", "define void @g( {\n", Opts);
  EXPECT_FALSE(Syntax.ok());
  EXPECT_NE(Syntax.formattedDiagnostics().find("g.tir:1:"), std::string::npos);

  // A module that parses but breaks the IR rules is the user's error.
  const char *NoTerminator = "define void @h(i32 %n) {\n"
                             "entry:\n"
                             "  %a = add %n, i32 1 : i32\n"
                             "}\n";
  CompileResult Invalid = optimizeIRSource("h.tir", NoTerminator, Opts);
  EXPECT_FALSE(Invalid.ok());
  EXPECT_FALSE(hasSeverity(Invalid, Severity::Internal));
  EXPECT_NE(Invalid.formattedDiagnostics().find("invalid IR"), std::string::npos)
      << Invalid.formattedDiagnostics();

  EXPECT_FALSE(optimizeIRFile("/nonexistent/x.tir", Opts).ok());
}
