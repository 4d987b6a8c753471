//===- IRGen.cpp - Functions, statements and SSA construction -------------===//
//
// SSA form is built while walking the AST, following Braun et al., "Simple
// and Efficient Construction of Static Single Assignment Form" (CC 2013):
// each block records the current value of every variable it assigns; a read
// in a block without a local definition asks its predecessors, placing a phi
// when there are several. Blocks whose predecessors are not all known yet
// (loop headers, join points) stay unsealed and collect incomplete phis that
// are completed when the block is sealed. Trivial phis are removed on the
// fly.
//
//===----------------------------------------------------------------------===//
#include "tritonc/lang/IRGen.h"

#include "IRGenImpl.h"
#include "tritonc/lang/Parser.h"

#include <algorithm>
#include <limits>

namespace tritonc {

std::unique_ptr<ir::Module> generateIR(const ast::TranslationUnit &TU, DiagnosticEngine &Diags,
                                       bool Debug) {
  auto M = std::make_unique<ir::Module>();
  try {
    lang::IRGenerator Gen(Diags, *M, Debug);
    Gen.genTranslationUnit(TU);
  } catch (const InternalError &E) {
    Diags.internal(E.what());
    return nullptr;
  }
  if (Diags.hasErrors())
    return nullptr;
  return M;
}

} // namespace tritonc

