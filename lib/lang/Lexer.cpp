//===- Lexer.cpp - Triton-C lexer -----------------------------------------===//
#include "tritonc/lang/Lexer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <unordered_map>

namespace tritonc {

namespace {

bool isIdentStart(char C) { return std::isalpha(static_cast<unsigned char>(C)) || C == '_'; }
bool isIdentChar(char C) { return std::isalnum(static_cast<unsigned char>(C)) || C == '_'; }
bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isHexDigit(char C) { return std::isxdigit(static_cast<unsigned char>(C)) != 0; }
bool isHorizontalSpace(char C) {
  return C == ' ' || C == '\t' || C == '\r' || C == '\f' || C == '\v';
}

/// Position of the first character at or after P that is not part of a
/// backslash-newline continuation.
size_t skipSplicesAt(std::string_view Buf, size_t P) {
  while (P < Buf.size() && Buf[P] == '\\') {
    size_t N = P + 1;
    if (N < Buf.size() && Buf[N] == '\r')
      ++N;
    if (N < Buf.size() && Buf[N] == '\n')
      P = N + 1;
    else
      break;
  }
  return P;
}

struct PunctSpelling {
  std::string_view Spelling;
  TokenKind Kind;
};

/// Punctuators, longest first, so that the first match is the longest one.
const std::vector<PunctSpelling> &punctuators() {
  static const std::vector<PunctSpelling> Table = [] {
    std::vector<PunctSpelling> T = {
#define PUNCT(Name, Spelling) {Spelling, TokenKind::Name},
#include "tritonc/lang/TokenKinds.def"
    };
    std::stable_sort(T.begin(), T.end(), [](const PunctSpelling &A, const PunctSpelling &B) {
      return A.Spelling.size() > B.Spelling.size();
    });
    return T;
  }();
  return Table;
}

/// The punctuators by first character, longest first within each.
const std::vector<PunctSpelling> &punctuatorsStartingWith(char C) {
  static const std::array<std::vector<PunctSpelling>, 256> Table = [] {
    std::array<std::vector<PunctSpelling>, 256> T;
    for (const PunctSpelling &P : punctuators())
      T[static_cast<unsigned char>(P.Spelling[0])].push_back(P);
    return T;
  }();
  return Table[static_cast<unsigned char>(C)];
}

/// Decodes the characters between the quotes of a character literal.
/// Returns false on an unknown escape (its spelling goes to BadEscape).
bool decodeCharBody(std::string_view Body, std::vector<uint32_t> &Chars, std::string &BadEscape) {
  size_t I = 0;
  while (I < Body.size()) {
    char C = Body[I++];
    if (C != '\\') {
      Chars.push_back(static_cast<unsigned char>(C));
      continue;
    }
    if (I >= Body.size()) {
      BadEscape = "\\";
      return false;
    }
    char E = Body[I++];
    switch (E) {
    case 'n':
      Chars.push_back('\n');
      break;
    case 't':
      Chars.push_back('\t');
      break;
    case 'r':
      Chars.push_back('\r');
      break;
    case 'a':
      Chars.push_back('\a');
      break;
    case 'b':
      Chars.push_back('\b');
      break;
    case 'f':
      Chars.push_back('\f');
      break;
    case 'v':
      Chars.push_back('\v');
      break;
    case '\\':
    case '\'':
    case '"':
    case '?':
      Chars.push_back(static_cast<unsigned char>(E));
      break;
    case 'x': {
      uint32_t V = 0;
      size_t Start = I;
      while (I < Body.size() && isHexDigit(Body[I])) {
        char H = Body[I++];
        V = V * 16 + static_cast<uint32_t>(isDigit(H) ? H - '0' : (std::tolower(H) - 'a' + 10));
        V &= 0xFFFFFFu; // keep it bounded; only one-byte values are meaningful
      }
      if (I == Start) {
        BadEscape = "\\x";
        return false;
      }
      Chars.push_back(V);
      break;
    }
    default:
      if (E >= '0' && E <= '7') {
        uint32_t V = static_cast<uint32_t>(E - '0');
        for (int K = 0; K < 2 && I < Body.size() && Body[I] >= '0' && Body[I] <= '7'; ++K)
          V = V * 8 + static_cast<uint32_t>(Body[I++] - '0');
        Chars.push_back(V);
        break;
      }
      BadEscape = std::string("\\") + E;
      return false;
    }
  }
  return true;
}

bool isValidIntSuffix(std::string_view S) {
  std::string L;
  for (char C : S)
    L += static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
  return L.empty() || L == "u" || L == "l" || L == "ul" || L == "lu" || L == "ll" || L == "ull" ||
         L == "llu";
}

bool isValidFloatSuffix(std::string_view S) {
  return S.empty() || S == "f" || S == "F" || S == "l" || S == "L";
}

/// Whether C can begin a token (anything else is a stray character).
bool startsToken(char C) {
  static const std::array<bool, 256> Table = [] {
    std::array<bool, 256> T{};
    for (int I = 0; I < 256; ++I) {
      char Ch = static_cast<char>(I);
      T[I] = isIdentStart(Ch) || isDigit(Ch) || Ch == '\'' || Ch == '"';
    }
    for (const PunctSpelling &P : punctuators())
      T[static_cast<unsigned char>(P.Spelling[0])] = true;
    return T;
  }();
  return Table[static_cast<unsigned char>(C)];
}

std::string describeChar(char C) {
  unsigned char U = static_cast<unsigned char>(C);
  if (U >= 0x20 && U < 0x7F)
    return std::string(1, C);
  char Buf[8];
  std::snprintf(Buf, sizeof(Buf), "\\x%02x", U);
  return Buf;
}

} // namespace

Lexer::Lexer(const SourceManager &SM, FileId File, DiagnosticEngine *Diags)
    : Lexer(SM.getText(File), File, Diags) {}

Lexer::Lexer(std::string_view Text, FileId File, DiagnosticEngine *Diags, uint32_t Line,
             uint32_t Col)
    : Buf(Text), File(File), Line(Line), Col(Col), Diags(Diags) {
  skipSplices();
}

char Lexer::peek(unsigned Ahead) const {
  size_t P = Pos;
  for (;;) {
    P = skipSplicesAt(Buf, P);
    if (P >= Buf.size())
      return '\0';
    if (Ahead == 0)
      return Buf[P];
    ++P;
    --Ahead;
  }
}

void Lexer::skipSplices() {
  while (Pos < Buf.size() && Buf[Pos] == '\\') {
    size_t N = skipSplicesAt(Buf, Pos);
    if (N == Pos)
      return;
    // Each continuation ends a physical line.
    for (size_t I = Pos; I < N; ++I)
      if (Buf[I] == '\n') {
        ++Line;
        Col = 1;
      }
    Pos = N;
  }
}

void Lexer::advance() {
  if (Pos >= Buf.size())
    return;
  if (Buf[Pos] == '\n') {
    ++Line;
    Col = 1;
  } else {
    ++Col;
  }
  ++Pos;
  skipSplices();
}

void Lexer::error(SourceLoc Begin, std::string Message) {
  error(Begin, SourceLoc{}, std::move(Message));
}

void Lexer::error(SourceLoc Begin, SourceLoc End, std::string Message) {
  HadError = true;
  if (!Diags || !DiagsEnabled)
    return;
  if (End.isValid() && End.Line == Begin.Line && End.Col > Begin.Col)
    Diags->error(SourceRange(Begin, End), std::move(Message));
  else
    Diags->error(SourceRange(Begin), std::move(Message));
}

void Lexer::skipTrivia(bool StopAtNewline) {
  while (!atEnd()) {
    char C = peek();
    if (C == '\n') {
      // Directive handling stops here, so that the next line is lexed with
      // the diagnostics setting the directive chose.
      if (StopAtNewline)
        return;
      advance();
      NextAtStartOfLine = true;
      NextHasSpace = false;
      continue;
    }
    if (isHorizontalSpace(C)) {
      advance();
      NextHasSpace = true;
      continue;
    }
    if (C == '/' && peek(1) == '/') {
      while (!atEnd() && peek() != '\n')
        advance();
      NextHasSpace = true;
      continue;
    }
    if (C == '/' && peek(1) == '*') {
      skipBlockComment();
      // A block comment counts as one space, even across lines: it does not
      // end a directive.
      NextHasSpace = true;
      continue;
    }
    if (!startsToken(C)) {
      // A stray character is reported and then treated like a space, so
      // that directives still end at the end of its line.
      SourceLoc L = currentLoc();
      unsigned char U = static_cast<unsigned char>(C);
      advance();
      if (U >= 0x80) {
        // Report a UTF-8 sequence once, not once per byte.
        while (!atEnd() && (static_cast<unsigned char>(peek()) & 0xC0) == 0x80)
          advance();
        error(L, "non-ASCII character in source");
      } else {
        error(L, "invalid character '" + describeChar(C) + "' in source");
      }
      NextHasSpace = true;
      continue;
    }
    return;
  }
}

void Lexer::skipBlockComment() {
  SourceLoc Start = currentLoc();
  advance();
  advance();
  while (!atEnd()) {
    if (peek() == '*' && peek(1) == '/') {
      advance();
      advance();
      return;
    }
    advance();
  }
  error(Start, SourceLoc{Start.File, Start.Line, Start.Col + 2}, "unterminated /* comment");
}

bool Lexer::atStartOfLineOrEnd() {
  skipTrivia(/*StopAtNewline=*/true);
  return atEnd() || NextAtStartOfLine || peek() == '\n';
}

std::vector<Token> Lexer::lexRestOfLine() {
  std::vector<Token> Tokens;
  while (!atStartOfLineOrEnd())
    Tokens.push_back(lex());
  return Tokens;
}

std::string Lexer::readRestOfLineRaw() {
  std::string S;
  while (!atEnd() && peek() != '\n') {
    if (peek() == '/' && peek(1) == '/')
      break;
    if (peek() == '/' && peek(1) == '*') {
      skipBlockComment();
      S += ' ';
      continue;
    }
    S += peek();
    advance();
  }
  // Let the next lex() see the newline and mark its token as line start.
  while (!atEnd() && peek() != '\n')
    advance();
  IncState = IncludeState::None;
  size_t B = S.find_first_not_of(" \t\r\f\v");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t\r\f\v");
  return S.substr(B, E - B + 1);
}

Token Lexer::lex() {
  skipTrivia();
  Token T;
  T.Loc = currentLoc();
  T.AtStartOfLine = NextAtStartOfLine;
  T.HasLeadingSpace = NextHasSpace;
  if (atEnd()) {
    T.Kind = TokenKind::eof;
    return T;
  }
  char C = peek();
  if (T.AtStartOfLine)
    IncState = IncludeState::None;
  if (C == '<' && IncState == IncludeState::SawInclude && lexHeaderName(T)) {
    // Header name done.
  } else if (isIdentStart(C)) {
    lexIdentifier(T);
  } else if (isDigit(C) || (C == '.' && isDigit(peek(1)))) {
    lexNumber(T);
  } else if (C == '\'') {
    lexCharLiteral(T);
  } else if (C == '"') {
    lexStringLiteral(T);
  } else if (!lexPunctuator(T)) {
    reportInternalError("lexer: skipTrivia let through a character that starts no token");
  }
  // Track `# include` so that a following `<...>` becomes a header name.
  if (T.AtStartOfLine && T.is(TokenKind::hash))
    IncState = IncludeState::SawHash;
  else if (IncState == IncludeState::SawHash && T.is(TokenKind::identifier) && T.Text == "include")
    IncState = IncludeState::SawInclude;
  else
    IncState = IncludeState::None;
  NextAtStartOfLine = false;
  NextHasSpace = false;
  return T;
}

void Lexer::lexIdentifier(Token &T) {
  std::string S;
  while (isIdentChar(peek()) && !atEnd()) {
    S += peek();
    advance();
  }
  T.Kind = identifierKind(S);
  T.Text = std::move(S);
}

void Lexer::lexNumber(Token &T) {
  SourceLoc Start = currentLoc();
  std::string S;
  auto Take = [&] {
    S += peek();
    advance();
  };
  bool IsFloat = false;
  bool Bad = false;
  bool IsHex = false;
  if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    IsHex = true;
    Take();
    Take();
    if (!isHexDigit(peek())) {
      error(Start, currentLoc(), "hexadecimal literal has no digits");
      Bad = true;
    }
    while (isHexDigit(peek()))
      Take();
  } else {
    while (isDigit(peek()))
      Take();
    // "0...TM" is `0`, `...`, `TM`: a '.' followed by another '.' is not a
    // decimal point.
    if (peek() == '.' && peek(1) != '.') {
      IsFloat = true;
      Take();
      while (isDigit(peek()))
        Take();
    }
    if (peek() == 'e' || peek() == 'E') {
      unsigned DigitAt = (peek(1) == '+' || peek(1) == '-') ? 2 : 1;
      IsFloat = true;
      SourceLoc ELoc = currentLoc();
      if (isDigit(peek(DigitAt))) {
        Take();
        if (DigitAt == 2)
          Take();
        while (isDigit(peek()))
          Take();
      } else {
        Take();
        if (DigitAt == 2)
          Take();
        error(ELoc, currentLoc(), "exponent has no digits");
        Bad = true;
      }
    }
  }
  SourceLoc SuffixLoc = currentLoc();
  std::string Suffix;
  while (isIdentChar(peek()) && !atEnd()) {
    Suffix += peek();
    advance();
  }
  const char *What = IsFloat ? "floating-point" : "integer";
  if (!Bad && !(IsFloat ? isValidFloatSuffix(Suffix) : isValidIntSuffix(Suffix))) {
    error(SuffixLoc, currentLoc(),
          "invalid suffix '" + Suffix + "' on " + std::string(What) + " literal");
    Bad = true;
  }
  if (!Bad && !IsFloat && !IsHex && S.size() > 1 && S[0] == '0') {
    for (size_t I = 1; I < S.size(); ++I)
      if (S[I] == '8' || S[I] == '9') {
        error(Start, currentLoc(), std::string("invalid digit '") + S[I] + "' in octal literal");
        Bad = true;
        break;
      }
  }
  T.Kind = IsFloat ? TokenKind::float_literal : TokenKind::int_literal;
  if (Bad)
    T.Text = IsFloat ? "0.0" : "0";
  else
    T.Text = S + Suffix;
}

