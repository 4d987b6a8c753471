//===- Jit.h - Compiling Triton-C kernels for the GPU and launching them -*- C++ -*-===//
//
// The C++ API of the GPU path:
//
//   Triton-C --compileFile/compileSource--> Triton-IR
//            --launch-time specialization--> Triton-IR with argument hints
//            --codegen::generatePTX--------> PTX + KernelInfo
//            --runtime::Module::loadPTX----> a loaded kernel, launched on a stream
//
// compileForDevice runs the first three steps and caches their result in a
// runtime::KernelCache (memory and $TRITONC_CACHE_DIR). The key covers the
// preprocessed source (plus the text of every file the preprocessor read),
// the defines, the front-end pipeline, the back-end options (the selected
// configuration's num_warps and num_stages included), the
// specialization, the compiler version and the target; a hit skips the front
// end after preprocessing and the back end entirely, because the kernel's
// KernelInfo and signature are stored next to the PTX (artifact kind "meta").
//
// JitKernel holds one kernel source and its options, compiles one variant per
// specialization on demand and launches it. Nothing here needs a GPU until a
// launch: then a missing driver or device is an error ("no CUDA driver: ...").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/codegen/CodeGen.h"
#include "tritonc/driver/Compiler.h"
#include "tritonc/runtime/KernelCache.h"
#include "tritonc/runtime/Module.h"

#include <array>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace tritonc::driver {

/// The range of CodeGenOptions::NumStages (1: no pipelining).
inline constexpr unsigned MinNumStages = codegen::MinNumStages;
inline constexpr unsigned MaxNumStages = codegen::MaxNumStages;

/// Options of a compilation for the GPU: the front end's and the back end's.
/// Front.Tuned lists of num_warps / num_stages override Back's value with
/// the selected configuration's (Configurations.h).
struct DeviceCompileOptions {
  CompileOptions Front;
  codegen::CodeGenOptions Back;
};

/// The Triton-C text of a kernel: a file, or text under a display name.
struct KernelSource {
  /// A file, read at each compilation (#include is relative to its folder).
  static KernelSource file(std::string Path);
  /// Text registered under Name (used in diagnostics and for #include).
  static KernelSource text(std::string Name, std::string Text);

  bool IsFile = true;
  /// The path, or the display name of the text.
  std::string Name;
  /// The text when !IsFile.
  std::string Text;
};

/// How compilations use the kernel cache.
struct CacheConfig {
  /// Null: no caching.
  runtime::KernelCache *Cache = nullptr;
  /// Enters the key; tests change it to model a new compiler.
  std::string CompilerVersion = runtime::CacheKeyInputs::compilerVersion();
};

/// The process-wide cache in $TRITONC_CACHE_DIR (else ~/.cache/tritonc).
runtime::KernelCache &defaultKernelCache();
/// CacheConfig{&defaultKernelCache()}.
CacheConfig defaultCacheConfig();

/// Where a compilation's result came from.
enum class CacheOutcome {
  Uncached, ///< No cache was given, or the options forbid caching.
  Miss,     ///< Compiled, then stored.
  Hit,      ///< Served from the cache (memory or disk).
};

/// The result of compileForDevice.
struct DeviceCompileResult {
  bool Ok = false;
  /// Formatted diagnostics ("file:line:col: error: ..." with source lines):
  /// the errors of a failed compilation, or the warnings of a successful
  /// one (replayed from the cache on a hit).
  std::string Diagnostics;
  /// Whether Diagnostics holds an internal compiler error (a bug of ours).
  bool InternalError = false;
  /// The optimization remarks among Diagnostics alone, formatted the same
  /// way ("" unless CompileOptions::Remarks asks for some).
  std::string Remarks;
  /// The whole PTX module (every function of the source is an entry).
  std::string PTX;
  /// The launched kernel: the only function, else the first __global__ one.
  codegen::KernelInfo Info;
  runtime::KernelSignature Signature;
  /// The canonical specialization that was applied (see
  /// canonicalSpecialization); empty for the generic variant.
  std::string Specialization;
  /// The cache key (64 hex digits); empty when uncached.
  std::string CacheKey;
  CacheOutcome Cache = CacheOutcome::Uncached;
  /// The pipelining depth it was compiled with (a tuned num_stages applied).
  unsigned NumStages = 0;
  /// Time spent in each phase. A cache hit has only Preprocess and Cache;
  /// JitKernel adds Load when it loads the variant into the driver.
  CompileTimings Timings;

