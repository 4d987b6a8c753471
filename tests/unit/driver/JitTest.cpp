//===- JitTest.cpp - Device compilation, specialization and the kernel cache ===//
//
// These tests need no GPU and do not look at the generated code: they only
// need the back end to compile kernels/transpose.tc. The launch test takes
// the GPU path where a device exists and checks the error message elsewhere.

#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Pipeline.h"

#include "tritonc/runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

using namespace tritonc;
using namespace tritonc::driver;

namespace {

const std::string Transpose = std::string(TRITONC_KERNELS_DIR) + "/transpose.tc";

/// A fresh, empty directory under the test temp dir, removed at the end.
class TempDir {
public:
  TempDir() {
    std::string Pattern = testing::TempDir() + "tritonc-jit-XXXXXX";
    char *Made = ::mkdtemp(Pattern.data());
    EXPECT_NE(Made, nullptr);
    Path = Pattern;
  }
  ~TempDir() {
    std::error_code Ec;
    std::filesystem::remove_all(Path, Ec);
  }
  std::string Path;
};

DeviceCompileOptions defaultOptions() { return DeviceCompileOptions(); }

DeviceCompileResult
compileTranspose(runtime::KernelCache &Cache, const DeviceCompileOptions &Opts = defaultOptions(),
                 std::string_view Spec = "",
                 std::string Version = runtime::CacheKeyInputs::compilerVersion()) {
  CacheConfig C;
  C.Cache = &Cache;
  C.CompilerVersion = std::move(Version);
  return compileForDevice(KernelSource::file(Transpose), Opts, Spec, C);
}

} // namespace

TEST(JitCache, SecondCompileIsADiskHit) {
  TempDir Dir;
  runtime::KernelCache First(Dir.Path);
  ASSERT_TRUE(First.diskEnabled());
  DeviceCompileResult A = compileTranspose(First);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  EXPECT_EQ(A.Cache, CacheOutcome::Miss);
  EXPECT_EQ(A.CacheKey.size(), 64u);
  EXPECT_EQ(First.stats().Stores, 2u); // PTX and metadata.
  EXPECT_TRUE(std::filesystem::exists(First.entryPath(A.CacheKey, "ptx")));
  EXPECT_TRUE(std::filesystem::exists(First.entryPath(A.CacheKey, "meta")));

  // A new cache object over the same directory: nothing in memory.
  runtime::KernelCache Second(Dir.Path);
  DeviceCompileResult B = compileTranspose(Second);
  ASSERT_TRUE(B.ok()) << B.Diagnostics;
  EXPECT_EQ(B.Cache, CacheOutcome::Hit);
  EXPECT_EQ(B.CacheKey, A.CacheKey);
  EXPECT_EQ(Second.stats().DiskHits, 2u);
  EXPECT_EQ(Second.stats().Misses, 0u);
  EXPECT_EQ(Second.stats().Stores, 0u);
  // The hit carries everything a launch needs.
  EXPECT_EQ(B.PTX, A.PTX);
  EXPECT_EQ(B.Info.Name, "transpose");
  EXPECT_EQ(B.Info.Name, A.Info.Name);
  EXPECT_EQ(B.Info.NumWarps, A.Info.NumWarps);
  EXPECT_EQ(B.Info.SharedMemBytes, A.Info.SharedMemBytes);
  EXPECT_EQ(B.Info.NumBarriers, A.Info.NumBarriers);
  EXPECT_EQ(B.Signature.str(), A.Signature.str());
  EXPECT_EQ(B.Signature.str(), "transpose(f32* X, f32* Y, i32 M, i32 N, i32 ldx, i32 ldy)");
  EXPECT_EQ(B.Diagnostics, A.Diagnostics);

  // The first object, its memory emptied, also reads the disk.
  First.clearMemory();
  EXPECT_EQ(compileTranspose(First).Cache, CacheOutcome::Hit);
  EXPECT_EQ(First.stats().DiskHits, 2u);
}

