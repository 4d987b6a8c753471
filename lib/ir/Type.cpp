//===- Type.cpp - Uniqued Triton-IR types ---------------------------------===//
#include "tritonc/ir/Type.h"

#include "tritonc/ir/ElementCount.h"
#include "tritonc/support/Diagnostics.h"

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace tritonc::ir {

// Types are shared by every module of the process; compilations may run on
// several threads (auto-tuning), hence the mutex. Types are never freed.
struct TypeUniquer {
  std::mutex Lock;
  std::map<std::tuple<int, unsigned, int, const Type *, Shape, const Layout *, int64_t>,
           std::unique_ptr<Type>>
      Types;

  const Type *get(TypeKind K, unsigned Bits, FloatKind F, const Type *Elem, const Shape &Dims,
                  const Layout *L = nullptr, int64_t Slots = 1) {
    std::lock_guard<std::mutex> Guard(Lock);
    auto Key =
        std::make_tuple(static_cast<int>(K), Bits, static_cast<int>(F), Elem, Dims, L, Slots);
    auto &Slot = Types[Key];
    if (!Slot) {
      Slot.reset(new Type());
      Slot->Kind = K;
      Slot->Bits = Bits;
      Slot->FKind = F;
      Slot->Elem = Elem;
      Slot->Dims = Dims;
      Slot->Enc = L;
      Slot->Slots = Slots;
    }
    return Slot.get();
  }
};

static TypeUniquer &uniquer() {
  static TypeUniquer U;
  return U;
}

const Type *Type::getVoid() {
  return uniquer().get(TypeKind::Void, 0, FloatKind::F32, nullptr, {});
}

const Type *Type::getInt(unsigned Bits) {
  if (Bits != 1 && Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64)
    reportInternalError("invalid integer width " + std::to_string(Bits));
  return uniquer().get(TypeKind::Int, Bits, FloatKind::F32, nullptr, {});
}

const Type *Type::getFloat(FloatKind K) {
  return uniquer().get(TypeKind::Float, floatKindBits(K), K, nullptr, {});
}

const Type *Type::getPointer(const Type *Pointee) {
  if (!Pointee || !Pointee->isScalar() || Pointee->isVoid())
    reportInternalError("pointer to a non-scalar type");
  return uniquer().get(TypeKind::Pointer, 64, FloatKind::F32, Pointee, {});
}

static void checkTileParts(const Type *Elem, const Shape &Dims, const char *What) {
  if (!Elem || !Elem->isScalar() || Elem->isVoid())
    reportInternalError(std::string(What) + " of a non-scalar type");
  for (int64_t D : Dims)
    if (D <= 0)
      reportInternalError(std::string(What) + " dimension must be positive");
}

const Type *Type::getTile(const Type *Elem, const Shape &Dims, const Layout *L) {
  checkTileParts(Elem, Dims, "tile");
  if (Dims.empty())
    return Elem;
  return uniquer().get(TypeKind::Tile, 0, FloatKind::F32, Elem, Dims, L);
}

const Type *Type::getSharedBuffer(const Type *Elem, const Shape &SlotShape, const Layout *L,
                                  int64_t Slots) {
  checkTileParts(Elem, SlotShape, "shared buffer");
  if (SlotShape.empty() || Slots < 1)
    reportInternalError("shared buffer needs a slot shape and at least one slot");
  return uniquer().get(TypeKind::SharedBuffer, 0, FloatKind::F32, Elem, SlotShape, L, Slots);
}

const Type *Type::getTensorDesc(const Type *Elem, const Shape &Box) {
  checkTileParts(Elem, Box, "tensor descriptor");
  if (Box.empty())
    reportInternalError("tensor descriptor needs a box shape");
  return uniquer().get(TypeKind::TensorDesc, 0, FloatKind::F32, Elem, Box);
}

unsigned Type::getScalarBits() const {
  const Type *S = getScalarType();
  switch (S->Kind) {
  case TypeKind::Int:
  case TypeKind::Float:
  case TypeKind::Pointer:
    return S->Bits;
  default:
    return 0;
  }
}

unsigned Type::getScalarSizeInBytes() const {
  unsigned B = getScalarBits();
  return B == 1 ? 1 : B / 8;
}

int64_t saturatedElementCount(const Shape &S) {
  int64_t N = 1;
  for (int64_t D : S) {
    if (D <= 0)
      return 0;
    if (N > std::numeric_limits<int64_t>::max() / D)
      return std::numeric_limits<int64_t>::max();
    N *= D;
  }
  return N;
}

int64_t Type::getNumElements() const { return saturatedElementCount(Dims); }

const char *floatKindName(FloatKind K) {
  switch (K) {
  case FloatKind::F16:
    return "f16";
  case FloatKind::BF16:
    return "bf16";
  case FloatKind::F32:
    return "f32";
  case FloatKind::F64:
    return "f64";
  }
  return "f32";
}

unsigned floatKindBits(FloatKind K) {
  switch (K) {
  case FloatKind::F16:
  case FloatKind::BF16:
    return 16;
  case FloatKind::F32:
    return 32;
  case FloatKind::F64:
    return 64;
  }
  return 32;
}

std::string shapeToString(const Shape &S) {
  if (S.empty())
    return "";
  std::string Out = "<";
  for (size_t I = 0; I < S.size(); ++I) {
    if (I)
      Out += ",";
    Out += std::to_string(S[I]);
  }
  return Out + ">";
}

std::string Type::str(std::string (*Name)(const Layout *, const void *), const void *Ctx) const {
  auto LayoutText = [&](const Layout *L) { return Name ? Name(L, Ctx) : L->str(); };
  auto TileText = [&](const Type *T) {
    std::string S = T->Elem->str() + shapeToString(T->Dims);
    if (T->Enc)
      S.insert(S.size() - 1, ", " + LayoutText(T->Enc));
    return S;
  };
  switch (Kind) {
  case TypeKind::Void:
    return "void";
  case TypeKind::Int:
    return "i" + std::to_string(Bits);
  case TypeKind::Float:
    return floatKindName(FKind);
  case TypeKind::Pointer:
    return Elem->str() + "*";
  case TypeKind::Tile:
    return TileText(this);
  case TypeKind::SharedBuffer: {
    std::string S = "smem<";
    if (Slots != 1)
      S += std::to_string(Slots) + " x ";
    S += Elem->str() + shapeToString(Dims);
    if (Enc)
      S += ", " + LayoutText(Enc);
    return S + ">";
  }
  case TypeKind::TensorDesc:
    return "tdesc<" + Elem->str() + shapeToString(Dims) + ">";
  }
  return "?";
}

} // namespace tritonc::ir
