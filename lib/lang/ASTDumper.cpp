//===- ASTDumper.cpp - Deterministic text form of the AST -----------------===//
//
// Statements go one per line, indented by two spaces per level; expressions
// are written inline in prefix form. Missing pieces of a partial tree (after
// parse errors) print as `<error>`. See Parser.h for an example.
//
//===----------------------------------------------------------------------===//
#include "tritonc/lang/Parser.h"

#include <charconv>

namespace tritonc {

using namespace ast;

namespace {

const char *unaryOpSpelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Plus:
    return "+";
  case UnaryOp::Minus:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  case UnaryOp::Deref:
    return "deref";
  case UnaryOp::AddrOf:
    return "addr";
  case UnaryOp::Transpose:
    return "trans";
  case UnaryOp::PreInc:
    return "pre++";
  case UnaryOp::PreDec:
    return "pre--";
  case UnaryOp::PostInc:
    return "post++";
  case UnaryOp::PostDec:
    return "post--";
  }
  return "?";
}

const char *itemSpelling(SubscriptItem::Kind K) {
  switch (K) {
  case SubscriptItem::Keep:
    return ":";
  case SubscriptItem::NewAxis:
    return "newaxis";
  case SubscriptItem::ReduceAdd:
    return "+";
  case SubscriptItem::ReduceMax:
    return "max";
  case SubscriptItem::ReduceMin:
    return "min";
  }
  return "?";
}

std::string floatSpelling(double V, bool IsFloat) {
  char Buf[64];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  std::string S = Ec == std::errc() ? std::string(Buf, End) : std::to_string(V);
  // Keep floats distinguishable from integers: 1.0 prints as "1.0", not "1".
  if (S.find_first_of(".eEni") == std::string::npos)
    S += ".0";
  return IsFloat ? S + "f" : S;
}

class Dumper {
public:
  std::string Out;

  void expr(const Expr *E) { Out += exprText(E); }

  static std::string exprText(const Expr *E) {
    if (!E)
      return "<error>";
    switch (E->Kind) {
    case ExprKind::IntLiteral: {
      auto *L = E->as<IntLiteralExpr>();
      return std::to_string(L->Value) + (L->IsUnsigned ? "u" : "") + (L->IsLong ? "l" : "");
    }
    case ExprKind::FloatLiteral: {
      auto *L = E->as<FloatLiteralExpr>();
      return floatSpelling(L->Value, L->IsFloat);
    }
    case ExprKind::BoolLiteral:
      return E->as<BoolLiteralExpr>()->Value ? "true" : "false";
    case ExprKind::Ident:
      return E->as<IdentExpr>()->Name;
    case ExprKind::Unary: {
      auto *U = E->as<UnaryExpr>();
      return std::string("(") + unaryOpSpelling(U->Op) + " " + exprText(U->Operand.get()) + ")";
    }
    case ExprKind::Binary: {
      auto *B = E->as<BinaryExpr>();
      return std::string("(") + binaryOpSpelling(B->Op) + " " + exprText(B->LHS.get()) + " " +
             exprText(B->RHS.get()) + ")";
    }
    case ExprKind::Assign: {
      auto *A = E->as<AssignExpr>();
      std::string Op = A->IsCompound ? std::string(binaryOpSpelling(A->Op)) + "=" : "=";
      return "(" + Op + " " + exprText(A->Target.get()) + " " + exprText(A->Value.get()) + ")";
    }
    case ExprKind::Conditional: {
      auto *C = E->as<ConditionalExpr>();
      return "(? " + exprText(C->Cond.get()) + " " + exprText(C->Then.get()) + " " +
             exprText(C->Else.get()) + ")";
    }
    case ExprKind::StringLiteral: {
      std::string Out = "\"";
      for (char C : E->as<StringLiteralExpr>()->Value)
        Out += C == '\n' ? std::string("\\n") : C == '"' ? std::string("\\\"") : std::string(1, C);
      return Out + "\"";
    }
    case ExprKind::Cast: {
      auto *C = E->as<CastExpr>();
      std::string Shape = C->Shape.empty() ? "" : shapeText(C->Shape);
      return std::string(C->IsBitcast ? "(bitcast " : "(cast ") + typeSpecToString(C->To) + Shape +
             " " + exprText(C->Operand.get()) + ")";
    }
    case ExprKind::Call: {
      auto *C = E->as<CallExpr>();
      std::string S = "(call " + C->Callee;
      for (const ExprPtr &A : C->Args)
        S += " " + exprText(A.get());
      return S + ")";
    }
    case ExprKind::Range: {
      auto *R = E->as<RangeExpr>();
      return "(... " + exprText(R->Lo.get()) + " " + exprText(R->Hi.get()) + ")";
    }
    case ExprKind::Subscript: {
      auto *S = E->as<SubscriptExpr>();
      std::string T = "(slice " + exprText(S->Base.get()) + " [";
      for (size_t I = 0; I < S->Items.size(); ++I)
        T += (I ? ", " : "") + std::string(itemSpelling(S->Items[I].K));
      return T + "])";
    }
    case ExprKind::MaskedDeref: {
      auto *M = E->as<MaskedDerefExpr>();
      return "(masked-deref " + exprText(M->Mask.get()) + " " + exprText(M->Pointer.get()) + ")";
    }
    case ExprKind::List: {
      std::string S = "(list";
      for (const ExprPtr &X : E->as<ListExpr>()->Elements)
        S += " " + exprText(X.get());
      return S + ")";
    }
    }
    return "<unknown>";
  }

