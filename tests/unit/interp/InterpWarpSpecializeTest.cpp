//===- InterpWarpSpecializeTest.cpp - Partitions on the interpreter -------===//
//
// The partitions of a warp_specialize run as coroutines: the running one
// goes on until it blocks on an mbarrier or joins, a release hands over to
// the partition it wakes, every partition blocked is a located deadlock,
// and a partition's barrier orders only its own accesses
// (docs/WARP-SPECIALIZATION.md). The matmuls are lit tests
// (tests/lit/warp-specialize).
//
//===----------------------------------------------------------------------===//
#include "InterpTestUtil.h"

#include "tritonc/ir/IRParser.h"

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

namespace {

/// Runs @k(i32* %X) with X = {0, 0, 0, 0}, one program, on Body (the
/// blocks after the entry's mbarrier %bar, initialized for one arrival,
/// and %bar2, for one too); X receives what it stored.
InterpResult runPartitions(const std::string &Body, std::vector<int32_t> &X) {
  std::string Text = "#blk = #blocked<size_per_thread=[1], threads_per_warp=[32], "
                     "warps_per_cta=[4], order=[0]>\n"
                     "define kernel void @k(i32* %X) {\nentry:\n"
                     "  %bar = smem_alloc : smem<i64<1>>\n"
                     "  %bar2 = smem_alloc : smem<i64<1>>\n"
                     "  %buf = smem_alloc : smem<i32<128>>\n"
                     "  %x1 = gep %X, i32 1 : i32*\n"
                     "  mbarrier_init %bar, 1\n"
                     "  mbarrier_init %bar2, 1\n" +
                     Body + "}\n";
  SourceManager SM;
  FileId Id = SM.addBuffer("ws.tir", Text);
  DiagnosticEngine Diags(SM);
  std::unique_ptr<Module> M = ir::parseIR(SM, Id, Diags);
  EXPECT_TRUE(M) << Diags.formatAll();
  if (!M)
    return {false, "parse error"};
  X.assign(4, 0);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X")};
  InterpOptions Opts;
  Opts.Sources = &SM;
  return runKernel(*M->getFunction("k"), {1, 1, 1}, {ArgValue::buffer(0)}, Bufs, Opts);
}

void expectError(const InterpResult &R, const std::string &Part) {
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find(Part), std::string::npos) << R.Error;
}

TEST(InterpWarpSpecialize, WaitOrdersThePartitions) {
  // Partition 0 runs first and blocks; partition 1's arrival wakes it,
  // and it runs at once: its stores come after partition 1's first two
  // and before partition 1's last one.
  std::vector<int32_t> X;
  InterpResult R = runPartitions(R"(  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  mbarrier_wait %bar, i32 0
  store %X, i32 2
  store %x1, i32 4
  warp_join ^done
p1:
  store %X, i32 1
  store %x1, i32 5
  mbarrier_arrive %bar
  store %x1, i32 3
  warp_join ^done
done:
  ret
)",
                                 X);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(X[0], 2);
  EXPECT_EQ(X[1], 3);
}

TEST(InterpWarpSpecialize, EveryPartitionBlockedIsADeadlock) {
  std::vector<int32_t> X;
  InterpResult R = runPartitions(R"(  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  mbarrier_wait %bar, i32 0
  mbarrier_arrive %bar2
  warp_join ^done
p1:
  mbarrier_wait %bar2, i32 0
  mbarrier_arrive %bar
  warp_join ^done
done:
  ret
)",
                                 X);
  expectError(R, "mbarrier_wait at ws.tir:16:3");
  expectError(R, "deadlock: every partition of the warp_specialize waits; partition 0 waits at "
                 "mbarrier_wait at ws.tir:12:3");
  expectError(R, "partition 1 waits at mbarrier_wait at ws.tir:16:3");
  expectError(R, "phase 0: 1 of 1 arrivals missing");
  // A partition that joined cannot release the others either.
  R = runPartitions(R"(  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  warp_join ^done
p1:
  mbarrier_wait %bar, i32 0
  warp_join ^done
done:
  ret
)",
                    X);
  expectError(R, "partition 0 has joined; partition 1 waits at");
}

