//===- Interpret.cpp - Kernels on the CPU interpreter, from Python ---------===//
//
// `tritonc.compile(..., interpret=True)` (or TRITONC_INTERPRET=1): the kernel
// is compiled to Triton-IR only and each launch runs it on the exact CPU
// interpreter, on host arrays (NumPy arrays, CPU torch tensors: anything
// nanobind takes as a CPU ndarray through the buffer protocol or DLPack),
// in place. The buffers carry the parameter names, so an out-of-bounds
// access is reported as an error naming the parameter and the element index.
//
//===----------------------------------------------------------------------===//

#include "Bindings.h"

#include "tritonc/driver/Compiler.h"
#include "tritonc/driver/Launch.h"
#include "tritonc/driver/Pipeline.h"
#include "tritonc/interp/Interpreter.h"

#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace nb::literals;
using namespace tritonc;

namespace {

/// Steps per program instance before the interpreter gives up: a kernel that
/// never terminates is an error, not a hung Python process.
constexpr uint64_t MaxStepsPerProgram = 1ull << 32;

/// The .npy dtype of an ndarray's element type; nullopt when tritonc has no
/// such dtype (bfloat16, complex).
std::optional<driver::DType> dtypeOf(const nb::dlpack::dtype &T) {
  using Code = nb::dlpack::dtype_code;
  auto Code_ = static_cast<Code>(T.code);
  if (T.lanes != 1)
    return std::nullopt;
  switch (Code_) {
  case Code::Float:
    if (T.bits == 16)
      return driver::DType::F16;
    if (T.bits == 32)
      return driver::DType::F32;
    if (T.bits == 64)
      return driver::DType::F64;
    return std::nullopt;
  case Code::Int:
    switch (T.bits) {
    case 8:
      return driver::DType::I8;
    case 16:
      return driver::DType::I16;
    case 32:
      return driver::DType::I32;
    case 64:
      return driver::DType::I64;
    }
    return std::nullopt;
  case Code::UInt:
    switch (T.bits) {
    case 8:
      return driver::DType::U8;
    case 16:
      return driver::DType::U16;
    case 32:
      return driver::DType::U32;
    case 64:
      return driver::DType::U64;
    }
    return std::nullopt;
  case Code::Bool:
    return driver::DType::Bool;
  default:
    return std::nullopt;
  }
}

/// The bytes from an array's first element to one past its farthest one
/// (strides may be negative or zero: the span covers what the view reaches).
/// A kernel indexes memory through the strides it is passed, so the whole
/// extent is what it may touch.
std::pair<int64_t, int64_t> byteSpan(const nb::ndarray<nb::device::cpu> &A) {
  int64_t Lo = 0, Hi = 0;
  for (size_t D = 0; D < A.ndim(); ++D) {
    if (A.shape(D) == 0)
      return {0, 0};
    int64_t Reach = (int64_t(A.shape(D)) - 1) * A.stride(D);
    (Reach < 0 ? Lo : Hi) += Reach;
  }
  int64_t Item = A.dtype().bits / 8;
  return {Lo * Item, (Hi + 1) * Item};
}

std::string argName(const driver::KernelSignature &Sig, size_t I) {
  return "kernel " + Sig.Name + ": argument " + std::to_string(I) +
         (Sig.Params[I].Name.empty() ? "" : " (" + Sig.Params[I].Name + ")");
}

class PyInterpretedKernel {
public:
  PyInterpretedKernel(driver::CompileResult R, const std::string &KernelName)
      : Result(std::move(R)) {
    F = driver::selectKernel(*Result.module(), KernelName, Result.getDiagnostics(), Result.ast());
    if (!F)
      throw python::CompileFailure(Result.formattedDiagnostics());
    Sig = driver::getSignature(*F, Result.ast());
  }

  void launch(nb::handle Grid, const nb::tuple &Args) {
    driver::Grid3 G = python::toGrid(Grid);
    size_t N = nb::len(Args);
    if (N != Sig.Params.size())
      throw nb::type_error(("kernel " + Sig.Name + " takes " + std::to_string(Sig.Params.size()) +
                            " arguments, " + std::to_string(N) + " given; signature: " + Sig.str())
                               .c_str());
    std::vector<interp::ArgValue> Values;
    std::vector<interp::HostBuffer> Buffers;
    std::vector<nb::ndarray<nb::device::cpu>> Keep; // the arrays outlive the run
    for (size_t I = 0; I < N; ++I)
      Values.push_back(convert(I, Args[I], Buffers, Keep));
    interp::InterpOptions Opts;
    Opts.MaxStepsPerProgram = MaxStepsPerProgram;
    Opts.Sources = &Result.getSourceManager();
    interp::InterpResult R;
    bool Ran = true;
    {
      nb::gil_scoped_release Release;
      Ran = driver::runGuarded(Result.getDiagnostics(), [&] {
        R = interp::runKernel(*F, {G[0], G[1], G[2]}, Values, Buffers, Opts);
      });
    }
    if (!Ran)
      throw python::LaunchFailure("kernel " + Sig.Name + ": " + Result.formattedDiagnostics());
    if (!R.Ok)
      throw python::LaunchFailure("kernel " + Sig.Name + " on the interpreter: " + R.Error);
  }

