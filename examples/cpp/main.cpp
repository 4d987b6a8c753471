// Compiles the bundled transpose kernel with the tritonc C++ API, runs it on
// the CPU interpreter, and, when a CUDA device is usable, JIT-compiles it for
// the GPU, launches it there and compares. Prints "ok" and exits with 0 when
// every result is the transpose.
#include "tritonc/driver/Compiler.h"
#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Launch.h"
#include "tritonc/interp/Interpreter.h"
#include "tritonc/runtime/Module.h"

#include <cstdio>
#include <vector>

using namespace tritonc;

namespace {
constexpr int M = 64, N = 96, Tile = 32;

bool isTranspose(const std::vector<float> &X, const std::vector<float> &Y, const char *Where) {
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      if (Y[J * M + I] != X[I * N + J]) {
        std::fprintf(stderr, "%s: Y[%d, %d] = %g, expected %g\n", Where, J, I, Y[J * M + I],
                     X[I * N + J]);
        return false;
      }
  return true;
}

/// The same kernel JIT-compiled for the GPU and launched on device buffers.
int runOnGPU(const std::vector<float> &X, runtime::CudaDriver &D) {
  driver::DeviceCompileOptions Opts;
  Opts.Front.Defines = {{"TM", "32"}, {"TN", "32"}};
  if (runtime::Expected<ptx::Arch> A = driver::archForDevice(D.device()))
    Opts.Back.Arch = *A;
  auto K = driver::JitKernel::create(driver::KernelSource::file(TRANSPOSE_TC), Opts);
  if (!K) {
    std::fprintf(stderr, "%s\n", K.error().c_str());
    return 1;
  }
  auto DX = runtime::DeviceBuffer::allocate(D, X.size() * sizeof(float));
  auto DY = runtime::DeviceBuffer::allocate(D, X.size() * sizeof(float));
  if (!DX || !DY || !DX->upload(X.data(), X.size() * sizeof(float)))
    return 1;
  runtime::KernelArgs Args;
  Args.pointer(DX->ptr()).pointer(DY->ptr());
  Args.add(runtime::KernelArg::i32(M)).add(runtime::KernelArg::i32(N));
  Args.add(runtime::KernelArg::i32(N)).add(runtime::KernelArg::i32(M));
  if (runtime::Status S = (*K)->launch({M / Tile, N / Tile, 1}, Args); !S) {
    std::fprintf(stderr, "%s\n", S.error().c_str());
    return 1;
  }
  std::vector<float> Y(X.size());
  if (!D.synchronize() || !DY->download(Y.data(), Y.size() * sizeof(float)))
    return 1;
  return isTranspose(X, Y, "GPU") ? 0 : 1;
}
} // namespace

int main() {
  driver::CompileOptions Opts;
  Opts.Defines = {{"TM", "32"}, {"TN", "32"}};
  driver::CompileResult R = driver::compileFile(TRANSPOSE_TC, Opts);
  if (!R.ok()) {
    std::fprintf(stderr, "%s", R.formattedDiagnostics().c_str());
    return 1;
  }
  const ir::Function *F =
      driver::selectKernel(*R.module(), "transpose", R.getDiagnostics(), R.ast());
  if (!F) {
    std::fprintf(stderr, "%s", R.formattedDiagnostics().c_str());
    return 1;
  }
  std::vector<float> X(M * N), Y(M * N, 0.0f);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = float(I % 251) - 100.0f;
  std::vector<interp::HostBuffer> Buffers = {{X.data(), X.size() * sizeof(float), "X"},
                                             {Y.data(), Y.size() * sizeof(float), "Y"}};
  using interp::ArgValue;
  interp::InterpResult Run =
      interp::runKernel(*F, {M / Tile, N / Tile, 1},
                        {ArgValue::buffer(0), ArgValue::buffer(1), ArgValue::integer(M),
                         ArgValue::integer(N), ArgValue::integer(N), ArgValue::integer(M)},
                        Buffers);
  if (!Run.Ok) {
    std::fprintf(stderr, "%s\n", Run.Error.c_str());
    return 1;
  }
  if (!isTranspose(X, Y, "interpreter"))
    return 1;
  std::printf("interpreter: ok\n");
  runtime::Expected<runtime::CudaDriver *> D = runtime::CudaDriver::get();
  if (!D) {
    std::printf("GPU: skipped (%s)\n", D.error().c_str());
    std::printf("ok\n");
    return 0;
  }
  if (int Rc = runOnGPU(X, **D); Rc != 0)
    return Rc;
  std::printf("GPU: ok\nok\n");
  return 0;
}
