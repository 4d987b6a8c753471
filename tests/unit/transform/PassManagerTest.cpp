#include "TestUtil.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"

#include <sstream>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::transform;
using namespace tritonc::transform::test;

namespace {

const char *Simple = R"(define void @f(i32* %p) {
entry:
  %a = add i32 1, i32 2 : i32
  %dead = mul %a, %a : i32
  store %p, %a
  ret
}
)";

TEST(PassManager, UnknownPassListsKnownPasses) {
  PassManager PM;
  std::string Error;
  EXPECT_FALSE(PM.addPipeline("dce,nope,cse", Error));
  EXPECT_TRUE(contains(Error, "unknown pass 'nope'")) << Error;
  for (auto &[Name, Desc] : registeredPasses())
    EXPECT_TRUE(contains(Error, Name)) << Error;
  // Nothing of a rejected pipeline is added.
  EXPECT_EQ(PM.size(), 0u);
}

TEST(PassManager, EmptyNameInListIsAnError) {
  PassManager PM;
  std::string Error;
  EXPECT_FALSE(PM.addPipeline("dce,,cse", Error));
  EXPECT_TRUE(contains(Error, "empty pass name")) << Error;
}

TEST(PassManager, EmptyPipelineRunsNothing) {
  PassManager PM;
  std::string Error;
  EXPECT_TRUE(PM.addPipeline("", Error));
  EXPECT_EQ(PM.size(), 0u);
  auto M = parse(Simple);
  std::string Before = printModule(*M);
  EXPECT_TRUE(PM.run(*M, Error));
  EXPECT_EQ(printModule(*M), Before);
}

TEST(PassManager, RegistryAndDefaultPipeline) {
  auto Passes = registeredPasses();
  std::vector<std::string> Names;
  for (auto &[Name, Desc] : Passes) {
    Names.push_back(Name);
    EXPECT_FALSE(Desc.empty());
    std::unique_ptr<Pass> P = createPassByName(Name);
    ASSERT_TRUE(P);
    EXPECT_EQ(std::string(P->name()), Name);
  }
  for (const char *N : {"dce", "cse", "constfold", "licm", "peephole"})
    EXPECT_NE(std::find(Names.begin(), Names.end(), N), Names.end()) << N;
  PassManager PM;
  std::string Error;
  EXPECT_TRUE(PM.addPipeline(defaultPipeline(), Error)) << Error;
  EXPECT_EQ(PM.size(), 6u);
}

TEST(PassManager, RunsPassesInOrder) {
  auto M = parse(Simple);
  PassManager PM;
  std::string Error;
  ASSERT_TRUE(PM.addPipeline("constfold,dce", Error));
  ASSERT_TRUE(PM.run(*M, Error)) << Error;
  std::string Out = printModule(*M);
  EXPECT_TRUE(contains(Out, "store %p, i32 3")) << Out;
  EXPECT_FALSE(contains(Out, "mul")) << Out;
}

/// An analysis that counts how often it is built.
struct CountingAnalysis {
  static inline int Built = 0;
  explicit CountingAnalysis(const Function &) { ++Built; }
};

/// Fetches CountingAnalysis, then changes the function or not.
class UsesAnalysisPass : public Pass {
public:
  explicit UsesAnalysisPass(bool Changes) : Changes(Changes) {}
  const char *name() const override { return "uses-analysis"; }
  bool run(Function &F, AnalysisManager &AM) override {
    AM.get<CountingAnalysis>(F);
    return Changes;
  }
  bool Changes;
};

TEST(AnalysisManager, CachesUntilInvalidated) {
  auto M = parse(Simple);
  Function &F = *M->functions()[0];
  AnalysisManager AM;
  CountingAnalysis::Built = 0;
  CountingAnalysis *A = &AM.get<CountingAnalysis>(F);
  EXPECT_EQ(&AM.get<CountingAnalysis>(F), A);
  EXPECT_EQ(CountingAnalysis::Built, 1);
  EXPECT_TRUE(AM.isCached<CountingAnalysis>(F));
  AM.invalidate(F);
  EXPECT_FALSE(AM.isCached<CountingAnalysis>(F));
  AM.get<CountingAnalysis>(F);
  EXPECT_EQ(CountingAnalysis::Built, 2);
  EXPECT_EQ(AM.numComputed(), 2u);
}

TEST(AnalysisManager, LoopInfoFetchesDominatorTree) {
  auto M = parse(Simple);
  Function &F = *M->functions()[0];
  AnalysisManager AM;
  AM.get<LoopInfo>(F);
  EXPECT_TRUE(AM.isCached<DominatorTree>(F));
  EXPECT_TRUE(AM.isCached<LoopInfo>(F));
  EXPECT_EQ(AM.numComputed(), 2u);
  AM.get<DominatorTree>(F);
  EXPECT_EQ(AM.numComputed(), 2u);
}

