//===- RuntimeSmoke.cpp - GPU smoke test of the CUDA runtime layer ---------===//
//
// Run by scripts/gpu-test on a machine with an NVIDIA GPU (not in CI):
// prints the device, JIT-loads hand-written PTX, launches it and checks the
// results, checks that a broken PTX reports the JIT error log, and that a
// launch with more than 48 KB of dynamic shared memory opts in correctly.
//
// `gpu_runtime_smoke --print-ptx NAME` prints one of the embedded PTX
// modules (add, shared, broken) so that CI can assemble them with ptxas.
//
//===----------------------------------------------------------------------===//
#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/KernelCache.h"
#include "tritonc/runtime/Module.h"

#include "SmokeTest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tritonc::runtime;
using namespace tritonc::test::gpu;

namespace {

// Z[i] = X[i] + Y[i] for i < N, one element per thread.
const char *AddPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry add_f32(
    .param .u64 add_f32_x,
    .param .u64 add_f32_y,
    .param .u64 add_f32_z,
    .param .u32 add_f32_n
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;

    ld.param.u64 %rd1, [add_f32_x];
    ld.param.u64 %rd2, [add_f32_y];
    ld.param.u64 %rd3, [add_f32_z];
    ld.param.u32 %r1, [add_f32_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r5, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
)";

// One block: thread t stores X[t] at the END of a dynamic shared region of
// `bytes` bytes (so that the region must really be that large), then reads
// the value of thread (t+1) % ntid and writes it to Y[t].
const char *SharedPtx = R"(.version 8.0
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 dyn_smem[];

.visible .entry rotate_shared(
    .param .u64 rotate_shared_x,
    .param .u64 rotate_shared_y,
    .param .u32 rotate_shared_bytes
)
{
    .reg .b32 %r<12>;
    .reg .f32 %f<3>;
    .reg .b64 %rd<9>;

    ld.param.u64 %rd1, [rotate_shared_x];
    ld.param.u64 %rd2, [rotate_shared_y];
    ld.param.u32 %r1, [rotate_shared_bytes];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ntid.x;
    mul.wide.u32 %rd5, %r2, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.global.f32 %f1, [%rd6];
    mov.u32 %r4, dyn_smem;
    shl.b32 %r5, %r3, 2;
    sub.s32 %r6, %r1, %r5;
    add.s32 %r6, %r4, %r6;
    shl.b32 %r7, %r2, 2;
    add.s32 %r8, %r6, %r7;
    st.shared.f32 [%r8], %f1;
    bar.sync 0;
    add.s32 %r9, %r2, 1;
    rem.u32 %r10, %r9, %r3;
    shl.b32 %r11, %r10, 2;
    add.s32 %r11, %r6, %r11;
    ld.shared.f32 %f2, [%r11];
    add.s64 %rd7, %rd4, %rd5;
    st.global.f32 [%rd7], %f2;
    ret;
}
)";

// Uses an undeclared register: ptxas must reject it with a message.
const char *BrokenPtx = R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry broken()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, %undeclared_register;
    ret;
}
)";

KernelSignature addSignature() {
  return {"add_f32",
          {{"X", ArgKind::Pointer, "f32"},
           {"Y", ArgKind::Pointer, "f32"},
           {"Z", ArgKind::Pointer, "f32"},
           {"N", ArgKind::Int32, ""}}};
}

void testAdd(CudaDriver &D) {
  Expected<Module> M = Module::loadPTX(D, AddPtx, JitOptions{/*Verbose=*/true});
  if (!ok(M, "loading add_f32"))
    return;
  std::printf("JIT info log: %s\n", M->infoLog().c_str());
  Expected<Kernel> K = M->getKernel(addSignature());
  if (!ok(K, "getting add_f32"))
    return;
  if (Expected<FunctionAttributes> A = K->attributes(); ok(A, "attributes"))
    std::printf("add_f32: %d registers, %d bytes local, %d bytes static shared\n", A->NumRegs,
                A->LocalSizeBytes, A->SharedSizeBytes);

  const int N = 100003; // Not a multiple of the block size: checks the mask.
  std::vector<float> X(N), Y(N), Z(N, 0.f);
  for (int I = 0; I < N; ++I) {
    X[I] = float(I) * 0.5f;
    Y[I] = 1.0f - float(I % 97);
  }
  const size_t Bytes = N * sizeof(float);
  auto BX = DeviceBuffer::allocate(D, Bytes);
  auto BY = DeviceBuffer::allocate(D, Bytes);
  auto BZ = DeviceBuffer::allocate(D, Bytes + 4);
  if (!ok(BX, "alloc X") || !ok(BY, "alloc Y") || !ok(BZ, "alloc Z"))
    return;
  if (!ok(BX->upload(X.data(), Bytes), "upload X") || !ok(BY->upload(Y.data(), Bytes), "upload Y"))
    return;
  // Poison the output, including one element past N that must stay intact.
  if (!ok(BZ->fill(0xFF), "poison Z"))
    return;

  LaunchConfig C;
  C.NumWarps = 4;
  C.Grid = {unsigned((N + 127) / 128), 1, 1};

  // Argument checking happens before the launch.
  KernelArgs Bad;
  Bad.pointer(BX->ptr()).pointer(BY->ptr()).pointer(BZ->ptr()).f32(1.0f);
  Status S = K->launch(C, Bad);
  if (S || S.error().find("argument 3 (N) is f32") == std::string::npos)
    fail("a wrong argument kind was not reported: '" + S.error() + "'");

  Expected<CuStream> Stream = D.streamCreate();
  Expected<CuEvent> E0 = D.eventCreate(), E1 = D.eventCreate();
  if (!ok(Stream, "stream") || !ok(E0, "event") || !ok(E1, "event"))
    return;
  C.Stream = *Stream;
  KernelArgs Args;
  Args.pointer(BX->ptr()).pointer(BY->ptr()).pointer(BZ->ptr()).i32(N);
  std::printf("specialization of the add arguments: %s\n", specializationString(Args).c_str());
  if (!ok(D.eventRecord(*E0, *Stream), "record") || !ok(K->launch(C, Args), "launch add_f32") ||
      !ok(D.eventRecord(*E1, *Stream), "record") || !ok(D.streamSynchronize(*Stream), "sync"))
    return;
  if (Expected<float> Ms = D.eventElapsedTime(*E0, *E1); ok(Ms, "elapsed"))
    std::printf("add_f32 over %d elements: %.3f ms\n", N, double(*Ms));
  (void)D.eventDestroy(*E0);
  (void)D.eventDestroy(*E1);
  (void)D.streamDestroy(*Stream);

  std::vector<float> Out(N + 1);
  if (!ok(BZ->download(Out.data(), Bytes + 4), "download Z"))
    return;
  int Bad_ = 0;
  for (int I = 0; I < N; ++I)
    if (Out[I] != X[I] + Y[I] && Bad_++ < 5)
      fail("Z[" + std::to_string(I) + "] = " + std::to_string(Out[I]) + ", expected " +
           std::to_string(X[I] + Y[I]));
  uint32_t Tail;
  std::memcpy(&Tail, &Out[N], 4);
  if (Tail != 0xFFFFFFFFu)
    fail("the kernel wrote past N");
  if (Bad_ == 0)
    std::printf("add_f32: results correct\n");
}

