//===- SharedMemoryAllocatorTest.cpp - Tests of shared-memory offsets -----===//

#include "tritonc/analysis/SharedMemoryAllocator.h"

#include "tritonc/support/Diagnostics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

using namespace tritonc;
using namespace tritonc::analysis;

namespace {

/// Independent brute-force check: every pair of buffers live at a common
/// program point must be disjoint in memory; offsets must be aligned; the
/// total must be the maximum end.
void expectValid(const std::vector<SharedBuffer> &Bufs, const SharedMemoryPlan &Plan) {
  ASSERT_EQ(Plan.Offsets.size(), Bufs.size());
  uint64_t MaxEnd = 0;
  for (size_t I = 0; I < Bufs.size(); ++I) {
    EXPECT_EQ(Plan.Offsets[I] % Bufs[I].Alignment, 0u) << "buffer " << Bufs[I].Id;
    MaxEnd = std::max(MaxEnd, Plan.Offsets[I] + Bufs[I].Size);
    for (size_t J = 0; J < Bufs.size(); ++J) {
      if (I == J)
        continue;
      bool LiveTogether = false;
      for (uint64_t T = Bufs[I].Start; T < Bufs[I].End && !LiveTogether; ++T)
        LiveTogether = Bufs[J].Start <= T && T < Bufs[J].End;
      if (!LiveTogether)
        continue;
      bool MemOverlap = false;
      for (uint64_t X = Plan.Offsets[I]; X < Plan.Offsets[I] + Bufs[I].Size && !MemOverlap; ++X)
        MemOverlap = Plan.Offsets[J] <= X && X < Plan.Offsets[J] + Bufs[J].Size;
      EXPECT_FALSE(MemOverlap) << "buffers " << Bufs[I].Id << " and " << Bufs[J].Id;
    }
  }
  EXPECT_EQ(Plan.TotalSize, MaxEnd);
  EXPECT_EQ(verifySharedMemoryPlan(Bufs, Plan), std::nullopt);
}

std::vector<SharedBuffer> randomBuffers(std::mt19937 &Rng) {
  std::uniform_int_distribution<unsigned> Count(0, 12), Size(0, 40), Log2Align(0, 4), Point(0, 20);
  std::vector<SharedBuffer> Bufs;
  unsigned N = Count(Rng);
  for (unsigned I = 0; I < N; ++I) {
    uint64_t A = Point(Rng), B = Point(Rng);
    Bufs.push_back(
        {I * 7 + 3, Size(Rng), uint64_t(1) << Log2Align(Rng), std::min(A, B), std::max(A, B)});
  }
  return Bufs;
}

TEST(SharedMemoryAllocatorTest, EmptyInput) {
  SharedMemoryPlan Plan = allocateSharedMemory({});
  EXPECT_TRUE(Plan.Offsets.empty());
  EXPECT_EQ(Plan.TotalSize, 0u);
}

TEST(SharedMemoryAllocatorTest, RandomizedNoOverlapAmongInterferingBuffers) {
  std::mt19937 Rng(1234);
  for (int Case = 0; Case < 2000; ++Case) {
    std::vector<SharedBuffer> Bufs = randomBuffers(Rng);
    SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
    SCOPED_TRACE("case " + std::to_string(Case));
    expectValid(Bufs, Plan);
    uint64_t Sum = 0;
    for (const SharedBuffer &B : Bufs)
      Sum += B.Size;
    // Alignment padding aside, never worse than giving each buffer its own
    // memory: the padding is at most Alignment - 1 per buffer.
    uint64_t Padding = 0;
    for (const SharedBuffer &B : Bufs)
      Padding += B.Alignment - 1;
    EXPECT_LE(Plan.TotalSize, Sum + Padding);
    if (::testing::Test::HasFailure())
      return;
  }
}

TEST(SharedMemoryAllocatorTest, AlignmentRespected) {
  std::vector<SharedBuffer> Bufs = {
      {0, 3, 1, 0, 10}, {1, 8, 16, 0, 10}, {2, 5, 64, 0, 10}, {3, 1, 128, 0, 10}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.Offsets[1] % 16, 0u);
  EXPECT_EQ(Plan.Offsets[2] % 64, 0u);
  EXPECT_EQ(Plan.Offsets[3] % 128, 0u);
  // Largest first: 1 at 0, 2 at 64 (alignment), 0 in the gap at 8, 3 at 128.
  EXPECT_EQ(Plan.Offsets, (std::vector<uint64_t>{8, 0, 64, 128}));
  EXPECT_EQ(Plan.TotalSize, 129u);
}

TEST(SharedMemoryAllocatorTest, AllDisjointInTimeReuseOneRegion) {
  std::vector<SharedBuffer> Bufs = {
      {0, 100, 4, 0, 2}, {1, 400, 16, 2, 5}, {2, 64, 8, 5, 9}, {3, 256, 4, 9, 10}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.Offsets, (std::vector<uint64_t>(4, 0)));
  EXPECT_EQ(Plan.TotalSize, 400u);
}

TEST(SharedMemoryAllocatorTest, AllLiveTogetherPackTightly) {
  std::vector<SharedBuffer> Bufs = {{0, 10, 1, 0, 4}, {1, 30, 1, 1, 5}, {2, 20, 1, 3, 9}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.TotalSize, 60u);
  EXPECT_EQ(Plan.Offsets, (std::vector<uint64_t>{50, 0, 30}));
}

TEST(SharedMemoryAllocatorTest, PartialOverlapReusesMemory) {
  // A and C never meet, so C can take A's place next to B.
  std::vector<SharedBuffer> Bufs = {{0, 64, 1, 0, 4}, {1, 64, 1, 2, 8}, {2, 64, 1, 6, 10}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.TotalSize, 128u);
  EXPECT_EQ(Plan.Offsets[0], Plan.Offsets[2]);
  EXPECT_LT(Plan.TotalSize, 192u);
}

TEST(SharedMemoryAllocatorTest, FillsGapBetweenPlacedBuffers) {
  // 0 and 2 are live with everything; 1 lives only early and 3 only late, so
  // 1 and 3 share a slot; 4 fits into the gap left by alignment.
  std::vector<SharedBuffer> Bufs = {{0, 100, 1, 0, 10},
                                    {1, 60, 1, 0, 5},
                                    {2, 50, 128, 0, 10},
                                    {3, 60, 1, 5, 10},
                                    {4, 10, 1, 0, 10}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.Offsets[1], Plan.Offsets[3]);
  EXPECT_EQ(Plan.Offsets[2], 256u);
  EXPECT_EQ(Plan.Offsets[4], 160u);
}

TEST(SharedMemoryAllocatorTest, EmptyLiveRangesAndZeroSizesInterfereWithNothing) {
  std::vector<SharedBuffer> Bufs = {{0, 32, 1, 0, 10}, {1, 16, 4, 3, 3}, {2, 0, 8, 0, 10}};
  SharedMemoryPlan Plan = allocateSharedMemory(Bufs);
  expectValid(Bufs, Plan);
  EXPECT_EQ(Plan.Offsets, (std::vector<uint64_t>{0, 0, 0}));
  EXPECT_EQ(Plan.TotalSize, 32u);
}

TEST(SharedMemoryAllocatorTest, DeterministicAndIndependentOfInputOrder) {
  std::mt19937 Rng(99);
  for (int Case = 0; Case < 200; ++Case) {
    std::vector<SharedBuffer> Bufs = randomBuffers(Rng);
    SharedMemoryPlan A = allocateSharedMemory(Bufs);
    SharedMemoryPlan B = allocateSharedMemory(Bufs);
    EXPECT_EQ(A.Offsets, B.Offsets);
    EXPECT_EQ(A.TotalSize, B.TotalSize);
    // The placement order is a total order on (size, start, id), so permuting
    // the input permutes the offsets the same way.
    std::vector<size_t> Perm(Bufs.size());
    for (size_t I = 0; I < Perm.size(); ++I)
      Perm[I] = I;
    std::shuffle(Perm.begin(), Perm.end(), Rng);
    std::vector<SharedBuffer> Shuffled;
    for (size_t I : Perm)
      Shuffled.push_back(Bufs[I]);
    SharedMemoryPlan C = allocateSharedMemory(Shuffled);
    EXPECT_EQ(C.TotalSize, A.TotalSize);
    for (size_t I = 0; I < Perm.size(); ++I)
      EXPECT_EQ(C.Offsets[I], A.Offsets[Perm[I]]);
  }
}

TEST(SharedMemoryAllocatorTest, VerifierRejectsBadPlans) {
  std::vector<SharedBuffer> Bufs = {{0, 16, 8, 0, 4}, {1, 16, 8, 2, 6}};
  SharedMemoryPlan Good = allocateSharedMemory(Bufs);
  EXPECT_EQ(verifySharedMemoryPlan(Bufs, Good), std::nullopt);
  SharedMemoryPlan Overlap{{0, 8}, 24};
  EXPECT_NE(verifySharedMemoryPlan(Bufs, Overlap), std::nullopt);
  SharedMemoryPlan Misaligned{{0, 20}, 36};
  EXPECT_NE(verifySharedMemoryPlan(Bufs, Misaligned), std::nullopt);
  SharedMemoryPlan WrongTotal{{0, 16}, 40};
  EXPECT_NE(verifySharedMemoryPlan(Bufs, WrongTotal), std::nullopt);
  SharedMemoryPlan WrongCount{{0}, 16};
  EXPECT_NE(verifySharedMemoryPlan(Bufs, WrongCount), std::nullopt);
}

TEST(SharedMemoryAllocatorTest, InvalidRequestsAreInternalErrors) {
  EXPECT_THROW(allocateSharedMemory({{0, 8, 3, 0, 1}}), InternalError);
  EXPECT_THROW(allocateSharedMemory({{0, 8, 0, 0, 1}}), InternalError);
  EXPECT_THROW(allocateSharedMemory({{0, 8, 1, 5, 1}}), InternalError);
  EXPECT_THROW(allocateSharedMemory({{0, 8, 1, 0, 1}, {0, 4, 1, 0, 1}}), InternalError);
}

} // namespace
