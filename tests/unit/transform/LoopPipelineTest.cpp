// pipeline: the shape of the pipelined loop (preheader loads, header phi
// chain, new loads after the dot), the results on the interpreter for 2, 3
// and 4 stages, and the loops it must leave alone.
#include "TestUtil.h"

#include "tritonc/interp/Interpreter.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/LoopPipeline.h"
#include "tritonc/transform/Passes.h"

#include <cmath>
#include <cstring>

using namespace tritonc;
using namespace tritonc::transform;
using namespace tritonc::transform::test;

namespace {

const char *Signature = "define kernel void @mm(f32* %A, f32* %B, f32* %C, i32 %K) {\nentry:";

// The entry block of the 4x4 kernels below: A is 4 x K (row stride K), B is
// K x 4, C is 4 x 4.
const char *Prologue = R"(
  %r = make_range 0, 4 : i32<4>
  %rr = reshape %r : i32<4,1>
  %rc = reshape %r : i32<1,4>
  %sk = splat %K : i32<4,1>
  %rowa = mul %rr, %sk : i32<4,1>
  %rowab = broadcast %rowa : i32<4,4>
  %rcb = broadcast %rc : i32<4,4>
  %offa = add %rowab, %rcb : i32<4,4>
  %spa = splat %A : f32*<4,4>
  %pa0 = gep %spa, %offa : f32*<4,4>
  %s4 = splat i32 4 : i32<4,1>
  %rowb = mul %rr, %s4 : i32<4,1>
  %rowbb = broadcast %rowb : i32<4,4>
  %offb = add %rowbb, %rcb : i32<4,4>
  %spb = splat %B : f32*<4,4>
  %pb0 = gep %spb, %offb : f32*<4,4>
  %z = splat f32 0 : f32<4,4>
  %stepa = splat i32 4 : i32<4,4>
  %stepb = splat i32 16 : i32<4,4>
)";

const char *Epilogue = R"(exit:
  %spc = splat %C : f32*<4,4>
  %pc = gep %spc, %offb : f32*<4,4>
  store %pc, %acc
  ret
}
)";

// Tutorial form: unmasked loads at the top of the body (K is a multiple of
// 4), the dot, then the pointer increments.
std::string tutorialKernel(const std::string &BodyExtra = "") {
  return std::string(Signature) + Prologue + R"(  br ^loop
loop:
  %k = phi [i32 0, ^entry], [%k1, ^body] : i32
  %pa = phi [%pa0, ^entry], [%pa1, ^body] : f32*<4,4>
  %pb = phi [%pb0, ^entry], [%pb1, ^body] : f32*<4,4>
  %acc = phi [%z, ^entry], [%acc1, ^body] : f32<4,4>
  %c = icmp slt %k, %K : i1
  cond_br %c, ^body, ^exit
body:
  %a = load %pa : f32<4,4>
  %b = load %pb : f32<4,4>
  %acc1 = dot %a, %b, %acc : f32<4,4>
  %pa1 = gep %pa, %stepa : f32*<4,4>
  %pb1 = gep %pb, %stepb : f32*<4,4>
  %k1 = add %k, i32 4 : i32
)" + BodyExtra +
         "  br ^loop\n" + Epilogue;
}

// Prefetch form: the first tiles are loaded before the loop, the body loads
// the next ones after the dot under a scalar "next iteration runs" mask, and
// B reaches the dot through trans(trans(.)). The loop counts down.
const std::string PrefetchKernel = std::string(Signature) + Prologue +
                                   R"(  %c0 = icmp sgt %K, i32 0 : i1
  %m0 = splat %c0 : i1<4,4>
  %a0 = masked_load %pa0, %m0, %z : f32<4,4>
  %b0 = masked_load %pb0, %m0, %z : f32<4,4>
  br ^loop
