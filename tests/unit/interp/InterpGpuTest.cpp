//===- InterpGpuTest.cpp - GPU-level IR on the interpreter ----------------===//
//
// Software-pipelined matmuls written with the GPU-level operations (cp.async
// rings, bulk tensor copies with mbarriers, wgmma) give exactly the result of
// the plain program, and each kind of wrong schedule (an off-by-one wait, a
// missing barrier or proxy fence, a wrong mbarrier phase, a slot reused too
// early) is a located run-time error.
//
//===----------------------------------------------------------------------===//
#include "InterpTestUtil.h"

#include "tritonc/ir/IRParser.h"

#include <algorithm>

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

namespace {

const char *Layouts =
    R"(#blk = #blocked<size_per_thread=[1,8], threads_per_warp=[8,4], warps_per_cta=[4,1], order=[1,0]>
#row = #slice<dim=1, parent=#blk>
#col = #slice<dim=0, parent=#blk>
#acc = #wgmma<warps_per_cta=[4,1], instr_shape=[64,64,16]>
#sw = #shared<swizzle=64, order=[1,0]>
)";

/// Rows m0 + [0, 64) (%arow) and columns n0 + [0, 64) (%bcol) of the
/// program's C tile, and the number of K steps %nk.
const char *Prologue = R"(
  %pm = get_program_id 0 : i32
  %pn = get_program_id 1 : i32
  %m0 = mul %pm, i32 64 : i32
  %n0 = mul %pn, i32 64 : i32
  %nk = sdiv %K, i32 32 : i32
  %ri = make_range 0, 64 : i32<64, #row>
  %am = splat %m0 : i32<64, #row>
  %arow = add %ri, %am : i32<64, #row>
  %rj = make_range 0, 64 : i32<64, #col>
  %bn = splat %n0 : i32<64, #col>
  %bcol = add %rj, %bn : i32<64, #col>
)";

/// IR text defining %P, the pointer tile Base + Rows[i] * Stride + Cols[j]
/// (Rows: i32<R, #row>, Cols: i32<C, #col>, Stride: an i32 scalar), in #blk.
std::string pointerTile(const std::string &P, const std::string &Base, const std::string &Elem,
                        const std::string &Rows, const std::string &Cols, const std::string &Stride,
                        int R, int C) {
  std::string Shape = std::to_string(R) + "," + std::to_string(C);
  std::string T = "<" + Shape + ", #blk>";
  return "  %" + P + ".r = reshape %" + Rows + " : i32<" + std::to_string(R) + ",1, #blk>\n" +
         "  %" + P + ".rb = broadcast %" + P + ".r : i32" + T + "\n" + "  %" + P + ".s = splat %" +
         Stride + " : i32" + T + "\n" + "  %" + P + ".ro = mul %" + P + ".rb, %" + P + ".s : i32" +
         T + "\n" + "  %" + P + ".c = reshape %" + Cols + " : i32<1," + std::to_string(C) +
         ", #blk>\n" + "  %" + P + ".cb = broadcast %" + P + ".c : i32" + T + "\n" + "  %" + P +
         ".o = add %" + P + ".ro, %" + P + ".cb : i32" + T + "\n" + "  %" + P + ".b = splat %" +
         Base + " : " + Elem + "*" + T + "\n" + "  %" + P + " = gep %" + P + ".b, %" + P +
         ".o : " + Elem + "*" + T + "\n";
}

/// Stores %d (the accumulator) to C.
std::string epilogue() {
  return pointerTile("pcb", "C", "f32", "arow", "bcol", "N", 64, 64) + R"(
  %pc = convert_layout %pcb : f32*<64,64, #acc>
  store %pc, %d
  ret
}
)";
}