TEST(JitCache, EveryInputOfTheKeyMisses) {
  TempDir Dir;
  runtime::KernelCache Warm(Dir.Path);
  DeviceCompileResult Base = compileTranspose(Warm);
  ASSERT_TRUE(Base.ok()) << Base.Diagnostics;

  DeviceCompileOptions Define = defaultOptions();
  Define.Front.Defines.emplace_back("TM", "64");
  DeviceCompileOptions Warps = defaultOptions();
  Warps.Back.NumWarps = 8;
  DeviceCompileOptions Stages = defaultOptions();
  Stages.Back.NumStages = 4;
  DeviceCompileOptions StagesList = defaultOptions();
  StagesList.Front.Tuned.NumStages = {2, 3};
  StagesList.Front.Config = 1; // num_stages=3, the default: the list itself changes the key.
  DeviceCompileOptions WarpsList = defaultOptions();
  WarpsList.Front.Tuned.NumWarps = {2, 8};
  WarpsList.Front.Config = 1;
  DeviceCompileOptions Arch = defaultOptions();
  Arch.Back.Arch = Arch.Back.Arch == ptx::Arch::SM90a ? ptx::Arch::SM80 : ptx::Arch::SM90a;
  DeviceCompileOptions Passes = defaultOptions();
  Passes.Front.UsePipelineDefault = false;
  Passes.Front.Pipeline = "dce";

  struct Case {
    const char *What;
    DeviceCompileOptions Opts;
    std::string Spec;
    std::string Version;
  } Cases[] = {
      {"define", Define, "", runtime::CacheKeyInputs::compilerVersion()},
      {"num_warps", Warps, "", runtime::CacheKeyInputs::compilerVersion()},
      {"num_stages", Stages, "", runtime::CacheKeyInputs::compilerVersion()},
      {"num_stages list", StagesList, "", runtime::CacheKeyInputs::compilerVersion()},
      {"num_warps list", WarpsList, "", runtime::CacheKeyInputs::compilerVersion()},
      {"arch", Arch, "", runtime::CacheKeyInputs::compilerVersion()},
      {"pipeline", Passes, "", runtime::CacheKeyInputs::compilerVersion()},
      {"specialization", defaultOptions(), "DDDDNN", runtime::CacheKeyInputs::compilerVersion()},
      {"compiler version", defaultOptions(), "", "0.0.0+another-build"},
  };
  std::vector<std::string> Keys = {Base.CacheKey};
  for (const Case &C : Cases) {
    // A cache object with nothing in memory, so that a hit would come from disk.
    runtime::KernelCache Cold(Dir.Path);
    DeviceCompileResult R = compileTranspose(Cold, C.Opts, C.Spec, C.Version);
    ASSERT_TRUE(R.ok()) << C.What << ": " << R.Diagnostics;
    EXPECT_EQ(R.Cache, CacheOutcome::Miss) << C.What;
    EXPECT_EQ(Cold.stats().DiskHits, 0u) << C.What;
    for (const std::string &K : Keys)
      EXPECT_NE(R.CacheKey, K) << C.What;
    Keys.push_back(R.CacheKey);
  }
  EXPECT_EQ(compileTranspose(Warm, defaultOptions(), "DDDDNN").Info.NumWarps, 4u);
  DeviceCompileResult W = compileTranspose(Warm, Warps);
  EXPECT_EQ(W.Cache, CacheOutcome::Hit);
  EXPECT_EQ(W.Info.NumWarps, 8u);
  DeviceCompileResult S = compileTranspose(Warm, Stages);
  EXPECT_EQ(S.Cache, CacheOutcome::Hit);
  EXPECT_EQ(S.NumStages, 4u);
  EXPECT_EQ(compileTranspose(Warm, StagesList).NumStages, 3u);
  EXPECT_EQ(compileTranspose(Warm, WarpsList).Info.NumWarps, 8u);
  StagesList.Front.Config = 0;
  EXPECT_EQ(compileTranspose(Warm, StagesList).NumStages, 2u);
  EXPECT_EQ(Base.NumStages, 3u);

  // And the unchanged compilation still hits.
  runtime::KernelCache Again(Dir.Path);
  EXPECT_EQ(compileTranspose(Again).Cache, CacheOutcome::Hit);
}

TEST(JitCache, SourceChangesMiss) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  const char *Text = "__global__ void k(float *X, int N) {\n"
                     "  int off[16] = 0 ... 16;\n"
                     "  float *p[16] = X + off;\n"
                     "  *?(off < N) p = 1;\n"
                     "}\n";
  CacheConfig C{&Cache};
  DeviceCompileResult A =
      compileForDevice(KernelSource::text("k.tc", Text), defaultOptions(), "", C);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  DeviceCompileResult B = compileForDevice(KernelSource::text("k.tc", std::string(Text) + "\n"),
                                           defaultOptions(), "", C);
  ASSERT_TRUE(B.ok()) << B.Diagnostics;
  // The preprocessed text is the same; the file differs (line numbers may).
  EXPECT_EQ(B.Cache, CacheOutcome::Miss);
  DeviceCompileResult D =
      compileForDevice(KernelSource::text("k.tc", Text), defaultOptions(), "", C);
  EXPECT_EQ(D.Cache, CacheOutcome::Hit);
  EXPECT_EQ(D.CacheKey, A.CacheKey);
}

TEST(JitCache, MalformedMetadataIsRecompiled) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  DeviceCompileResult A = compileTranspose(Cache);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  // A well-formed cache entry whose payload is not metadata.
  Cache.store(A.CacheKey, "meta", "not metadata");
  runtime::KernelCache Fresh(Dir.Path);
  DeviceCompileResult B = compileTranspose(Fresh);
  ASSERT_TRUE(B.ok()) << B.Diagnostics;
  EXPECT_EQ(B.Cache, CacheOutcome::Miss);
  EXPECT_EQ(B.PTX, A.PTX);
  // The recompilation repaired the entry.
  runtime::KernelCache Third(Dir.Path);
  EXPECT_EQ(compileTranspose(Third).Cache, CacheOutcome::Hit);
}

TEST(JitCache, TensorMapsSurviveTheCache) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  DeviceCompileResult A = compileTranspose(Cache);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  // The entry as the back end would write it for a kernel with two maps.
  TensorMapSpec M1;
  M1.Dims = {ParamPoly{{1, {3}}}, std::nullopt};
  M1.Strides = {ParamPoly{{1, {4}}}};
  M1.Box = {64, 64};
  M1.SwizzleBytes = 128;
  TensorMapSpec M2 = M1;
  M2.BaseParam = 1;
  M2.DataType = 9;
  M2.Dims[1] = ParamPoly{{2, {2, 3}}, {-1, {}}};
  std::optional<std::string> Meta = Cache.lookup(A.CacheKey, "meta");
  ASSERT_TRUE(Meta);
  DeviceCompileResult WithMaps;
  ASSERT_TRUE(parseKernelMeta(*Meta, WithMaps));
  EXPECT_TRUE(WithMaps.Signature.TensorMaps.empty());
  WithMaps.Signature.TensorMaps = {M1, M2};
  Cache.store(A.CacheKey, "meta", serializeKernelMeta(WithMaps));

  runtime::KernelCache Fresh(Dir.Path);
  DeviceCompileResult B = compileTranspose(Fresh);
  ASSERT_TRUE(B.ok()) << B.Diagnostics;
  EXPECT_EQ(B.Cache, CacheOutcome::Hit);
  ASSERT_EQ(B.Signature.TensorMaps.size(), 2u);
  EXPECT_EQ(B.Signature.TensorMaps[0], M1);
  EXPECT_EQ(B.Signature.TensorMaps[1], M2);
  EXPECT_EQ(B.Info.TensorMaps, B.Signature.TensorMaps);
  EXPECT_EQ(B.Signature.str(), A.Signature.str());
  EXPECT_EQ(B.Diagnostics, A.Diagnostics);

  // A damaged map makes the whole entry malformed.
  std::string Bad = serializeKernelMeta(WithMaps);
  size_t At = Bad.find("swizzle=128");
  ASSERT_NE(At, std::string::npos);
  Bad[At] = 'S';
  DeviceCompileResult Ignored;
  EXPECT_FALSE(parseKernelMeta(Bad, Ignored));
}

