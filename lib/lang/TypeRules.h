//===- TypeRules.h - Triton-C front-end types and conversions --*- C++ -*-===//
//
// Triton-IR integers are signless, but Triton-C needs signedness to choose
// between sdiv/udiv, slt/ult, sext/zext... so IRGen carries its own type:
// a base scalar (with signedness), a pointer depth and a tile shape. This
// file holds the pure type rules: C integer promotions and usual arithmetic
// conversions (with Triton's weakly typed literals) and broadcasting of
// shapes. Emitting the conversions is IRGen's job.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Type.h"
#include "tritonc/lang/AST.h"

#include <optional>
#include <string>

namespace tritonc::lang {

/// A Triton-C type: `Base` with `PtrDepth` stars, as a tile of `Shape` (empty
/// for scalars). `float *p[16]` is {Float, 1, [16]}.
struct FEType {
  ast::BaseType Base = ast::BaseType::Int;
  unsigned PtrDepth = 0;
  ir::Shape Shape;
  /// A tensor descriptor (`__desc`) of Base elements moving blocks of
  /// DescBlock: neither arithmetic, a pointer nor a tile (Shape is empty).
  bool IsDesc = false;
  ir::Shape DescBlock;

  FEType() = default;
  FEType(ast::BaseType B, unsigned Depth = 0, ir::Shape S = {})
      : Base(B), PtrDepth(Depth), Shape(std::move(S)) {}

  bool isVoid() const { return PtrDepth == 0 && Base == ast::BaseType::Void; }
  bool isPointer() const { return PtrDepth != 0; }
  bool isTile() const { return !Shape.empty(); }
  /// Integer element (bool included), not a pointer.
  bool isInt() const;
  bool isBool() const { return PtrDepth == 0 && Base == ast::BaseType::Bool; }
  bool isFloat() const;
  bool isArithmetic() const { return isInt() || isFloat(); }
  bool isSigned() const;
  /// Width in bits of an integer or float element.
  unsigned bits() const;

  /// The element type (shape dropped; a descriptor stays one).
  FEType scalar() const { return withShape({}); }
  FEType withShape(ir::Shape S) const {
    FEType T = *this;
    T.Shape = std::move(S);
    return T;
  }
  static FEType descriptor(ast::BaseType Elem, ir::Shape Block) {
    FEType T(Elem);
    T.IsDesc = true;
    T.DescBlock = std::move(Block);
    return T;
  }
  /// The pointee of a pointer (keeps the shape).
  FEType pointee() const { return FEType(Base, PtrDepth - 1, Shape); }
  FEType pointerTo() const { return FEType(Base, PtrDepth + 1, Shape); }

  const ir::Type *toIR() const;
  /// C spelling: "int", "float*", "half[16, 16]", "unsigned int".
  std::string str() const;

  bool sameElement(const FEType &O) const {
    return Base == O.Base && PtrDepth == O.PtrDepth && IsDesc == O.IsDesc &&
           DescBlock == O.DescBlock;
  }
  bool operator==(const FEType &O) const = default;
};

/// "[32, 16]"
std::string shapeStr(const ir::Shape &S);

/// C integer promotion of an element type: bool, char and short (signed or
/// not) become int; other types are unchanged.
FEType promoteInt(const FEType &T);

/// The element type both operands of an arithmetic binary operator are
/// converted to. `WeakL`/`WeakR` mark unsuffixed literals, which adopt the
/// other operand's type when it is of the same family (int or float); an
/// unsuffixed floating literal meeting a (non-literal) integer becomes float.
/// Integer results are promoted (so `char + char` is int, as in C).
FEType commonArithmeticType(const FEType &L, bool WeakL, const FEType &R, bool WeakR);

/// Broadcasts two shapes (numpy rules: left-pad the shorter with 1s, then
/// each pair of dimensions must be equal or contain a 1). nullopt if they
/// cannot be broadcast.
std::optional<ir::Shape> broadcastShapes(const ir::Shape &A, const ir::Shape &B);

/// True when a value of shape From can be broadcast to exactly shape To.
bool canBroadcastTo(const ir::Shape &From, const ir::Shape &To);

/// The number of elements of a shape (1 for scalars).
int64_t numElements(const ir::Shape &S);

/// Largest tile the front end accepts, declared or produced by broadcasting.
constexpr int64_t MaxTileElements = int64_t(1) << 24;

/// The front-end type of a type specifier with extra stars and a shape.
FEType typeFromSpec(const ast::TypeSpec &Spec, unsigned ExtraPtrDepth = 0, ir::Shape S = {});

} // namespace tritonc::lang
