//===- Token.h - Triton-C tokens -------------------------------*- C++ -*-===//
#pragma once

#include "tritonc/support/SourceManager.h"

#include <cstdint>
#include <string>

namespace tritonc {

enum class TokenKind : uint8_t {
#define TOK(Name) Name,
#include "tritonc/lang/TokenKinds.def"
};

/// Printable name of a token kind ("identifier", "'+'", "'for'").
const char *tokenKindName(TokenKind K);

/// One token after preprocessing. Loc is where its characters are spelled;
/// for tokens produced by a macro expansion, ExpansionLoc is the location of
/// the outermost macro use (diagnostics point there and add a note).
struct Token {
  TokenKind Kind = TokenKind::eof;
  std::string Text; ///< Exact spelling (identifier name, literal text, ...).
  SourceLoc Loc;
  SourceLoc ExpansionLoc;     ///< Invalid unless the token comes from a macro.
  bool AtStartOfLine = false; ///< First token on its line (directives).
  bool HasLeadingSpace = false;

  bool is(TokenKind K) const { return Kind == K; }
  bool isNot(TokenKind K) const { return Kind != K; }
  /// Where diagnostics about this token should point.
  SourceLoc diagLoc() const { return ExpansionLoc.isValid() ? ExpansionLoc : Loc; }
  /// The range covered by this token's spelling at diagLoc().
  SourceRange range() const {
    SourceLoc B = diagLoc();
    SourceLoc E = B;
    E.Col += ExpansionLoc.isValid() ? 1 : static_cast<uint32_t>(Text.size() ? Text.size() : 1);
    return SourceRange(B, E);
  }
};

} // namespace tritonc
