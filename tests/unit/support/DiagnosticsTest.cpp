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
