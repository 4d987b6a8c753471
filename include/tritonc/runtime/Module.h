//===- Module.h - Loaded GPU modules, kernels and device buffers -*- C++ -*-===//
//
// Module owns a CUmodule loaded from PTX (JIT-compiled by the driver) or a
// cubin; Kernel is one entry of it with its KernelSignature; DeviceBuffer is
// RAII device memory. All of them report failures as values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/KernelSignature.h"
#include "tritonc/runtime/TensorMaps.h"

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc::runtime {

/// Device memory freed by the destructor. Move-only.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  /// Allocates Bytes (at least 1) on D's device.
  static Expected<DeviceBuffer> allocate(CudaDriver &D, size_t Bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&Other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&Other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  CuDevicePtr ptr() const { return Ptr; }
  size_t size() const { return Bytes; }
  /// Copies Size bytes from host Src to the start of the buffer.
  Status upload(const void *Src, size_t Size);
  /// Copies Size bytes from the start of the buffer to host Dst.
  Status download(void *Dst, size_t Size) const;
  /// Sets every byte to Value.
  Status fill(unsigned char Value);

private:
  CudaDriver *Driver = nullptr;
  CuDevicePtr Ptr = 0;
  size_t Bytes = 0;
};

/// Options of the driver's PTX JIT.
struct JitOptions {
  /// Asks ptxas for its verbose report (registers, spills) in the info log.
  bool Verbose = false;
  /// The JIT's optimization level, 0 to 4; -1 keeps the driver's default (4).
  int OptimizationLevel = -1;
};

/// Launch geometry.
struct LaunchConfig {
  std::array<unsigned, 3> Grid = {1, 1, 1};
  /// Threads per block are NumWarps * 32 along x.
  unsigned NumWarps = 4;
  /// Dynamic shared memory in bytes. Above 48 KB the launch opts in with
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
  unsigned SharedMemBytes = 0;
  CuStream Stream = nullptr; ///< Null: the legacy default stream.
};

/// One kernel entry of a loaded Module. Valid while the Module lives.
class Kernel {
public:
  const KernelSignature &signature() const { return Sig; }
  CuFunction function() const { return Function; }
  /// Registers, spills and static shared memory as the driver reports them.
  Expected<FunctionAttributes> attributes() const;
  /// Checks Args against the signature, then launches (asynchronously).
  /// When the signature has tensor maps, each is planned from Args (see
  /// planTensorMap), re-encoded only when its plan differs from the last
  /// launch's, and passed after the user's arguments. Not thread-safe (the
  /// encoded maps and the shared-memory opt-in are state of this object):
  /// JitKernel serializes its launches.
  Status launch(const LaunchConfig &Config, KernelArgs &Args);

private:
  friend class Module;
  Kernel(CudaDriver *D, CuFunction F, KernelSignature S)
      : Driver(D), Function(F), Sig(std::move(S)), Maps(Sig.TensorMaps.size()) {}
  /// The launch of a kernel with tensor maps, after the common checks.
  Status launchWithTensorMaps(const LaunchConfig &Config, KernelArgs &Args);
  /// cuLaunchKernel with the parameter pointers Params (null when none).
  Status launchWithParams(const LaunchConfig &Config, void **Params);

  /// One hidden parameter: the map the last launch passed, and its plan.
  /// The maps live here, 64-byte aligned, so that they outlive the
  /// cuLaunchKernel call that copies them.
  struct EncodedMap {
    CuTensorMap Map;
    TensorMapPlan Plan;
    bool Valid = false; ///< Map encodes Plan.
  };

  CudaDriver *Driver;
  CuFunction Function;
  KernelSignature Sig;
  int DynamicSharedLimit = 48 * 1024; ///< What the function allows so far.
  int StaticShared = 0;               ///< The function's static shared memory.
  std::vector<EncodedMap> Maps;       ///< One per Sig.TensorMaps.
  std::vector<void *> ParamScratch;   ///< Reused parameter pointers.
};

/// A module loaded into the driver's context. Move-only.
class Module {
public:
  /// JIT-compiles PTX text. On a ptxas error the message carries the
  /// driver's error log ("ptxas application ptx input, line 7; error : ...").
  static Expected<Module> loadPTX(CudaDriver &D, std::string_view Ptx,
                                  const JitOptions &Options = {});
  /// Loads a cubin (or fatbin) image.
  static Expected<Module> loadImage(CudaDriver &D, std::string_view Image);
  ~Module();
  Module(Module &&Other) noexcept;
  Module &operator=(Module &&Other) noexcept;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// The entry Sig.Name, checked against Sig at each launch.
  Expected<Kernel> getKernel(KernelSignature Sig) const;
  /// The JIT's info log (ptxas -v output when JitOptions::Verbose).
  const std::string &infoLog() const { return InfoLog; }

private:
  Module(CudaDriver *D, CuModule M) : Driver(D), Handle(M) {}
  static Expected<Module> loadData(CudaDriver &D, const void *Image, const JitOptions &Options);
  CudaDriver *Driver = nullptr;
  CuModule Handle = nullptr;
  std::string InfoLog;
};

} // namespace tritonc::runtime
