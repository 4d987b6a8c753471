//===- TensorMapSmoke.cpp - GPU test of the tensor maps encoded at launch --===//
//
// Run by scripts/gpu-test on a machine with an NVIDIA GPU (not in CI); it
// needs compute capability 9.0 (TMA). A hand-written sm_90a kernel copies one
// box of a 2-D f16 tensor into shared memory with cp.async.bulk.tensor,
// through the tensor map runtime::Kernel::launch encodes from the
// signature's TensorMapSpec, and writes the shared bytes out as they are.
// The host checks them against the tensor: boxes inside, across the bounded
// extents (zero fill), at negative and out-of-bounds coordinates, a zero map
// (a bounded extent of 0), an unbounded extent, re-encoding when the base,
// the extents or the stride change, 64- and 128-byte swizzles against the
// XOR formula of lib/codegen/MmaSharedLayout.h, the launch errors of bad
// arguments, and the launch overhead with a cached map; last, it reports
// whether the driver takes a stride of 0 (and checks the copy if it does).
//
// `gpu_tensormap_smoke --print-ptx tma` prints the kernel so that CI can
// assemble it with ptxas.
//
//===----------------------------------------------------------------------===//
#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/Module.h"

#include "SmokeTest.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tritonc;
using namespace tritonc::runtime;
using namespace tritonc::test::gpu;

namespace {

// tma_box(src, out, rows, cols, ld, c0, c1, bytes, map): thread 0 loads the
// box at coordinates (c0, c1) of the map (over src) into shared memory; then
// every thread copies `bytes` bytes of shared memory to out, unchanged.
// rows, cols and ld are only read by the launcher (the map's extents and
// stride). tma_nop has the same user parameters, no map and no body: the
// baseline of the launch timing.
const char *TmaPtx = R"(.version 8.0
.target sm_90a
.address_size 64

.shared .align 1024 .b8 tma_box_smem[4096];
.shared .align 8 .b64 tma_box_bar;

.visible .entry tma_box(
    .param .u64 tma_box_src,
    .param .u64 tma_box_out,
    .param .u32 tma_box_rows,
    .param .u32 tma_box_cols,
    .param .u32 tma_box_ld,
    .param .u32 tma_box_c0,
    .param .u32 tma_box_c1,
    .param .u32 tma_box_bytes,
    .param .align 64 .b8 tma_box_map[128]
)
{
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;

    ld.param.u64 %rd1, [tma_box_out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r1, [tma_box_c0];
    ld.param.u32 %r2, [tma_box_c1];
    ld.param.u32 %r3, [tma_box_bytes];
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, tma_box_smem;
    mov.u32 %r6, tma_box_bar;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra SYNC;
    mbarrier.init.shared::cta.b64 [%r6], 1;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
SYNC:
    bar.sync 0;
    @%p1 bra WAIT;
    mov.b64 %rd2, tma_box_map;
    cvta.param.u64 %rd3, %rd2;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd4, [%r6], %r3;
    cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], [%rd3, {%r1, %r2}], [%r6];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r6], 0;
    @!%p2 bra WAIT;
    shl.b32 %r7, %r4, 2;
    mov.u32 %r8, %ntid.x;
    shl.b32 %r9, %r8, 2;
COPY:
    setp.ge.u32 %p3, %r7, %r3;
    @%p3 bra DONE;
    add.u32 %r10, %r5, %r7;
    ld.shared.u32 %r11, [%r10];
    cvt.u64.u32 %rd5, %r7;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r11;
    add.u32 %r7, %r7, %r9;
    bra COPY;
DONE:
    ret;
}

.visible .entry tma_nop(
    .param .u64 tma_nop_src,
    .param .u64 tma_nop_out,
    .param .u32 tma_nop_rows,
    .param .u32 tma_nop_cols,
    .param .u32 tma_nop_ld,
    .param .u32 tma_nop_c0,
    .param .u32 tma_nop_c1,
    .param .u32 tma_nop_bytes
)
{
    ret;
}
)";

// Parameter indices of tma_box.
enum : unsigned { PSrc, POut, PRows, PCols, PLd, PC0, PC1, PBytes };

