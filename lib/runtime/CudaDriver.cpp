//===- CudaDriver.cpp - The CUDA driver API, loaded at run time ------------===//
#include "tritonc/runtime/CudaDriver.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

namespace tritonc::runtime {

std::string DeviceInfo::target() const {
  std::string T = "sm_" + std::to_string(ComputeMajor) + std::to_string(ComputeMinor);
  // Hopper's wgmma, setmaxnreg and TMA multicast need the "a" target.
  if (ComputeMajor == 9 && ComputeMinor == 0)
    T += "a";
  return T;
}

namespace {

/// Resolves one symbol, trying Names in order (versioned name first).
template <typename Fn>
bool resolve(void *Lib, Fn &Out, std::initializer_list<const char *> Names, std::string &Missing) {
  for (const char *Name : Names)
    if (void *Sym = dlsym(Lib, Name)) {
      Out = reinterpret_cast<Fn>(Sym);
      return true;
    }
  Missing = *Names.begin();
  return false;
}

bool resolveAll(void *Lib, CudaApi &A, std::string &Missing) {
  // The versioned names are what cuda.h's macros select (cuda.h 13.0); the
  // plain name is the fallback for older drivers where one exists.
  return resolve(Lib, A.Init, {"cuInit"}, Missing) &&
         resolve(Lib, A.DriverGetVersion, {"cuDriverGetVersion"}, Missing) &&
         resolve(Lib, A.DeviceGet, {"cuDeviceGet"}, Missing) &&
         resolve(Lib, A.DeviceGetCount, {"cuDeviceGetCount"}, Missing) &&
         resolve(Lib, A.DeviceGetAttribute, {"cuDeviceGetAttribute"}, Missing) &&
         resolve(Lib, A.DeviceGetName, {"cuDeviceGetName"}, Missing) &&
         resolve(Lib, A.DevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"}, Missing) &&
         resolve(Lib, A.DevicePrimaryCtxRelease,
                 {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, Missing) &&
         resolve(Lib, A.CtxSetCurrent, {"cuCtxSetCurrent"}, Missing) &&
         resolve(Lib, A.CtxSynchronize, {"cuCtxSynchronize"}, Missing) &&
         resolve(Lib, A.ModuleLoadDataEx, {"cuModuleLoadDataEx"}, Missing) &&
         resolve(Lib, A.ModuleUnload, {"cuModuleUnload"}, Missing) &&
         resolve(Lib, A.ModuleGetFunction, {"cuModuleGetFunction"}, Missing) &&
         resolve(Lib, A.FuncSetAttribute, {"cuFuncSetAttribute"}, Missing) &&
         resolve(Lib, A.FuncGetAttribute, {"cuFuncGetAttribute"}, Missing) &&
         resolve(Lib, A.LaunchKernel, {"cuLaunchKernel"}, Missing) &&
         resolve(Lib, A.MemAlloc, {"cuMemAlloc_v2"}, Missing) &&
         resolve(Lib, A.MemFree, {"cuMemFree_v2"}, Missing) &&
         resolve(Lib, A.MemcpyHtoD, {"cuMemcpyHtoD_v2"}, Missing) &&
         resolve(Lib, A.MemcpyDtoH, {"cuMemcpyDtoH_v2"}, Missing) &&
         resolve(Lib, A.MemsetD8, {"cuMemsetD8_v2"}, Missing) &&
         resolve(Lib, A.StreamCreate, {"cuStreamCreate"}, Missing) &&
         resolve(Lib, A.StreamDestroy, {"cuStreamDestroy_v2", "cuStreamDestroy"}, Missing) &&
         resolve(Lib, A.StreamSynchronize, {"cuStreamSynchronize"}, Missing) &&
         resolve(Lib, A.EventCreate, {"cuEventCreate"}, Missing) &&
         resolve(Lib, A.EventRecord, {"cuEventRecord"}, Missing) &&
         resolve(Lib, A.EventSynchronize, {"cuEventSynchronize"}, Missing) &&
         resolve(Lib, A.EventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"},
                 Missing) &&
         resolve(Lib, A.EventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"}, Missing) &&
         resolve(Lib, A.GetErrorName, {"cuGetErrorName"}, Missing) &&
         resolve(Lib, A.GetErrorString, {"cuGetErrorString"}, Missing);
}

} // namespace

std::string CudaDriver::describe(CuResult R) const {
  const char *Name = nullptr;
  const char *Text = nullptr;
  if (Api.GetErrorName && Api.GetErrorName(R, &Name) != cu::Success)
    Name = nullptr;
  if (Api.GetErrorString && Api.GetErrorString(R, &Text) != cu::Success)
    Text = nullptr;
  std::string S = Name ? Name : "CUDA error " + std::to_string(R);
  if (Text)
    S += std::string(" (") + Text + ")";
  else if (R == cu::ErrorStubLibrary)
    S += " (the CUDA driver stub library was loaded instead of the real driver)";
  return S;
}

Status CudaDriver::check(CuResult R, const char *Call) const {
  if (R == cu::Success)
    return Status::ok();
  return makeError(std::string(Call) + " failed: " + describe(R));
}

Expected<std::unique_ptr<CudaDriver>> CudaDriver::load(const std::vector<std::string> &LibraryNames,
                                                       int Ordinal) {
  std::unique_ptr<CudaDriver> D(new CudaDriver());
  std::string LoadErrors;
  for (const std::string &Name : LibraryNames) {
    D->Library = dlopen(Name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (D->Library) {
      D->LibraryName = Name;
      break;
    }
    const char *Why = dlerror();
    if (!LoadErrors.empty())
      LoadErrors += "; ";
    LoadErrors += Why ? Why : Name + ": unknown dlopen error";
  }
  if (!D->Library)
    return makeError("no NVIDIA driver found (" +
                     (LibraryNames.empty()
                          ? std::string("no library name given")
                          : LibraryNames.front() + " could not be loaded: " + LoadErrors) +
                     ")");

  std::string Missing;
  if (!resolveAll(D->Library, D->Api, Missing))
    return makeError("no usable NVIDIA driver found (" + D->LibraryName + " lacks " + Missing +
                     "; the driver is too old or not the CUDA driver)");
  // Optional: only kernels with tensor maps need it, and they report its
  // absence (the pointer stays null) at launch.
  std::string NoTensorMaps;
  (void)resolve(D->Library, D->Api.TensorMapEncodeTiled, {"cuTensorMapEncodeTiled"}, NoTensorMaps);

  CuResult R = D->Api.Init(0);
  if (R == cu::ErrorNoDevice)
    return makeError("no CUDA device (cuInit: " + D->describe(R) + ")");
  if (R != cu::Success)
    return makeError("no NVIDIA driver found (cuInit failed: " + D->describe(R) + ")");
  if (Status S = D->check(D->Api.DriverGetVersion(&D->DriverVersion), "cuDriverGetVersion"); !S)
    return makeError(S.error());

  int Count = 0;
  if (Status S = D->check(D->Api.DeviceGetCount(&Count), "cuDeviceGetCount"); !S)
    return makeError("no CUDA device (" + S.error() + ")");
  if (Count == 0)
    return makeError("no CUDA device (the driver found none)");
  if (Ordinal < 0 || Ordinal >= Count)
    return makeError("no CUDA device " + std::to_string(Ordinal) + " (the driver found " +
                     std::to_string(Count) + ")");

  CuDevice Dev = 0;
  if (Status S = D->check(D->Api.DeviceGet(&Dev, Ordinal), "cuDeviceGet"); !S)
    return makeError(S.error());
  DeviceInfo &Info = D->Device;
  Info.Ordinal = Ordinal;
  char Name[256] = {};
  if (Status S = D->check(D->Api.DeviceGetName(Name, sizeof(Name) - 1, Dev), "cuDeviceGetName"); !S)
    return makeError(S.error());
  Info.Name = Name;
  struct {
    int Attr;
    int *Out;
  } Attrs[] = {{cu::DevAttrComputeCapabilityMajor, &Info.ComputeMajor},
               {cu::DevAttrComputeCapabilityMinor, &Info.ComputeMinor},
               {cu::DevAttrMultiprocessorCount, &Info.SMCount},
               {cu::DevAttrWarpSize, &Info.WarpSize},
               {cu::DevAttrMaxSharedMemoryPerBlock, &Info.MaxSharedPerBlock},
               {cu::DevAttrMaxSharedMemoryPerBlockOptin, &Info.MaxSharedPerBlockOptin}};
  for (auto &A : Attrs)
    if (Status S = D->check(D->Api.DeviceGetAttribute(A.Out, A.Attr, Dev), "cuDeviceGetAttribute");
        !S)
      return makeError(S.error());

  if (Status S =
          D->check(D->Api.DevicePrimaryCtxRetain(&D->Context, Dev), "cuDevicePrimaryCtxRetain");
      !S)
    return makeError(S.error());
  if (Status S = D->makeCurrent(); !S)
    return makeError(S.error());
  return D;
}

CudaDriver::~CudaDriver() {
  // Other users of the primary context (PyTorch) may keep it alive.
  if (ZeroBlock && Api.CtxSetCurrent(Context) == cu::Success)
    Api.MemFree(ZeroBlock);
  // The primary context is released but the library stays loaded: unloading
  // libcuda while other code in the process may still use it is unsafe.
  if (Context && Api.DevicePrimaryCtxRelease) {
    CuDevice Dev = 0;
    if (Api.DeviceGet(&Dev, Device.Ordinal) == cu::Success)
      Api.DevicePrimaryCtxRelease(Dev);
  }
}

Expected<CudaDriver *> CudaDriver::get() {
  static std::once_flag Once;
  // Never destroyed: releasing the context from a static destructor would
  // call into a driver that may already be shutting down at exit.
  static CudaDriver *Instance = nullptr;
  static std::string InitError;
  std::call_once(Once, [] {
    auto D = load({"libcuda.so.1", "libcuda.so"});
    if (D)
      Instance = D.take().release();
    else
      InitError = D.error();
  });
  if (!Instance)
    return makeError(InitError);
  return Instance;
}

Expected<CudaDriver *> CudaDriver::get(int Ordinal) {
  if (Ordinal == 0)
    return get();
  if (Expected<CudaDriver *> First = get(); !First)
    return First; // no driver at all: the same error
  struct Entry {
    CudaDriver *Driver = nullptr;
    std::string Error;
  };
  // Never destroyed, as get()'s instance.
  static std::mutex Mutex;
  static auto &Instances = *new std::map<int, Entry>();
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Instances.find(Ordinal);
  if (It == Instances.end()) {
    auto D = load({"libcuda.so.1", "libcuda.so"}, Ordinal);
    It = Instances.emplace(Ordinal, D ? Entry{D.take().release(), ""} : Entry{nullptr, D.error()})
             .first;
  }
  if (!It->second.Driver)
    return makeError(It->second.Error);
  return It->second.Driver;
}

std::string CudaDriver::driverVersionString() const {
  return std::to_string(DriverVersion / 1000) + "." + std::to_string(DriverVersion % 1000 / 10);
}

Status CudaDriver::makeCurrent() { return check(Api.CtxSetCurrent(Context), "cuCtxSetCurrent"); }

#define TRITONC_CU_CALL(Call, Name)                                                                \
  do {                                                                                             \
    if (Status S_ = makeCurrent(); !S_)                                                            \
      return makeError(S_.error());                                                                \
    if (Status S_ = check(Call, Name); !S_)                                                        \
      return makeError(S_.error());                                                                \
  } while (false)

Expected<CuDevicePtr> CudaDriver::memAlloc(size_t Bytes) {
  CuDevicePtr P = 0;
  TRITONC_CU_CALL(Api.MemAlloc(&P, Bytes), "cuMemAlloc");
  return P;
}

Status CudaDriver::memFree(CuDevicePtr Ptr) {
  TRITONC_CU_CALL(Api.MemFree(Ptr), "cuMemFree");
  return Status::ok();
}

Status CudaDriver::memcpyHtoD(CuDevicePtr Dst, const void *Src, size_t Bytes) {
  TRITONC_CU_CALL(Api.MemcpyHtoD(Dst, Src, Bytes), "cuMemcpyHtoD");
  return Status::ok();
}

Status CudaDriver::memcpyDtoH(void *Dst, CuDevicePtr Src, size_t Bytes) {
  TRITONC_CU_CALL(Api.MemcpyDtoH(Dst, Src, Bytes), "cuMemcpyDtoH");
  return Status::ok();
}

Status CudaDriver::memsetD8(CuDevicePtr Dst, unsigned char Value, size_t Bytes) {
  TRITONC_CU_CALL(Api.MemsetD8(Dst, Value, Bytes), "cuMemsetD8");
  return Status::ok();
}

Status CudaDriver::synchronize() {
  TRITONC_CU_CALL(Api.CtxSynchronize(), "cuCtxSynchronize");
  return Status::ok();
}

Expected<CuStream> CudaDriver::streamCreate() {
  CuStream S = nullptr;
  TRITONC_CU_CALL(Api.StreamCreate(&S, 0), "cuStreamCreate");
  return S;
}

Status CudaDriver::streamDestroy(CuStream S) {
  TRITONC_CU_CALL(Api.StreamDestroy(S), "cuStreamDestroy");
  return Status::ok();
}

Status CudaDriver::streamSynchronize(CuStream S) {
  TRITONC_CU_CALL(Api.StreamSynchronize(S), "cuStreamSynchronize");
  return Status::ok();
}

Expected<CuEvent> CudaDriver::eventCreate() {
  CuEvent E = nullptr;
  TRITONC_CU_CALL(Api.EventCreate(&E, 0), "cuEventCreate");
  return E;
}

Status CudaDriver::eventRecord(CuEvent E, CuStream S) {
  TRITONC_CU_CALL(Api.EventRecord(E, S), "cuEventRecord");
  return Status::ok();
}

Status CudaDriver::eventSynchronize(CuEvent E) {
  TRITONC_CU_CALL(Api.EventSynchronize(E), "cuEventSynchronize");
  return Status::ok();
}

Expected<float> CudaDriver::eventElapsedTime(CuEvent Start, CuEvent End) {
  float Ms = 0;
  TRITONC_CU_CALL(Api.EventElapsedTime(&Ms, Start, End), "cuEventElapsedTime");
  return Ms;
}

Status CudaDriver::eventDestroy(CuEvent E) {
  TRITONC_CU_CALL(Api.EventDestroy(E), "cuEventDestroy");
  return Status::ok();
}

Expected<FunctionAttributes> CudaDriver::functionAttributes(CuFunction F) {
  FunctionAttributes A;
  TRITONC_CU_CALL(Api.FuncGetAttribute(&A.NumRegs, cu::FuncAttrNumRegs, F), "cuFuncGetAttribute");
  TRITONC_CU_CALL(Api.FuncGetAttribute(&A.LocalSizeBytes, cu::FuncAttrLocalSizeBytes, F),
                  "cuFuncGetAttribute");
  TRITONC_CU_CALL(Api.FuncGetAttribute(&A.SharedSizeBytes, cu::FuncAttrSharedSizeBytes, F),
                  "cuFuncGetAttribute");
  TRITONC_CU_CALL(Api.FuncGetAttribute(&A.MaxThreadsPerBlock, cu::FuncAttrMaxThreadsPerBlock, F),
                  "cuFuncGetAttribute");
  return A;
}

Expected<CuDevicePtr> CudaDriver::zeroBlock() {
  std::lock_guard<std::mutex> Lock(ZeroBlockMutex);
  if (ZeroBlock)
    return ZeroBlock;
  Expected<CuDevicePtr> P = memAlloc(16);
  if (!P)
    return P;
  // Synchronized so that no launch on any stream can read the block before
  // the zeros land.
  Status S = memsetD8(*P, 0, 16);
  if (S)
    S = synchronize();
  if (!S) {
    (void)memFree(*P);
    return makeError(S.error());
  }
  ZeroBlock = *P;
  return ZeroBlock;
}

#undef TRITONC_CU_CALL

} // namespace tritonc::runtime
