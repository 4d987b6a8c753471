//===- Module.cpp - The _tritonc Python extension (nanobind) ---------------===//
//
// The native half of the `tritonc` Python package: compiling a kernel
// (driver::JitKernel) and launching it with Python arguments converted by the
// kernel's signature. Tensors are duck-typed: anything with data_ptr() (a
// torch tensor, DeviceBuffer), __cuda_array_interface__ or DLPack is a
// pointer, so no framework is linked or imported here. The Python layer (tritonc/__init__.py)
// adds the friendly API on top.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "tritonc/driver/Jit.h"
#include "tritonc/driver/Pipeline.h"
#include "tritonc/support/FloatFormats.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;
using namespace tritonc;
using driver::JitKernel;

namespace {

using python::CompileFailure;
using python::LaunchFailure;

runtime::CudaDriver &driverOrThrow() {
  runtime::Expected<runtime::CudaDriver *> D = driver::requireCudaDriver();
  if (!D)
    throw LaunchFailure(D.error());
  return **D;
}

//===----------------------------------------------------------------------===//
// Argument conversion
//===----------------------------------------------------------------------===//

std::string describeArg(const runtime::KernelSignature &Sig, size_t I) {
  const runtime::KernelParam &P = Sig.Params[I];
  return "kernel " + Sig.Name + ": argument " + std::to_string(I) +
         (P.Name.empty() ? "" : " (" + P.Name + ")");
}

std::string typeName(nb::handle O) { return nb::type_name(O.type()).c_str(); }

/// A Python int as a 128-bit value (enough for i64 and u64), or nullopt.
std::optional<__int128> pyInt(nb::handle O) {
  if (!PyLong_Check(O.ptr()) && !PyIndex_Check(O.ptr()))
    return std::nullopt;
  nb::object Index = nb::steal(PyNumber_Index(O.ptr()));
  if (!Index.is_valid()) {
    PyErr_Clear();
    return std::nullopt;
  }
  int Overflow = 0;
  long long V = PyLong_AsLongLongAndOverflow(Index.ptr(), &Overflow);
  if (Overflow == 0)
    return static_cast<__int128>(V);
  if (Overflow > 0) {
    unsigned long long U = PyLong_AsUnsignedLongLong(Index.ptr());
    if (!PyErr_Occurred())
      return static_cast<__int128>(U);
    PyErr_Clear();
  }
  // Out of the 64-bit range either way: report it as too large.
  return Overflow > 0 ? (static_cast<__int128>(1) << 100) : -(static_cast<__int128>(1) << 100);
}

/// O's attribute Name, or an invalid object (no Python error left set) when
/// it has none: one lookup where hasattr followed by attr would take two.
nb::object attrOrNull(nb::handle O, const char *Name) {
  PyObject *A = PyObject_GetAttrString(O.ptr(), Name);
  if (!A)
    PyErr_Clear();
  return nb::steal(A);
}

/// The CUDA device index of a tensor-like object in device memory; throws
/// for host memory. torch's get_device() answers with one call (the
/// `device.index` route makes a device object on every launch).
int64_t tensorDevice(const runtime::KernelSignature &Sig, size_t I, nb::handle O) {
  // A CPU tensor's address would fault on the device; say so instead.
  if (nb::object IsCuda = attrOrNull(O, "is_cuda"); IsCuda.is_valid() && !nb::cast<bool>(IsCuda))
    throw std::invalid_argument(describeArg(Sig, I) +
                                " is a tensor in host memory; move it to the GPU first");
  if (nb::object GetDevice = attrOrNull(O, "get_device"); GetDevice.is_valid())
    return nb::cast<int64_t>(GetDevice());
  if (nb::object Dev = attrOrNull(O, "device"); Dev.is_valid())
    if (nb::object Index = attrOrNull(Dev, "index"); Index.is_valid() && !Index.is_none())
      return nb::cast<int64_t>(Index);
  return 0;
}

/// The IR name of the element type of an array's dtype ("torch.float16",
/// numpy's float16 -> "f16"), or "" when the dtype is not one tritonc knows.
/// Memoized per dtype object: torch and NumPy keep one object per dtype, so a
/// launch pays one hash lookup per pointer argument.
const std::string &elementTypeOf(nb::handle DType) {
  // Never destroyed: the references must not be dropped after Python has shut down.
  static auto &Known = *new std::unordered_map<PyObject *, std::pair<nb::object, std::string>>();
  if (auto It = Known.find(DType.ptr()); It != Known.end())
    return It->second.second;
  static const std::unordered_map<std::string, std::string> Names = {
      {"float16", "f16"}, {"half", "f16"},    {"bfloat16", "bf16"}, {"float32", "f32"},
      {"float", "f32"},   {"float64", "f64"}, {"double", "f64"},    {"int8", "i8"},
      {"uint8", "i8"},    {"int16", "i16"},   {"uint16", "i16"},    {"int32", "i32"},
      {"uint32", "i32"},  {"int64", "i64"},   {"uint64", "i64"},    {"bool", "i1"}};
  std::string Text = nb::str(DType).c_str();
  if (Text.rfind("torch.", 0) == 0)
    Text.erase(0, 6);
  auto Name = Names.find(Text);
  auto &Entry = Known[DType.ptr()];
  Entry = {nb::borrow(DType), Name == Names.end() ? std::string() : Name->second};
  return Entry.second;
}

/// A tensor of the wrong element type (an fp32 tensor for a half* parameter)
/// would run and read garbage: a TypeError naming the parameter instead.
/// bool arrays are bytes, so they also fit an i8* parameter.
void checkElementType(const runtime::KernelSignature &Sig, size_t I, nb::handle O) {
  const std::string &Want = Sig.Params[I].Pointee;
  if (Want.empty() || Want.back() == '*')
    return;
  nb::object DType = attrOrNull(O, "dtype");
  if (!DType.is_valid())
    return;
  const std::string &Got = elementTypeOf(DType);
  if (Got.empty() || Got == Want || (Got == "i1" && Want == "i8"))
    return;
  throw nb::type_error((describeArg(Sig, I) + " has element type " +
                        std::string(nb::str(DType).c_str()) + ", the parameter is " + Want +
                        "*; convert the tensor (e.g. .to(...)) or change the kernel's type")
                           .c_str());
}

/// The address of a pointer argument; Device is set to the CUDA device the
/// memory is on where the object tells (a tensor, DLPack), else left alone.
runtime::CuDevicePtr pointerArg(const runtime::KernelSignature &Sig, size_t I, nb::handle O,
                                int &Device) {
  if (O.is_none())
    return 0;
  checkElementType(Sig, I, O);
  if (nb::object DataPtr = attrOrNull(O, "data_ptr"); DataPtr.is_valid()) {
    Device = int(tensorDevice(Sig, I, O));
    std::optional<__int128> P = pyInt(DataPtr());
    if (!P || *P < 0)
      throw std::invalid_argument(describeArg(Sig, I) + ": data_ptr() did not return an address");
    return static_cast<runtime::CuDevicePtr>(*P);
  }
  if (nb::hasattr(O, "__cuda_array_interface__")) {
    nb::object Data = O.attr("__cuda_array_interface__")["data"];
    std::optional<__int128> P = pyInt(Data[0]);
    if (!P || *P < 0)
      throw std::invalid_argument(describeArg(Sig, I) + ": bad __cuda_array_interface__ data");
    return static_cast<runtime::CuDevicePtr>(*P);
  }
  if (nb::hasattr(O, "__dlpack__")) {
    // JAX arrays and others that offer only DLPack. No conversion: a copy
    // would be a temporary the kernel writes into.
    nb::ndarray<> A;
    if (nb::try_cast(O, A, /*convert=*/false)) {
      int Type = A.device_type();
      if (Type == nb::device::cpu::value || Type == nb::device::cuda_host::value)
        throw std::invalid_argument(describeArg(Sig, I) +
                                    " is an array in host memory; move it to the GPU first");
      if (Type != nb::device::cuda::value && Type != nb::device::cuda_managed::value)
        throw std::invalid_argument(describeArg(Sig, I) +
                                    " is an array on a device of DLPack type " +
                                    std::to_string(Type) + ", not a CUDA device");
      Device = int(A.device_id());
      return reinterpret_cast<uintptr_t>(A.data());
    }
  }
  if (!PyBool_Check(O.ptr())) {
    if (std::optional<__int128> P = pyInt(O); P && *P >= 0 && *P <= __int128(UINT64_MAX))
      return static_cast<runtime::CuDevicePtr>(*P);
  }
  throw std::invalid_argument(describeArg(Sig, I) + " is " + typeName(O) +
                              ", the parameter is a pointer (pass a CUDA tensor, an object with "
                              "data_ptr() or DLPack, an address as int, or None)");
}

runtime::KernelArg intArg(const runtime::KernelSignature &Sig, size_t I, runtime::ArgKind Kind,
                          nb::handle O) {
  std::optional<__int128> V = PyFloat_Check(O.ptr()) ? std::nullopt : pyInt(O);
  if (!V)
    throw std::invalid_argument(describeArg(Sig, I) + " is " + typeName(O) + ", the parameter is " +
                                runtime::argKindName(Kind) + " (pass an int)");
  unsigned Bits = Kind == runtime::ArgKind::Int1 ? 1 : runtime::argKindSize(Kind) * 8;
  // Integers are signless: both the signed and the unsigned range are accepted.
  __int128 Min = Bits == 1 ? 0 : -(static_cast<__int128>(1) << (Bits - 1));
  __int128 Max = (static_cast<__int128>(1) << Bits) - 1;
  if (*V < Min || *V > Max)
    throw std::overflow_error(describeArg(Sig, I) + " does not fit " + runtime::argKindName(Kind));
  uint64_t Bitsv = static_cast<uint64_t>(*V);
  switch (Kind) {
  case runtime::ArgKind::Int1:
    return runtime::KernelArg::i1(Bitsv != 0);
  case runtime::ArgKind::Int8:
    return runtime::KernelArg::i8(static_cast<int8_t>(Bitsv));
  case runtime::ArgKind::Int16:
    return runtime::KernelArg::i16(static_cast<int16_t>(Bitsv));
  case runtime::ArgKind::Int32:
    return runtime::KernelArg::i32(static_cast<int32_t>(Bitsv));
  default:
    return runtime::KernelArg::i64(static_cast<int64_t>(Bitsv));
  }
}

runtime::KernelArg floatArg(const runtime::KernelSignature &Sig, size_t I, runtime::ArgKind Kind,
                            nb::handle O) {
  if (PyBool_Check(O.ptr()) ||
      !(PyFloat_Check(O.ptr()) || PyLong_Check(O.ptr()) || nb::hasattr(O, "__float__")))
    throw std::invalid_argument(describeArg(Sig, I) + " is " + typeName(O) + ", the parameter is " +
                                runtime::argKindName(Kind) + " (pass a float)");
  double V = PyFloat_AsDouble(O.ptr());
  if (V == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw std::invalid_argument(describeArg(Sig, I) + " cannot be converted to a float");
  }
  switch (Kind) {
  case runtime::ArgKind::F16:
    return runtime::KernelArg::f16Bits(floatToHalfBits(static_cast<float>(roundToHalf(V))));
  case runtime::ArgKind::BF16:
    return runtime::KernelArg::bf16Bits(
        floatToBFloat16Bits(static_cast<float>(roundToBFloat16(V))));
  case runtime::ArgKind::F32:
    return runtime::KernelArg::f32(static_cast<float>(V));
  default:
    return runtime::KernelArg::f64(V);
  }
}

/// Args converted by the signature's kinds. LaunchDevice, when given, gets
/// the device of the tensors (0 when none tells); tensors on different
/// devices are an error.
runtime::KernelArgs convertArgs(const runtime::KernelSignature &Sig, const nb::tuple &Args,
                                int *LaunchDevice = nullptr) {
  size_t N = nb::len(Args);
  if (N != Sig.Params.size())
    throw nb::type_error(("kernel " + Sig.Name + " takes " + std::to_string(Sig.Params.size()) +
                          " arguments, " + std::to_string(N) + " given; signature: " + Sig.str())
                             .c_str());
  runtime::KernelArgs Out;
  int Chosen = -1;
  for (size_t I = 0; I < N; ++I) {
    nb::handle O = Args[I];
    runtime::ArgKind Kind = Sig.Params[I].Kind;
    switch (Kind) {
    case runtime::ArgKind::Pointer: {
      int Device = -1;
      Out.pointer(pointerArg(Sig, I, O, Device));
      if (Device >= 0 && Chosen >= 0 && Device != Chosen)
        throw std::invalid_argument(describeArg(Sig, I) + " is on cuda:" + std::to_string(Device) +
                                    ", an earlier argument on cuda:" + std::to_string(Chosen) +
                                    "; a launch runs on one device");
      if (Device >= 0)
        Chosen = Device;
      break;
    }
    case runtime::ArgKind::F16:
    case runtime::ArgKind::BF16:
    case runtime::ArgKind::F32:
    case runtime::ArgKind::F64:
      Out.add(floatArg(Sig, I, Kind, O));
      break;
    default:
      Out.add(intArg(Sig, I, Kind, O));
    }
  }
  return Out;
}

/// PyTorch's current stream on Device when torch is loaded and has
/// initialized CUDA, else null (the legacy default stream, which is also
/// torch's default). torch is never imported here: a process that does not
/// use it does not pay for it. Under torch.cuda.stream(s) or a CUDA graph
/// capture, launches thus join the work torch queues around them.
runtime::CuStream currentTorchStream(int Device) {
  // Never destroyed: the references must not be dropped after Python has shut down.
  static nb::object &GetRawStream = *new nb::object(), &IsInitialized = *new nb::object();
  if (!GetRawStream.is_valid()) {
    PyObject *Modules = PyImport_GetModuleDict();
    PyObject *Torch = PyDict_GetItemString(Modules, "torch"); // borrowed
    if (!Torch)
      return nullptr;
    nb::object C = attrOrNull(Torch, "_C");
    nb::object Cuda = attrOrNull(Torch, "cuda");
    if (!C.is_valid() || !Cuda.is_valid())
      return nullptr;
    nb::object Get = attrOrNull(C, "_cuda_getCurrentRawStream");
    nb::object Init = attrOrNull(Cuda, "is_initialized");
    if (!Get.is_valid() || !Init.is_valid())
      return nullptr; // torch without CUDA
    GetRawStream = Get;
    IsInitialized = Init;
  }
  if (!nb::cast<bool>(IsInitialized()))
    return nullptr;
  std::optional<__int128> V = pyInt(GetRawStream(Device));
  return V ? reinterpret_cast<runtime::CuStream>(static_cast<uintptr_t>(*V)) : nullptr;
}

/// None (PyTorch's current stream, see currentTorchStream), an int (a
/// cudaStream_t / CUstream as int), or an object with a cuda_stream
/// attribute (torch.cuda.Stream).
runtime::CuStream toStream(nb::handle S, int Device) {
  if (S.is_none())
    return currentTorchStream(Device);
  nb::handle Value = S;
  nb::object Attr;
  if (nb::hasattr(S, "cuda_stream")) {
    Attr = S.attr("cuda_stream");
    Value = Attr;
  }
  std::optional<__int128> V = PyBool_Check(Value.ptr()) ? std::nullopt : pyInt(Value);
  if (!V || *V < 0 || *V > __int128(UINTPTR_MAX))
    throw nb::type_error(("stream must be None, an int (a CUstream handle) or an object with "
                          "cuda_stream, not " +
                          typeName(S))
                             .c_str());
  return reinterpret_cast<runtime::CuStream>(static_cast<uintptr_t>(*V));
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

} // namespace

driver::Grid3 tritonc::python::toGrid(nb::handle G) {
  auto Bad = [&] {
    return nb::value_error(
        ("grid dimensions must be positive ints, got " + std::string(nb::repr(G).c_str())).c_str());
  };
  auto Dimension = [&](nb::handle D) {
    if (PyBool_Check(D.ptr()) || !PyLong_Check(D.ptr()))
      throw Bad();
    int Overflow = 0;
    long long V = PyLong_AsLongLongAndOverflow(D.ptr(), &Overflow);
    if (Overflow != 0 || V <= 0 || V > 0x7FFFFFFF)
      throw Bad();
    return static_cast<unsigned>(V);
  };
  if (PyLong_Check(G.ptr()) && !PyBool_Check(G.ptr()))
    return {Dimension(G), 1, 1};
  if (!PySequence_Check(G.ptr()) || PyUnicode_Check(G.ptr()))
    throw Bad();
  nb::sequence Dims = nb::borrow<nb::sequence>(G);
  size_t N = nb::len(Dims);
  if (N < 1 || N > 3)
    throw nb::value_error(("grid must have 1 to 3 dimensions, not " + std::to_string(N)).c_str());
  unsigned D[3] = {1, 1, 1};
  for (size_t I = 0; I < N; ++I)
    D[I] = Dimension(Dims[I]);
  return {D[0], D[1], D[2]};
}

namespace {
using python::toGrid;

class PyKernel {
public:
  explicit PyKernel(std::unique_ptr<JitKernel> K) : K(std::move(K)) {}