/// The signature with one f16 map over src: extents (cols, rows) or an
/// unbounded inner extent, stride ld, the given box and swizzle.
KernelSignature signature(unsigned BoxCols, unsigned BoxRows, unsigned Swizzle,
                          bool UnboundedCols = false) {
  KernelSignature Sig{"tma_box",
                      {{"src", ArgKind::Pointer, "f16"},
                       {"out", ArgKind::Pointer, "f16"},
                       {"rows", ArgKind::Int32, ""},
                       {"cols", ArgKind::Int32, ""},
                       {"ld", ArgKind::Int32, ""},
                       {"c0", ArgKind::Int32, ""},
                       {"c1", ArgKind::Int32, ""},
                       {"bytes", ArgKind::Int32, ""}}};
  TensorMapSpec S;
  S.BaseParam = PSrc;
  S.DataType = cu::TensorMapDataTypeFloat16;
  S.ElemBytes = 2;
  if (!UnboundedCols)
    S.Dims.push_back(ParamPoly{{1, {PCols}}});
  else
    S.Dims.push_back(std::nullopt);
  S.Dims.push_back(ParamPoly{{1, {PRows}}});
  S.Strides = {ParamPoly{{1, {PLd}}}};
  S.Box = {BoxCols, BoxRows};
  S.SwizzleBytes = Swizzle;
  Sig.TensorMaps.push_back(S);
  return Sig;
}

/// A host copy of a device tensor of f16 bit patterns, all nonzero (so that
/// zero fill is visible) and finite.
struct Tensor {
  std::vector<uint16_t> Host;
  DeviceBuffer Dev;
};

bool makeTensor(CudaDriver &D, size_t Elements, unsigned Seed, Tensor &T) {
  T.Host.resize(Elements);
  for (size_t I = 0; I < Elements; ++I)
    T.Host[I] = uint16_t(1 + (I * 131 + Seed * 7919) % 30000);
  Expected<DeviceBuffer> B = DeviceBuffer::allocate(D, Elements * 2);
  if (!ok(B, "allocating a tensor") || !ok(B->upload(T.Host.data(), Elements * 2), "upload"))
    return false;
  T.Dev = B.take();
  return true;
}

/// One launch of tma_box and its check.
struct Case {
  std::string Name;
  const Tensor *Src;
  CuDevicePtr SrcPtr; ///< Usually Src->Dev.ptr().
  int32_t Rows, Cols, Ld, C0, C1;
  unsigned BoxCols, BoxRows, Swizzle;
  bool UnboundedCols = false;
};

/// The value the box element (r, c) must have: the tensor's where the
/// coordinates are in bounds (unbounded columns: in the allocation), else 0.
uint16_t expected(const Case &C, int64_t R, int64_t Col) {
  int64_t Row = C.C1 + R, Column = C.C0 + Col;
  if (Row < 0 || Row >= C.Rows || Column < 0 || (!C.UnboundedCols && Column >= C.Cols))
    return 0;
  int64_t Offset = int64_t(C.SrcPtr - C.Src->Dev.ptr()) / 2;
  int64_t Flat = Offset + Row * C.Ld + Column;
  if (Flat < 0 || Flat >= int64_t(C.Src->Host.size()))
    return 0xFFFF; // The test never reads past the tensor; flags the case.
  return C.Src->Host[size_t(Flat)];
}

/// The element index in the shared-memory image of box element Linear:
/// swizzled boxes XOR the 16-byte chunk of every S-byte row with the row's
/// index within its group of 8 (MmaSharedLayout.h).
size_t physicalIndex(size_t Linear, unsigned Swizzle) {
  if (Swizzle == 0)
    return Linear;
  size_t Byte = Linear * 2;
  size_t Mask = size_t(Swizzle / 16 - 1) << 4;
  return (Byte ^ ((Byte >> 3) & Mask)) / 2;
}

