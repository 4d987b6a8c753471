//===- CliTest.cpp - The tritonc command line, in-process -----------------===//

#include "tritonc/driver/Cli.h"

#include "tritonc/driver/CliArgs.h"
#include "tritonc/driver/Npy.h"
#include "tritonc/runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <sstream>

using namespace tritonc::driver;

namespace {

struct Outcome {
  int Rc;
  std::string Out, Err;
};

Outcome tool(const std::vector<std::string> &Args, const std::string &Stdin = "") {
  std::istringstream In(Stdin);
  std::ostringstream Out, Err;
  int Rc = runTritonc(Args, In, Out, Err);
  return {Rc, Out.str(), Err.str()};
}

const char *Kernel = "__global__ void k(float *X, int N) {\n"
                     "  int off[TN] = 0 ... TN;\n"
                     "  float *p[TN] = X + off;\n"
                     "  *?(off < N) p = 1;\n"
                     "}\n";

} // namespace

TEST(CliArgs, Tokenizing) {
  cli::ParsedArgs P;
  std::string Error;
  std::vector<cli::OptionSpec> Specs = {{"-D", true}, {"--grid", true}, {"--flag", false}};
  ASSERT_TRUE(cli::parseArgs(
      {"f.tc", "-DA=1", "-D", "B=[1,2]", "--grid=4,2", "--flag", "-3", "-0.5", "--", "--flag"},
      Specs, P, Error))
      << Error;
  EXPECT_EQ(P.Values["-D"], (std::vector<std::string>{"A=1", "B=[1,2]"}));
  EXPECT_EQ(*P.last("--grid"), "4,2");
  EXPECT_TRUE(P.has("--flag"));
  EXPECT_EQ(P.Positionals, (std::vector<std::string>{"f.tc", "-3", "-0.5", "--flag"}));

  cli::ParsedArgs Q;
  EXPECT_FALSE(cli::parseArgs({"--nope"}, Specs, Q, Error));
  EXPECT_EQ(Error, "unknown option '--nope'");
  EXPECT_FALSE(cli::parseArgs({"--flag=1"}, Specs, Q, Error));
  EXPECT_FALSE(cli::parseArgs({"--grid"}, Specs, Q, Error));
  EXPECT_EQ(Error, "option '--grid' needs a value");
  EXPECT_FALSE(cli::parseArgs({"-x"}, Specs, Q, Error));

  // An optional value is "" when left out and never taken from the next argument.
  cli::ParsedArgs R;
  ASSERT_TRUE(cli::parseArgs({"--remarks", "f.tc", "--level=all"},
                             {{"--remarks", true, true}, {"--level", true, true}}, R, Error))
      << Error;
  EXPECT_EQ(*R.last("--remarks"), "");
  EXPECT_EQ(*R.last("--level"), "all");
  EXPECT_EQ(R.Positionals, (std::vector<std::string>{"f.tc"}));

  std::string Name, Value;
  ASSERT_TRUE(cli::parseDefine("TM", Name, Value, Error));
  EXPECT_EQ(Value, "1");
  ASSERT_TRUE(cli::parseDefine("SHAPE=TM,TK", Name, Value, Error));
  EXPECT_EQ(Value, "TM,TK");
  EXPECT_FALSE(cli::parseDefine("=3", Name, Value, Error));
  EXPECT_FALSE(cli::parseDefine("3X=3", Name, Value, Error));
  EXPECT_FALSE(cli::parseDefine("A-B=3", Name, Value, Error));
}

TEST(Cli, HelpVersionAndUsageErrors) {
  Outcome H = tool({"--help"});
  EXPECT_EQ(H.Rc, 0);
  EXPECT_NE(H.Out.find("usage: tritonc"), std::string::npos);
  EXPECT_NE(tool({"compile", "--help"}).Out.find("--list-configs"), std::string::npos);
  EXPECT_NE(tool({"run", "-h"}).Out.find("--grid"), std::string::npos);
  EXPECT_NE(tool({"opt", "--help"}).Out.find("--list-passes"), std::string::npos);
  EXPECT_NE(tool({"--version"}).Out.find("tritonc version"), std::string::npos);

  Outcome None = tool({});
  EXPECT_EQ(None.Rc, ExitUsage);
  Outcome Unknown = tool({"frobnicate"});
  EXPECT_EQ(Unknown.Rc, ExitUsage);
  EXPECT_NE(Unknown.Err.find("unknown command 'frobnicate'"), std::string::npos);
  EXPECT_NE(Unknown.Err.find("usage:"), std::string::npos);
  Outcome BadOpt = tool({"compile", "--frob", "x.tc"});
  EXPECT_EQ(BadOpt.Rc, ExitUsage);
  EXPECT_NE(BadOpt.Err.find("unknown option '--frob'"), std::string::npos);
  EXPECT_EQ(tool({"compile"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "a.tc", "b.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "-D=1", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--emit=obj", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--emit=ptx", "--arch=sm_75", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--emit=ptx", "--num-warps=3", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--emit=ptx", "--num-warps=32", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--emit=ptx", "--specialize=DX", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"compile", "--config=x", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "0"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "1,2,3,4"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "1", "--device", "--interpret"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "1", "--device", "--backend-passes"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "1", "--device", "--num-warps=0"}).Rc, ExitUsage);
  EXPECT_EQ(tool({"run", "a.tc", "--grid", "1", "--device", "--arch=sm_100"}).Rc, ExitUsage);
}

