//===- TensorMapSpecTest.cpp - Text form and evaluation of tensor map specs -===//
#include "tritonc/support/TensorMapSpec.h"

#include "../RandomEdit.h"

#include <gtest/gtest.h>

#include <climits>
#include <random>

using namespace tritonc;

namespace {

/// A rank-2 map as the back end makes for a row-major f16 matrix A[M][K]
/// with leading dimension lda: extents (K, M), stride lda.
TensorMapSpec matrixSpec() {
  TensorMapSpec S;
  S.BaseParam = 0;
  S.DataType = 6;
  S.ElemBytes = 2;
  S.Dims = {ParamPoly{{1, {4}}}, ParamPoly{{1, {3}}}};
  S.Strides = {ParamPoly{{1, {5}}}};
  S.Box = {64, 128};
  S.SwizzleBytes = 128;
  return S;
}

} // namespace

TEST(TensorMapSpecText, Format) {
  EXPECT_EQ(matrixSpec().str(),
            "base=0 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128");
  TensorMapSpec S = matrixSpec();
  S.Dims[0] = std::nullopt;
  S.Dims[1] = ParamPoly{{2, {3, 4}}, {-1, {}}};
  S.Strides[0] = {};
  EXPECT_EQ(S.str(), "base=0 dtype=6 elem=2 dims=?,(2*p3*p4+-1) strides=() box=64,128 swizzle=128");
}

TEST(TensorMapSpecText, RoundTrip) {
  std::vector<TensorMapSpec> Specs;
  Specs.push_back(matrixSpec());
  TensorMapSpec S = matrixSpec();
  S.Dims = {std::nullopt, ParamPoly{}, ParamPoly{{0, {}}}, ParamPoly{{INT64_MIN, {0, 0}}},
            ParamPoly{{INT64_MAX, {UINT_MAX}}, {7, {1, 2, 3}}}};
  S.Strides = {{}, ParamPoly{{-3, {}}}, ParamPoly{{1, {9}}, {1, {8}}}, {}};
  S.Box = {1, 2, 3, 4, 256};
  S.BaseParam = 12;
  S.DataType = 9;
  S.SwizzleBytes = 0;
  Specs.push_back(S);
  // Degenerate specs (no dimensions, lists of different lengths) still
  // round-trip: the text form is syntax only; planTensorMap judges them.
  Specs.push_back(TensorMapSpec());
  S = TensorMapSpec();
  S.Strides = {ParamPoly{{5, {1}}}};
  Specs.push_back(S);
  S = TensorMapSpec();
  S.Box = {16};
  Specs.push_back(S);
  // A strided gather's traversal strides (a convolution of stride 2).
  S = matrixSpec();
  S.Box = {64, 16, 8, 1};
  S.ElementStrides = {1, 2, 2, 1};
  Specs.push_back(S);

  // And random ones.
  std::mt19937_64 Rng(42);
  auto Poly = [&] {
    ParamPoly P(Rng() % 4);
    for (ParamTerm &T : P) {
      T.Coef = int64_t(Rng());
      T.Params.resize(Rng() % 3);
      for (unsigned &I : T.Params)
        I = unsigned(Rng() % 40);
    }
    return P;
  };
  for (int N = 0; N < 200; ++N) {
    TensorMapSpec R;
    R.BaseParam = unsigned(Rng());
    R.DataType = unsigned(Rng() % 13);
    R.ElemBytes = unsigned(Rng() % 9);
    R.Dims.resize(Rng() % 6);
    for (auto &D : R.Dims)
      if (Rng() % 3)
        D = Poly();
    R.Strides.resize(Rng() % 5);
    for (auto &St : R.Strides)
      St = Poly();
    R.Box.resize(Rng() % 6);
    for (unsigned &B : R.Box)
      B = unsigned(Rng() % 300);
    R.SwizzleBytes = unsigned(Rng() % 129);
    if (Rng() % 2) {
      R.ElementStrides.resize(1 + Rng() % 5);
      for (unsigned &E : R.ElementStrides)
        E = unsigned(Rng() % 9);
    }
    Specs.push_back(R);
  }

  for (const TensorMapSpec &Spec : Specs) {
    std::string Text = Spec.str();
    EXPECT_EQ(Text.find('\n'), std::string::npos) << Text;
    std::optional<TensorMapSpec> Back = TensorMapSpec::parse(Text);
    ASSERT_TRUE(Back) << Text;
    EXPECT_EQ(*Back, Spec) << Text;
    EXPECT_EQ(Back->str(), Text);
  }
}