  void line(unsigned Indent) {
    Out += "\n";
    Out.append(2 * Indent, ' ');
  }

  static std::string shapeText(const std::vector<ExprPtr> &Dims) {
    std::string T = "[";
    for (size_t I = 0; I < Dims.size(); ++I)
      T += (I ? ", " : "") + exprText(Dims[I].get());
    return T + "]";
  }

  void declarator(const Declarator &D) {
    Out += "(var " + std::string(D.ExtraPointerDepth, '*') + D.Name;
    if (!D.Shape.empty())
      Out += " " + shapeText(D.Shape);
    for (const Attribute &A : D.Attrs)
      Out += " " + attributeSpelling(A);
    if (D.Init)
      Out += " = " + exprText(D.Init.get());
    Out += ")";
  }

  /// Writes S starting at the current position; nested statements go on
  /// new lines at Indent + 1.
  void stmt(const Stmt *S, unsigned Indent) {
    if (!S) {
      Out += "<error>";
      return;
    }
    switch (S->Kind) {
    case StmtKind::Compound: {
      Out += "(compound";
      for (const StmtPtr &C : S->as<CompoundStmt>()->Body)
        child(C.get(), Indent + 1);
      Out += ")";
      return;
    }
    case StmtKind::Decl: {
      auto *D = S->as<DeclStmt>();
      Out += "(decl " + typeSpecToString(D->Type);
      for (const Declarator &X : D->Decls) {
        Out += " ";
        declarator(X);
      }
      Out += ")";
      return;
    }
    case StmtKind::ExprS:
      Out += "(expr " + exprText(S->as<ExprStmt>()->E.get()) + ")";
      return;
    case StmtKind::If: {
      auto *I = S->as<IfStmt>();
      Out += "(if " + exprText(I->Cond.get());
      child(I->Then.get(), Indent + 1);
      if (I->Else)
        child(I->Else.get(), Indent + 1);
      Out += ")";
      return;
    }
    case StmtKind::For: {
      auto *F = S->as<ForStmt>();
      Out += "(for ";
      if (F->Init)
        stmt(F->Init.get(), Indent + 1);
      else
        Out += "()";
      Out += " " + (F->Cond ? exprText(F->Cond.get()) : std::string("()"));
      Out += " " + (F->Step ? exprText(F->Step.get()) : std::string("()"));
      child(F->Body.get(), Indent + 1);
      Out += ")";
      return;
    }
    case StmtKind::While: {
      auto *W = S->as<WhileStmt>();
      Out += "(while " + exprText(W->Cond.get());
      child(W->Body.get(), Indent + 1);
      Out += ")";
      return;
    }
    case StmtKind::DoWhile: {
      auto *W = S->as<DoWhileStmt>();
      Out += "(do-while " + exprText(W->Cond.get());
      child(W->Body.get(), Indent + 1);
      Out += ")";
      return;
    }
    case StmtKind::Break:
      Out += "(break)";
      return;
    case StmtKind::Continue:
      Out += "(continue)";
      return;
    case StmtKind::Return: {
      auto *R = S->as<ReturnStmt>();
      Out += R->Value ? "(return " + exprText(R->Value.get()) + ")" : std::string("(return)");
      return;
    }
    case StmtKind::Null:
      Out += "(null)";
      return;
    }
  }

  void child(const Stmt *S, unsigned Indent) {
    line(Indent);
    stmt(S, Indent);
  }

  void function(const FunctionDecl &F) {
    Out += "(function ";
    if (F.IsGlobal)
      Out += "__global__ ";
    Out += typeSpecToString(F.ReturnType) + " " + F.Name;
    for (const ParamDecl &P : F.Params) {
      line(1);
      Out += "(param " + typeSpecToString(P.Type) + " " + P.Name;
      // `restrict` already shows in the type.
      for (const Attribute &A : P.Attrs)
        if (A.K != Attribute::Restrict)
          Out += " " + attributeSpelling(A);
      Out += ")";
    }
    if (F.Body)
      child(F.Body.get(), 1);
    Out += ")\n";
  }
};

} // namespace

std::string attributeSpelling(const Attribute &A) {
  switch (A.K) {
  case Attribute::MultipleOf:
    return "__multipleof(" + std::to_string(A.Value) + ")";
  case Attribute::Aligned:
    return "__aligned(" + std::to_string(A.Value) + ")";
  case Attribute::NoAlias:
    return "__noalias";
  case Attribute::ReadOnly:
    return "__readonly";
  case Attribute::WriteOnly:
    return "__writeonly";
  case Attribute::Restrict:
    return "restrict";
  case Attribute::EvictFirst:
    return "__evict_first";
  case Attribute::EvictLast:
    return "__evict_last";
  }
  return "?";
}

std::string typeSpecToString(const TypeSpec &T) {
  std::string S = T.IsConst ? "const " : "";
  S += baseTypeName(T.Base);
  S.append(T.PointerDepth, '*');
  if (T.IsRestrict)
    S += " restrict";
  return S;
}

std::string dumpExpr(const Expr &E) { return Dumper::exprText(&E); }

std::string dumpAST(const TranslationUnit &TU) {
  Dumper D;
  for (const auto &F : TU.Functions)
    if (F)
      D.function(*F);
  return D.Out;
}

} // namespace tritonc