loop:
  %k = phi [%K, ^entry], [%k1, ^body] : i32
  %pa = phi [%pa0, ^entry], [%pa1, ^body] : f32*<4,4>
  %pb = phi [%pb0, ^entry], [%pb1, ^body] : f32*<4,4>
  %acc = phi [%z, ^entry], [%acc1, ^body] : f32<4,4>
  %a = phi [%a0, ^entry], [%an, ^body] : f32<4,4>
  %b = phi [%b0, ^entry], [%bn, ^body] : f32<4,4>
  %c = icmp sgt %k, i32 0 : i1
  cond_br %c, ^body, ^exit
body:
  %bt = trans %b : f32<4,4>
  %btt = trans %bt : f32<4,4>
  %acc1 = dot %a, %btt, %acc : f32<4,4>
  %pa1 = gep %pa, %stepa : f32*<4,4>
  %pb1 = gep %pb, %stepb : f32*<4,4>
  %k1 = sub %k, i32 4 : i32
  %more = icmp sgt %k, i32 4 : i1
  %mm = splat %more : i1<4,4>
  %an = masked_load %pa1, %mm, %z : f32<4,4>
  %bn = masked_load %pb1, %mm, %z : f32<4,4>
  br ^loop
)" + Epilogue;

ir::BasicBlock *blockNamed(ir::Function &F, const std::string &Name) {
  for (auto &BB : F.blocks())
    if (BB->getName() == Name)
      return BB.get();
  ADD_FAILURE() << "no block " << Name;
  return nullptr;
}

unsigned countOpcode(const ir::BasicBlock &BB, ir::Opcode Op) {
  unsigned N = 0;
  for (auto &I : BB.instructions())
    N += I->getOpcode() == Op;
  return N;
}

/// Runs simplifycfg and pipeline with NumStages on M, verifying after each.
/// simplifycfg and pipeline; WithRings adds async-rings and insert-barriers.
void pipeline(ir::Module &M, unsigned NumStages, bool WithRings = false) {
  PassManager PM(PassOptions{.VerifyEach = true});
  PM.addPass(createPassByName("simplifycfg"));
  PM.addPass(createLoopPipelinePass(NumStages));
  if (WithRings) {
    PM.addPass(createPassByName("async-rings"));
    PM.addPass(createPassByName("insert-barriers"));
  }
  std::string Error;
  ASSERT_TRUE(PM.run(M, Error)) << Error;
}

/// Runs the kernel on the interpreter; returns C (NaN-poisoned before).
std::vector<float> runMatmul(const ir::Module &M, int K) {
  // At least one element: a buffer needs an address even when K = 0.
  std::vector<float> A(std::max(1, 4 * K)), B(std::max(1, K * 4)), C(16, std::nanf(""));
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = static_cast<float>(static_cast<int>(I * 7 % 11) - 5);
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = static_cast<float>(static_cast<int>(I * 5 % 7) - 3);
  // Exact sizes: a read past the end of A or B is an interpreter error.
  std::vector<interp::HostBuffer> Buffers = {{A.data(), A.size() * sizeof(float), "A"},
                                             {B.data(), B.size() * sizeof(float), "B"},
                                             {C.data(), C.size() * sizeof(float), "C"}};
  using interp::ArgValue;
  interp::InterpResult R = interp::runKernel(
      *M.functions()[0], {1, 1, 1},
      {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2), ArgValue::integer(K)},
      Buffers);
  EXPECT_TRUE(R.Ok) << R.Error << "\n" << ir::printModule(M);
  return C;
}

void expectSameResults(const std::string &Text, unsigned NumStages, bool WithRings = false) {
  auto Before = parse(Text);
  auto After = parse(Text);
  ASSERT_TRUE(Before && After);
  pipeline(*After, NumStages, WithRings);
  for (int K : {0, 4, 8, 12, 20}) {
    std::vector<float> Expected = runMatmul(*Before, K), Got = runMatmul(*After, K);
    EXPECT_EQ(0, std::memcmp(Expected.data(), Got.data(), Expected.size() * sizeof(float)))
        << "K=" << K << " stages=" << NumStages << "\n"
        << ir::printModule(*After);
  }
}

