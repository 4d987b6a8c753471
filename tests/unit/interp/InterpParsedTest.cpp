//===- InterpParsedTest.cpp - Interpreting kernels read from .tir text ----===//
#include "InterpTestUtil.h"

#include "tritonc/ir/IRParser.h"

#include <cmath>

using namespace tritonc;
using namespace tritonc::interp;
using namespace tritonc::interp::test;

namespace {

/// A 64x64x32-tile f16 matmul with f32 accumulation (M, N multiples of 64,
/// K a multiple of 32), written the way IRGen lowers matmul.tc: a loop whose
/// phis carry the accumulator and both pointer tiles.
const char *MatmulIR =
    R"(define kernel void @mm(f16* %A, f16* %B, f32* %C, i32 %M, i32 %N, i32 %K) {
entry:
  %pm = get_program_id 0 : i32
  %pn = get_program_id 1 : i32
  %0 = mul %pm, i32 64 : i32
  %1 = splat %0 : i32<64>
  %2 = make_range 0, 64 : i32<64>
  %rm = add %1, %2 : i32<64>
  %3 = mul %pn, i32 64 : i32
  %4 = splat %3 : i32<64>
  %rn = add %4, %2 : i32<64>
  %rk = make_range 0, 32 : i32<32>
  %c0 = splat f32 0 : f32<64,64>
  %5 = reshape %rm : i32<64,1>
  %6 = broadcast %5 : i32<64,32>
  %7 = splat %K : i32<64,32>
  %8 = mul %6, %7 : i32<64,32>
  %9 = reshape %rk : i32<1,32>
  %10 = broadcast %9 : i32<64,32>
  %11 = add %8, %10 : i32<64,32>
  %12 = splat %A : f16*<64,32>
  %pa0 = gep %12, %11 : f16*<64,32>
  %13 = reshape %rk : i32<32,1>
  %14 = broadcast %13 : i32<32,64>
  %15 = splat %N : i32<32,64>
  %16 = mul %14, %15 : i32<32,64>
  %17 = reshape %rn : i32<1,64>
  %18 = broadcast %17 : i32<32,64>
  %19 = add %16, %18 : i32<32,64>
  %20 = splat %B : f16*<32,64>
  %pb0 = gep %20, %19 : f16*<32,64>
  %sa = splat i32 32 : i32<64,32>
  %sbv = mul %N, i32 32 : i32
  %sb = splat %sbv : i32<32,64>
  br ^loop
loop:
  %k = phi [%K, ^entry], [%k1, ^loop] : i32
  %acc = phi [%c0, ^entry], [%acc1, ^loop] : f32<64,64>
  %pa = phi [%pa0, ^entry], [%pa1, ^loop] : f16*<64,32>
  %pb = phi [%pb0, ^entry], [%pb1, ^loop] : f16*<32,64>
  %a = load %pa : f16<64,32>
  %b = load %pb : f16<32,64>
  %acc1 = dot %a, %b, %acc : f32<64,64>
  %pa1 = gep %pa, %sa : f16*<64,32>
  %pb1 = gep %pb, %sb : f16*<32,64>
  %k1 = sub %k, i32 32 : i32
  %cont = icmp sgt %k1, i32 0 : i1
  cond_br %cont, ^loop, ^exit
exit:
  %21 = reshape %rm : i32<64,1>
  %22 = broadcast %21 : i32<64,64>
  %23 = splat %N : i32<64,64>
  %24 = mul %22, %23 : i32<64,64>
  %25 = reshape %rn : i32<1,64>
  %26 = broadcast %25 : i32<64,64>
  %27 = add %24, %26 : i32<64,64>
  %28 = splat %C : f32*<64,64>
  %pc = gep %28, %27 : f32*<64,64>
  store %pc, %acc1
  ret
}
)";

} // namespace

TEST(InterpParsed, TiledMatmulLoop) {
  SourceManager SM;
  FileId Id = SM.addBuffer("mm.tir", MatmulIR);
  DiagnosticEngine Diags(SM);
  std::unique_ptr<Module> M = parseIR(SM, Id, Diags);
  ASSERT_TRUE(M) << Diags.formatAll();
  const int Mt = 128, Nt = 192, Kt = 96;
  MatmulData D(Mt, Nt, Kt);
  InterpResult R = D.run(*M->getFunction("mm"), SM);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(D.C, D.Ref); // same order of f32 additions, exact products

  // A grid one program too wide in y stores past the end of C.
  R = D.run(*M->getFunction("mm"), SM, /*ExtraColumnsOfPrograms=*/1);
  ASSERT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("program (0,3,0): load at mm.tir:"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("[%b = load %pb : f16<32,64>]"), std::string::npos) << R.Error;
}
