//===- TensorMapSpec.h - Tensor maps the launcher builds for TMA -*- C++ -*-===//
//
// On sm_90a the back end turns loads of affine pointer tiles into bulk tensor
// copies (TMA). Those read through a CUtensorMap: a 128-byte descriptor of a
// global tensor (base address, extents, strides) and of the box one copy
// moves. The descriptor depends on the launch's arguments, so the kernel gets
// it as a hidden parameter that the launcher encodes
// (cuTensorMapEncodeTiled) from the user's arguments at each launch.
//
// A TensorMapSpec says how: which pointer parameter is the base, and the
// extents and strides as polynomials over the kernel's integer parameters.
// The maps follow the user's parameters in the PTX entry, in order, each as
// `.param .align 64 .b8 pN[128]`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc {

/// Coef * (product of the integer parameters at Params, by index).
struct ParamTerm {
  int64_t Coef = 0;
  std::vector<unsigned> Params;
  bool operator==(const ParamTerm &) const = default;
};

/// A sum of terms; empty is 0.
using ParamPoly = std::vector<ParamTerm>;

/// Extent given to a dimension the kernel never bounds-checks: large enough
/// never to clip a copy of valid memory, and small enough that a copy at
/// TensorMapOutOfBounds (which the kernel uses to fill a slot with zeros)
/// lies entirely outside it.
constexpr int64_t TensorMapUnboundedDim = 0x7FFFFE00;
constexpr int32_t TensorMapOutOfBounds = 0x7FFFFF00;

struct TensorMapSpec {
  /// Index of the pointer parameter whose value is the global address.
  unsigned BaseParam = 0;
  /// CUtensorMapDataType: 1 u16, 6 f16, 9 bf16 (see CudaDriver.h).
  unsigned DataType = 6;
  unsigned ElemBytes = 2;
  /// Extents in elements, innermost (unit-stride) first. nullopt: unbounded
  /// (TensorMapUnboundedDim). A bounded extent <= 0 at launch means every
  /// element is out of bounds: the launcher then encodes a map that reads
  /// only zeros.
  std::vector<std::optional<ParamPoly>> Dims;
  /// Strides in elements of dimensions 1 .. rank-1 (dimension 0 is unit).
  std::vector<ParamPoly> Strides;
  /// The box one copy moves, innermost first, in elements of the tensor
  /// that it spans.
  std::vector<unsigned> Box;
  /// Traversal strides (cuTensorMapEncodeTiled's elementStrides), innermost
  /// first, each 1 to 8: a copy reads every E-th element of the box along a
  /// dimension of stride E, ceil(Box / E) of them. Empty: all 1 (how every
  /// map but a strided gather's is written, so that their text is as before).
  std::vector<unsigned> ElementStrides;
  /// Shared-memory swizzle of the box: 0 (none), 32, 64 or 128 bytes.
  unsigned SwizzleBytes = 0;

  unsigned rank() const { return static_cast<unsigned>(Dims.size()); }
  bool operator==(const TensorMapSpec &) const = default;

  /// One-line text form (no newlines), read back by parse(): used in the
  /// kernel cache's metadata and as a comment in the PTX.
  std::string str() const;
  static std::optional<TensorMapSpec> parse(std::string_view Text);
};

/// Evaluates P with integer parameter values Values (indexed like the
/// kernel's parameters). nullopt on overflow or an index out of range.
std::optional<int64_t> evaluate(const ParamPoly &P, const std::vector<int64_t> &Values);

/// Evaluates P with the value of parameter I given by Value(I), a
/// std::optional<int64_t> (nullopt when I names no integer parameter), so
/// that a launcher needs no vector of values. nullopt on overflow or when
/// Value fails.
template <typename ValueFn>
std::optional<int64_t> evaluateWith(const ParamPoly &P, ValueFn &&Value) {
  int64_t Sum = 0;
  for (const ParamTerm &T : P) {
    int64_t Term = T.Coef;
    for (unsigned I : T.Params) {
      std::optional<int64_t> V = Value(I);
      if (!V || __builtin_mul_overflow(Term, *V, &Term))
        return std::nullopt;
    }
    if (__builtin_add_overflow(Sum, Term, &Sum))
      return std::nullopt;
  }
  return Sum;
}

} // namespace tritonc