/// The wgmma of iteration %it on slot %cs of the rings %ra and %rb, and the
/// loop's exit test.
const char *WgmmaStep = R"(  %ca = smem_slot %ra, %cs : smem<f16<64,32>, #sw>
  %cb = smem_slot %rb, %cs : smem<f16<32,64>, #sw>
  wgmma_fence
  %d = wgmma %ca, %cb, %acc, i1 true : f32<64,64, #acc>
  wgmma_commit
  wgmma_wait 0
  cond_br %more, ^loop, ^exit
exit:
)";

/// A two-slot cp.async ring: iteration i computes on slot i % 2 while the
/// copies of iteration i + 1 fly into the other slot.
std::string cpAsyncMatmul() {
  return std::string(Layouts) +
         "define kernel void @mm(f16* %A, f16* %B, f32* %C, i32 %M, i32 %N, i32 %K) {\nentry:" +
         Prologue + R"(
  %rk = make_range 0, 32 : i32<32, #col>
  %rkr = make_range 0, 32 : i32<32, #row>
)" + pointerTile("pa0", "A", "f16", "arow", "rk", "K", 64, 32) +
         pointerTile("pb0", "B", "f16", "rkr", "bcol", "N", 32, 64) + R"(
  %sa = splat i32 32 : i32<64,32, #blk>
  %sbv = mul %N, i32 32 : i32
  %sb = splat %sbv : i32<32,64, #blk>
  %ra = smem_alloc : smem<2 x f16<64,32>, #sw>
  %rb = smem_alloc : smem<2 x f16<32,64>, #sw>
  %sa0 = smem_slot %ra, i32 0 : smem<f16<64,32>, #sw>
  %sb0 = smem_slot %rb, i32 0 : smem<f16<32,64>, #sw>
  cp_async %sa0, %pa0
  cp_async %sb0, %pb0
  cp_async_commit
  %c0 = splat f32 0 : f32<64,64, #acc>
  br ^loop
loop:
  %it = phi [i32 0, ^entry], [%it1, ^loop] : i32
  %acc = phi [%c0, ^entry], [%d, ^loop] : f32<64,64, #acc>
  %pa = phi [%pa0, ^entry], [%pa1, ^loop] : f16*<64,32, #blk>
  %pb = phi [%pb0, ^entry], [%pb1, ^loop] : f16*<32,64, #blk>
  %it1 = add %it, i32 1 : i32
  %more = icmp slt %it1, %nk : i1
  %pa1 = gep %pa, %sa : f16*<64,32, #blk>
  %pb1 = gep %pb, %sb : f16*<32,64, #blk>
  %ns = urem %it1, i32 2 : i32
  %na = smem_slot %ra, %ns : smem<f16<64,32>, #sw>
  %nb = smem_slot %rb, %ns : smem<f16<32,64>, #sw>
  %ma = splat %more : i1<64,32, #blk>
  %mb = splat %more : i1<32,64, #blk>
  cp_async %na, %pa1, %ma
  cp_async %nb, %pb1, %mb
  cp_async_commit
  cp_async_wait 1
  fence_proxy_async
  barrier
  %cs = urem %it, i32 2 : i32
)" + WgmmaStep +
         "  wgmma_wait 0\n" + epilogue();
}