/// The instructions of BB from the last dot on, as opcodes.
std::vector<ir::Opcode> tailAfterDot(const ir::BasicBlock &BB) {
  std::vector<ir::Opcode> Tail;
  for (auto &I : BB.instructions()) {
    if (I->getOpcode() == ir::Opcode::Dot)
      Tail.clear();
    Tail.push_back(I->getOpcode());
  }
  return Tail;
}

TEST(LoopPipeline, TutorialFormShape) {
  for (unsigned S : {2u, 3u, 4u}) {
    auto M = parse(tutorialKernel());
    ASSERT_TRUE(M);
    pipeline(*M, S);
    ir::Function &F = *M->functions()[0];
    unsigned D = S - 1;
    ir::BasicBlock *Entry = blockNamed(F, "entry"), *Loop = blockNamed(F, "loop"),
                   *Body = blockNamed(F, "body");
    ASSERT_TRUE(Entry && Loop && Body);
    // D tiles of A and B before the loop; a chain of D phis per operand.
    EXPECT_EQ(2 * D, countOpcode(*Entry, ir::Opcode::MaskedLoad)) << ir::printModule(*M);
    EXPECT_EQ(4 + 2 * D, countOpcode(*Loop, ir::Opcode::Phi)) << ir::printModule(*M);
    // The body: the dot, then arithmetic, then the two new loads, grouped.
    EXPECT_EQ(0u, countOpcode(*Body, ir::Opcode::Load)) << ir::printModule(*M);
    std::vector<ir::Opcode> Tail = tailAfterDot(*Body);
    ASSERT_GE(Tail.size(), 4u);
    EXPECT_EQ(ir::Opcode::Dot, Tail.front());
    EXPECT_EQ(ir::Opcode::Br, Tail.back());
    EXPECT_EQ(ir::Opcode::MaskedLoad, Tail[Tail.size() - 2]);
    EXPECT_EQ(ir::Opcode::MaskedLoad, Tail[Tail.size() - 3]);
    EXPECT_EQ(2u, countOpcode(*Body, ir::Opcode::MaskedLoad)) << ir::printModule(*M);
    std::string Out = ir::printModule(*M);
    // The dot reads the head of the chain; the last link takes the new load.
    EXPECT_TRUE(contains(Out, "dot %a.pipe0, %b.pipe0, %acc")) << Out;
    EXPECT_TRUE(contains(Out, "[%a.next, ^body]")) << Out;
    EXPECT_TRUE(contains(Out, "%a.pipe" + std::to_string(D - 1) + " = phi [%a.pre" +
                                  std::to_string(D - 1) + ", ^entry], [%a.next, ^body]"))
        << Out;
  }
}

TEST(LoopPipeline, TutorialFormKeepsResults) {
  for (unsigned S : {2u, 3u, 4u})
    expectSameResults(tutorialKernel(), S);
}

TEST(LoopPipeline, ExitOnTheTrueSideAndComputedSteps) {
  // The header branches to the exit when its condition holds, and k and pb
  // advance by steps computed at run time (repeated, not multiplied).
  std::string Text = tutorialKernel();
  for (auto [From, To] : std::vector<std::pair<std::string, std::string>>{
           {"  %c = icmp slt %k, %K : i1\n  cond_br %c, ^body, ^exit\n",
            "  %c = icmp sge %k, %K : i1\n  cond_br %c, ^exit, ^body\n"},
           {"  %k1 = add %k, i32 4 : i32\n", "  %k1 = add %four, %k : i32\n"},
           {"  %pb1 = gep %pb, %stepb : f32*<4,4>\n",
            "  %sixteen = mul %four, %four : i32\n  %stepb2 = splat %sixteen : i32<4,4>\n"
            "  %pb1 = gep %pb, %stepb2 : f32*<4,4>\n"},
           // 4, computed so that the pass does not see a constant.
           {"  br ^loop\nloop:",
            "  %k4 = add %K, i32 4 : i32\n  %four = sub %k4, %K : i32\n  br ^loop\nloop:"}}) {
    size_t Pos = Text.find(From);
    ASSERT_NE(Pos, std::string::npos) << From;
    Text.replace(Pos, From.size(), To);
  }
  for (unsigned S : {2u, 3u, 4u}) {
    auto M = parse(Text);
    ASSERT_TRUE(M);
    pipeline(*M, S);
    std::string Out = ir::printModule(*M);
    EXPECT_TRUE(contains(Out, "xor")) << Out;
    EXPECT_TRUE(contains(Out, "%a.next = masked_load")) << Out;
    expectSameResults(Text, S);
  }
}

