//===- OperatorPrecedence.h - C binary operator levels (private) -*- C++ -*-===//
//
// The precedence of C's binary operators, shared by the #if evaluator and the
// Triton-C parser so that both group `a + b << c == d` the same way. The
// conditional, assignment and comma operators sit above these levels and are
// parsed separately.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/Token.h"

namespace tritonc {

/// The level of `*`, `/` and `%`, the tightest binary operators of C.
constexpr int MultiplicativePrecedence = 10;

/// Precedence of K as a C binary operator (higher binds tighter, all levels
/// left-associative); 0 when K is not one.
inline int cBinaryPrecedence(TokenKind K) {
  switch (K) {
  case TokenKind::pipepipe:
    return 1;
  case TokenKind::ampamp:
    return 2;
  case TokenKind::pipe:
    return 3;
  case TokenKind::caret:
    return 4;
  case TokenKind::amp:
    return 5;
  case TokenKind::equalequal:
  case TokenKind::exclaimequal:
    return 6;
  case TokenKind::less:
  case TokenKind::greater:
  case TokenKind::lessequal:
  case TokenKind::greaterequal:
    return 7;
  case TokenKind::lessless:
  case TokenKind::greatergreater:
    return 8;
  case TokenKind::plus:
  case TokenKind::minus:
    return 9;
  case TokenKind::star:
  case TokenKind::slash:
  case TokenKind::percent:
    return MultiplicativePrecedence;
  default:
    return 0;
  }
}

} // namespace tritonc