  void launch(const driver::Grid3 &Grid, const nb::tuple &Args, nb::handle Stream) {
    int Device = 0;
    runtime::KernelArgs KArgs = convertArgs(K->signature(), Args, &Device);
    runtime::CuStream S = toStream(Stream, std::max(Device, 0));
    runtime::Status Result;
    {
      nb::gil_scoped_release Release;
      Result = K->launch(Grid, KArgs, S, std::max(Device, 0));
    }
    if (!Result)
      throw LaunchFailure(Result.error());
  }

  std::string variantPTX(const std::string &Spec) {
    runtime::Expected<const driver::DeviceCompileResult *> V = [&] {
      nb::gil_scoped_release Release;
      return K->variant(Spec);
    }();
    if (!V)
      throw CompileFailure(V.error());
    return (*V)->PTX;
  }

  /// The variant for Spec ("" or None: the generic one), compiled on
  /// demand; with Load, also loaded into device Device's driver.
  const driver::DeviceCompileResult &variantResult(const std::optional<std::string> &Spec,
                                                   bool Load, int Device = 0) {
    std::string S = Spec.value_or("");
    runtime::Expected<const driver::DeviceCompileResult *> V = [&] {
      nb::gil_scoped_release Release;
      return Load ? K->load(S, Device) : K->variant(S);
    }();
    if (!V && Load)
      throw LaunchFailure(V.error());
    if (!V)
      throw CompileFailure(V.error());
    return **V;
  }