  bool ok() const { return Ok; }
};

/// Reduces a runtime::specializationString to what changes the generated
/// code: 'D' (a pointer or integer that is a multiple of 16), 'S' (an
/// integer that is a non-negative multiple of 16) and 'U' (a non-negative
/// integer) stay, '1' becomes 'U', every other letter 'N'; a string without
/// D, S or U becomes "" (generic), so that launches which specialize nothing
/// share one variant. Non-negative integers are the common case, so only a
/// launch that passes a negative integer gets a variant of its own.
std::string canonicalSpecialization(std::string_view Spec);

/// Applies a specialization string (one letter per argument, as
/// runtime::specializationString writes it) to F's arguments: for 'D' and
/// 'S', an integer argument gets MultipleOf and a pointer argument Aligned
/// raised to a multiple of 16 (the least common multiple with the declared
/// value); for 'S' and 'U', an integer argument gets NonNegative. N, 1 and F
/// apply nothing, nor does "". Fails on a length mismatch, an unknown letter,
/// 'D' on an argument that is neither an integer nor a pointer, or 'S' or 'U'
/// on one that is not an integer (i1 included).
runtime::Status applySpecialization(ir::Function &F, std::string_view Spec);

/// Parses "sm_80" or "sm_90a".
runtime::Expected<ptx::Arch> parseArch(std::string_view Name);
/// The target for a device: sm_90a for compute capability 9.0, sm_80 for
/// 8.x and for later devices (plain PTX is forward compatible; arch-specific
/// targets are not). Fails below 8.0.
runtime::Expected<ptx::Arch> archForDevice(const runtime::DeviceInfo &Device);
/// Sets Back.MaxSharedBytes to the device's opt-in shared memory per
/// program, unless it is set already (the back end sizes its operand rings
/// and scratch to it: 99 KB on sm_86/sm_89 cards against 163 KB on the A100).
void limitSharedMemoryToDevice(const runtime::DeviceInfo &Device, codegen::CodeGenOptions &Back);

/// Compiles Src for the GPU with the given specialization (see
/// applySpecialization; "" for none), through Cache. Never throws: errors
/// are diagnostics in the result (internal compiler errors included).
/// Caching is skipped when Opts asks for output as a side effect
/// (--print-after-all, --time-passes) or has ExtraPasses.
DeviceCompileResult compileForDevice(const KernelSource &Src, const DeviceCompileOptions &Opts,
                                     std::string_view Specialization = {},
                                     const CacheConfig &Cache = {});

/// The parameters of the kernel Src selects, from the front end alone (no
/// back end, no cache): what every variant's signature lists before its
/// tensor maps. The error is the formatted diagnostics.
runtime::Expected<runtime::KernelSignature> kernelSignature(const KernelSource &Src,
                                                            const DeviceCompileOptions &Opts);

/// The "meta" cache artifact of a compilation: what a hit needs besides the
/// PTX (R's KernelInfo, its signature with the tensor maps, its warnings).
std::string serializeKernelMeta(const DeviceCompileResult &R);
/// Fills R's Info, Signature (tensor maps included, in Info too) and
/// Diagnostics from a meta artifact. False when it is malformed or of
/// another format version: the entry is then recompiled.
bool parseKernelMeta(std::string_view Data, DeviceCompileResult &R);

/// Launch geometry of JitKernel::launch: programs along x, y, z.
using Grid3 = std::array<unsigned, 3>;

/// A kernel compiled on demand, one variant per specialization of its
/// arguments, each loaded into the CUDA driver at its first launch.
/// Thread-safe; not copyable.
class JitKernel {
public:
  /// Compiles the generic variant (no specialization) so that errors show
  /// up here; the error is the formatted diagnostics. Needs no GPU. With
  /// Lazy, runs the front end only (its errors show up here, the back end's
  /// at the first variant): a caller that launches one specialization (the
  /// autotuner's candidates) then compiles that variant alone, and the
  /// generic one only if asked for.
  static runtime::Expected<std::unique_ptr<JitKernel>>
  create(KernelSource Src, DeviceCompileOptions Opts, CacheConfig Cache = defaultCacheConfig(),
         bool Lazy = false);

