//===- Lexer.h - Triton-C lexer ---------------------------------*- C++ -*-===//
//
// Turns the text of one buffer into tokens, on demand. Comments and
// backslash-newline continuations are handled here; directives are not (the
// preprocessor drives the lexer line by line). Lexical errors become
// diagnostics and lexing goes on: the bad character is skipped, and a bad
// literal still yields a token whose Text is a harmless valid spelling
// ("0", "0.0", "'\0'") so later stages do not report it a second time.
//
// Token spellings are kept exactly as written (quotes and suffixes
// included): "0x2A", "1.0f", "'a'", "\"f.h\"". After `#include`, a header
// name `<f.h>` is lexed as one string_literal token whose Text is "<f.h>".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/Token.h"
#include "tritonc/support/Diagnostics.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tritonc {

class Lexer {
public:
  /// Lexes the whole buffer File of SM. Diags may be null (no diagnostics).
  Lexer(const SourceManager &SM, FileId File, DiagnosticEngine *Diags);
  /// Lexes Text, which is spelled in buffer File starting at (Line, Col).
  Lexer(std::string_view Text, FileId File, DiagnosticEngine *Diags, uint32_t Line = 1,
        uint32_t Col = 1);

  /// Returns the next token; an eof token once the text is exhausted.
  Token lex();
  /// Skips whitespace and comments; true when the next token starts a new
  /// line or there is none (used to find the end of a directive).
  bool atStartOfLineOrEnd();
  /// Lexes the remaining tokens of the current line.
  std::vector<Token> lexRestOfLine();
  /// Consumes the rest of the current line without tokenizing it (comments
  /// become spaces) and returns it trimmed; for #error and #pragma.
  std::string readRestOfLineRaw();

  /// Diagnostics are switched off while the preprocessor skips a block.
  void setDiagnosticsEnabled(bool Enabled) { DiagsEnabled = Enabled; }
  /// True once any lexical error was seen (even with diagnostics off).
  bool hadError() const { return HadError; }
  /// The location of the next character.
  SourceLoc currentLoc() const { return SourceLoc{File, Line, Col}; }

  /// Lexes a whole buffer (convenience for tests and tools), eof included.
  static std::vector<Token> lexAll(const SourceManager &SM, FileId File, DiagnosticEngine &Diags);
  /// True when Text is exactly one valid token (used by `##`); sets Out.
  static bool lexSingleToken(std::string_view Text, Token &Out);
  /// The keyword kind for a spelling, or TokenKind::identifier.
  static TokenKind identifierKind(std::string_view Spelling);

private:
  /// A copy of the text: SourceManager may move its buffers when it grows.
  std::string Buf;
  size_t Pos = 0;
  FileId File;
  uint32_t Line;
  uint32_t Col;
  DiagnosticEngine *Diags;
  bool DiagsEnabled = true;
  bool HadError = false;
  bool NextAtStartOfLine = true;
  bool NextHasSpace = false;
  /// Tracks `# include` at the start of a line so that `<...>` after it is
  /// lexed as a header name.
  enum class IncludeState { None, SawHash, SawInclude } IncState = IncludeState::None;

  bool atEnd() const { return Pos >= Buf.size(); }
  char peek(unsigned Ahead = 0) const;
  void advance();
  void skipSplices();
  void skipTrivia(bool StopAtNewline = false);
  void skipBlockComment();
  void error(SourceLoc Begin, std::string Message);
  void error(SourceLoc Begin, SourceLoc End, std::string Message);

  void lexIdentifier(Token &T);
  void lexNumber(Token &T);
  /// Consumes a quoted literal up to its closing Quote, stopping at the end
  /// of the line. Returns the spelling read, quotes included, and sets Closed.
  std::string scanQuoted(char Quote, bool &Closed);
  void lexCharLiteral(Token &T);
  void lexStringLiteral(Token &T);
  bool lexHeaderName(Token &T);
  bool lexPunctuator(Token &T);
};

/// Value of an integer literal spelling ("42", "0x2A", "017", "42ul").
/// Returns nullopt when it does not fit in 64 bits or is malformed.
/// IsUnsigned (optional) is set when the literal has a `u` suffix.
std::optional<uint64_t> parseIntegerLiteral(std::string_view Spelling, bool *IsUnsigned = nullptr);

/// Value of a character literal spelling including its quotes ("'a'",
/// "'\\n'", "'\\x41'"); nullopt unless it denotes exactly one character.
std::optional<uint32_t> charLiteralValue(std::string_view Spelling);

/// Text of a string literal spelling including its quotes, escapes decoded
/// (characters above 0xFF are an error); nullopt when malformed.
std::optional<std::string> stringLiteralValue(std::string_view Spelling);

} // namespace tritonc
