// The default pipeline must not change what a kernel computes: run kernels on
// the interpreter before and after it and compare the buffers bit for bit.
// Inputs are small integers so that the reassociations peephole performs on
// purpose (flattened fadd reductions, dot accumulation) are exact too.
#include "TestUtil.h"

#include "tritonc/interp/Interpreter.h"

#include <cstring>

using namespace tritonc;
using namespace tritonc::transform;
using namespace tritonc::transform::test;

namespace {

// C[8x8] = A[8xK] * B[Kx8] accumulated over a K loop, plus C[64] = sum(C).
const char *MatMul = R"(define kernel void @mm(f32* %A, f32* %B, f32* %C, i32 %K) {
entry:
  %r = make_range 0, 8 : i32<8>
  %z = splat f32 0 : f32<8,8>
  br ^loop
loop:
  %k = phi [i32 0, ^entry], [%k1, ^body] : i32
  %acc = phi [%z, ^entry], [%acc1, ^body] : f32<8,8>
  %c = icmp slt %k, %K : i1
  cond_br %c, ^body, ^exit
body:
  %rr = reshape %r : i32<8,1>
  %ks = splat %K : i32<8,1>
  %row = mul %rr, %ks : i32<8,1>
  %kk = splat %k : i32<8>
  %col = add %kk, %r : i32<8>
  %colr = reshape %col : i32<1,8>
  %rowb = broadcast %row : i32<8,8>
  %colb = broadcast %colr : i32<8,8>
  %offa = add %rowb, %colb : i32<8,8>
  %pa0 = splat %A : f32*<8,8>
  %pa = gep %pa0, %offa : f32*<8,8>
  %a = load %pa : f32<8,8>
  %colt = reshape %col : i32<8,1>
  %eight = splat i32 8 : i32<8,1>
  %brow = mul %colt, %eight : i32<8,1>
  %rc = reshape %r : i32<1,8>
  %browb = broadcast %brow : i32<8,8>
  %rcb = broadcast %rc : i32<8,8>
  %offb = add %browb, %rcb : i32<8,8>
  %pb0 = splat %B : f32*<8,8>
  %pb = gep %pb0, %offb : f32*<8,8>
  %b = load %pb : f32<8,8>
  %bt = trans %b : f32<8,8>
  %btt = trans %bt : f32<8,8>
  %zero = splat f32 0 : f32<8,8>
  %d = dot %a, %btt, %zero : f32<8,8>
  %acc1 = fadd %acc, %d : f32<8,8>
  %k1 = add %k, i32 8 : i32
  br ^loop
exit:
  %rr2 = reshape %r : i32<8,1>
  %e2 = splat i32 8 : i32<8,1>
  %orow = mul %rr2, %e2 : i32<8,1>
  %rc2 = reshape %r : i32<1,8>
  %orowb = broadcast %orow : i32<8,8>
  %rc2b = broadcast %rc2 : i32<8,8>
  %offc = add %orowb, %rc2b : i32<8,8>
  %pc0 = splat %C : f32*<8,8>
  %pc = gep %pc0, %offc : f32*<8,8>
  store %pc, %acc
  %s0 = reduce fadd %acc, 0 : f32<8>
  %s1 = reduce fadd %s0, 0 : f32
  %pt = gep %C, i32 64 : f32*
  store %pt, %s1
  ret
}
)";

// Integer work with constant conditions, identities and a masked tail.
const char *Ints = R"(define kernel void @ints(i32* %X, i32* %Y, i32 %n) {
entry:
  %pid = get_program_id 0 : i32
  %w = mul i32 4, i32 8 : i32
  %base = mul %pid, %w : i32
  %big = icmp sgt %w, i32 100 : i1
  cond_br %big, ^never, ^go
never:
  br ^go
go:
  %scale = phi [i32 3, ^entry], [i32 5, ^never] : i32
  %r = make_range 0, 32 : i32<32>
  %sb = splat %base : i32<32>
  %idx = add %sb, %r : i32<32>
  %sn = splat %n : i32<32>
  %m = icmp slt %idx, %sn : i1<32>
  %sx = splat %X : i32*<32>
  %px = gep %sx, %idx : i32*<32>
  %zero = splat i32 0 : i32<32>
  %x = masked_load %px, %m, %zero : i32<32>
  %ss = splat %scale : i32<32>
  %y0 = mul %x, %ss : i32<32>
  %y1 = add %y0, %zero : i32<32>
  %four = splat i32 4 : i32<32>
  %y2 = mul %y1, %four : i32<32>
  %y3 = sub %y2, %x : i32<32>
  %y4 = select %m, %y3, %y3 : i32<32>
  %sy = splat %Y : i32*<32>
  %py = gep %sy, %idx : i32*<32>
  masked_store %py, %y4, %m
  ret
}
)";

template <typename T>
std::vector<std::vector<T>> runOn(ir::Module &M, std::vector<std::vector<T>> Buffers,
                                  const std::vector<interp::ArgValue> &Args, uint32_t Grid) {
  std::vector<interp::HostBuffer> Hosts;
  for (auto &B : Buffers)
    Hosts.push_back({B.data(), B.size() * sizeof(T), "buf"});
  interp::InterpResult R = interp::runKernel(*M.functions()[0], {Grid, 1, 1}, Args, Hosts);
  EXPECT_TRUE(R.Ok) << R.Error;
  return Buffers;
}

template <typename T>
void checkSameResults(const char *Text, const std::vector<std::vector<T>> &Buffers,
                      const std::vector<interp::ArgValue> &Args, uint32_t Grid) {
  auto Before = parse(Text);
  ASSERT_TRUE(Before);
  auto Expected = runOn(*Before, Buffers, Args, Grid);
  auto After = parse(Text);
  PassManager PM(PassOptions{.VerifyEach = true});
  std::string Error;
  ASSERT_TRUE(PM.addPipeline(defaultPipeline(), Error)) << Error;
  ASSERT_TRUE(PM.run(*After, Error)) << Error;
  auto Got = runOn(*After, Buffers, Args, Grid);
  // The test means something only if the pipeline changed the kernel and
  // the kernel wrote its output.
  EXPECT_NE(ir::printModule(*Before), ir::printModule(*After));
  EXPECT_NE(0, std::memcmp(Buffers.back().data(), Expected.back().data(),
                           Buffers.back().size() * sizeof(T)));
  for (size_t I = 0; I < Expected.size(); ++I)
    EXPECT_EQ(0, std::memcmp(Expected[I].data(), Got[I].data(), Expected[I].size() * sizeof(T)))
        << "buffer " << I << " differs after:\n"
        << ir::printModule(*After);
}

TEST(Differential, MatMulKeepsItsResults) {
  const int K = 24;
  std::vector<float> A(8 * K), B(K * 8), C(65, -1.0f);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = static_cast<float>(static_cast<int>(I * 7 % 11) - 5);
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = static_cast<float>(static_cast<int>(I * 5 % 7) - 3);
  using interp::ArgValue;
  checkSameResults<float>(
      MatMul, {A, B, C},
      {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::buffer(2), ArgValue::integer(K)}, 1);
}

TEST(Differential, IntegerKernelKeepsItsResults) {
  const int N = 100;
  std::vector<int32_t> X(N), Y(N, 7);
  for (int I = 0; I < N; ++I)
    X[I] = I * 37 - 1000;
  using interp::ArgValue;
  checkSameResults<int32_t>(Ints, {X, Y},
                            {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(N)}, 4);
}

} // namespace