namespace tritonc::lang {

using namespace ir;

FEType LValue::type() const {
  if (K == Var)
    return Variable->Type;
  if (K == Mem || K == MaskedMem)
    return Ptr.T.pointee();
  return FEType();
}

void IRGenerator::genTranslationUnit(const ast::TranslationUnit &TU) {
  for (const auto &F : TU.Functions) {
    if (!F || Diags.reachedErrorLimit())
      continue;
    if (!FunctionNames.insert(F->Name).second) {
      if (F->Body) {
        Diags.error(F->NameRange, "redefinition of function '" + F->Name + "'");
        continue;
      }
    }
    if (F->Body)
      genFunction(*F);
  }
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

void IRGenerator::applyParamAttributes(const ast::ParamDecl &P, const FEType &T, Argument *A) {
  ArgAttributes &AA = A->attrs();
  for (const ast::Attribute &At : P.Attrs) {
    switch (At.K) {
    case ast::Attribute::MultipleOf:
      if (!T.isInt() || T.isBool()) {
        Diags.error(At.Range, "'__multipleof' applies only to integer parameters ('" + P.Name +
                                  "' has type '" + T.str() + "')");
      } else if (At.Value <= 0) {
        Diags.error(At.Range,
                    "'__multipleof' needs a positive value (got " + std::to_string(At.Value) + ")");
      } else {
        AA.MultipleOf = At.Value;
      }
      break;
    case ast::Attribute::Aligned:
      if (!T.isPointer()) {
        Diags.error(At.Range, "'__aligned' applies only to pointer parameters ('" + P.Name +
                                  "' has type '" + T.str() + "')");
      } else if (At.Value <= 0 || (At.Value & (At.Value - 1)) != 0) {
        Diags.error(At.Range, "'__aligned' needs a positive power of two (got " +
                                  std::to_string(At.Value) + ")");
      } else {
        AA.Aligned = At.Value;
      }
      break;
    case ast::Attribute::NoAlias:
    case ast::Attribute::Restrict:
    case ast::Attribute::ReadOnly:
    case ast::Attribute::WriteOnly:
    case ast::Attribute::EvictFirst:
    case ast::Attribute::EvictLast: {
      if (!T.isPointer()) {
        Diags.error(At.Range, "'" + attributeSpelling(At) +
                                  "' applies only to pointer parameters ('" + P.Name +
                                  "' has type '" + T.str() + "')");
        break;
      }
      if (At.K == ast::Attribute::ReadOnly) {
        AA.ReadOnly = true;
      } else if (At.K == ast::Attribute::WriteOnly) {
        AA.WriteOnly = true;
      } else if (At.K == ast::Attribute::EvictFirst || At.K == ast::Attribute::EvictLast) {
        ir::EvictionPolicy Policy = At.K == ast::Attribute::EvictFirst ? ir::EvictionPolicy::First
                                                                       : ir::EvictionPolicy::Last;
        if (AA.Eviction != ir::EvictionPolicy::Normal && AA.Eviction != Policy)
          Diags.error(At.Range,
                      "parameter '" + P.Name + "' cannot be both __evict_first and __evict_last");
        AA.Eviction = Policy;
      } else {
        AA.NoAlias = true;
      }
      break;
    }
    }
  }
  if (AA.ReadOnly && AA.WriteOnly)
    Diags.error(P.NameRange,
                "parameter '" + P.Name + "' cannot be both __readonly and __writeonly");
  if (T.isPointer() && P.Type.IsRestrict)
    AA.NoAlias = true;
}

void IRGenerator::genFunction(const ast::FunctionDecl &F) {
  // Reset per-function state.
  Scopes.clear();
  Vars.clear();
  ReportedUndeclared.clear();
  CurrentDef.clear();
  IncompletePhis.clear();
  Sealed.clear();
  Preds.clear();
  PhiVar.clear();
  Replaced.clear();
  Loops.clear();
  FnName = F.Name;

  if (F.ReturnType.Base != ast::BaseType::Void || F.ReturnType.PointerDepth != 0)
    Diags.error(F.ReturnType.Range, "kernel '" + F.Name + "' must return void (got '" +
                                        typeFromSpec(F.ReturnType).str() + "')");

  std::vector<FEType> ParamTypes;
  std::vector<const Type *> IRTypes;
  bool BadParams = false;
  for (const ast::ParamDecl &P : F.Params) {
    FEType T = typeFromSpec(P.Type);
    if (T.IsDesc) {
      Diags.error(P.Type.Range, "parameter '" + P.Name +
                                    "' cannot be a tensor descriptor: pass the pointer and "
                                    "make the descriptor in the kernel with make_desc");
      T = FEType(T.Base, 1);
      BadParams = true;
    }
    if (T.Base == ast::BaseType::Void) {
      Diags.error(P.Type.Range, T.isPointer() ? "pointers to void are not supported"
                                              : "parameter '" + P.Name + "' has type void");
      T = FEType(ast::BaseType::Int, T.PtrDepth);
      BadParams = true;
    }
    ParamTypes.push_back(T);
    IRTypes.push_back(T.toIR());
  }
  (void)BadParams;

  Fn = M.createFunction(F.Name, Type::getVoid(), IRTypes);
  Fn->attrs().IsKernel = true;
  BasicBlock *Entry = Fn->createBlock("entry");
  setBlock(Entry);
  Sealed.insert(Entry);
  at(F.Range);

  pushScope();
  for (size_t I = 0; I < F.Params.size(); ++I) {
    const ast::ParamDecl &P = F.Params[I];
    Argument *A = Fn->getArg(static_cast<unsigned>(I));
    A->setName(P.Name);
    applyParamAttributes(P, ParamTypes[I], A);
    if (P.Name.empty())
      continue;
    VarInfo *V = declareVar(P.Name, ParamTypes[I], P.NameRange, P.Type.IsConst);
    if (V)
      writeVariable(V, Entry, A);
  }
  if (F.Body)
    genCompound(*F.Body, /*NewScope=*/false);
  popScope();

  if (!isTerminated()) {
    at(F.Body ? SourceRange(F.Body->Range.End) : F.Range);
    B.createRet();
  }
  removeUnreachableBlocks();
  Graveyard.clear();
  checkReadOnlyStores(F);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

VarInfo *IRGenerator::lookupVar(const std::string &Name) const {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto F = It->find(Name);
    if (F != It->end())
      return F->second;
  }
  return nullptr;
}

VarInfo *IRGenerator::declareVar(const std::string &Name, FEType T, SourceRange Range,
                                 bool IsConst) {
  auto &Scope = Scopes.back();
  auto It = Scope.find(Name);
  if (It != Scope.end()) {
    Diags.error(Range, "redeclaration of '" + Name + "'");
    Diags.note(It->second->DeclRange, "previous declaration of '" + Name + "' is here");
    return nullptr;
  }
  auto V = std::make_unique<VarInfo>();
  V->Name = Name;
  V->Type = std::move(T);
  V->DeclRange = Range;
  V->IsConst = IsConst;
  VarInfo *Raw = V.get();
  Vars.push_back(std::move(V));
  Scope[Name] = Raw;
  return Raw;
}

//===----------------------------------------------------------------------===//
// Blocks
//===----------------------------------------------------------------------===//

BasicBlock *IRGenerator::newBlock(const std::string &Name) { return Fn->createBlock(Name); }

bool IRGenerator::isTerminated() const {
  BasicBlock *BB = curBlock();
  return !BB || BB->getTerminator() != nullptr;
}

void IRGenerator::branchTo(BasicBlock *Dest) {
  if (isTerminated())
    return;
  B.createBr(Dest);
  noteSuccessors();
}

void IRGenerator::condBranch(Value *Cond, BasicBlock *IfTrue, BasicBlock *IfFalse) {
  B.createCondBr(Cond, IfTrue, IfFalse);
  noteSuccessors();
}

void IRGenerator::noteSuccessors() {
  BasicBlock *From = curBlock();
  for (BasicBlock *To : From->successors()) {
    std::vector<BasicBlock *> &P = Preds[To];
    if (std::find(P.begin(), P.end(), From) == P.end())
      P.push_back(From);
  }
}

void IRGenerator::startDeadBlock() {
  BasicBlock *Dead = newBlock("dead");
  Sealed.insert(Dead);
  setBlock(Dead);
}

/// Whether Phi merges at most one value besides itself; Same is that value
/// (null when the phi refers only to itself).
static bool isTrivialPhi(Instruction *Phi, Value *&Same) {
  Same = nullptr;
  for (Value *Op : Phi->operands()) {
    if (Op == Phi || Op == Same)
      continue;
    if (Same)
      return false; // Merges at least two values.
    Same = Op;
  }
  return true;
}

void IRGenerator::removeUnreachableBlocks() {
  std::set<BasicBlock *> Reachable;
  std::vector<BasicBlock *> Work = {Fn->getEntryBlock()};
  while (!Work.empty()) {
    BasicBlock *BB = Work.back();
    Work.pop_back();
    if (!Reachable.insert(BB).second)
      continue;
    for (BasicBlock *S : BB->successors())
      Work.push_back(S);
  }
  std::vector<BasicBlock *> Dead;
  for (auto &BB : Fn->blocks())
    if (!Reachable.count(BB.get()))
      Dead.push_back(BB.get());
  std::set<BasicBlock *> DeadSet(Dead.begin(), Dead.end());
  // Phis of live blocks forget their dead predecessors.
  for (auto &BB : Fn->blocks()) {
    if (DeadSet.count(BB.get()))
      continue;
    for (auto &I : BB->instructions()) {
      if (I->getOpcode() != Opcode::Phi)
        break;
      for (unsigned K = I->getNumOperands(); K-- > 0;)
        if (DeadSet.count(I->getIncomingBlock(K)))
          I->removeIncoming(K);
    }
  }
  for (BasicBlock *BB : Dead)
    for (auto &I : BB->instructions())
      I->dropAllOperands();
  for (BasicBlock *BB : Dead)
    Fn->eraseBlock(BB);
  // Dead predecessors took part in SSA construction, so phis that merged a
  // value with one from dead code are trivial now: remove them to a fixpoint.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &BB : Fn->blocks()) {
      for (auto It = BB->instructions().begin(); It != BB->instructions().end();) {
        Instruction *Phi = (It++)->get();
        if (Phi->getOpcode() != Opcode::Phi)
          break;
        Value *Same;
        if (!isTrivialPhi(Phi, Same) || !Same)
          continue;
        Phi->replaceAllUsesWith(Same);
        Phi->dropAllOperands();
        Graveyard.push_back(Phi->removeFromParent());
        Changed = true;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// SSA construction
//===----------------------------------------------------------------------===//

Value *IRGenerator::resolve(Value *V) const {
  for (auto It = Replaced.find(V); It != Replaced.end(); It = Replaced.find(V))
    V = It->second;
  return V;
}

void IRGenerator::writeVariable(VarInfo *V, BasicBlock *BB, Value *Val) { CurrentDef[V][BB] = Val; }

Value *IRGenerator::readVariable(VarInfo *V, BasicBlock *BB) {
  auto &Defs = CurrentDef[V];
  auto It = Defs.find(BB);
  if (It != Defs.end())
    return It->second = resolve(It->second);
  return readVariableRecursive(V, BB);
}

Instruction *IRGenerator::newPhi(VarInfo *V, BasicBlock *BB) {
  auto Phi = Instruction::create(Opcode::Phi, V->Type.toIR(), {});
  Phi->setName(V->Name);
  Phi->Loc = V->DeclRange.Begin;
  Instruction *Raw = BB->insert(BB->instructions().begin(), std::move(Phi));
  PhiVar[Raw] = V;
  return Raw;
}

Value *IRGenerator::undefAt(const FEType &T, BasicBlock *BB) {
  Constant *U = M.getUndef(T.scalar().toIR());
  if (!T.isTile())
    return U;
  auto Splat = Instruction::create(Opcode::Splat, T.toIR(), {U});
  Splat->Loc = LastLoc;
  auto Pos = BB->instructions().begin();
  while (Pos != BB->instructions().end() && (*Pos)->getOpcode() == Opcode::Phi)
    ++Pos;
  return BB->insert(Pos, std::move(Splat));
}

Value *IRGenerator::readVariableRecursive(VarInfo *V, BasicBlock *BB) {
  // Braun et al.'s recursive lookup with an explicit stack: a read after
  // thousands of sequential `if`s walks thousands of blocks. A frame waits
  // for the value of its block's next predecessor; Phi is null when the
  // block has a single predecessor (its value is that predecessor's).
  struct Frame {
    BasicBlock *BB;
    Instruction *Phi;
    std::vector<BasicBlock *> Preds;
    size_t Next = 0;
  };
  std::vector<Frame> Stack;
  // The value of V in Block when it is known without visiting predecessors;
  // otherwise null, with a frame pushed.
  auto Start = [&](BasicBlock *Block) -> Value * {
    auto &Defs = CurrentDef[V];
    if (auto It = Defs.find(Block); It != Defs.end())
      return It->second = resolve(It->second);
    if (!Sealed.count(Block)) {
      Instruction *Phi = newPhi(V, Block);
      IncompletePhis[Block].push_back({V, Phi});
      writeVariable(V, Block, Phi);
      return Phi;
    }
    const std::vector<BasicBlock *> &P = Preds[Block];
    if (P.empty()) {
      Value *U = undefAt(V->Type, Block);
      writeVariable(V, Block, U);
      return U;
    }
    Instruction *Phi = nullptr;
    if (P.size() > 1) {
      // Break cycles: the phi is the definition while its operands are read.
      Phi = newPhi(V, Block);
      writeVariable(V, Block, Phi);
    }
    Stack.push_back({Block, Phi, P});
    return nullptr;
  };
  Value *Val = Start(BB);
  while (!Stack.empty()) {
    if (!Val) {
      BasicBlock *Pred = Stack.back().Preds[Stack.back().Next];
      Val = Start(Pred);
      continue;
    }
    Frame &F = Stack.back();
    if (F.Phi) {
      F.Phi->addIncoming(Val, F.Preds[F.Next]);
      if (++F.Next < F.Preds.size()) {
        Val = nullptr;
        continue;
      }
      Val = tryRemoveTrivialPhi(F.Phi);
    }
    writeVariable(V, F.BB, Val);
    Stack.pop_back();
  }
  return Val;
}

Value *IRGenerator::addPhiOperands(VarInfo *V, Instruction *Phi) {
  std::vector<BasicBlock *> P = Preds[Phi->getParent()];
  for (BasicBlock *Pred : P)
    Phi->addIncoming(readVariable(V, Pred), Pred);
  return tryRemoveTrivialPhi(Phi);
}

Value *IRGenerator::tryRemoveTrivialPhi(Instruction *Phi) {
  // Removing a phi can make the phis that use it trivial in turn; a work
  // stack visits them in the order of the recursive formulation.
  std::vector<Instruction *> Work = {Phi};
  while (!Work.empty()) {
    Instruction *P = Work.back();
    Work.pop_back();
    if (!P->getParent())
      continue;
    Value *Same;
    if (!isTrivialPhi(P, Same))
      continue;
    if (!Same)
      Same = undefAt(PhiVar[P]->Type, P->getParent());
    std::vector<Instruction *> Users;
    for (Instruction *U : P->users())
      if (U != P && U->getOpcode() == Opcode::Phi &&
          std::find(Users.begin(), Users.end(), U) == Users.end())
        Users.push_back(U);
    P->replaceAllUsesWith(Same);
    Replaced[P] = Same;
    P->dropAllOperands();
    Graveyard.push_back(P->removeFromParent());
    Work.insert(Work.end(), Users.rbegin(), Users.rend());
  }
  return Phi->getParent() ? Phi : resolve(Phi);
}

void IRGenerator::sealBlock(BasicBlock *BB) {
  if (Sealed.count(BB))
    return;
  auto Pending = std::move(IncompletePhis[BB]);
  IncompletePhis.erase(BB);
  Sealed.insert(BB);
  for (auto &[V, Phi] : Pending)
    addPhiOperands(V, Phi);
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void IRGenerator::genStmt(const ast::Stmt *S) {
  if (!S || Diags.reachedErrorLimit())
    return;
  at(S->Range);
  switch (S->Kind) {
  case ast::StmtKind::Compound:
    genCompound(*S->as<ast::CompoundStmt>(), /*NewScope=*/true);
    return;
  case ast::StmtKind::Decl:
    genDecl(*S->as<ast::DeclStmt>());
    return;
  case ast::StmtKind::ExprS:
    genExpr(S->as<ast::ExprStmt>()->E.get());
    return;
  case ast::StmtKind::If:
    genIf(*S->as<ast::IfStmt>());
    return;
  case ast::StmtKind::For:
    genFor(*S->as<ast::ForStmt>());
    return;
  case ast::StmtKind::While:
    genWhile(*S->as<ast::WhileStmt>());
    return;
  case ast::StmtKind::DoWhile:
    genDoWhile(*S->as<ast::DoWhileStmt>());
    return;
  case ast::StmtKind::Break:
  case ast::StmtKind::Continue: {
    bool IsBreak = S->Kind == ast::StmtKind::Break;
    if (Loops.empty()) {
      Diags.error(S->Range,
                  IsBreak ? "'break' statement not in loop" : "'continue' statement not in loop");
      return;
    }
    branchTo(IsBreak ? Loops.back().Break : Loops.back().Continue);
    startDeadBlock();
    return;
  }
  case ast::StmtKind::Return: {
    const auto *R = S->as<ast::ReturnStmt>();
    if (R->Value) {
      Diags.error(R->Value->Range, "void kernel '" + FnName + "' should not return a value");
      return;
    }
    if (!isTerminated())
      B.createRet();
    startDeadBlock();
    return;
  }
  case ast::StmtKind::Null:
    return;
  }
}

void IRGenerator::genCompound(const ast::CompoundStmt &S, bool NewScope) {
  if (NewScope)
    pushScope();
  for (const auto &Child : S.Body) {
    if (Diags.reachedErrorLimit())
      break;
    genStmt(Child.get());
  }
  if (NewScope)
    popScope();
}

void IRGenerator::genDecl(const ast::DeclStmt &S) {
  for (const ast::Declarator &D : S.Decls) {
    if (Diags.reachedErrorLimit())
      return;
    genDeclarator(S, D);
  }
}

void IRGenerator::genDeclarator(const ast::DeclStmt &S, const ast::Declarator &D) {
  if (S.Type.IsDesc)
    return genDescDeclarator(S, D);
  // Shape: every dimension folds to a positive constant.
  std::optional<ir::Shape> Folded = foldShape(D.Shape, D.ShapeRange);
  bool ShapeOk = Folded.has_value();
  ir::Shape Shape = Folded.value_or(ir::Shape{});
  FEType T = typeFromSpec(S.Type, D.ExtraPointerDepth, ShapeOk ? Shape : ir::Shape{});
  if (T.Base == ast::BaseType::Void) {
    Diags.error(D.NameRange, T.isPointer() ? "pointers to void are not supported"
                                           : "variable '" + D.Name + "' declared void");
    T.Base = ast::BaseType::Int;
    ShapeOk = false;
  }
  int64_t MultipleOf = localAttributes(D, T);

  // The initializer is evaluated before the name is declared, so that
  // `int x = x + 1;` in an inner scope reads the outer x.
  Value *Init = nullptr;
  if (D.Init) {
    const ast::RangeExpr *R = findInitRange(D.Init.get());
    TValue V;
    if (R && ShapeOk && T.Shape.size() == 1 && R->Lo && R->Hi) {
      bool Reported = false;
      auto Lo = foldInt(R->Lo.get(), Reported);
      auto Hi = foldInt(R->Hi.get(), Reported);
      if (Lo && Hi && *Hi - *Lo != T.Shape[0] && *Hi > *Lo) {
        Diags.error(R->Range, "range of " + std::to_string(*Hi - *Lo) +
                                  " elements does not fit tile of " + std::to_string(T.Shape[0]) +
                                  " elements");
        V = TValue::error();
      }
    }
    if (!V.Error)
      V = genExpr(D.Init.get());
    if (!V.Error && V.isVoid()) {
      Diags.error(D.Init->Range, "cannot initialize '" + D.Name + "' with a void value");
      V = TValue::error();
    }
    if (!V.Error && ShapeOk) {
      at(D.Init->Range);
      if (!T.isTile() && V.T.isTile()) {
        Diags.error(D.Init->Range, "cannot initialize scalar '" + D.Name +
                                       "' with a tile of shape " + shapeStr(V.T.Shape));
        noteDeclaration(D.Init.get());
      } else {
        TValue C = convert(V, T.scalar(), D.Init->Range);
        if (!C.Error && broadcastInto(C, T.Shape, D.Init->Range, D.Init.get()))
          Init = C.V;
      }
    }
  }
  VarInfo *Var = declareVar(D.Name, T, D.NameRange, S.Type.IsConst);
  if (!Var)
    return;
  Var->MultipleOf = MultipleOf;
  if (Init)
    applyMultipleOf(Var, Init);
  else
    Init = undefAt(T, curBlock());
  nameValue(Init, D.Name);
  writeVariable(Var, curBlock(), Init);
}

ir::Value *IRGenerator::genCondition(const ast::Expr *E, const char *What) {
  TValue C = genExpr(E);
  if (C.Error || !E)
    return B.getBool(false);
  if (C.isVoid() || (!C.T.isArithmetic() && !C.T.isPointer())) {
    Diags.error(E->Range, std::string("condition of '") + What + "' has type '" + C.T.str() +
                              "', which is not a scalar");
    return B.getBool(false);
  }
  if (C.T.isTile()) {
    Diags.error(E->Range, std::string("condition of '") + What +
                              "' must be a scalar; use a mask (*?() or ?:) for element-wise "
                              "control");
    return B.getBool(false);
  }
  at(E->Range);
  TValue Bv = toBool(C, E->Range);
  return Bv.Error ? B.getBool(false) : Bv.V;
}

void IRGenerator::genIf(const ast::IfStmt &S) {
  Value *Cond = genCondition(S.Cond.get(), "if");
  BasicBlock *Then = newBlock("if.then");
  BasicBlock *Else = S.Else ? newBlock("if.else") : nullptr;
  BasicBlock *End = newBlock("if.end");
  at(S.Range);
  if (!isTerminated())
    condBranch(Cond, Then, Else ? Else : End);
  sealBlock(Then);
  setBlock(Then);
  genStmt(S.Then.get());
  branchTo(End);
  if (Else) {
    sealBlock(Else);
    setBlock(Else);
    genStmt(S.Else.get());
    branchTo(End);
  }
  sealBlock(End);
  setBlock(End);
}

void IRGenerator::genFor(const ast::ForStmt &S) {
  pushScope();
  genStmt(S.Init.get());
  BasicBlock *Cond = newBlock("for.cond");
  BasicBlock *Body = newBlock("for.body");
  BasicBlock *Inc = newBlock("for.inc");
  BasicBlock *End = newBlock("for.end");
  at(S.Range);
  branchTo(Cond);
  setBlock(Cond);
  if (S.Cond) {
    Value *C = genCondition(S.Cond.get(), "for");
    at(S.Cond->Range);
    condBranch(C, Body, End);
  } else {
    branchTo(Body);
  }
  sealBlock(Body);
  setBlock(Body);
  Loops.push_back({End, Inc});
  genStmt(S.Body.get());
  Loops.pop_back();
  branchTo(Inc);
  sealBlock(Inc);
  setBlock(Inc);
  if (S.Step)
    genExpr(S.Step.get());
  at(S.Range);
  branchTo(Cond);
  sealBlock(Cond);
  sealBlock(End);
  setBlock(End);
  popScope();
}

void IRGenerator::genWhile(const ast::WhileStmt &S) {
  BasicBlock *Cond = newBlock("while.cond");
  BasicBlock *Body = newBlock("while.body");
  BasicBlock *End = newBlock("while.end");
  at(S.Range);
  branchTo(Cond);
  setBlock(Cond);
  Value *C = genCondition(S.Cond.get(), "while");
  at(S.Range);
  condBranch(C, Body, End);
  sealBlock(Body);
  setBlock(Body);
  Loops.push_back({End, Cond});
  genStmt(S.Body.get());
  Loops.pop_back();
  branchTo(Cond);
  sealBlock(Cond);
  sealBlock(End);
  setBlock(End);
}

void IRGenerator::genDoWhile(const ast::DoWhileStmt &S) {
  BasicBlock *Body = newBlock("do.body");
  BasicBlock *Cond = newBlock("do.cond");
  BasicBlock *End = newBlock("do.end");
  at(S.Range);
  branchTo(Body);
  setBlock(Body);
  Loops.push_back({End, Cond});
  genStmt(S.Body.get());
  Loops.pop_back();
  branchTo(Cond);
  sealBlock(Cond);
  setBlock(Cond);
  Value *C = genCondition(S.Cond.get(), "do-while");
  at(S.Range);
  condBranch(C, Body, End);
  sealBlock(Body);
  sealBlock(End);
  setBlock(End);
}

} // namespace tritonc::lang
