//===- BoxGathers.h - The gathers lower-tensor-descs writes -----*- C++ -*-===//
//
// lower-tensor-descs lowers a desc_load that feeds a dot in a loop to a
// masked gather over the rows of its box (LowerTensorDescs.cpp), so that
// `pipeline` issues it stages ahead and `async-rings` copies it into a ring
// like any load. That gather is the box's tensor map written out: per
// dimension k, `sext(splat(c_k) + index_k) * splat(stride_k)` with the
// bounds `0 <= . < extent_k`. `tensor-copies` turns the ring's fills back
// into bulk tensor copies by recognizing that form (matchBoxGather, the
// inverse of the builder), after the pipeline computed the coordinates of
// iteration i + stages ahead; `async-rings` asks whether a `trans` operand
// is such a gather (then its ring is column-major, the slot a transposed
// bulk copy writes and wgmma reads as a K-major operand).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <optional>
#include <string>
#include <vector>

namespace tritonc::transform {

/// One box of a tensor descriptor as a gather: outermost dimension first.
struct BoxGather {
  ir::Argument *Base = nullptr;
  /// The descriptor's extents (i64, or the i32 value a sext widened) and
  /// strides (i64, elements; the innermost is 1).
  std::vector<ir::Value *> Extents, Strides;
  /// The box's first element (i32 scalars, defined before the gather).
  std::vector<ir::Value *> Coords;
  ir::Shape Box;
  /// Scalar i1 values the mask also requires (the pipeline's "the
  /// iteration runs"); the box reads as zeros unless all hold.
  std::vector<ir::Value *> Guards;
  /// The gathered tile reaches the copy through a `trans`: [cols, rows].
  bool Transposed = false;
};

/// Pointers (and Mask, may be null) as a gather of one box, or nullopt
/// with the reason in Why (if given).
std::optional<BoxGather> matchBoxGather(ir::Value *Pointers, ir::Value *Mask,
                                        std::string *Why = nullptr);

/// Whether Load (a masked_load) reads a box of a tensor descriptor.
bool isBoxGather(const ir::Instruction &Load);

} // namespace tritonc::transform
