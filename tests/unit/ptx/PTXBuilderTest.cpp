//===- PTXBuilderTest.cpp - Text-level tests of the PTX emission layer ----===//

#include "tritonc/target/ptx/PTXBuilder.h"
#include "PTXKernels.h"
#include "tritonc/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::ptx;

namespace {

bool contains(const std::string &Text, const std::string &Needle) {
  return Text.find(Needle) != std::string::npos;
}

#define EXPECT_CONTAINS(Text, Needle)                                                              \
  EXPECT_TRUE(contains(Text, Needle)) << "missing: " << (Needle) << "\nin:\n" << (Text)

/// Checks that the needles appear in order (like consecutive CHECK lines).
void expectInOrder(const std::string &Text, const std::vector<std::string> &Needles) {
  size_t Pos = 0;
  for (const std::string &N : Needles) {
    size_t At = Text.find(N, Pos);
    ASSERT_NE(At, std::string::npos) << "missing (in order): " << N << "\nin:\n" << Text;
    Pos = At + N.size();
  }
}

TEST(PTXBuilder, ModuleHeaderPerTarget) {
  PTXModule M80;
  EXPECT_CONTAINS(M80.str(), ".version 8.0\n.target sm_80\n.address_size 64\n");
  PTXTarget T;
  T.A = Arch::SM90a;
  T.VersionMinor = 3;
  PTXModule M90(T);
  M90.addExternShared("smem");
  expectInOrder(M90.str(), {".version 8.3", ".target sm_90a", ".address_size 64",
                            ".extern .shared .align 16 .b8 smem[];"});
}

TEST(PTXBuilder, EntrySignatureAndRegDecls) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  EXPECT_EQ(B.addParam(Ty::U64), "p0");
  EXPECT_EQ(B.addParam(Ty::U32), "p1");
  B.setNumWarps(4);
  Reg A = B.ldParam(Ty::U64, "p0");
  EXPECT_EQ(A.name(), "%rd0");
  EXPECT_EQ(A.type(), Ty::U64);
  Reg N = B.ldParam(Ty::U32, "p1");
  EXPECT_EQ(N.name(), "%r0");
  Reg F = B.newReg(Ty::F32), D = B.newReg(Ty::F64), H = B.newReg(Ty::F16);
  EXPECT_EQ(F.name(), "%f0");
  EXPECT_EQ(D.name(), "%fd0");
  EXPECT_EQ(H.name(), "%h0");
  B.setp(Cmp::Lt, Ty::U32, N, 7);
  B.ret();
  std::string S = M.str();
  expectInOrder(S, {".visible .entry k(\n\t.param .u64 p0,\n\t.param .u32 p1\n)\n",
                    ".maxntid 128, 1, 1\n{\n", "\t.reg .pred %p<1>;\n", "\t.reg .b16 %h<1>;\n",
                    "\t.reg .b32 %r<1>;\n", "\t.reg .b64 %rd<1>;\n", "\t.reg .f32 %f<1>;\n",
                    "\t.reg .f64 %fd<1>;\n", "\n\tld.param.u64 %rd0, [p0];\n",
                    "\tld.param.u32 %r0, [p1];\n", "\tsetp.lt.u32 %p0, %r0, 7;\n", "\tret;\n}\n"});
  EXPECT_EQ(B.numRegs(RegClass::B32), 1u);
}

TEST(PTXBuilder, ReqNTidAndNoParams) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("e");
  B.setNumWarps(8, ThreadBound::ReqNTid);
  B.ret();
  EXPECT_CONTAINS(M.str(), ".visible .entry e()\n.reqntid 256, 1, 1\n{\n");
  EXPECT_FALSE(contains(M.str(), ".reg"));
}

// A warp-specialized kernel: its launch registers (.maxnreg, after the
// thread count) and the named barriers of its partitions.
TEST(PTXBuilder, MaxRegistersAndNamedBarriers) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("w");
  B.setNumWarps(12, ThreadBound::ReqNTid);
  B.setMaxRegisters(168);
  B.barSync(2, 128);
  B.ret();
  EXPECT_CONTAINS(M.str(), ".visible .entry w()\n.reqntid 384, 1, 1\n.maxnreg 168\n{\n");
  EXPECT_CONTAINS(M.str(), "\tbar.sync 2, 128;\n");
  EXPECT_THROW(B.barSync(16, 128), InternalError);
  EXPECT_THROW(B.barSync(1, 48), InternalError);
}

