//===- IRGenDebug.cpp - print and assert ----------------------------------===//
//
// `print("format", values...)` and `assert(cond, "message")` exist for
// debugging: they become IR only when the compilation asks for it
// (--debug, debug=True). Otherwise their arguments are still checked, and the
// instructions that computed them are removed again, so that a release
// kernel is the same code with or without them.
//
// The IR's print takes canonical operands, which the interpreter and the
// GPU's vprintf both read the same way: integers as i32 (or i64, with `ll`
// added to the conversion), floating values as f64, pointers as pointers;
// tiles broadcast to one shape, and a line is printed per lane.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace tritonc::lang {

using namespace ir;
using ast::BaseType;

namespace {

/// One `%...` conversion of a print format.
struct Conversion {
  size_t Begin, End; ///< [Begin, End) in the format, '%' to the conversion letter.
  char Letter;
};

/// Splits Format into conversions; Error names the first bad one.
bool parseFormat(const std::string &Format, std::vector<Conversion> &Out, std::string &Error) {
  for (size_t I = 0; I < Format.size(); ++I) {
    if (Format[I] != '%')
      continue;
    if (I + 1 < Format.size() && Format[I + 1] == '%') {
      ++I;
      continue;
    }
    size_t J = I + 1;
    while (J < Format.size() && std::string_view("-+ #0").find(Format[J]) != std::string::npos)
      ++J;
    while (J < Format.size() &&
           (std::isdigit(static_cast<unsigned char>(Format[J])) || Format[J] == '.'))
      ++J;
    if (J >= Format.size() ||
        std::string_view("diuxXfeEgGcp").find(Format[J]) == std::string::npos) {
      Error = "unsupported conversion '" + Format.substr(I, J + 1 - I) +
              "' in the format of 'print' (use %d %i %u %x %X %c for integers, %f %e %g for "
              "floating values, %p for pointers, %% for '%'; no length modifiers)";
      return false;
    }
    Out.push_back(Conversion{I, J + 1, Format[J]});
    I = J;
  }
  return true;
}

} // namespace

TValue IRGenerator::genDebugCall(const ast::CallExpr &E) {
  bool IsAssert = E.Callee == "assert";
  if (!checkArity(E, IsAssert ? 2 : 1, IsAssert ? 2 : 1000)) {
    for (const auto &A : E.Args)
      if (!A || A->Kind != ast::ExprKind::StringLiteral)
        genExpr(A.get());
    return TValue::error();
  }
  const ast::Expr *TextArg = E.Args[IsAssert ? 1 : 0].get();
  const auto *Text = TextArg ? TextArg->as<ast::StringLiteralExpr>() : nullptr;
  if (!Text) {
    Diags.error(TextArg ? TextArg->Range : E.Range,
                IsAssert ? "the message of 'assert' must be a string literal"
                         : "the format of 'print' must be a string literal");
    return TValue::error();
  }
  // Values: everything but the string. Side effects other than loads would
  // differ between debug and release builds.
  std::vector<const ast::Expr *> ValueExprs;
  for (const auto &A : E.Args)
    if (A.get() != TextArg)
      ValueExprs.push_back(A.get());
  for (const ast::Expr *V : ValueExprs)
    if (hasWrites(V)) {
      Diags.error(V->Range, "the arguments of '" + E.Callee +
                                "' cannot assign or make atomic updates: they are not evaluated "
                                "without --debug");
      return TValue::error();
    }
  BasicBlock *Block = curBlock();
  const Instruction *Last = Block->empty() ? nullptr : Block->back();
  TValue Result = IsAssert ? emitAssert(E, *ValueExprs.front(), Text->Value)
                           : emitPrint(E, ValueExprs, Text->Value);
  if (!Debug && curBlock() == Block) {
    // Release: drop what the arguments appended to the block, last first
    // (each is used only by those after it). Values placed at the start of
    // the block (phis, undefined tiles of variables) may be variables'
    // definitions now and stay.
    std::vector<Instruction *> Fresh;
    bool After = Last == nullptr;
    for (const auto &I : Block->instructions()) {
      bool AtStart = I->getOpcode() == Opcode::Phi ||
                     (I->getOpcode() == Opcode::Splat && asConstant(I->getOperand(0)) &&
                      asConstant(I->getOperand(0))->isUndef());
      if (After && !AtStart)
        Fresh.push_back(I.get());
      After = After || I.get() == Last;
    }
    for (auto It = Fresh.rbegin(); It != Fresh.rend(); ++It)
      if (!(*It)->hasUses())
        (*It)->eraseFromParent();
  }
  return Result.Error ? Result : TValue::voidValue();
}

