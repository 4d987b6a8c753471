//===- BarrierPlacementTest.cpp - Tests of shared-memory barriers ---------===//

#include "tritonc/analysis/BarrierPlacement.h"

#include "tritonc/support/Diagnostics.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace tritonc;
using namespace tritonc::analysis;

namespace {

using Points = std::vector<BarrierPoint>;

SyncStatement rd(uint64_t B, uint64_t E) { return {{{B, E}}, {}, false, {}, {}, {}, {}, {}}; }
SyncStatement wr(uint64_t B, uint64_t E) { return {{}, {{B, E}}, false, {}, {}, {}, {}, {}}; }
SyncStatement none() { return {}; }
SyncStatement barrier() { return {{}, {}, true, {}, {}, {}, {}, {}}; }
/// Marks [B, E) without a check; probes [PB, PE) without a mark.
SyncStatement mark(uint64_t B, uint64_t E) { return {{}, {}, false, {{B, E}}, {}, {}, {}, {}}; }
SyncStatement probe(uint64_t B, uint64_t E) { return {{}, {}, false, {}, {{B, E}}, {}, {}, {}}; }

SyncBlock block(std::vector<SyncStatement> Stmts, std::vector<unsigned> Succs = {}) {
  return {std::move(Stmts), std::move(Succs), {}};
}

constexpr HazardKind RAW = HazardKind::ReadAfterWrite;
constexpr HazardKind WAR = HazardKind::WriteAfterRead;
constexpr HazardKind WAW = HazardKind::WriteAfterWrite;
constexpr HazardKind PAM = HazardKind::ProbeAfterMark;

TEST(BarrierPlacementTest, EmptyInputs) {
  EXPECT_EQ(placeBarriers({}), Points{});
  EXPECT_EQ(placeBarriers({block({})}), Points{});
}

TEST(BarrierPlacementTest, WriteThenReadSameBytes) {
  EXPECT_EQ(placeBarriers({block({wr(0, 64), none(), rd(0, 64)})}), (Points{{0, 2, RAW}}));
}

TEST(BarrierPlacementTest, PartialOverlapIsAConflict) {
  EXPECT_EQ(placeBarriers({block({wr(0, 64), rd(63, 100)})}), (Points{{0, 1, RAW}}));
  // Touching intervals share no byte.
  EXPECT_EQ(placeBarriers({block({wr(0, 64), rd(64, 100)})}), Points{});
}

TEST(BarrierPlacementTest, DisjointIntervalsNeedNothing) {
  EXPECT_EQ(placeBarriers({block({wr(0, 64), rd(64, 128), wr(128, 256), rd(256, 300)})}), Points{});
}

TEST(BarrierPlacementTest, ReadThenWriteIsWAR) {
  EXPECT_EQ(placeBarriers({block({rd(0, 16), wr(8, 24)})}), (Points{{0, 1, WAR}}));
}

TEST(BarrierPlacementTest, WriteAfterWriteIsOptional) {
  std::vector<SyncBlock> CFG = {block({wr(0, 16), wr(0, 16)})};
  EXPECT_EQ(placeBarriers(CFG), (Points{{0, 1, WAW}}));
  EXPECT_EQ(placeBarriers(CFG, {/*DetectWriteAfterWrite=*/false}), Points{});
}

TEST(BarrierPlacementTest, SecondReadAfterBarrierNeedsNoOtherBarrier) {
  EXPECT_EQ(placeBarriers({block({wr(0, 64), rd(0, 64), rd(0, 64), rd(0, 32)})}),
            (Points{{0, 1, RAW}}));
}

TEST(BarrierPlacementTest, StatementsOwnAccessesSurviveItsBarrier) {
  // The barrier before statement 1 orders the read of [0,8); the write of
  // [8,16) by that same statement happens after it, so the read in statement
  // 2 still needs a barrier (the thesis's OUT = {} would miss this).
  SyncStatement ReadAWriteB = {{{0, 8}}, {{8, 16}}, false, {}, {}, {}, {}, {}};
  EXPECT_EQ(placeBarriers({block({wr(0, 8), ReadAWriteB, rd(8, 16)})}),
            (Points{{0, 1, RAW}, {0, 2, RAW}}));
}

TEST(BarrierPlacementTest, ProbesMeetOnlyMarks) {
  // A probe meets what was marked before, not what it probes itself; marks
  // and probes do not meet reads and writes of the same intervals.
  EXPECT_EQ(placeBarriers({block({mark(0, 8), probe(8, 16), probe(4, 5)})}), (Points{{0, 2, PAM}}));
  EXPECT_EQ(placeBarriers({block({probe(0, 8), probe(0, 8), mark(0, 8)})}), Points{});
  EXPECT_EQ(placeBarriers({block({rd(0, 8), probe(0, 8), wr(16, 24)})}), Points{});
  // Marks flow along the CFG like writes, and a barrier clears them.
  EXPECT_EQ(placeBarriers({block({probe(0, 8), mark(0, 8)}, {0})}), (Points{{0, 0, PAM}}));
  EXPECT_EQ(placeBarriers({block({mark(0, 8), barrier(), probe(0, 8)})}), Points{});
  // A statement's own marks come after its barrier.
  SyncStatement MarkAndProbe = {{}, {}, false, {{0, 8}}, {{0, 8}}, {}, {}, {}};
  EXPECT_EQ(placeBarriers({block({MarkAndProbe, MarkAndProbe})}), (Points{{0, 1, PAM}}));
}

TEST(BarrierPlacementTest, WarProbesMeetOnlyReadsAndWarMarks) {
  SyncStatement WarMark;
  WarMark.WarMarks = {{0, 8}};
  SyncStatement WarProbe;
  WarProbe.WarProbes = {{4, 12}};
  constexpr HazardKind WPAM = HazardKind::WarProbeAfterMark;
  EXPECT_EQ(placeBarriers({block({WarMark, WarProbe})}), (Points{{0, 1, WPAM}}));
  EXPECT_EQ(placeBarriers({block({rd(0, 8), WarProbe})}), (Points{{0, 1, WPAM}}));
  // A WAR probe adds nothing: a read after it needs no barrier, nor does a
  // second probe; WAR marks are not writes.
  EXPECT_EQ(placeBarriers({block({WarProbe, rd(0, 16), WarMark, rd(0, 16)})}), Points{});
  EXPECT_EQ(placeBarriers({block({WarMark, barrier(), WarProbe})}), Points{});
}

TEST(BarrierPlacementTest, EntryWideningTurnsAStaleIntervalIntoItsRange) {
  // 0 -> 1 (loop: marks [0,1) "the slot of index i", probes [1,2) "the slot
  // of index j != i") -> 1, 2. Without widening the loop needs nothing;
  // widening [0,1) to [0,2) on entry to 1 makes the mark of iteration n
  // meet the probe of iteration n + 1.
  std::vector<SyncBlock> CFG = {block({}, {1}), block({mark(0, 1), probe(1, 2)}, {1, 2}),
                                block({})};
  EXPECT_EQ(placeBarriers(CFG), Points{});
  CFG[1].OnEntry = {{{{0, 1}}, {{0, 2}}}};
  EXPECT_EQ(placeBarriers(CFG), (Points{{1, 1, PAM}}));
  // Only sets that meet the stale interval widen.
  CFG[1].OnEntry = {{{{5, 6}}, {{0, 2}}}};
  EXPECT_EQ(placeBarriers(CFG), Points{});
}

TEST(BarrierPlacementTest, ExistingBarrierClearsSets) {
  EXPECT_EQ(placeBarriers({block({wr(0, 64), barrier(), rd(0, 64)})}), Points{});
  EXPECT_EQ(placeBarriers({block({rd(0, 64), barrier(), wr(0, 64)})}), Points{});
  // An existing barrier in a predecessor block clears what flows out of it.
  EXPECT_EQ(placeBarriers({block({wr(0, 64), barrier()}, {1}), block({rd(0, 64)})}), Points{});
}

TEST(BarrierPlacementTest, BarrierKeepsWhatItDoesNotOrder) {
  // A barrier that keeps [0, 16) (one the interpreter of the IR does not
  // run) leaves a write there unordered, and orders the rest.
  SyncStatement Partial = barrier();
  Partial.Keeps = {{0, 16}};
  EXPECT_EQ(placeBarriers({block({wr(0, 32), Partial, rd(16, 32)})}), Points{});
  EXPECT_EQ(placeBarriers({block({wr(0, 32), Partial, rd(8, 12)})}), (Points{{0, 2, RAW}}));
  EXPECT_EQ(placeBarriers({block({rd(0, 32), Partial, wr(4, 8)})}), (Points{{0, 2, WAR}}));
  // Kept across blocks too.
  EXPECT_EQ(placeBarriers({block({wr(0, 32), Partial}, {1}), block({rd(0, 4)})}),
            (Points{{1, 0, RAW}}));
}

TEST(BarrierPlacementTest, RedundantBarrierIsDropped) {
  // A loop whose header makes the slot the body reads "any slot" (an index
  // defined again) and whose body overwrites another slot asynchronously
  // (checked against reads only, as a tma_load): the exit's overwrite is
  // found first and gets a barrier, then the body's needs one after its read,
  // which orders the exit's too, so the exit's is dropped.
  SyncStatement AsyncWrite = none();
  AsyncWrite.WarProbes = {{8, 16}};
  SyncStatement ExitWrite = none();
  ExitWrite.WarProbes = {{0, 8}};
  SyncBlock Header = block({}, {2, 3});
  Header.OnEntry = {{{{0, 8}}, {{0, 16}}}};
  EXPECT_EQ(placeBarriers(
                {block({}, {1}), Header, block({rd(0, 8), AsyncWrite}, {1}), block({ExitWrite})}),
            (Points{{2, 1, HazardKind::WarProbeAfterMark}}));
}

TEST(BarrierPlacementTest, LoopBackEdgeCarriesWrites) {
  // 0: entry -> 1: header reads A -> 2: body, barrier, ..., writes A -> 1; 1 -> 3.
  // Within one iteration the barrier orders the read before the write; only
  // the write of iteration i against the read of iteration i+1 (across the
  // back edge) conflicts.
  std::vector<SyncBlock> CFG = {
      block({none()}, {1}),
      block({rd(0, 128)}, {2, 3}),
      block({barrier(), none(), wr(0, 128)}, {1}),
      block({}),
  };
  EXPECT_EQ(placeBarriers(CFG), (Points{{1, 0, RAW}}));
  // Without the back edge there is nothing to synchronize.
  CFG[2].Successors = {3};
  EXPECT_EQ(placeBarriers(CFG), Points{});
}

TEST(BarrierPlacementTest, LoopWithoutExistingBarrierNeedsTwo) {
  // Read at the top, write at the bottom: WAR inside one iteration, RAW
  // across the back edge.
  std::vector<SyncBlock> CFG = {
      block({}, {1}),
      block({rd(0, 128), none(), wr(0, 128)}, {1, 2}),
      block({}),
  };
  EXPECT_EQ(placeBarriers(CFG), (Points{{1, 0, RAW}, {1, 2, WAR}}));
}

TEST(BarrierPlacementTest, LoopReadOnlyAfterPrologueWriteNeedsOneBarrier) {
  // The prologue writes; the loop only reads. One barrier before the first
  // read; after it, the back edge carries only reads, which do not conflict.
  std::vector<SyncBlock> CFG = {
      block({wr(0, 32)}, {1}),
      block({rd(0, 32), rd(0, 16)}, {1, 2}),
      block({rd(16, 32)}),
  };
  EXPECT_EQ(placeBarriers(CFG), (Points{{1, 0, RAW}}));
}

TEST(BarrierPlacementTest, DiamondJoinSeesWritesOfOneBranch) {
  std::vector<SyncBlock> CFG = {
      block({rd(512, 520)}, {1, 2}),
      block({wr(0, 64)}, {3}),
      block({none()}, {3}),
      block({rd(32, 40)}),
  };
  EXPECT_EQ(placeBarriers(CFG), (Points{{3, 0, RAW}}));
  // If the writing branch synchronizes at its end, the join needs nothing.
  CFG[1].Statements.push_back(barrier());
  EXPECT_EQ(placeBarriers(CFG), Points{});
}

TEST(BarrierPlacementTest, UnreachableBlocksAreAnalyzedFromEmptySets) {
  std::vector<SyncBlock> CFG = {block({wr(0, 8)}), block({wr(0, 8), rd(0, 8)})};
  EXPECT_EQ(placeBarriers(CFG), (Points{{1, 1, RAW}}));
}

TEST(BarrierPlacementTest, BadInputIsInternalError) {
  EXPECT_THROW(placeBarriers({block({}, {1})}), InternalError);
  EXPECT_THROW(placeBarriers({block({rd(8, 4)})}), InternalError);
}

/// A statement on a path, with whether a barrier precedes its accesses.
struct FlatStmt {
  const SyncStatement *S;
  bool BarrierBefore;
};

bool overlap(const std::vector<ByteInterval> &A, const std::vector<ByteInterval> &B) {
  for (const ByteInterval &X : A)
    for (const ByteInterval &Y : B)
      if (X.Begin < X.End && Y.Begin < Y.End && X.Begin < Y.End && Y.Begin < X.End)
        return true;
  return false;
}

/// Brute force: along every path from the entry of at most MaxBlocks blocks,
/// any two conflicting accesses must have a barrier between them.
void expectSoundOnAllPaths(const std::vector<SyncBlock> &CFG, const Points &Barriers,
                           unsigned MaxBlocks) {
  std::vector<std::vector<bool>> Inserted(CFG.size());
  for (size_t B = 0; B < CFG.size(); ++B)
    Inserted[B].assign(CFG[B].Statements.size(), false);
  for (const BarrierPoint &P : Barriers)
    Inserted[P.Block][P.Statement] = true;

  std::vector<FlatStmt> Path;
  std::function<void(unsigned, unsigned)> Walk = [&](unsigned B, unsigned Depth) {
    size_t Mark = Path.size();
    for (size_t I = 0; I < CFG[B].Statements.size(); ++I) {
      const SyncStatement &S = CFG[B].Statements[I];
      Path.push_back({&S, S.IsBarrier || Inserted[B][I]});
    }
    // Check the newly appended statements against everything before them
    // back to the nearest barrier.
    for (size_t J = Mark; J < Path.size(); ++J) {
      for (size_t I = J; I-- > 0;) {
        if (Path[I + 1].BarrierBefore)
          break;
        const SyncStatement &Early = *Path[I].S, &Late = *Path[J].S;
        EXPECT_FALSE(overlap(Early.Writes, Late.Reads)) << "unsynchronized RAW";
        EXPECT_FALSE(overlap(Early.Reads, Late.Writes)) << "unsynchronized WAR";
        EXPECT_FALSE(overlap(Early.Writes, Late.Writes)) << "unsynchronized WAW";
      }
    }
    if (Depth + 1 < MaxBlocks && !::testing::Test::HasFailure())
      for (unsigned S : CFG[B].Successors)
        Walk(S, Depth + 1);
    Path.resize(Mark);
  };
  Walk(0, 0);
}

std::vector<ByteInterval> randomIntervals(std::mt19937 &Rng) {
  std::uniform_int_distribution<unsigned> Count(0, 2), Pos(0, 12), Len(1, 4);
  std::vector<ByteInterval> R;
  unsigned N = Count(Rng);
  for (unsigned I = 0; I < N; ++I) {
    uint64_t B = Pos(Rng);
    R.push_back({B, B + Len(Rng)});
  }
  return R;
}

TEST(BarrierPlacementTest, RandomCFGsAreSoundOnAllBoundedPaths) {
  std::mt19937 Rng(7);
  std::uniform_int_distribution<unsigned> NumBlocks(1, 5), NumStmts(0, 3), NumSuccs(0, 2),
      Coin(0, 9);
  unsigned TotalBarriers = 0;
  for (int Case = 0; Case < 400; ++Case) {
    unsigned N = NumBlocks(Rng);
    std::vector<SyncBlock> CFG(N);
    for (SyncBlock &B : CFG) {
      unsigned K = NumStmts(Rng);
      for (unsigned I = 0; I < K; ++I)
        B.Statements.push_back(
            {randomIntervals(Rng), randomIntervals(Rng), Coin(Rng) == 0, {}, {}, {}, {}, {}});
      unsigned S = NumSuccs(Rng);
      for (unsigned I = 0; I < S; ++I)
        B.Successors.push_back(std::uniform_int_distribution<unsigned>(0, N - 1)(Rng));
    }
    Points Barriers = placeBarriers(CFG);
    TotalBarriers += Barriers.size();
    EXPECT_EQ(placeBarriers(CFG), Barriers) << "not deterministic";
    SCOPED_TRACE("case " + std::to_string(Case));
    expectSoundOnAllPaths(CFG, Barriers, 7);
    for (const BarrierPoint &P : Barriers)
      EXPECT_FALSE(CFG[P.Block].Statements[P.Statement].IsBarrier);
    if (::testing::Test::HasFailure())
      return;
  }
  // The generator must exercise the interesting case.
  EXPECT_GT(TotalBarriers, 100u);
}

TEST(BarrierPlacementTest, BruteForceCheckerDetectsMissingBarrier) {
  // Guards the checker above: with no barriers a racy program must fail it.
  EXPECT_NONFATAL_FAILURE(
      expectSoundOnAllPaths(std::vector<SyncBlock>{block({wr(0, 4), rd(0, 4)})}, {}, 3),
      "unsynchronized RAW");
}

} // namespace