/// The same schedule with bulk tensor copies: slot s has mbarrier s, whose
/// phase flips every time the ring comes back to it.
std::string tmaMatmul() {
  return std::string(Layouts) +
         "define kernel void @mm(f16* %A, f16* %B, f32* %C, i32 %M, i32 %N, i32 %K) {\nentry:" +
         Prologue + R"(
  %K64 = sext %K : i64
  %N64 = sext %N : i64
  %da = make_tensor_desc %A, [%M, %K], [%K64, i64 1] : tdesc<f16<64,32>>
  %db = make_tensor_desc %B, [%K, %N], [%N64, i64 1] : tdesc<f16<32,64>>
  %ra = smem_alloc : smem<2 x f16<64,32>, #sw>
  %rb = smem_alloc : smem<2 x f16<32,64>, #sw>
  %bars = smem_alloc : smem<2 x i64<1>>
  %bar0 = smem_slot %bars, i32 0 : smem<i64<1>>
  %bar1 = smem_slot %bars, i32 1 : smem<i64<1>>
  mbarrier_init %bar0, 1
  mbarrier_init %bar1, 1
  %sa0 = smem_slot %ra, i32 0 : smem<f16<64,32>, #sw>
  %sb0 = smem_slot %rb, i32 0 : smem<f16<32,64>, #sw>
  mbarrier_expect_tx %bar0, 8192
  tma_load %da, [%m0, i32 0], %sa0, %bar0
  tma_load %db, [i32 0, %n0], %sb0, %bar0
  mbarrier_arrive %bar0
  %c0 = splat f32 0 : f32<64,64, #acc>
  br ^loop
loop:
  %it = phi [i32 0, ^entry], [%it1, ^compute] : i32
  %acc = phi [%c0, ^entry], [%d, ^compute] : f32<64,64, #acc>
  %it1 = add %it, i32 1 : i32
  %more = icmp slt %it1, %nk : i1
  cond_br %more, ^issue, ^compute
issue:
  %ns = urem %it1, i32 2 : i32
  %na = smem_slot %ra, %ns : smem<f16<64,32>, #sw>
  %nb = smem_slot %rb, %ns : smem<f16<32,64>, #sw>
  %nbar = smem_slot %bars, %ns : smem<i64<1>>
  %k1 = mul %it1, i32 32 : i32
  mbarrier_expect_tx %nbar, 8192
  tma_load %da, [%m0, %k1], %na, %nbar
  tma_load %db, [%k1, %n0], %nb, %nbar
  mbarrier_arrive %nbar
  br ^compute
compute:
  %cs = urem %it, i32 2 : i32
  %cbar = smem_slot %bars, %cs : smem<i64<1>>
  %round = udiv %it, i32 2 : i32
  %phase = and %round, i32 1 : i32
  mbarrier_wait %cbar, %phase
)" + WgmmaStep +
         epilogue();
}

std::string replaced(std::string S, const std::string &From, const std::string &To) {
  size_t At = S.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  if (At != std::string::npos)
    S.replace(At, From.size(), To);
  return S;
}

/// Text parsed as file Name; M is null (and the test fails) on errors.
struct Parsed {
  SourceManager SM;
  std::unique_ptr<Module> M;
  Parsed(const std::string &Name, const std::string &Text) {
    FileId Id = SM.addBuffer(Name, Text);
    DiagnosticEngine Diags(SM);
    M = parseIR(SM, Id, Diags);
    EXPECT_TRUE(M) << Diags.formatAll();
  }
};

/// Parses Text and runs @mm on a 128 x 128 x 128 problem; checks C against
/// the sequential f32 sum when the run succeeds.
InterpResult runMatmul(const std::string &Text, bool CheckResult = true) {
  Parsed P("mm.tir", Text);
  if (!P.M)
    return {false, "parse error"};
  MatmulData D(128, 128, 128);
  InterpResult R = D.run(*P.M->getFunction("mm"), P.SM);
  if (R.Ok && CheckResult) {
    EXPECT_EQ(D.C, D.Ref); // the order of the f32 additions is the plain dot's
  }
  return R;
}

void expectError(const InterpResult &R, const std::string &Part) {
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find(Part), std::string::npos) << R.Error;
}

TEST(InterpGpu, CpAsyncRingMatchesThePlainProduct) {
  InterpResult R = runMatmul(cpAsyncMatmul());
  EXPECT_TRUE(R.Ok) << R.Error;
}

TEST(InterpGpu, CpAsyncWaitOffByOneIsReported) {
  // Waiting for all but two groups leaves the current slot's copy in flight.
  InterpResult R = runMatmul(replaced(cpAsyncMatmul(), "cp_async_wait 1", "cp_async_wait 2"));
  expectError(R, "program (0,0,0): wgmma at mm.tir:");
  expectError(R, "reads shared memory that the pending cp_async at mm.tir:");
  expectError(R, "missing a cp_async_wait that retires its group");
}

