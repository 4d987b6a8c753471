//===- PPExpr.cpp - #if expression evaluation -----------------------------===//
//
// A precedence-climbing parser over tokens that computes the value as it
// parses. Arithmetic follows C: 64-bit values, unsigned when either operand
// is unsigned, wrap-around instead of overflow, and no evaluation (so no
// division-by-zero error) in the branch that && / || / ?: do not take.
//
//===----------------------------------------------------------------------===//
#include "PPExpr.h"

#include "OperatorPrecedence.h"

#include "tritonc/lang/Lexer.h"

namespace tritonc {

namespace {

struct PPValue {
  uint64_t Bits = 0;
  bool Unsigned = false;

  int64_t asSigned() const { return static_cast<int64_t>(Bits); }
  bool isTrue() const { return Bits != 0; }
  static PPValue boolean(bool B) { return PPValue{B ? 1u : 0u, false}; }
};

bool isKeyword(TokenKind K) {
  switch (K) {
#define KEYWORD(Name, Spelling)                                                                    \
  case TokenKind::kw_##Name:                                                                       \
    return true;
#include "tritonc/lang/TokenKinds.def"
  default:
    return false;
  }
}

class ExprEvaluator {
public:
  ExprEvaluator(const std::vector<Token> &Tokens, SourceLoc EndLoc, DiagnosticEngine &Diags)
      : Tokens(Tokens), EndLoc(EndLoc), Diags(Diags) {}

  bool run(int64_t &Result) {
    PPValue V;
    if (!parseConditional(V, true))
      return false;
    if (Pos < Tokens.size()) {
      const Token &T = Tokens[Pos];
      Diags.error(T.range(), "unexpected '" + T.Text + "' in preprocessor expression");
      return false;
    }
    Result = V.asSigned();
    return true;
  }

private:
  const std::vector<Token> &Tokens;
  SourceLoc EndLoc;
  DiagnosticEngine &Diags;
  size_t Pos = 0;
  unsigned Depth = 0;

  const Token *peek() const { return Pos < Tokens.size() ? &Tokens[Pos] : nullptr; }
  bool peekIs(TokenKind K) const { return Pos < Tokens.size() && Tokens[Pos].is(K); }

  bool parseConditional(PPValue &V, bool Eval) {
    if (++Depth > 256) {
      SourceRange R = peek() ? peek()->range() : SourceRange(EndLoc);
      Diags.error(R, "preprocessor expression nested too deeply");
      return false;
    }
    bool Ok = parseConditionalImpl(V, Eval);
    --Depth;
    return Ok;
  }

  bool parseConditionalImpl(PPValue &V, bool Eval) {
    PPValue Cond;
    if (!parseBinary(Cond, 1, Eval))
      return false;
    if (!peekIs(TokenKind::question)) {
      V = Cond;
      return true;
    }
    const Token &Question = Tokens[Pos++];
    PPValue A, B;
    if (!parseConditional(A, Eval && Cond.isTrue()))
      return false;
    if (!peekIs(TokenKind::colon)) {
      SourceRange R = peek() ? peek()->range() : SourceRange(EndLoc);
      Diags.error(R, "expected ':' in preprocessor expression");
      Diags.note(Question.range(), "to match this '?'");
      return false;
    }
    ++Pos;
    if (!parseConditional(B, Eval && !Cond.isTrue()))
      return false;
    V = Cond.isTrue() ? A : B;
    V.Unsigned = A.Unsigned || B.Unsigned;
    return true;
  }

  bool parseBinary(PPValue &LHS, int MinPrec, bool Eval) {
    if (!parseUnary(LHS, Eval))
      return false;
    for (;;) {
      const Token *Op = peek();
      int Prec = Op ? cBinaryPrecedence(Op->Kind) : 0;
      if (Prec == 0 || Prec < MinPrec)
        return true;
      ++Pos;
      // && and || decide whether the right operand is evaluated at all.
      bool EvalRHS = Eval;
      if (Op->is(TokenKind::ampamp))
        EvalRHS = Eval && LHS.isTrue();
      else if (Op->is(TokenKind::pipepipe))
        EvalRHS = Eval && !LHS.isTrue();
      PPValue RHS;
      if (!parseBinary(RHS, Prec + 1, EvalRHS))
        return false;
      if (!apply(*Op, LHS, RHS, Eval))
        return false;
    }
  }