TEST(PTXBuilder, PrologueGoesFirstAndIgnoresGuards) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("p");
  Reg Tid = B.special(SpecialReg::TidX);
  Reg P = B.setp(Cmp::Eq, Ty::U32, Tid, 0);
  {
    auto G = B.guard(P);
    B.mov(Ty::U32, 7);
    // Emitted while a guard is active, but lands unguarded in the prologue.
    auto Pro = B.prologue();
    B.mov(Ty::U32, 42);
  }
  B.ret();
  std::string Text = M.str();
  expectInOrder(Text, {"mov.u32 %r2, 42;", "mov.u32 %r0, %tid.x;", "@%p0 mov.u32 %r1, 7;", "ret;"});
  EXPECT_FALSE(contains(Text, "@%p0 mov.u32 %r2, 42"));
}

TEST(PTXBuilder, SpecialRegistersAndArithmetic) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg T = B.special(SpecialReg::TidX);
  Reg C = B.special(SpecialReg::CtaIdZ);
  B.special(SpecialReg::NCtaIdY);
  B.special(SpecialReg::LaneId);
  Reg M1 = B.madLo(Ty::U32, C, 128, T);
  B.mul(Ty::S32, M1.as(Ty::S32), -4);
  B.shr(Ty::S32, M1.as(Ty::S32), 2);
  B.shl(Ty::U32, M1, 3);
  B.bitAnd(Ty::U32, M1, 0xff);
  B.mulWide(Ty::U32, M1, 4);
  B.div(Ty::U32, M1, 3);
  B.rem(Ty::S32, M1.as(Ty::S32), 3);
  Reg F = B.newReg(Ty::F32);
  B.add(Ty::F32, F, Operand::f32(1.0f));
  B.mul(Ty::F32, F, F);
  B.fma(Ty::F32, F, F, F);
  B.unary(MathOp::Ex2Approx, Ty::F32, F);
  B.unary(MathOp::RsqrtApprox, Ty::F32, F);
  B.max(Ty::F32, F, F);
  expectInOrder(M.str(),
                {"mov.u32 %r0, %tid.x;", "mov.u32 %r1, %ctaid.z;", "mov.u32 %r2, %nctaid.y;",
                 "mov.u32 %r3, %laneid;", "mad.lo.u32 %r4, %r1, 128, %r0;",
                 "mul.lo.s32 %r5, %r4, -4;", "shr.s32 %r6, %r4, 2;", "shl.b32 %r7, %r4, 3;",
                 "and.b32 %r8, %r4, 255;", "mul.wide.u32 %rd0, %r4, 4;", "div.u32 %r9, %r4, 3;",
                 "rem.s32 %r10, %r4, 3;", "add.rn.f32 %f1, %f0, 0f3F800000;",
                 "mul.rn.f32 %f2, %f0, %f0;", "fma.rn.f32 %f3, %f0, %f0, %f0;",
                 "ex2.approx.f32 %f4, %f0;", "rsqrt.approx.f32 %f5, %f0;",
                 "max.f32 %f6, %f0, %f0;"});
}

TEST(PTXBuilder, ConversionsPickRounding) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg F = B.newReg(Ty::F32);
  Reg H = B.cvt(Ty::F16, Ty::F32, F);
  B.cvt(Ty::F32, Ty::F16, H);
  B.cvt(Ty::S32, Ty::F32, F);
  B.cvt(Ty::F32, Ty::S32, B.newReg(Ty::S32));
  B.cvt(Ty::U64, Ty::U32, B.newReg(Ty::U32));
  B.cvt(Ty::S32, Ty::F32, F, Rounding::Rni);
  B.cvtaToGlobal(B.newReg(Ty::U64));
  expectInOrder(M.str(),
                {"cvt.rn.f16.f32 %h0, %f0;", "cvt.f32.f16 %f1, %h0;", "cvt.rzi.s32.f32 %r0, %f0;",
                 "cvt.rn.f32.s32 %f2, %r1;", "cvt.u64.u32 %rd0, %r2;", "cvt.rni.s32.f32 %r3, %f0;",
                 "cvta.to.global.u64 %rd2, %rd1;"});
}

TEST(PTXBuilder, PredicationAndSelp) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg A = B.newReg(Ty::U32);
  Reg P = B.setp(Cmp::Ge, Ty::U32, A, 16);
  B.selp(Ty::U32, A, 0, P);
  Reg H = B.newReg(Ty::F16);
  B.selp(Ty::F16, H, H, P);
  {
    auto G = B.guard(P, /*Negated=*/true);
    B.add(Ty::U32, A, 1);
    EXPECT_THROW((void)B.guard(P), InternalError);
  }
  B.add(Ty::U32, A, 2);
  B.emit("membar.gl");
  B.comment("hello");
  expectInOrder(M.str(), {"setp.ge.u32 %p0, %r0, 16;", "selp.u32 %r1, %r0, 0, %p0;",
                          "selp.b16 %h1, %h0, %h0, %p0;", "\t@!%p0 add.u32 %r2, %r0, 1;\n",
                          "\tadd.u32 %r3, %r0, 2;\n", "\tmembar.gl;\n", "\t// hello\n"});
}