TEST(InterpGpu, MissingBarrierOrFenceIsReported) {
  expectError(runMatmul(replaced(cpAsyncMatmul(), "  barrier\n", "")), "(missing barrier)");
  expectError(runMatmul(replaced(cpAsyncMatmul(), "  fence_proxy_async\n", "")),
              "missing fence_proxy_async");
  expectError(runMatmul(replaced(cpAsyncMatmul(), "  wgmma_fence\n", "")), "without a wgmma_fence");
}

TEST(InterpGpu, SlotReusedWhileWgmmaReadsItIsReported) {
  // Two slots cannot keep a wgmma in flight: the next copy overwrites the
  // slot it still reads.
  std::string Text =
      replaced(cpAsyncMatmul(), "wgmma_wait 0\n  cond_br", "wgmma_wait 1\n  cond_br");
  InterpResult R = runMatmul(Text);
  expectError(R, "cp_async at mm.tir:");
  expectError(R, "overwrites shared memory that the pending wgmma at mm.tir:");
  expectError(R, "missing a wgmma_wait that retires its group");
}

TEST(InterpGpu, ThreeSlotsKeepOneWgmmaInFlight) {
  std::string Text = cpAsyncMatmul();
  Text = replaced(Text, "smem<2 x f16<64,32>", "smem<3 x f16<64,32>");
  Text = replaced(Text, "smem<2 x f16<32,64>", "smem<3 x f16<32,64>");
  Text = replaced(Text, "urem %it1, i32 2", "urem %it1, i32 3");
  Text = replaced(Text, "urem %it, i32 2", "urem %it, i32 3");
  Text = replaced(Text, "wgmma_wait 0\n  cond_br", "wgmma_wait 1\n  cond_br");
  InterpResult R = runMatmul(Text);
  EXPECT_TRUE(R.Ok) << R.Error;
  // Leaving the last wgmma in flight at the store is an off-by-one too.
  R = runMatmul(replaced(Text, "exit:\n  wgmma_wait 0", "exit:\n  wgmma_wait 1"));
  expectError(R, "store at mm.tir:");
  expectError(R, "uses a wgmma result before a wgmma_wait retires its group");
}

TEST(InterpGpu, TensorCopiesWithMbarriersMatchThePlainProduct) {
  InterpResult R = runMatmul(tmaMatmul());
  EXPECT_TRUE(R.Ok) << R.Error;
}

TEST(InterpGpu, WrongMbarrierPhaseIsReported) {
  InterpResult R =
      runMatmul(replaced(tmaMatmul(), "mbarrier_wait %cbar, %phase", "mbarrier_wait %cbar, i32 0"));
  expectError(R, "mbarrier_wait at mm.tir:");
  expectError(R, "phase of parity 0, which cannot complete here");
}

TEST(InterpGpu, MissingExpectTxIsReported) {
  // Without expect_tx the copies' bytes are unexpected: the phase never
  // completes.
  InterpResult R = runMatmul(replaced(tmaMatmul(), "  mbarrier_expect_tx %nbar, 8192\n", ""));
  expectError(R, "mbarrier_wait at mm.tir:");
  expectError(R, "8192 of 0 expected bytes in flight");
  // Arriving before the copies completes the phase at once: the wait
  // passes and the wgmma reads the slot while the copies still fly.
  std::string Early = replaced(tmaMatmul(), "  mbarrier_expect_tx %nbar, 8192\n", "");
  Early = replaced(Early, "  mbarrier_arrive %nbar\n", "");
  Early = replaced(Early, "  tma_load %da, [%m0, %k1]",
                   "  mbarrier_arrive %nbar\n  tma_load %da, [%m0, %k1]");
  R = runMatmul(Early);
  expectError(R, "reads shared memory that the pending tma_load at mm.tir:");
  expectError(R, "missing an mbarrier_wait on the phase it completes");
}