  /// The driver's figures for the variant of Spec as loaded on Device.
  nb::dict loadedAttributes(const std::optional<std::string> &Spec, int Device) {
    runtime::Expected<runtime::FunctionAttributes> A = [&] {
      nb::gil_scoped_release Release;
      return K->loadedAttributes(Spec.value_or(""), Device);
    }();
    if (!A)
      throw LaunchFailure(A.error());
    nb::dict D;
    D["num_regs"] = A->NumRegs;
    D["local_bytes"] = A->LocalSizeBytes;
    D["static_shared_bytes"] = A->SharedSizeBytes;
    D["max_threads"] = A->MaxThreadsPerBlock;
    return D;
  }

  std::vector<std::pair<std::string, std::string>> params() const {
    std::vector<std::pair<std::string, std::string>> Out;
    for (const runtime::KernelParam &P : K->signature().Params)
      Out.emplace_back(P.Name, P.Kind == runtime::ArgKind::Pointer && !P.Pointee.empty()
                                   ? P.Pointee + "*"
                                   : runtime::argKindName(P.Kind));
    return Out;
  }

  JitKernel &kernel() { return *K; }
  /// The generic variant, which a lazy kernel compiles now: without the GIL.
  const driver::DeviceCompileResult &generic() {
    nb::gil_scoped_release Release;
    return K->generic();
  }

private:
  std::unique_ptr<JitKernel> K;
};

/// k[grid]: a kernel whose grid was checked and converted once, launched by
/// calling it with the kernel's arguments (and stream=...) without a Python
/// frame in between.
class PyLauncher {
public:
  PyLauncher(nb::object Owner, PyKernel &K, driver::Grid3 Grid)
      : Owner(std::move(Owner)), K(K), Grid(Grid) {}