TEST(JitCache, RemarksComeWithTheDiagnosticsAndAHitReplaysThem) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  DeviceCompileOptions Opts;
  std::string Error;
  Opts.Front.Remarks = *RemarkFilter::parse("all", Error);
  DeviceCompileResult A = compileTranspose(Cache, Opts);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  EXPECT_EQ(A.Cache, CacheOutcome::Miss);
  EXPECT_NE(A.Remarks.find("transpose.tc:"), std::string::npos) << A.Remarks;
  EXPECT_NE(A.Remarks.find(": remark: "), std::string::npos) << A.Remarks;
  EXPECT_NE(A.Diagnostics.find(A.Remarks), std::string::npos);
  // The filter enters the key: without remarks, another entry and none of them.
  DeviceCompileResult Plain = compileTranspose(Cache);
  ASSERT_TRUE(Plain.ok()) << Plain.Diagnostics;
  EXPECT_NE(Plain.CacheKey, A.CacheKey);
  EXPECT_EQ(Plain.Remarks, "");
  EXPECT_EQ(Plain.PTX, A.PTX);
  runtime::KernelCache Fresh(Dir.Path);
  DeviceCompileResult B = compileTranspose(Fresh, Opts);
  EXPECT_EQ(B.Cache, CacheOutcome::Hit);
  EXPECT_EQ(B.Remarks, A.Remarks);
}

TEST(JitCache, MetadataOfAnOlderFormatIsRecompiled) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  DeviceCompileResult A = compileTranspose(Cache);
  ASSERT_TRUE(A.ok()) << A.Diagnostics;
  std::optional<std::string> Meta = Cache.lookup(A.CacheKey, "meta");
  ASSERT_TRUE(Meta);
  // Version 2 had no remarks; its entries must not be read as version 3.
  const std::string V3 = "tritonc-kernel-meta 3\n";
  ASSERT_EQ(Meta->substr(0, V3.size()), V3);
  std::string V2 = "tritonc-kernel-meta 2\n" + Meta->substr(V3.size());
  DeviceCompileResult Ignored;
  EXPECT_FALSE(parseKernelMeta(V2, Ignored));
  Cache.store(A.CacheKey, "meta", V2);
  runtime::KernelCache Fresh(Dir.Path);
  DeviceCompileResult B = compileTranspose(Fresh);
  ASSERT_TRUE(B.ok()) << B.Diagnostics;
  EXPECT_EQ(B.Cache, CacheOutcome::Miss);
  runtime::KernelCache Third(Dir.Path);
  EXPECT_EQ(compileTranspose(Third).Cache, CacheOutcome::Hit);
}

TEST(JitCache, FailuresAreNotCachedAndOutputOptionsBypass) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  CacheConfig C{&Cache};
  DeviceCompileResult Bad = compileForDevice(
      KernelSource::text("bad.tc", "__global__ void k(float *X) {\n  *X = y;\n}\n"),
      defaultOptions(), "", C);
  EXPECT_FALSE(Bad.ok());
  EXPECT_NE(Bad.Diagnostics.find("bad.tc:2:"), std::string::npos) << Bad.Diagnostics;
  EXPECT_NE(Bad.Diagnostics.find("error:"), std::string::npos) << Bad.Diagnostics;
  EXPECT_EQ(Cache.stats().Stores, 0u);

  DeviceCompileOptions Printing = defaultOptions();
  std::ostringstream Log;
  Printing.Front.Passes.PrintAfterAll = true;
  Printing.Front.Passes.Log = &Log;
  DeviceCompileResult P = compileTranspose(Cache, Printing);
  ASSERT_TRUE(P.ok()) << P.Diagnostics;
  EXPECT_EQ(P.Cache, CacheOutcome::Uncached);
  EXPECT_TRUE(P.CacheKey.empty());
  EXPECT_FALSE(Log.str().empty());
  EXPECT_EQ(Cache.stats().Stores, 0u);

  DeviceCompileResult NoCache = compileForDevice(KernelSource::file(Transpose), defaultOptions());
  ASSERT_TRUE(NoCache.ok()) << NoCache.Diagnostics;
  EXPECT_EQ(NoCache.Cache, CacheOutcome::Uncached);
}

