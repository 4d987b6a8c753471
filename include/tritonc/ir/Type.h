//===- Type.h - Triton-IR types --------------------------------*- C++ -*-===//
//
// Types are immutable and uniqued process-wide, so they are compared by
// pointer. A type is a scalar (void, iN, a float format, or a pointer to a
// scalar) or a tile: a scalar element type with a static shape <d0, d1, ...>.
// Text form: i1 i8 i16 i32 i64 f16 bf16 f32 f64 void, `f32*`, `i32<32,32>`,
// `f16*<64,32>` (a tile of pointers).
//
// GPU-level IR adds (docs/IR.md, "GPU level"): a tile may carry a
// distributed layout (`f32<64,64, #blocked0>`); a shared-memory buffer of
// Slots slots of one tile shape with an optional #shared layout
// (`smem<3 x f16<64,32>, #shared0>`, one slot: `smem<f16<64,32>, #shared0>`);
// and a bulk tensor copy descriptor whose box is a tile shape
// (`tdesc<f16<64,32>>`). Tiles without a layout are the machine-independent
// IR; the two GPU types are neither scalars nor tiles.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Layout.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::ir {

enum class TypeKind : uint8_t { Void, Int, Float, Pointer, Tile, SharedBuffer, TensorDesc };
enum class FloatKind : uint8_t { F16, BF16, F32, F64 };

using Shape = std::vector<int64_t>;

class Type {
public:
  static const Type *getVoid();
  /// Bits is one of 1, 8, 16, 32, 64. Integers are signless: signedness
  /// lives in the operations (sdiv/udiv, slt/ult, sext/zext).
  static const Type *getInt(unsigned Bits);
  static const Type *getI1() { return getInt(1); }
  static const Type *getI32() { return getInt(32); }
  static const Type *getI64() { return getInt(64); }
  static const Type *getFloat(FloatKind K);
  static const Type *getF16() { return getFloat(FloatKind::F16); }
  static const Type *getBF16() { return getFloat(FloatKind::BF16); }
  static const Type *getF32() { return getFloat(FloatKind::F32); }
  static const Type *getF64() { return getFloat(FloatKind::F64); }
  /// Pointer to a scalar (int, float or pointer) in global memory.
  static const Type *getPointer(const Type *Pointee);
  /// A tile of Elem (a non-void scalar), with an optional distributed
  /// layout. An empty Shape returns Elem itself (scalars have no layout).
  static const Type *getTile(const Type *Elem, const Shape &Dims, const Layout *L = nullptr);
  /// A shared-memory buffer of Slots slots of shape SlotShape (Slots >= 1),
  /// with an optional #shared layout.
  static const Type *getSharedBuffer(const Type *Elem, const Shape &SlotShape, const Layout *L,
                                     int64_t Slots = 1);
  /// A bulk tensor copy descriptor moving boxes of shape Box of Elem.
  static const Type *getTensorDesc(const Type *Elem, const Shape &Box);

  TypeKind getKind() const { return Kind; }
  bool isVoid() const { return Kind == TypeKind::Void; }
  bool isTile() const { return Kind == TypeKind::Tile; }
  bool isSharedBuffer() const { return Kind == TypeKind::SharedBuffer; }
  bool isTensorDesc() const { return Kind == TypeKind::TensorDesc; }
  bool isScalar() const {
    return Kind != TypeKind::Tile && Kind != TypeKind::SharedBuffer && Kind != TypeKind::TensorDesc;
  }

  /// The element type of a tile, or the type itself for scalars.
  const Type *getScalarType() const { return isTile() ? Elem : this; }
  bool isIntOrIntTile() const { return getScalarType()->Kind == TypeKind::Int; }
  bool isFloatOrFloatTile() const { return getScalarType()->Kind == TypeKind::Float; }
  bool isPointerOrPointerTile() const { return getScalarType()->Kind == TypeKind::Pointer; }
  bool isBoolOrBoolTile() const { return isIntOrIntTile() && getScalarType()->Bits == 1; }

  /// Bit width of an int scalar/tile element.
  unsigned getIntBits() const { return getScalarType()->Bits; }
  FloatKind getFloatKind() const { return getScalarType()->FKind; }
  /// Pointee of a pointer scalar/tile element.
  const Type *getPointee() const { return getScalarType()->Elem; }
  /// Size in bytes of one element (pointers are 8 bytes, i1 is 1 byte).
  unsigned getScalarSizeInBytes() const;
  /// Number of bits of the element's storage (i1 counts 1, pointers 64).
  unsigned getScalarBits() const;

  /// Dimensions; empty for scalars. Shared buffers: the shape of one slot;
  /// tensor descriptors: the box.
  const Shape &getShape() const { return Dims; }
  unsigned getRank() const { return static_cast<unsigned>(Dims.size()); }
  int64_t getNumElements() const;

  /// Same element type with another shape (empty shape: the scalar); the
  /// result has no layout.
  const Type *withShape(const Shape &NewShape) const { return getTile(getScalarType(), NewShape); }
  /// Same shape and layout with another element type.
  const Type *withScalar(const Type *NewScalar) const { return getTile(NewScalar, Dims, Enc); }

  /// Layout of a tile or shared buffer (null: none).
  const Layout *getLayout() const { return Enc; }
  /// Same tile with another layout (null: the layout-free tile).
  const Type *withLayout(const Layout *L) const { return getTile(Elem, Dims, L); }
  /// Element type of a shared buffer or tensor descriptor.
  const Type *getElementType() const { return Elem; }
  /// Slots of a shared buffer (1 for a single buffer or one slot of a ring).
  int64_t getNumSlots() const { return Slots; }
  /// The layout-free tile of one slot / one box (shared buffers, descriptors).
  const Type *getSlotTileType() const { return getTile(Elem, Dims); }

  /// Text form. Layouts print inline, or through Name (the printer's
  /// module-level aliases).
  std::string str(std::string (*Name)(const Layout *, const void *) = nullptr,
                  const void *Ctx = nullptr) const;

private:
  friend struct TypeUniquer;
  Type() = default;
  TypeKind Kind = TypeKind::Void;
  unsigned Bits = 0;
  FloatKind FKind = FloatKind::F32;
  const Type *Elem = nullptr; ///< Pointee for pointers, element for tiles and GPU types.
  Shape Dims;
  const Layout *Enc = nullptr; ///< Tiles and shared buffers.
  int64_t Slots = 1;           ///< Shared buffers.
};

/// "f16", "bf16", "f32", "f64".
const char *floatKindName(FloatKind K);
/// Bits of a float format.
unsigned floatKindBits(FloatKind K);
std::string shapeToString(const Shape &S); ///< "<32,32>" (empty string for scalars)

} // namespace tritonc::ir
