//===- LaunchTest.cpp - Kernel argument binding ---------------------------===//

#include "tritonc/driver/Launch.h"
#include "tritonc/driver/Compiler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

using namespace tritonc;
using namespace tritonc::driver;

namespace {

const char *Kernel = R"(
__global__ void scale(float *X, unsigned char *M, int N, unsigned U, half H, bool B) {
  int off[16] = 0 ... 16;
  bool check[16] = off < N;
  float *px[16] = X + off;
  *?(check) px = *?(check) px * 2;
}
)";

struct Fixture {
  CompileResult R;
  const ir::Function *F = nullptr;
  KernelSignature Sig;

  Fixture() : R(compileSource("scale.tc", Kernel, {})) {
    EXPECT_TRUE(R.ok()) << R.formattedDiagnostics();
    if (!R.ok())
      return;
    F = selectKernel(*R.module(), "", R.getDiagnostics(), R.ast());
    Sig = getSignature(*F, R.ast());
  }
};

std::string scalarError(const KernelParam &P, const std::string &Text) {
  interp::ArgValue A;
  std::string Error;
  EXPECT_FALSE(parseScalarArg(P, Text, A, Error)) << Text;
  return Error;
}

interp::ArgValue scalar(const KernelParam &P, const std::string &Text) {
  interp::ArgValue A;
  std::string Error;
  EXPECT_TRUE(parseScalarArg(P, Text, A, Error)) << Text << ": " << Error;
  return A;
}

} // namespace

TEST(Launch, Signature) {
  Fixture T;
  ASSERT_NE(T.F, nullptr);
  EXPECT_EQ(T.Sig.str(),
            "scale(float* X, unsigned char* M, int N, unsigned int U, half H, bool B)");
  ASSERT_EQ(T.Sig.Params.size(), 6u);
  EXPECT_TRUE(T.Sig.Params[0].isPointer());
  EXPECT_FALSE(T.Sig.Params[2].isPointer());

  // Without the syntax tree the IR types are used.
  KernelSignature IROnly = getSignature(*T.F, nullptr);
  EXPECT_EQ(IROnly.Params[0].typeString(), "f32*");
  EXPECT_EQ(IROnly.Params[0].Name, "X");
}

TEST(Launch, SelectKernelByName) {
  const char *Two = "__global__ void first(float *X) { *X = 1; }\n"
                    "__global__ void second(float *X) { *X = 2; }\n";
  CompileResult R = compileSource("two.tc", Two, {});
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  DiagnosticEngine &Diags = R.getDiagnostics();
  const ir::Function *Default = selectKernel(*R.module(), "", Diags, R.ast());
  ASSERT_NE(Default, nullptr);
  EXPECT_EQ(Default->getName(), "first");
  const ir::Function *Second = selectKernel(*R.module(), "second", Diags, R.ast());
  ASSERT_NE(Second, nullptr);
  EXPECT_EQ(Second->getName(), "second");
  EXPECT_FALSE(Diags.hasErrors());

  // An unknown name: an error at the first kernel listing both, a note at each.
  EXPECT_EQ(selectKernel(*R.module(), "third", Diags, R.ast()), nullptr);
  ASSERT_TRUE(Diags.hasErrors());
  const Diagnostic &D = Diags.diagnostics().back();
  EXPECT_EQ(D.Message, "no kernel named 'third' (kernels: 'first', 'second')");
  EXPECT_EQ(D.Range.Begin.Line, 1u);
  ASSERT_EQ(D.Notes.size(), 2u);
  EXPECT_EQ(D.Notes[1].Range.Begin.Line, 2u);
}

TEST(Launch, ArrayTypes) {
  Fixture T;
  ASSERT_NE(T.F, nullptr);
  std::string Error;
  EXPECT_TRUE(checkArrayType(T.Sig.Params[0], DType::F32, Error));
  EXPECT_FALSE(checkArrayType(T.Sig.Params[0], DType::F64, Error));
  EXPECT_NE(Error.find("'X'"), std::string::npos);
  EXPECT_NE(Error.find("float64"), std::string::npos);
  EXPECT_NE(Error.find("float32"), std::string::npos);
  EXPECT_TRUE(checkArrayType(T.Sig.Params[1], DType::U8, Error));
  EXPECT_FALSE(checkArrayType(T.Sig.Params[1], DType::I8, Error));

  // From the IR alone an i8 pointer takes either signedness.
  KernelSignature IROnly = getSignature(*T.F, nullptr);
  EXPECT_TRUE(checkArrayType(IROnly.Params[1], DType::I8, Error));
  EXPECT_TRUE(checkArrayType(IROnly.Params[1], DType::U8, Error));
  EXPECT_FALSE(checkArrayType(IROnly.Params[1], DType::Bool, Error));
}