void runCase(CudaDriver &D, Kernel &K, const Case &C, DeviceBuffer &Out) {
  const unsigned Bytes = C.BoxCols * C.BoxRows * 2;
  if (!ok(Out.fill(0xAB), C.Name + ": poisoning out"))
    return;
  KernelArgs Args;
  Args.pointer(C.SrcPtr).pointer(Out.ptr()).i32(C.Rows).i32(C.Cols).i32(C.Ld).i32(C.C0).i32(C.C1);
  Args.i32(int32_t(Bytes));
  LaunchConfig Config;
  Config.NumWarps = 4;
  if (!ok(K.launch(Config, Args), C.Name + ": launch") || !ok(D.synchronize(), C.Name + ": sync"))
    return;
  std::vector<uint16_t> Got(C.BoxCols * C.BoxRows);
  if (!ok(Out.download(Got.data(), Bytes), C.Name + ": download"))
    return;
  int Bad = 0;
  for (unsigned R = 0; R < C.BoxRows; ++R)
    for (unsigned Col = 0; Col < C.BoxCols; ++Col) {
      size_t Linear = size_t(R) * C.BoxCols + Col;
      uint16_t Want = expected(C, R, Col);
      uint16_t Have = Got[physicalIndex(Linear, C.Swizzle)];
      if (Have != Want && Bad++ < 4)
        fail(C.Name + ": box element (" + std::to_string(R) + ", " + std::to_string(Col) + ") is " +
             std::to_string(Have) + ", expected " + std::to_string(Want));
    }
  if (Bad == 0)
    std::printf("ok: %s\n", C.Name.c_str());
}

/// A launch that must fail before reaching the device, with a message that
/// contains every string of Parts.
void expectLaunchError(Kernel &K, const std::string &Name, KernelArgs Args,
                       std::initializer_list<const char *> Parts) {
  LaunchConfig Config;
  Status S = K.launch(Config, Args);
  if (S) {
    fail(Name + ": the launch succeeded");
    return;
  }
  for (const char *Part : Parts)
    if (S.error().find(Part) == std::string::npos) {
      fail(Name + ": the message lacks '" + Part + "': " + S.error());
      return;
    }
  std::printf("ok: %s (%s)\n", Name.c_str(), S.error().c_str());
}

/// Average host microseconds per launch of K with Args (alternating with
/// Other when given), the best of three rounds of N launches.
double launchMicros(CudaDriver &D, Kernel &K, KernelArgs &Args, KernelArgs *Other, int N) {
  LaunchConfig Config;
  Config.NumWarps = 4;
  double Best = 1e30;
  for (int Round = 0; Round < 3; ++Round) {
    if (!ok(D.synchronize(), "sync before timing"))
      return 0;
    auto Start = std::chrono::steady_clock::now();
    for (int I = 0; I < N; ++I)
      if (Status S = K.launch(Config, Other && I % 2 ? *Other : Args); !S) {
        fail("launch in the timing loop: " + S.error());
        return 0;
      }
    double Us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - Start).count();
    Best = std::min(Best, Us / N);
    if (!ok(D.synchronize(), "sync after timing"))
      return 0;
  }
  return Best;
}

