#include "TestUtil.h"

using namespace tritonc::transform::test;

namespace {

/// The text of block Name (from its label to the next blank-line-free label).
std::string blockText(const std::string &Out, const std::string &Name) {
  size_t S = Out.find("\n" + Name + ":\n");
  if (S == std::string::npos)
    return "<no block " + Name + ">";
  size_t E = Out.find(":\n", S + Name.size() + 3);
  if (E != std::string::npos)
    E = Out.rfind('\n', E);
  return Out.substr(S + 1, E == std::string::npos ? std::string::npos : E - S);
}

TEST(LICM, HoistsInvariantsIntoExistingPreheader) {
  std::string Out = runPipeline(R"(define void @f(f32* %p, i32 %n) {
entry:
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [%i1, ^loop] : i32
  %pid = get_program_id 0 : i32
  %off = mul %n, %pid : i32
  %r = make_range 0, 4 : i32<4>
  %so = splat %off : i32<4>
  %idx = add %so, %r : i32<4>
  %si = splat %i : i32<4>
  %idx2 = add %idx, %si : i32<4>
  %sp = splat %p : f32*<4>
  %q = gep %sp, %idx2 : f32*<4>
  %v = load %q : f32<4>
  %w = fadd %v, %v : f32<4>
  store %q, %w
  %i1 = add %i, i32 4 : i32
  %c = icmp slt %i1, %n : i1
  cond_br %c, ^loop, ^exit
exit:
  ret
}
)",
                                "licm");
  std::string Entry = blockText(Out, "entry"), Loop = blockText(Out, "loop");
  for (const char *Hoisted :
       {"get_program_id", "%off = mul", "make_range", "%so = splat", "%idx = add", "%sp = splat"}) {
    EXPECT_TRUE(contains(Entry, Hoisted)) << Hoisted << "\n" << Out;
    EXPECT_FALSE(contains(Loop, Hoisted)) << Hoisted << "\n" << Out;
  }
  for (const char *Kept : {"%si = splat %i", "%idx2", "gep", "load", "fadd", "store", "%i1"})
    EXPECT_TRUE(contains(Loop, Kept)) << Kept << "\n" << Out;
  // Hoisted code goes before the preheader's branch.
  EXPECT_TRUE(contains(Entry, "\n  br ^loop\n")) << Out;
}

TEST(LICM, CreatesPreheaderAndMergesOutsidePhiEntries) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n, i1 %c) {
entry:
  cond_br %c, ^a, ^loop
a:
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [i32 1, ^a], [%i1, ^loop] : i32
  %k = mul %n, %n : i32
  %i1 = add %i, %k : i32
  store %p, %i1
  %d = icmp slt %i1, %n : i1
  cond_br %d, ^loop, ^exit
exit:
  ret
}
)",
                                "licm");
  std::string PH = blockText(Out, "loop.preheader");
  EXPECT_TRUE(contains(PH, "%i.ph = phi [i32 0, ^entry], [i32 1, ^a] : i32")) << Out;
  EXPECT_TRUE(contains(PH, "%k = mul %n, %n")) << Out;
  EXPECT_TRUE(contains(PH, "br ^loop")) << Out;
  EXPECT_TRUE(contains(Out, "cond_br %c, ^a, ^loop.preheader")) << Out;
  EXPECT_TRUE(contains(blockText(Out, "loop"), "%i = phi [%i.ph, ^loop.preheader], [%i1, ^loop]"))
      << Out;
}

TEST(LICM, NeverHoistsMemoryOrTrappingDivision) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n, i32 %d) {
entry:
  br ^loop
loop:
  %i = phi [i32 0, ^entry], [%i1, ^loop] : i32
  %v = load %p : i32
  %q = sdiv %n, %d : i32
  %h = sdiv %n, i32 3 : i32
  %old = atomic_rmw add %p, %n : i32
  %s = add %v, %q : i32
  %s2 = add %s, %h : i32
  store %p, %s2
  %i1 = add %i, i32 1 : i32
  %c = icmp slt %i1, %n : i1
  cond_br %c, ^loop, ^exit
exit:
  ret
}
)",
                                "licm");
  std::string Loop = blockText(Out, "loop");
  EXPECT_TRUE(contains(Loop, "load %p")) << Out;
  EXPECT_TRUE(contains(Loop, "%q = sdiv %n, %d")) << Out;
  EXPECT_TRUE(contains(Loop, "atomic_rmw")) << Out;
  EXPECT_TRUE(contains(blockText(Out, "entry"), "%h = sdiv %n, i32 3")) << Out;
}

TEST(LICM, HoistsOutOfNestedLoopsToTheOutermostPreheader) {
  std::string Out = runPipeline(R"(define void @f(i32* %p, i32 %n) {
entry:
  br ^outer
outer:
  %i = phi [i32 0, ^entry], [%i1, ^latch] : i32
  br ^inner
inner:
  %j = phi [i32 0, ^outer], [%j1, ^inner] : i32
  %k = mul %n, %n : i32
  %ik = add %i, %k : i32
  %v = add %ik, %j : i32
  store %p, %v
  %j1 = add %j, i32 1 : i32
  %cj = icmp slt %j1, %n : i1
  cond_br %cj, ^inner, ^latch
latch:
  %i1 = add %i, i32 1 : i32
  %ci = icmp slt %i1, %n : i1
  cond_br %ci, ^outer, ^exit
exit:
  ret
}
)",
                                "licm");
  EXPECT_TRUE(contains(blockText(Out, "entry"), "%k = mul %n, %n")) << Out;
  // %ik depends on %i: invariant in the inner loop only.
  EXPECT_TRUE(contains(blockText(Out, "outer"), "%ik = add %i, %k")) << Out;
  EXPECT_TRUE(contains(blockText(Out, "inner"), "%v = add %ik, %j")) << Out;
}

} // namespace