/// Runs a one-program kernel @k(f32* %C, i32 %M, i32 %N) on a 40 x 32 C.
InterpResult runStoreKernel(const std::string &Body, std::vector<float> &C) {
  std::string Text = std::string(Layouts) +
                     "#sw128 = #shared<swizzle=128, order=[1,0]>\n"
                     "#colmajor = #blocked<size_per_thread=[4,1], threads_per_warp=[4,8], "
                     "warps_per_cta=[1,4], order=[0,1]>\n"
                     "define kernel void @k(f32* %C, i32 %M, i32 %N) {\nentry:\n" +
                     R"(  %r = make_range 0, 1024 : i32<1024>
  %r2 = reshape %r : i32<32,32, #blk>
  %v = sitofp %r2 : f32<32,32, #blk>
  %s = smem_alloc : smem<f32<32,32>, #sw128>
)" + Body + "  ret\n}\n";
  Parsed P("k.tir", Text);
  if (!P.M)
    return {false, "parse error"};
  C.assign(40 * 32, -1);
  std::vector<HostBuffer> Bufs = {bufferOf(C, "C")};
  InterpOptions Opts;
  Opts.Sources = &P.SM;
  return runKernel(*P.M->getFunction("k"), {1, 1, 1},
                   {ArgValue::buffer(0), ArgValue::integer(40), ArgValue::integer(32)}, Bufs, Opts);
}

const char *TensorStore = R"(  %N64 = sext %N : i64
  %d = make_tensor_desc %C, [%M, %N], [%N64, i64 1] : tdesc<f32<32,32>>
  local_store %s, %v
  fence_proxy_async
  barrier
  tma_store %d, [i32 16, i32 0], %s
  tma_store_wait 0
)";

TEST(InterpGpu, TensorStoreClipsTheBox) {
  std::vector<float> C;
  InterpResult R = runStoreKernel(TensorStore, C);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int Row = 0; Row < 40; ++Row)
    for (int Col = 0; Col < 32; ++Col) {
      // Rows 16..39 receive box rows 0..23; box rows past M are dropped.
      float Want = Row < 16 ? -1.0f : static_cast<float>((Row - 16) * 32 + Col);
      ASSERT_EQ(C[Row * 32 + Col], Want) << Row << "," << Col;
    }
}

TEST(InterpGpu, TensorStoreHazards) {
  std::vector<float> C;
  expectError(runStoreKernel(replaced(TensorStore, "  fence_proxy_async\n", ""), C),
              "missing fence_proxy_async");
  // Rewriting the buffer before the store has read it.
  expectError(runStoreKernel(replaced(TensorStore, "  tma_store_wait 0\n",
                                      "  local_store %s, %v\n  tma_store_wait 0\n"),
                             C),
              "overwrites shared memory that the pending tma_store at k.tir:");
}

TEST(InterpGpu, LocalLoadAndStoreThroughSharedMemory) {
  // A layout conversion through shared memory: store, barrier, load.
  const char *Body = R"(  local_store %s, %v
  barrier
  %w = local_load %s : f32<32,32, #colmajor>
  %x = convert_layout %w : f32<32,32, #blk>
  %r3 = reshape %r : i32<32,32, #blk>
  %Cs = splat %C : f32*<32,32, #blk>
  %pc = gep %Cs, %r3 : f32*<32,32, #blk>
  store %pc, %x
)";
  std::vector<float> C;
  InterpResult R = runStoreKernel(Body, C);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int I = 0; I < 1024; ++I)
    ASSERT_EQ(C[I], static_cast<float>(I)) << I;
  expectError(runStoreKernel(replaced(Body, "  barrier\n", ""), C),
              "local_load at k.tir:15:3 [%w = local_load %s");
  expectError(runStoreKernel(replaced(Body, "  barrier\n", ""), C), "(missing barrier)");
  expectError(runStoreKernel(replaced(Body, "  local_store %s, %v\n", ""), C),
              "reads shared memory that was never written");
  // A second store after a load needs a barrier too (write after read).
  expectError(runStoreKernel(std::string(Body) + "  local_store %s, %v\n", C),
              "overwrites shared memory that other threads read since the last barrier");
}

