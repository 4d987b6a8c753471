//===- ParseStmt.cpp - Triton-C parser: statements ------------------------===//
//
// Statement-level error recovery: a failed statement is skipped up to its
// `;` (or a balanced block, or the `}` that closes the enclosing block), so
// that the next statement is parsed normally and several errors can be
// reported in one run.
//
//===----------------------------------------------------------------------===//
#include "ParserImpl.h"

namespace tritonc {

using namespace ast;

StmtPtr Parser::parseStatement() {
  DepthGuard G(*this);
  if (!G.Ok)
    return nullptr;
  SourceLoc Begin = startLoc();
  switch (tok().Kind) {
  case TokenKind::l_brace:
    return parseCompound();
  case TokenKind::semi:
    consume();
    return std::make_unique<NullStmt>(rangeFrom(Begin));
  case TokenKind::kw_if:
    return parseIf();
  case TokenKind::kw_for:
    return parseFor();
  case TokenKind::kw_while:
    return parseWhile();
  case TokenKind::kw_do:
    return parseDoWhile();
  case TokenKind::kw_return:
    return parseReturn();
  case TokenKind::kw_break:
  case TokenKind::kw_continue: {
    bool IsBreak = at(TokenKind::kw_break);
    consume();
    SourceRange R = rangeFrom(Begin);
    expectSemi(IsBreak ? "after 'break'" : "after 'continue'");
    if (IsBreak)
      return std::make_unique<BreakStmt>(R);
    return std::make_unique<ContinueStmt>(R);
  }
  case TokenKind::kw_else:
    error(tok().range(), "'else' without a matching 'if'");
    skipStatement();
    return nullptr;
  case TokenKind::kw_global:
    error(tok().range(), "functions cannot be defined inside a function (missing '}'?)");
    skipStatement();
    return nullptr;
  default:
    if (isTypeStart(tok()))
      return parseDeclStmt();
    return parseExprStmt();
  }
}

std::unique_ptr<CompoundStmt> Parser::parseCompound() {
  const Token &Open = consume();
  auto C = std::make_unique<CompoundStmt>(SourceRange(Open.diagLoc()));
  while (!at(TokenKind::r_brace) && !atEof()) {
    size_t Start = Pos;
    if (StmtPtr S = parseStatement())
      C->Body.push_back(std::move(S));
    if (Pos == Start && !at(TokenKind::r_brace) && !atEof())
      consume();
  }
  expectClosing(TokenKind::r_brace, Open);
  C->Range = rangeFrom(Open.diagLoc());
  return C;
}

StmtPtr Parser::parseDeclStmt() {
  SourceLoc Begin = startLoc();
  auto D = std::make_unique<DeclStmt>(SourceRange(Begin));
  if (!parseTypeSpecifier(D->Type)) {
    skipStatement();
    return nullptr;
  }
  for (;;) {
    Declarator X;
    if (!parseDeclarator(X)) {
      skipStatement();
      return nullptr;
    }
    D->Decls.push_back(std::move(X));
    if (!tryConsume(TokenKind::comma))
      break;
  }
  D->Range = rangeFrom(Begin);
  expectSemi("after declaration");
  return D;
}

bool Parser::parseDeclarator(Declarator &D) {
  bool Restrict = false;
  SourceLoc StarBegin = startLoc();
  D.ExtraPointerDepth = parseStars(Restrict);
  if (Restrict)
    D.Attrs.push_back(Attribute{Attribute::Restrict, 0, rangeFrom(StarBegin)});
  if (!at(TokenKind::identifier)) {
    errorExpected("a variable name");
    return false;
  }
  const Token &Name = consume();
  D.Name = Name.Text;
  D.NameRange = Name.range();
  if (at(TokenKind::l_square)) {
    if (!parseTileShape(D.Shape, D.ShapeRange))
      return false;
    if (at(TokenKind::l_square)) {
      error(tok().range(), "tiles are declared as 'name[d0, d1]', not 'name[d0][d1]'");
      return false;
    }
  }
  while (isAttributeStart())
    if (!parseAttribute(D.Attrs))
      return false;
  if (tryConsume(TokenKind::equal)) {
    D.Init = parseAssignment();
    if (!D.Init)
      return false;
  }
  return true;
}

StmtPtr Parser::parseExprStmt() {
  SourceLoc Begin = startLoc();
  ExprPtr E = parseExpr();
  if (!E) {
    skipStatement();
    return nullptr;
  }
  auto S = std::make_unique<ExprStmt>(rangeFrom(Begin));
  S->E = std::move(E);
  expectSemi("after expression");
  return S;
}

ExprPtr Parser::parseParenCondition(const char *Keyword) {
  const Token &Open = tok();
  if (!expect(TokenKind::l_paren, std::string("after '") + Keyword + "'")) {
    skipToCloseParen();
    return nullptr;
  }
  ExprPtr E = parseExpr();
  if (!E) {
    skipToCloseParen();
    return nullptr;
  }
  if (!expectClosing(TokenKind::r_paren, Open))
    skipToCloseParen();
  return E;
}

StmtPtr Parser::parseIf() {
  SourceLoc Begin = startLoc();
  consume();
  auto S = std::make_unique<IfStmt>(SourceRange(Begin));
  S->Cond = parseParenCondition("if");
  S->Then = parseStatement();
  if (tryConsume(TokenKind::kw_else))
    S->Else = parseStatement();
  S->Range = rangeFrom(Begin);
  return S;
}

StmtPtr Parser::parseFor() {
  SourceLoc Begin = startLoc();
  consume();
  auto S = std::make_unique<ForStmt>(SourceRange(Begin));
  const Token &Open = tok();
  size_t OpenPos = Pos;
  if (!expect(TokenKind::l_paren, "after 'for'")) {
    skipToCloseParen(/*StopAtSemi=*/false);
  } else {
    // Any error inside the header abandons the rest of it: skipping to its
    // ')' (across the ';' separators) avoids reporting the remaining clauses
    // as statements.
    unsigned ErrorsBefore = Diags.numErrors();
    auto Ok = [&] { return Diags.numErrors() == ErrorsBefore; };
    if (!tryConsume(TokenKind::semi))
      S->Init = isTypeStart(tok()) ? parseDeclStmt() : parseExprStmt();
    if (Ok() && !at(TokenKind::semi))
      S->Cond = parseExpr();
    if (Ok())
      expect(TokenKind::semi, "after the 'for' condition");
    if (Ok() && !at(TokenKind::r_paren))
      S->Step = parseExpr();
    if (Ok())
      expectClosing(TokenKind::r_paren, Open);
    if (!Ok() && !closedSince(OpenPos))
      skipToCloseParen(/*StopAtSemi=*/false);
  }
  S->Body = parseStatement();
  S->Range = rangeFrom(Begin);
  return S;
}

StmtPtr Parser::parseWhile() {
  SourceLoc Begin = startLoc();
  consume();
  auto S = std::make_unique<WhileStmt>(SourceRange(Begin));
  S->Cond = parseParenCondition("while");
  S->Body = parseStatement();
  S->Range = rangeFrom(Begin);
  return S;
}

StmtPtr Parser::parseDoWhile() {
  SourceLoc Begin = startLoc();
  consume();
  auto S = std::make_unique<DoWhileStmt>(SourceRange(Begin));
  S->Body = parseStatement();
  if (!tryConsume(TokenKind::kw_while)) {
    errorExpected("'while' after the body of a 'do' loop");
    skipStatement();
    S->Range = rangeFrom(Begin);
    return S;
  }
  S->Cond = parseParenCondition("while");
  S->Range = rangeFrom(Begin);
  expectSemi("after the 'do'/'while' loop");
  return S;
}

StmtPtr Parser::parseReturn() {
  SourceLoc Begin = startLoc();
  consume();
  auto S = std::make_unique<ReturnStmt>(SourceRange(Begin));
  // `return` directly followed by the end of the block is a missing ';',
  // not a missing value.
  if (!at(TokenKind::semi) && !at(TokenKind::r_brace) && !atEof()) {
    S->Value = parseExpr();
    if (!S->Value) {
      skipStatement();
      return nullptr;
    }
  }
  S->Range = rangeFrom(Begin);
  expectSemi("after return statement");
  return S;
}

} // namespace tritonc