  /// k[grid](*args, stream=None); any other keyword is a TypeError that says
  /// what the call takes.
  void call(const nb::args &Args, const nb::kwargs &Keywords) {
    nb::handle Stream = nb::none();
    for (auto [Key, Value] : Keywords) {
      std::string Name = nb::cast<std::string>(nb::str(Key));
      if (Name != "stream")
        throw nb::type_error(("k[grid](...) got an unexpected keyword argument '" + Name +
                              "'; it takes the kernel's arguments and stream=")
                                 .c_str());
      Stream = Value;
    }
    K.launch(Grid, Args, Stream);
  }

private:
  nb::object Owner; // keeps K alive
  PyKernel &K;
  driver::Grid3 Grid;
};

/// The phases of a compilation as {name: seconds}, "total" included.
nb::dict timingsDict(const driver::CompileTimings &T) {
  nb::dict D;
  for (const auto &[Name, Seconds] : T.phases())
    D[Name.c_str()] = Seconds;
  return D;
}

PyKernel compileKernel(const std::string &Name, std::optional<std::string> Text,
                       const std::vector<std::pair<std::string, std::string>> &Defines,
                       const std::vector<std::string> &IncludeDirs, unsigned NumWarps,
                       unsigned NumStages, std::optional<std::string> Arch,
                       std::optional<size_t> Config, bool AllowTF32, bool UseCache,
                       bool TensorCopies, bool TensorStores, const std::string &Kernel, bool Debug,
                       const std::string &Remarks, int Device, bool Lazy,
                       const std::vector<unsigned> &NumWarpsList,
                       const std::vector<unsigned> &NumStagesList, unsigned RegisterStages,
                       bool WarpSpecialize) {
  driver::DeviceCompileOptions Opts;
  Opts.Front.Kernel = Kernel;
  Opts.Front.Debug = Debug;
  if (!Remarks.empty()) {
    std::string Error;
    std::optional<RemarkFilter> F = RemarkFilter::parse(Remarks, Error);
    if (!F)
      throw std::invalid_argument("remarks=" + Remarks + ": " + Error);
    Opts.Front.Remarks = *F;
  }
  for (const auto &D : Defines)
    Opts.Front.Defines.push_back(D);
  Opts.Front.IncludeDirs = IncludeDirs;
  Opts.Front.Config = Config;
  Opts.Back.NumWarps = NumWarps;
  Opts.Back.NumStages = NumStages;
  Opts.Back.AllowTF32 = AllowTF32;
  Opts.Back.TensorCopies = TensorCopies;
  Opts.Back.TensorStores = TensorStores;
  Opts.Back.RegisterStages = RegisterStages;
  Opts.Back.WarpSpecialize = WarpSpecialize;
  Opts.Front.Tuned = {NumWarpsList, NumStagesList};
  // For the target and shared memory of the device the kernel will run on;
  // without a CUDA driver (and without arch=) the back end's default target.
  runtime::Expected<runtime::CudaDriver *> D = runtime::CudaDriver::get(Device);
  if (runtime::Status S = driver::selectTarget(Arch, D ? &(*D)->device() : nullptr, Opts.Back);
      !S) {
    if (Arch)
      throw std::invalid_argument(S.error());
    throw LaunchFailure(S.error());
  }
  // After the target: warp_specialize needs sm_90a, which may be the device's.
  if (runtime::Status S = driver::checkBackEndOptions(Opts.Back, Opts.Front.Tuned); !S)
    throw std::invalid_argument(S.error());
  driver::KernelSource Src =
      Text ? driver::KernelSource::text(Name, std::move(*Text)) : driver::KernelSource::file(Name);
  driver::CacheConfig Cache = UseCache ? driver::defaultCacheConfig() : driver::CacheConfig{};
  runtime::Expected<std::unique_ptr<JitKernel>> K = [&] {
    nb::gil_scoped_release Release;
    return JitKernel::create(std::move(Src), std::move(Opts), std::move(Cache), Lazy);
  }();
  if (!K)
    throw CompileFailure(K.error());
  return PyKernel(K.take());
}

//===----------------------------------------------------------------------===//
// DeviceBuffer: device memory without a framework (tests, simple scripts)
//===----------------------------------------------------------------------===//

class PyDeviceBuffer {
public:
  explicit PyDeviceBuffer(size_t Bytes) {
    runtime::Expected<runtime::DeviceBuffer> B =
        runtime::DeviceBuffer::allocate(driverOrThrow(), Bytes);
    if (!B)
      throw LaunchFailure(B.error());
    Buffer = B.take();
  }
  uint64_t dataPtr() const { return Buffer.ptr(); }
  size_t size() const { return Buffer.size(); }
  void upload(nb::bytes Data) {
    if (Data.size() > Buffer.size())
      throw std::invalid_argument("upload of " + std::to_string(Data.size()) +
                                  " bytes into a buffer of " + std::to_string(Buffer.size()));
    if (runtime::Status S = Buffer.upload(Data.c_str(), Data.size()); !S)
      throw LaunchFailure(S.error());
  }
  nb::bytes download() const {
    std::string Host(Buffer.size(), '\0');
    if (runtime::Status S = Buffer.download(Host.data(), Host.size()); !S)
      throw LaunchFailure(S.error());
    return nb::bytes(Host.data(), Host.size());
  }
  void fill(unsigned Byte) {
    if (Byte > 255)
      throw std::invalid_argument("fill value must be a byte (0..255)");
    if (runtime::Status S = Buffer.fill(static_cast<unsigned char>(Byte)); !S)
      throw LaunchFailure(S.error());
  }

private:
  runtime::DeviceBuffer Buffer;
};

} // namespace

NB_MODULE(_tritonc, m) {
  m.doc() = "Native part of the tritonc Python package (use the tritonc module).";
  m.attr("__version__") = TRITONC_VERSION;
  python::bindInterpreter(m);
  python::bindConfigurations(m);
  nb::exception<CompileFailure>(m, "CompileError", PyExc_RuntimeError);
  nb::exception<LaunchFailure>(m, "LaunchError", PyExc_RuntimeError);

  m.def(
      "version", [] { return runtime::CacheKeyInputs::compilerVersion(); },
      "The compiler version that enters the kernel cache key.");
  m.def(
      "cuda_status",
      [](int Device) {
        runtime::Expected<runtime::CudaDriver *> D = driver::requireCudaDriver(Device);
        if (!D)
          return std::make_pair(false, D.error());
        const runtime::DeviceInfo &I = (*D)->device();
        return std::make_pair(true, I.Name + " (" + I.target() + ", CUDA driver " +
                                        (*D)->driverVersionString() + ")");
      },
      "device"_a = 0,
      "(usable, description): whether CUDA device `device` can be used, and which (or why not).");
  m.def("synchronize", [] {
    runtime::Status S;
    {
      nb::gil_scoped_release Release;
      S = driverOrThrow().synchronize();
    }
    if (!S)
      throw LaunchFailure(S.error());
  });
  m.def("cache_dir", [] { return driver::defaultKernelCache().directory(); });
  m.def(
      "cache_stats",
      [] {
        runtime::CacheStats S = driver::defaultKernelCache().stats();
        nb::dict D;
        D["memory_hits"] = S.MemoryHits;
        D["disk_hits"] = S.DiskHits;
        D["misses"] = S.Misses;
        D["stores"] = S.Stores;
        D["corrupt_entries"] = S.CorruptEntries;
        return D;
      },
      "Counters of the process-wide kernel cache (a miss is a compilation).");

  nb::class_<PyLauncher>(m, "Launcher").def("__call__", &PyLauncher::call, "args"_a, "kwargs"_a);

  nb::class_<PyKernel>(m, "Kernel")
      .def(
          "launch",
          [](PyKernel &K, nb::handle Grid, const nb::tuple &Args, nb::handle Stream) {
            K.launch(toGrid(Grid), Args, Stream);
          },
          "grid"_a, "args"_a, "stream"_a = nb::none())
      .def(
          "bind",
          [](nb::handle Self, nb::handle Grid) {
            return PyLauncher(nb::borrow(Self), nb::cast<PyKernel &>(Self), toGrid(Grid));
          },
          "grid"_a)
      .def("variant_ptx", &PyKernel::variantPTX, "specialization"_a)
      .def(
          "specialization",
          [](PyKernel &K, const nb::tuple &Args) {
            runtime::KernelArgs KArgs = convertArgs(K.kernel().signature(), Args);
            return driver::canonicalSpecialization(runtime::specializationString(KArgs));
          },
          "args"_a)
      .def(
          "variant_shared_mem",
          [](PyKernel &K, const std::string &Spec) {
            return K.variantResult(Spec, /*Load=*/false).Info.SharedMemBytes;
          },
          "specialization"_a)
      .def_prop_ro("ptx", [](PyKernel &K) { return K.generic().PTX; })
      .def_prop_ro("name", [](PyKernel &K) { return K.kernel().signature().Name; })
      .def_prop_ro("shared_mem", [](PyKernel &K) { return K.generic().Info.SharedMemBytes; })
      .def_prop_ro("num_warps", [](PyKernel &K) { return K.generic().Info.NumWarps; })
      .def_prop_ro("num_stages", [](PyKernel &K) { return K.generic().NumStages; })
      .def(
          "timings",
          [](PyKernel &K, std::optional<std::string> Spec) {
            return timingsDict(K.variantResult(Spec, /*Load=*/false).Timings);
          },
          "specialization"_a.none() = nb::none())
      .def(
          "load",
          [](PyKernel &K, std::optional<std::string> Spec, int Device) {
            return timingsDict(K.variantResult(Spec, /*Load=*/true, Device).Timings);
          },
          "specialization"_a.none() = nb::none(), "device"_a = 0)
      .def("attributes", &PyKernel::loadedAttributes, "specialization"_a.none() = nb::none(),
           "device"_a = 0)
      .def_prop_ro("num_barriers", [](PyKernel &K) { return K.generic().Info.NumBarriers; })
      .def_prop_ro("signature", [](PyKernel &K) { return K.kernel().signature().str(); })
      .def_prop_ro("params", &PyKernel::params)
      .def_prop_ro(
          "arch",
          [](PyKernel &K) { return std::string(ptx::archName(K.kernel().options().Back.Arch)); })
      .def_prop_ro("warnings", [](PyKernel &K) { return K.generic().Diagnostics; })
      .def_prop_ro("remarks", [](PyKernel &K) { return K.generic().Remarks; })
      .def_prop_ro("last_specialization",
                   [](PyKernel &K) { return K.kernel().lastSpecialization(); })
      .def_prop_ro("num_variants", [](PyKernel &K) { return K.kernel().numVariants(); });

  m.def("compile", &compileKernel, "name"_a, "text"_a.none(), "defines"_a, "include_dirs"_a,
        "num_warps"_a, "num_stages"_a, "arch"_a.none(), "config"_a.none(), "allow_tf32"_a,
        "use_cache"_a, "tma"_a = true, "tma_store"_a = true, "kernel"_a = "", "debug"_a = false,
        "remarks"_a = "", "device"_a = 0, "lazy"_a = false,
        "num_warps_list"_a = std::vector<unsigned>(), "num_stages_list"_a = std::vector<unsigned>(),
        "register_stages"_a = codegen::DefaultRegisterStages, "warp_specialize"_a = false);

  nb::class_<PyDeviceBuffer>(m, "DeviceBuffer")
      .def(nb::init<size_t>(), "nbytes"_a)
      .def("data_ptr", &PyDeviceBuffer::dataPtr)
      .def_prop_ro("nbytes", &PyDeviceBuffer::size)
      .def("upload", &PyDeviceBuffer::upload, "data"_a)
      .def("download", &PyDeviceBuffer::download)
      .def("fill", &PyDeviceBuffer::fill, "byte"_a);
}