TEST(LoopPipeline, PrefetchFormShape) {
  auto M = parse(PrefetchKernel);
  ASSERT_TRUE(M);
  pipeline(*M, 3);
  ir::Function &F = *M->functions()[0];
  ir::BasicBlock *Entry = blockNamed(F, "entry"), *Loop = blockNamed(F, "loop"),
                 *Body = blockNamed(F, "body");
  ASSERT_TRUE(Entry && Loop && Body);
  std::string Out = ir::printModule(*M);
  // The hand-written first loads stay; one more iteration is loaded ahead.
  EXPECT_EQ(4u, countOpcode(*Entry, ir::Opcode::MaskedLoad)) << Out;
  EXPECT_EQ(8u, countOpcode(*Loop, ir::Opcode::Phi)) << Out;
  EXPECT_EQ(2u, countOpcode(*Body, ir::Opcode::MaskedLoad)) << Out;
  EXPECT_TRUE(contains(Out, "%a = phi [%a0, ^entry], [%an.pipe1, ^body]")) << Out;
  EXPECT_TRUE(contains(Out, "%an.pipe1 = phi [%an.pre1, ^entry], [%an.next, ^body]")) << Out;
  std::vector<ir::Opcode> Tail = tailAfterDot(*Body);
  ASSERT_GE(Tail.size(), 3u);
  EXPECT_EQ(ir::Opcode::MaskedLoad, Tail[Tail.size() - 2]);
  EXPECT_EQ(ir::Opcode::MaskedLoad, Tail[Tail.size() - 3]);
}

TEST(LoopPipeline, PrefetchFormKeepsResults) {
  for (unsigned S : {2u, 3u, 4u})
    expectSameResults(PrefetchKernel, S);
}

TEST(LoopPipeline, OneStageChangesNothing) {
  auto M = parse(tutorialKernel());
  ASSERT_TRUE(M);
  std::string Before = ir::printModule(*M);
  PassManager PM;
  PM.addPass(createLoopPipelinePass(1));
  std::string Error;
  ASSERT_TRUE(PM.run(*M, Error)) << Error;
  EXPECT_EQ(Before, ir::printModule(*M));
}

/// Pipelines Text's loop with NumStages; the loads of A (pointer %pa) are
/// declined as asynchronous copies and get RegisterStages.
std::unique_ptr<ir::Module> pipelineDecliningA(const std::string &Text, unsigned NumStages,
                                               unsigned RegisterStages) {
  auto M = parse(Text);
  if (!M)
    return nullptr;
  AsyncCopyFilter DeclineA = [](const ir::Instruction &Load) -> std::string {
    return Load.getOperand(0)->getName() == "pa" ? "whose pointers are A's" : "";
  };
  PassManager PM(PassOptions{.VerifyEach = true});
  PM.addPass(createPassByName("simplifycfg"));
  PM.addPass(createLoopPipelinePass(NumStages, true, DeclineA, RegisterStages));
  std::string Error;
  EXPECT_TRUE(PM.run(*M, Error)) << Error;
  return M;
}

