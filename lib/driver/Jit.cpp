//===- Jit.cpp - Compiling Triton-C kernels for the GPU, with a cache ------===//

#include "tritonc/driver/Jit.h"

#include "tritonc/driver/Launch.h"
#include "tritonc/driver/Pipeline.h"
#include "tritonc/runtime/IRSignature.h"
#include "tritonc/support/Hash.h"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <numeric>

namespace tritonc::driver {

using runtime::Expected;
using runtime::makeError;
using runtime::Status;

KernelSource KernelSource::file(std::string Path) {
  KernelSource S;
  S.IsFile = true;
  S.Name = std::move(Path);
  return S;
}

KernelSource KernelSource::text(std::string Name, std::string Text) {
  KernelSource S;
  S.IsFile = false;
  S.Name = std::move(Name);
  S.Text = std::move(Text);
  return S;
}

runtime::KernelCache &defaultKernelCache() {
  // Never destroyed, like the driver: launches may still run at exit.
  static runtime::KernelCache *Cache = new runtime::KernelCache();
  return *Cache;
}

CacheConfig defaultCacheConfig() {
  CacheConfig C;
  C.Cache = &defaultKernelCache();
  return C;
}

std::string canonicalSpecialization(std::string_view Spec) {
  std::string S(Spec);
  bool Any = false;
  for (char &C : S) {
    if (C == '1') // equal to 1: of its facts, the generated code uses the sign
      C = 'U';
    if (C == 'D' || C == 'S' || C == 'U')
      Any = true;
    else
      C = 'N';
  }
  return Any ? S : std::string();
}

Status applySpecialization(ir::Function &F, std::string_view Spec) {
  if (Spec.empty())
    return Status::ok();
  if (Spec.size() != F.getNumArgs())
    return makeError("specialization '" + std::string(Spec) + "' has " +
                     std::to_string(Spec.size()) + " letters, but kernel " + F.getName() + " has " +
                     std::to_string(F.getNumArgs()) + " parameters");
  for (unsigned I = 0; I < F.getNumArgs(); ++I) {
    char C = Spec[I];
    if (C == 'N' || C == '1' || C == 'F')
      continue;
    ir::Argument *A = F.getArg(I);
    std::string Which = "specialization '" + std::string(Spec) + "' of kernel " + F.getName() +
                        ", parameter " + std::to_string(I) +
                        (A->getName().empty() ? "" : " (" + A->getName() + ")");
    if (C != 'D' && C != 'S' && C != 'U')
      return makeError(Which + ": unknown letter '" + std::string(1, C) +
                       "' (expected D, S, U, N, 1 or F)");
    const ir::Type *T = A->getType();
    bool Integer = T->getKind() == ir::TypeKind::Int && T->getIntBits() > 1;
    if (C != 'D' && !Integer)
      return makeError(Which + ": '" + std::string(1, C) + "' needs an integer parameter, not " +
                       T->str());
    if (C != 'D')
      A->attrs().NonNegative = true;
    if (C == 'U')
      continue;
    int64_t *Hint = nullptr;
    if (T->getKind() == ir::TypeKind::Pointer)
      Hint = &A->attrs().Aligned;
    else if (Integer)
      Hint = &A->attrs().MultipleOf;
    else
      return makeError(Which + ": 'D' needs an integer or pointer parameter, not " + T->str());
    // Both facts hold, so the value is a multiple of their lcm; fall back to
    // the larger one should the lcm not fit.
    int64_t Old = std::max<int64_t>(1, *Hint);
    int64_t G = std::gcd(Old, int64_t(16));
    *Hint = Old / G > INT64_MAX / 16 ? std::max<int64_t>(Old, 16) : Old / G * 16;
  }
  return Status::ok();
}

Expected<ptx::Arch> parseArch(std::string_view Name) {
  if (Name == "sm_90a")
    return ptx::Arch::SM90a;
  if (Name == "sm_80")
    return ptx::Arch::SM80;
  return makeError("unknown target '" + std::string(Name) + "': expected sm_90a or sm_80");
}

Expected<ptx::Arch> archForDevice(const runtime::DeviceInfo &Device) {
  if (Device.ComputeMajor == 9 && Device.ComputeMinor == 0)
    return ptx::Arch::SM90a;
  if (Device.ComputeMajor >= 8)
    return ptx::Arch::SM80;
  return makeError("the device " + Device.Name + " has compute capability " +
                   std::to_string(Device.ComputeMajor) + "." + std::to_string(Device.ComputeMinor) +
                   "; tritonc needs 8.0 (sm_80) or newer");
}

void limitSharedMemoryToDevice(const runtime::DeviceInfo &Device, codegen::CodeGenOptions &Back) {
  if (!Back.MaxSharedBytes && Device.MaxSharedPerBlockOptin > 0)
    Back.MaxSharedBytes = static_cast<unsigned>(Device.MaxSharedPerBlockOptin);
}

Expected<runtime::CudaDriver *> requireCudaDriver(int Device) {
  Expected<runtime::CudaDriver *> D = runtime::CudaDriver::get(Device);
  if (!D)
    return makeError("no CUDA driver: " + D.error());
  return D;
}

namespace {

//===----------------------------------------------------------------------===//
// The "meta" artifact: what a cache hit needs besides the PTX.
//===----------------------------------------------------------------------===//

// Version 2 added the tensor maps, 3 the remarks; an entry of another
// version does not parse, so it is recompiled and overwritten.
constexpr std::string_view MetaMagic = "tritonc-kernel-meta 3\n";

/// Appends a length-prefixed field ("5:hello\n"), so that any text survives.
void putField(std::string &Out, std::string_view Text) {
  Out += std::to_string(Text.size());
  Out += ':';
  Out += Text;
  Out += '\n';
}

/// Reads the fields written by putField, in order.
class FieldReader {
public:
  explicit FieldReader(std::string_view Data) : Data(Data) {}
  bool next(std::string &Out) {
    size_t Colon = Data.find(':');
    if (Colon == std::string_view::npos)
      return false;
    size_t Len = 0;
    auto [End, Ec] = std::from_chars(Data.data(), Data.data() + Colon, Len);
    if (Ec != std::errc() || End != Data.data() + Colon || Len > Data.size() - Colon - 1 ||
        Colon + 1 + Len >= Data.size() || Data[Colon + 1 + Len] != '\n')
      return false;
    Out = std::string(Data.substr(Colon + 1, Len));
    Data.remove_prefix(Colon + 2 + Len);
    return true;
  }
  bool nextUnsigned(unsigned &Out) {
    std::string S;
    if (!next(S))
      return false;
    auto [End, Ec] = std::from_chars(S.data(), S.data() + S.size(), Out);
    return Ec == std::errc() && End == S.data() + S.size() && !S.empty();
  }
  bool atEnd() const { return Data.empty(); }

private:
  std::string_view Data;
};

} // namespace

std::string serializeKernelMeta(const DeviceCompileResult &R) {
  std::string Out(MetaMagic);
  putField(Out, R.Info.Name);
  putField(Out, std::to_string(R.Info.NumWarps));
  putField(Out, std::to_string(R.Info.SharedMemBytes));
  putField(Out, std::to_string(R.Info.NumBarriers));
  putField(Out, R.Signature.Name);
  putField(Out, std::to_string(R.Signature.Params.size()));
  for (const runtime::KernelParam &P : R.Signature.Params) {
    putField(Out, std::to_string(unsigned(P.Kind)));
    putField(Out, P.Name);
    putField(Out, P.Pointee);
  }
  putField(Out, std::to_string(R.Signature.TensorMaps.size()));
  for (const TensorMapSpec &M : R.Signature.TensorMaps)
    putField(Out, M.str());
  putField(Out, R.Diagnostics);
  putField(Out, R.Remarks);
  return Out;
}

bool parseKernelMeta(std::string_view Data, DeviceCompileResult &R) {
  if (Data.substr(0, MetaMagic.size()) != MetaMagic)
    return false;
  FieldReader In(Data.substr(MetaMagic.size()));
  unsigned NumParams = 0;
  if (!In.next(R.Info.Name) || !In.nextUnsigned(R.Info.NumWarps) ||
      !In.nextUnsigned(R.Info.SharedMemBytes) || !In.nextUnsigned(R.Info.NumBarriers) ||
      !In.next(R.Signature.Name) || !In.nextUnsigned(NumParams))
    return false;
  R.Signature.Params.clear();
  for (unsigned I = 0; I < NumParams; ++I) {
    runtime::KernelParam P;
    unsigned Kind = 0;
    if (!In.nextUnsigned(Kind) || Kind > unsigned(runtime::ArgKind::F64) || !In.next(P.Name) ||
        !In.next(P.Pointee))
      return false;
    P.Kind = runtime::ArgKind(Kind);
    R.Signature.Params.push_back(std::move(P));
  }
  unsigned NumMaps = 0;
  if (!In.nextUnsigned(NumMaps))
    return false;
  R.Signature.TensorMaps.clear();
  for (unsigned I = 0; I < NumMaps; ++I) {
    std::string Text;
    if (!In.next(Text))
      return false;
    std::optional<TensorMapSpec> M = TensorMapSpec::parse(Text);
    if (!M)
      return false;
    R.Signature.TensorMaps.push_back(std::move(*M));
  }
  R.Info.TensorMaps = R.Signature.TensorMaps;
  return In.next(R.Diagnostics) && In.next(R.Remarks) && In.atEnd();
}

namespace {

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

CompileResult runFrontEnd(const KernelSource &Src, const CompileOptions &Opts) {
  return Src.IsFile ? compileFile(Src.Name, Opts) : compileSource(Src.Name, Src.Text, Opts);
}

/// The front-end options that change the IR, as text for the cache key.
std::string frontOptionsString(const CompileOptions &Opts) {
  std::string S = "pipeline=";
  S += Opts.UsePipelineDefault ? "<default>" : "[" + Opts.Pipeline + "]";
  S += " verify_each=" + std::string(Opts.Passes.VerifyEach ? "1" : "0");
  S += " config=" + (Opts.Config ? std::to_string(*Opts.Config) : std::string("-"));
  // The selected values enter through CodeGenOptions; the lists decide
  // which configuration the index selects.
  if (!Opts.Tuned.empty())
    S += " tuned=" + Opts.Tuned.str();
  if (!Opts.Kernel.empty())
    S += " kernel=" + Opts.Kernel;
  if (Opts.Debug)
    S += " debug";
  // The remarks are part of the stored diagnostics.
  if (Opts.Remarks.enabled())
    S += " remarks=" + Opts.Remarks.str();
  return S;
}

bool cacheable(const CompileOptions &Opts) {
  return Opts.ExtraPasses.empty() && !Opts.Passes.PrintAfterAll && !Opts.Passes.TimePasses;
}

/// The preprocessed text followed by the name and text of every buffer the
/// preprocessor read: the preprocessed text alone loses line numbers, which
/// diagnostics and debug information of the output may carry.
std::string keySource(CompileResult &Pre) {
  std::string S = Pre.preprocessed();
  SourceManager &SM = Pre.getSourceManager();
  for (FileId Id = 0; Id < SM.numBuffers(); ++Id) {
    S += "\n//--- buffer ";
    S += SM.getName(Id);
    S += " sha256=";
    S += sha256Hex(SM.getText(Id));
  }
  return S;
}

/// Seconds since Start.
double secondsSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
}

/// Copies R's formatted diagnostics into Out, and whether one of them is an
/// internal compiler error (the severity, not the text: a user's source line
/// may contain any words).
void takeDiagnostics(DeviceCompileResult &Out, const CompileResult &R) {
  Out.Diagnostics = R.formattedDiagnostics();
  for (const Diagnostic &D : R.diagnostics())
    if (D.Sev == Severity::Internal)
      Out.InternalError = true;
}

/// Front end, specialization and back end, without the cache. Pre, when
/// given, is the preprocessed source (StopAfter::Preprocess), which the
/// front end continues from instead of preprocessing again.
void compileUncached(const KernelSource &Src, const DeviceCompileOptions &Opts,
                     std::string_view Spec, DeviceCompileResult &Out,
                     CompileResult *Pre = nullptr) {
  CompileOptions Front = Opts.Front;
  Front.Stop = StopAfter::IR;
  CompileResult R = Pre ? continueCompilation(std::move(*Pre), Front) : runFrontEnd(Src, Front);
  const CompileTimings &FrontTimes = R.timings();
  Out.Timings.Preprocess = FrontTimes.Preprocess;
  Out.Timings.Parse = FrontTimes.Parse;
  Out.Timings.IRGen = FrontTimes.IRGen;
  Out.Timings.Passes = FrontTimes.Passes;
  if (!R.ok()) {
    takeDiagnostics(Out, R);
    return;
  }
  auto BackStart = std::chrono::steady_clock::now();
  ir::Module &M = *R.module();
  DiagnosticEngine &Diags = R.getDiagnostics();
  const ir::Function *Selected = selectKernel(M, Opts.Front.Kernel, Diags, R.ast());
  if (!Selected) {
    takeDiagnostics(Out, R);
    return;
  }
  // selectKernel hands out a const view of a function the module owns.
  ir::Function &F = const_cast<ir::Function &>(*Selected);
  if (Status S = applySpecialization(F, Spec); !S) {
    Diags.error(SourceRange(), S.error());
    takeDiagnostics(Out, R);
    return;
  }
  Expected<runtime::KernelSignature> Sig = runtime::signatureFromIR(F);
  if (!Sig) {
    Diags.error(SourceRange(), Sig.error());
    takeDiagnostics(Out, R);
    return;
  }
  codegen::PTXOutput PTX;
  bool Guarded = runGuarded(Diags, [&] { PTX = codegen::generatePTX(M, Opts.Back, Diags); });
  if (Guarded && !Diags.hasErrors()) {
    const codegen::KernelInfo *Info = nullptr;
    for (const codegen::KernelInfo &K : PTX.Kernels)
      if (K.Name == F.getName())
        Info = &K;
    if (!Info)
      Diags.internal("the back end produced no kernel named " + F.getName());
    else if (PTX.PTX.empty())
      Diags.internal("the back end produced empty PTX for " + F.getName());
    else {
      Out.Info = *Info;
      Out.PTX = std::move(PTX.PTX);
      Out.Signature = Sig.take();
      // The hidden parameters the launcher encodes.
      Out.Signature.TensorMaps = Info->TensorMaps;
    }
  }
  Out.Timings.CodeGen = secondsSince(BackStart);
  takeDiagnostics(Out, R);
  for (const Diagnostic &D : R.diagnostics())
    if (D.Sev == Severity::Remark)
      Out.Remarks += Diags.format(D);
  Out.Ok = !Diags.hasErrors() && !Out.PTX.empty();
}

} // namespace

