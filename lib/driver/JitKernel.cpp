//===- JitKernel.cpp - Kernels compiled per specialization and launched ----===//

#include "tritonc/driver/Jit.h"

#include "tritonc/driver/Ptxas.h"
#include "tritonc/support/Hash.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace tritonc::driver {

using runtime::Expected;
using runtime::makeError;
using runtime::Status;

Expected<std::unique_ptr<JitKernel>> JitKernel::create(KernelSource Src, DeviceCompileOptions Opts,
                                                       CacheConfig Cache, bool Lazy) {
  std::unique_ptr<JitKernel> K(new JitKernel(std::move(Src), std::move(Opts), std::move(Cache)));
  if (Lazy) {
    Expected<runtime::KernelSignature> Sig = kernelSignature(K->Src, K->Opts);
    if (!Sig)
      return makeError(Sig.error());
    K->Signature = Sig.take();
    return K;
  }
  std::lock_guard<std::mutex> Lock(K->Mutex);
  Expected<Variant *> V = K->variantLocked("");
  if (!V)
    return makeError(V.error());
  K->Generic = &(*V)->Compiled;
  K->Signature = K->Generic->Signature;
  return K;
}

const DeviceCompileResult &JitKernel::generic() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Generic)
    return *Generic;
  if (!FailedGeneric) {
    Expected<Variant *> V = variantLocked("");
    if (V)
      return *(Generic = &(*V)->Compiled);
    FailedGeneric.emplace();
    FailedGeneric->Diagnostics = V.error() + "\n";
  }
  return *FailedGeneric;
}

Expected<JitKernel::Variant *> JitKernel::variantLocked(const std::string &Canonical) const {
  if (auto It = Variants.find(Canonical); It != Variants.end())
    return It->second.get();
  auto V = std::make_unique<Variant>();
  V->Compiled = compileForDevice(Src, Opts, Canonical, Cache);
  if (!V->Compiled.ok()) {
    std::string Msg = V->Compiled.Diagnostics;
    while (!Msg.empty() && Msg.back() == '\n')
      Msg.pop_back();
    if (Msg.empty())
      Msg = "compilation of " + Src.Name + " failed without a diagnostic";
    return makeError(Msg);
  }
  Variant *Raw = V.get();
  Variants.emplace(Canonical, std::move(V));
  return Raw;
}

Expected<const DeviceCompileResult *> JitKernel::variant(std::string_view Spec) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Expected<Variant *> V = variantLocked(canonicalSpecialization(Spec));
  if (!V)
    return makeError(V.error());
  return &(*V)->Compiled;
}

size_t JitKernel::numVariants() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Variants.size();
}

std::string JitKernel::lastSpecialization() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return LastSpecialization;
}

namespace {

/// Whether code for Arch runs on the device: sm_90a only on 9.0 itself,
/// sm_80 PTX on 8.0 and everything after it.
Status checkTarget(ptx::Arch Arch, const runtime::DeviceInfo &Device) {
  bool Runs = Arch == ptx::Arch::SM90a ? Device.ComputeMajor == 9 && Device.ComputeMinor == 0
                                       : Device.ComputeMajor >= 8;
  if (Runs)
    return Status::ok();
  return makeError("the kernel is compiled for " + std::string(ptx::archName(Arch)) +
                   ", which the device " + Device.Name + " (compute capability " +
                   std::to_string(Device.ComputeMajor) + "." + std::to_string(Device.ComputeMinor) +
                   ", target " + Device.target() + ") cannot run");
}

/// TRITONC_JIT_OPT_LEVEL (0 to 4) sets the driver's PTX -> SASS
/// optimization level; anything else keeps its default (4).
runtime::JitOptions jitOptionsFromEnv() {
  runtime::JitOptions O;
  const char *Env = std::getenv("TRITONC_JIT_OPT_LEVEL");
  if (Env && Env[0] >= '0' && Env[0] <= '4' && Env[1] == 0)
    O.OptimizationLevel = Env[0] - '0';
  return O;
}

/// Whether variants go through the cubin cache: on unless
/// TRITONC_CACHE_CUBIN=0 or TRITONC_SASS=driver. (It relies on kernels
/// declaring no static shared memory: next to a static `.shared` variable, a
/// cubin the driver's JIT linker made placed the dynamic shared memory off
/// its 1024-byte alignment on the H100, which the swizzled wgmma and
/// bulk-copy buffers need.)
bool cubinCacheEnabled() {
  const char *Cubin = std::getenv("TRITONC_CACHE_CUBIN");
  const char *Sass = std::getenv("TRITONC_SASS");
  return !(Cubin && std::string_view(Cubin) == "0") &&
         !(Sass && std::string_view(Sass) == "driver");
}

/// The ptxas that compiles variants' PTX to the SASS the cubin cache keeps,
/// and the cubin kind it makes (the binary's path, size and time identify
/// it); nullopt where no ptxas is found (findPtxas). Not the driver's JIT
/// linker (cuLink*): it compiles PTX as relocatable code, as `ptxas -c`
/// does, and that SASS ran softmax.tc 1.2-1.3x slower than the same PTX
/// loaded with cuModuleLoadData or assembled by ptxas (H200, 2026-11-28:
/// 104.4 against 78.3 us at 8192 x 8192; 72 registers against 64).
std::optional<std::pair<std::string, std::string>> ptxasForVariants(ptx::Arch Arch) {
  Expected<std::string> Path = findPtxas();
  if (!Path)
    return std::nullopt;
  std::error_code Ec;
  auto Size = std::filesystem::file_size(*Path, Ec);
  auto Time = std::filesystem::last_write_time(*Path, Ec).time_since_epoch().count();
  std::string Id = *Path + ":" + std::to_string(Size) + ":" + std::to_string(Time);
  return std::make_pair(*Path, std::string("cubin-") + ptx::archName(Arch) + "-ptxas-" +
                                   sha256Hex(Id).substr(0, 16));
}

/// The variant's module: with the cubin cache on (the default) and a ptxas
/// found, its cubin from the kernel cache when there is one (no PTX -> SASS
/// step: a warm process starts launching at once), else the PTX assembled by
/// ptxas, whose cubin is then stored beside the PTX. Otherwise the PTX is
/// loaded with the driver's JIT, whose own disk cache (CUDA_CACHE_PATH)
/// keeps a warm process's loads short.
Expected<runtime::Module> loadVariantModule(runtime::CudaDriver &D, const DeviceCompileResult &C,
                                            const CacheConfig &Cache, ptx::Arch Arch) {
  runtime::JitOptions J = jitOptionsFromEnv();
  // TRITONC_JIT_OPT_LEVEL is an option of the driver's JIT: it bypasses the cache.
  if (Cache.Cache && !C.CacheKey.empty() && cubinCacheEnabled() && J.OptimizationLevel < 0) {
    if (auto Ptxas = ptxasForVariants(Arch)) {
      const std::string &Kind = Ptxas->second;
      if (std::optional<std::string> Cubin = Cache.Cache->lookup(C.CacheKey, Kind)) {
        // A damaged image falls through to ptxas below.
        if (Expected<runtime::Module> M = runtime::Module::loadImage(D, *Cubin))
          return M;
      }
      if (Expected<std::string> Cubin = assembleWithPtxas(C.PTX, Arch, Ptxas->first)) {
        if (Expected<runtime::Module> M = runtime::Module::loadImage(D, *Cubin)) {
          Cache.Cache->store(C.CacheKey, Kind, *Cubin);
          return M;
        }
      }
    }
  }
  // Also where ptxas failed or made an image this driver cannot load (a
  // newer toolkit than the driver): loadPTX reports the JIT's error log.
  return runtime::Module::loadPTX(D, C.PTX, J);
}

} // namespace