TEST(LoopPipeline, LoadsKeptInRegistersAreIssuedRegisterStagesMinusOneAhead) {
  auto Before = parse(tutorialKernel());
  ASSERT_TRUE(Before);
  for (unsigned S : {3u, 4u}) {
    auto M = pipelineDecliningA(tutorialKernel(), S, 2);
    ASSERT_TRUE(M);
    std::string Out = ir::printModule(*M);
    ir::BasicBlock *Entry = blockNamed(*M->functions()[0], "entry");
    ASSERT_TRUE(Entry);
    // B: S - 1 tiles ahead; A: one, its chain a single phi.
    EXPECT_EQ(S - 1 + 1, countOpcode(*Entry, ir::Opcode::MaskedLoad)) << Out;
    EXPECT_TRUE(contains(Out, "%b.pipe" + std::to_string(S - 2) + " = phi")) << Out;
    EXPECT_TRUE(contains(Out, "%a.pipe0 = phi [%a.pre0, ^entry], [%a.next, ^body]")) << Out;
    EXPECT_FALSE(contains(Out, "%a.pipe1")) << Out;
    for (int K : {0, 4, 8, 12, 20}) {
      std::vector<float> Expected = runMatmul(*Before, K), Got = runMatmul(*M, K);
      EXPECT_EQ(0, std::memcmp(Expected.data(), Got.data(), Expected.size() * sizeof(float)))
          << "K=" << K << " stages=" << S << "\n"
          << Out;
    }
  }
  // register_stages >= num_stages: the rule before it, A as far ahead as B.
  std::string Out = ir::printModule(*pipelineDecliningA(tutorialKernel(), 3, 3));
  EXPECT_TRUE(contains(Out, "%a.pipe1 = phi")) << Out;
  // register_stages 1: A stays in its iteration, B is still pipelined.
  Out = ir::printModule(*pipelineDecliningA(tutorialKernel(), 3, 1));
  EXPECT_FALSE(contains(Out, "%a.pipe0")) << Out;
  EXPECT_TRUE(contains(Out, "%a = load %pa")) << Out;
  EXPECT_TRUE(contains(Out, "%b.pipe1 = phi")) << Out;
}

TEST(LoopPipeline, AHandPrefetchKeptInRegistersStaysOneAhead) {
  // The source already reads A one iteration ahead: register_stages 1 cannot
  // take that back, and the pass only adds the guard of that iteration.
  auto M = parse(PrefetchKernel);
  ASSERT_TRUE(M);
  AsyncCopyFilter DeclineAll = [](const ir::Instruction &) -> std::string { return "never"; };
  PassManager PM(PassOptions{.VerifyEach = true});
  PM.addPass(createPassByName("simplifycfg"));
  PM.addPass(createLoopPipelinePass(3, true, DeclineAll, 1));
  std::string Error;
  ASSERT_TRUE(PM.run(*M, Error)) << Error;
  std::string Out = ir::printModule(*M);
  EXPECT_TRUE(contains(Out, "%a = phi [%a0, ^entry], [%an.next, ^body]")) << Out;
  EXPECT_FALSE(contains(Out, "%an.pipe1")) << Out;
}

TEST(LoopPipeline, RegisteredPassHasThreeStages) {
  std::string Out = runPipeline(tutorialKernel(), "simplifycfg,pipeline");
  EXPECT_TRUE(contains(Out, "%a.pipe1 = phi")) << Out;
  EXPECT_FALSE(contains(Out, "%a.pipe2")) << Out;
}

