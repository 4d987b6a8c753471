#include "TestUtil.h"

#include "tritonc/transform/Utils.h"

using namespace tritonc;
using namespace tritonc::transform;
using namespace tritonc::transform::test;

namespace {

// Blocks are listed out of control-flow order so that reverse post-order
// (entry, then, exit) differs from the order in the text.
const char *Diamond = R"(define void @f(i32* %p, i32 %n) {
entry:
  %a = add %n, i32 1 : i32
  br ^then
exit:
  %c = add %n, i32 3 : i32
  store %p, %n
  ret
then:
  %b = add %n, i32 2 : i32
  br ^exit
}
)";

TEST(SweepUntilUnchanged, VisitsInReversePostOrderAndStopsAfterACleanSweep) {
  std::unique_ptr<ir::Module> M = parse(Diamond);
  ASSERT_TRUE(M);
  std::vector<std::string> Seen;
  unsigned Calls = 0;
  bool Changed = sweepUntilUnchanged(*M->functions().front(), [&](ir::Instruction &I) {
    if (!I.getName().empty())
      Seen.push_back(I.getName());
    // Report a change on the first sweep only (7 instructions).
    return ++Calls <= 7;
  });
  EXPECT_TRUE(Changed);
  EXPECT_EQ(Calls, 14u); // one sweep with changes, one without
  std::vector<std::string> Expected{"a", "b", "c", "a", "b", "c"};
  EXPECT_EQ(Seen, Expected);
}

TEST(SweepUntilUnchanged, ReportsNoChangeAndAllowsErasingTheVisitedInstruction) {
  std::unique_ptr<ir::Module> M = parse(Diamond);
  ASSERT_TRUE(M);
  ir::Function &F = *M->functions().front();
  EXPECT_FALSE(sweepUntilUnchanged(F, [](ir::Instruction &) { return false; }));
  bool Changed = sweepUntilUnchanged(F, [](ir::Instruction &I) {
    if (I.getOpcode() != ir::Opcode::Add || I.hasUses())
      return false;
    I.dropAllOperands();
    I.eraseFromParent();
    return true;
  });
  EXPECT_TRUE(Changed);
  EXPECT_TRUE(isValid(*M));
  std::string Out = ir::printModule(*M);
  EXPECT_FALSE(contains(Out, "add")) << Out;
  EXPECT_TRUE(contains(Out, "store %p, %n")) << Out;
}

// %b uses %a, and both are roots, the user first: erasing %b frees %a, which
// must not be read again (the loop over roots that this replaced did, seen
// by AddressSanitizer in tensor-copies).
TEST(EraseTriviallyDead, RootThatIsAnotherRootsOperandIsErasedOnce) {
  std::unique_ptr<ir::Module> M = parse(R"(define void @f(i32* %p, i32 %n) {
entry:
  %a = add %n, i32 1 : i32
  %b = add %a, i32 2 : i32
  %c = add %n, i32 3 : i32
  store %p, %c
  ret
}
)");
  ASSERT_TRUE(M);
  ir::Function &F = *M->functions().front();
  std::vector<ir::Value *> Roots;
  for (auto &I : F.getEntryBlock()->instructions())
    if (I->getName() == "b" || I->getName() == "a" || I->getName() == "c")
      Roots.insert(Roots.begin(), I.get());
  ASSERT_EQ(Roots.size(), 3u);
  eraseTriviallyDead(Roots);
  EXPECT_TRUE(isValid(*M));
  std::string Out = ir::printModule(*M);
  EXPECT_FALSE(contains(Out, "%a =")) << Out;
  EXPECT_FALSE(contains(Out, "%b =")) << Out;
  EXPECT_TRUE(contains(Out, "%c = add")) << Out;
}

} // namespace
