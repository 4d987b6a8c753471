//===- Type.h - Triton-IR types --------------------------------*- C++ -*-===//
//
// Types are immutable and uniqued process-wide, so they are compared by
// pointer. A type is a scalar (void, iN, a float format, or a pointer to a
// scalar) or a tile: a scalar element type with a static shape <d0, d1, ...>.
// Text form: i1 i8 i16 i32 i64 f16 bf16 f32 f64 void, `f32*`, `i32<32,32>`,
// `f16*<64,32>` (a tile of pointers).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::ir {

enum class TypeKind : uint8_t { Void, Int, Float, Pointer, Tile };
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
  /// A tile of Elem (a non-void scalar). An empty Shape returns Elem itself.
  static const Type *getTile(const Type *Elem, const Shape &Dims);

  TypeKind getKind() const { return Kind; }
  bool isVoid() const { return Kind == TypeKind::Void; }
  bool isTile() const { return Kind == TypeKind::Tile; }
  bool isScalar() const { return Kind != TypeKind::Tile; }

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

  /// Dimensions; empty for scalars.
  const Shape &getShape() const { return Dims; }
  unsigned getRank() const { return static_cast<unsigned>(Dims.size()); }
  int64_t getNumElements() const;

  /// Same element type with another shape (empty shape: the scalar).
  const Type *withShape(const Shape &NewShape) const { return getTile(getScalarType(), NewShape); }
  /// Same shape with another element type.
  const Type *withScalar(const Type *NewScalar) const { return getTile(NewScalar, Dims); }

  std::string str() const;

private:
  friend struct TypeUniquer;
  Type() = default;
  TypeKind Kind = TypeKind::Void;
  unsigned Bits = 0;
  FloatKind FKind = FloatKind::F32;
  const Type *Elem = nullptr; ///< Pointee for pointers, element for tiles.
  Shape Dims;
};

/// "f16", "bf16", "f32", "f64".
const char *floatKindName(FloatKind K);
/// Bits of a float format.
unsigned floatKindBits(FloatKind K);
std::string shapeToString(const Shape &S); ///< "<32,32>" (empty string for scalars)

} // namespace tritonc::ir