TEST(TensorMapSpecText, MalformedIsRejected) {
  const std::string Good = matrixSpec().str();
  ASSERT_TRUE(TensorMapSpec::parse(Good));
  const char *Bad[] = {
      "",
      " ",
      "base=0",
      "base=0 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128",
      "base=0 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128 ",
      "base=0 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128\n",
      "base=0  dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=-1 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=+1 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*p4),(1*p3) strides=(1*p5) box=64,-128 swizzle=128",
      "base=99999999999 dtype=6 elem=2 dims=? strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=(1*p4 strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=1*p4),(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*p4),,(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*p4), strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=,(1*p4) strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*p4)(1*p3) strides=(1*p5) box=64,128 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*4) strides=(1*p5) box=64 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(p4) strides=(1*p5) box=64 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1*p-4) strides=(1*p5) box=64 swizzle=128",
      "base=0 dtype=6 elem=2 dims=(1+) strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=(+1) strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=(1*p) strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=(99999999999999999999) strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=?? strides= box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=? strides=? box=64 swizzle=0",
      "base=0 dtype=6 elem=2 dims=? strides= box=? swizzle=0",
      "base=0 dtype=6 elem=2 dims=? strides= box=64, swizzle=0",
      "base=0 dtype=6 elem=2 dims=? strides= box=64 swizzle=0 elemstrides=",
      "base=0 dtype=6 elem=2 dims=? strides= box=64 swizzle=0 elemstrides=1,",
      "base=0 dtype=6 elem=2 dims=? strides= box=64 swizzle=0 elemstrides=-1",
      "base=0 dtype=6 elem=2 dims=? strides= box=64 elemstrides=1 swizzle=0",
      "base=0 dtype=6 elem=2 dims=? box=64 strides= swizzle=0",
      "dtype=6 base=0 elem=2 dims=? strides= box=64 swizzle=0",
  };
  for (const char *Text : Bad)
    EXPECT_FALSE(TensorMapSpec::parse(Text)) << Text;
  // Every prefix of a good text is malformed, short of those that cut the
  // final number "128".
  for (size_t N = 0; N + 3 < Good.size(); ++N)
    EXPECT_FALSE(TensorMapSpec::parse(std::string_view(Good).substr(0, N))) << N;
  // Arbitrary bytes never crash the parser.
  std::mt19937 Rng(7);
  const std::string Alphabet = "base=dtypelmizswxo()*p+-,? 0123456789\n";
  for (int N = 0; N < 2000; ++N) {
    std::string Text = Good;
    for (int K = 0; K < 3; ++K) {
      tritonc::test::applyRandomEdit(Text, Rng, Alphabet, 4);
      if (Text.empty())
        Text = "x";
    }
    // What is accepted reads back the same from its canonical form.
    if (std::optional<TensorMapSpec> S = TensorMapSpec::parse(Text)) {
      EXPECT_EQ(TensorMapSpec::parse(S->str()), S) << Text;
    }
  }
}

TEST(TensorMapSpecEval, Values) {
  std::vector<int64_t> V = {10, -3, 7, 0};
  EXPECT_EQ(evaluate({}, V), 0);
  EXPECT_EQ(evaluate({{5, {}}}, V), 5);
  EXPECT_EQ(evaluate({{1, {0}}}, V), 10);
  EXPECT_EQ(evaluate({{2, {0, 1}}, {1, {2}}, {-4, {}}}, V), 2 * 10 * -3 + 7 - 4);
  EXPECT_EQ(evaluate({{3, {2, 2}}}, V), 147);
  EXPECT_EQ(evaluate({{1, {3}}}, V), 0);
  // An index past the values.
  EXPECT_FALSE(evaluate({{1, {4}}}, V));
  EXPECT_FALSE(evaluate({{0, {4}}}, V));
  EXPECT_FALSE(evaluate({{1, {0}}}, {}));
}

TEST(TensorMapSpecEval, Overflow) {
  std::vector<int64_t> V = {INT64_MAX, 2, INT64_MIN, -1, int64_t(1) << 32};
  EXPECT_EQ(evaluate({{1, {0}}}, V), INT64_MAX);
  EXPECT_FALSE(evaluate({{1, {0, 1}}}, V));       // Product.
  EXPECT_FALSE(evaluate({{2, {0}}}, V));          // Coefficient times value.
  EXPECT_FALSE(evaluate({{1, {2, 3}}}, V));       // INT64_MIN * -1.
  EXPECT_FALSE(evaluate({{1, {4, 4}}}, V));       // 2^64.
  EXPECT_FALSE(evaluate({{1, {0}}, {1, {}}}, V)); // Sum.
  EXPECT_FALSE(evaluate({{1, {2}}, {-1, {}}}, V));
  EXPECT_EQ(evaluate({{1, {0}}, {-1, {0}}}, V), 0);
  EXPECT_EQ(evaluate({{1, {0, 0}}, {0, {}}}, {int64_t(1) << 31}), int64_t(1) << 62);
  // Order of terms: the partial sum never overflows here.
  EXPECT_EQ(evaluate({{1, {0}}, {-1, {}}, {1, {}}}, V), INT64_MAX);
}

TEST(TensorMapSpecEval, WithCallback) {
  int Calls = 0;
  auto Value = [&](unsigned I) -> std::optional<int64_t> {
    ++Calls;
    if (I == 9)
      return std::nullopt;
    return int64_t(I) + 1;
  };
  EXPECT_EQ(evaluateWith(ParamPoly{{2, {1, 2}}, {1, {0}}}, Value), 2 * 2 * 3 + 1);
  EXPECT_EQ(Calls, 3);
  EXPECT_FALSE(evaluateWith(ParamPoly{{1, {9}}}, Value));
}
