//===- Parser.cpp - Triton-C parser: tokens, recovery, types, top level ---===//
//
// Statements live in ParseStmt.cpp, expressions in ParseExpr.cpp and the AST
// dumper in ASTDumper.cpp.
//
//===----------------------------------------------------------------------===//
#include "tritonc/lang/Parser.h"

#include "ParserImpl.h"

namespace tritonc {

using namespace ast;

namespace {
/// Nesting limit for statements and expressions together; far deeper than
/// any real kernel, and shallow enough that the recursion cannot overflow
/// the stack.
constexpr unsigned MaxNestingDepth = 256;
/// Limit on the height of an expression tree, chains included (`a+b+...`
/// with this many terms): far above any real kernel, low enough that the
/// recursive walks of the tree stay within a small part of the stack.
constexpr unsigned MaxTreeHeight = 1024;
} // namespace

Parser::Parser(const std::vector<Token> &Tokens, DiagnosticEngine &Diags)
    : Toks(Tokens), Diags(Diags) {
  if (Toks.empty() || Toks.back().isNot(TokenKind::eof)) {
    Token Eof;
    Eof.Kind = TokenKind::eof;
    if (!Toks.empty()) {
      Eof.Loc = Toks.back().range().End;
    }
    Toks.push_back(Eof);
  }
  // The eof token of an empty buffer may carry no location; give it the end
  // of the last real token so that "found end of file" errors have one.
  if (!Toks.back().diagLoc().isValid() && Toks.size() > 1)
    Toks.back().Loc = Toks[Toks.size() - 2].range().End;
}

//===----------------------------------------------------------------------===//
// Tokens and diagnostics
//===----------------------------------------------------------------------===//

const Token &Parser::consume() {
  const Token &T = Toks[Pos];
  if (T.isNot(TokenKind::eof)) {
    PrevEnd = T.range().End;
    ++Pos;
  }
  return T;
}

bool Parser::tryConsume(TokenKind K) {
  if (!at(K))
    return false;
  consume();
  return true;
}

void Parser::error(SourceRange R, std::string Message) {
  // Once parsing has given up, follow-up errors (a missing '}' for every
  // open block at eof...) would only be noise.
  LastErrorDropped = Stopped;
  if (Stopped)
    return;
  Diags.error(R, std::move(Message));
  if (Diags.reachedErrorLimit())
    stop();
}

void Parser::note(SourceRange R, std::string Message) {
  if (!LastErrorDropped)
    Diags.note(R, std::move(Message));
}

void Parser::stop() {
  Stopped = true;
  Pos = Toks.size() - 1;
}

std::string Parser::describe(const Token &T) {
  switch (T.Kind) {
  case TokenKind::eof:
    return "end of file";
  case TokenKind::identifier:
  case TokenKind::int_literal:
  case TokenKind::float_literal:
  case TokenKind::char_literal:
    return std::string(tokenKindName(T.Kind)) + " '" + T.Text + "'";
  case TokenKind::string_literal:
    return std::string(tokenKindName(T.Kind)) + " " + T.Text;
  default:
    return tokenKindName(T.Kind);
  }
}

void Parser::errorExpected(const std::string &What, bool AfterPrevious) {
  const Token &T = tok();
  SourceRange R = T.range();
  if (AfterPrevious && PrevEnd.isValid() &&
      (T.is(TokenKind::eof) || !R.Begin.isValid() || R.Begin.File != PrevEnd.File ||
       R.Begin.Line != PrevEnd.Line))
    R = SourceRange(PrevEnd);
  if (!R.Begin.isValid() && PrevEnd.isValid())
    R = SourceRange(PrevEnd);
  error(R, "expected " + What + ", found " + describe(T));
}

bool Parser::expect(TokenKind K, const std::string &Context) {
  if (tryConsume(K))
    return true;
  std::string What = tokenKindName(K);
  if (!Context.empty())
    What += " " + Context;
  bool IsCloser = K == TokenKind::semi || K == TokenKind::r_paren || K == TokenKind::r_square ||
                  K == TokenKind::r_brace || K == TokenKind::colon;
  errorExpected(What, IsCloser);
  return false;
}

bool Parser::expectClosing(TokenKind Close, const Token &Open) {
  if (tryConsume(Close))
    return true;
  errorExpected(std::string(tokenKindName(Close)) + " to match this " + tokenKindName(Open.Kind),
                true);
  note(Open.range(), std::string(tokenKindName(Open.Kind)) + " opened here");
  return false;
}

void Parser::expectSemi(const std::string &Context) {
  if (tryConsume(TokenKind::semi))
    return;
  const Token &T = tok();
  bool NewLine = T.is(TokenKind::eof) || T.is(TokenKind::r_brace) || !PrevEnd.isValid() ||
                 T.diagLoc().Line != PrevEnd.Line || T.diagLoc().File != PrevEnd.File;
  errorExpected("';' " + Context, true);
  if (!NewLine)
    skipStatement();
}

void Parser::skipStatement() {
  unsigned Nest = 0; // parentheses and brackets
  unsigned Braces = 0;
  while (!atEof()) {
    switch (tok().Kind) {
    case TokenKind::l_paren:
    case TokenKind::l_square:
      ++Nest;
      break;
    case TokenKind::r_paren:
    case TokenKind::r_square:
      if (Nest > 0)
        --Nest;
      break;
    case TokenKind::l_brace:
      ++Braces;
      break;
    case TokenKind::r_brace:
      if (Braces == 0)
        return;
      if (--Braces == 0) {
        consume();
        return;
      }
      break;
    case TokenKind::semi:
      if (Braces == 0 && Nest == 0) {
        consume();
        return;
      }
      break;
    default:
      break;
    }
    consume();
  }
}

bool Parser::closedSince(size_t OpenPos) const {
  unsigned Nest = 0;
  for (size_t I = OpenPos + 1; I < Pos; ++I) {
    if (Toks[I].is(TokenKind::l_paren)) {
      ++Nest;
    } else if (Toks[I].is(TokenKind::r_paren)) {
      if (Nest == 0)
        return true;
      --Nest;
    }
  }
  return false;
}

void Parser::skipToCloseParen(bool StopAtSemi) {
  unsigned Nest = 0;
  while (!atEof()) {
    switch (tok().Kind) {
    case TokenKind::l_paren:
    case TokenKind::l_square:
      ++Nest;
      break;
    case TokenKind::r_paren:
      if (Nest == 0) {
        consume();
        return;
      }
      --Nest;
      break;
    case TokenKind::r_square:
      if (Nest > 0)
        --Nest;
      break;
    case TokenKind::semi:
      if (Nest == 0 && StopAtSemi)
        return;
      break;
    case TokenKind::l_brace:
    case TokenKind::r_brace:
      if (Nest == 0)
        return;
      break;
    default:
      break;
    }
    consume();
  }
}

bool Parser::enter() {
  if (Depth >= MaxNestingDepth) {
    // Give up on the file: the unwinding callers would otherwise report a
    // missing closer for every level.
    error(tok().range(), "program is nested too deeply (more than " +
                             std::to_string(MaxNestingDepth) + " levels)");
    stop();
    return false;
  }
  ++Depth;
  ++Height;
  if (Height > MaxTreeHeight) {
    --Depth;
    --Height;
    reportTooTall();
    return false;
  }
  return true;
}

bool Parser::extendChain(unsigned &Links) {
  if (Height >= MaxTreeHeight) {
    reportTooTall();
    return false;
  }
  ++Height;
  ++Links;
  return true;
}

void Parser::reportTooTall() {
  error(tok().range(), "expression is too long or nested too deeply (more than " +
                           std::to_string(MaxTreeHeight) + " operators deep)");
  stop();
}

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

bool Parser::isTypeStart(const Token &T) const {
  switch (T.Kind) {
  case TokenKind::kw_void:
  case TokenKind::kw_bool:
  case TokenKind::kw_char:
  case TokenKind::kw_short:
  case TokenKind::kw_int:
  case TokenKind::kw_long:
  case TokenKind::kw_signed:
  case TokenKind::kw_unsigned:
  case TokenKind::kw_half:
  case TokenKind::kw_bfloat16:
  case TokenKind::kw_float:
  case TokenKind::kw_double:
  case TokenKind::kw_const:
  case TokenKind::kw_desc:
    return true;
  default:
    return false;
  }
}

bool Parser::parseTypeSpecifier(TypeSpec &T) {
  SourceLoc Begin = startLoc();
  unsigned NumLong = 0;
  bool Signed = false, Unsigned = false, Short = false, Int = false;
  const Token *Other = nullptr; // void, bool, char, half, bfloat16, float, double
  bool Conflict = false;
  for (;;) {
    const Token &C = tok();
    switch (C.Kind) {
    case TokenKind::kw_const:
      T.IsConst = true;
      break;
    case TokenKind::kw_desc:
      T.IsDesc = true;
      break;
    case TokenKind::kw_signed:
    case TokenKind::kw_unsigned:
      Conflict |= Signed || Unsigned;
      (C.is(TokenKind::kw_signed) ? Signed : Unsigned) = true;
      break;
    case TokenKind::kw_short:
      Conflict |= Short;
      Short = true;
      break;
    case TokenKind::kw_int:
      Conflict |= Int;
      Int = true;
      break;
    case TokenKind::kw_long:
      Conflict |= NumLong == 2;
      ++NumLong;
      break;
    case TokenKind::kw_void:
    case TokenKind::kw_bool:
    case TokenKind::kw_char:
    case TokenKind::kw_half:
    case TokenKind::kw_bfloat16:
    case TokenKind::kw_float:
    case TokenKind::kw_double:
      Conflict |= Other != nullptr;
      Other = &C;
      break;
    default:
      goto Done;
    }
    consume();
  }
Done:
  T.Range = rangeFrom(Begin);
  bool IntWords = Signed || Unsigned || Short || Int || NumLong != 0;
  if (!Other && !IntWords) {
    errorExpected("a type name");
    return false;
  }
  if (Other) {
    bool IsChar = Other->is(TokenKind::kw_char);
    // Only `char` takes `signed`/`unsigned`; no other word combines.
    Conflict |= IsChar ? (Short || Int || NumLong != 0) : IntWords;
    switch (Other->Kind) {
    case TokenKind::kw_void:
      T.Base = BaseType::Void;
      break;
    case TokenKind::kw_bool:
      T.Base = BaseType::Bool;
      break;
    case TokenKind::kw_char:
      T.Base = Unsigned ? BaseType::UChar : BaseType::Char;
      break;
    case TokenKind::kw_half:
      T.Base = BaseType::Half;
      break;
    case TokenKind::kw_bfloat16:
      T.Base = BaseType::BFloat16;
      break;
    case TokenKind::kw_float:
      T.Base = BaseType::Float;
      break;
    default:
      T.Base = BaseType::Double;
      break;
    }
  } else {
    Conflict |= Short && NumLong != 0;
    if (Short)
      T.Base = Unsigned ? BaseType::UShort : BaseType::Short;
    else if (NumLong != 0)
      T.Base = Unsigned ? BaseType::ULong : BaseType::Long;
    else
      T.Base = Unsigned ? BaseType::UInt : BaseType::Int;
  }
  if (Conflict)
    error(T.Range, "invalid combination of type specifiers");
  return true;
}

unsigned Parser::parseStars(bool &SawRestrict) {
  unsigned N = 0;
  while (at(TokenKind::star)) {
    consume();
    ++N;
    while (at(TokenKind::kw_restrict) || at(TokenKind::kw_const)) {
      SawRestrict |= at(TokenKind::kw_restrict);
      consume();
    }
  }
  return N;
}

bool Parser::parseTileShape(std::vector<ExprPtr> &Dims, SourceRange &Range) {
  const Token &Open = consume();
  if (at(TokenKind::r_square)) {
    error(SourceRange(Open.diagLoc(), tok().range().End),
          "a tile shape needs at least one dimension");
    consume();
  } else {
    for (;;) {
      ExprPtr E = parseAssignment();
      if (!E)
        return false;
      Dims.push_back(std::move(E));
      if (!tryConsume(TokenKind::comma))
        break;
    }
    if (!expectClosing(TokenKind::r_square, Open))
      return false;
  }
  Range = rangeFrom(Open.diagLoc());
  return true;
}

bool Parser::isAttributeStart() const {
  switch (tok().Kind) {
  case TokenKind::kw_multipleof:
  case TokenKind::kw_aligned:
  case TokenKind::kw_noalias:
  case TokenKind::kw_readonly:
  case TokenKind::kw_writeonly:
  case TokenKind::kw_restrict:
  case TokenKind::kw_evict_first:
  case TokenKind::kw_evict_last:
    return true;
  default:
    return false;
  }
}

bool Parser::parseAttribute(std::vector<Attribute> &Attrs) {
  const Token &Name = consume();
  Attribute A{Attribute::NoAlias, 0, Name.range()};
  switch (Name.Kind) {
  case TokenKind::kw_noalias:
    A.K = Attribute::NoAlias;
    break;
  case TokenKind::kw_readonly:
    A.K = Attribute::ReadOnly;
    break;
  case TokenKind::kw_writeonly:
    A.K = Attribute::WriteOnly;
    break;
  case TokenKind::kw_restrict:
    A.K = Attribute::Restrict;
    break;
  case TokenKind::kw_evict_first:
    A.K = Attribute::EvictFirst;
    break;
  case TokenKind::kw_evict_last:
    A.K = Attribute::EvictLast;
    break;
  case TokenKind::kw_multipleof:
  case TokenKind::kw_aligned: {
    A.K = Name.is(TokenKind::kw_multipleof) ? Attribute::MultipleOf : Attribute::Aligned;
    std::string Spelling = Name.is(TokenKind::kw_multipleof) ? "__multipleof" : "__aligned";
    const Token &Open = tok();
    if (!expect(TokenKind::l_paren, "after '" + Spelling + "'"))
      return false;
    ExprPtr Arg = parseAssignment();
    if (!Arg || !expectClosing(TokenKind::r_paren, Open))
      return false;
    A.Range = rangeFrom(Name.diagLoc());
    std::optional<int64_t> V = foldConstant(*Arg);
    if (!V) {
      error(Arg->Range, "argument of '" + Spelling + "' must be an integer constant expression");
      return true;
    }
    if (*V <= 0) {
      error(Arg->Range,
            "argument of '" + Spelling + "' must be positive (it is " + std::to_string(*V) + ")");
      return true;
    }
    A.Value = *V;
    break;
  }
  default:
    reportInternalError("parseAttribute called on a non-attribute token");
  }
  Attrs.push_back(A);
  return true;
}

std::optional<int64_t> Parser::foldConstant(const Expr &E) const {
  // Arithmetic wraps (done in uint64_t) so that folding never hits UB.
  auto U = [](int64_t V) { return static_cast<uint64_t>(V); };
  auto S = [](uint64_t V) { return static_cast<int64_t>(V); };
  if (auto *L = E.as<IntLiteralExpr>())
    return S(L->Value);
  if (auto *B = E.as<BoolLiteralExpr>())
    return B->Value ? 1 : 0;
  if (auto *Un = E.as<UnaryExpr>()) {
    std::optional<int64_t> V = Un->Operand ? foldConstant(*Un->Operand) : std::nullopt;
    if (!V)
      return std::nullopt;
    switch (Un->Op) {
    case UnaryOp::Plus:
      return *V;
    case UnaryOp::Minus:
      return S(0 - U(*V));
    case UnaryOp::Not:
      return *V == 0 ? 1 : 0;
    case UnaryOp::BitNot:
      return S(~U(*V));
    default:
      return std::nullopt;
    }
  }
  if (auto *C = E.as<ConditionalExpr>()) {
    std::optional<int64_t> Cond = C->Cond ? foldConstant(*C->Cond) : std::nullopt;
    if (!Cond)
      return std::nullopt;
    const ExprPtr &Pick = *Cond ? C->Then : C->Else;
    return Pick ? foldConstant(*Pick) : std::nullopt;
  }
  auto *Bin = E.as<BinaryExpr>();
  if (!Bin || !Bin->LHS || !Bin->RHS)
    return std::nullopt;
  std::optional<int64_t> L = foldConstant(*Bin->LHS), R = foldConstant(*Bin->RHS);
  if (!L || !R)
    return std::nullopt;
  int64_t A = *L, B = *R;
  switch (Bin->Op) {
  case BinaryOp::Mul:
    return S(U(A) * U(B));
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (B == 0 || (A == INT64_MIN && B == -1))
      return std::nullopt;
    return Bin->Op == BinaryOp::Div ? A / B : A % B;
  case BinaryOp::Add:
    return S(U(A) + U(B));
  case BinaryOp::Sub:
    return S(U(A) - U(B));
  case BinaryOp::Shl:
    if (B < 0 || B > 63)
      return std::nullopt;
    return S(U(A) << B);
  case BinaryOp::Shr:
    if (B < 0 || B > 63)
      return std::nullopt;
    return A >> B;
  case BinaryOp::LT:
    return A < B;
  case BinaryOp::GT:
    return A > B;
  case BinaryOp::LE:
    return A <= B;
  case BinaryOp::GE:
    return A >= B;
  case BinaryOp::EQ:
    return A == B;
  case BinaryOp::NE:
    return A != B;
  case BinaryOp::BitAnd:
    return A & B;
  case BinaryOp::BitXor:
    return A ^ B;
  case BinaryOp::BitOr:
    return A | B;
  case BinaryOp::LogicalAnd:
    return A && B;
  case BinaryOp::LogicalOr:
    return A || B;
  case BinaryOp::Comma:
    return B;
  case BinaryOp::Dot:
    return std::nullopt;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

std::unique_ptr<TranslationUnit> Parser::parseTranslationUnit() {
  auto TU = std::make_unique<TranslationUnit>();
  while (!atEof()) {
    if (tryConsume(TokenKind::semi))
      continue;
    if (at(TokenKind::r_brace)) {
      error(tok().range(), "extraneous closing brace ('}')");
      consume();
      continue;
    }
    size_t Start = Pos;
    if (auto F = parseFunction())
      TU->Functions.push_back(std::move(F));
    if (Pos == Start)
      consume();
  }
  return TU;
}

void Parser::skipTopLevel() {
  // An unmatched '}' is left for parseTranslationUnit, which reports it.
  skipStatement();
}

std::unique_ptr<FunctionDecl> Parser::parseFunction() {
  auto F = std::make_unique<FunctionDecl>();
  SourceLoc Begin = startLoc();
  F->IsGlobal = tryConsume(TokenKind::kw_global);
  if (!isTypeStart(tok())) {
    errorExpected(F->IsGlobal ? "a return type after '__global__'" : "a function definition");
    skipTopLevel();
    return nullptr;
  }
  parseTypeSpecifier(F->ReturnType);
  bool Restrict = false;
  F->ReturnType.PointerDepth = parseStars(Restrict);
  F->ReturnType.IsRestrict = Restrict;
  F->ReturnType.Range = rangeFrom(F->ReturnType.Range.Begin);
  if (!at(TokenKind::identifier)) {
    errorExpected("a function name");
    skipTopLevel();
    return nullptr;
  }
  const Token &Name = consume();
  F->Name = Name.Text;
  F->NameRange = Name.range();
  if (!expect(TokenKind::l_paren, "after the function name")) {
    skipTopLevel();
    F->Range = rangeFrom(Begin);
    return F;
  }
  if (!parseParams(*F) && !atEof())
    skipToCloseParen();
  if (tryConsume(TokenKind::semi)) {
    F->Range = rangeFrom(Begin);
    return F;
  }
  if (!at(TokenKind::l_brace)) {
    errorExpected("'{' or ';' after the function parameters");
    skipTopLevel();
    F->Range = rangeFrom(Begin);
    return F;
  }
  F->Body = parseCompound();
  F->Range = rangeFrom(Begin);
  return F;
}

bool Parser::parseParams(FunctionDecl &F) {
  const Token &Open = Toks[Pos - 1];
  if (tryConsume(TokenKind::r_paren))
    return true;
  if (at(TokenKind::kw_void) && peekTok(1).is(TokenKind::r_paren)) {
    consume();
    consume();
    return true;
  }
  for (;;) {
    ParamDecl P;
    SourceLoc Begin = startLoc();
    if (!isTypeStart(tok())) {
      errorExpected("a parameter type");
      return false;
    }
    parseTypeSpecifier(P.Type);
    bool Restrict = false;
    P.Type.PointerDepth = parseStars(Restrict);
    P.Type.Range = rangeFrom(P.Type.Range.Begin);
    if (Restrict)
      P.Attrs.push_back(Attribute{Attribute::Restrict, 0, P.Type.Range});
    if (!at(TokenKind::identifier)) {
      errorExpected("a parameter name");
      return false;
    }
    const Token &Name = consume();
    P.Name = Name.Text;
    P.NameRange = Name.range();
    while (isAttributeStart())
      if (!parseAttribute(P.Attrs))
        return false;
    for (const Attribute &A : P.Attrs)
      P.Type.IsRestrict |= A.K == Attribute::Restrict;
    P.Range = rangeFrom(Begin);
    F.Params.push_back(std::move(P));
    if (tryConsume(TokenKind::comma))
      continue;
    if (tryConsume(TokenKind::r_paren))
      return true;
    if (atEof() || at(TokenKind::l_brace) || at(TokenKind::semi))
      return expectClosing(TokenKind::r_paren, Open);
    errorExpected("',' or ')' after a parameter", true);
    return false;
  }
}

std::unique_ptr<TranslationUnit> parseTranslationUnit(const std::vector<Token> &Tokens,
                                                      DiagnosticEngine &Diags) {
  Parser P(Tokens, Diags);
  return P.parseTranslationUnit();
}

} // namespace tritonc
