// simplifycfg: speculation of pure triangles and diamonds into selects, and
// merging of straight-line blocks.
#include "TestUtil.h"

#include "tritonc/transform/SimplifyCFG.h"

#include <chrono>

using namespace tritonc::transform::test;

namespace {

TEST(SimplifyCFG, TriangleBecomesSelect) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n) {
entry:
  %c = icmp sgt %n, i32 0 : i1
  cond_br %c, ^rhs, ^end
rhs:
  %d = icmp slt %n, i32 10 : i1
  br ^end
end:
  %v = phi [i1 0, ^entry], [%d, ^rhs] : i1
  %z = zext %v : i32
  store %p, %z
  ret
}
)",
                                "simplifycfg");
  EXPECT_FALSE(contains(Out, "cond_br")) << Out;
  EXPECT_FALSE(contains(Out, "phi")) << Out;
  EXPECT_FALSE(contains(Out, "rhs:")) << Out;
  EXPECT_FALSE(contains(Out, "end:")) << Out;
  EXPECT_TRUE(contains(Out, "%v = select %c, %d, i1 0 : i1")) << Out;
}

TEST(SimplifyCFG, FalseSideTriangleAndTileSelect) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i1 %c) {
entry:
  %r = make_range 0, 4 : i32<4>
  cond_br %c, ^end, ^other
other:
  %s = splat i32 3 : i32<4>
  %a = add %r, %s : i32<4>
  br ^end
end:
  %v = phi [%r, ^entry], [%a, ^other] : i32<4>
  %sp = splat %p : i32*<4>
  store %sp, %v
  ret
}
)",
                                "simplifycfg");
  EXPECT_TRUE(contains(Out, "%v = select %c, %r, %a : i32<4>")) << Out;
  EXPECT_FALSE(contains(Out, "cond_br")) << Out;
}

TEST(SimplifyCFG, DiamondBecomesSelect) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n) {
entry:
  %c = icmp sgt %n, i32 0 : i1
  cond_br %c, ^t, ^e
t:
  %x = mul %n, i32 2 : i32
  br ^j
e:
  %y = sub i32 0, %n : i32
  br ^j
j:
  %v = phi [%x, ^t], [%y, ^e] : i32
  %w = phi [i32 1, ^t], [i32 1, ^e] : i32
  %s = add %v, %w : i32
  store %p, %s
  ret
}
)",
                                "simplifycfg");
  EXPECT_TRUE(contains(Out, "%v = select %c, %x, %y : i32")) << Out;
  // Equal values need no select.
  EXPECT_TRUE(contains(Out, "%s = add %v, i32 1 : i32")) << Out;
  EXPECT_FALSE(contains(Out, "phi")) << Out;
  EXPECT_FALSE(contains(Out, "br ^")) << Out;
}

TEST(SimplifyCFG, KeepsLoadsDivisionsAndLargeSides) {
  // A load, a division by a variable and a side with too many instructions
  // may not run on paths where they did not.
  std::string Big;
  for (unsigned I = 0; I <= tritonc::transform::MaxSpeculatedInstructions; ++I)
    Big += "  %b" + std::to_string(I) + " = add %n, i32 " + std::to_string(I) + " : i32\n";
  for (const std::string &Side :
       {std::string("  %x = load %p : i32\n"), std::string("  %x = sdiv i32 7, %n : i32\n"),
        Big + "  %x = add %b0, %b1 : i32\n"}) {
    std::string Text = "define void @f(i32* %p, i32 %n) {\nentry:\n"
                       "  %c = icmp ne %n, i32 0 : i1\n  cond_br %c, ^t, ^j\nt:\n" +
                       Side +
                       "  br ^j\nj:\n  %v = phi [i32 0, ^entry], [%x, ^t] : i32\n"
                       "  store %p, %v\n  ret\n}\n";
    std::string Out = runPipeline(Text, "simplifycfg");
    EXPECT_TRUE(contains(Out, "cond_br %c, ^t, ^j")) << Out;
    EXPECT_TRUE(contains(Out, "phi")) << Out;
  }
}

TEST(SimplifyCFG, MergesChainsAndKeepsLoopHeaders) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n) {
entry:
  br ^a
a:
  %x = add %n, i32 1 : i32
  br ^loop
loop:
  %i = phi [i32 0, ^a], [%i1, ^inc] : i32
  %c = icmp slt %i, %x : i1
  cond_br %c, ^body, ^exit
body:
  %q = gep %p, %i : i32*
  br ^inc
inc:
  store %q, %i
  %i1 = add %i, i32 1 : i32
  br ^loop
exit:
  ret
}
)",
                                "simplifycfg");
  // entry+a merge; body+inc merge; the loop header keeps its two
  // predecessors.
  EXPECT_TRUE(contains(Out, "entry:\n  %x = add %n, i32 1 : i32\n  br ^loop\n")) << Out;
  EXPECT_TRUE(contains(Out, "%i = phi [i32 0, ^entry], [%i1, ^body] : i32")) << Out;
  EXPECT_TRUE(contains(Out, "body:\n  %q = gep %p, %i : i32*\n  store %q, %i\n")) << Out;
  EXPECT_FALSE(contains(Out, "inc:")) << Out;
  EXPECT_FALSE(contains(Out, "\na:")) << Out;
}