Expected<runtime::Kernel *> JitKernel::loadLocked(runtime::CudaDriver &D, Variant &V) {
  LoadedVariant &L = V.Loaded[D.device().Ordinal];
  if (L.Entry)
    return &*L.Entry;
  auto Start = std::chrono::steady_clock::now();
  Expected<runtime::Module> M = loadVariantModule(D, V.Compiled, Cache, Opts.Back.Arch);
  if (!M)
    return makeError("loading kernel " + V.Compiled.Info.Name + " into the driver: " + M.error());
  L.Module.emplace(M.take());
  Expected<runtime::Kernel> K = L.Module->getKernel(V.Compiled.Signature);
  if (!K)
    return makeError(K.error());
  L.Entry.emplace(K.take());
  V.Compiled.Timings.Load =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  return &*L.Entry;
}

Expected<std::pair<JitKernel::Variant *, runtime::Kernel *>>
JitKernel::loadEntry(std::string_view Spec, int Device) {
  Expected<runtime::CudaDriver *> D = requireCudaDriver(Device);
  if (!D)
    return makeError(D.error());
  if (Status S = checkTarget(Opts.Back.Arch, (*D)->device()); !S)
    return makeError(S.error());
  std::lock_guard<std::mutex> Lock(Mutex);
  Expected<Variant *> V = variantLocked(canonicalSpecialization(Spec));
  if (!V)
    return makeError(V.error());
  Expected<runtime::Kernel *> K = loadLocked(**D, **V);
  if (!K)
    return makeError(K.error());
  return std::make_pair(*V, *K);
}

Expected<const DeviceCompileResult *> JitKernel::load(std::string_view Spec, int Device) {
  auto Loaded = loadEntry(Spec, Device);
  if (!Loaded)
    return makeError(Loaded.error());
  return &Loaded->first->Compiled;
}

Expected<runtime::FunctionAttributes> JitKernel::loadedAttributes(std::string_view Spec,
                                                                  int Device) {
  auto Loaded = loadEntry(Spec, Device);
  if (!Loaded)
    return makeError(Loaded.error());
  return Loaded->second->attributes();
}

Status JitKernel::launch(const Grid3 &Grid, runtime::KernelArgs &Args, runtime::CuStream Stream,
                         int Device) {
  if (Status S = runtime::checkArguments(signature(), Args); !S)
    return S;
  Expected<runtime::CudaDriver *> D = requireCudaDriver(Device);
  if (!D)
    return makeError(D.error());
  if (Status S = checkTarget(Opts.Back.Arch, (*D)->device()); !S)
    return S;

  std::lock_guard<std::mutex> Lock(Mutex);
  std::string Spec = canonicalSpecialization(runtime::specializationString(Args));
  Expected<Variant *> VOr = variantLocked(Spec);
  if (!VOr)
    return makeError(VOr.error());
  Variant &V = **VOr;
  Expected<runtime::Kernel *> Entry = loadLocked(**D, V);
  if (!Entry)
    return makeError(Entry.error());
  runtime::LaunchConfig Config;
  Config.Grid = Grid;
  Config.NumWarps = V.Compiled.Info.NumWarps;
  Config.SharedMemBytes = V.Compiled.Info.SharedMemBytes;
  Config.Stream = Stream;
  if (Status S = (*Entry)->launch(Config, Args); !S)
    return S;
  if (LastSpecialization != Spec)
    LastSpecialization = std::move(Spec);
  return Status::ok();
}

} // namespace tritonc::driver