  bool apply(const Token &Op, PPValue &L, const PPValue &R, bool Eval) {
    bool U = L.Unsigned || R.Unsigned;
    uint64_t A = L.Bits, B = R.Bits;
    auto SA = static_cast<int64_t>(A), SB = static_cast<int64_t>(B);
    switch (Op.Kind) {
    case TokenKind::pipepipe:
      L = PPValue::boolean(A != 0 || B != 0);
      return true;
    case TokenKind::ampamp:
      L = PPValue::boolean(A != 0 && B != 0);
      return true;
    case TokenKind::pipe:
      L = PPValue{A | B, U};
      return true;
    case TokenKind::caret:
      L = PPValue{A ^ B, U};
      return true;
    case TokenKind::amp:
      L = PPValue{A & B, U};
      return true;
    case TokenKind::equalequal:
      L = PPValue::boolean(A == B);
      return true;
    case TokenKind::exclaimequal:
      L = PPValue::boolean(A != B);
      return true;
    case TokenKind::less:
      L = PPValue::boolean(U ? A < B : SA < SB);
      return true;
    case TokenKind::greater:
      L = PPValue::boolean(U ? A > B : SA > SB);
      return true;
    case TokenKind::lessequal:
      L = PPValue::boolean(U ? A <= B : SA <= SB);
      return true;
    case TokenKind::greaterequal:
      L = PPValue::boolean(U ? A >= B : SA >= SB);
      return true;
    case TokenKind::lessless:
    case TokenKind::greatergreater: {
      // The result has the left operand's type; out-of-range counts give a
      // defined result instead of undefined behavior.
      bool Left = Op.is(TokenKind::lessless);
      bool InRange = R.Unsigned ? B < 64 : (SB >= 0 && SB < 64);
      uint64_t Res;
      if (Left)
        Res = InRange ? A << B : 0;
      else if (L.Unsigned)
        Res = InRange ? A >> B : 0;
      else
        Res = static_cast<uint64_t>(InRange ? SA >> SB : (SA < 0 ? -1 : 0));
      L = PPValue{Res, L.Unsigned};
      return true;
    }
    case TokenKind::plus:
      L = PPValue{A + B, U};
      return true;
    case TokenKind::minus:
      L = PPValue{A - B, U};
      return true;
    case TokenKind::star:
      L = PPValue{A * B, U};
      return true;
    case TokenKind::slash:
    case TokenKind::percent: {
      bool Div = Op.is(TokenKind::slash);
      if (!Eval) {
        L = PPValue{0, U};
        return true;
      }
      if (B == 0) {
        Diags.error(Op.range(), std::string(Div ? "division" : "remainder") +
                                    " by zero in preprocessor expression");
        return false;
      }
      uint64_t Res;
      if (U)
        Res = Div ? A / B : A % B;
      else if (SA == INT64_MIN && SB == -1)
        Res = Div ? A : 0; // wraps like the unsigned computation would
      else
        Res = static_cast<uint64_t>(Div ? SA / SB : SA % SB);
      L = PPValue{Res, U};
      return true;
    }
    default:
      reportInternalError("unexpected operator in preprocessor expression");
    }
  }

  bool parseUnary(PPValue &V, bool Eval) {
    const Token *T = peek();
    if (!T) {
      Diags.error(SourceRange(EndLoc), "expected value at end of preprocessor expression");
      return false;
    }
    switch (T->Kind) {
    case TokenKind::plus:
    case TokenKind::minus:
    case TokenKind::tilde:
    case TokenKind::exclaim: {
      ++Pos;
      if (++Depth > 256) {
        Diags.error(T->range(), "preprocessor expression nested too deeply");
        return false;
      }
      bool Ok = parseUnary(V, Eval);
      --Depth;
      if (!Ok)
        return false;
      if (T->is(TokenKind::minus))
        V.Bits = 0 - V.Bits;
      else if (T->is(TokenKind::tilde))
        V.Bits = ~V.Bits;
      else if (T->is(TokenKind::exclaim))
        V = PPValue::boolean(!V.isTrue());
      return true;
    }
    case TokenKind::l_paren: {
      ++Pos;
      if (!parseConditional(V, Eval))
        return false;
      if (!peekIs(TokenKind::r_paren)) {
        SourceRange R = peek() ? peek()->range() : SourceRange(EndLoc);
        Diags.error(R, "expected ')' in preprocessor expression");
        Diags.note(T->range(), "to match this '('");
        return false;
      }
      ++Pos;
      return true;
    }
    case TokenKind::int_literal: {
      bool IsUnsigned = false;
      std::optional<uint64_t> Val = parseIntegerLiteral(T->Text, &IsUnsigned);
      if (!Val) {
        Diags.error(T->range(), "integer literal '" + T->Text + "' is too large");
        return false;
      }
      ++Pos;
      // Like C, a literal too large for a signed value is unsigned.
      V = PPValue{*Val, IsUnsigned || *Val > static_cast<uint64_t>(INT64_MAX)};
      return true;
    }
    case TokenKind::char_literal: {
      std::optional<uint32_t> C = charLiteralValue(T->Text);
      ++Pos;
      V = PPValue{C ? *C : 0, false};
      return true;
    }
    case TokenKind::float_literal:
      Diags.error(T->range(), "floating-point literal in preprocessor expression");
      return false;
    case TokenKind::kw_true:
      ++Pos;
      V = PPValue{1, false};
      return true;
    default:
      if (T->is(TokenKind::identifier) || isKeyword(T->Kind)) {
        // Identifiers that are not macros (and keywords other than true)
        // evaluate to 0, as in C.
        ++Pos;
        V = PPValue{0, false};
        return true;
      }
      Diags.error(T->range(), "expected value in preprocessor expression, found '" + T->Text + "'");
      return false;
    }
  }
};

} // namespace

bool evaluatePPExpression(const std::vector<Token> &Tokens, SourceLoc EndLoc,
                          DiagnosticEngine &Diags, int64_t &Result) {
  ExprEvaluator E(Tokens, EndLoc, Diags);
  return E.run(Result);
}

} // namespace tritonc