bool IRGenerator::hasWrites(const ast::Expr *E) {
  if (!E)
    return false;
  switch (E->Kind) {
  case ast::ExprKind::Assign:
    return true;
  case ast::ExprKind::Unary: {
    const auto *U = E->as<ast::UnaryExpr>();
    return U->Op == ast::UnaryOp::PreInc || U->Op == ast::UnaryOp::PreDec ||
           U->Op == ast::UnaryOp::PostInc || U->Op == ast::UnaryOp::PostDec ||
           hasWrites(U->Operand.get());
  }
  case ast::ExprKind::Binary:
    return hasWrites(E->as<ast::BinaryExpr>()->LHS.get()) ||
           hasWrites(E->as<ast::BinaryExpr>()->RHS.get());
  case ast::ExprKind::Conditional: {
    const auto *C = E->as<ast::ConditionalExpr>();
    return hasWrites(C->Cond.get()) || hasWrites(C->Then.get()) || hasWrites(C->Else.get());
  }
  case ast::ExprKind::Cast:
    return hasWrites(E->as<ast::CastExpr>()->Operand.get());
  case ast::ExprKind::Call: {
    const auto *C = E->as<ast::CallExpr>();
    if (C->Callee.rfind("atomic_", 0) == 0 || C->Callee == "print" || C->Callee == "assert" ||
        C->Callee == "desc_store")
      return true;
    return std::any_of(C->Args.begin(), C->Args.end(),
                       [](const ast::ExprPtr &A) { return hasWrites(A.get()); });
  }
  case ast::ExprKind::Subscript:
    return hasWrites(E->as<ast::SubscriptExpr>()->Base.get());
  case ast::ExprKind::MaskedDeref:
    return hasWrites(E->as<ast::MaskedDerefExpr>()->Mask.get()) ||
           hasWrites(E->as<ast::MaskedDerefExpr>()->Pointer.get());
  case ast::ExprKind::List: {
    const auto &Elements = E->as<ast::ListExpr>()->Elements;
    return std::any_of(Elements.begin(), Elements.end(),
                       [](const ast::ExprPtr &X) { return hasWrites(X.get()); });
  }
  default:
    return false;
  }
}

TValue IRGenerator::emitAssert(const ast::CallExpr &E, const ast::Expr &CondExpr,
                               const std::string &Message) {
  TValue C = genExpr(&CondExpr);
  if (C.Error)
    return C;
  if (!C.T.isArithmetic() && !C.T.isPointer()) {
    Diags.error(CondExpr.Range, "condition of 'assert' has type '" + C.T.str() + "'");
    return TValue::error();
  }
  at(E.Range);
  C = toBool(C, CondExpr.Range);
  if (C.Error || !Debug)
    return C;
  at(E.Range);
  Instruction *I = B.create(Opcode::Assert, Type::getVoid(), {C.V});
  I->Text = Message;
  return C;
}

TValue IRGenerator::emitPrint(const ast::CallExpr &E, const std::vector<const ast::Expr *> &Exprs,
                              const std::string &Format) {
  std::vector<Conversion> Convs;
  std::string Error;
  if (!parseFormat(Format, Convs, Error)) {
    Diags.error(E.Args[0]->Range, Error);
    return TValue::error();
  }
  if (Convs.size() != Exprs.size()) {
    Diags.error(E.Args[0]->Range, "the format of 'print' has " + std::to_string(Convs.size()) +
                                      " conversions but " + std::to_string(Exprs.size()) +
                                      (Exprs.size() == 1 ? " value was" : " values were") +
                                      " given");
    return TValue::error();
  }
  std::vector<TValue> Values;
  Shape Common;
  for (size_t K = 0; K < Exprs.size(); ++K) {
    TValue V = genExpr(Exprs[K]);
    if (V.Error)
      return V;
    char L = Convs[K].Letter;
    bool WantsPointer = L == 'p',
         WantsFloat = std::string_view("feEgG").find(L) != std::string::npos;
    bool Fits = WantsPointer ? V.T.isPointer()
                : WantsFloat ? V.T.isArithmetic()
                             : V.T.isArithmetic() && !V.T.isFloat();
    if (V.isVoid() || !Fits) {
      Diags.error(Exprs[K]->Range,
                  "'%" + std::string(1, L) + "' cannot print a value of type '" + V.T.str() + "'");
      return TValue::error();
    }
    auto S = broadcastShapes(Common, V.T.Shape);
    if (!S) {
      Diags.error(Exprs[K]->Range, "cannot broadcast the values of 'print' (shapes " +
                                       shapeStr(Common) + " and " + shapeStr(V.T.Shape) + ")");
      return TValue::error();
    }
    Common = *S;
    // Canonical types: what C's variadic promotions (and vprintf) expect.
    at(Exprs[K]->Range);
    if (WantsFloat)
      V = convert(V, FEType(BaseType::Double), Exprs[K]->Range);
    else if (!WantsPointer && V.T.bits() < 64)
      V = convert(V, promoteInt(V.T.scalar()), Exprs[K]->Range);
    Values.push_back(V);
  }
  if (!Debug)
    return TValue::voidValue();
  // `ll` for 64-bit integers, so that the GPU's vprintf reads 8 bytes.
  std::string Canonical;
  size_t Pos = 0;
  for (size_t K = 0; K < Convs.size(); ++K) {
    Canonical += Format.substr(Pos, Convs[K].End - 1 - Pos);
    bool Wide = !Values[K].T.isPointer() && Values[K].T.isInt() && Values[K].T.bits() == 64;
    Canonical += (Wide ? "ll" : "") + std::string(1, Convs[K].Letter);
    Pos = Convs[K].End;
  }
  Canonical += Format.substr(Pos);
  std::vector<Value *> Ops;
  for (TValue &V : Values) {
    if (V.T.isTile())
      V = broadcastTo(V, Common);
    Ops.push_back(V.V);
  }
  at(E.Range);
  Instruction *I = B.create(Opcode::Print, Type::getVoid(), Ops);
  I->Text = Canonical;
  return TValue::voidValue();
}

} // namespace tritonc::lang