/// Runs pipelineLoop on the innermost loop of Text's first function (the
/// first one with a dot when there are several); expects no change and
/// returns the reason.
std::string bailReason(const std::string &Text) {
  auto M = parse(Text);
  if (!M)
    return "<parse error>";
  ir::Function &F = *M->functions()[0];
  std::string Before = ir::printModule(*M);
  ir::DominatorTree DT(F);
  LoopInfo LI(F, DT);
  std::vector<Loop *> Loops = LI.loopsInnermostFirst();
  if (Loops.empty())
    return "<no loop>";
  LoopPipelineResult R = pipelineLoop(*Loops.back(), 3);
  EXPECT_FALSE(R.Changed);
  EXPECT_EQ(Before, ir::printModule(*M));
  return R.Reason;
}

TEST(LoopPipeline, BailsOutOnStores) {
  std::string Text = tutorialKernel("  %sc = splat %C : f32*<4,4>\n  store %sc, %acc1\n");
  EXPECT_EQ("the loop writes memory", bailReason(Text));
}

TEST(LoopPipeline, BailsOutOnMultiBlockBodies) {
  // Without simplifycfg the body is a diamond.
  std::string Text = tutorialKernel();
  size_t Pos = Text.find("  br ^loop\nexit:");
  Text.replace(Pos, std::string("  br ^loop\n").size(),
               "  %odd = icmp eq %k, i32 8 : i1\n  cond_br %odd, ^t, ^latch\nt:\n"
               "  %x = load %pa : f32<4,4>\n  br ^latch\nlatch:\n  br ^loop\n");
  for (const char *From : {"%k1, ^body]", "%pa1, ^body]", "%pb1, ^body]", "%acc1, ^body]"}) {
    size_t P = Text.find(From);
    Text.replace(P, std::string(From).size(),
                 std::string(From).replace(std::string(From).find("body"), 4, "latch"));
  }
  EXPECT_EQ("the body is not a single block", bailReason(Text));
}

/// The tutorial kernel with A's pointer advanced by Delta, computed after
/// the dot (the text replaces `%pa1 = gep %pa, %stepa`).
std::string withDeltaOfA(const std::string &Delta) {
  std::string Text = tutorialKernel();
  const std::string From = "  %pa1 = gep %pa, %stepa : f32*<4,4>\n";
  Text.replace(Text.find(From), From.size(), Delta + "  %pa1 = gep %pa, %ds : f32*<4,4>\n");
  return Text;
}

TEST(LoopPipeline, PipelinesPointersAdvancedByLoadedDeltas) {
  // pa advances by a delta read from memory in the loop (conv.tc's look-up
  // table): B[k], zeroed and plus 4, so that A stays in bounds while the
  // value still flows through the load. With 4 stages the body needs the
  // address 3 iterations ahead: a header phi carries the recurrence.
  std::string Text = withDeltaOfA("  %dp = gep %B, %k : f32*\n  %df = load %dp : f32\n"
                                  "  %di = fptosi %df : i32\n  %dz = and %di, i32 0 : i32\n"
                                  "  %d4 = add %dz, i32 4 : i32\n  %ds = splat %d4 : i32<4,4>\n");
  for (unsigned S : {2u, 3u, 4u}) {
    auto M = parse(Text);
    ASSERT_TRUE(M);
    pipeline(*M, S);
    std::string Out = ir::printModule(*M);
    EXPECT_TRUE(contains(Out, "%a.next = masked_load")) << Out;
    // The delta of an iteration ahead is a masked load of the table (with 2
    // stages, the address of i + 1 is the loop's own update).
    EXPECT_EQ(S > 2, contains(Out, "= masked_load %dp")) << Out;
    EXPECT_EQ(S == 4, contains(Out, "%pa.ahead = phi")) << Out;
    expectSameResults(Text, S);
    // The same loop with its operands in cp_async rings.
    auto R = parse(Text);
    ASSERT_TRUE(R);
    pipeline(*R, S, /*WithRings=*/true);
    EXPECT_TRUE(contains(ir::printModule(*R), "cp_async_wait " + std::to_string(S - 2)))
        << ir::printModule(*R);
    expectSameResults(Text, S, /*WithRings=*/true);
  }
}

