//===- Interpreter.h - Reference executor of Triton-IR ----------*- C++ -*-===//
//
// Runs a kernel over a launch grid on host buffers with exact tile semantics
// (docs/IR.md). Program instances run one after another in grid order
// (x fastest, then y, then z), so kernels that spin on locks terminate.
// Every memory access is checked against the launch's buffers; an unmasked
// out-of-bounds access stops the run with an error naming the instruction
// and the program instance.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tritonc::interp {

/// A host buffer the kernel may access. Pointer arguments point at the start
/// of one of these; pointer arithmetic may move anywhere, but only accesses
/// inside some buffer are allowed.
struct HostBuffer {
  void *Data = nullptr;
  size_t SizeInBytes = 0;
  std::string Name; ///< For error messages (usually the parameter name).
};

/// One kernel argument, matching the kernel parameter at the same position.
struct ArgValue {
  enum class Kind { Buffer, Int, Float } K = Kind::Int;
  size_t BufferIndex = 0; ///< For Buffer: index into the buffer list.
  int64_t IntValue = 0;   ///< For Int (also bool).
  double FloatValue = 0;  ///< For Float (rounded to the parameter's type).

  static ArgValue buffer(size_t Index) {
    ArgValue A;
    A.K = Kind::Buffer;
    A.BufferIndex = Index;
    return A;
  }
  static ArgValue integer(int64_t V) {
    ArgValue A;
    A.K = Kind::Int;
    A.IntValue = V;
    return A;
  }
  static ArgValue floating(double V) {
    ArgValue A;
    A.K = Kind::Float;
    A.FloatValue = V;
    return A;
  }
};

struct LaunchGrid {
  uint32_t X = 1, Y = 1, Z = 1;
};

struct InterpOptions {
  /// Stop with an error after this many steps in one program instance (0:
  /// no limit). A step is one element operation: an instruction on an
  /// N-element tile takes N, a dot M*N*K, a reduction its input's size; so
  /// the limit bounds time whether a kernel loops forever or works on huge
  /// tiles.
  uint64_t MaxStepsPerProgram = 0;
  /// Resolves file names of instruction locations in error messages
  /// ("kernel.tc:12:5"); optional.
  const SourceManager *Sources = nullptr;
  /// Where `print` writes (std::cout when null).
  std::ostream *PrintOut = nullptr;
};

struct InterpResult {
  bool Ok = true;
  std::string Error; ///< "program (1,0,0): masked_load %x: out-of-bounds read ..."
};

/// Runs F on every program of Grid. Args must match F's parameters in count
/// and kind (pointer <-> Buffer, integer <-> Int, float <-> Float); a
/// mismatch is reported as an error, not a crash. Scalars are normalized or
/// rounded to their parameter's type; a pointer parameter receives the Data
/// address of its buffer.
///
/// Invalid IR (operand counts or shapes that do not fit, unknown values,
/// missing terminators, ...) is reported with Ok = false, never by aborting.
/// Run-time errors read "program (x,y,z): OPCODE at FILE:LINE:COL
/// [printed instruction]: message", e.g. division by zero, out-of-bounds or
/// misaligned accesses, exceeding MaxStepsPerProgram. Stores done before an
/// error stay in the buffers.
///
/// Semantic choices where docs/IR.md leaves freedom: undef is zero; the
/// result of a masked-off atomic_rmw lane is zero; atomic_cas compares bit
/// patterns; tile atomics apply lane by lane in index order.
InterpResult runKernel(const ir::Function &F, const LaunchGrid &Grid,
                       const std::vector<ArgValue> &Args, std::vector<HostBuffer> &Buffers,
                       const InterpOptions &Opts = {});

} // namespace tritonc::interp
