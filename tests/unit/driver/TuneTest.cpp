#include "tritonc/driver/Tune.h"

#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::driver;

namespace {
const DefineList Config = {{"TM", "64"},     {"TN", "32"},  {"TK", "[8,16]"},
                           {"HALF", "TM/2"}, {"TM", "128"}, {"LOOP", "LOOP+1"}};
} // namespace

TEST(TuneGrid, ExpressionsOverTheConfigurationsDefines) {
  // The last -D of a name wins, as on the command line.
  EXPECT_EQ(*evaluateGridExpression("TM", Config), 128);
  EXPECT_EQ(*evaluateGridExpression("cdiv(1000, TM)", Config), 8);
  EXPECT_EQ(*evaluateGridExpression("(1000 + TN - 1) / TN * 2 - 1 % 3", Config), 63);
  EXPECT_EQ(*evaluateGridExpression("HALF", Config), 64); // a define naming another
  EXPECT_EQ(*evaluateGridExpression(" -4 + 10 ", Config), 6);
}

TEST(TuneGrid, ErrorsNameWhatCouldNotBeRead) {
  auto Error = [](std::string_view Text) { return evaluateGridExpression(Text, Config).error(); };
  EXPECT_NE(Error("M / TM").find("'M' is neither a number nor a define"), std::string::npos);
  EXPECT_NE(Error("TM / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(Error("cdiv(4, 0)").find("cdiv by 0"), std::string::npos);
  EXPECT_NE(Error("cdiv(4)").find("cdiv takes two arguments"), std::string::npos);
  EXPECT_NE(Error("(TM").find("missing ')'"), std::string::npos);
  EXPECT_NE(Error("TM TN").find("unexpected 'TN'"), std::string::npos);
  EXPECT_NE(Error("TK").find("unexpected '['"), std::string::npos); // a list is not a value
  EXPECT_NE(Error("LOOP").find("too deeply"), std::string::npos);
}

TEST(TuneGrid, DimensionsSplitOutsideParentheses) {
  runtime::Expected<Grid3> G = evaluateGrid("cdiv(1000,TM),cdiv(500, TN)", Config);
  ASSERT_TRUE(G) << G.error();
  EXPECT_EQ(*G, (Grid3{8, 16, 1}));
  EXPECT_EQ(*evaluateGrid("2,3,4", Config), (Grid3{2, 3, 4}));
  EXPECT_NE(evaluateGrid("1,1,1,1", Config).error().find("at most 3"), std::string::npos);
  EXPECT_NE(evaluateGrid("TN-32", Config).error().find("is 0; it must be 1 to 2^31-1"),
            std::string::npos);
}
