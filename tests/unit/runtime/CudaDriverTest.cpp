// Runs in CI, which has no GPU: the driver must fail cleanly there. On a GPU
// machine the same tests check that the success path is consistent.
#include "tritonc/runtime/CudaDriver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>
#include <vector>

using namespace tritonc::runtime;

namespace {
bool startsWith(const std::string &S, const std::string &Prefix) { return S.rfind(Prefix, 0) == 0; }
} // namespace

TEST(CudaDriverTest, MissingLibraryIsAClearError) {
  auto D = CudaDriver::load({"libtritonc-no-such-driver.so.1", "libtritonc-no-such-driver.so"});
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.error(), "no NVIDIA driver found (libtritonc-no-such-driver.so.1 could "
                                    "not be loaded: "))
      << D.error();
  // Both attempts are reported.
  EXPECT_NE(D.error().find("libtritonc-no-such-driver.so:"), std::string::npos) << D.error();
}

TEST(CudaDriverTest, NoLibraryNamesIsAnError) {
  auto D = CudaDriver::load({});
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.error(), "no NVIDIA driver found")) << D.error();
}

TEST(CudaDriverTest, NotADriverLibraryIsAClearError) {
  // libc loads fine but has no cuInit.
  auto D = CudaDriver::load({"libc.so.6"});
  ASSERT_FALSE(D);
  EXPECT_EQ(D.error(), "no usable NVIDIA driver found (libc.so.6 lacks cuInit; the driver is too "
                       "old or not the CUDA driver)");
}

TEST(CudaDriverTest, StubLibraryIsAClearError) {
  // The toolkit's link stub has every symbol but cuInit fails. Where no
  // toolkit is installed, loading fails earlier with the same prefix.
  const std::string Stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  auto D = CudaDriver::load({Stub});
  ASSERT_FALSE(D);
  EXPECT_TRUE(startsWith(D.error(), "no NVIDIA driver found (")) << D.error();
  if (std::filesystem::exists(Stub)) {
    EXPECT_TRUE(startsWith(D.error(), "no NVIDIA driver found (cuInit failed: ")) << D.error();
  }
}

TEST(CudaDriverTest, GetIsConsistentAcrossThreads) {
  // Whatever this machine has, every thread sees the same outcome, and a
  // failure says that there is no driver or no device.
  std::vector<std::string> Errors(8);
  std::vector<CudaDriver *> Drivers(8, nullptr);
  std::vector<std::thread> Threads;
  for (int I = 0; I < 8; ++I)
    Threads.emplace_back([&, I] {
      auto D = CudaDriver::get();
      if (D)
        Drivers[I] = *D;
      else
        Errors[I] = D.error();
    });
  for (std::thread &T : Threads)
    T.join();
  for (int I = 1; I < 8; ++I) {
    EXPECT_EQ(Drivers[I], Drivers[0]);
    EXPECT_EQ(Errors[I], Errors[0]);
  }
  auto D = CudaDriver::get();
  if (!D) {
    EXPECT_TRUE(startsWith(D.error(), "no NVIDIA driver found") ||
                startsWith(D.error(), "no CUDA device"))
        << D.error();
  } else {
    EXPECT_GT((*D)->device().ComputeMajor, 0);
    EXPECT_GT((*D)->device().SMCount, 0);
    EXPECT_FALSE((*D)->device().Name.empty());
    EXPECT_GT((*D)->driverVersion(), 0);
  }
}

TEST(CudaDriverTest, DeviceTargetNames) {
  DeviceInfo I;
  I.ComputeMajor = 9;
  I.ComputeMinor = 0;
  EXPECT_EQ(I.target(), "sm_90a");
  I.ComputeMajor = 8;
  I.ComputeMinor = 6;
  EXPECT_EQ(I.target(), "sm_86");
  I.ComputeMajor = 10;
  I.ComputeMinor = 0;
  EXPECT_EQ(I.target(), "sm_100");
}

// cuda.h is looked up where the toolkit installs it, so that no include path
// leaks into the runtime's own targets.
#if __has_include("/usr/local/cuda/include/cuda.h")
#include "/usr/local/cuda/include/cuda.h"
// Our declarations must match the driver ABI that cuda.h describes.
static_assert(cu::ErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu::ErrorStubLibrary == CUDA_ERROR_STUB_LIBRARY);
static_assert(cu::DevAttrMaxSharedMemoryPerBlock ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
static_assert(cu::DevAttrWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE);
static_assert(cu::DevAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::DevAttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::DevAttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::DevAttrMaxSharedMemoryPerBlockOptin ==
              CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
static_assert(cu::FuncAttrMaxThreadsPerBlock == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cu::FuncAttrSharedSizeBytes == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
static_assert(cu::FuncAttrLocalSizeBytes == CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
static_assert(cu::FuncAttrNumRegs == CU_FUNC_ATTRIBUTE_NUM_REGS);
static_assert(cu::FuncAttrMaxDynamicSharedSizeBytes ==
              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
static_assert(cu::JitInfoLogBuffer == CU_JIT_INFO_LOG_BUFFER);
static_assert(cu::JitInfoLogBufferSizeBytes == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::JitErrorLogBuffer == CU_JIT_ERROR_LOG_BUFFER);
static_assert(cu::JitErrorLogBufferSizeBytes == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
static_assert(cu::JitLogVerbose == CU_JIT_LOG_VERBOSE);
static_assert(sizeof(CuDevicePtr) == sizeof(CUdeviceptr));
static_assert(sizeof(CuDevice) == sizeof(CUdevice));
static_assert(sizeof(CuResult) == sizeof(CUresult));
TEST(CudaDriverTest, ConstantsMatchCudaH) { SUCCEED() << "checked at compile time"; }
#endif