TEST(SimplifyCFG, AnUnreachablePredecessorKeepsItsSuccessor) {
  // ^t's predecessors are ^entry and the unreachable ^u: folding ^t into
  // ^entry would leave ^u branching to an erased block.
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n, i1 %c) {
entry:
  cond_br %c, ^t, ^j
t:
  %x = add %n, i32 1 : i32
  br ^j
u:
  br ^t
j:
  %v = phi [%x, ^t], [%n, ^entry] : i32
  store %p, %v
  ret
}
)",
                                "simplifycfg");
  EXPECT_TRUE(contains(Out, "cond_br %c, ^t, ^j")) << Out;
  EXPECT_TRUE(contains(Out, "u:\n  br ^t")) << Out;
}

TEST(SimplifyCFG, ALongChainOfIfsIsFoldedInLinearTime) {
  // 20,000 triangles in a row (hostile input; issue 26): the pass once
  // rescanned the function after each fold and took minutes.
  const int N = 20000;
  std::string Text = "define void @f(i32* %p, i32 %n) {\nentry:\n  br ^b0\n";
  for (int I = 0; I < N; ++I) {
    std::string B = "b" + std::to_string(I), T = "t" + std::to_string(I),
                Next = "b" + std::to_string(I + 1);
    std::string Prev = I == 0 ? "%n" : "%v" + std::to_string(I - 1);
    Text += B + ":\n  %c" + std::to_string(I) + " = icmp sgt %n, i32 " + std::to_string(I) +
            " : i1\n  cond_br %c" + std::to_string(I) + ", ^" + T + ", ^" + Next + "x\n";
    Text += T + ":\n  %a" + std::to_string(I) + " = add " + Prev + ", i32 " + std::to_string(I) +
            " : i32\n  br ^" + Next + "x\n";
    Text += Next + "x:\n  %v" + std::to_string(I) + " = phi [%a" + std::to_string(I) + ", ^" + T +
            "], [" + Prev + ", ^" + B + "] : i32\n  br ^" + Next + "\n";
  }
  Text += "b" + std::to_string(N) + ":\n  store %p, %v" + std::to_string(N - 1) + "\n  ret\n}\n";
  // The yardstick, measured in the same run: parsing the text, which is
  // linear in its size.
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  std::unique_ptr<tritonc::ir::Module> M = parse(Text);
  ASSERT_TRUE(M);
  auto T1 = Clock::now();
  tritonc::transform::PassManager PM;
  std::string Error;
  ASSERT_TRUE(PM.addPipeline("simplifycfg", Error)) << Error;
  ASSERT_TRUE(PM.run(*M, Error)) << Error;
  auto T2 = Clock::now();
  ASSERT_TRUE(isValid(*M));
  std::string Out = tritonc::ir::printModule(*M);
  // One block is left: every triangle became a select and every join merged.
  EXPECT_FALSE(contains(Out, "cond_br")) << Out.substr(0, 2000);
  EXPECT_FALSE(contains(Out, "\nb1:")) << Out.substr(0, 2000);
  // Linear: within a small multiple of the parse (the quadratic version took
  // thousands of times longer).
  double Parse = std::chrono::duration<double>(T1 - T0).count();
  double Pass = std::chrono::duration<double>(T2 - T1).count();
  EXPECT_LT(Pass, 20 * Parse + 0.05) << "parse " << Parse << " s, simplifycfg " << Pass << " s";
}

TEST(SimplifyCFG, NothingToDoIsNoChange) {
  const char *Text = R"(define void @f(i32* %p, i1 %c) {
entry:
  cond_br %c, ^t, ^e
t:
  store %p, i32 1
  br ^e
e:
  ret
}
)";
  auto M = parse(Text);
  ASSERT_TRUE(M);
  tritonc::transform::PassManager PM;
  std::string Error;
  ASSERT_TRUE(PM.addPipeline("simplifycfg", Error)) << Error;
  std::string Before = tritonc::ir::printModule(*M);
  ASSERT_TRUE(PM.run(*M, Error)) << Error;
  EXPECT_EQ(Before, tritonc::ir::printModule(*M));
}

} // namespace