TEST(InterpWarpSpecialize, GenericTrafficBetweenPartitionsIsAnError) {
  std::vector<int32_t> X;
  InterpResult R = runPartitions(R"(  %v = make_range 0, 128 : i32<128, #blk>
  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  local_store %buf, %v
  barrier
  mbarrier_arrive %bar
  warp_join ^done
p1:
  mbarrier_wait %bar, i32 0
  %w = local_load %buf : i32<128, #blk>
  warp_join ^done
done:
  ret
)",
                                 X);
  expectError(R, "local_load at ws.tir:");
  expectError(R, "accesses shared memory that partition 0 accessed through the generic proxy");
}

TEST(InterpWarpSpecialize, PartitionBarrierOrdersOnlyItsOwnWarps) {
  // Written by the whole CTA before the fork: a partition's barrier does
  // not order the other partition's warps' writes before its reads.
  std::string Body = R"(  %v = make_range 0, 128 : i32<128, #blk>
  local_store %buf, %v
  CTA-BARRIER
  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  barrier
  %w = local_load %buf : i32<128>
  %s = reduce add %w, 0 : i32
  store %X, %s
  warp_join ^done
p1:
  warp_join ^done
done:
  %u = local_load %buf : i32<128>
  %t = reduce add %u, 0 : i32
  store %x1, %t
  ret
)";
  std::vector<int32_t> X;
  std::string Missing = Body;
  Missing.replace(Missing.find("CTA-BARRIER"), 11, "");
  expectError(runPartitions(Missing, X), "(missing barrier)");
  std::string Placed = Body;
  Placed.replace(Placed.find("CTA-BARRIER"), 11, "barrier");
  InterpResult R = runPartitions(Placed, X);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(X[0], 127 * 128 / 2);
  EXPECT_EQ(X[1], 127 * 128 / 2); // the join is a CTA-wide barrier
}

TEST(InterpWarpSpecialize, PartitionJoiningWithWorkInFlightIsAnError) {
  std::vector<int32_t> X;
  InterpResult R = runPartitions(R"(  %p = splat %X : i32*<128, #blk>
  %o = make_range 0, 128 : i32<128, #blk>
  %four = splat i32 4 : i32<128, #blk>
  %m = icmp slt %o, %four : i1<128, #blk>
  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  warp_join ^done
p1:
  %q = gep %p, %o : i32*<128, #blk>
  cp_async %buf, %q, %m
  cp_async_commit
  warp_join ^done
done:
  ret
)",
                                 X);
  expectError(R, "warp_join at ws.tir:");
  expectError(R, "the partition ends while the cp_async at ws.tir:");
}

TEST(InterpWarpSpecialize, CommitGroupsArePerPartition) {
  // Partition 0's cp_async_wait 0 does not retire partition 1's copy: its
  // read of the slot when partition 1 hands over is an error.
  std::vector<int32_t> X;
  InterpResult R = runPartitions(R"(  %p = splat %X : i32*<128, #blk>
  %o = make_range 0, 128 : i32<128, #blk>
  %four = splat i32 4 : i32<128, #blk>
  %m = icmp slt %o, %four : i1<128, #blk>
  warp_specialize ^p0 warps(4), ^p1 warps(4)
p0:
  mbarrier_wait %bar, i32 0
  cp_async_wait 0
  %w = local_load %buf : i32<128, #blk>
  warp_join ^done
p1:
  %q = gep %p, %o : i32*<128, #blk>
  cp_async %buf, %q, %m
  cp_async_commit
  mbarrier_arrive %bar
  cp_async_wait 0
  warp_join ^done
done:
  ret
)",
                                 X);
  expectError(R, "local_load at ws.tir:");
  expectError(R, "reads shared memory that the pending cp_async at ws.tir:");
}

} // namespace