std::string Lexer::scanQuoted(char Quote, bool &Closed) {
  std::string S(1, Quote);
  advance();
  Closed = false;
  while (!atEnd() && peek() != '\n') {
    char C = peek();
    S += C;
    advance();
    if (C == '\\') {
      // An escaped quote does not close the literal.
      if (!atEnd() && peek() != '\n') {
        S += peek();
        advance();
      }
      continue;
    }
    if (C == Quote) {
      Closed = true;
      break;
    }
  }
  return S;
}

void Lexer::lexCharLiteral(Token &T) {
  SourceLoc Start = currentLoc();
  bool Closed = false;
  std::string S = scanQuoted('\'', Closed);
  T.Kind = TokenKind::char_literal;
  T.Text = S;
  if (!Closed) {
    error(Start, "unterminated character literal");
    T.Text = "'\\0'";
    return;
  }
  std::vector<uint32_t> Chars;
  std::string BadEscape;
  if (!decodeCharBody(std::string_view(S).substr(1, S.size() - 2), Chars, BadEscape)) {
    error(Start, currentLoc(), "unknown escape sequence '" + BadEscape + "' in character literal");
    T.Text = "'\\0'";
  } else if (Chars.empty()) {
    error(Start, currentLoc(), "empty character literal");
    T.Text = "'\\0'";
  } else if (Chars.size() > 1) {
    error(Start, currentLoc(), "character literal must contain exactly one character");
    T.Text = "'\\0'";
  }
}