TEST(InterpGpu, AThreadReadsBackItsOwnElementsWithoutBarrier) {
  // #blk gives each thread its own elements of the 32 x 32 slot: loading and
  // storing them again in #blk needs no barrier (insert-barriers places none).
  const char *Body = R"(  local_store %s, %v
  %w = local_load %s : f32<32,32, #blk>
  %w2 = fadd %w, %w : f32<32,32, #blk>
  local_store %s, %w2
  %y = local_load %s : f32<32,32, #blk>
  %Cs = splat %C : f32*<32,32, #blk>
  %r4 = reshape %r : i32<32,32, #blk>
  %pc = gep %Cs, %r4 : f32*<32,32, #blk>
  store %pc, %y
)";
  std::vector<float> C, Twice(1024);
  for (size_t I = 0; I < Twice.size(); ++I)
    Twice[I] = static_cast<float>(2 * I);
  InterpResult R = runStoreKernel(Body, C);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_TRUE(std::equal(Twice.begin(), Twice.end(), C.begin()));
  // Another layout reads elements other threads wrote, and overwrites
  // elements other threads read.
  expectError(runStoreKernel(replaced(Body, "%w = local_load %s : f32<32,32, #blk>",
                                      "%w0 = local_load %s : f32<32,32, #colmajor>\n"
                                      "  %w = convert_layout %w0 : f32<32,32, #blk>"),
                             C),
              "(missing barrier)");
  expectError(runStoreKernel(replaced(Body, "local_store %s, %w2",
                                      "%w3 = convert_layout %w2 : f32<32,32, #colmajor>\n"
                                      "  local_store %s, %w3"),
                             C),
              "overwrites shared memory that other threads read since the last barrier");
}

/// Runs @k(f32* %C) and checks that C holds the product twice (wgmma, dot).
void expectWgmmaEqualsDot(const std::string &Text) {
  Parsed P("k.tir", Text);
  ASSERT_TRUE(P.M);
  std::vector<float> C(2 * 8192, -1);
  std::vector<HostBuffer> Bufs = {bufferOf(C, "C")};
  InterpOptions Opts;
  Opts.Sources = &P.SM;
  InterpResult R = runKernel(*P.M->getFunction("k"), {1, 1, 1}, {ArgValue::buffer(0)}, Bufs, Opts);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int Mi = 0; Mi < 64; ++Mi)
    for (int Ni = 0; Ni < 128; ++Ni) {
      float Ref = 0;
      for (int Ki = 0; Ki < 32; ++Ki)
        Ref += static_cast<float>((Mi * 32 + Ki) % 7) * static_cast<float>((Ki * 128 + Ni) % 5);
      ASSERT_EQ(C[Mi * 128 + Ni], Ref) << Mi << "," << Ni;
      ASSERT_EQ(C[8192 + Mi * 128 + Ni], Ref) << Mi << "," << Ni;
    }
}

