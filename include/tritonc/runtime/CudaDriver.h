//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// tritonc never links libcuda: the driver is dlopen'd on first use, so the
// compiler, the interpreter and the tests run on machines without a GPU, and
// asking for the GPU there gives a clear error instead of a loader failure.
//
// CudaDriver::get() is the process-wide instance bound to device 0 and its
// primary context (get(N): device N's). Every wrapper makes that context current on the calling
// thread and turns a CUresult into a Status whose message names the call
// ("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)").
//
// Handle types are declared here as opaque pointers with the driver's ABI,
// so that this header does not need cuda.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/Expected.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tritonc::runtime {

using CuResult = int;
using CuDevice = int;
using CuDevicePtr = unsigned long long;
using CuContext = struct CuContextOpaque *;
using CuModule = struct CuModuleOpaque *;
using CuFunction = struct CuFunctionOpaque *;
using CuStream = struct CuStreamOpaque *;
using CuEvent = struct CuEventOpaque *;

/// The few enumerators of cuda.h we use, with the driver's values.
namespace cu {
constexpr CuResult Success = 0;
constexpr CuResult ErrorNoDevice = 100;
constexpr CuResult ErrorStubLibrary = 34;
constexpr int DevAttrMaxSharedMemoryPerBlock = 8;
constexpr int DevAttrWarpSize = 10;
constexpr int DevAttrMultiprocessorCount = 16;
constexpr int DevAttrComputeCapabilityMajor = 75;
constexpr int DevAttrComputeCapabilityMinor = 76;
constexpr int DevAttrMaxSharedMemoryPerBlockOptin = 97;
constexpr int FuncAttrMaxThreadsPerBlock = 0;
constexpr int FuncAttrSharedSizeBytes = 1;
constexpr int FuncAttrLocalSizeBytes = 3;
constexpr int FuncAttrNumRegs = 4;
constexpr int FuncAttrMaxDynamicSharedSizeBytes = 8;
constexpr int JitInfoLogBuffer = 3;
constexpr int JitInfoLogBufferSizeBytes = 4;
constexpr int JitErrorLogBuffer = 5;
constexpr int JitErrorLogBufferSizeBytes = 6;
constexpr int JitOptimizationLevel = 7;
constexpr int JitLogVerbose = 12;
// CUtensorMapDataType (the ones tensor maps of tritonc kernels use).
constexpr unsigned TensorMapDataTypeUInt16 = 1;
constexpr unsigned TensorMapDataTypeFloat16 = 6;
constexpr unsigned TensorMapDataTypeFloat32 = 7;
constexpr unsigned TensorMapDataTypeBFloat16 = 9;
constexpr int TensorMapInterleaveNone = 0;
/// CUtensorMapSwizzle: none, 32, 64, 128 bytes.
constexpr int TensorMapSwizzleNone = 0;
constexpr int TensorMapSwizzle32B = 1;
constexpr int TensorMapSwizzle64B = 2;
constexpr int TensorMapSwizzle128B = 3;
constexpr int TensorMapL2Promotion128B = 2;
constexpr int TensorMapFloatOOBFillNone = 0;
} // namespace cu

/// CUtensorMap: the opaque 128-byte descriptor of a TMA copy. The driver
/// requires 64-byte alignment.
struct alignas(64) CuTensorMap {
  uint64_t Opaque[16] = {};
};
static_assert(sizeof(CuTensorMap) == 128 && alignof(CuTensorMap) == 64);

/// The driver entry points we use, resolved with dlsym. Each points at the
/// versioned symbol that cuda.h's macros select (cuMemAlloc_v2, ...).
struct CudaApi {
  CuResult (*Init)(unsigned) = nullptr;
  CuResult (*DriverGetVersion)(int *) = nullptr;
  CuResult (*DeviceGet)(CuDevice *, int) = nullptr;
  CuResult (*DeviceGetCount)(int *) = nullptr;
  CuResult (*DeviceGetAttribute)(int *, int, CuDevice) = nullptr;
  CuResult (*DeviceGetName)(char *, int, CuDevice) = nullptr;
  CuResult (*DevicePrimaryCtxRetain)(CuContext *, CuDevice) = nullptr;
  CuResult (*DevicePrimaryCtxRelease)(CuDevice) = nullptr;
  CuResult (*CtxSetCurrent)(CuContext) = nullptr;
  CuResult (*CtxSynchronize)() = nullptr;
  CuResult (*ModuleLoadDataEx)(CuModule *, const void *, unsigned, int *, void **) = nullptr;
  CuResult (*ModuleUnload)(CuModule) = nullptr;
  CuResult (*ModuleGetFunction)(CuFunction *, CuModule, const char *) = nullptr;
  CuResult (*FuncSetAttribute)(CuFunction, int, int) = nullptr;
  CuResult (*FuncGetAttribute)(int *, int, CuFunction) = nullptr;
  CuResult (*LaunchKernel)(CuFunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           unsigned, CuStream, void **, void **) = nullptr;
  CuResult (*MemAlloc)(CuDevicePtr *, size_t) = nullptr;
  CuResult (*MemFree)(CuDevicePtr) = nullptr;
  CuResult (*MemcpyHtoD)(CuDevicePtr, const void *, size_t) = nullptr;
  CuResult (*MemcpyDtoH)(void *, CuDevicePtr, size_t) = nullptr;
  CuResult (*MemsetD8)(CuDevicePtr, unsigned char, size_t) = nullptr;
  CuResult (*StreamCreate)(CuStream *, unsigned) = nullptr;
  CuResult (*StreamDestroy)(CuStream) = nullptr;
  CuResult (*StreamSynchronize)(CuStream) = nullptr;
  CuResult (*EventCreate)(CuEvent *, unsigned) = nullptr;
  CuResult (*EventRecord)(CuEvent, CuStream) = nullptr;
  CuResult (*EventSynchronize)(CuEvent) = nullptr;
  CuResult (*EventElapsedTime)(float *, CuEvent, CuEvent) = nullptr;
  CuResult (*EventDestroy)(CuEvent) = nullptr;
  CuResult (*GetErrorName)(CuResult, const char **) = nullptr;
  CuResult (*GetErrorString)(CuResult, const char **) = nullptr;
  /// Optional: null where the driver predates CUDA 12.0 (no TMA). The enum
  /// parameters are passed as int, as the C ABI does for enums.
  CuResult (*TensorMapEncodeTiled)(CuTensorMap *Map, int DataType, uint32_t Rank,
                                   void *GlobalAddress, const uint64_t *GlobalDim,
                                   const uint64_t *GlobalStrides, const uint32_t *BoxDim,
                                   const uint32_t *ElementStrides, int Interleave, int Swizzle,
                                   int L2Promotion, int OOBFill) = nullptr;
};