TEST(LoopPipeline, BailsOutOnDeltasLoadedThroughThemselves) {
  // The delta is read through pa itself: the address of a later iteration
  // needs a load at an address that is being computed.
  std::string Text = withDeltaOfA("  %df = load %pa : f32<4,4>\n  %ds = fptosi %df : i32<4,4>\n");
  std::string Why = bailReason(Text);
  EXPECT_EQ(Why.rfind("the address of this dot operand load cannot be computed iterations ahead: "
                      "%pa advances by a step computed in the loop that cannot be computed "
                      "iterations ahead: the step is loaded through addresses computed from %pa "
                      "itself",
                      0),
            0u)
      << Why;
}

TEST(LoopPipeline, GuardsDivisorsOfIterationsAhead) {
  // k / K (0 while the loop runs) offsets A: with K = 0 the loop does not
  // run and the program never divides, so the clone for iteration 0 in the
  // preheader divides by 1 instead (the interpreter fails a division by 0).
  std::string Text = tutorialKernel();
  const std::string From = "  %a = load %pa : f32<4,4>\n";
  Text.replace(Text.find(From), From.size(),
               "  %q = sdiv %k, %K : i32\n  %qs = splat %q : i32<4,4>\n"
               "  %pq = gep %pa, %qs : f32*<4,4>\n  %a = load %pq : f32<4,4>\n");
  auto M = parse(Text);
  ASSERT_TRUE(M);
  pipeline(*M, 3);
  std::string Out = ir::printModule(*M);
  EXPECT_TRUE(contains(Out, "%a.next = masked_load")) << Out;
  EXPECT_TRUE(contains(Out, "select")) << Out;
  expectSameResults(Text, 3);
}

TEST(LoopPipeline, BailsOutOnPrefetchedOperandsUsedAfterTheLoop) {
  std::string Text = PrefetchKernel;
  size_t Pos = Text.find("  store %pc, %acc\n");
  Text.insert(Pos, "  store %pc, %a\n");
  EXPECT_EQ("a prefetched dot operand is used after the loop", bailReason(Text));
}

TEST(LoopPipeline, LeavesLoopsWithoutDotOperandLoadsAlone) {
  std::string Text = tutorialKernel();
  size_t Pos = Text.find("dot %a, %b, %acc");
  Text.replace(Pos, std::string("dot %a, %b, %acc").size(), "dot %z, %z, %acc");
  EXPECT_EQ("no dot operand is loaded in the loop", bailReason(Text));
}

TEST(LoopPipeline, LeavesDotsOfOuterLoopsAlone) {
  // The dot's loop contains another loop: only innermost loops are
  // pipelined, and the inner one has no dot.
  std::string Text = tutorialKernel();
  size_t Pos = Text.find("  br ^loop\nexit:");
  Text.replace(Pos, std::string("  br ^loop\n").size(),
               "  br ^inner\ninner:\n  %j = phi [i32 0, ^body], [%j1, ^inner.body] : i32\n"
               "  %cj = icmp slt %j, i32 2 : i1\n  cond_br %cj, ^inner.body, ^latch\n"
               "inner.body:\n  %j1 = add %j, i32 1 : i32\n  br ^inner\n"
               "latch:\n  br ^loop\n");
  for (const char *From : {"%k1, ^body]", "%pa1, ^body]", "%pb1, ^body]", "%acc1, ^body]"}) {
    size_t P = Text.find(From);
    Text.replace(P, std::string(From).size(),
                 std::string(From).replace(std::string(From).find("body"), 4, "latch"));
  }
  auto M = parse(Text);
  ASSERT_TRUE(M);
  std::string Before = ir::printModule(*M);
  pipeline(*M, 3);
  std::string After = ir::printModule(*M);
  EXPECT_FALSE(contains(After, "pipe")) << After;
  EXPECT_EQ(2u, countOpcode(*blockNamed(*M->functions()[0], "body"), ir::Opcode::Load)) << After;
}

} // namespace