TEST(InterpGpu, WgmmaEqualsDotAndIgnoresTheAccumulatorWhenTold) {
  // A [64, 32] and B [32, 128] of different sizes, A placed last in shared
  // memory (so that reading it with B's size would run past the end);
  // use_acc false ignores an accumulator of 1000s. C receives the wgmma's
  // product, then the dot's.
  std::string Text =
      std::string(Layouts) + R"(#acc128 = #wgmma<warps_per_cta=[4,1], instr_shape=[64,64,16]>
#sw128 = #shared<swizzle=128, order=[1,0]>
define kernel void @k(f32* %C) {
entry:
  %ra = make_range 0, 2048 : i32<2048>
  %seven = splat i32 7 : i32<2048>
  %am = urem %ra, %seven : i32<2048>
  %af = sitofp %am : f16<2048>
  %a = reshape %af : f16<64,32>
  %rb = make_range 0, 4096 : i32<4096>
  %five = splat i32 5 : i32<4096>
  %bm = urem %rb, %five : i32<4096>
  %bf = sitofp %bm : f16<4096>
  %b = reshape %bf : f16<32,128>
  %sb = smem_alloc : smem<f16<32,128>, #sw128>
  %sa = smem_alloc : smem<f16<64,32>, #sw>
  local_store %sa, %a
  local_store %sb, %b
  fence_proxy_async
  barrier
  %junk = splat f32 1000 : f32<64,128, #acc128>
  wgmma_fence
  %d = wgmma %sa, %sb, %junk, i1 false : f32<64,128, #acc128>
  wgmma_commit
  wgmma_wait 0
  %dl = convert_layout %d : f32<64,128>
  %z = splat f32 0 : f32<64,128>
  %e = dot %a, %b, %z : f32<64,128>
  %rc = make_range 0, 8192 : i32<8192>
  %rc2 = reshape %rc : i32<64,128>
  %Cs = splat %C : f32*<64,128>
  %p1 = gep %Cs, %rc2 : f32*<64,128>
  store %p1, %dl
  %off = splat i32 8192 : i32<64,128>
  %p2 = gep %p1, %off : f32*<64,128>
  store %p2, %e
  ret
}
)";
  for (bool RegisterA : {false, true}) {
    SCOPED_TRACE(RegisterA ? "A in registers" : "A in shared memory");
    std::string Variant = RegisterA
                              ? replaced(Text, "  %d = wgmma %sa,",
                                         "  %ar = local_load %sa : f16<64,32, #dot_op<operand=0, "
                                         "parent=#acc128, k_width=2>>\n  %d = wgmma %ar,")
                              : Text;
    expectWgmmaEqualsDot(Variant);
  }
}

/// Runs @g(f32* %X, f32* %Y) on one program: X is a 2 x 5 x 6 x 8 (Z, H, W,
/// C) tensor holding 1, 2, 3, ...; Body copies a box of it into Y, 24 rows
/// of 8.
InterpResult runGatherKernel(const std::string &Body, std::vector<float> &Y) {
  std::string Text = R"(#sw32 = #shared<swizzle=32, order=[1,0]>
#sw32x4 = #shared<swizzle=32, order=[3,2,1,0]>
#sw32t = #shared<swizzle=32, order=[0,1]>
define kernel void @g(f32* %X aligned(16), f32* %Y) {
entry:
  %bar = smem_alloc : smem<i64<1>>
  mbarrier_init %bar, 1
  %r = make_range 0, 192 : i32<192>
  %r2 = reshape %r : i32<24,8>
  %Ys = splat %Y : f32*<24,8>
  %py = gep %Ys, %r2 : f32*<24,8>
)" + Body + "  ret\n}\n";
  Parsed P("g.tir", Text);
  if (!P.M)
    return {false, "parse error"};
  std::vector<float> X(2 * 5 * 6 * 8);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = static_cast<float>(I + 1);
  Y.assign(24 * 8, -1);
  std::vector<HostBuffer> Bufs = {bufferOf(X, "X"), bufferOf(Y, "Y")};
  InterpOptions Opts;
  Opts.Sources = &P.SM;
  return runKernel(*P.M->getFunction("g"), {1, 1, 1}, {ArgValue::buffer(0), ArgValue::buffer(1)},
                   Bufs, Opts);
}

