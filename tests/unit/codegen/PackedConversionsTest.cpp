// Tests of the rewrite that converts pairs of f32 values to packed halves with one cvt
// (lib/codegen internal header PackedConversions.h): it fires only where the halves feed nothing
// else and the sources still hold what the conversions read.
#include "PackedConversions.h"

#include "tritonc/target/ptx/PTXBuilder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tritonc;

namespace {

/// The non-empty body lines after the rewrite, without their indentation.
std::vector<std::string> rewritten(const std::vector<std::string> &Lines) {
  ptx::PTXFunctionBuilder B("k");
  for (const std::string &L : Lines) {
    if (L.back() == ':')
      B.label(L.substr(0, L.size() - 1));
    else
      B.emit(L);
  }
  codegen::packConvertedPairs(B);
  std::vector<std::string> Out;
  for (size_t I = 0; I < B.bodySize(); ++I)
    if (!B.bodyLine(I).empty())
      Out.push_back(B.bodyLine(I)[0] == '\t' ? B.bodyLine(I).substr(1) : B.bodyLine(I));
  return Out;
}

TEST(PackedConversions, PairFeedingOnlyThePackBecomesOnePackedConversion) {
  EXPECT_EQ(
      rewritten({"cvt.rn.f16.f32 %h0, %f10;", "cvt.rn.f16.f32 %h1, %f11;",
                 "mov.b32 %r0, {%h0, %h1};", "st.shared.b32 [%r5], %r0;"}),
      (std::vector<std::string>{"cvt.rn.f16x2.f32 %r0, %f11, %f10;", "st.shared.b32 [%r5], %r0;"}));
  EXPECT_EQ(rewritten({"cvt.rn.bf16.f32 %h2, %f1;", "cvt.rn.bf16.f32 %h3, %f12;",
                       "mov.b32 %r1, {%h2, %h3};"}),
            (std::vector<std::string>{"cvt.rn.bf16x2.f32 %r1, %f12, %f1;"}));
}

TEST(PackedConversions, OnlyWholeRegistersBetweenTheConversionAndThePackCount) {
  // %f10 and %f12 are not %f1; %f1 written after the pack is no longer read by it.
  EXPECT_EQ(
      rewritten({"cvt.rn.f16.f32 %h0, %f1;", "cvt.rn.f16.f32 %h1, %f2;",
                 "add.f32 %f10, %f10, %f12;", "mov.b32 %r0, {%h0, %h1};",
                 "add.f32 %f1, %f1, %f1;"}),
      (std::vector<std::string>{"add.f32 %f10, %f10, %f12;", "cvt.rn.f16x2.f32 %r0, %f2, %f1;",
                                "add.f32 %f1, %f1, %f1;"}));
}

TEST(PackedConversions, LeavesEverythingElseAlone) {
  std::vector<std::vector<std::string>> Cases = {
      // A half used again.
      {"cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "mov.b32 %r0, {%h0, %h1};",
       "st.shared.b16 [%r5], %h0;"},
      // A source written between the conversion and the pack.
      {"cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "add.f32 %f0, %f0, %f2;",
       "mov.b32 %r0, {%h0, %h1};"},
      // A source written between them by a guarded instruction.
      {"cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "@%p2 mov.f32 %f1, 0f00000000;",
       "mov.b32 %r0, {%h0, %h1};"},
      // Control flow between them.
      {"cvt.rn.f16.f32 %h0, %f0;", "$L__x:", "cvt.rn.f16.f32 %h1, %f1;",
       "mov.b32 %r0, {%h0, %h1};"},
      {"cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "@%p0 bra $L__x;",
       "mov.b32 %r0, {%h0, %h1};"},
      // Mixed types, a guarded conversion, another rounding, halves not from conversions.
      {"cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.bf16.f32 %h1, %f1;", "mov.b32 %r0, {%h0, %h1};"},
      {"@%p1 cvt.rn.f16.f32 %h0, %f0;", "cvt.rn.f16.f32 %h1, %f1;", "mov.b32 %r0, {%h0, %h1};"},
      {"cvt.rz.f16.f32 %h0, %f0;", "cvt.rz.f16.f32 %h1, %f1;", "mov.b32 %r0, {%h0, %h1};"},
      {"ld.shared.b16 %h0, [%r1];", "cvt.rn.f16.f32 %h1, %f1;", "mov.b32 %r0, {%h0, %h1};"},
      // The same half twice.
      {"cvt.rn.f16.f32 %h0, %f0;", "mov.b32 %r0, {%h0, %h0};"},
  };
  for (const auto &Lines : Cases)
    EXPECT_EQ(rewritten(Lines), Lines);
}

} // namespace