TEST(JitOptions, OneValidationAndOneTargetSelection) {
  codegen::CodeGenOptions Back;
  EXPECT_TRUE(checkBackEndOptions(Back).isOk());
  Back.NumStages = 9;
  EXPECT_EQ(checkBackEndOptions(Back).error(), "num_stages must be 1 to 8, not 9");
  Back.NumStages = 3;
  Back.MaxSharedBytes = 100;
  EXPECT_EQ(checkBackEndOptions(Back).error(),
            "the shared memory per program must be 16384 to 1048576 bytes, not 100");
  // compileForDevice and generatePTX apply the same rules.
  DeviceCompileOptions Opts;
  Opts.Back = Back;
  EXPECT_EQ(compileForDevice(KernelSource::file(Transpose), Opts).Diagnostics,
            "tritonc: error: the shared memory per program must be 16384 to 1048576 bytes, not "
            "100\n");

  runtime::DeviceInfo A100;
  A100.Name = "A100";
  A100.ComputeMajor = 8;
  A100.MaxSharedPerBlockOptin = 166912;
  codegen::CodeGenOptions Selected;
  ASSERT_TRUE(selectTarget(std::nullopt, &A100, Selected).isOk());
  EXPECT_EQ(Selected.Arch, ptx::Arch::SM80);
  EXPECT_EQ(Selected.MaxSharedBytes, 166912u);
  // A name wins over the device; without either the default stays.
  codegen::CodeGenOptions Named;
  ASSERT_TRUE(selectTarget(std::string("sm_90a"), &A100, Named).isOk());
  EXPECT_EQ(Named.Arch, ptx::Arch::SM90a);
  codegen::CodeGenOptions Default;
  ASSERT_TRUE(selectTarget(std::nullopt, nullptr, Default).isOk());
  EXPECT_EQ(Default.Arch, ptx::Arch::SM90a);
  EXPECT_EQ(Default.MaxSharedBytes, 0u);
  EXPECT_EQ(selectTarget(std::string("sm_75"), nullptr, Default).error(),
            "unknown target 'sm_75': expected sm_90a or sm_80");
  runtime::DeviceInfo Turing = A100;
  Turing.ComputeMajor = 7;
  EXPECT_FALSE(selectTarget(std::nullopt, &Turing, Default).isOk());
}

TEST(JitOptions, ArchAndNumWarps) {
  EXPECT_EQ(*parseArch("sm_90a"), ptx::Arch::SM90a);
  EXPECT_EQ(*parseArch("sm_80"), ptx::Arch::SM80);
  EXPECT_EQ(parseArch("sm_90").error(), "unknown target 'sm_90': expected sm_90a or sm_80");
  auto Warps = [](unsigned N) {
    codegen::CodeGenOptions Back;
    Back.NumWarps = N;
    return checkBackEndOptions(Back);
  };
  for (unsigned N : {1u, 2u, 4u, 8u, 16u})
    EXPECT_TRUE(Warps(N).isOk()) << N;
  for (unsigned N : {0u, 3u, 32u})
    EXPECT_FALSE(Warps(N).isOk()) << N;
  EXPECT_EQ(Warps(3).error(), "num_warps must be 1, 2, 4, 8 or 16, not 3");

  runtime::DeviceInfo H100;
  H100.Name = "H100";
  H100.ComputeMajor = 9;
  EXPECT_EQ(*archForDevice(H100), ptx::Arch::SM90a);
  runtime::DeviceInfo A100 = H100;
  A100.ComputeMajor = 8;
  A100.ComputeMinor = 6;
  EXPECT_EQ(*archForDevice(A100), ptx::Arch::SM80);
  runtime::DeviceInfo Blackwell = H100;
  Blackwell.ComputeMajor = 10;
  EXPECT_EQ(*archForDevice(Blackwell), ptx::Arch::SM80);
  runtime::DeviceInfo Old = H100;
  Old.ComputeMajor = 7;
  EXPECT_FALSE(archForDevice(Old));

  DeviceCompileOptions Bad;
  Bad.Back.NumWarps = 3;
  DeviceCompileResult R = compileForDevice(KernelSource::file(Transpose), Bad);
  EXPECT_FALSE(R.ok());
  EXPECT_NE(R.Diagnostics.find("num_warps must be"), std::string::npos) << R.Diagnostics;
}

// The device's shared memory limit sizes the rings; only a limit other than
// the target's enters the options text, and with it the kernel cache key.
TEST(JitOptions, SharedMemoryLimit) {
  codegen::CodeGenOptions Back;
  EXPECT_EQ(Back.sharedMemoryLimit(), 227u * 1024);
  std::string Default = Back.optionsString();
  EXPECT_EQ(Default.find("smem"), std::string::npos) << Default;

  runtime::DeviceInfo H100;
  H100.ComputeMajor = 9;
  H100.MaxSharedPerBlockOptin = 227 * 1024;
  limitSharedMemoryToDevice(H100, Back);
  EXPECT_EQ(Back.MaxSharedBytes, 227u * 1024);
  EXPECT_EQ(Back.optionsString(), Default);

  codegen::CodeGenOptions Ada;
  Ada.Arch = ptx::Arch::SM80;
  EXPECT_EQ(Ada.sharedMemoryLimit(), 163u * 1024);
  runtime::DeviceInfo Sm89 = H100;
  Sm89.ComputeMajor = 8;
  Sm89.ComputeMinor = 9;
  Sm89.MaxSharedPerBlockOptin = 99 * 1024;
  limitSharedMemoryToDevice(Sm89, Ada);
  EXPECT_EQ(Ada.sharedMemoryLimit(), 99u * 1024);
  EXPECT_NE(Ada.optionsString().find(" smem=101376"), std::string::npos) << Ada.optionsString();
  // A limit set by the user stays.
  codegen::CodeGenOptions Given;
  Given.MaxSharedBytes = 64 * 1024;
  limitSharedMemoryToDevice(Sm89, Given);
  EXPECT_EQ(Given.MaxSharedBytes, 64u * 1024);
}

