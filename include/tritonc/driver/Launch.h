//===- Launch.h - Binding kernel arguments for `tritonc run` ----*- C++ -*-===//
//
// Maps the parameters of a compiled kernel to interpreter arguments: an
// array (.npy) for each pointer parameter, whose dtype must match the
// pointee type, and a literal for each scalar parameter, which must parse
// and fit the parameter's type. Used by `tritonc run`, and usable from C++
// to drive the interpreter with NumPy-compatible buffers.
//
// Parameter types come from the Triton-C declaration when the syntax tree is
// available (it knows `unsigned`), else from the IR (signless integers: a
// signed or an unsigned dtype of the right width is accepted).
//
// runPreparedOnDevice runs the same prepared arguments on the GPU: arrays
// are uploaded, and downloaded back after the kernel finishes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/driver/Npy.h"
#include "tritonc/interp/Interpreter.h"
#include "tritonc/ir/IR.h"
#include "tritonc/lang/AST.h"
#include "tritonc/runtime/Expected.h"
#include "tritonc/runtime/Module.h"
#include "tritonc/support/Diagnostics.h"

#include <array>

#include <optional>
#include <string>
#include <vector>

namespace tritonc::driver {

class JitKernel;

/// One kernel parameter as the launcher sees it.
struct KernelParam {
  std::string Name;
  const ir::Type *IRType = nullptr;
  /// The Triton-C type as declared, when the syntax tree is known.
  std::optional<ast::TypeSpec> CType;

  bool isPointer() const { return IRType->isPointerOrPointerTile(); }
  /// The type as written: "const float*" from the AST, or "f32*" from the IR.
  std::string typeString() const;
};

/// A kernel's name and parameters.
struct KernelSignature {
  std::string Name;
  std::vector<KernelParam> Params;
  /// "add(float* X, float* Y, int N)".
  std::string str() const;
};

/// Picks the kernel to launch: the function named Name (`--kernel`); with
/// Name empty, the only function of M, else the first `__global__` one.
/// When there is none it reports an error in Diags, located at the first
/// kernel of TU (when given) with a note at every kernel, and returns null.
const ir::Function *selectKernel(const ir::Module &M, const std::string &Name,
                                 DiagnosticEngine &Diags, const ast::TranslationUnit *TU);

/// The signature of F, with C-level types from TU's declaration of the same
/// name when TU is given and has it.
KernelSignature getSignature(const ir::Function &F, const ast::TranslationUnit *TU);

/// Checks that an array of dtype T may back pointer parameter P. On failure
/// Error names the parameter, the dtype and the expected type.
bool checkArrayType(const KernelParam &P, DType T, std::string &Error);

/// Parses a scalar literal for parameter P: a decimal or 0x-hex integer
/// (optionally negative) for integers, true/false/0/1 for bool, a decimal
/// float (or inf/nan) for floats. Fails when it does not parse or does not
/// fit the parameter's type.
bool parseScalarArg(const KernelParam &P, const std::string &Text, interp::ArgValue &Out,
                    std::string &Error);

/// Arguments ready for interp::runKernel. Buffers point into Arrays, so
/// this object must stay put (it is not copyable) while the kernel runs.
struct PreparedLaunch {
  PreparedLaunch() = default;
  PreparedLaunch(const PreparedLaunch &) = delete;
  PreparedLaunch &operator=(const PreparedLaunch &) = delete;

  std::vector<NpyArray> Arrays;            ///< One per pointer parameter.
  std::vector<size_t> ArrayParams;         ///< Parameter index of each array.
  std::vector<std::string> ArrayPaths;     ///< The .npy file each array came from.
  std::vector<interp::HostBuffer> Buffers; ///< Views of Arrays.
  std::vector<interp::ArgValue> Args;      ///< One per parameter.
};

/// Binds command-line style arguments: one per parameter, a .npy path for a
/// pointer parameter and a literal for a scalar one. Errors: wrong count
/// (the message shows the signature), unreadable or mismatched arrays, bad
/// literals.
bool prepareLaunch(const KernelSignature &Sig, const std::vector<std::string> &ArgTexts,
                   PreparedLaunch &Out, std::string &Error);

/// Checks, before anything runs or is written, that every array of L can
/// go to Dir/<parameter name>.npy: Dir is a directory or can be created,
/// no output path is a directory, and none is one of the input files (a
/// run must never destroy its own input).
bool checkLaunchOutputs(const KernelSignature &Sig, const PreparedLaunch &L, const std::string &Dir,
                        std::string &Error);

/// Writes every array of L to Dir/<parameter name>.npy, creating Dir if
/// needed. All or nothing: every file is written to a temporary next to
/// its target first and the set is renamed into place only once all are
/// complete, so a failure (disk full, no permission) replaces no file.
/// Runs L on the GPU with K: every array is copied to a device buffer of
/// its size, K is launched on Grid with the buffers and scalars converted to
/// the kinds of K's signature, the device is synchronized and every array is
/// copied back into L.Arrays. Errors: no CUDA driver, allocation, copies,
/// compilation of the variant, the launch or the kernel's execution.
/// The device half of runPreparedOnDevice: every array of L copied into a
/// new buffer of Buffers, and the arguments of Sig pointing at them (scalars
/// converted to their parameter's kind).
runtime::Expected<runtime::KernelArgs>
uploadPreparedArguments(runtime::CudaDriver &D, const runtime::KernelSignature &Sig,
                        const PreparedLaunch &L, std::vector<runtime::DeviceBuffer> &Buffers);

runtime::Status runPreparedOnDevice(JitKernel &K, PreparedLaunch &L,
                                    const std::array<unsigned, 3> &Grid);

bool writeLaunchOutputs(const KernelSignature &Sig, const PreparedLaunch &L, const std::string &Dir,
                        std::string &Error);

} // namespace tritonc::driver
