//===- LoweringAccessesTest.cpp - The lowering's own barrier statements ---===//

#include "tritonc/analysis/LoweringAccesses.h"

#include <gtest/gtest.h>

using namespace tritonc::analysis;

namespace {

SyncStatement scratch(bool Write) {
  SyncStatement S;
  (Write ? S.Writes : S.Reads).push_back(ScratchUnit);
  return S;
}

std::string shape(const std::vector<SyncStatement> &Statements) {
  std::string Out;
  for (const SyncStatement &S : Statements)
    Out +=
        S.IsBarrier ? "b" : std::string(S.Writes.empty() ? "" : "W") + (S.Reads.empty() ? "" : "R");
  return Out;
}

} // namespace

// A conversion stores and loads back: the load needs the lowering's own
// barrier, and so does a second conversion's store after the first's loads.
TEST(LoweringAccesses, RoundTripsGetBarriersBetweenTheirAccesses) {
  std::vector<SyncStatement> Two = {scratch(true), scratch(false), scratch(true), scratch(false)};
  EXPECT_EQ(shape(withInternalBarriers(Two)), "WbRbWbR");
  EXPECT_TRUE(conflictsWithSegment({scratch(true)}, scratch(false)));
  EXPECT_TRUE(conflictsWithSegment({scratch(false)}, scratch(true)));
  EXPECT_FALSE(conflictsWithSegment({scratch(false)}, scratch(false)));
  EXPECT_FALSE(conflictsWithSegment({}, scratch(true)));
}

// Statements between two barriers merge into one: the pass then places a
// barrier only before an instruction's first statement. A barrier the
// lowering starts with stays first.
TEST(LoweringAccesses, SegmentsMergeAndLeadingBarriersStay) {
  SyncStatement Global;
  Global.Probes.push_back({uint64_t(1) << 50, (uint64_t(1) << 50) + 1});
  SyncStatement Barrier;
  Barrier.IsBarrier = true;
  std::vector<SyncStatement> Out =
      withInternalBarriers({Barrier, scratch(true), scratch(false), Global});
  ASSERT_EQ(shape(Out), "bWbR");
  EXPECT_EQ(Out[3].Probes.size(), 1u); // the global access joined the read
  EXPECT_TRUE(withInternalBarriers({}).empty());
}