void testTensorMaps(CudaDriver &D, const Module &M, bool Timing) {
  Expected<Kernel> K1 = M.getKernel(signature(32, 16, 0));
  Expected<Kernel> KUnbounded = M.getKernel(signature(32, 16, 0, /*UnboundedCols=*/true));
  Expected<Kernel> K128 = M.getKernel(signature(64, 16, 128));
  Expected<Kernel> K64 = M.getKernel(signature(32, 16, 64));
  KernelSignature NopSig = signature(32, 16, 0);
  NopSig.Name = "tma_nop";
  NopSig.TensorMaps.clear();
  Expected<Kernel> Nop = M.getKernel(NopSig);
  if (!ok(K1, "getting tma_box") || !ok(KUnbounded, "getting tma_box") ||
      !ok(K128, "getting tma_box") || !ok(K64, "getting tma_box") || !ok(Nop, "getting tma_nop"))
    return;

  // 40 x 72 elements (rows of 144 bytes), of which 70 columns are in
  // bounds; slack after them for the unbounded reads.
  const int32_t Rows = 40, Cols = 70, Ld = 72;
  Tensor A, B;
  if (!makeTensor(D, size_t(Rows) * Ld + 4096, 1, A) ||
      !makeTensor(D, size_t(Rows) * Ld + 4096, 2, B))
    return;
  Expected<DeviceBuffer> Out = DeviceBuffer::allocate(D, 4096);
  if (!ok(Out, "allocating out"))
    return;
  const CuDevicePtr PA = A.Dev.ptr(), PB = B.Dev.ptr();

  // In order: from the zero maps on, consecutive cases differ in what the
  // map depends on (extents, base, stride), so that a stale map would show.
  const Case Cases[] = {
      {"box inside", &A, PA, Rows, Cols, Ld, 0, 0, 32, 16, 0},
      {"box inside at (32, 16)", &A, PA, Rows, Cols, Ld, 32, 16, 32, 16, 0},
      {"box across both bounded extents (zero fill)", &A, PA, Rows, Cols, Ld, 48, 32, 32, 16, 0},
      {"box at negative coordinates", &A, PA, Rows, Cols, Ld, -8, -4, 32, 16, 0},
      {"box at TensorMapOutOfBounds", &A, PA, Rows, Cols, Ld, TensorMapOutOfBounds, 0, 32, 16, 0},
      {"zero map (rows = 0)", &A, PA, 0, Cols, Ld, 0, 0, 32, 16, 0},
      {"zero map (cols = -5)", &A, PA, Rows, -5, Ld, 8, 8, 32, 16, 0},
      {"normal map again after a zero map", &A, PA, Rows, Cols, Ld, 0, 0, 32, 16, 0},
      {"another base", &B, PB, Rows, Cols, Ld, 16, 8, 32, 16, 0},
      {"base 16 bytes further", &B, PB + 16, Rows, Cols, Ld, 16, 8, 32, 16, 0},
      {"another stride and extents", &A, PA, 45, 64, 64, 32, 30, 32, 16, 0},
  };
  for (const Case &C : Cases)
    runCase(D, *K1, C, *Out);
  runCase(D, *KUnbounded,
          {"unbounded inner extent (reads across row ends)", &A, PA, Rows, Cols, Ld, 64, 2, 32, 16,
           0, /*UnboundedCols=*/true},
          *Out);
  runCase(D, *K128, {"128-byte swizzle", &A, PA, Rows, Cols, Ld, 16, 30, 64, 16, 128}, *Out);
  runCase(D, *K64, {"64-byte swizzle", &B, PB, Rows, Cols, Ld, 40, 3, 32, 16, 64}, *Out);

  auto Args = [&](CuDevicePtr Src, int32_t R, int32_t C, int32_t L) {
    KernelArgs A;
    A.pointer(Src).pointer(Out->ptr()).i32(R).i32(C).i32(L).i32(0).i32(0).i32(32 * 16 * 2);
    return A;
  };
  expectLaunchError(*K1, "misaligned base", Args(PA + 2, Rows, Cols, Ld),
                    {"kernel tma_box: tensor map 0 of parameter 0 (src)", "16-byte aligned"});
  expectLaunchError(*K1, "stride not a multiple of 16 bytes", Args(PA, Rows, Cols, 71),
                    {"kernel tma_box: tensor map 0 of parameter 0 (src)", "not a multiple of 16"});
  expectLaunchError(*K1, "extent above TensorMapUnboundedDim", Args(PA, Rows, 0x7FFFFFFF, Ld),
                    {"kernel tma_box: tensor map 0 of parameter 0 (src)", "more than the"});
  {
    KernelArgs Short;
    Short.pointer(PA).pointer(Out->ptr());
    expectLaunchError(*K1, "missing arguments", Short, {"kernel tma_box takes 8 arguments"});
  }
  // After the errors, the kernel still launches correctly.
  runCase(D, *K1, Cases[1], *Out);

  // Planning alone, on the host.
  KernelArgs Plain = Args(PA, Rows, Cols, Ld);
  const int PlanN = 200000;
  auto Start = std::chrono::steady_clock::now();
  uint64_t Sum = 0;
  for (int I = 0; I < PlanN; ++I)
    if (Expected<TensorMapPlan> P = planTensorMap(K1->signature(), 0, Plain))
      Sum += P->Dims[0];
  double PlanNs =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - Start).count() /
      PlanN;
  if (Sum != uint64_t(PlanN) * Cols)
    fail("planTensorMap in the timing loop");
  std::printf("planTensorMap: %.0f ns per call\n", PlanNs);
  if (!Timing)
    return;
  if (PlanNs > 1000)
    fail("planTensorMap takes " + std::to_string(PlanNs) + " ns");

  KernelArgs Other = Args(PA, Rows, Cols - 6, Ld + 8);
  const int N = 500;
  double NopUs = launchMicros(D, *Nop, Plain, nullptr, N);
  double CachedUs = launchMicros(D, *K1, Plain, nullptr, N);
  double EncodeUs = launchMicros(D, *K1, Plain, &Other, N);
  std::printf("launch from C++: %.2f us without a map (tma_nop), %.2f us with a cached map, "
              "%.2f us re-encoding the map each launch\n",
              NopUs, CachedUs, EncodeUs);
  // What the launcher adds to a launch must stay small; the device may make
  // both slower when it is the bottleneck, hence the baseline.
  if (CachedUs > std::max(5.0, NopUs + 1.0))
    fail("a launch with a cached tensor map takes " + std::to_string(CachedUs) + " us");
}

