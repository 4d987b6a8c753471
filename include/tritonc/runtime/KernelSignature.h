//===- KernelSignature.h - Kernel parameters and packed arguments -*- C++ -*-===//
//
// A KernelSignature lists a kernel's parameters by kind (pointer, i32, f32,
// ...), as the PTX entry declares them. The code generator fills it from a
// Triton-IR function (see IRSignature.h); launches check their KernelArgs
// against it so that a wrong count or kind is an error message naming the
// parameter instead of a crash on the device.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/Expected.h"
#include "tritonc/support/TensorMapSpec.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::runtime {

/// How one parameter is passed. Int1 is passed as one byte (0 or 1).
enum class ArgKind : uint8_t { Pointer, Int1, Int8, Int16, Int32, Int64, F16, BF16, F32, F64 };

/// "ptr", "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64".
const char *argKindName(ArgKind K);
/// Bytes the kind occupies in the parameter buffer (pointers: 8).
unsigned argKindSize(ArgKind K);

/// One kernel parameter.
struct KernelParam {
  std::string Name; ///< For messages; may be empty.
  ArgKind Kind = ArgKind::Int32;
  /// For pointers: the pointee's name ("f32"), for messages only.
  std::string Pointee;
};

/// The parameters of one kernel entry, in order.
struct KernelSignature {
  std::string Name; ///< The PTX entry name.
  std::vector<KernelParam> Params;
  /// Hidden parameters that follow Params in the PTX entry: one CUtensorMap
  /// (128 bytes, by value) per spec, encoded by Kernel::launch from the
  /// arguments of Params (see runtime/TensorMaps.h). Not part of the
  /// arguments a caller passes. (The initializer keeps brace-initialization
  /// of the first fields free of missing-initializer warnings.)
  std::vector<TensorMapSpec> TensorMaps = {};
  /// "add(ptr X, ptr Y, i32 N)".
  std::string str() const;
};

/// One argument value, stored in its natural width.
class KernelArg {
public:
  static KernelArg pointer(CuDevicePtr P) { return make(ArgKind::Pointer, &P, sizeof(P)); }
  static KernelArg i1(bool V) {
    uint8_t B = V ? 1 : 0;
    return make(ArgKind::Int1, &B, 1);
  }
  static KernelArg i8(int8_t V) { return make(ArgKind::Int8, &V, sizeof(V)); }
  static KernelArg i16(int16_t V) { return make(ArgKind::Int16, &V, sizeof(V)); }
  static KernelArg i32(int32_t V) { return make(ArgKind::Int32, &V, sizeof(V)); }
  static KernelArg i64(int64_t V) { return make(ArgKind::Int64, &V, sizeof(V)); }
  /// Half-precision values are given as their raw bits.
  static KernelArg f16Bits(uint16_t Bits) { return make(ArgKind::F16, &Bits, sizeof(Bits)); }
  static KernelArg bf16Bits(uint16_t Bits) { return make(ArgKind::BF16, &Bits, sizeof(Bits)); }
  static KernelArg f32(float V) { return make(ArgKind::F32, &V, sizeof(V)); }
  static KernelArg f64(double V) { return make(ArgKind::F64, &V, sizeof(V)); }

  ArgKind kind() const { return Kind; }
  /// Address of the value, as cuLaunchKernel's kernelParams wants it.
  void *data() { return Storage; }
  const void *data() const { return Storage; }
  /// The value as a signed integer (integers and pointers), for
  /// specialization; 0 for floats.
  int64_t asInt() const;

private:
  static KernelArg make(ArgKind K, const void *Src, unsigned Size);
  ArgKind Kind = ArgKind::Int32;
  alignas(8) unsigned char Storage[8] = {};
};

/// An argument list for one launch.
class KernelArgs {
public:
  KernelArgs() = default;
  KernelArgs(std::initializer_list<KernelArg> Init) : Args(Init) {}

  KernelArgs &add(KernelArg A) {
    Args.push_back(A);
    return *this;
  }
  KernelArgs &pointer(CuDevicePtr P) { return add(KernelArg::pointer(P)); }
  KernelArgs &i32(int32_t V) { return add(KernelArg::i32(V)); }
  KernelArgs &i64(int64_t V) { return add(KernelArg::i64(V)); }
  KernelArgs &f32(float V) { return add(KernelArg::f32(V)); }
  KernelArgs &f64(double V) { return add(KernelArg::f64(V)); }

  size_t size() const { return Args.size(); }
  const std::vector<KernelArg> &args() const { return Args; }
  /// One pointer per argument into this object's storage (valid while this
  /// object is alive and unchanged).
  std::vector<void *> pointers();

private:
  std::vector<KernelArg> Args;
};

/// Checks Args against Sig: the count, then each kind. The message names
/// the kernel and the parameter: "kernel add: argument 2 (N) is f32, the
/// parameter is i32".
Status checkArguments(const KernelSignature &Sig, const KernelArgs &Args);

/// The specialization of Args as a string for cache keys, one letter per
/// argument (as Triton specializes, plus the sign): for a pointer, 'D' when
/// the address is a multiple of 16, else 'N'; for an integer, '1' when it
/// equals 1, 'S' when it is a non-negative multiple of 16 (sizes, strides),
/// 'D' when a negative multiple of 16, 'U' when otherwise non-negative, 'N'
/// when otherwise negative; 'N' for an i1, 'F' for floats. Example: "DDSU".
std::string specializationString(const KernelArgs &Args);

} // namespace tritonc::runtime