TEST(JitOptions, NumStages) {
  auto Stages = [](unsigned N) {
    codegen::CodeGenOptions Back;
    Back.NumStages = N;
    return checkBackEndOptions(Back);
  };
  for (unsigned N = MinNumStages; N <= MaxNumStages; ++N)
    EXPECT_TRUE(Stages(N).isOk()) << N;
  EXPECT_EQ(Stages(0).error(), "num_stages must be 1 to 8, not 0");
  EXPECT_FALSE(Stages(9).isOk());

  DeviceCompileOptions Bad;
  Bad.Back.NumStages = 9;
  DeviceCompileResult R = compileForDevice(KernelSource::file(Transpose), Bad);
  EXPECT_FALSE(R.ok());
  EXPECT_EQ(R.Diagnostics, "tritonc: error: num_stages must be 1 to 8, not 9\n");

  // A tuned list overrides the option per configuration; every value of a
  // list is checked, whichever configuration is compiled.
  DeviceCompileOptions Listed;
  Listed.Front.Defines.emplace_back("TM", "[32,64]");
  Listed.Front.Tuned.NumStages = {1, 4, 0};
  Listed.Front.Config = 4; // TM=64, num_stages=4
  DeviceCompileResult Zero = compileForDevice(KernelSource::file(Transpose), Listed);
  EXPECT_FALSE(Zero.ok());
  EXPECT_EQ(Zero.Diagnostics,
            "tritonc: error: num_stages must be 1 to 8, not 0 (in the list num_stages=[1,4,0])\n");
  Listed.Front.Tuned.NumStages = {1, 4};
  Listed.Front.Config = 3; // TM=64, num_stages=4
  DeviceCompileResult Four = compileForDevice(KernelSource::file(Transpose), Listed);
  ASSERT_TRUE(Four.ok()) << Four.Diagnostics;
  EXPECT_EQ(Four.NumStages, 4u);
  DeviceCompileOptions Warps;
  Warps.Front.Tuned.NumWarps = {3};
  EXPECT_EQ(compileForDevice(KernelSource::file(Transpose), Warps).Diagnostics,
            "tritonc: error: num_warps must be 1, 2, 4, 8 or 16, not 3 (in the list "
            "num_warps=[3])\n");
}

TEST(JitOptions, TunedWarpsReachTheBackEndNotThePreprocessor) {
  // The kernel would change its name if the preprocessor saw the option.
  const char *Source = "#ifdef TRITONC_NUM_WARPS\n"
                       "__global__ void visible(float *X) { *X = 1.0f; }\n"
                       "#else\n"
                       "__global__ void hidden(float *X) { *X = 1.0f; }\n"
                       "#endif\n";
  DeviceCompileOptions Opts;
  Opts.Front.Tuned.NumWarps = {4, 8};
  Opts.Front.Config = 1;
  DeviceCompileResult R = compileForDevice(KernelSource::text("warps.tc", Source), Opts);
  ASSERT_TRUE(R.ok()) << R.Diagnostics;
  EXPECT_EQ(R.Info.Name, "hidden");
  EXPECT_EQ(R.Info.NumWarps, 8u);
  // The retired macro is an error that points to the option.
  DeviceCompileOptions Define;
  Define.Front.Defines.emplace_back("TRITONC_NUM_WARPS", "8");
  DeviceCompileResult D = compileForDevice(KernelSource::text("warps.tc", Source), Define);
  EXPECT_FALSE(D.ok());
  EXPECT_NE(D.Diagnostics.find("error: -DTRITONC_NUM_WARPS=8 does not set the warp count: use "
                               "--num-warps=8 (num_warps= in Python)"),
            std::string::npos)
      << D.Diagnostics;
}

TEST(JitOptions, OneValidationReportsEveryInvalidOption) {
  codegen::CodeGenOptions Back;
  Back.MaxSharedBytes = 100;
  TunedOptions Tuned;
  Tuned.NumWarps = {4, 5};
  Tuned.NumStages = {9};
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  EXPECT_FALSE(validateBackendOptions(Back, Tuned, Diags));
  ASSERT_EQ(Diags.diagnostics().size(), 3u);
  EXPECT_EQ(Diags.diagnostics()[0].Message,
            "the shared memory per program must be 16384 to 1048576 bytes, not 100");
  EXPECT_EQ(Diags.diagnostics()[1].Message,
            "num_warps must be 1, 2, 4, 8 or 16, not 5 (in the list num_warps=[4,5])");
  EXPECT_EQ(Diags.diagnostics()[2].Message,
            "num_stages must be 1 to 8, not 9 (in the list num_stages=[9])");
  EXPECT_FALSE(Diags.diagnostics()[0].Range.Begin.isValid());
  EXPECT_EQ(checkBackEndOptions(codegen::CodeGenOptions(), Tuned).error(),
            "num_warps must be 1, 2, 4, 8 or 16, not 5 (in the list num_warps=[4,5]); "
            "num_stages must be 1 to 8, not 9 (in the list num_stages=[9])");
}

TEST(JitTimings, PhasesOfAMissAndAHit) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  DeviceCompileResult Miss = compileTranspose(Cache);
  ASSERT_TRUE(Miss.ok()) << Miss.Diagnostics;
  const CompileTimings &M = Miss.Timings;
  EXPECT_GT(M.Preprocess, 0);
  EXPECT_GT(M.Parse, 0);
  EXPECT_GT(M.IRGen, 0);
  EXPECT_GT(M.Passes, 0);
  EXPECT_GT(M.CodeGen, 0);
  EXPECT_GT(M.Cache, 0);
  EXPECT_EQ(M.Load, 0);
  EXPECT_EQ(M.Ptxas, 0);
  EXPECT_DOUBLE_EQ(M.total(), M.Preprocess + M.Parse + M.IRGen + M.Passes + M.CodeGen + M.Cache);

  // A hit preprocesses (for the key) and reads the cache, nothing else.
  DeviceCompileResult Hit = compileTranspose(Cache);
  ASSERT_EQ(Hit.Cache, CacheOutcome::Hit);
  EXPECT_GT(Hit.Timings.Preprocess, 0);
  EXPECT_GT(Hit.Timings.Cache, 0);
  EXPECT_EQ(Hit.Timings.Parse, 0);
  EXPECT_EQ(Hit.Timings.CodeGen, 0);

  // Uncached: no cache phase.
  DeviceCompileResult Plain = compileForDevice(KernelSource::file(Transpose), defaultOptions());
  ASSERT_TRUE(Plain.ok()) << Plain.Diagnostics;
  EXPECT_EQ(Plain.Timings.Cache, 0);
  EXPECT_GT(Plain.Timings.CodeGen, 0);
  EXPECT_EQ(Plain.PTX, Miss.PTX);

  std::string Text = M.format("  ");
  for (const char *Phase : {"preprocess", "parse", "irgen", "passes", "codegen", "cache", "total"})
    EXPECT_NE(Text.find(std::string("  ") + Phase + " "), std::string::npos) << Phase << Text;
  EXPECT_EQ(Text.find("load"), std::string::npos) << Text;
  EXPECT_EQ(Text.find("ptxas"), std::string::npos) << Text;
  EXPECT_EQ(M.phases().back().first, "total");
}