/// What we know about the device in use.
struct DeviceInfo {
  int Ordinal = 0;
  std::string Name;
  int ComputeMajor = 0;
  int ComputeMinor = 0;
  int SMCount = 0;
  int WarpSize = 32;
  int MaxSharedPerBlock = 0;      ///< Without opt-in (usually 48 KB).
  int MaxSharedPerBlockOptin = 0; ///< With cuFuncSetAttribute opt-in.
  /// The PTX target of the device: "sm_80", "sm_90a" (9.0 uses the
  /// architecture-specific target so that wgmma/setmaxnreg are available).
  std::string target() const;
};

/// Per-function resource usage reported by the driver after JIT.
struct FunctionAttributes {
  int NumRegs = 0;
  int LocalSizeBytes = 0;  ///< Spills and local arrays, per thread.
  int SharedSizeBytes = 0; ///< Static shared memory.
  int MaxThreadsPerBlock = 0;
};

/// The loaded CUDA driver bound to one device and its primary context.
class CudaDriver {
public:
  /// The process-wide driver for device 0, initialized on first call
  /// (thread-safe). The result, success or error, is computed once. Errors
  /// start with "no NVIDIA driver found" or "no CUDA device".
  static Expected<CudaDriver *> get();
  /// The process-wide driver for device Ordinal and its primary context
  /// (get() for 0), created on first use; thread-safe. Errors as for get(),
  /// or "no CUDA device N (the driver found M)".
  static Expected<CudaDriver *> get(int Ordinal);

  /// Loads the first library of LibraryNames that dlopen accepts, resolves
  /// the entry points, calls cuInit and binds device Ordinal. For tests and
  /// for tools that want a specific library; get() uses
  /// {"libcuda.so.1", "libcuda.so"}.
  static Expected<std::unique_ptr<CudaDriver>> load(const std::vector<std::string> &LibraryNames,
                                                    int Ordinal = 0);

  ~CudaDriver();
  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  const CudaApi &api() const { return Api; }
  const DeviceInfo &device() const { return Device; }
  /// The driver's CUDA version, e.g. 13000 for 13.0.
  int driverVersion() const { return DriverVersion; }
  /// "13.0".
  std::string driverVersionString() const;
  /// The path or name of the library that was loaded.
  const std::string &libraryName() const { return LibraryName; }
  CuContext context() const { return Context; }

  /// Makes the primary context current on the calling thread. Done on every
  /// call (it is cheap) because other libraries may switch contexts.
  Status makeCurrent();
  /// Turns R into a Status naming Call ("cuLaunchKernel failed: NAME (text)").
  Status check(CuResult R, const char *Call) const;
  /// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)".
  std::string describe(CuResult R) const;

  // Thin wrappers: each makes the context current and checks the result.
  Expected<CuDevicePtr> memAlloc(size_t Bytes);
  Status memFree(CuDevicePtr Ptr);
  Status memcpyHtoD(CuDevicePtr Dst, const void *Src, size_t Bytes);
  Status memcpyDtoH(void *Dst, CuDevicePtr Src, size_t Bytes);
  Status memsetD8(CuDevicePtr Dst, unsigned char Value, size_t Bytes);
  Status synchronize();
  Expected<CuStream> streamCreate();
  Status streamDestroy(CuStream S);
  Status streamSynchronize(CuStream S);
  Expected<CuEvent> eventCreate();
  Status eventRecord(CuEvent E, CuStream S);
  Status eventSynchronize(CuEvent E);
  /// Milliseconds between two recorded, completed events.
  Expected<float> eventElapsedTime(CuEvent Start, CuEvent End);
  Status eventDestroy(CuEvent E);
  Expected<FunctionAttributes> functionAttributes(CuFunction F);

  /// 16 zeroed bytes of device memory, allocated on first use and kept
  /// until the driver object is destroyed: the global memory of tensor maps
  /// that must read only zeros (thread-safe).
  Expected<CuDevicePtr> zeroBlock();

private:
  CudaDriver() = default;
  void *Library = nullptr;
  std::string LibraryName;
  CudaApi Api;
  DeviceInfo Device;
  int DriverVersion = 0;
  CuContext Context = nullptr;
  std::mutex ZeroBlockMutex;
  CuDevicePtr ZeroBlock = 0;
};

} // namespace tritonc::runtime