TEST(PTXBuilder, VectorAndMaskedLoads) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg Addr = B.newReg(Ty::U64);
  Reg P = B.newReg(Ty::Pred);
  std::vector<Reg> V = B.ldGlobal(Ty::B32, 4, Addr, 16);
  ASSERT_EQ(V.size(), 4u);
  B.ldGlobal(Ty::F32, 2, Addr, -8, Guard{P, false});
  std::vector<Reg> Masked =
      B.ldMasked(StateSpace::Global, Ty::F32, 2, Addr, 0, P, {Operand::f32(0.0f), Operand::f32(3)});
  B.stGlobal(Ty::B32, Addr, 0, V, Guard{P, true});
  B.stGlobal(Ty::F32, Addr, 4, {Masked[1]});
  Reg S = B.sharedAddress("smem");
  B.ldShared(Ty::B32, 4, S);
  B.stShared(Ty::F16, S, 2, {B.newReg(Ty::F16)});
  B.barSync();
  expectInOrder(M.str(),
                {"ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd0+16];",
                 "@%p0 ld.global.v2.f32 {%f0, %f1}, [%rd0-8];", "\tmov.f32 %f2, 0f00000000;\n",
                 "\tmov.f32 %f3, 0f40400000;\n", "\t@%p0 ld.global.v2.f32 {%f2, %f3}, [%rd0];\n",
                 "@!%p0 st.global.v4.b32 [%rd0], {%r0, %r1, %r2, %r3};",
                 "st.global.f32 [%rd0+4], %f3;", "mov.u32 %r4, smem;",
                 "ld.shared.v4.b32 {%r5, %r6, %r7, %r8}, [%r4];", "st.shared.b16 [%r4+2], %h0;",
                 "bar.sync 0;"});
}

TEST(PTXBuilder, MaskedLoadDefaultsIgnoreGuardScope) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg Addr = B.newReg(Ty::U64);
  Reg P = B.newReg(Ty::Pred), Q = B.newReg(Ty::Pred);
  {
    auto G = B.guard(Q);
    B.ldMasked(StateSpace::Global, Ty::U32, 1, Addr, 0, P, {7});
  }
  expectInOrder(M.str(), {"\tmov.u32 %r0, 7;\n", "\t@%p0 ld.global.u32 %r0, [%rd0];\n"});
}

TEST(PTXBuilder, ShuffleAtomicsAndControlFlow) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg F = B.newReg(Ty::F32);
  Reg S = B.shflSync(ShflMode::Bfly, F, 16, 31);
  EXPECT_EQ(S.type(), Ty::F32);
  Reg Addr = B.newReg(Ty::U64);
  B.atom(StateSpace::Global, AtomOp::Cas, Ty::B32, Addr, 0, Operand(1));
  B.atom(StateSpace::Global, AtomOp::Exch, Ty::U32, Addr, 0);
  B.atom(StateSpace::Global, AtomOp::Add, Ty::F32, Addr, F);
  B.atom(StateSpace::Global, AtomOp::Add, Ty::F16x2, Addr, B.newReg(Ty::F16x2));
  B.fence(FenceScope::Gpu);
  std::string L = B.newLabel("loop");
  EXPECT_EQ(L, "$L__loop0");
  B.label(L);
  Reg P = B.newReg(Ty::Pred);
  B.braIf(P, L);
  B.braIf(P, L, true);
  B.bra(L, true);
  expectInOrder(
      M.str(),
      {"shfl.sync.bfly.b32 %f1, %f0, 16, 31, 0xFFFFFFFF;", "atom.global.cas.b32 %r0, [%rd0], 0, 1;",
       "atom.global.exch.b32 %r1, [%rd0], 0;", "atom.global.add.f32 %f2, [%rd0], %f0;",
       "atom.global.add.noftz.f16x2 %r3, [%rd0], %r2;", "fence.acq_rel.gpu;", "\n$L__loop0:\n",
       "\t@%p0 bra $L__loop0;\n", "\t@!%p0 bra $L__loop0;\n", "\tbra.uni $L__loop0;\n"});
}

