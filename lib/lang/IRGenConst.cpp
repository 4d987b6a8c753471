//===- IRGenConst.cpp - Constant folding and syntactic queries -----------===//
//
// Tile shapes and range bounds must be integer constant expressions. They
// are folded on the AST (after preprocessing, `TM` is already a literal):
// literals, unary + - ~ !, binary arithmetic, shifts, bitwise and logical
// operators, comparisons and ?:. Arithmetic is done in 64 bits.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

#include <algorithm>

#include <limits>

namespace tritonc::lang {

using ast::BinaryOp;

std::optional<int64_t> IRGenerator::foldInt(const ast::Expr *E, bool &Reported) {
  if (!E)
    return std::nullopt;
  switch (E->Kind) {
  case ast::ExprKind::IntLiteral:
    return static_cast<int64_t>(E->as<ast::IntLiteralExpr>()->Value);
  case ast::ExprKind::BoolLiteral:
    return E->as<ast::BoolLiteralExpr>()->Value ? 1 : 0;
  case ast::ExprKind::Unary: {
    const auto *U = E->as<ast::UnaryExpr>();
    auto V = foldInt(U->Operand.get(), Reported);
    if (!V)
      return std::nullopt;
    switch (U->Op) {
    case ast::UnaryOp::Plus:
      return *V;
    case ast::UnaryOp::Minus:
      return static_cast<int64_t>(0ull - static_cast<uint64_t>(*V));
    case ast::UnaryOp::BitNot:
      return ~*V;
    case ast::UnaryOp::Not:
      return *V == 0;
    default:
      return std::nullopt;
    }
  }
  case ast::ExprKind::Conditional: {
    const auto *C = E->as<ast::ConditionalExpr>();
    auto Cond = foldInt(C->Cond.get(), Reported);
    if (!Cond)
      return std::nullopt;
    return foldInt(*Cond ? C->Then.get() : C->Else.get(), Reported);
  }
  case ast::ExprKind::Binary: {
    const auto *Bin = E->as<ast::BinaryExpr>();
    auto L = foldInt(Bin->LHS.get(), Reported);
    if (!L)
      return std::nullopt;
    auto R = foldInt(Bin->RHS.get(), Reported);
    if (!R)
      return std::nullopt;
    uint64_t UL = static_cast<uint64_t>(*L), UR = static_cast<uint64_t>(*R);
    switch (Bin->Op) {
    case BinaryOp::Add:
      return static_cast<int64_t>(UL + UR);
    case BinaryOp::Sub:
      return static_cast<int64_t>(UL - UR);
    case BinaryOp::Mul:
      return static_cast<int64_t>(UL * UR);
    case BinaryOp::Div:
    case BinaryOp::Rem:
      if (*R == 0) {
        Diags.error(Bin->OpRange, "division by zero in constant expression");
        Reported = true;
        return std::nullopt;
      }
      if (*L == INT64_MIN && *R == -1)
        return Bin->Op == BinaryOp::Div ? *L : 0;
      return Bin->Op == BinaryOp::Div ? *L / *R : *L % *R;
    case BinaryOp::Shl:
      return *R < 0 || *R >= 64 ? 0 : static_cast<int64_t>(UL << *R);
    case BinaryOp::Shr:
      return *R < 0 || *R >= 64 ? (*L < 0 ? -1 : 0) : *L >> *R;
    case BinaryOp::BitAnd:
      return *L & *R;
    case BinaryOp::BitOr:
      return *L | *R;
    case BinaryOp::BitXor:
      return *L ^ *R;
    case BinaryOp::LT:
      return *L < *R;
    case BinaryOp::GT:
      return *L > *R;
    case BinaryOp::LE:
      return *L <= *R;
    case BinaryOp::GE:
      return *L >= *R;
    case BinaryOp::EQ:
      return *L == *R;
    case BinaryOp::NE:
      return *L != *R;
    case BinaryOp::LogicalAnd:
      return *L && *R;
    case BinaryOp::LogicalOr:
      return *L || *R;
    default:
      return std::nullopt;
    }
  }
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> IRGenerator::foldDim(const ast::Expr *E) {
  if (!E)
    return std::nullopt; // The parser reported it.
  bool Reported = false;
  auto V = foldInt(E, Reported);
  if (!V) {
    if (!Reported)
      Diags.error(E->Range, "tile shape must be a constant expression");
    return std::nullopt;
  }
  if (*V <= 0) {
    Diags.error(E->Range, "tile dimension must be positive (got " + std::to_string(*V) + ")");
    return std::nullopt;
  }
  return V;
}

std::optional<ir::Shape> IRGenerator::foldShape(const std::vector<ast::ExprPtr> &Dims,
                                                SourceRange Range) {
  ir::Shape S;
  bool Ok = true;
  for (const auto &Dim : Dims) {
    std::optional<int64_t> N = foldDim(Dim.get());
    if (N)
      S.push_back(*N);
    Ok &= N.has_value();
  }
  if (int64_t N = numElements(S); Ok && N > MaxTileElements) {
    // numElements saturates: a product past 64 bits reads as the maximum.
    bool Overflows = N == std::numeric_limits<int64_t>::max();
    Diags.error(
        Range, "tile of " + (Overflows ? "more than " + std::to_string(N) : std::to_string(N)) +
                   " elements is too large (the limit is " + std::to_string(MaxTileElements) + ")");
    Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  return S;
}

bool IRGenerator::hasSideEffects(const ast::Expr *E) {
  if (!E)
    return false;
  switch (E->Kind) {
  case ast::ExprKind::IntLiteral:
  case ast::ExprKind::FloatLiteral:
  case ast::ExprKind::BoolLiteral:
  case ast::ExprKind::StringLiteral:
  case ast::ExprKind::Ident:
    return false;
  case ast::ExprKind::Assign:
  case ast::ExprKind::MaskedDeref:
    return true;
  case ast::ExprKind::Unary: {
    const auto *U = E->as<ast::UnaryExpr>();
    switch (U->Op) {
    case ast::UnaryOp::Deref:
    case ast::UnaryOp::PreInc:
    case ast::UnaryOp::PreDec:
    case ast::UnaryOp::PostInc:
    case ast::UnaryOp::PostDec:
      return true;
    default:
      return hasSideEffects(U->Operand.get());
    }
  }
  case ast::ExprKind::Binary: {
    const auto *Bin = E->as<ast::BinaryExpr>();
    return hasSideEffects(Bin->LHS.get()) || hasSideEffects(Bin->RHS.get());
  }
  case ast::ExprKind::Conditional: {
    const auto *C = E->as<ast::ConditionalExpr>();
    return hasSideEffects(C->Cond.get()) || hasSideEffects(C->Then.get()) ||
           hasSideEffects(C->Else.get());
  }
  case ast::ExprKind::Cast:
    return hasSideEffects(E->as<ast::CastExpr>()->Operand.get());
  case ast::ExprKind::Call: {
    const auto *C = E->as<ast::CallExpr>();
    if (C->Callee.rfind("atomic_", 0) == 0 || C->Callee == "desc_load" || C->Callee == "desc_store")
      return true;
    for (const auto &A : C->Args)
      if (hasSideEffects(A.get()))
        return true;
    return false;
  }
  case ast::ExprKind::Range: {
    const auto *R = E->as<ast::RangeExpr>();
    return hasSideEffects(R->Lo.get()) || hasSideEffects(R->Hi.get());
  }
  case ast::ExprKind::Subscript:
    return hasSideEffects(E->as<ast::SubscriptExpr>()->Base.get());
  case ast::ExprKind::List: {
    const auto &Elements = E->as<ast::ListExpr>()->Elements;
    return std::any_of(Elements.begin(), Elements.end(),
                       [](const ast::ExprPtr &X) { return hasSideEffects(X.get()); });
  }
  }
  return false;
}

const ast::RangeExpr *IRGenerator::findInitRange(const ast::Expr *E) {
  if (!E)
    return nullptr;
  if (const auto *R = E->as<ast::RangeExpr>())
    return R;
  if (const auto *Bin = E->as<ast::BinaryExpr>()) {
    if (Bin->Op != BinaryOp::Add && Bin->Op != BinaryOp::Sub)
      return nullptr;
    if (const auto *R = findInitRange(Bin->LHS.get()))
      return R;
    return findInitRange(Bin->RHS.get());
  }
  return nullptr;
}

} // namespace tritonc::lang
