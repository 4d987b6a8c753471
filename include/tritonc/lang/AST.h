//===- AST.h - Triton-C abstract syntax tree --------------------*- C++ -*-===//
//
// The parser produces this tree; IRGen type-checks it and lowers it to
// Triton-IR in one walk (there is no separate annotated AST). Nodes carry
// source ranges for diagnostics. Kinds are enums so that code can switch over
// them; `dyn_cast`-style helpers are provided by `as<T>()`.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/support/SourceManager.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tritonc::ast {

//===----------------------------------------------------------------------===//
// Types as written
//===----------------------------------------------------------------------===//

/// Base types of Triton-C. `unsigned` alone means UInt; `long long` = Long.
enum class BaseType {
  Void,
  Bool,
  Char,
  UChar,
  Short,
  UShort,
  Int,
  UInt,
  Long,
  ULong,
  Half,
  BFloat16,
  Float,
  Double
};

/// The C spelling of a base type ("unsigned char", "bfloat16").
const char *baseTypeName(BaseType B);

/// A type specifier as written, without tile shape: `const float *restrict`.
struct TypeSpec {
  BaseType Base = BaseType::Int;
  unsigned PointerDepth = 0; ///< Number of `*`.
  bool IsConst = false;
  bool IsRestrict = false; ///< `restrict` on the (outermost) pointer.
  /// `__desc`: a tensor descriptor of Base elements (the declarator's shape
  /// is its block shape).
  bool IsDesc = false;
  SourceRange Range;
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// Parameter and declaration attributes (`__multipleof(8)`, `__noalias`...).
struct Attribute {
  enum Kind {
    MultipleOf,
    Aligned,
    NoAlias,
    ReadOnly,
    WriteOnly,
    Restrict,
    EvictFirst,
    EvictLast
  } K;
  int64_t Value = 0; ///< For MultipleOf / Aligned (argument already evaluated).
  SourceRange Range;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind {
  IntLiteral,
  FloatLiteral,
  BoolLiteral,
  Ident,
  Unary,
  Binary,
  Assign,
  Conditional,
  Cast,
  Call,
  Range,
  Subscript,
  MaskedDeref,
  StringLiteral,
  List,
};

struct Expr {
  ExprKind Kind;
  SourceRange Range;

  explicit Expr(ExprKind K, SourceRange R) : Kind(K), Range(R) {}
  virtual ~Expr() = default;
  template <typename T> T *as() { return Kind == T::ClassKind ? static_cast<T *>(this) : nullptr; }
  template <typename T> const T *as() const {
    return Kind == T::ClassKind ? static_cast<const T *>(this) : nullptr;
  }
};

struct IntLiteralExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::IntLiteral;
  uint64_t Value = 0;
  bool IsUnsigned = false; ///< `u` suffix.
  bool IsLong = false;     ///< `l`/`ll` suffix.
  IntLiteralExpr(SourceRange R) : Expr(ClassKind, R) {}
};

struct FloatLiteralExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::FloatLiteral;
  double Value = 0;
  bool IsFloat = false; ///< `f` suffix: type float; otherwise double.
  FloatLiteralExpr(SourceRange R) : Expr(ClassKind, R) {}
};

struct BoolLiteralExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::BoolLiteral;
  bool Value = false;
  BoolLiteralExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `"text"` (escapes decoded): only the format of `print` and the message of
/// `assert` take one.
struct StringLiteralExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::StringLiteral;
  std::string Value;
  StringLiteralExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// A name: a variable, or a builtin constant such as INFINITY / NAN.
struct IdentExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Ident;
  std::string Name;
  IdentExpr(SourceRange R) : Expr(ClassKind, R) {}
};

enum class UnaryOp {
  Plus,      ///< +x
  Minus,     ///< -x
  Not,       ///< !x
  BitNot,    ///< ~x
  Deref,     ///< *p (load, or store target on the left of `=`)
  AddrOf,    ///< &x (rejected by IRGen: Triton-C has no address-of)
  Transpose, ///< ^x
  PreInc,
  PreDec,
  PostInc,
  PostDec,
};

struct UnaryExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Unary;
  UnaryOp Op;
  ExprPtr Operand;
  SourceRange OpRange; ///< Range of the operator token.
  UnaryExpr(SourceRange R) : Expr(ClassKind, R) {}
};

enum class BinaryOp {
  Mul,
  Div,
  Rem,
  Dot, ///< a @ b
  Add,
  Sub,
  Shl,
  Shr,
  LT,
  GT,
  LE,
  GE,
  EQ,
  NE,
  BitAnd,
  BitXor,
  BitOr,
  LogicalAnd,
  LogicalOr,
  Comma,
};

/// The source spelling of a binary operator ("+", "@", "&&", ",").
const char *binaryOpSpelling(BinaryOp Op);

struct BinaryExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Binary;
  BinaryOp Op;
  ExprPtr LHS, RHS;
  SourceRange OpRange;
  BinaryExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `lhs = rhs` and compound forms; Op is the arithmetic of a compound
/// assignment (`+=` has Op = Add), absent for plain `=`.
struct AssignExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Assign;
  bool IsCompound = false;
  BinaryOp Op = BinaryOp::Add;
  ExprPtr Target, Value;
  SourceRange OpRange;
  AssignExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `c ? a : b`. When `a` or `b` is a dereference, IRGen turns it into a
