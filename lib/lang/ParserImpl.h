//===- ParserImpl.h - Triton-C parser internals -----------------*- C++ -*-===//
//
// The Parser class shared by Parser.cpp (tokens, recovery, types, top
// level), ParseStmt.cpp (statements) and ParseExpr.cpp (expressions). Not a
// public header.
//
// Error handling: a parse function that fails reports exactly one error and
// returns null; callers propagate the null without reporting again, and the
// statement level resynchronizes (skips to `;` or `}`). Once the error limit
// of the DiagnosticEngine is reached, the parser jumps to the eof token so
// that every loop ends, and reports nothing more.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/lang/AST.h"
#include "tritonc/lang/Token.h"
#include "tritonc/support/Diagnostics.h"

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace tritonc {

class Parser {
public:
  Parser(const std::vector<Token> &Tokens, DiagnosticEngine &Diags);

  std::unique_ptr<ast::TranslationUnit> parseTranslationUnit();

private:
  std::vector<Token> Toks; ///< Always ends with an eof token.
  size_t Pos = 0;
  DiagnosticEngine &Diags;
  SourceLoc PrevEnd;  ///< One past the last consumed token.
  unsigned Depth = 0; ///< Current recursion depth (stack guard).
  /// Bound on the height of the tree under construction: the recursion
  /// depth plus the links of the operator and postfix chains being built
  /// (`a+b+c` recurses once but nests its nodes two deep). Every later walk
  /// of the tree (IR generation, dumping, destruction) recurses this deep.
  unsigned Height = 0;
  bool Stopped = false;          ///< Gave up: no more diagnostics, at eof.
  bool LastErrorDropped = false; ///< Notes go with their error.

  //===--- Tokens ---------------------------------------------------------===//
  const Token &tok() const { return Toks[Pos]; }
  const Token &peekTok(size_t Ahead) const {
    return Toks[Pos + Ahead < Toks.size() ? Pos + Ahead : Toks.size() - 1];
  }
  bool at(TokenKind K) const { return tok().is(K); }
  bool atEof() const { return at(TokenKind::eof); }
  /// Consumes the current token (never moves past eof) and returns it.
  const Token &consume();
  bool tryConsume(TokenKind K);
  SourceLoc startLoc() const { return tok().diagLoc(); }
  SourceRange rangeFrom(SourceLoc Begin) const { return SourceRange(Begin, PrevEnd); }

  //===--- Diagnostics ----------------------------------------------------===//
  void error(SourceRange R, std::string Message);
  void note(SourceRange R, std::string Message);
  /// Gives up on the rest of the input (error limit reached, nesting too
  /// deep): jumps to eof and drops further diagnostics.
  void stop();
  /// "expected WHAT, found TOKEN" at the current token. With AfterPrevious,
  /// a token that sits on a later line than the previous one (or eof) is
  /// reported just past the previous token instead, where the missing
  /// punctuation belongs.
  void errorExpected(const std::string &What, bool AfterPrevious = false);
  /// Consumes K or reports "expected 'K' Context".
  bool expect(TokenKind K, const std::string &Context);
  /// Consumes the closing bracket Close matching Open or reports "expected
  /// 'Close' to match this 'Open'" with a note at Open.
  bool expectClosing(TokenKind Close, const Token &Open);
  /// Expects the `;` that ends a statement. When it is missing and the next
  /// token starts a new line (or closes the block), parsing goes on as if
  /// it were there; otherwise the rest of the statement is skipped.
  void expectSemi(const std::string &Context);
  static std::string describe(const Token &T);

  /// Skips the rest of a broken statement: up to and including a `;` or a
  /// balanced `{...}` block at nesting level 0, or up to (excluding) an
  /// unmatched `}`.
  void skipStatement();
  /// Skips to the `)` that closes an already-consumed `(` and consumes it;
  /// stops before a `{` or `}` at nesting level 0, and before a `;` there
  /// too unless StopAtSemi is false (inside a `for` header).
  void skipToCloseParen(bool StopAtSemi = true);
  /// True when the `(` at token index OpenPos has been closed by a consumed
  /// `)`.
  bool closedSince(size_t OpenPos) const;

  /// Guards recursion so that deeply nested input cannot overflow the stack.
  bool enter();
  void leave() {
    --Depth;
    --Height;
  }
  struct DepthGuard {
    Parser &P;
    bool Ok;
    explicit DepthGuard(Parser &P) : P(P), Ok(P.enter()) {}
    ~DepthGuard() {
      if (Ok)
        P.leave();
    }
  };
  /// Counts the links of one left-nested chain (`a+b+c`, `a,b,c`, `x++++`)
  /// into Height while it is built; false (with an error) when the tree
  /// would grow too tall.
  bool extendChain(unsigned &Links);
  void reportTooTall();
  struct ChainGuard {
    Parser &P;
    unsigned Links = 0;
    explicit ChainGuard(Parser &P) : P(P) {}
    ~ChainGuard() { P.Height -= Links; }
    bool extend() { return P.extendChain(Links); }
  };

  //===--- Types ----------------------------------------------------------===//
  bool isTypeStart(const Token &T) const;
  /// Parses specifier keywords (base type and `const`), not the stars.
  bool parseTypeSpecifier(ast::TypeSpec &T);
  /// Parses `*` [restrict|const]... ; returns the number of stars.
  unsigned parseStars(bool &SawRestrict);
  bool isAttributeStart() const;
  /// Parses one attribute (`__multipleof(8)`, `__noalias`, `restrict`...).
  bool parseAttribute(std::vector<ast::Attribute> &Attrs);
  std::optional<int64_t> foldConstant(const ast::Expr &E) const;
  /// Parses `[d0, d1, ...]` (the current token is `[`) into Dims and the
  /// range of the brackets.
  bool parseTileShape(std::vector<ast::ExprPtr> &Dims, SourceRange &Range);

  //===--- Top level ------------------------------------------------------===//
  std::unique_ptr<ast::FunctionDecl> parseFunction();
  bool parseParams(ast::FunctionDecl &F);
  void skipTopLevel();

  //===--- Statements (ParseStmt.cpp) -------------------------------------===//
  ast::StmtPtr parseStatement();
  std::unique_ptr<ast::CompoundStmt> parseCompound();
  /// Parses a declaration; the trailing `;` is consumed too.
  ast::StmtPtr parseDeclStmt();
  bool parseDeclarator(ast::Declarator &D);
  ast::StmtPtr parseExprStmt();
  ast::StmtPtr parseIf();
  ast::StmtPtr parseFor();
  ast::StmtPtr parseWhile();
  ast::StmtPtr parseDoWhile();
  ast::StmtPtr parseReturn();
  /// `( expr )` of if/while/do-while; on error skips to the `)`.
  ast::ExprPtr parseParenCondition(const char *Keyword);

  //===--- Expressions (ParseExpr.cpp) ------------------------------------===//
  ast::ExprPtr parseExpr();
  ast::ExprPtr parseAssignment();
  ast::ExprPtr parseConditional();
  ast::ExprPtr parseBinary(int MinPrec);
  ast::ExprPtr parseRange();
  ast::ExprPtr parseCast();
  ast::ExprPtr parseUnary();
  ast::ExprPtr parsePostfix(ast::ExprPtr Base);
  ast::ExprPtr parsePrimary();
  ast::ExprPtr parseNumber();
  ast::ExprPtr parseSubscript(ast::ExprPtr Base);
  ast::ExprPtr parseCall();
  /// `{e0, e1, ...}` (the current token is `{`): an argument of the
  /// tensor descriptor builtins.
  ast::ExprPtr parseList();
  /// `e0, e1, ...` after Open, up to Close (consumed), each an assignment
  /// expression or, where Lists, a `{...}` list.
  bool parseElements(std::vector<ast::ExprPtr> &Out, TokenKind Close, const Token &Open,
                     bool Lists);
  /// `bitcast<type>(expr)`, the original Triton runtime's reinterpretation.
  ast::ExprPtr parseBitcast();
};

} // namespace tritonc
