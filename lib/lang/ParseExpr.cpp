//===- ParseExpr.cpp - Triton-C parser: expressions -----------------------===//
//
// Precedence, loosest first:
//   ,  |  = op=  (right)  |  ?:  (right)  |  ||  |  &&  |  |  |  ^  |  &
//   == !=  |  < > <= >=  |  << >>  |  + -  |  * / % @
//   lo ... hi   (operands are casts/unary expressions; does not chain)
//   (type) cast  |  prefix + - ! ~ * & ^ ++ -- and *?(mask)
//   postfix [items] ++ --  |  primary
//
// `...` sits above `*` so that `pid * TM + 0 ... TM` means
// `(pid * TM) + (0 ... TM)`, the reading every Triton-C program relies on.
//
//===----------------------------------------------------------------------===//
#include "OperatorPrecedence.h"
#include "ParserImpl.h"

#include "tritonc/lang/Lexer.h"

#include <cstdlib>

namespace tritonc {

using namespace ast;

namespace {

/// Binary operator precedence (higher binds tighter); 0 = not binary. The
/// levels are C's, plus `@` (matrix product), which binds like `*`.
int binaryPrecedence(TokenKind K) {
  return K == TokenKind::at ? MultiplicativePrecedence : cBinaryPrecedence(K);
}

BinaryOp binaryOpFor(TokenKind K) {
  switch (K) {
  case TokenKind::pipepipe:
    return BinaryOp::LogicalOr;
  case TokenKind::ampamp:
    return BinaryOp::LogicalAnd;
  case TokenKind::pipe:
  case TokenKind::pipeequal:
    return BinaryOp::BitOr;
  case TokenKind::caret:
  case TokenKind::caretequal:
    return BinaryOp::BitXor;
  case TokenKind::amp:
  case TokenKind::ampequal:
    return BinaryOp::BitAnd;
  case TokenKind::equalequal:
    return BinaryOp::EQ;
  case TokenKind::exclaimequal:
    return BinaryOp::NE;
  case TokenKind::less:
    return BinaryOp::LT;
  case TokenKind::greater:
    return BinaryOp::GT;
  case TokenKind::lessequal:
    return BinaryOp::LE;
  case TokenKind::greaterequal:
    return BinaryOp::GE;
  case TokenKind::lessless:
  case TokenKind::lesslessequal:
    return BinaryOp::Shl;
  case TokenKind::greatergreater:
  case TokenKind::greatergreaterequal:
    return BinaryOp::Shr;
  case TokenKind::plus:
  case TokenKind::plusequal:
    return BinaryOp::Add;
  case TokenKind::minus:
  case TokenKind::minusequal:
    return BinaryOp::Sub;
  case TokenKind::star:
  case TokenKind::starequal:
    return BinaryOp::Mul;
  case TokenKind::slash:
  case TokenKind::slashequal:
    return BinaryOp::Div;
  case TokenKind::percent:
  case TokenKind::percentequal:
    return BinaryOp::Rem;
  case TokenKind::at:
    return BinaryOp::Dot;
  default:
    return BinaryOp::Comma;
  }
}

bool isAssignmentOp(TokenKind K) {
  switch (K) {
  case TokenKind::equal:
  case TokenKind::plusequal:
  case TokenKind::minusequal:
  case TokenKind::starequal:
  case TokenKind::slashequal:
  case TokenKind::percentequal:
  case TokenKind::ampequal:
  case TokenKind::pipeequal:
  case TokenKind::caretequal:
  case TokenKind::lesslessequal:
  case TokenKind::greatergreaterequal:
    return true;
  default:
    return false;
  }
}

const char *SliceMessage = "tile slicing only accepts ':', 'newaxis' or a reduction (+, max, min)";

} // namespace

ExprPtr Parser::parseExpr() {
  SourceLoc Begin = startLoc();
  ExprPtr LHS = parseAssignment();
  ChainGuard Chain(*this);
  while (LHS && at(TokenKind::comma)) {
    if (!Chain.extend())
      return nullptr;
    SourceRange OpRange = consume().range();
    ExprPtr RHS = parseAssignment();
    if (!RHS)
      return nullptr;
    auto B = std::make_unique<BinaryExpr>(rangeFrom(Begin));
    B->Op = BinaryOp::Comma;
    B->OpRange = OpRange;
    B->LHS = std::move(LHS);
    B->RHS = std::move(RHS);
    LHS = std::move(B);
  }
  return LHS;
}

ExprPtr Parser::parseAssignment() {
  DepthGuard G(*this);
  if (!G.Ok)
    return nullptr;
  SourceLoc Begin = startLoc();
  ExprPtr LHS = parseConditional();
  if (!LHS || !isAssignmentOp(tok().Kind))
    return LHS;
  const Token &Op = consume();
  ExprPtr RHS = parseAssignment();
  if (!RHS)
    return nullptr;
  auto A = std::make_unique<AssignExpr>(rangeFrom(Begin));
  A->IsCompound = Op.isNot(TokenKind::equal);
  if (A->IsCompound)
    A->Op = binaryOpFor(Op.Kind);
  A->OpRange = Op.range();
  A->Target = std::move(LHS);
  A->Value = std::move(RHS);
  return A;
}

ExprPtr Parser::parseConditional() {
  SourceLoc Begin = startLoc();
  ExprPtr Cond = parseBinary(1);
  if (!Cond || !at(TokenKind::question))
    return Cond;
  const Token &Question = consume();
  ExprPtr Then = parseExpr();
  if (!Then)
    return nullptr;
  if (!tryConsume(TokenKind::colon)) {
    errorExpected("':' in the conditional expression", true);
    note(Question.range(), "to match this '?'");
    return nullptr;
  }
  DepthGuard G(*this);
  if (!G.Ok)
    return nullptr;
  ExprPtr Else = parseConditional();
  if (!Else)
    return nullptr;
  auto C = std::make_unique<ConditionalExpr>(rangeFrom(Begin));
  C->Cond = std::move(Cond);
  C->Then = std::move(Then);
  C->Else = std::move(Else);
  return C;
}

ExprPtr Parser::parseBinary(int MinPrec) {
  SourceLoc Begin = startLoc();
  ExprPtr LHS = parseRange();
  ChainGuard Chain(*this);
  while (LHS) {
    int Prec = binaryPrecedence(tok().Kind);
    if (Prec == 0 || Prec < MinPrec)
      break;
    if (!Chain.extend())
      return nullptr;
    const Token &Op = consume();
    // Left-associative: the right operand only takes tighter operators.
    ExprPtr RHS = parseBinary(Prec + 1);
    if (!RHS)
      return nullptr;
    auto B = std::make_unique<BinaryExpr>(rangeFrom(Begin));
    B->Op = binaryOpFor(Op.Kind);
    B->OpRange = Op.range();
    B->LHS = std::move(LHS);
    B->RHS = std::move(RHS);
    LHS = std::move(B);
  }
  return LHS;
}

ExprPtr Parser::parseRange() {
  SourceLoc Begin = startLoc();
  ExprPtr Lo = parseCast();
  if (!Lo || !at(TokenKind::ellipsis))
    return Lo;
  consume();
  ExprPtr Hi = parseCast();
  if (!Hi)
    return nullptr;
  auto R = std::make_unique<RangeExpr>(rangeFrom(Begin));
  R->Lo = std::move(Lo);
  R->Hi = std::move(Hi);
  if (at(TokenKind::ellipsis)) {
    error(tok().range(), "ranges cannot be chained: 'lo ... hi' takes exactly two bounds");
    return nullptr;
  }
  return R;
}

ExprPtr Parser::parseCast() {
  DepthGuard G(*this);
  if (!G.Ok)
    return nullptr;
  if (!at(TokenKind::l_paren) || !isTypeStart(peekTok(1)))
    return parseUnary();
  SourceLoc Begin = startLoc();
  const Token &Open = consume();
  auto C = std::make_unique<CastExpr>(SourceRange(Begin));
  if (!parseTypeSpecifier(C->To))
    return nullptr;
  bool Restrict = false;
  C->To.PointerDepth = parseStars(Restrict);
  C->To.IsRestrict = Restrict;
  C->To.Range = rangeFrom(C->To.Range.Begin);
  if (at(TokenKind::l_square) && !parseTileShape(C->Shape, C->ShapeRange))
    return nullptr;
  if (!expectClosing(TokenKind::r_paren, Open))
    return nullptr;
  C->Operand = parseCast();
  if (!C->Operand)
    return nullptr;
  C->Range = rangeFrom(Begin);
  return C;
}

ExprPtr Parser::parseUnary() {
  SourceLoc Begin = startLoc();
  UnaryOp Op;
  switch (tok().Kind) {
  case TokenKind::plus:
    Op = UnaryOp::Plus;
    break;
  case TokenKind::minus:
    Op = UnaryOp::Minus;
    break;
  case TokenKind::exclaim:
    Op = UnaryOp::Not;
    break;
  case TokenKind::tilde:
    Op = UnaryOp::BitNot;
    break;
  case TokenKind::caret:
    Op = UnaryOp::Transpose;
    break;
  case TokenKind::amp:
    Op = UnaryOp::AddrOf;
    break;
  case TokenKind::plusplus:
    Op = UnaryOp::PreInc;
    break;
  case TokenKind::minusminus:
    Op = UnaryOp::PreDec;
    break;
  case TokenKind::star:
    if (peekTok(1).is(TokenKind::question)) {
      consume();
      const Token &Question = consume();
      const Token &Open = tok();
      if (!expect(TokenKind::l_paren, "after '*?'")) {
        note(Question.range(), "a masked dereference is written '*?(mask) pointer'");
        return nullptr;
      }
      ExprPtr Mask = parseExpr();
      if (!Mask || !expectClosing(TokenKind::r_paren, Open))
        return nullptr;
      ExprPtr Ptr = parseCast();
      if (!Ptr)
        return nullptr;
      auto M = std::make_unique<MaskedDerefExpr>(rangeFrom(Begin));
      M->Mask = std::move(Mask);
      M->Pointer = std::move(Ptr);
      return M;
    }
    Op = UnaryOp::Deref;
    break;
  default:
    return parsePostfix(parsePrimary());
  }
  const Token &OpTok = consume();
  ExprPtr Operand = parseCast();
  if (!Operand)
    return nullptr;
  auto U = std::make_unique<UnaryExpr>(rangeFrom(Begin));
  U->Op = Op;
  U->OpRange = OpTok.range();
  U->Operand = std::move(Operand);
  return U;
}

ExprPtr Parser::parsePostfix(ExprPtr Base) {
  ChainGuard Chain(*this);
  while (Base) {
    bool Postfix = at(TokenKind::l_square) || at(TokenKind::plusplus) || at(TokenKind::minusminus);
    if (Postfix && !Chain.extend())
      return nullptr;
    if (at(TokenKind::l_square)) {
      Base = parseSubscript(std::move(Base));
    } else if (at(TokenKind::plusplus) || at(TokenKind::minusminus)) {
      const Token &OpTok = consume();
      auto U = std::make_unique<UnaryExpr>(SourceRange(Base->Range.Begin, PrevEnd));
      U->Op = OpTok.is(TokenKind::plusplus) ? UnaryOp::PostInc : UnaryOp::PostDec;
      U->OpRange = OpTok.range();
      U->Operand = std::move(Base);
      Base = std::move(U);
    } else if (at(TokenKind::l_paren)) {
      error(tok().range(), "only builtin functions can be called, by name");
      return nullptr;
    } else {
      break;
    }
  }
  return Base;
}

ExprPtr Parser::parseSubscript(ExprPtr Base) {
  const Token &Open = consume();
  auto S = std::make_unique<SubscriptExpr>(Base->Range);
  S->Base = std::move(Base);
  for (;;) {
    const Token &Item = tok();
    const Token &Next = peekTok(1);
    bool Ends = Next.is(TokenKind::comma) || Next.is(TokenKind::r_square);
    std::optional<SubscriptItem::Kind> K;
    if (Item.is(TokenKind::colon))
      K = SubscriptItem::Keep;
    else if (Item.is(TokenKind::kw_newaxis))
      K = SubscriptItem::NewAxis;
    else if (Item.is(TokenKind::plus))
      K = SubscriptItem::ReduceAdd;
    else if (Item.is(TokenKind::identifier) && Item.Text == "max")
      K = SubscriptItem::ReduceMax;
    else if (Item.is(TokenKind::identifier) && Item.Text == "min")
      K = SubscriptItem::ReduceMin;
    if (K && Ends) {
      S->Items.push_back(SubscriptItem{*K, Item.range()});
      consume();
    } else {
      // Find the extent of the bad item (up to the next ',' or ']' at
      // nesting level 0) so that the error underlines all of it and parsing
      // resumes right after it.
      size_t End = Pos;
      unsigned Nest = 0;
      for (; Toks[End].isNot(TokenKind::eof); ++End) {
        TokenKind TK = Toks[End].Kind;
        if (Nest == 0 &&
            (TK == TokenKind::comma || TK == TokenKind::r_square || TK == TokenKind::semi ||
             TK == TokenKind::l_brace || TK == TokenKind::r_brace))
          break;
        if (TK == TokenKind::l_paren || TK == TokenKind::l_square)
          ++Nest;
        else if ((TK == TokenKind::r_paren || TK == TokenKind::r_square) && Nest > 0)
          --Nest;
        else if (TK == TokenKind::r_paren)
          break;
      }
      SourceRange R = Item.range();
      if (End > Pos)
        R.End = Toks[End - 1].range().End;
      error(R, SliceMessage);
      while (Pos < End)
        consume();
      if (!at(TokenKind::comma) && !at(TokenKind::r_square)) {
        expectClosing(TokenKind::r_square, Open);
        return nullptr;
      }
    }
    if (!tryConsume(TokenKind::comma))
      break;
  }
  if (!expectClosing(TokenKind::r_square, Open))
    return nullptr;
  S->Range = SourceRange(S->Range.Begin, PrevEnd);
  return S;
}

bool Parser::parseElements(std::vector<ExprPtr> &Out, TokenKind Close, const Token &Open,
                           bool Lists) {
  if (tryConsume(Close))
    return true;
  for (;;) {
    ExprPtr E = Lists && at(TokenKind::l_brace) ? parseList() : parseAssignment();
    if (!E)
      return false;
    Out.push_back(std::move(E));
    if (!tryConsume(TokenKind::comma))
      break;
  }
  return expectClosing(Close, Open);
}

ExprPtr Parser::parseCall() {
  SourceLoc Begin = startLoc();
  const Token &Name = consume();
  const Token &Open = consume();
  auto C = std::make_unique<CallExpr>(SourceRange(Begin));
  C->Callee = Name.Text;
  C->CalleeRange = Name.range();
  if (!parseElements(C->Args, TokenKind::r_paren, Open, /*Lists=*/true))
    return nullptr;
  C->Range = rangeFrom(Begin);
  return C;
}

ExprPtr Parser::parseList() {
  SourceLoc Begin = startLoc();
  const Token &Open = consume();
  auto L = std::make_unique<ListExpr>(SourceRange(Begin));
  if (!parseElements(L->Elements, TokenKind::r_brace, Open, /*Lists=*/false))
    return nullptr;
  L->Range = rangeFrom(Begin);
  return L;
}

ExprPtr Parser::parseBitcast() {
  SourceLoc Begin = startLoc();
  consume(); // bitcast
  const Token &Less = consume();
  auto C = std::make_unique<CastExpr>(SourceRange(Begin));
  C->IsBitcast = true;
  if (!isTypeStart(tok())) {
    errorExpected("a type after 'bitcast<'");
    return nullptr;
  }
  if (!parseTypeSpecifier(C->To))
    return nullptr;
  bool Restrict = false;
  C->To.PointerDepth = parseStars(Restrict);
  C->To.Range = rangeFrom(C->To.Range.Begin);
  if (!expectClosing(TokenKind::greater, Less))
    return nullptr;
  const Token &Open = tok();
  if (!expect(TokenKind::l_paren, "after 'bitcast<type>'"))
    return nullptr;
  C->Operand = parseExpr();
  if (!C->Operand || !expectClosing(TokenKind::r_paren, Open))
    return nullptr;
  C->Range = rangeFrom(Begin);
  return C;
}

ExprPtr Parser::parseNumber() {
  const Token &T = consume();
  SourceRange R = T.range();
  if (T.is(TokenKind::float_literal)) {
    auto F = std::make_unique<FloatLiteralExpr>(R);
    std::string Digits = T.Text;
    while (!Digits.empty() && (Digits.back() == 'f' || Digits.back() == 'F' ||
                               Digits.back() == 'l' || Digits.back() == 'L')) {
      F->IsFloat |= Digits.back() == 'f' || Digits.back() == 'F';
      Digits.pop_back();
    }
    F->Value = std::strtod(Digits.c_str(), nullptr);
    return F;
  }
  auto I = std::make_unique<IntLiteralExpr>(R);
  if (T.is(TokenKind::char_literal)) {
    std::optional<uint32_t> V = charLiteralValue(T.Text);
    if (!V) {
      error(R, "invalid character literal " + T.Text);
      return nullptr;
    }
    I->Value = *V;
    return I;
  }
  std::optional<uint64_t> V = parseIntegerLiteral(T.Text, &I->IsUnsigned);
  if (!V) {
    error(R, "integer literal '" + T.Text + "' is too large");
    return nullptr;
  }
  I->Value = *V;
  I->IsLong = T.Text.find_first_of("lL") != std::string::npos;
  return I;
}

ExprPtr Parser::parsePrimary() {
  const Token &T = tok();
  switch (T.Kind) {
  case TokenKind::identifier: {
    if (T.Text == "bitcast" && peekTok(1).is(TokenKind::less))
      return parseBitcast();
    if (peekTok(1).is(TokenKind::l_paren))
      return parseCall();
    consume();
    auto I = std::make_unique<IdentExpr>(T.range());
    I->Name = T.Text;
    return I;
  }
  case TokenKind::int_literal:
  case TokenKind::float_literal:
  case TokenKind::char_literal:
    return parseNumber();
  case TokenKind::string_literal: {
    consume();
    std::optional<std::string> Text = stringLiteralValue(T.Text);
    if (!Text) {
      error(T.range(), "invalid string literal " + T.Text);
      return nullptr;
    }
    auto S = std::make_unique<StringLiteralExpr>(T.range());
    S->Value = std::move(*Text);
    return S;
  }
  case TokenKind::kw_true:
  case TokenKind::kw_false: {
    consume();
    auto B = std::make_unique<BoolLiteralExpr>(T.range());
    B->Value = T.is(TokenKind::kw_true);
    return B;
  }
  case TokenKind::l_paren: {
    const Token &Open = consume();
    ExprPtr E = parseExpr();
    if (!E || !expectClosing(TokenKind::r_paren, Open))
      return nullptr;
    // The parentheses belong to the range: diagnostics underline them too.
    E->Range = rangeFrom(Open.diagLoc());
    return E;
  }
  case TokenKind::kw_newaxis:
    error(T.range(), "'newaxis' can only be used inside a subscript, as in 'x[:, newaxis]'");
    return nullptr;
  default:
    errorExpected("expression");
    return nullptr;
  }
}

} // namespace tritonc
