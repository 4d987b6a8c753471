//===- Module.cpp - Loaded GPU modules, kernels and device buffers ---------===//
#include "tritonc/runtime/Module.h"

#include <utility>
#include <vector>

namespace tritonc::runtime {

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

Expected<DeviceBuffer> DeviceBuffer::allocate(CudaDriver &D, size_t Bytes) {
  Expected<CuDevicePtr> P = D.memAlloc(Bytes == 0 ? 1 : Bytes);
  if (!P)
    return makeError(P.error() + " (allocating " + std::to_string(Bytes) + " bytes)");
  DeviceBuffer B;
  B.Driver = &D;
  B.Ptr = *P;
  B.Bytes = Bytes;
  return B;
}

DeviceBuffer::~DeviceBuffer() {
  // A failure to free cannot be reported from a destructor; the context is
  // then broken anyway and the next checked call reports it.
  if (Driver && Ptr)
    (void)Driver->memFree(Ptr);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&Other) noexcept
    : Driver(Other.Driver), Ptr(Other.Ptr), Bytes(Other.Bytes) {
  Other.Driver = nullptr;
  Other.Ptr = 0;
  Other.Bytes = 0;
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&Other) noexcept {
  // The old buffer ends up in Tmp and is freed when it goes out of scope.
  DeviceBuffer Tmp(std::move(Other));
  std::swap(Driver, Tmp.Driver);
  std::swap(Ptr, Tmp.Ptr);
  std::swap(Bytes, Tmp.Bytes);
  return *this;
}

Status DeviceBuffer::upload(const void *Src, size_t Size) {
  if (Size > Bytes)
    return makeError("upload of " + std::to_string(Size) + " bytes into a buffer of " +
                     std::to_string(Bytes));
  return Driver->memcpyHtoD(Ptr, Src, Size);
}

Status DeviceBuffer::download(void *Dst, size_t Size) const {
  if (Size > Bytes)
    return makeError("download of " + std::to_string(Size) + " bytes from a buffer of " +
                     std::to_string(Bytes));
  return Driver->memcpyDtoH(Dst, Ptr, Size);
}

Status DeviceBuffer::fill(unsigned char Value) { return Driver->memsetD8(Ptr, Value, Bytes); }

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Expected<Module> Module::loadData(CudaDriver &D, const void *Image, const JitOptions &Options) {
  if (Status S = D.makeCurrent(); !S)
    return makeError(S.error());
  constexpr size_t LogSize = 64 * 1024;
  std::vector<char> InfoLog(LogSize, 0), ErrorLog(LogSize, 0);
  // The driver reads each option value as a pointer-sized word.
  int Keys[] = {cu::JitInfoLogBuffer,  cu::JitInfoLogBufferSizeBytes,
                cu::JitErrorLogBuffer, cu::JitErrorLogBufferSizeBytes,
                cu::JitLogVerbose,     cu::JitOptimizationLevel};
  void *Values[] = {InfoLog.data(),
                    reinterpret_cast<void *>(uintptr_t(LogSize - 1)),
                    ErrorLog.data(),
                    reinterpret_cast<void *>(uintptr_t(LogSize - 1)),
                    reinterpret_cast<void *>(uintptr_t(Options.Verbose ? 1 : 0)),
                    reinterpret_cast<void *>(uintptr_t(Options.OptimizationLevel))};
  unsigned NumOptions = Options.OptimizationLevel >= 0 ? 6 : 5;
  CuModule M = nullptr;
  CuResult R = D.api().ModuleLoadDataEx(&M, Image, NumOptions, Keys, Values);
  if (R != cu::Success) {
    std::string Msg = "cuModuleLoadDataEx failed: " + D.describe(R);
    std::string Log(ErrorLog.data());
    while (!Log.empty() && (Log.back() == '\n' || Log.back() == ' '))
      Log.pop_back();
    if (!Log.empty())
      Msg += "\n" + Log;
    return makeError(Msg);
  }
  Module Result(&D, M);
  Result.InfoLog = InfoLog.data();
  return Result;
}

Expected<Module> Module::loadPTX(CudaDriver &D, std::string_view Ptx, const JitOptions &Options) {
  // The driver wants a NUL-terminated string.
  std::string Text(Ptx);
  return loadData(D, Text.c_str(), Options);
}

Expected<Module> Module::loadImage(CudaDriver &D, std::string_view Image) {
  // Copied so that the image is suitably aligned and outlives the call.
  std::string Copy(Image);
  return loadData(D, Copy.data(), JitOptions());
}

Module::~Module() {
  if (Driver && Handle && Driver->makeCurrent())
    (void)Driver->api().ModuleUnload(Handle);
}

Module::Module(Module &&Other) noexcept
    : Driver(Other.Driver), Handle(Other.Handle), InfoLog(std::move(Other.InfoLog)) {
  Other.Driver = nullptr;
  Other.Handle = nullptr;
}

Module &Module::operator=(Module &&Other) noexcept {
  Module Tmp(std::move(Other));
  std::swap(Driver, Tmp.Driver);
  std::swap(Handle, Tmp.Handle);
  std::swap(InfoLog, Tmp.InfoLog);
  return *this;
}

Expected<Kernel> Module::getKernel(KernelSignature Sig) const {
  if (Status S = Driver->makeCurrent(); !S)
    return makeError(S.error());
  CuFunction F = nullptr;
  CuResult R = Driver->api().ModuleGetFunction(&F, Handle, Sig.Name.c_str());
  if (R != cu::Success)
    return makeError("kernel " + Sig.Name + " not found in the module: " + Driver->describe(R));
  Kernel K(Driver, F, std::move(Sig));
  // The 48 KB a launch gets without opting in hold the static shared memory
  // too (tritonc's kernels declare none; other PTX may).
  Expected<FunctionAttributes> A = Driver->functionAttributes(F);
  if (!A)
    return makeError(A.error());
  K.StaticShared = A->SharedSizeBytes;
  K.DynamicSharedLimit = 48 * 1024 - A->SharedSizeBytes;
  return K;
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

Expected<FunctionAttributes> Kernel::attributes() const {
  return Driver->functionAttributes(Function);
}

Status Kernel::launch(const LaunchConfig &Config, KernelArgs &Args) {
  if (Status S = checkArguments(Sig, Args); !S)
    return S;
  if (Config.NumWarps == 0 || Config.NumWarps > 32)
    return makeError("kernel " + Sig.Name + ": num_warps must be in 1..32, not " +
                     std::to_string(Config.NumWarps));
  for (unsigned G : Config.Grid)
    if (G == 0)
      return makeError("kernel " + Sig.Name + ": a grid dimension is 0");
  if (Status S = Driver->makeCurrent(); !S)
    return S;
  if (int(Config.SharedMemBytes) > DynamicSharedLimit) {
    int Optin = Driver->device().MaxSharedPerBlockOptin - StaticShared;
    if (int(Config.SharedMemBytes) > Optin)
      return makeError("kernel " + Sig.Name + " asks for " + std::to_string(Config.SharedMemBytes) +
                       " bytes of dynamic shared memory; the device allows " +
                       std::to_string(Optin) + " next to its " + std::to_string(StaticShared) +
                       " static bytes");
    if (Status S = Driver->check(
            Driver->api().FuncSetAttribute(Function, cu::FuncAttrMaxDynamicSharedSizeBytes,
                                           int(Config.SharedMemBytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
        !S)
      return S;
    DynamicSharedLimit = int(Config.SharedMemBytes);
  }
  if (!Maps.empty())
    return launchWithTensorMaps(Config, Args);
  std::vector<void *> Params = Args.pointers();
  return launchWithParams(Config, Params.empty() ? nullptr : Params.data());
}

Status Kernel::launchWithTensorMaps(const LaunchConfig &Config, KernelArgs &Args) {
  ParamScratch.clear();
  for (const KernelArg &A : Args.args())
    // cuLaunchKernel only reads through these pointers.
    ParamScratch.push_back(const_cast<void *>(A.data()));
  for (unsigned I = 0; I < Maps.size(); ++I) {
    Expected<TensorMapPlan> Plan = planTensorMap(Sig, I, Args);
    if (!Plan)
      return Plan.status();
    EncodedMap &M = Maps[I];
    if (!M.Valid || M.Plan != *Plan) {
      M.Valid = false;
      if (Status S = encodeTensorMap(*Driver, Sig, I, *Plan, M.Map); !S)
        return S;
      M.Plan = *Plan;
      M.Valid = true;
    }
    ParamScratch.push_back(&M.Map);
  }
  return launchWithParams(Config, ParamScratch.data());
}

Status Kernel::launchWithParams(const LaunchConfig &Config, void **Params) {
  CuResult R = Driver->api().LaunchKernel(Function, Config.Grid[0], Config.Grid[1], Config.Grid[2],
                                          Config.NumWarps * 32, 1, 1, Config.SharedMemBytes,
                                          Config.Stream, Params, nullptr);
  // The message is built only on failure: launches are on the hot path.
  if (R == cu::Success)
    return Status::ok();
  return Driver->check(R, ("cuLaunchKernel(" + Sig.Name + ")").c_str());
}

} // namespace tritonc::runtime