TEST(PTXBuilder, PackingAndMovTo) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg Lo = B.newReg(Ty::F16), Hi = B.newReg(Ty::F16);
  Reg P = B.pack2x16(Lo, Hi);
  auto [A, C] = B.unpack2x16(P);
  Reg Acc = B.mov(Ty::F16, Operand::hex(0x3C00));
  B.movTo(Acc, A);
  B.bitcast(Ty::U32, B.newReg(Ty::F32));
  expectInOrder(M.str(), {"mov.b32 %r0, {%h0, %h1};", "mov.b32 {%h2, %h3}, %r0;",
                          "mov.b16 %h4, 0x3C00;", "mov.b16 %h4, %h2;", "mov.b32 %r1, %f0;"});
  (void)C;
}

TEST(PTXBuilder, PackedConversionTakesTheHighHalfFirst) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg Lo = B.newReg(Ty::F32), Hi = B.newReg(Ty::F32);
  Reg H = B.cvtPack2x16(Lo, Hi, Ty::F16x2);
  Reg BF = B.cvtPack2x16(Lo, Hi, Ty::BF16x2);
  EXPECT_EQ(H.type(), Ty::F16x2);
  expectInOrder(M.str(), {"cvt.rn.f16x2.f32 %r0, %f1, %f0;", "cvt.rn.bf16x2.f32 %r1, %f1, %f0;"});
  EXPECT_THROW(B.cvtPack2x16(Lo, Hi, Ty::B32), InternalError);
  EXPECT_THROW(B.cvtPack2x16(B.newReg(Ty::F16), Hi, Ty::F16x2), InternalError);
  (void)BF;
}

TEST(PTXBuilder, ImmediatesAreExact) {
  EXPECT_EQ(Operand::f32(1.0f).str(), "0f3F800000");
  EXPECT_EQ(Operand::f32(-0.0f).str(), "0f80000000");
  EXPECT_EQ(Operand::f64(1.0).str(), "0d3FF0000000000000");
  EXPECT_EQ(Operand(-5).str(), "-5");
  EXPECT_EQ(Operand::hex(0xff).str(), "0xFF");
}

TEST(PTXBuilder, MisuseIsAnInternalError) {
  PTXModule M;
  PTXFunctionBuilder &B = M.addKernel("k");
  Reg R = B.newReg(Ty::U32), D = B.newReg(Ty::U64), F = B.newReg(Ty::F32);
  EXPECT_THROW(B.add(Ty::U64, R, D), InternalError);
  EXPECT_THROW(B.ldGlobal(Ty::B64, 4, D), InternalError);
  EXPECT_THROW(B.ldGlobal(Ty::B32, 3, D), InternalError);
  EXPECT_THROW(B.rem(Ty::F32, F, F), InternalError);
  EXPECT_THROW(B.unary(MathOp::Ex2Approx, Ty::U32, R), InternalError);
  EXPECT_THROW(B.selp(Ty::U32, R, R, R), InternalError);
  EXPECT_THROW(B.atom(StateSpace::Global, AtomOp::Cas, Ty::B32, D, R), InternalError);
  EXPECT_THROW(B.shflSync(ShflMode::Bfly, D, 1, 31), InternalError);
  EXPECT_THROW((void)R.as(Ty::U64), InternalError);
  EXPECT_THROW(M.addKernel("k"), InternalError);
  EXPECT_THROW(B.setNumWarps(0), InternalError);
  EXPECT_THROW(B.max(Ty::F32, F, 0), InternalError);
  EXPECT_THROW(B.mov(Ty::F32, 1), InternalError);
}

TEST(PTXBuilder, OutputIsDeterministic) {
  PTXTarget T;
  EXPECT_EQ(samples::vecAddF32(T), samples::vecAddF32(T));
  EXPECT_EQ(samples::mixedOps(T), samples::mixedOps(T));
}

TEST(PTXBuilder, SampleKernelsHaveTheExpectedShape) {
  PTXTarget T;
  std::string Add = samples::vecAddF32(T);
  expectInOrder(Add, {".visible .entry vec_add_f32(", ".maxntid 128, 1, 1", "ld.global.v4.f32",
                      "add.rn.f32", "st.global.v4.f32", "bra.uni", "$L__scalar0:", "ld.global.f32",
                      "$L__done1:", "ret;"});
  std::string Red = samples::blockReduceF32(T);
  expectInOrder(Red, {".extern .shared .align 16 .b8 smem[];", ".reqntid 128, 1, 1",
                      "shfl.sync.bfly.b32", "st.shared.f32", "bar.sync 0;", "ld.shared.v4.b32"});
  std::string F16 = samples::scaleF16(T);
  expectInOrder(F16, {".extern .shared .align 16 .b8 stage[];", "cvt.f32.f16", "cvt.rn.f16.f32"});
  std::string Lock = samples::spinLock(T);
  expectInOrder(Lock,
                {"$L__spin1:", "atom.global.cas.b32", "bra $L__spin1;", "atom.global.exch.b32"});
}

} // namespace