/// masked load that never touches memory where `c` is false.
struct ConditionalExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Conditional;
  ExprPtr Cond, Then, Else;
  ConditionalExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `(type)expr`, `(type[d0, d1])expr` (a cast to a tile type: convert, then
/// splat or broadcast to that shape) or `bitcast<type>(expr)` (reinterpret
/// the bits).
struct CastExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Cast;
  TypeSpec To;
  ExprPtr Operand;
  std::vector<ExprPtr> Shape; ///< Empty: the operand's shape is kept.
  SourceRange ShapeRange;
  bool IsBitcast = false;
  CastExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// A call of a builtin (`get_program_id(0)`, `exp(x)`, `atomic_cas(p, 0, 1)`).
struct CallExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Call;
  std::string Callee;
  SourceRange CalleeRange;
  std::vector<ExprPtr> Args;
  CallExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `{a, b, c}`: a list of values, only as an argument of the tensor
/// descriptor builtins (extents, strides, offsets).
struct ListExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::List;
  std::vector<ExprPtr> Elements;
  ListExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `lo ... hi`: the 1-D tile [lo, lo+1, ..., hi-1]. Both bounds must be
/// constant; its length must equal the declared tile length.
struct RangeExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Range;
  ExprPtr Lo, Hi;
  RangeExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// One item of a subscript list: `:` keeps a dimension, `newaxis` inserts a
/// dimension of size 1, a reduction operator (`+`, `max`, `min`) reduces the
/// dimension away.
struct SubscriptItem {
  enum Kind { Keep, NewAxis, ReduceAdd, ReduceMax, ReduceMin } K;
  SourceRange Range;
};

/// `x[:, newaxis]`, `x[+]`, `x[:, max]`. A subscript list made only of
/// reductions reduces every listed axis: `x[+]` on a 1-D tile gives a scalar.
struct SubscriptExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::Subscript;
  ExprPtr Base;
  std::vector<SubscriptItem> Items;
  SubscriptExpr(SourceRange R) : Expr(ClassKind, R) {}
};

/// `*?(mask) ptr`: a load where mask is true (other lanes are undefined
/// unless used as `mask ? *?(mask)p : other`), or a store target.
struct MaskedDerefExpr : Expr {
  static constexpr ExprKind ClassKind = ExprKind::MaskedDeref;
  ExprPtr Mask, Pointer;
  MaskedDerefExpr(SourceRange R) : Expr(ClassKind, R) {}
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind {
  Compound,
  Decl,
  ExprS,
  If,
  For,
  While,
  DoWhile,
  Break,
  Continue,
  Return,
  Null
};

struct Stmt {
  StmtKind Kind;
  SourceRange Range;
  explicit Stmt(StmtKind K, SourceRange R) : Kind(K), Range(R) {}
  virtual ~Stmt() = default;
  template <typename T> T *as() { return Kind == T::ClassKind ? static_cast<T *>(this) : nullptr; }
  template <typename T> const T *as() const {
    return Kind == T::ClassKind ? static_cast<const T *>(this) : nullptr;
  }
};
using StmtPtr = std::unique_ptr<Stmt>;

struct CompoundStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Compound;
  std::vector<StmtPtr> Body;
  CompoundStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

/// One declarator: `rm[TM] = expr`, `*pa[TM, TK]`. The declared pointer
/// depth is DeclStmt::Type.PointerDepth + ExtraPointerDepth; the parser
/// records every `*` of a declaration statement here (C semantics: `int *p,
/// q;` declares one pointer) and leaves Type.PointerDepth at 0. `restrict`
/// after a star becomes a Restrict attribute. An empty Shape declares a
/// scalar.
struct Declarator {
  std::string Name;
  SourceRange NameRange;
  unsigned ExtraPointerDepth = 0;
  std::vector<ExprPtr> Shape; ///< Must fold to positive constants.
  SourceRange ShapeRange;
  ExprPtr Init; ///< May be null.
  std::vector<Attribute> Attrs;
};

struct DeclStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Decl;
  TypeSpec Type;
  std::vector<Declarator> Decls;
  DeclStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct ExprStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::ExprS;
  ExprPtr E;
  ExprStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct IfStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::If;
  ExprPtr Cond;
  StmtPtr Then, Else; ///< Else may be null.
  IfStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

/// `for (init; cond; step) body`; Init is a DeclStmt or ExprStmt (or null),
/// Cond and Step may be null.
struct ForStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::For;
  StmtPtr Init;
  ExprPtr Cond, Step;
  StmtPtr Body;
  ForStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct WhileStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::While;
  ExprPtr Cond;
  StmtPtr Body;
  WhileStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct DoWhileStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::DoWhile;
  StmtPtr Body;
  ExprPtr Cond;
  DoWhileStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct BreakStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Break;
  BreakStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct ContinueStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Continue;
  ContinueStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct ReturnStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Return;
  ExprPtr Value; ///< May be null.
  ReturnStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

struct NullStmt : Stmt {
  static constexpr StmtKind ClassKind = StmtKind::Null;
  NullStmt(SourceRange R) : Stmt(ClassKind, R) {}
};

//===----------------------------------------------------------------------===//
// Top level
//===----------------------------------------------------------------------===//

struct ParamDecl {
  TypeSpec Type;
  std::string Name;
  SourceRange NameRange;
  std::vector<Attribute> Attrs;
  SourceRange Range;
};

struct FunctionDecl {
  bool IsGlobal = false; ///< `__global__` (kernels); every function is a kernel today.
  TypeSpec ReturnType;
  std::string Name;
  SourceRange NameRange;
  std::vector<ParamDecl> Params;
  std::unique_ptr<CompoundStmt> Body; ///< Null for a declaration without body.
  SourceRange Range;
};

struct TranslationUnit {
  std::vector<std::unique_ptr<FunctionDecl>> Functions;
};

} // namespace tritonc::ast
