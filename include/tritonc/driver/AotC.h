//===- AotC.h - Ahead-of-time C launchers for compiled kernels --*- C++ -*-===//
//
// `tritonc compile --emit=c -o NAME.c` writes NAME.h and NAME.c: the kernel's
// cubin as a byte array and a typed launcher
//
//   CUresult NAME(CUstream stream, unsigned grid_x, unsigned grid_y, unsigned grid_z,
//                 CUdeviceptr A, ..., int32_t M, ...);
//
// that loads the cubin into the current context on first use, checks what
// the compiled specialization assumes (multiples of 16, non-negative
// integers), encodes the kernel's tensor maps (sm_90a TMA) from the
// arguments as the JIT launcher does (runtime/TensorMaps.cpp), opts in to
// large shared memory and launches. The generated code is C99 and needs
// only cuda.h and libcuda, so a deployed program launches the kernel
// without the compiler.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/driver/Jit.h"

#include <string>

namespace tritonc::driver {

/// A compiled kernel and what the generated files are called.
struct AotInput {
  /// The launcher's name and the prefix of every generated symbol; must be
  /// a C identifier.
  std::string FunctionName;
  /// The header's file name as the source includes it ("NAME.h").
  std::string HeaderName;
  /// Where it came from, for the comment at the top ("kernels/matmul.tc").
  std::string SourceName;
  const DeviceCompileResult *Kernel = nullptr;
  std::string Cubin;
  ptx::Arch Arch = ptx::Arch::SM90a;
};

/// Whether Name is a C identifier (letters, digits, '_'; not a digit first).
bool isCIdentifier(const std::string &Name);
/// The header: the launcher's prototype and NAME_load / NAME_unload.
std::string emitAotHeader(const AotInput &In);
/// The source: the cubin and the launcher's definition.
std::string emitAotSource(const AotInput &In);

/// Writes OutPath (NAME.c) and NAME.h beside it, the launcher named after
/// NAME. Fails when NAME is not a C identifier or a file cannot be written.
runtime::Status writeAotFiles(const std::string &OutPath, const std::string &SourceName,
                              const DeviceCompileResult &Kernel, const std::string &Cubin,
                              ptx::Arch Arch);

} // namespace tritonc::driver