TEST(JitSpecialization, Canonical) {
  EXPECT_EQ(canonicalSpecialization("DDNF"), "DDNN");
  EXPECT_EQ(canonicalSpecialization("NNF"), "");
  EXPECT_EQ(canonicalSpecialization(""), "");
  // The sign letters stay; 1 is a non-negative integer.
  EXPECT_EQ(canonicalSpecialization("DDSU1N"), "DDSUUN");
  EXPECT_EQ(canonicalSpecialization("NN1F"), "NNUN");
  EXPECT_EQ(canonicalSpecialization("NSF"), "NSN");
}

// Launches whose integers keep their sign and their multiples of 16 share a
// variant; only a negative integer makes another one.
TEST(JitSpecialization, NegativeIntegersAloneAddVariants) {
  auto Key = [](runtime::KernelArgs A) {
    return canonicalSpecialization(runtime::specializationString(A));
  };
  runtime::KernelArgs Small, Large, One, Negative;
  Small.pointer(0x1000).i32(64).i32(5);
  Large.pointer(0x2000).i32(4096).i32(1000);
  One.pointer(0x3000).i32(0).i32(1);
  Negative.pointer(0x1000).i32(64).i32(-5);
  EXPECT_EQ(Key(Small), "DSU");
  EXPECT_EQ(Key(Large), Key(Small));
  EXPECT_EQ(Key(One), Key(Small));
  EXPECT_EQ(Key(Negative), "DSN");
}

TEST(JitSpecialization, RaisesHintsToMultiplesOf16) {
  CompileOptions Opts;
  CompileResult R = compileFile(Transpose, Opts);
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  ir::Function &F = *R.module()->functions().front();
  ASSERT_EQ(F.getNumArgs(), 6u);
  EXPECT_EQ(F.getArg(2)->attrs().MultipleOf, 8); // M __multipleof(8)
  ASSERT_TRUE(applySpecialization(F, "DDDNDN").isOk());
  EXPECT_EQ(F.getArg(0)->attrs().Aligned, 16);    // X __aligned(16)
  EXPECT_EQ(F.getArg(1)->attrs().Aligned, 16);    // Y __aligned(16)
  EXPECT_EQ(F.getArg(2)->attrs().MultipleOf, 16); // lcm(8, 16)
  EXPECT_EQ(F.getArg(3)->attrs().MultipleOf, 8);  // 'N' keeps the declaration
  EXPECT_EQ(F.getArg(4)->attrs().MultipleOf, 16);
  EXPECT_EQ(F.getArg(5)->attrs().MultipleOf, 1);
  // Pointer hints are not integer hints and vice versa.
  EXPECT_EQ(F.getArg(0)->attrs().MultipleOf, 1);
  EXPECT_EQ(F.getArg(4)->attrs().Aligned, 1);
  ASSERT_TRUE(applySpecialization(F, "").isOk());
  EXPECT_EQ(F.getArg(4)->attrs().MultipleOf, 16);

  runtime::Status Short = applySpecialization(F, "DD");
  EXPECT_EQ(Short.error(),
            "specialization 'DD' has 2 letters, but kernel transpose has 6 parameters");
  runtime::Status Letter = applySpecialization(F, "DDDDDX");
  EXPECT_NE(Letter.error().find("unknown letter 'X'"), std::string::npos) << Letter.error();

  CompileResult G = compileSource("f.tc", "__global__ void k(float *X, float a) {\n  *X = a;\n}\n",
                                  CompileOptions());
  ASSERT_TRUE(G.ok()) << G.formattedDiagnostics();
  runtime::Status OnFloat = applySpecialization(*G.module()->functions().front(), "ND");
  EXPECT_NE(OnFloat.error().find("'D' needs an integer or pointer parameter, not f32"),
            std::string::npos)
      << OnFloat.error();
}

// S is D and U together on an integer; U records the sign alone; N, 1 and D
// leave it unknown. The sign letters need an integer parameter.
TEST(JitSpecialization, RecordsNonNegativeIntegers) {
  CompileOptions Opts;
  CompileResult R = compileFile(Transpose, Opts);
  ASSERT_TRUE(R.ok()) << R.formattedDiagnostics();
  ir::Function &F = *R.module()->functions().front();
  ASSERT_TRUE(applySpecialization(F, "DNSUD1").isOk());
  EXPECT_FALSE(F.getArg(0)->attrs().NonNegative);
  EXPECT_EQ(F.getArg(2)->attrs().MultipleOf, 16); // S: lcm(8, 16) ...
  EXPECT_TRUE(F.getArg(2)->attrs().NonNegative);  // ... and the sign
  EXPECT_EQ(F.getArg(3)->attrs().MultipleOf, 8);  // U: the sign alone, N __multipleof(8) kept
  EXPECT_TRUE(F.getArg(3)->attrs().NonNegative);
  EXPECT_EQ(F.getArg(4)->attrs().MultipleOf, 16); // D: a multiple of any sign
  EXPECT_FALSE(F.getArg(4)->attrs().NonNegative);
  EXPECT_FALSE(F.getArg(5)->attrs().NonNegative); // 1: as written, nothing applied

  runtime::Status OnPointer = applySpecialization(F, "SDNNNN");
  EXPECT_NE(OnPointer.error().find("parameter 0 (X): 'S' needs an integer parameter, not f32*"),
            std::string::npos)
      << OnPointer.error();
  CompileResult G =
      compileSource("f.tc", "__global__ void k(float *X, bool b) {\n  if (b)\n    *X = 1.0f;\n}\n",
                    CompileOptions());
  ASSERT_TRUE(G.ok()) << G.formattedDiagnostics();
  runtime::Status OnFlag = applySpecialization(*G.module()->functions().front(), "DU");
  EXPECT_NE(OnFlag.error().find("'U' needs an integer parameter, not i1"), std::string::npos)
      << OnFlag.error();
}

