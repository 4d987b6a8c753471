#include "tritonc/runtime/KernelSignature.h"
#include "tritonc/ir/IR.h"
#include "tritonc/runtime/IRSignature.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::runtime;

namespace {
KernelSignature addSig() {
  return {"add",
          {{"X", ArgKind::Pointer, "f32"},
           {"Y", ArgKind::Pointer, "f32"},
           {"N", ArgKind::Int32, ""},
           {"alpha", ArgKind::F32, ""}}};
}
} // namespace

TEST(KernelSignatureTest, Printing) {
  EXPECT_EQ(addSig().str(), "add(f32* X, f32* Y, i32 N, f32 alpha)");
  EXPECT_STREQ(argKindName(ArgKind::BF16), "bf16");
  EXPECT_EQ(argKindSize(ArgKind::Pointer), 8u);
  EXPECT_EQ(argKindSize(ArgKind::Int1), 1u);
  EXPECT_EQ(argKindSize(ArgKind::F16), 2u);
}

TEST(KernelSignatureTest, MatchingArgumentsPass) {
  KernelArgs A;
  A.pointer(0x1000).pointer(0x2000).i32(7).f32(2.0f);
  EXPECT_TRUE(checkArguments(addSig(), A)) << checkArguments(addSig(), A).error();
}

TEST(KernelSignatureTest, WrongCount) {
  KernelArgs A;
  A.pointer(0x1000).pointer(0x2000).i32(7);
  Status S = checkArguments(addSig(), A);
  ASSERT_FALSE(S);
  EXPECT_EQ(S.error(), "kernel add takes 4 arguments, 3 given; signature: add(f32* X, f32* Y, i32 "
                       "N, f32 alpha)");
}

TEST(KernelSignatureTest, WrongKindNamesTheParameter) {
  KernelArgs A;
  A.pointer(0x1000).pointer(0x2000).i64(7).f32(2.0f);
  Status S = checkArguments(addSig(), A);
  ASSERT_FALSE(S);
  EXPECT_EQ(S.error().rfind("kernel add: argument 2 (N) is i64, the parameter is i32;", 0), 0u)
      << S.error();
  KernelArgs B;
  B.i32(1).pointer(0x2000).i32(7).f32(2.0f);
  S = checkArguments(addSig(), B);
  ASSERT_FALSE(S);
  EXPECT_NE(S.error().find("argument 0 (X) is i32, the parameter is f32*"), std::string::npos)
      << S.error();
}

TEST(KernelSignatureTest, PackedValuesAndPointers) {
  KernelArgs A{KernelArg::i32(-5), KernelArg::f64(1.5), KernelArg::i1(true),
               KernelArg::f16Bits(0x3c00)};
  std::vector<void *> P = A.pointers();
  ASSERT_EQ(P.size(), 4u);
  EXPECT_EQ(*static_cast<int32_t *>(P[0]), -5);
  EXPECT_EQ(*static_cast<double *>(P[1]), 1.5);
  EXPECT_EQ(*static_cast<uint8_t *>(P[2]), 1);
  EXPECT_EQ(*static_cast<uint16_t *>(P[3]), 0x3c00);
  EXPECT_EQ(A.args()[0].asInt(), -5);
}

TEST(KernelSignatureTest, Specialization) {
  KernelArgs A;
  A.pointer(0x1000).pointer(0x1004).i32(1).i32(64).i64(65).f32(16.0f);
  EXPECT_EQ(specializationString(A), "DN1SUF");
}

// An integer's letter says its sign too: only a negative one loses the
// non-negative letters (S, U), a negative multiple of 16 keeping D.
TEST(KernelSignatureTest, SpecializationOfSigns) {
  KernelArgs A;
  A.i32(0).i32(-16).i32(-1).i64(int64_t(1) << 40).i64(-3).i32(17);
  EXPECT_EQ(specializationString(A), "SDNSNU");
}

// A flag has no fact the code could use: 'N' whatever its value (false was
// 'D', a multiple of 16, which applySpecialization refuses on an i1).
TEST(KernelSignatureTest, SpecializationOfFlags) {
  KernelArgs A;
  A.add(KernelArg::i1(false)).add(KernelArg::i1(true));
  EXPECT_EQ(specializationString(A), "NN");
}

TEST(IRSignatureTest, FromFunction) {
  ir::Module M;
  const ir::Type *F32Ptr = ir::Type::getPointer(ir::Type::getF32());
  ir::Function *F = M.createFunction(
      "k", ir::Type::getVoid(),
      {F32Ptr, ir::Type::getI32(), ir::Type::getI64(), ir::Type::getI1(), ir::Type::getF16(),
       ir::Type::getBF16(), ir::Type::getF64(), ir::Type::getInt(8), ir::Type::getInt(16)});
  F->getArg(0)->setName("X");
  F->getArg(1)->setName("N");
  Expected<KernelSignature> S = signatureFromIR(*F);
  ASSERT_TRUE(S) << S.error();
  EXPECT_EQ(S->str(), "k(f32* X, i32 N, i64, i1, f16, bf16, f64, i8, i16)");
}

TEST(IRSignatureTest, TileParameterIsAnError) {
  ir::Module M;
  ir::Function *F =
      M.createFunction("k", ir::Type::getVoid(),
                       {ir::Type::getI32(), ir::Type::getTile(ir::Type::getF32(), {16, 16})});
  F->getArg(1)->setName("T");
  Expected<KernelSignature> S = signatureFromIR(*F);
  ASSERT_FALSE(S);
  EXPECT_EQ(S.error(), "kernel k, parameter 1 (T): type f32<16,16> cannot be a kernel parameter");
}

TEST(IRSignatureTest, NonVoidReturnIsAnError) {
  ir::Module M;
  ir::Function *F = M.createFunction("g", ir::Type::getI32(), {});
  Expected<KernelSignature> S = signatureFromIR(*F);
  ASSERT_FALSE(S);
  EXPECT_EQ(S.error(), "kernel g returns i32; a kernel entry must return void");
}