void Lexer::lexStringLiteral(Token &T) {
  SourceLoc Start = currentLoc();
  bool Closed = false;
  std::string S = scanQuoted('"', Closed);
  T.Kind = TokenKind::string_literal;
  if (!Closed) {
    error(Start, "unterminated string literal");
    S += '"';
  }
  T.Text = std::move(S);
}

bool Lexer::lexHeaderName(Token &T) {
  // Look ahead for '>' on this line before consuming anything, so that a
  // plain '<' still lexes as a punctuator when there is none.
  unsigned N = 1;
  for (;; ++N) {
    char C = peek(N);
    if (C == '>')
      break;
    if (C == '\n' || C == '\0')
      return false;
  }
  std::string S;
  for (unsigned I = 0; I <= N; ++I) {
    S += peek();
    advance();
  }
  T.Kind = TokenKind::string_literal;
  T.Text = std::move(S);
  return true;
}

bool Lexer::lexPunctuator(Token &T) {
  for (const PunctSpelling &P : punctuatorsStartingWith(peek())) {
    bool Match = true;
    for (unsigned I = 0; I < P.Spelling.size() && Match; ++I)
      Match = peek(I) == P.Spelling[I];
    if (!Match)
      continue;
    for (size_t I = 0; I < P.Spelling.size(); ++I)
      advance();
    T.Kind = P.Kind;
    T.Text = std::string(P.Spelling);
    return true;
  }
  return false;
}