// A tensor descriptor's load becomes a bulk tensor copy only in a variant
// whose arguments make the map encodable (16-byte aligned base and strides):
// then the signature lists the map the launcher encodes, from the
// descriptor's base, extents and strides; the generic variant gathers.
TEST(JitSpecialization, TensorDescriptorMapsFollowTheSpecialization) {
  DeviceCompileOptions Opts;
  Opts.Front.Defines = {{"TYPE", "half"}, {"TH", "4"}, {"TW", "8"}, {"TC", "16"}};
  CacheConfig C; // no cache
  KernelSource Src = KernelSource::file(std::string(TRITONC_KERNELS_DIR) + "/box_filter_desc.tc");
  // X, Y, H, W, C, ldh, ldw
  DeviceCompileResult Aligned = compileForDevice(Src, Opts, "DDNNNDD", C);
  ASSERT_TRUE(Aligned.ok()) << Aligned.Diagnostics;
  ASSERT_EQ(Aligned.Signature.TensorMaps.size(), 1u);
  const TensorMapSpec &M = Aligned.Signature.TensorMaps[0];
  EXPECT_EQ(M.BaseParam, 0u); // X: the loads; Y's stores stay scatters
  EXPECT_EQ(M.DataType, 6u);  // f16
  EXPECT_EQ(M.ElemBytes, 2u);
  EXPECT_EQ(M.Box, (std::vector<unsigned>{16, 8, 4})); // innermost first
  EXPECT_EQ(M.SwizzleBytes, 32u);                      // 16 halves per row
  ASSERT_EQ(M.Dims.size(), 3u);
  ASSERT_TRUE(M.Dims[0] && M.Dims[1] && M.Dims[2]);
  EXPECT_EQ(*M.Dims[0], (ParamPoly{{1, {4}}}));                           // C
  EXPECT_EQ(*M.Dims[2], (ParamPoly{{1, {2}}}));                           // H
  EXPECT_EQ(M.Strides, (std::vector<ParamPoly>{{{1, {6}}}, {{1, {5}}}})); // ldw, ldh
  EXPECT_NE(Aligned.PTX.find("cp.async.bulk.tensor.3d"), std::string::npos);

  DeviceCompileResult Generic = compileForDevice(Src, Opts, "", C);
  ASSERT_TRUE(Generic.ok()) << Generic.Diagnostics;
  EXPECT_TRUE(Generic.Signature.TensorMaps.empty());
  EXPECT_EQ(Generic.PTX.find("cp.async.bulk.tensor"), std::string::npos);
}

TEST(JitKernel, VariantsPerSpecialization) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  auto K = JitKernel::create(KernelSource::file(Transpose), defaultOptions(), CacheConfig{&Cache});
  ASSERT_TRUE(K) << K.error();
  JitKernel &J = **K;
  EXPECT_EQ(J.numVariants(), 1u);
  EXPECT_FALSE(J.ptx().empty());
  EXPECT_EQ(J.info().Name, "transpose");
  EXPECT_EQ(J.signature().Params.size(), 6u);
  EXPECT_TRUE(J.generic().Specialization.empty());

  auto V = J.variant("DDDDNN");
  ASSERT_TRUE(V) << V.error();
  EXPECT_EQ((*V)->Specialization, "DDDDNN");
  EXPECT_EQ(J.numVariants(), 2u);
  // Letters that change nothing map to existing variants.
  ASSERT_TRUE(J.variant("DDDDNF"));
  ASSERT_TRUE(J.variant("NNNNFN"));
  EXPECT_EQ(J.numVariants(), 2u);
  // 1 is U, a non-negative integer: a variant of its own.
  auto U = J.variant("DDDD1N");
  ASSERT_TRUE(U) << U.error();
  EXPECT_EQ((*U)->Specialization, "DDDDUN");
  ASSERT_TRUE(J.variant("DDDDUN"));
  EXPECT_EQ(J.numVariants(), 3u);
  auto Bad = J.variant("DD");
  ASSERT_FALSE(Bad);
  EXPECT_NE(Bad.error().find("specialization 'DD' has 2 letters"), std::string::npos)
      << Bad.error();
  EXPECT_EQ(J.numVariants(), 3u);
}

TEST(JitKernel, ALazyKernelCompilesOnlyTheVariantsAskedFor) {
  TempDir Dir;
  runtime::KernelCache Cache(Dir.Path);
  auto K = JitKernel::create(KernelSource::file(Transpose), defaultOptions(), CacheConfig{&Cache},
                             /*Lazy=*/true);
  ASSERT_TRUE(K) << K.error();
  JitKernel &J = **K;
  // The front end alone: the parameters, and no variant (nothing in the cache either).
  EXPECT_EQ(J.numVariants(), 0u);
  EXPECT_EQ(J.signature().str(), "transpose(f32* X, f32* Y, i32 M, i32 N, i32 ldx, i32 ldy)");
  EXPECT_EQ(Cache.stats().Misses, 0u);
  ASSERT_TRUE(J.variant("DDDDDD"));
  EXPECT_EQ(J.numVariants(), 1u);
  // The generic variant when asked for, the same as an eager kernel's.
  EXPECT_EQ(J.info().Name, "transpose");
  EXPECT_EQ(J.numVariants(), 2u);
  auto Eager = JitKernel::create(KernelSource::file(Transpose), defaultOptions());
  ASSERT_TRUE(Eager) << Eager.error();
  EXPECT_EQ(J.ptx(), (*Eager)->ptx());
  EXPECT_EQ(J.signature().str(), (*Eager)->signature().str());
}

