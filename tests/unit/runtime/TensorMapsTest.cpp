//===- TensorMapsTest.cpp - Planning the tensor maps of a launch -----------===//
//
// planTensorMap is pure: these tests need no GPU. The encoding itself is
// exercised by tests/gpu/TensorMapSmoke.cpp.
//
//===----------------------------------------------------------------------===//
#include "tritonc/runtime/TensorMaps.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::runtime;

namespace {

/// gemm_a(f16* A, i32 M, i32 K, i32 lda, i64 big, f32 alpha) with one map
/// over A: extents (K, M), stride lda, box 64 x 128, 128-byte swizzle.
KernelSignature signature() {
  KernelSignature Sig{"gemm_a",
                      {{"A", ArgKind::Pointer, "f16"},
                       {"M", ArgKind::Int32, ""},
                       {"K", ArgKind::Int32, ""},
                       {"lda", ArgKind::Int32, ""},
                       {"big", ArgKind::Int64, ""},
                       {"alpha", ArgKind::F32, ""}}};
  TensorMapSpec S;
  S.BaseParam = 0;
  S.DataType = cu::TensorMapDataTypeFloat16;
  S.ElemBytes = 2;
  S.Dims = {ParamPoly{{1, {2}}}, ParamPoly{{1, {1}}}};
  S.Strides = {ParamPoly{{1, {3}}}};
  S.Box = {64, 128};
  S.SwizzleBytes = 128;
  Sig.TensorMaps.push_back(S);
  return Sig;
}

KernelArgs args(CuDevicePtr A, int32_t M, int32_t K, int32_t Lda, int64_t Big = 0) {
  KernelArgs Args;
  Args.pointer(A).i32(M).i32(K).i32(Lda).i64(Big).f32(1.0f);
  return Args;
}

/// The error of planning map 0 of Sig for Args ("" on success).
std::string planError(const KernelSignature &Sig, const KernelArgs &Args) {
  Expected<TensorMapPlan> P = planTensorMap(Sig, 0, Args);
  return P ? std::string() : P.error();
}

bool contains(const std::string &S, const std::string &Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace

TEST(TensorMapPlan, Normal) {
  KernelSignature Sig = signature();
  ASSERT_TRUE(checkArguments(Sig, args(0x7f0000001000, 100, 256, 264)));
  Expected<TensorMapPlan> P = planTensorMap(Sig, 0, args(0x7f0000001000, 100, 256, 264));
  ASSERT_TRUE(P) << P.error();
  EXPECT_FALSE(P->ZeroMap);
  EXPECT_EQ(P->Rank, 2u);
  EXPECT_EQ(P->DataType, 6u);
  EXPECT_EQ(P->Swizzle, cu::TensorMapSwizzle128B);
  EXPECT_EQ(P->Base, 0x7f0000001000u);
  EXPECT_EQ(P->Dims[0], 256u);
  EXPECT_EQ(P->Dims[1], 100u);
  EXPECT_EQ(P->ByteStrides[0], 528u);
  EXPECT_EQ(P->Box[0], 64u);
  EXPECT_EQ(P->Box[1], 128u);
  // Entries past the rank stay 0, so that equal plans compare equal.
  EXPECT_EQ(P->Dims[2], 0u);
  EXPECT_EQ(P->ByteStrides[1], 0u);
  EXPECT_EQ(P->Box[2], 0u);
  // No traversal strides in the spec: all 1.
  EXPECT_EQ(P->ElementStrides, (std::array<uint32_t, 5>{1, 1, 1, 1, 1}));

  // The same arguments plan the same map; any change of a value it depends
  // on plans another.
  EXPECT_EQ(*planTensorMap(Sig, 0, args(0x7f0000001000, 100, 256, 264)), *P);
  EXPECT_NE(*planTensorMap(Sig, 0, args(0x7f0000001010, 100, 256, 264)), *P);
  EXPECT_NE(*planTensorMap(Sig, 0, args(0x7f0000001000, 101, 256, 264)), *P);
  EXPECT_NE(*planTensorMap(Sig, 0, args(0x7f0000001000, 100, 255, 264)), *P);
  EXPECT_NE(*planTensorMap(Sig, 0, args(0x7f0000001000, 100, 256, 272)), *P);
  // An argument the map does not read changes nothing.
  EXPECT_EQ(*planTensorMap(Sig, 0, args(0x7f0000001000, 100, 256, 264, 77)), *P);
}

TEST(TensorMapPlan, PolynomialsAndOtherTypes) {
  KernelSignature Sig = signature();
  TensorMapSpec &S = Sig.TensorMaps[0];
  // A 3-D map of bf16: extents (K, M, 2*M*K - 4), strides (lda, lda*M + 8).
  S.DataType = cu::TensorMapDataTypeBFloat16;
  S.Dims.push_back(ParamPoly{{2, {1, 2}}, {-4, {}}});
  S.Strides.push_back(ParamPoly{{1, {3, 1}}, {8, {}}});
  S.Box = {32, 8, 2};
  S.SwizzleBytes = 64;
  Expected<TensorMapPlan> P = planTensorMap(Sig, 0, args(0x1000, 10, 40, 48));
  ASSERT_TRUE(P) << P.error();
  EXPECT_EQ(P->Rank, 3u);
  EXPECT_EQ(P->DataType, 9u);
  EXPECT_EQ(P->Swizzle, cu::TensorMapSwizzle64B);
  EXPECT_EQ(P->Dims[2], 2u * 10 * 40 - 4);
  EXPECT_EQ(P->ByteStrides[0], 96u);
  EXPECT_EQ(P->ByteStrides[1], (48u * 10 + 8) * 2);
  EXPECT_EQ(P->Box[2], 2u);

  // Traversal strides (a stride-2 convolution's gather) pass through; the
  // box spans twice the elements it loads along dimension 1.
  S.ElementStrides = {1, 2, 1};
  P = planTensorMap(Sig, 0, args(0x1000, 10, 40, 48));
  ASSERT_TRUE(P) << P.error();
  EXPECT_EQ(P->ElementStrides, (std::array<uint32_t, 5>{1, 2, 1, 1, 1}));
  EXPECT_EQ(P->Box[1], 8u);
  S.ElementStrides.clear();

  S.SwizzleBytes = 0;
  EXPECT_EQ(planTensorMap(Sig, 0, args(0x1000, 10, 40, 48))->Swizzle, cu::TensorMapSwizzleNone);
  S.SwizzleBytes = 32;
  S.Box[0] = 16;
  EXPECT_EQ(planTensorMap(Sig, 0, args(0x1000, 10, 40, 48))->Swizzle, cu::TensorMapSwizzle32B);
}

TEST(TensorMapPlan, UnboundedDimension) {
  KernelSignature Sig = signature();
  Sig.TensorMaps[0].Dims[0] = std::nullopt;
  // K is not read: even a negative K plans a normal map.
  Expected<TensorMapPlan> P = planTensorMap(Sig, 0, args(0x1000, 100, -1, 264));
  ASSERT_TRUE(P) << P.error();
  EXPECT_FALSE(P->ZeroMap);
  EXPECT_EQ(P->Dims[0], uint64_t(TensorMapUnboundedDim));
  EXPECT_EQ(P->Dims[1], 100u);
  // A copy at TensorMapOutOfBounds lies beyond the unbounded extent.
  EXPECT_GE(int64_t(TensorMapOutOfBounds), TensorMapUnboundedDim);
}

TEST(TensorMapPlan, DimensionAtMostZeroIsAZeroMap) {
  KernelSignature Sig = signature();
  for (int32_t M : {0, -1, -100000}) {
    // Neither the stride (not a multiple of 16 bytes) nor the base (not
    // aligned) matter: a zero map reads neither.
    Expected<TensorMapPlan> P = planTensorMap(Sig, 0, args(0x1003, M, 256, 3));
    ASSERT_TRUE(P) << P.error();
    EXPECT_TRUE(P->ZeroMap);
    EXPECT_EQ(P->Base, 0u);
    EXPECT_EQ(P->Dims[0], 1u);
    EXPECT_EQ(P->Dims[1], 1u);
    EXPECT_EQ(P->ByteStrides[0], 16u);
    EXPECT_EQ(P->Box[0], 64u);
    EXPECT_EQ(P->Box[1], 128u);
    EXPECT_EQ(P->DataType, 6u);
  }
  // All zero maps of a spec are one map.
  EXPECT_EQ(*planTensorMap(Sig, 0, args(0x1000, 0, 256, 264)),
            *planTensorMap(Sig, 0, args(0x2000, 5, 0, 8)));
  // A too large extent elsewhere is still an error.
  EXPECT_TRUE(contains(planError(Sig, args(0x1000, 0, TensorMapUnboundedDim + 1, 264)),
                       "dimension 0 has extent 2147483137"));
}

TEST(TensorMapPlan, TooLargeDimension) {
  KernelSignature Sig = signature();
  EXPECT_EQ(planError(Sig, args(0x1000, 100, TensorMapUnboundedDim, 264)), "");
  EXPECT_EQ(planError(Sig, args(0x1000, 100, TensorMapUnboundedDim + 1, 264)),
            "kernel gemm_a: tensor map 0 of parameter 0 (A): dimension 0 has extent 2147483137, "
            "more than the 2147483136 a tensor map allows");
  EXPECT_EQ(planError(Sig, args(0x1000, INT32_MAX, 256, 264)),
            "kernel gemm_a: tensor map 0 of parameter 0 (A): dimension 1 has extent 2147483647, "
            "more than the 2147483136 a tensor map allows");
}

TEST(TensorMapPlan, BadStrides) {
  KernelSignature Sig = signature();
  // 260 f16 elements are 520 bytes.
  EXPECT_EQ(planError(Sig, args(0x1000, 100, 256, 260)),
            "kernel gemm_a: tensor map 0 of parameter 0 (A): the stride of dimension 1 is 260 "
            "elements = 520 bytes, which is not a multiple of 16 (a tensor map needs strides of "
            "16-byte multiples below 2^40 bytes)");
  EXPECT_TRUE(contains(planError(Sig, args(0x1000, 100, 256, -8)), "-16 bytes, which is negative"));
  // A stride of 0 is a multiple of 16: left to the driver.
  EXPECT_EQ(planError(Sig, args(0x1000, 100, 256, 0)), "");

  // 2^39 elements of 2 bytes are 2^40 bytes.
  Sig.TensorMaps[0].Strides[0] = ParamPoly{{1, {4}}};
  EXPECT_EQ(planError(Sig, args(0x1000, 100, 256, 0, (int64_t(1) << 39) - 8)), "");
  EXPECT_TRUE(contains(planError(Sig, args(0x1000, 100, 256, 0, int64_t(1) << 39)),
                       "= 1099511627776 bytes, which is not below 2^40"));
  // The product with the element size overflows.
  EXPECT_TRUE(contains(planError(Sig, args(0x1000, 100, 256, 0, INT64_MAX / 2 + 1)),
                       "the stride of dimension 1 overflows 64 bits"));
}

TEST(TensorMapPlan, Overflow) {
  KernelSignature Sig = signature();
  Sig.TensorMaps[0].Dims[1] = ParamPoly{{1, {4, 4}}};
  EXPECT_EQ(planError(Sig, args(0x1000, 100, 256, 264, int64_t(1) << 32)),
            "kernel gemm_a: tensor map 0 of parameter 0 (A): the extent of dimension 1 overflows "
            "64 bits");
  Sig.TensorMaps[0].Strides[0] = ParamPoly{{1, {4, 4}}};
  Sig.TensorMaps[0].Dims[1] = ParamPoly{{1, {1}}};
  EXPECT_TRUE(contains(planError(Sig, args(0x1000, 100, 256, 264, int64_t(1) << 32)),
                       "the stride of dimension 1 overflows 64 bits"));
}

TEST(TensorMapPlan, MisalignedBase) {
  KernelSignature Sig = signature();
  EXPECT_EQ(planError(Sig, args(0x7f0000001008, 100, 256, 264)),
            "kernel gemm_a: tensor map 0 of parameter 0 (A): the address 0x7f0000001008 is not "
            "16-byte aligned, as a tensor map needs");
}

TEST(TensorMapPlan, MalformedSpecsAreErrors) {
  const KernelArgs Args = args(0x1000, 100, 256, 264);
  auto ErrorOf = [&](auto Change) {
    KernelSignature Sig = signature();
    Change(Sig.TensorMaps[0]);
    return planError(Sig, Args);
  };
  const std::string Prefix = "kernel gemm_a: tensor map 0 of parameter 0 (A): ";
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.Dims.clear();
              S.Strides.clear();
              S.Box.clear();
            }),
            Prefix + "the rank is 0; tensor maps have 1 to 5 dimensions");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.Dims.resize(6);
              S.Strides.resize(5);
              S.Box.resize(6, 8);
            }),
            Prefix + "the rank is 6; tensor maps have 1 to 5 dimensions");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Strides.clear(); }),
            Prefix + "the spec has 0 strides and a box of rank 2 for rank 2");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Box.push_back(1); }),
            Prefix + "the spec has 1 strides and a box of rank 3 for rank 2");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Box[1] = 0; }),
            Prefix + "box dimension 1 is 0; it must be 1 to 256");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Box[1] = 257; }),
            Prefix + "box dimension 1 is 257; it must be 1 to 256");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Box[0] = 4; }),
            Prefix + "the box's inner dimension is 8 bytes, not a multiple of 16");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.Box[0] = 128; }),
            Prefix + "the box's inner dimension is 256 bytes, more than the swizzle span of 128");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.ElementStrides = {1, 2, 2};
            }),
            Prefix + "the spec has 3 traversal strides for rank 2");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.ElementStrides = {1, 9};
            }),
            Prefix + "traversal stride 1 is 9; it must be 1 to 8, and 1 innermost (the copy "
                     "engine ignores that one)");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.ElementStrides = {1, 0};
            }),
            Prefix + "traversal stride 1 is 0; it must be 1 to 8, and 1 innermost (the copy "
                     "engine ignores that one)");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.ElementStrides = {2, 1};
            }),
            Prefix + "traversal stride 0 is 2; it must be 1 to 8, and 1 innermost (the copy "
                     "engine ignores that one)");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.SwizzleBytes = 16; }),
            Prefix + "swizzle 16 is not 0, 32, 64 or 128 bytes");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.ElemBytes = 4; }),
            Prefix + "data type 6 does not have 4-byte elements");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.DataType = 13; }),
            Prefix + "data type 13 does not have 2-byte elements");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.Dims[0] = ParamPoly{{1, {0}}};
            }),
            Prefix + "an extent uses parameter 0, which is not an integer argument");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.Strides[0] = ParamPoly{{1, {5}}};
            }),
            Prefix + "a stride uses parameter 5, which is not an integer argument");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) {
              S.Strides[0] = ParamPoly{{1, {6}}};
            }),
            Prefix + "a stride uses parameter 6, which is not an integer argument");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.BaseParam = 1; }),
            "kernel gemm_a: tensor map 0 of parameter 1 (M): the base is not a pointer argument");
  EXPECT_EQ(ErrorOf([](TensorMapSpec &S) { S.BaseParam = 9; }),
            "kernel gemm_a: tensor map 0 of parameter 9: the base is not a pointer argument");

  KernelSignature Sig = signature();
  EXPECT_EQ(planError(Sig, KernelArgs()), Prefix + "the base is not a pointer argument");
  Expected<TensorMapPlan> P = planTensorMap(Sig, 1, Args);
  ASSERT_FALSE(P);
  EXPECT_EQ(P.error(), "kernel gemm_a: tensor map 1: the signature has 1 tensor maps");
}

TEST(TensorMapPlan, SignatureKeepsBraceInitialization) {
  // Signatures written as {name, params} still compile and have no maps.
  KernelSignature Sig{"k", {{"X", ArgKind::Pointer, "f32"}}};
  EXPECT_TRUE(Sig.TensorMaps.empty());
  EXPECT_EQ(Sig.str(), "k(f32* X)");
}