/// A stride of 0 is a multiple of 16 bytes, so the specialization lets the
/// back end use TMA and planTensorMap passes it on; whether the driver
/// takes it is reported here (last: should the device fault, nothing else
/// is lost). If it does, the rows must all read as row 0.
void probeZeroStride(CudaDriver &D, const Module &M) {
  Expected<Kernel> K = M.getKernel(signature(32, 16, 0));
  Tensor A;
  Expected<DeviceBuffer> Out = DeviceBuffer::allocate(D, 4096);
  if (!ok(K, "getting tma_box") || !makeTensor(D, 4096, 3, A) || !ok(Out, "allocating out"))
    return;
  KernelArgs Args;
  Args.pointer(A.Dev.ptr()).pointer(Out->ptr()).i32(40).i32(70).i32(0).i32(0).i32(0).i32(1024);
  LaunchConfig Config;
  if (Status S = K->launch(Config, Args); !S) {
    std::printf("note: a stride of 0 is not accepted: %s\n", S.error().c_str());
    return;
  }
  if (!ok(D.synchronize(), "sync after a stride of 0"))
    return;
  std::printf("note: the driver accepts a stride of 0\n");
  runCase(D, *K, {"stride 0 (every row is row 0)", &A, A.Dev.ptr(), 40, 70, 0, 8, 4, 32, 16, 0},
          *Out);
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc == 3 && std::strcmp(Argv[1], "--print-ptx") == 0) {
    if (std::strcmp(Argv[2], "tma") != 0) {
      std::fprintf(stderr, "unknown PTX module '%s' (tma)\n", Argv[2]);
      return 2;
    }
    std::fputs(TmaPtx, stdout);
    return 0;
  }
  // Under compute-sanitizer the launches are slow: no timing checks.
  bool Timing = !(Argc == 2 && std::strcmp(Argv[1], "--no-timing") == 0);
  if (Argc > 1 && Timing) {
    std::fprintf(stderr, "usage: gpu_tensormap_smoke [--no-timing | --print-ptx tma]\n");
    return 2;
  }

  CudaDriver *D = openDriver();
  if (!D)
    return 1;
  CudaDriver &Drv = *D;
  const DeviceInfo &Dev = Drv.device();
  if (Dev.target() != "sm_90a") {
    std::printf("gpu_tensormap_smoke: TMA needs compute capability 9.0; not run on %s\n",
                Dev.target().c_str());
    return 0;
  }
  if (!Drv.api().TensorMapEncodeTiled) {
    std::fprintf(stderr, "FAIL: the driver lacks cuTensorMapEncodeTiled\n");
    return 1;
  }
  Expected<Module> M = Module::loadPTX(Drv, TmaPtx);
  if (!ok(M, "loading the TMA kernel"))
    return 1;
  testTensorMaps(Drv, *M, Timing);
  probeZeroStride(Drv, *M);

  return finish("gpu_tensormap_smoke");
}