TEST(JitKernel, ALazyKernelReportsFrontEndErrorsAtOnceAndBackEndErrorsLater) {
  auto Syntax =
      JitKernel::create(KernelSource::text("bad.tc", "__global__ void k(int *X) { X = ; }"),
                        defaultOptions(), CacheConfig{}, /*Lazy=*/true);
  ASSERT_FALSE(Syntax);
  EXPECT_NE(Syntax.error().find("bad.tc:1:"), std::string::npos) << Syntax.error();
  // A back-end option out of range: only the variants find out.
  DeviceCompileOptions Opts = defaultOptions();
  Opts.Back.NumWarps = 3;
  auto Odd = JitKernel::create(KernelSource::file(Transpose), Opts, CacheConfig{}, /*Lazy=*/true);
  ASSERT_TRUE(Odd) << Odd.error();
  EXPECT_FALSE((*Odd)->variant("DDDDDD"));
  EXPECT_FALSE((*Odd)->generic().ok());
  EXPECT_NE((*Odd)->generic().Diagnostics.find("num_warps must be"), std::string::npos)
      << (*Odd)->generic().Diagnostics;
  EXPECT_FALSE(JitKernel::create(KernelSource::file(Transpose), Opts, CacheConfig{}));
}

TEST(JitKernel, CompileErrorsComeBackFormatted) {
  auto K = JitKernel::create(
      KernelSource::text("oops.tc", "__global__ void k(float *X) {\n  *X = 1 +;\n}\n"),
      defaultOptions(), CacheConfig{});
  ASSERT_FALSE(K);
  EXPECT_NE(K.error().find("oops.tc:2:"), std::string::npos) << K.error();
}

TEST(JitKernel, LaunchChecksArgumentsThenNeedsADevice) {
  auto K = JitKernel::create(KernelSource::file(Transpose), defaultOptions(), CacheConfig{});
  ASSERT_TRUE(K) << K.error();
  JitKernel &J = **K;

  runtime::KernelArgs TooFew;
  TooFew.pointer(0).pointer(0);
  runtime::Status Count = J.launch({1, 1, 1}, TooFew);
  EXPECT_EQ(Count.error(), "kernel transpose takes 6 arguments, 2 given; signature: "
                           "transpose(f32* X, f32* Y, i32 M, i32 N, i32 ldx, i32 ldy)");
  runtime::KernelArgs WrongKind;
  WrongKind.pointer(0).pointer(0).f32(1).i32(64).i32(64).i32(64);
  runtime::Status Kind = J.launch({1, 1, 1}, WrongKind);
  EXPECT_NE(Kind.error().find("argument 2 (M) is f32, the parameter is i32"), std::string::npos)
      << Kind.error();

  auto D = runtime::CudaDriver::get();
  constexpr unsigned M = 64, N = 96;
  if (!D) {
    runtime::KernelArgs Args;
    Args.pointer(0).pointer(0).i32(M).i32(N).i32(N).i32(M);
    runtime::Status S = J.launch({M / 32, N / 32, 1}, Args);
    EXPECT_EQ(S.error().rfind("no CUDA driver: ", 0), 0u) << S.error();
    auto Loaded = J.load("DDDDDD");
    ASSERT_FALSE(Loaded);
    EXPECT_EQ(Loaded.error().rfind("no CUDA driver: ", 0), 0u) << Loaded.error();
    return;
  }
  // With a GPU: transpose a 64 x 96 matrix and check every element.
  runtime::Expected<ptx::Arch> Arch = archForDevice((*D)->device());
  ASSERT_TRUE(Arch) << Arch.error();
  DeviceCompileOptions Opts;
  Opts.Back.Arch = *Arch;
  auto KD = JitKernel::create(KernelSource::file(Transpose), Opts, CacheConfig{});
  ASSERT_TRUE(KD) << KD.error();
  std::vector<float> X(M * N), Y(M * N, -1.0f);
  for (unsigned I = 0; I < M * N; ++I)
    X[I] = float(I);
  auto BX = runtime::DeviceBuffer::allocate(**D, X.size() * 4);
  auto BY = runtime::DeviceBuffer::allocate(**D, Y.size() * 4);
  ASSERT_TRUE(BX && BY);
  ASSERT_TRUE(BX->upload(X.data(), X.size() * 4).isOk());
  ASSERT_TRUE(BY->upload(Y.data(), Y.size() * 4).isOk());
  runtime::KernelArgs Args;
  Args.pointer(BX->ptr()).pointer(BY->ptr()).i32(M).i32(N).i32(N).i32(M);
  runtime::Status S = (*KD)->launch({M / 32, N / 32, 1}, Args);
  ASSERT_TRUE(S.isOk()) << S.error();
  EXPECT_EQ((*KD)->lastSpecialization(), "DDSSSS");
  // The launch loaded the variant and timed it; load() finds it loaded.
  auto Loaded = (*KD)->load("DDSSSS");
  ASSERT_TRUE(Loaded) << Loaded.error();
  EXPECT_GT((*Loaded)->Timings.Load, 0);
  EXPECT_EQ((*KD)->numVariants(), 2u);
  ASSERT_TRUE((*D)->synchronize().isOk());
  ASSERT_TRUE(BY->download(Y.data(), Y.size() * 4).isOk());
  for (unsigned I = 0; I < M; ++I)
    for (unsigned J2 = 0; J2 < N; ++J2)
      ASSERT_EQ(Y[J2 * M + I], X[I * N + J2]) << I << "," << J2;
}