  const driver::KernelSignature &signature() const { return Sig; }

private:
  interp::ArgValue convert(size_t I, nb::handle O, std::vector<interp::HostBuffer> &Buffers,
                           std::vector<nb::ndarray<nb::device::cpu>> &Keep) {
    const driver::KernelParam &P = Sig.Params[I];
    if (P.isPointer()) {
      nb::ndarray<nb::device::cpu> A;
      if (!nb::try_cast(O, A, /*convert=*/false))
        throw nb::type_error((argName(Sig, I) + " is " + nb::type_name(O.type()).c_str() +
                              "; on the interpreter a pointer parameter takes a host array "
                              "(a NumPy array or a CPU tensor)")
                                 .c_str());
      std::optional<driver::DType> T = dtypeOf(A.dtype());
      std::string Error;
      if (!T)
        throw nb::type_error((argName(Sig, I) + " has an element type the interpreter does not "
                                                "support (bfloat16 and complex arrays are not)")
                                 .c_str());
      if (!driver::checkArrayType(P, *T, Error))
        throw nb::type_error(("kernel " + Sig.Name + ": " + Error).c_str());
      auto [Lo, Hi] = byteSpan(A);
      // The kernel receives the buffer's start as the pointer; a view with
      // negative strides has its first element inside its span instead.
      if (Lo != 0)
        throw nb::value_error((argName(Sig, I) + ": arrays with negative strides are not "
                                                 "supported on the interpreter")
                                  .c_str());
      Buffers.push_back({A.data(), size_t(Hi), P.Name});
      Keep.push_back(A);
      return interp::ArgValue::buffer(Buffers.size() - 1);
    }
    const ir::Type *T = P.IRType;
    if (T->isFloatOrFloatTile()) {
      if (PyBool_Check(O.ptr()) || !(PyFloat_Check(O.ptr()) || PyLong_Check(O.ptr())))
        throw nb::type_error((argName(Sig, I) + " is " + nb::type_name(O.type()).c_str() +
                              ", the parameter is " + P.typeString() + " (pass a float)")
                                 .c_str());
      return interp::ArgValue::floating(PyFloat_AsDouble(O.ptr()));
    }
    if (PyFloat_Check(O.ptr()) || !PyIndex_Check(O.ptr()))
      throw nb::type_error((argName(Sig, I) + " is " + nb::type_name(O.type()).c_str() +
                            ", the parameter is " + P.typeString() + " (pass an int)")
                               .c_str());
    return interp::ArgValue::integer(nb::cast<int64_t>(O));
  }

  driver::CompileResult Result;
  const ir::Function *F = nullptr;
  driver::KernelSignature Sig;
};

/// The front end of tritonc.compile for the interpreter: defines, include
/// folders, the tuned options and the configuration as for the GPU (the
/// options checked as there, so that a call valid here is valid there); no
/// back end.
PyInterpretedKernel
compileForInterpreter(const std::string &Name, std::optional<std::string> Text,
                      const std::vector<std::pair<std::string, std::string>> &Defines,
                      const std::vector<std::string> &IncludeDirs, std::optional<size_t> Config,
                      const std::string &Kernel, bool Debug, unsigned NumWarps, unsigned NumStages,
                      const std::vector<unsigned> &NumWarpsList,
                      const std::vector<unsigned> &NumStagesList) {
  driver::CompileOptions Opts;
  Opts.Tuned = {NumWarpsList, NumStagesList};
  codegen::CodeGenOptions Back;
  Back.NumWarps = NumWarps;
  Back.NumStages = NumStages;
  if (runtime::Status S = driver::checkBackEndOptions(Back, Opts.Tuned); !S)
    throw std::invalid_argument(S.error());
  Opts.Kernel = Kernel;
  Opts.Debug = Debug;
  for (const auto &D : Defines)
    Opts.Defines.push_back(D);
  Opts.IncludeDirs = IncludeDirs;
  Opts.Config = Config;
  Opts.Stop = driver::StopAfter::IR;
  driver::CompileResult R = [&] {
    nb::gil_scoped_release Release;
    return Text ? driver::compileSource(Name, *Text, Opts) : driver::compileFile(Name, Opts);
  }();
  if (!R.ok() || !R.module())
    throw python::CompileFailure(R.formattedDiagnostics());
  return PyInterpretedKernel(std::move(R), Kernel);
}

} // namespace

namespace tritonc::python {

void bindInterpreter(nb::module_ &M) {
  nb::class_<PyInterpretedKernel>(M, "InterpretedKernel")
      .def("launch", &PyInterpretedKernel::launch, "grid"_a, "args"_a)
      .def_prop_ro("name", [](PyInterpretedKernel &K) { return K.signature().Name; })
      .def_prop_ro("signature", [](PyInterpretedKernel &K) { return K.signature().str(); })
      .def_prop_ro("params", [](PyInterpretedKernel &K) {
        std::vector<std::pair<std::string, std::string>> Out;
        for (const driver::KernelParam &P : K.signature().Params)
          Out.emplace_back(P.Name, P.typeString());
        return Out;
      });
  M.def("compile_for_interpreter", &compileForInterpreter, "name"_a, "text"_a.none(), "defines"_a,
        "include_dirs"_a, "config"_a.none(), "kernel"_a = "", "debug"_a = false, "num_warps"_a = 4,
        "num_stages"_a = 3, "num_warps_list"_a = std::vector<unsigned>(),
        "num_stages_list"_a = std::vector<unsigned>());
}

} // namespace tritonc::python