/// Box rows (z, h, w) of a 2 x 3 x 4 box of 8 channels at (0, -1, -1, 0),
/// every second row and column: a stride-2 convolution's padded gather.
const char *Gather =
    R"(  %d = make_tensor_desc %X, [i32 2, i32 5, i32 6, i32 8], [i64 240, i64 48, i64 8, i64 1], [i32 1, i32 2, i32 2, i32 1] : tdesc<f32<2,3,4,8>>
  %s = smem_alloc : smem<f32<24,8>, #sw32>
  mbarrier_expect_tx %bar, 768
  tma_load %d, [i32 0, i32 -1, i32 -1, i32 0], %s, %bar
  mbarrier_arrive %bar
  mbarrier_wait %bar, i32 0
  %v = local_load %s : f32<24,8>
  store %py, %v
)";

TEST(InterpGpu, StridedGatherZeroFillsOutsideTheTensor) {
  std::vector<float> Y;
  InterpResult R = runGatherKernel(Gather, Y);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int Z = 0; Z < 2; ++Z)
    for (int Hi = 0; Hi < 3; ++Hi)
      for (int Wi = 0; Wi < 4; ++Wi)
        for (int C = 0; C < 8; ++C) {
          // Row -1 and column -1 are padding, column 7 lies past W = 6.
          int H = -1 + 2 * Hi, W = -1 + 2 * Wi;
          bool Inside = H >= 0 && H < 5 && W >= 0 && W < 6;
          float Want = Inside ? static_cast<float>(((Z * 5 + H) * 6 + W) * 8 + C + 1) : 0.0f;
          ASSERT_EQ(Y[((Z * 3 + Hi) * 4 + Wi) * 8 + C], Want) << Z << "," << Hi << "," << Wi;
        }
  // The same box in a slot of the box's own shape, read back flat.
  std::string Boxed = replaced(Gather, "smem<f32<24,8>, #sw32>", "smem<f32<2,3,4,8>, #sw32x4>");
  Boxed = replaced(Boxed, "  %v = local_load %s : f32<24,8>\n",
                   "  %v4 = local_load %s : f32<2,3,4,8>\n  %v = reshape %v4 : f32<24,8>\n");
  std::vector<float> Y4;
  R = runGatherKernel(Boxed, Y4);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(Y4, Y);
}

TEST(InterpGpu, ColumnMajorSlotHoldsTheBoxTransposed) {
  // 24 rows of 8 land as the rows in memory of a column-major [8, 24] slot
  // (a K-major wgmma B operand): element (c, r) of the slot is box (r, c).
  const char *Body =
      R"(  %d = make_tensor_desc %X, [i32 60, i32 8], [i64 8, i64 1] : tdesc<f32<24,8>>
  %s = smem_alloc : smem<f32<8,24>, #sw32t>
  mbarrier_expect_tx %bar, 768
  tma_load %d, [i32 3, i32 0], %s, %bar
  mbarrier_arrive %bar
  mbarrier_wait %bar, i32 0
  %v = local_load %s : f32<8,24>
  %t = trans %v : f32<24,8>
  store %py, %t
)";
  std::vector<float> Y;
  InterpResult R = runGatherKernel(Body, Y);
  ASSERT_TRUE(R.Ok) << R.Error;
  for (int I = 0; I < 24 * 8; ++I)
    ASSERT_EQ(Y[I], static_cast<float>(3 * 8 + I + 1)) << I;
}

TEST(InterpGpu, StoresThroughATraversalStrideAreRefused) {
  std::vector<float> Y;
  expectError(
      runGatherKernel(replaced(Gather, "  %v = local_load %s : f32<24,8>\n  store %py, %v\n",
                               "  fence_proxy_async\n  tma_store %d, [i32 0, i32 0, i32 0, "
                               "i32 0], %s\n  tma_store_wait 0\n"),
                      Y),
      "stores through a tensor descriptor with traversal strides are not supported");
}

TEST(InterpGpu, SlotIndexOutsideTheRing) {
  std::vector<float> C;
  expectError(runStoreKernel(R"(  %ring = smem_alloc : smem<2 x f32<32,32>, #sw128>
  %bad = smem_slot %ring, %M : smem<f32<32,32>, #sw128>
)",
                             C),
              "slot index 40 is outside the ring's 2 slots");
}

} // namespace