  JitKernel(const JitKernel &) = delete;
  JitKernel &operator=(const JitKernel &) = delete;

  /// The generic variant, compiled on first use by a lazy kernel (a failed
  /// compilation is a result that is not ok(), with its diagnostics).
  const DeviceCompileResult &generic() const;
  const runtime::KernelSignature &signature() const { return Signature; }
  const std::string &ptx() const { return generic().PTX; }
  const codegen::KernelInfo &info() const { return generic().Info; }
  const DeviceCompileOptions &options() const { return Opts; }

  /// The variant for a specialization string (canonicalized first),
  /// compiled on first request. The error is the formatted diagnostics.
  runtime::Expected<const DeviceCompileResult *> variant(std::string_view Spec);
  /// Variants compiled so far (the generic one included).
  size_t numVariants() const;
  /// Compiles (if needed) and loads the variant for a specialization into
  /// the driver without launching it, so that the PTX -> SASS step can be
  /// timed or done ahead of time; its Timings.Load is then set. Errors as
  /// for launch (no CUDA driver, compile or load failures).
  runtime::Expected<const DeviceCompileResult *> load(std::string_view Spec, int Device = 0);
  /// The driver's figures for the variant of a specialization as loaded on
  /// Device (registers, local memory per thread: spills and local arrays),
  /// loading it first; errors as for load.
  runtime::Expected<runtime::FunctionAttributes> loadedAttributes(std::string_view Spec,
                                                                  int Device = 0);

  /// Checks Args against the signature (count and kinds), compiles or finds
  /// the variant for their specialization, loads it into the driver, and
  /// launches it asynchronously on Stream (null: the legacy default stream)
  /// with the variant's warps and shared memory. Errors: bad arguments, no
  /// CUDA driver or device ("no CUDA driver: ..."), a target the device
  /// cannot run, compile or load failures.
  /// Device: the CUDA device (ordinal) whose primary context runs it; each
  /// device loads the variant once.
  runtime::Status launch(const Grid3 &Grid, runtime::KernelArgs &Args,
                         runtime::CuStream Stream = nullptr, int Device = 0);
  /// The specialization the last successful launch used.
  std::string lastSpecialization() const;

private:
  /// A variant loaded into one device's context.
  struct LoadedVariant {
    std::optional<runtime::Module> Module;
    std::optional<runtime::Kernel> Entry;
  };
  struct Variant {
    DeviceCompileResult Compiled;
    std::map<int, LoadedVariant> Loaded; ///< By device ordinal.
  };
  JitKernel(KernelSource Src, DeviceCompileOptions Opts, CacheConfig Cache)
      : Src(std::move(Src)), Opts(std::move(Opts)), Cache(std::move(Cache)) {}
  runtime::Expected<Variant *> variantLocked(const std::string &Canonical) const;
  /// Loads V into D's device unless it is loaded there; returns its entry.
  runtime::Expected<runtime::Kernel *> loadLocked(runtime::CudaDriver &D, Variant &V);
  /// load's work: the variant of Spec, loaded on Device, and its entry.
  runtime::Expected<std::pair<Variant *, runtime::Kernel *>> loadEntry(std::string_view Spec,
                                                                       int Device);

  KernelSource Src;
  DeviceCompileOptions Opts;
  CacheConfig Cache;
  mutable std::mutex Mutex;
  /// Compiled on demand, also by the const accessors of the generic variant.
  mutable std::map<std::string, std::unique_ptr<Variant>> Variants;
  mutable const DeviceCompileResult *Generic = nullptr;
  /// The generic variant's failed compilation, once a lazy kernel tried it.
  mutable std::optional<DeviceCompileResult> FailedGeneric;
  /// The parameters (the generic variant's signature without tensor maps).
  runtime::KernelSignature Signature;
  std::string LastSpecialization;
};

/// The CUDA driver, or an error "no CUDA driver: <why>".
runtime::Expected<runtime::CudaDriver *> requireCudaDriver(int Device = 0);

} // namespace tritonc::driver
