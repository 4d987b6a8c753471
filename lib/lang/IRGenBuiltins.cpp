//===- IRGenBuiltins.cpp - Builtin function calls -------------------------===//
//
// Triton-C has no user-defined function calls: every call names a builtin.
// Program ids, atomics (scalar or tile, optionally masked), element-wise
// math, min/max/fma, and function forms of `@` (dot) and `^` (trans).
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

namespace tritonc::lang {

using namespace ir;
using ast::BaseType;

static std::string plural(size_t N, const char *Word) {
  return std::to_string(N) + " " + Word + (N == 1 ? "" : "s");
}

bool IRGenerator::checkArity(const ast::CallExpr &E, size_t Min, size_t Max) {
  size_t N = E.Args.size();
  if (N >= Min && N <= Max)
    return true;
  std::string Expect =
      Min == Max ? plural(Min, "argument") : std::to_string(Min) + " or " + plural(Max, "argument");
  Diags.error(E.Range, "'" + E.Callee + "' expects " + Expect + " but " + std::to_string(N) +
                           (N == 1 ? " was" : " were") + " given");
  return false;
}

static bool mathOpcode(const std::string &Name, Opcode &Op) {
  static const std::pair<const char *, Opcode> Table[] = {
      {"exp", Opcode::Exp},     {"log", Opcode::Log},     {"sqrt", Opcode::Sqrt},
      {"rsqrt", Opcode::Rsqrt}, {"sin", Opcode::Sin},     {"cos", Opcode::Cos},
      {"tanh", Opcode::Tanh},   {"floor", Opcode::Floor}, {"ceil", Opcode::Ceil},
      {"abs", Opcode::FAbs},
  };
  for (const auto &[N, O] : Table)
    if (Name == N) {
      Op = O;
      return true;
    }
  return false;
}

TValue IRGenerator::genCall(const ast::CallExpr &E) {
  const std::string &Name = E.Callee;
  Opcode MathOp;
  if (Name == "get_program_id" || Name == "get_num_programs")
    return genProgramIdCall(E, Name == "get_num_programs");
  if (Name.rfind("atomic_", 0) == 0 &&
      (Name == "atomic_cas" || Name == "atomic_xchg" || Name == "atomic_add" ||
       Name == "atomic_max" || Name == "atomic_min" || Name == "atomic_and" ||
       Name == "atomic_or" || Name == "atomic_xor"))
    return genAtomicCall(E, Name);
  if (mathOpcode(Name, MathOp))
    return genMathCall(E, MathOp);
  if (Name == "min" || Name == "max")
    return genMinMaxCall(E, Name == "max");
  if (Name == "print" || Name == "assert")
    return genDebugCall(E);
  if (Name == "desc_load" || Name == "desc_store")
    return genDescAccess(E, Name == "desc_store");
  if (Name == "reshape")
    return genReshapeCall(E);
  if (Name == "make_desc") {
    Diags.error(E.Range, "'make_desc' only initializes a tensor descriptor's declaration, which "
                         "gives its element type and block shape: '__desc half d[64, 64] = "
                         "make_desc(...)'");
    return TValue::error();
  }
  if (Name == "select") {
    // select(c, a, b): `c ? a : b` evaluating both arms, never masking a load.
    std::vector<TValue> Args;
    for (const auto &A : E.Args)
      Args.push_back(genExpr(A.get()));
    if (!checkArity(E, 3, 3))
      return TValue::error();
    if (!Args[0].Error && !Args[0].T.isArithmetic() && !Args[0].T.isPointer()) {
      Diags.error(E.Args[0]->Range, "condition of 'select' has type '" + Args[0].T.str() + "'");
      return TValue::error();
    }
    return emitSelect(Args[0], Args[1], Args[2],
                      {E.Args[0].get(), E.Args[1].get(), E.Args[2].get()}, E.Range, "'select'");
  }
  if (Name == "__debug_barrier") {
    // The original runtime's explicit barrier between the threads of a
    // program. tritonc orders every tile operation before the next one and
    // places the barriers that needs itself (BarrierPlacement), so the call
    // has nothing left to do; it is accepted so that such kernels compile.
    if (!checkArity(E, 0, 0))
      return TValue::error();
    return TValue::voidValue();
  }
  if (Name == "dot" || Name == "trans" || Name == "fma") {
    size_t N = Name == "dot" ? 2 : Name == "trans" ? 1 : 3;
    std::vector<TValue> Args;
    for (const auto &A : E.Args)
      Args.push_back(genExpr(A.get()));
    if (!checkArity(E, N, N))
      return TValue::error();
    for (const TValue &A : Args)
      if (A.Error)
        return TValue::error();
    if (Name == "dot")
      return emitDot(Args[0], Args[1], E.Range);
    if (Name == "trans")
      return emitTrans(Args[0], E.Range);
    // fma(a, b, c): a float operation; integers convert to float.
    for (size_t I = 0; I < 3; ++I)
      if (!Args[I].T.isArithmetic()) {
        Diags.error(E.Args[I]->Range,
                    "argument of 'fma' has type '" + Args[I].T.str() + "', which is not a number");
        return TValue::error();
      }
    FEType Elem = commonArithmeticType(Args[0].T, Args[0].Weak, Args[1].T, Args[1].Weak);
    Elem = commonArithmeticType(Elem, Args[0].Weak && Args[1].Weak, Args[2].T, Args[2].Weak);
    if (!Elem.isFloat())
      Elem = FEType(BaseType::Float);
    at(E.Range);
    auto S = broadcastShapes(Args[0].T.Shape, Args[1].T.Shape);
    if (S)
      S = broadcastShapes(*S, Args[2].T.Shape);
    if (!S) {
      Diags.error(E.Range, "cannot broadcast the arguments of 'fma' (shapes " +
                               shapeStr(Args[0].T.Shape) + ", " + shapeStr(Args[1].T.Shape) +
                               " and " + shapeStr(Args[2].T.Shape) + ")");
      return TValue::error();
    }
    for (size_t I = 0; I < 3; ++I)
      Args[I] = broadcastTo(convert(Args[I], Elem, E.Args[I]->Range), *S);
    at(E.Range);
    return TValue(B.createFma(Args[0].V, Args[1].V, Args[2].V), Args[0].T);
  }
  for (const auto &A : E.Args)
    genExpr(A.get());
  if (FunctionNames.count(Name))
    Diags.error(E.CalleeRange.isValid() ? E.CalleeRange : E.Range,
                "cannot call kernel '" + Name + "': Triton-C only calls builtin functions");
  else
    Diags.error(E.CalleeRange.isValid() ? E.CalleeRange : E.Range,
                "use of undeclared function '" + Name + "'");
  return TValue::error();
}

TValue IRGenerator::genProgramIdCall(const ast::CallExpr &E, bool NumPrograms) {
  if (!checkArity(E, 1, 1))
    return TValue::error();
  const ast::Expr *A = E.Args[0].get();
  if (!A)
    return TValue::error();
  bool Reported = false;
  auto Axis = foldInt(A, Reported);
  if (!Axis || *Axis < 0 || *Axis > 2) {
    if (!Reported)
      Diags.error(A->Range, "axis of '" + E.Callee + "' must be a constant 0, 1 or 2");
    return TValue::error();
  }
  at(E.Range);
  Value *V = NumPrograms ? B.createGetNumPrograms(*Axis) : B.createGetProgramId(*Axis);
  return TValue(V, FEType(BaseType::Int));
}

TValue IRGenerator::genAtomicCall(const ast::CallExpr &E, const std::string &Name) {
  bool IsCAS = Name == "atomic_cas";
  std::vector<TValue> Args;
  for (size_t I = 0; I < E.Args.size(); ++I) {
    if (I == 0) {
      TValue P = genExpr(E.Args[0].get());
      if (!P.Error && !P.T.isPointer()) {
        Diags.error(E.Args[0]->Range,
                    "first argument of '" + Name + "' must be a pointer (got '" + P.T.str() + "')");
        P = TValue::error();
      }
      Args.push_back(P);
    } else if (!IsCAS && I == 2) {
      Args.push_back(genMask(E.Args[2].get()));
    } else {
      Args.push_back(genExpr(E.Args[I].get()));
    }
  }
  if (!checkArity(E, IsCAS ? 3 : 2, 3))
    return TValue::error();
  for (const TValue &A : Args)
    if (A.Error)
      return TValue::error();
  FEType Pointee = Args[0].T.scalar().pointee();
  ReduceKind RK = ReduceKind::Xchg;
  if (!IsCAS && Name != "atomic_xchg") {
    bool IsInt = Pointee.isInt() && !Pointee.isBool();
    bool Ok = IsInt || (Name == "atomic_add" && Pointee.isFloat());
    if (!Ok) {
      Diags.error(E.Range,
                  "'" + Name + "' does not support values of type '" + Pointee.str() + "'");
      return TValue::error();
    }
    bool S = Pointee.isSigned();
    if (Name == "atomic_add")
      RK = Pointee.isFloat() ? ReduceKind::FAdd : ReduceKind::Add;
    else if (Name == "atomic_max")
      RK = S ? ReduceKind::SMax : ReduceKind::UMax;
    else if (Name == "atomic_min")
      RK = S ? ReduceKind::SMin : ReduceKind::UMin;
    else if (Name == "atomic_and")
      RK = ReduceKind::And;
    else if (Name == "atomic_or")
      RK = ReduceKind::Or;
    else
      RK = ReduceKind::Xor;
  }
  at(E.Range);
  // Values convert to the pointee type; everything broadcasts to one shape.
  size_t NumValues = IsCAS ? 3 : 2;
  for (size_t I = 1; I < NumValues; ++I) {
    Args[I] = convert(Args[I], Pointee, E.Args[I]->Range);
    if (Args[I].Error)
      return TValue::error();
  }
  std::optional<Shape> S = Args[0].T.Shape;
  for (size_t I = 1; I < Args.size() && S; ++I)
    S = broadcastShapes(*S, Args[I].T.Shape);
  if (!S) {
    std::string Shapes;
    for (size_t I = 0; I < Args.size(); ++I)
      Shapes += (I ? (I + 1 == Args.size() ? " and " : ", ") : "") + shapeStr(Args[I].T.Shape);
    Diags.error(E.Range,
                "cannot broadcast the arguments of '" + Name + "' (shapes " + Shapes + ")");
    return TValue::error();
  }
  for (TValue &A : Args)
    A = broadcastTo(A, *S);
  at(E.Range);
  if (IsCAS)
    return TValue(B.createAtomicCAS(Args[0].V, Args[1].V, Args[2].V), Pointee.withShape(*S));
  Value *Mask = Args.size() == 3 ? Args[2].V : nullptr;
  return TValue(B.createAtomicRMW(RK, Args[0].V, Args[1].V, Mask), Pointee.withShape(*S));
}

TValue IRGenerator::genMathCall(const ast::CallExpr &E, Opcode Op) {
  TValue V = E.Args.empty() ? TValue::error() : genExpr(E.Args[0].get());
  for (size_t I = 1; I < E.Args.size(); ++I)
    genExpr(E.Args[I].get());
  if (!checkArity(E, 1, 1) || V.Error)
    return TValue::error();
  if (!V.T.isArithmetic()) {
    Diags.error(E.Args[0]->Range, "argument of '" + E.Callee + "' has type '" + V.T.str() +
                                      "', which is not a number");
    return TValue::error();
  }
  at(E.Range);
  if (E.Callee == "abs" && V.T.isInt()) {
    V = convert(V, promoteInt(V.T.scalar()), E.Range);
    at(E.Range);
    return TValue(B.createUnary(Opcode::IAbs, V.V), V.T);
  }
  if (V.T.isInt())
    V = convert(V, FEType(BaseType::Float), E.Range);
  at(E.Range);
  return TValue(B.createUnary(Op, V.V), V.T);
}

TValue IRGenerator::genMinMaxCall(const ast::CallExpr &E, bool IsMax) {
  std::vector<TValue> Args;
  for (const auto &A : E.Args)
    Args.push_back(genExpr(A.get()));
  if (!checkArity(E, 2, 2) || Args[0].Error || Args[1].Error)
    return TValue::error();
  TValue L = Args[0], R = Args[1];
  if (!L.T.isArithmetic() || !R.T.isArithmetic()) {
    Diags.error(E.Range, "invalid arguments to '" + E.Callee + "' ('" + L.T.str() + "' and '" +
                             R.T.str() + "')");
    return TValue::error();
  }
  FEType Elem = commonArithmeticType(L.T, L.Weak, R.T, R.Weak);
  bool Weak = L.Weak && R.Weak;
  at(E.Range);
  L = convert(L, Elem, E.Args[0]->Range);
  R = convert(R, Elem, E.Args[1]->Range);
  if (L.Error || R.Error || !broadcastPair(L, R, E.Range, E.Args[0].get(), E.Args[1].get()))
    return TValue::error();
  at(E.Range);
  Opcode Op = Elem.isFloat()    ? (IsMax ? Opcode::FMax : Opcode::FMin)
              : Elem.isSigned() ? (IsMax ? Opcode::SMax : Opcode::SMin)
                                : (IsMax ? Opcode::UMax : Opcode::UMin);
  return TValue(B.createBinary(Op, L.V, R.V), L.T, Weak);
}

/// reshape(x, {d0, d1, ...}): the elements of tile x in row-major order as a
/// tile of the constant shape [d0, d1, ...] (the same number of elements).
TValue IRGenerator::genReshapeCall(const ast::CallExpr &E) {
  if (!checkArity(E, 2, 2))
    return TValue::error();
  TValue V = genExpr(E.Args[0].get());
  const auto *L = E.Args[1]->as<ast::ListExpr>();
  if (!L) {
    Diags.error(E.Args[1]->Range,
                "'reshape' expects its shape as a list of constants {d0, d1, ...}");
    return TValue::error();
  }
  std::optional<Shape> S = foldShape(L->Elements, L->Range);
  if (V.Error || !S)
    return TValue::error();
  if (!V.T.isTile() || V.T.IsDesc) {
    Diags.error(E.Args[0]->Range, "'reshape' needs a tile, not '" + V.T.str() + "'");
    return TValue::error();
  }
  if (numElements(*S) != numElements(V.T.Shape)) {
    Diags.error(E.Range, "'reshape' of a tile of shape " + shapeStr(V.T.Shape) + " to " +
                             shapeStr(*S) + " changes the number of elements");
    return TValue::error();
  }
  at(E.Range);
  return TValue(B.createReshape(V.V, *S), V.T.withShape(*S));
}

} // namespace tritonc::lang
