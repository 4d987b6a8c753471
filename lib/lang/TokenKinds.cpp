//===- TokenKinds.cpp - Printable token kind names ------------------------===//
#include "tritonc/lang/Token.h"

namespace tritonc {

const char *tokenKindName(TokenKind K) {
  switch (K) {
  case TokenKind::eof:
    return "end of file";
  case TokenKind::identifier:
    return "identifier";
  case TokenKind::int_literal:
    return "integer literal";
  case TokenKind::float_literal:
    return "floating-point literal";
  case TokenKind::char_literal:
    return "character literal";
  case TokenKind::string_literal:
    return "string literal";
#define KEYWORD(Name, Spelling)                                                                    \
  case TokenKind::kw_##Name:                                                                       \
    return "'" Spelling "'";
#define PUNCT(Name, Spelling)                                                                      \
  case TokenKind::Name:                                                                            \
    return "'" Spelling "'";
#include "tritonc/lang/TokenKinds.def"
  }
  return "unknown token";
}

} // namespace tritonc
