#include "tritonc/support/Diagnostics.h"

#include <gtest/gtest.h>

using namespace tritonc;

TEST(Diagnostics, FormatsLocationSourceLineAndCaret) {
  SourceManager SM;
  FileId F = SM.addBuffer("k.tc", "int x;\n  foo bar;\n");
  DiagnosticEngine D(SM);
  D.error(SourceRange(SourceLoc{F, 2, 3}, SourceLoc{F, 2, 6}), "use of undeclared 'foo'");
  D.note(SourceLoc{F, 1, 5}, "something declared here");
  EXPECT_TRUE(D.hasErrors());
  EXPECT_EQ(D.formatAll(), "k.tc:2:3: error: use of undeclared 'foo'\n"
                           "    foo bar;\n"
                           "    ^~~\n"
                           "k.tc:1:5: note: something declared here\n"
                           "  int x;\n"
                           "      ^\n");
}

TEST(Diagnostics, ErrorLimitCountsButDropsExtraErrors) {
  SourceManager SM;
  DiagnosticEngine D(SM);
  D.setErrorLimit(2);
  for (int I = 0; I < 5; ++I)
    D.error({}, "e" + std::to_string(I));
  EXPECT_EQ(D.numErrors(), 5u);
  EXPECT_EQ(D.diagnostics().size(), 2u);
  EXPECT_NE(D.formatAll().find("3 more errors not shown"), std::string::npos);
}

TEST(SourceManager, MapsOffsetsToLinesAndColumns) {
  SourceManager SM;
  FileId F = SM.addBuffer("a", "ab\ncd\r\nef");
  SourceLoc L = SM.getLoc(F, 4);
  EXPECT_EQ(L.Line, 2u);
  EXPECT_EQ(L.Col, 2u);
  EXPECT_EQ(SM.getLine(F, 2), "cd");
  EXPECT_EQ(SM.getLine(F, 3), "ef");
  EXPECT_EQ(SM.getLine(F, 9), "");
}

// Regression: buffers used to live in a vector by value, so registering a new
// buffer moved short (SSO) texts and invalidated views the lexer held.
TEST(SourceManager, TextStaysPutWhenMoreBuffersAreAdded) {
  SourceManager SM;
  FileId F = SM.addBuffer("short", "int x;");
  const char *Before = SM.getText(F).data();
  for (int I = 0; I < 100; ++I)
    SM.addBuffer("b" + std::to_string(I), "y");
  EXPECT_EQ(SM.getText(F).data(), Before);
  EXPECT_EQ(SM.getText(F), "int x;");
}

// Regression (found by review of the fuzzing harness): `#include "/dev/zero"`
// made addFile read forever. Only regular files of bounded size are read.
TEST(SourceManager, RefusesDevicesAndDirectories) {
  SourceManager SM;
  std::string Why;
  EXPECT_FALSE(SM.addFile("/dev/zero", &Why));
  EXPECT_EQ(Why, "not a regular file");
  EXPECT_FALSE(SM.addFile("/", &Why));
  EXPECT_EQ(Why, "not a regular file");
  EXPECT_FALSE(SM.addFile("/nonexistent/file.tc", &Why));
  EXPECT_FALSE(Why.empty());
  EXPECT_EQ(SM.numBuffers(), 0u);
}

TEST(Remarks, RecordedOnlyWhenAskedForAndNeverErrors) {
  SourceManager SM;
  FileId F = SM.addBuffer("k.tc", "  acc += a @ b;\n");
  DiagnosticEngine D(SM);
  SourceRange At(SourceLoc{F, 1, 7});
  D.remark(RemarkKind::Missed, "dot", At, "ignored: no filter");
  EXPECT_TRUE(D.diagnostics().empty());

  std::string Error;
  std::optional<RemarkFilter> Missed = RemarkFilter::parse("missed:dot,pipeline", Error);
  ASSERT_TRUE(Missed) << Error;
  D.setRemarkFilter(*Missed);
  D.remark(RemarkKind::Missed, "dot", At, "dot computed with FMA units");
  D.remark(RemarkKind::Missed, "dot", At, "dot computed with FMA units"); // kept once
  D.remark(RemarkKind::Passed, "dot", At, "not a missed remark");
  D.remark(RemarkKind::Missed, "async-rings", At, "not in the filter");
  EXPECT_FALSE(D.hasErrors());
  ASSERT_EQ(D.diagnostics().size(), 1u);
  EXPECT_EQ(D.formatAll(), "k.tc:1:7: remark: dot computed with FMA units [missed:dot]\n"
                           "    acc += a @ b;\n"
                           "        ^\n");
}

TEST(Remarks, FilterParsesKindsAndPassNames) {
  std::string Error;
  std::optional<RemarkFilter> Default = RemarkFilter::parse("", Error);
  ASSERT_TRUE(Default);
  EXPECT_TRUE(Default->wants(RemarkKind::Missed, "pipeline"));
  EXPECT_FALSE(Default->wants(RemarkKind::Passed, "pipeline"));
  EXPECT_EQ(Default->str(), "missed");
  std::optional<RemarkFilter> All = RemarkFilter::parse("all:tensor-copies", Error);
  ASSERT_TRUE(All);
  EXPECT_TRUE(All->wants(RemarkKind::Passed, "tensor-copies"));
  EXPECT_FALSE(All->wants(RemarkKind::Missed, "dot"));
  EXPECT_EQ(All->str(), "all:tensor-copies");
  EXPECT_EQ(RemarkFilter::parse(All->str(), Error)->str(), "all:tensor-copies");
  EXPECT_FALSE(RemarkFilter().enabled());
  EXPECT_EQ(RemarkFilter().str(), "");

  EXPECT_FALSE(RemarkFilter::parse("some", Error));
  EXPECT_EQ(Error, "invalid remark kind 'some': expected missed, passed or all");
  EXPECT_FALSE(RemarkFilter::parse("passed:dot,", Error));
  EXPECT_EQ(Error.rfind("unknown remark pass ''", 0), 0u) << Error;
}