void testBroken(CudaDriver &D) {
  Expected<Module> M = Module::loadPTX(D, BrokenPtx);
  if (M) {
    fail("broken PTX was accepted");
    return;
  }
  std::printf("broken PTX error (expected):\n%s\n", M.error().c_str());
  if (M.error().find("cuModuleLoadDataEx failed") == std::string::npos ||
      M.error().find("undeclared_register") == std::string::npos)
    fail("the JIT error log does not name the bad operand");
}

void testSharedOptin(CudaDriver &D) {
  const unsigned SharedBytes = 96 * 1024; // Above the 48 KB default limit.
  if (int(SharedBytes) > D.device().MaxSharedPerBlockOptin) {
    fail("device allows only " + std::to_string(D.device().MaxSharedPerBlockOptin) +
         " bytes of shared memory per block");
    return;
  }
  Expected<Module> M = Module::loadPTX(D, SharedPtx);
  if (!ok(M, "loading rotate_shared"))
    return;
  Expected<Kernel> K = M->getKernel({"rotate_shared",
                                     {{"X", ArgKind::Pointer, "f32"},
                                      {"Y", ArgKind::Pointer, "f32"},
                                      {"bytes", ArgKind::Int32, ""}}});
  if (!ok(K, "getting rotate_shared"))
    return;
  const int T = 256;
  std::vector<float> X(T), Y(T, -1.f);
  for (int I = 0; I < T; ++I)
    X[I] = float(I * 3 + 1);
  auto BX = DeviceBuffer::allocate(D, T * 4);
  auto BY = DeviceBuffer::allocate(D, T * 4);
  if (!ok(BX, "alloc") || !ok(BY, "alloc") || !ok(BX->upload(X.data(), T * 4), "upload"))
    return;
  LaunchConfig C;
  C.NumWarps = T / 32;
  C.SharedMemBytes = SharedBytes;
  KernelArgs Args;
  Args.pointer(BX->ptr()).pointer(BY->ptr()).i32(int32_t(SharedBytes));
  if (!ok(K->launch(C, Args), "launch rotate_shared with 96 KB") || !ok(D.synchronize(), "sync") ||
      !ok(BY->download(Y.data(), T * 4), "download"))
    return;
  for (int I = 0; I < T; ++I)
    if (Y[I] != X[(I + 1) % T]) {
      fail("rotate_shared: Y[" + std::to_string(I) + "] = " + std::to_string(Y[I]));
      return;
    }
  std::printf("rotate_shared with %u bytes of dynamic shared memory: results correct\n",
              SharedBytes);
}

void testCache(CudaDriver &D) {
  // A cache key over the real target and driver version round-trips PTX.
  KernelCache Cache("");
  CacheKeyInputs In;
  In.Source = AddPtx;
  In.Target = D.device().target();
  In.DriverVersion = D.driverVersion();
  Cache.store(In.key(), "ptx", AddPtx);
  std::optional<std::string> Hit = Cache.lookup(In.key(), "ptx");
  if (!Hit || *Hit != AddPtx)
    fail("kernel cache round trip");
  else if (Expected<Module> M = Module::loadPTX(D, *Hit); !ok(M, "loading cached PTX"))
    return;
  std::printf("cache key for target %s: %s\n", In.Target.c_str(), In.key().c_str());
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc == 3 && std::strcmp(Argv[1], "--print-ptx") == 0) {
    std::string Name = Argv[2];
    const char *Text = Name == "add"      ? AddPtx
                       : Name == "shared" ? SharedPtx
                       : Name == "broken" ? BrokenPtx
                                          : nullptr;
    if (!Text) {
      std::fprintf(stderr, "unknown PTX module '%s' (add, shared, broken)\n", Name.c_str());
      return 2;
    }
    std::fputs(Text, stdout);
    return 0;
  }

  CudaDriver *D = openDriver();
  if (!D)
    return 1;
  CudaDriver &Drv = *D;

  testAdd(Drv);
  testBroken(Drv);
  testSharedOptin(Drv);
  testCache(Drv);

  return finish("gpu_runtime_smoke");
}