TEST(Launch, ScalarLiterals) {
  Fixture T;
  ASSERT_NE(T.F, nullptr);
  const KernelParam &N = T.Sig.Params[2], &U = T.Sig.Params[3], &H = T.Sig.Params[4],
                    &B = T.Sig.Params[5];
  EXPECT_EQ(scalar(N, "-5").IntValue, -5);
  EXPECT_EQ(scalar(N, "0x10").IntValue, 16);
  EXPECT_EQ(scalar(N, "-0x10").IntValue, -16);
  EXPECT_EQ(scalar(N, "2147483647").IntValue, 2147483647);
  EXPECT_EQ(scalar(N, "-2147483648").IntValue, -2147483648LL);
  EXPECT_NE(scalarError(N, "2147483648").find("does not fit"), std::string::npos);
  EXPECT_NE(scalarError(N, "99999999999999999999999").find("does not fit"), std::string::npos);
  EXPECT_NE(scalarError(N, "1.5").find("invalid integer literal '1.5'"), std::string::npos);
  EXPECT_NE(scalarError(N, "abc").find("parameter 'N' of type int"), std::string::npos);
  scalarError(N, "");
  scalarError(N, "--1");
  scalarError(N, "0x");

  EXPECT_EQ(scalar(U, "4294967295").IntValue, 4294967295LL);
  EXPECT_NE(scalarError(U, "-1").find("range 0 to 4294967295"), std::string::npos);

  EXPECT_EQ(scalar(B, "true").IntValue, 1);
  EXPECT_EQ(scalar(B, "0").IntValue, 0);
  scalarError(B, "2");

  EXPECT_EQ(scalar(H, "1.5").FloatValue, 1.5);
  EXPECT_EQ(scalar(H, "-2").FloatValue, -2);
  EXPECT_TRUE(std::isinf(scalar(H, "inf").FloatValue));
  EXPECT_NE(scalarError(H, "70000").find("does not fit"), std::string::npos);
  EXPECT_NE(scalarError(H, "1.5x").find("invalid floating-point literal"), std::string::npos);
  scalarError(H, "");
}

TEST(Launch, PrepareRunAndWrite) {
  Fixture T;
  ASSERT_NE(T.F, nullptr);
  std::filesystem::path Dir = std::filesystem::temp_directory_path() / "tritonc-launch-test";
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);

  NpyArray X;
  X.Type = DType::F32;
  X.Shape = {4, 4};
  for (int I = 0; I < 16; ++I) {
    float V = static_cast<float>(I);
    const auto *Bytes = reinterpret_cast<const uint8_t *>(&V);
    X.Data.insert(X.Data.end(), Bytes, Bytes + 4);
  }
  NpyArray M;
  M.Type = DType::U8;
  M.Shape = {0};
  std::string Error;
  ASSERT_TRUE(writeNpyFile((Dir / "x.npy").string(), X, Error));
  ASSERT_TRUE(writeNpyFile((Dir / "m.npy").string(), M, Error));

  std::string XPath = (Dir / "x.npy").string(), MPath = (Dir / "m.npy").string();
  PreparedLaunch L;
  EXPECT_FALSE(prepareLaunch(T.Sig, {XPath, MPath}, L, Error));
  EXPECT_NE(Error.find("takes 6 arguments, but 2 were given"), std::string::npos);
  EXPECT_NE(Error.find(T.Sig.str()), std::string::npos);

  EXPECT_FALSE(prepareLaunch(T.Sig, {MPath, MPath, "10", "1", "1", "1"}, L, Error));
  EXPECT_NE(Error.find("uint8"), std::string::npos);
  EXPECT_FALSE(
      prepareLaunch(T.Sig, {(Dir / "nope.npy").string(), MPath, "10", "1", "1", "1"}, L, Error));
  EXPECT_NE(Error.find("cannot open"), std::string::npos);

  ASSERT_TRUE(prepareLaunch(T.Sig, {XPath, MPath, "10", "1", "0.5", "true"}, L, Error)) << Error;
  ASSERT_EQ(L.Buffers.size(), 2u);
  EXPECT_EQ(L.Buffers[0].Name, "X");
  EXPECT_EQ(L.Buffers[0].SizeInBytes, 64u);
  interp::InterpResult Result = interp::runKernel(*T.F, {1, 1, 1}, L.Args, L.Buffers);
  ASSERT_TRUE(Result.Ok) << Result.Error;

  ASSERT_TRUE(writeLaunchOutputs(T.Sig, L, (Dir / "out" / "nested").string(), Error)) << Error;
  NpyArray Y;
  ASSERT_TRUE(readNpyFile((Dir / "out" / "nested" / "X.npy").string(), Y, Error)) << Error;
  EXPECT_EQ(Y.Shape, X.Shape);
  std::vector<float> Values(16);
  std::memcpy(Values.data(), Y.Data.data(), 64);
  for (int I = 0; I < 16; ++I)
    EXPECT_EQ(Values[I], I < 10 ? 2.0f * I : static_cast<float>(I)) << I;
  EXPECT_TRUE(std::filesystem::exists(Dir / "out" / "nested" / "M.npy"));
  std::filesystem::remove_all(Dir);
}
