//===- TypeRules.cpp - Triton-C front-end types and conversions -----------===//
#include "TypeRules.h"

#include "tritonc/ir/ElementCount.h"
#include "tritonc/support/Diagnostics.h"

namespace tritonc::lang {

using ast::BaseType;

bool FEType::isInt() const {
  if (PtrDepth || IsDesc)
    return false;
  switch (Base) {
  case BaseType::Bool:
  case BaseType::Char:
  case BaseType::UChar:
  case BaseType::Short:
  case BaseType::UShort:
  case BaseType::Int:
  case BaseType::UInt:
  case BaseType::Long:
  case BaseType::ULong:
    return true;
  default:
    return false;
  }
}

bool FEType::isFloat() const {
  if (PtrDepth || IsDesc)
    return false;
  switch (Base) {
  case BaseType::Half:
  case BaseType::BFloat16:
  case BaseType::Float:
  case BaseType::Double:
    return true;
  default:
    return false;
  }
}

bool FEType::isSigned() const {
  if (PtrDepth)
    return false;
  switch (Base) {
  case BaseType::Char:
  case BaseType::Short:
  case BaseType::Int:
  case BaseType::Long:
    return true;
  default:
    return isFloat();
  }
}

unsigned FEType::bits() const {
  if (PtrDepth)
    return 64;
  switch (Base) {
  case BaseType::Void:
    return 0;
  case BaseType::Bool:
    return 1;
  case BaseType::Char:
  case BaseType::UChar:
    return 8;
  case BaseType::Short:
  case BaseType::UShort:
  case BaseType::Half:
  case BaseType::BFloat16:
    return 16;
  case BaseType::Int:
  case BaseType::UInt:
  case BaseType::Float:
    return 32;
  case BaseType::Long:
  case BaseType::ULong:
  case BaseType::Double:
    return 64;
  }
  return 0;
}

static const ir::Type *baseToIR(BaseType B) {
  switch (B) {
  case BaseType::Void:
    return ir::Type::getVoid();
  case BaseType::Bool:
    return ir::Type::getI1();
  case BaseType::Char:
  case BaseType::UChar:
    return ir::Type::getInt(8);
  case BaseType::Short:
  case BaseType::UShort:
    return ir::Type::getInt(16);
  case BaseType::Int:
  case BaseType::UInt:
    return ir::Type::getI32();
  case BaseType::Long:
  case BaseType::ULong:
    return ir::Type::getI64();
  case BaseType::Half:
    return ir::Type::getF16();
  case BaseType::BFloat16:
    return ir::Type::getBF16();
  case BaseType::Float:
    return ir::Type::getF32();
  case BaseType::Double:
    return ir::Type::getF64();
  }
  return ir::Type::getVoid();
}

const ir::Type *FEType::toIR() const {
  const ir::Type *T = baseToIR(Base);
  for (unsigned I = 0; I < PtrDepth; ++I)
    T = ir::Type::getPointer(T);
  if (T->isVoid())
    reportInternalError("IR type of a void value requested");
  if (IsDesc)
    return ir::Type::getTensorDesc(T, DescBlock);
  return ir::Type::getTile(T, Shape);
}

std::string shapeStr(const ir::Shape &S) {
  std::string Out = "[";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      Out += ", ";
    Out += std::to_string(S[I]);
  }
  return Out + "]";
}

std::string FEType::str() const {
  if (IsDesc)
    return std::string("__desc ") + ast::baseTypeName(Base) + shapeStr(DescBlock);
  std::string Out = ast::baseTypeName(Base);
  Out.append(PtrDepth, '*');
  if (!Shape.empty())
    Out += shapeStr(Shape);
  return Out;
}

FEType promoteInt(const FEType &T) {
  if (!T.isInt() || T.bits() >= 32)
    return T;
  return FEType(BaseType::Int, 0, T.Shape);
}

static BaseType unsignedOf(BaseType B) {
  switch (B) {
  case BaseType::Int:
    return BaseType::UInt;
  case BaseType::Long:
    return BaseType::ULong;
  default:
    return B;
  }
}

FEType commonArithmeticType(const FEType &L0, bool WeakL, const FEType &R0, bool WeakR) {
  FEType L = L0.scalar(), R = R0.scalar();
  // Weakly typed literals first take the type of the other operand.
  if (WeakL && !WeakR) {
    if (L.isInt() == R.isInt())
      L = R;
    else if (L.isFloat() && R.isInt())
      L = FEType(BaseType::Float);
  } else if (WeakR && !WeakL) {
    if (L.isInt() == R.isInt())
      R = L;
    else if (R.isFloat() && L.isInt())
      R = FEType(BaseType::Float);
  }
  if (L.isFloat() || R.isFloat()) {
    if (!R.isFloat())
      return L;
    if (!L.isFloat())
      return R;
    if (L.Base == R.Base)
      return L;
    if (L.Base == BaseType::Double || R.Base == BaseType::Double)
      return FEType(BaseType::Double);
    // float with anything narrower, and half with bfloat16, meet in float.
    return FEType(BaseType::Float);
  }
  L = promoteInt(L);
  R = promoteInt(R);
  if (L.Base == R.Base)
    return L;
  if (L.isSigned() == R.isSigned())
    return L.bits() >= R.bits() ? L : R;
  const FEType &U = L.isSigned() ? R : L;
  const FEType &S = L.isSigned() ? L : R;
  if (U.bits() >= S.bits())
    return U;
  if (S.bits() > U.bits())
    return S;
  return FEType(unsignedOf(S.Base));
}

std::optional<ir::Shape> broadcastShapes(const ir::Shape &A, const ir::Shape &B) {
  size_t Rank = std::max(A.size(), B.size());
  ir::Shape Out(Rank);
  for (size_t I = 0; I < Rank; ++I) {
    // Index from the right: missing leading dimensions count as 1.
    int64_t DA = I < Rank - A.size() ? 1 : A[I - (Rank - A.size())];
    int64_t DB = I < Rank - B.size() ? 1 : B[I - (Rank - B.size())];
    if (DA != DB && DA != 1 && DB != 1)
      return std::nullopt;
    Out[I] = DA == 1 ? DB : DA;
  }
  return Out;
}

bool canBroadcastTo(const ir::Shape &From, const ir::Shape &To) {
  auto S = broadcastShapes(From, To);
  return S && *S == To;
}

int64_t numElements(const ir::Shape &S) {
  // Saturated: a product that wrapped (to 16, or to 0) would pass the size
  // limit and then fold or hang.
  return ir::saturatedElementCount(S);
}

FEType typeFromSpec(const ast::TypeSpec &Spec, unsigned ExtraPtrDepth, ir::Shape S) {
  if (Spec.IsDesc)
    return FEType::descriptor(Spec.Base, std::move(S));
  return FEType(Spec.Base, Spec.PointerDepth + ExtraPtrDepth, std::move(S));
}

} // namespace tritonc::lang