TEST(Cli, CompileToPTX) {
  Outcome R =
      tool({"compile", "-", "-DTN=16", "--emit=ptx", "--arch=sm_80", "--num-warps=2"}, Kernel);
  ASSERT_EQ(R.Rc, 0) << R.Err;
  EXPECT_NE(R.Out.find(".target sm_80"), std::string::npos) << R.Out;
  EXPECT_NE(R.Out.find(".entry k("), std::string::npos) << R.Out;
  Outcome Bad =
      tool({"compile", "-", "--emit=ptx"}, "__global__ void k(float *X) {\n  *X = y;\n}\n");
  EXPECT_EQ(Bad.Rc, ExitFailure);
  EXPECT_NE(Bad.Err.find("<stdin>:2:"), std::string::npos) << Bad.Err;
  Outcome Spec = tool({"compile", "-", "-DTN=16", "--emit=ptx", "--specialize=DDD"}, Kernel);
  EXPECT_EQ(Spec.Rc, ExitFailure);
  EXPECT_NE(Spec.Err.find("specialization 'DDD' has 3 letters, but kernel k has 2 parameters"),
            std::string::npos)
      << Spec.Err;
}

TEST(Cli, RunOnDeviceFromStdin) {
  // Without a GPU the run stops with a clear error after the arguments are
  // checked; with one, the kernel runs and writes its output.
  std::string Dir = testing::TempDir() + "tritonc-cli-device";
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  NpyArray X;
  X.Type = DType::F32;
  X.Shape = {16};
  X.Data.assign(16 * 4, 0);
  std::string Error;
  ASSERT_TRUE(writeNpyFile(Dir + "/x.npy", X, Error)) << Error;
  Outcome R = tool({"run", "-", "-DTN=16", "--device", "--grid", "1", "--out", Dir + "/out",
                    Dir + "/x.npy", "10"},
                   Kernel);
  auto D = tritonc::runtime::CudaDriver::get();
  if (!D) {
    EXPECT_EQ(R.Rc, ExitFailure);
    EXPECT_EQ(R.Err.rfind("tritonc: error: no CUDA driver: ", 0), 0u) << R.Err;
    EXPECT_FALSE(std::filesystem::exists(Dir + "/out"));
    return;
  }
  ASSERT_EQ(R.Rc, 0) << R.Err;
  NpyArray Y;
  ASSERT_TRUE(readNpyFile(Dir + "/out/X.npy", Y, Error)) << Error;
  ASSERT_EQ(Y.Data.size(), 64u);
  for (int I = 0; I < 16; ++I) {
    float V;
    std::memcpy(&V, &Y.Data[I * 4], 4);
    EXPECT_EQ(V, I < 10 ? 1.0f : 0.0f) << I;
  }
}

TEST(Cli, CompileFromStdin) {
  Outcome R = tool({"compile", "-", "-DTN=16"}, Kernel);
  EXPECT_EQ(R.Rc, 0) << R.Err;
  EXPECT_NE(R.Out.find("define kernel void @k("), std::string::npos);

  Outcome PP = tool({"compile", "-", "-D", "TN=16", "--emit=pp"}, Kernel);
  EXPECT_EQ(PP.Rc, 0) << PP.Err;
  EXPECT_EQ(PP.Out.find("TN"), std::string::npos);

  Outcome Err = tool({"compile", "-"}, "__global__ void k( {");
  EXPECT_EQ(Err.Rc, ExitFailure);
  EXPECT_NE(Err.Err.find("<stdin>:1:"), std::string::npos);

  Outcome Configs = tool({"compile", "-", "-DTN=[16,32]", "-DX", "-DTM=[1,2]", "--list-configs"});
  EXPECT_EQ(Configs.Rc, 0);
  EXPECT_EQ(Configs.Out, "0: TN=16 TM=1\n1: TN=16 TM=2\n2: TN=32 TM=1\n3: TN=32 TM=2\n");
}

TEST(Cli, Opt) {
  const char *IR = "define void @f(i32 %n) {\nentry:\n  %a = add %n, i32 1 : i32\n  ret\n}\n";
  Outcome Keep = tool({"opt", "-"}, IR);
  EXPECT_EQ(Keep.Rc, 0) << Keep.Err;
  EXPECT_NE(Keep.Out.find("add"), std::string::npos);
  Outcome Dce = tool({"opt", "-", "--passes=dce"}, IR);
  EXPECT_EQ(Dce.Rc, 0) << Dce.Err;
  EXPECT_EQ(Dce.Out.find("add"), std::string::npos);
  Outcome Bad = tool({"opt", "-", "--passes=nosuch"}, IR);
  EXPECT_EQ(Bad.Rc, ExitFailure);
  EXPECT_NE(Bad.Err.find("nosuch"), std::string::npos);
  Outcome List = tool({"opt", "--list-passes"});
  EXPECT_EQ(List.Rc, 0);
  EXPECT_NE(List.Out.find("dce"), std::string::npos);
}