Expected<runtime::KernelSignature> kernelSignature(const KernelSource &Src,
                                                   const DeviceCompileOptions &Given) {
  CompileOptions Front = Given.Front;
  Front.Stop = StopAfter::IR;
  CompileResult R = runFrontEnd(Src, Front);
  const ir::Function *F =
      R.ok() ? selectKernel(*R.module(), Front.Kernel, R.getDiagnostics(), R.ast()) : nullptr;
  if (!F) {
    std::string Msg = R.formattedDiagnostics();
    while (!Msg.empty() && Msg.back() == '\n')
      Msg.pop_back();
    return makeError(Msg);
  }
  return runtime::signatureFromIR(*F);
}

DeviceCompileResult compileForDevice(const KernelSource &Src, const DeviceCompileOptions &Given,
                                     std::string_view Specialization, const CacheConfig &Cache) {
  DeviceCompileResult Out;
  Out.Specialization = std::string(Specialization);
  {
    // The options as given: a configuration's values come from a checked list.
    SourceManager SM;
    DiagnosticEngine Diags(SM);
    if (!validateBackendOptions(Given.Back, Given.Front.Tuned, Diags)) {
      Out.Diagnostics = Diags.formatAll();
      return Out;
    }
  }
  const DeviceCompileOptions Opts{Given.Front, configuredBackEnd(Given.Front, Given.Back)};
  Out.NumStages = Opts.Back.NumStages;
  if (!Cache.Cache || !cacheable(Opts.Front)) {
    compileUncached(Src, Opts, Specialization, Out);
    return Out;
  }

  // Preprocessing is the part of the front end the key needs; a miss
  // continues from it.
  CompileOptions PPOpts = Opts.Front;
  PPOpts.Stop = StopAfter::Preprocess;
  CompileResult Pre = runFrontEnd(Src, PPOpts);
  Out.Timings.Preprocess = Pre.timings().Preprocess;
  if (!Pre.ok()) {
    Out.Diagnostics = Pre.formattedDiagnostics();
    return Out;
  }
  auto CacheStart = std::chrono::steady_clock::now();
  runtime::CacheKeyInputs Key;
  Key.Source = keySource(Pre);
  for (const auto &[Name, Value] : Opts.Front.Defines)
    Key.Defines[Name] = Value;
  Key.Options = frontOptionsString(Opts.Front) + " " + Opts.Back.optionsString();
  Key.Specialization = Out.Specialization;
  Key.CompilerVersion = Cache.CompilerVersion;
  Key.Target = ptx::archName(Opts.Back.Arch);
  Out.CacheKey = Key.key();

  // The small meta entry first: without it the PTX alone is of no use.
  if (std::optional<std::string> Meta = Cache.Cache->lookup(Out.CacheKey, "meta")) {
    if (std::optional<std::string> PTX = Cache.Cache->lookup(Out.CacheKey, "ptx")) {
      DeviceCompileResult Hit = Out;
      if (parseKernelMeta(*Meta, Hit) && !PTX->empty()) {
        Hit.PTX = std::move(*PTX);
        Hit.Ok = true;
        Hit.Cache = CacheOutcome::Hit;
        Hit.Timings.Cache = secondsSince(CacheStart);
        return Hit;
      }
    }
  }
  double Lookup = secondsSince(CacheStart);
  compileUncached(Src, Opts, Specialization, Out, &Pre);
  Out.Cache = CacheOutcome::Miss;
  auto StoreStart = std::chrono::steady_clock::now();
  if (Out.Ok) {
    Cache.Cache->store(Out.CacheKey, "ptx", Out.PTX);
    Cache.Cache->store(Out.CacheKey, "meta", serializeKernelMeta(Out));
  }
  Out.Timings.Cache = Lookup + secondsSince(StoreStart);
  return Out;
}

} // namespace tritonc::driver
