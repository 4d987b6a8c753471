//===- TensorMaps.h - Tensor maps encoded at launch -------------*- C++ -*-===//
//
// A kernel whose signature has TensorMaps gets one CUtensorMap per spec as
// a hidden parameter after the user's. Kernel::launch builds them in two
// steps: planTensorMap, a pure function of the spec and the arguments that
// checks every rule of cuTensorMapEncodeTiled it can check on the host and
// returns the call's arguments (unit-tested without a GPU), then
// encodeTensorMap, the driver call. The launcher re-encodes a map only when
// its plan changes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/CudaDriver.h"
#include "tritonc/runtime/KernelSignature.h"

#include <array>
#include <cstdint>

namespace tritonc::runtime {

/// The highest rank cuTensorMapEncodeTiled accepts.
constexpr unsigned MaxTensorMapRank = 5;

/// The arguments of one cuTensorMapEncodeTiled call (interleave none, L2
/// promotion 128 bytes, out-of-bounds fill zeros).
/// Two plans that compare equal encode the same map.
struct TensorMapPlan {
  /// Some bounded extent is <= 0, so that every element is out of bounds:
  /// the map is encoded over CudaDriver::zeroBlock() (Base stays 0 here),
  /// every extent 1 and every stride 16 bytes, so that all copies read
  /// zeros, which is what the kernel's masks would produce.
  bool ZeroMap = false;
  unsigned Rank = 0;
  unsigned DataType = 0; ///< CUtensorMapDataType.
  int Swizzle = 0;       ///< CUtensorMapSwizzle (cu::TensorMapSwizzle*).
  CuDevicePtr Base = 0;
  /// Extents, innermost first (entries past Rank are 0).
  std::array<uint64_t, MaxTensorMapRank> Dims{};
  /// Strides in bytes of dimensions 1 .. Rank-1.
  std::array<uint64_t, MaxTensorMapRank - 1> ByteStrides{};
  std::array<uint32_t, MaxTensorMapRank> Box{};
  /// Traversal strides, innermost first (the spec's, or 1).
  std::array<uint32_t, MaxTensorMapRank> ElementStrides{1, 1, 1, 1, 1};

  bool operator==(const TensorMapPlan &) const = default;
};

/// Plans the map Sig.TensorMaps[Index] for Args (already checked against
/// Sig). A spec's traversal strides must be 1 to 8, and 1 innermost (the
/// engine ignores that one). Extents come from the spec's polynomials over the integer
/// arguments (nullopt: TensorMapUnboundedDim), strides are their values
/// times ElemBytes. Errors name the kernel and the base parameter: a spec
/// that is not well formed (rank, box, swizzle, data type, parameter
/// indices), an overflow, a bounded extent above TensorMapUnboundedDim, a
/// stride that is negative, not a multiple of 16 bytes or not below 2^40
/// bytes, a base address that is not 16-byte aligned. A zero map checks
/// neither strides nor base: it reads neither.
Expected<TensorMapPlan> planTensorMap(const KernelSignature &Sig, unsigned Index,
                                      const KernelArgs &Args);

/// Encodes P into Map with D's cuTensorMapEncodeTiled; a zero map reads
/// D.zeroBlock(). Fails when the driver lacks the call (before CUDA 12.0)
/// or rejects the arguments; the message names the kernel and the base
/// parameter of Sig.TensorMaps[Index].
Status encodeTensorMap(CudaDriver &D, const KernelSignature &Sig, unsigned Index,
                       const TensorMapPlan &P, CuTensorMap &Map);

} // namespace tritonc::runtime
