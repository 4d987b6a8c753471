//===- IRGenImpl.h - Private state of Triton-C IR generation ---*- C++ -*-===//
//
// The IRGenerator is split over several files by responsibility:
//   IRGen.cpp          functions, statements, scopes, SSA construction
//   IRGenExpr.cpp      expressions (operators, lvalues, subscripts, ranges)
//   IRGenValues.cpp    conversions, broadcasting, arithmetic emission
//   IRGenBuiltins.cpp  builtin calls (program ids, atomics, math)
//   IRGenConst.cpp     constant folding of shapes and range bounds
//
//===----------------------------------------------------------------------===//
#pragma once

#include "TypeRules.h"

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/IR.h"
#include "tritonc/lang/AST.h"
#include "tritonc/support/Diagnostics.h"

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tritonc::lang {

/// A typed value of the front end. `Weak` marks unsuffixed literals (and
/// arithmetic on them only), whose type yields to the other operand. An
/// error value (`Error`) has no IR value; every operation on it quietly
/// yields another error value, so one mistake is reported once.
struct TValue {
  ir::Value *V = nullptr;
  FEType T;
  bool Weak = false;
  bool Error = false;

  TValue() = default;
  TValue(ir::Value *V, FEType T, bool Weak = false) : V(V), T(std::move(T)), Weak(Weak) {}
  static TValue error() {
    TValue R;
    R.Error = true;
    return R;
  }
  static TValue voidValue() { return TValue(nullptr, FEType(ast::BaseType::Void)); }
  bool isVoid() const { return !Error && T.isVoid(); }
};

/// A declared variable (parameter or local). SSA values are tracked per
/// variable and block.
struct VarInfo {
  std::string Name;
  FEType Type;
  SourceRange DeclRange;
  bool IsConst = false;
  /// `__multipleof(N)` on a local: every value assigned is a multiple.
  int64_t MultipleOf = 1;
};

/// What an assignment writes to.
struct LValue {
  enum Kind { Var, Mem, MaskedMem, Invalid } K = Invalid;
  VarInfo *Variable = nullptr;
  TValue Ptr;  ///< Mem / MaskedMem: the pointer (scalar or tile).
  TValue Mask; ///< MaskedMem: the mask, already bool and of Ptr's shape.
  /// The type of the stored value: the variable's, or the pointee with the
  /// pointer's shape.
  FEType type() const;
};

class IRGenerator {
public:
  IRGenerator(DiagnosticEngine &Diags, ir::Module &M, bool Debug = false)
      : Diags(Diags), M(M), B(M), Debug(Debug) {}

  void genTranslationUnit(const ast::TranslationUnit &TU);

  //===--- IRGen.cpp: functions, statements and SSA ------------------------===//
  void genFunction(const ast::FunctionDecl &F);
  void applyParamAttributes(const ast::ParamDecl &P, const FEType &T, ir::Argument *A);
  void genStmt(const ast::Stmt *S);
  void genCompound(const ast::CompoundStmt &S, bool NewScope);
  void genDecl(const ast::DeclStmt &S);
  void genDeclarator(const ast::DeclStmt &S, const ast::Declarator &D);
  void genIf(const ast::IfStmt &S);
  void genFor(const ast::ForStmt &S);
  void genWhile(const ast::WhileStmt &S);
  void genDoWhile(const ast::DoWhileStmt &S);
  /// Evaluates a statement condition to a scalar i1 (`false` on error).
  ir::Value *genCondition(const ast::Expr *E, const char *What);

  // Scopes.
  VarInfo *lookupVar(const std::string &Name) const;
  VarInfo *declareVar(const std::string &Name, FEType T, SourceRange Range, bool IsConst);
  void pushScope() { Scopes.emplace_back(); }
  void popScope() { Scopes.pop_back(); }

  // Blocks.
  ir::BasicBlock *newBlock(const std::string &Name);
  void setBlock(ir::BasicBlock *BB) { B.setInsertPoint(BB); }
  ir::BasicBlock *curBlock() const { return B.getInsertBlock(); }
  bool isTerminated() const;
  /// Branches to Dest unless the current block already ended.
  void branchTo(ir::BasicBlock *Dest);
  /// Ends the current block with a conditional branch.
  void condBranch(ir::Value *Cond, ir::BasicBlock *IfTrue, ir::BasicBlock *IfFalse);
  /// Records the edges of the current block's new terminator in Preds.
  void noteSuccessors();
  /// After break/continue/return: following code goes to a fresh block
  /// without predecessors (removed once the function is done).
  void startDeadBlock();
  void removeUnreachableBlocks();

  // SSA construction (Braun et al. 2013).
  void writeVariable(VarInfo *V, ir::BasicBlock *BB, ir::Value *Val);
  ir::Value *readVariable(VarInfo *V, ir::BasicBlock *BB);
  ir::Value *readVariableRecursive(VarInfo *V, ir::BasicBlock *BB);
  ir::Value *addPhiOperands(VarInfo *V, ir::Instruction *Phi);
  ir::Value *tryRemoveTrivialPhi(ir::Instruction *Phi);
  void sealBlock(ir::BasicBlock *BB);
  ir::Instruction *newPhi(VarInfo *V, ir::BasicBlock *BB);
  ir::Value *resolve(ir::Value *V) const;
  /// An undefined value of T, placed at the start of BB when T is a tile.
  ir::Value *undefAt(const FEType &T, ir::BasicBlock *BB);

  //===--- IRGenExpr.cpp ----------------------------------------------------===//
  TValue genExpr(const ast::Expr *E);
  TValue genIntLiteral(const ast::IntLiteralExpr &E);
  TValue genIdent(const ast::IdentExpr &E);
  TValue genUnary(const ast::UnaryExpr &E);
  TValue genBinary(const ast::BinaryExpr &E);
  TValue genLogical(const ast::BinaryExpr &E);
  TValue genAssign(const ast::AssignExpr &E);
  TValue genIncDec(const ast::UnaryExpr &E);
  TValue genConditional(const ast::ConditionalExpr &E);
  TValue genMaskedConditional(const ast::ConditionalExpr &E, TValue Cond, bool DerefInThen);
  TValue genBranchyConditional(const ast::ConditionalExpr &E, TValue Cond);
  /// Element-wise `C ? T : F` (of `?:` and `select`): the arms convert to
  /// their common type, all three broadcast; Operands are the expressions
  /// of C, T and F (for diagnostics), What names the construct.
  TValue emitSelect(TValue C, TValue T, TValue F, std::array<const ast::Expr *, 3> Operands,
                    SourceRange R, const char *What);
  TValue genCast(const ast::CastExpr &E);
  /// `bitcast<To>(V)`: the same bits read as To (same width; or pointers).
  TValue emitBitcast(TValue V, const FEType &To, SourceRange R);
  TValue genRange(const ast::RangeExpr &E, std::optional<int64_t> Expected);
  TValue genSubscript(const ast::SubscriptExpr &E);
  TValue genMaskedDeref(const ast::MaskedDerefExpr &E);
  TValue genDeref(const ast::UnaryExpr &E);
  /// Evaluates a pointer operand of a (masked) dereference.
  TValue genPointerOperand(const ast::Expr *E, SourceRange OpRange, bool Masked);
  /// Evaluates a mask and converts it to bool.
  TValue genMask(const ast::Expr *E);

  LValue genLValue(const ast::Expr *E);
  TValue loadLValue(const LValue &L, SourceRange R);
  /// Converts V to the lvalue's type and stores it; returns what was stored.
  TValue storeLValue(const LValue &L, TValue V, SourceRange R, const ast::Expr *ValueExpr);

  //===--- IRGenValues.cpp --------------------------------------------------===//
  /// Converts V's elements to ToElem (a scalar type); the shape is kept.
  /// Explicit conversions (casts) also allow pointer <-> integer and
  /// pointer <-> pointer.
  TValue convert(TValue V, const FEType &ToElem, SourceRange R, bool Explicit = false);
  ir::Value *emitConversion(ir::Value *V, const FEType &From, const FEType &To);
  ir::Value *foldConversion(ir::Constant *C, const FEType &From, const FEType &To);
  /// Converts to bool elements (`!= 0`).
  TValue toBool(TValue V, SourceRange R);
  /// Splats, reshapes and broadcasts V to exactly shape S (which V must be
  /// broadcastable to).
  TValue broadcastTo(TValue V, const ir::Shape &S);
  /// Broadcasts two operands to a common shape; reports an error at OpRange
  /// (with notes at the operands' declarations) when impossible.
  bool broadcastPair(TValue &L, TValue &R, SourceRange OpRange, const ast::Expr *LE,
                     const ast::Expr *RE);
  /// Broadcasts V to exactly shape S, reporting an error at R when impossible.
  bool broadcastInto(TValue &V, const ir::Shape &S, SourceRange R, const ast::Expr *VE);
  void noteDeclaration(const ast::Expr *E);
  /// The binary operators (except && || , and assignment).
  TValue emitBinary(ast::BinaryOp Op, TValue L, TValue R, SourceRange OpRange, const ast::Expr *LE,
                    const ast::Expr *RE);
  /// Folds integer arithmetic on two scalar constants; null if not foldable.
  ir::Value *foldIntBinary(ast::BinaryOp Op, ir::Value *L, ir::Value *R, bool Signed);
  TValue emitPointerArith(ast::BinaryOp Op, TValue L, TValue R, SourceRange OpRange,
                          const ast::Expr *LE, const ast::Expr *RE);
  TValue emitCompare(ast::BinaryOp Op, TValue L, TValue R, SourceRange OpRange, const ast::Expr *LE,
                     const ast::Expr *RE);
  TValue emitDot(TValue L, TValue R, SourceRange OpRange);
  TValue emitTrans(TValue V, SourceRange R);
  TValue emitReduce(TValue V, ast::SubscriptItem::Kind K, int64_t Axis);
  TValue constInt(const FEType &T, int64_t V, bool Weak = false);
  TValue constFloat(const FEType &T, double V, bool Weak = false);
  void invalidOperands(const char *Op, const TValue &L, const TValue &R, SourceRange R0);
  /// Gives the IR value a name hint when it has none.
  void nameValue(ir::Value *V, const std::string &Name);

  //===--- IRGenBuiltins.cpp ------------------------------------------------===//
  TValue genCall(const ast::CallExpr &E);
  bool checkArity(const ast::CallExpr &E, size_t Min, size_t Max);
  TValue genProgramIdCall(const ast::CallExpr &E, bool NumPrograms);
  TValue genAtomicCall(const ast::CallExpr &E, const std::string &Name);
  TValue genMathCall(const ast::CallExpr &E, ir::Opcode Op);
  TValue genMinMaxCall(const ast::CallExpr &E, bool IsMax);
  TValue genReshapeCall(const ast::CallExpr &E);

  //===--- IRGenDescriptors.cpp: __desc, make_desc, desc_load, desc_store ---===//
  void genDescDeclarator(const ast::DeclStmt &S, const ast::Declarator &D);
  /// make_desc(base, {extents}, {strides}) initializing a descriptor of T.
  TValue genMakeDesc(const ast::CallExpr &E, const FEType &T);
  /// Argument Arg of E, a brace list of Rank integer scalars converted to
  /// To; nullopt after an error. What names them ("extents").
  std::optional<std::vector<ir::Value *>>
  genDescList(const ast::CallExpr &E, size_t Arg, size_t Rank, const FEType &To, const char *What);
  TValue genDescOperand(const ast::CallExpr &E);
  /// desc_load(d, {offsets}) or desc_store(d, {offsets}, value).
  TValue genDescAccess(const ast::CallExpr &E, bool IsStore);

  //===--- IRGenGuards.cpp: loads inside the arms of ?: ---------------------===//
  TValue negateGuard(TValue G);
  /// Makes G (and-ed with the enclosing guard) the guard of the loads
  /// generated until the matching pop.
  void pushLoadGuard(TValue G);
  /// The enclosing guard projected onto a load of shape S (a lane is needed
  /// when any guard lane it feeds holds); V is null when there is none.
  TValue enclosingLoadGuard(const ir::Shape &S);
  /// Loads through P where Mask (may be null) and the enclosing guard hold;
  /// other lanes are undefined.
  TValue emitLoad(TValue P, ir::Value *Mask);
  /// Generates one arm of `?:` with its loads guarded by Cond (or !Cond).
  TValue genGuardedArm(const ast::Expr *Arm, TValue Cond, bool Negated);

  //===--- IRGenPromises.cpp: checks of attribute promises ------------------===//
  /// Reports stores and atomics through pointers computed from `__readonly`
  /// parameters of F (run once Fn is complete).
  void checkReadOnlyStores(const ast::FunctionDecl &F);
  /// Checks the attributes of a local declarator of type T; returns its
  /// `__multipleof` value (1 without one). Other attributes are ignored
  /// with a warning.
  int64_t localAttributes(const ast::Declarator &D, const FEType &T);
  /// Marks Val, about to be assigned to V, with V's `__multipleof` hint (a
  /// constant is checked here).
  void applyMultipleOf(VarInfo *V, ir::Value *Val);

  //===--- IRGenDebug.cpp: print and assert ---------------------------------===//
  /// `print(...)` / `assert(...)`: IR only when Debug is set.
  TValue genDebugCall(const ast::CallExpr &E);
  TValue emitAssert(const ast::CallExpr &E, const ast::Expr &CondExpr, const std::string &Message);
  TValue emitPrint(const ast::CallExpr &E, const std::vector<const ast::Expr *> &Exprs,
                   const std::string &Format);
  /// Assignments, increments, atomics, print or assert anywhere in E.
  static bool hasWrites(const ast::Expr *E);

  //===--- IRGenConst.cpp ---------------------------------------------------===//
  /// Folds an integer constant expression. nullopt if it is not constant;
  /// Reported is set when an error (division by zero) was already reported.
  std::optional<int64_t> foldInt(const ast::Expr *E, bool &Reported);
  /// Folds one tile dimension, reporting errors; nullopt on error.
  std::optional<int64_t> foldDim(const ast::Expr *E);
  /// Folds a tile shape (declaration or cast), reporting errors at its
  /// dimensions or, for a tile too large, at Range; nullopt on error.
  std::optional<ir::Shape> foldShape(const std::vector<ast::ExprPtr> &Dims, SourceRange Range);

  /// Syntactic side effects: loads, stores, assignments, atomics.
  static bool hasSideEffects(const ast::Expr *E);
  /// The range expression that fixes the length of an initializer, if any
  /// (`lo ... hi`, possibly offset: `pid * TM + 0 ... TM`).
  static const ast::RangeExpr *findInitRange(const ast::Expr *E);

  /// Sets the source location of the instructions created next.
  void at(SourceRange R) {
    LastLoc = R.Begin;
    B.setLoc(R.Begin);
  }

  DiagnosticEngine &Diags;
  ir::Module &M;
  ir::IRBuilder B;
  SourceLoc LastLoc;  ///< What `at` set last (for instructions made without B).
  bool Debug = false; ///< Emit print and assert (--debug).

  // Per-function state.
  ir::Function *Fn = nullptr;
  std::string FnName;
  std::vector<std::map<std::string, VarInfo *>> Scopes;
  std::vector<std::unique_ptr<VarInfo>> Vars;
  std::set<std::string> ReportedUndeclared;
  std::map<VarInfo *, std::map<ir::BasicBlock *, ir::Value *>> CurrentDef;
  std::map<ir::BasicBlock *, std::vector<std::pair<VarInfo *, ir::Instruction *>>> IncompletePhis;
  std::set<ir::BasicBlock *> Sealed;
  /// Predecessors of each block, recorded as branches are created
  /// (BasicBlock::predecessors scans the whole function: quadratic here).
  std::map<ir::BasicBlock *, std::vector<ir::BasicBlock *>> Preds;
  std::map<ir::Instruction *, VarInfo *> PhiVar;
  std::map<ir::Value *, ir::Value *> Replaced;
  /// Phis removed as trivial; kept alive until the function is done so that
  /// pointers to them stay valid while the algorithm runs.
  std::vector<std::unique_ptr<ir::Instruction>> Graveyard;
  struct LoopTargets {
    ir::BasicBlock *Break, *Continue;
  };
  std::vector<LoopTargets> Loops;
  std::set<std::string> FunctionNames;
  /// Guards of the `?:` arms being generated, innermost last (IRGenGuards).
  std::vector<TValue> LoadGuards;
};

} // namespace tritonc::lang