std::vector<Token> Lexer::lexAll(const SourceManager &SM, FileId File, DiagnosticEngine &Diags) {
  Lexer L(SM, File, &Diags);
  std::vector<Token> Tokens;
  do
    Tokens.push_back(L.lex());
  while (Tokens.back().isNot(TokenKind::eof));
  return Tokens;
}

bool Lexer::lexSingleToken(std::string_view Text, Token &Out) {
  Lexer L(Text, InvalidFileId, nullptr);
  Token T = L.lex();
  if (T.is(TokenKind::eof) || T.HasLeadingSpace || L.hadError())
    return false;
  Token Next = L.lex();
  if (Next.isNot(TokenKind::eof) || Next.HasLeadingSpace || L.hadError())
    return false;
  Out = std::move(T);
  return true;
}

TokenKind Lexer::identifierKind(std::string_view Spelling) {
  static const std::unordered_map<std::string_view, TokenKind> Keywords = {
#define KEYWORD(Name, Spelling) {Spelling, TokenKind::kw_##Name},
#include "tritonc/lang/TokenKinds.def"
  };
  auto It = Keywords.find(Spelling);
  return It == Keywords.end() ? TokenKind::identifier : It->second;
}

std::optional<uint64_t> parseIntegerLiteral(std::string_view S, bool *IsUnsigned) {
  size_t End = S.size();
  while (End > 0 && (std::tolower(static_cast<unsigned char>(S[End - 1])) == 'u' ||
                     std::tolower(static_cast<unsigned char>(S[End - 1])) == 'l'))
    --End;
  std::string_view Suffix = S.substr(End);
  if (!isValidIntSuffix(Suffix))
    return std::nullopt;
  if (IsUnsigned)
    *IsUnsigned = Suffix.find_first_of("uU") != std::string_view::npos;
  std::string_view Digits = S.substr(0, End);
  unsigned Base = 10;
  if (Digits.size() > 2 && Digits[0] == '0' && (Digits[1] == 'x' || Digits[1] == 'X')) {
    Base = 16;
    Digits.remove_prefix(2);
  } else if (Digits.size() > 1 && Digits[0] == '0') {
    Base = 8;
    Digits.remove_prefix(1);
  }
  if (Digits.empty())
    return std::nullopt;
  uint64_t V = 0;
  for (char C : Digits) {
    unsigned D;
    if (isDigit(C))
      D = static_cast<unsigned>(C - '0');
    else if (isHexDigit(C))
      D = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(C)) - 'a' + 10);
    else
      return std::nullopt;
    if (D >= Base)
      return std::nullopt;
    if (V > (UINT64_MAX - D) / Base)
      return std::nullopt;
    V = V * Base + D;
  }
  return V;
}

std::optional<uint32_t> charLiteralValue(std::string_view S) {
  if (S.size() < 3 || S.front() != '\'' || S.back() != '\'')
    return std::nullopt;
  std::vector<uint32_t> Chars;
  std::string BadEscape;
  if (!decodeCharBody(S.substr(1, S.size() - 2), Chars, BadEscape) || Chars.size() != 1)
    return std::nullopt;
  return Chars[0];
}

std::optional<std::string> stringLiteralValue(std::string_view S) {
  if (S.size() < 2 || S.front() != '"' || S.back() != '"')
    return std::nullopt;
  std::vector<uint32_t> Chars;
  std::string BadEscape;
  if (!decodeCharBody(S.substr(1, S.size() - 2), Chars, BadEscape))
    return std::nullopt;
  std::string Text;
  for (uint32_t C : Chars) {
    if (C > 0xFF)
      return std::nullopt;
    Text += static_cast<char>(C);
  }
  return Text;
}

} // namespace tritonc