TEST(PassManager, InvalidatesOnlyAfterChange) {
  auto M = parse(Simple);
  std::string Error;
  CountingAnalysis::Built = 0;
  {
    PassManager PM;
    PM.addPass(std::make_unique<UsesAnalysisPass>(false));
    PM.addPass(std::make_unique<UsesAnalysisPass>(false));
    ASSERT_TRUE(PM.run(*M, Error));
  }
  EXPECT_EQ(CountingAnalysis::Built, 1); // the second pass reused the first's
  CountingAnalysis::Built = 0;
  {
    PassManager PM;
    PM.addPass(std::make_unique<UsesAnalysisPass>(true));
    PM.addPass(std::make_unique<UsesAnalysisPass>(false));
    ASSERT_TRUE(PM.run(*M, Error));
  }
  EXPECT_EQ(CountingAnalysis::Built, 2); // the change dropped the cache
}

/// Deliberately breaks SSA: makes the first store use a value defined after it.
class BreakingPass : public Pass {
public:
  const char *name() const override { return "breaker"; }
  bool run(Function &F, AnalysisManager &) override {
    BasicBlock *BB = F.getEntryBlock();
    IRBuilder B(*F.getParent());
    B.setInsertPoint(BB, BB->iteratorTo(BB->getTerminator()));
    Instruction *Late = B.createBinary(Opcode::Add, B.getI32(1), B.getI32(1));
    for (auto &I : BB->instructions())
      if (I->getOpcode() == Opcode::Store) {
        I->setOperand(1, Late);
        break;
      }
    return true;
  }
};

TEST(PassManager, VerifyEachNamesTheBreakingPass) {
  auto M = parse(Simple);
  std::string Error;
  PassOptions O;
  O.VerifyEach = true;
  PassManager PM(O);
  ASSERT_TRUE(PM.addPipeline("dce", Error));
  PM.addPass(std::make_unique<BreakingPass>());
  ASSERT_TRUE(PM.addPipeline("cse", Error));
  EXPECT_FALSE(PM.run(*M, Error));
  EXPECT_TRUE(contains(Error, "after pass 'breaker'")) << Error;
}

/// A pass that finds the user's input unusable, as print-layouts does with
/// non-power-of-two tiles.
struct RejectingPass : Pass {
  const char *name() const override { return "rejecter"; }
  bool run(Function &, AnalysisManager &) override {
    throw PassInputError{"this input is not supported", SourceLoc()};
  }
};

TEST(PassManager, AnInputErrorIsReportedAsAnErrorNotAnInternalOne) {
  auto M = parse(Simple);
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  PassManager PM;
  PM.addPass(std::make_unique<RejectingPass>());
  EXPECT_FALSE(PM.run(*M, Diags, "the test pipeline"));
  std::string Out = Diags.formatAll();
  EXPECT_TRUE(contains(Out, "error: this input is not supported")) << Out;
  EXPECT_FALSE(contains(Out, "internal")) << Out;
  // A pass that breaks down is the compiler's error, named as such.
  DiagnosticEngine Diags2(SM);
  PassOptions O;
  O.VerifyEach = true;
  PassManager PM3(O);
  PM3.addPass(std::make_unique<BreakingPass>());
  EXPECT_FALSE(PM3.run(*M, Diags2, "the test pipeline"));
  EXPECT_TRUE(contains(Diags2.formatAll(), "the test pipeline failed")) << Diags2.formatAll();
}

TEST(PassManager, WithoutVerifyEachBrokenIRGoesUnnoticed) {
  auto M = parse(Simple);
  std::string Error;
  PassManager PM;
  PM.addPass(std::make_unique<BreakingPass>());
  EXPECT_TRUE(PM.run(*M, Error));
}

TEST(PassManager, PrintAfterAllAndTimePasses) {
  auto M = parse(Simple);
  std::ostringstream Log;
  PassOptions O;
  O.PrintAfterAll = true;
  O.TimePasses = true;
  O.Log = &Log;
  PassManager PM(O);
  std::string Error;
  ASSERT_TRUE(PM.addPipeline("constfold,dce", Error));
  ASSERT_TRUE(PM.run(*M, Error));
  std::string S = Log.str();
  size_t A = S.find("; *** IR after constfold ***\n");
  size_t B = S.find("; *** IR after dce ***\n");
  ASSERT_NE(A, std::string::npos) << S;
  ASSERT_NE(B, std::string::npos) << S;
  EXPECT_LT(A, B);
  EXPECT_TRUE(contains(S.substr(A, B - A), "define void @f")) << S;
  EXPECT_TRUE(contains(S, "Pass execution timing report")) << S;
  EXPECT_TRUE(contains(S, "constfold\n")) << S;
  EXPECT_TRUE(contains(S, "Total\n")) << S;
}

} // namespace
