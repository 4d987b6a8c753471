//===- TensorDescriptors.h - Tensor-map forms as GPU-level IR -*- C++ -*-===//
//
// What `tensor-copies` and `tensor-stores` share: turning the tensor-map form
// of an access (analysis/AffineAccess.h) into a `make_tensor_desc` in the
// entry block and the coordinates of one bulk tensor copy, and the checks
// that the copy engine and the emitter (codegen/LowerHopper.cpp) put on both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/AffineAccess.h"
#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <string>
#include <vector>

namespace tritonc::transform {

/// Why a slot of type Slot (smem<T<r, c>, #shared..>) cannot be the source
/// or destination of a bulk tensor copy, or "" if it can: row-major
/// (order [1,0]), rows as wide as a hardware swizzle mode or column blocks
/// of it (docs/IR.md; the emitter copies one box per block) of whole 8-row
/// patterns, or no swizzle with 16-byte rows and a whole number of 128-byte
/// pieces (the emitter's rule).
std::string tensorCopySlotProblem(const ir::Type *Slot);

class TensorDescriptorBuilder {
public:
  TensorDescriptorBuilder(ir::Function &F, analysis::AffineAccessAnalysis &AA,
                          const analysis::AxisInfoAnalysis &AI, const ir::DominatorTree &DT)
      : F(F), AA(AA), AI(AI), DT(DT) {}

  /// Why the engine could not use TA's tensor map whatever the arguments,
  /// or "": a 16-byte aligned base and a row stride a known multiple of 16
  /// bytes (the interpreter checks both at run time; the launcher could not
  /// encode the map otherwise).
  std::string whyNotAligned(const analysis::TensorAccess &TA, unsigned ElemBytes) const;
  /// Why the copy engine could not read boxes of Elem from the tensor map
  /// (Base, Extents, Strides; outermost first, as make_tensor_desc takes
  /// them) into slots of type Slot, whatever the arguments, or "": an f16,
  /// bf16 or f32 tensor whose base is a 16-byte aligned pointer parameter,
  /// extents and strides polynomials over the integer parameters (the
  /// launcher evaluates them), outer strides known multiples of 16 bytes,
  /// and a slot the engine writes. Desc names the descriptor in messages.
  std::string whyNotBoxCopy(const ir::Value *Base, const std::vector<ir::Value *> &Extents,
                            const std::vector<ir::Value *> &Strides, const ir::Type *Elem,
                            const ir::Type *Slot, const std::string &Desc) const;
  /// Why a box whose innermost coordinate is Inner is not proven on the GPU
  /// (the coordinate not a known multiple of 16 bytes), or "".
  std::string whyNotAlignedBoxStart(const ir::Value *Inner, unsigned ElemBytes) const;
  /// The largest power of two known to divide P's value.
  int64_t knownPow2Divisor(const analysis::Poly &P) const;
  /// Why the coordinate of a dimension of TA no mask bounds may be negative,
  /// or "". Such a dimension gets TensorMapUnboundedDim and its coordinate
  /// takes what is left of the address (a pointer into the middle of an
  /// array, an index before the base), while the copy engine zero-fills
  /// (a load) or drops (a store) a box at negative coordinates, outside the
  /// tensor: the access itself reads or writes the memory there.
  std::string whyMayBeNegative(const analysis::TensorAccess &TA) const;
  /// Whether the coordinates and guards of TA can be computed right before
  /// At (every value they read is an integer or i1 scalar defined there).
  bool availableAt(const analysis::TensorAccess &TA, const ir::Instruction &At) const;

  /// `make_tensor_desc` of TA's tensor (boxes of Box, element type Elem)
  /// before Before, an instruction of the entry block: its extents and row
  /// stride are computed there from the kernel's parameters; a dimension the
  /// mask never bounds gets TensorMapUnboundedDim.
  ir::Instruction *makeDescriptor(const analysis::TensorAccess &TA, const ir::Type *Elem,
                                  const ir::Shape &Box, ir::Instruction *Before, SourceLoc Loc);
  /// `make_tensor_desc` of boxes Box of Elem from Base with Extents and
  /// Strides (values whose polynomials over the parameters whyNotBoxCopy
  /// checked), before Before, an instruction of the entry block, where
  /// they are computed again from the parameters.
  ir::Instruction *makeBoxDescriptor(ir::Argument *Base, const std::vector<ir::Value *> &Extents,
                                     const std::vector<ir::Value *> &Strides, const ir::Type *Elem,
                                     const ir::Shape &Box, ir::Instruction *Before, SourceLoc Loc);
  /// Coords (outermost first) as i32 before Before, the innermost moved
  /// out of the tensor (TensorMapOutOfBounds: the box reads zeros) unless
  /// every guard holds.
  std::vector<ir::Value *> boxCoordinates(const std::vector<ir::Value *> &Coords,
                                          const std::vector<ir::Value *> &Guards,
                                          ir::Instruction *Before);
  /// The coordinates [outer, unit] of TA's box, computed before Before.
  /// Unless every guard and every condition in Also holds, the unit
  /// coordinate is TensorMapOutOfBounds: the box lies outside the tensor
  /// (a load reads zeros, a store writes nothing).
  std::vector<ir::Value *> coordinates(const analysis::TensorAccess &TA, ir::Instruction *Before,
                                       const std::vector<ir::Value *> &Also = {});
  /// P as an IntTy (i32 or i64) value computed before Before.
  ir::Value *polyValue(const analysis::Poly &P, const ir::Type *IntTy, ir::Instruction *Before);

private:
  ir::Instruction *insert(ir::Instruction *Before, ir::Opcode Op, const ir::Type *T,
                          std::vector<ir::Value *> Ops);

  ir::Function &F;
  analysis::AffineAccessAnalysis &AA;
  const analysis::AxisInfoAnalysis &AI;
  const ir::DominatorTree &DT;
};

} // namespace tritonc::transform
