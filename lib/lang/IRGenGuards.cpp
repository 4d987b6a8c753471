//===- IRGenGuards.cpp - Loads inside the arms of ?: ----------------------===//
//
// In `c ? a : b` with a tile condition both arms are computed for every lane
// and a select picks the result, but no load inside an arm may touch memory
// for a lane the condition gives to the other arm: `c ? exp(*(X + r)) : 0`
// reads X only where c holds, like `c ? *(X + r) : 0` does. While an arm is
// generated its guard (c, or !c for the false arm, and-ed with the guards
// of enclosing arms) is on a stack, and every load of the arm is masked by
// the guard projected onto the load's shape.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

#include <algorithm>

namespace tritonc::lang {

using namespace ir;

TValue IRGenerator::negateGuard(TValue G) {
  if (Constant *C = asConstant(G.V))
    return TValue(B.getBool(C->getInt() == 0), G.T);
  return TValue(B.createBinary(Opcode::Xor, G.V, B.getConstantOfType(G.V->getType(), 1)), G.T);
}

void IRGenerator::pushLoadGuard(TValue G) {
  if (!LoadGuards.empty() && !G.Error) {
    TValue Outer = LoadGuards.back();
    if (auto S = broadcastShapes(Outer.T.Shape, G.T.Shape)) {
      Outer = broadcastTo(Outer, *S);
      G = broadcastTo(G, *S);
      G = TValue(B.createBinary(Opcode::And, Outer.V, G.V), G.T);
    }
  }
  LoadGuards.push_back(G);
}

TValue IRGenerator::enclosingLoadGuard(const Shape &S) {
  if (LoadGuards.empty() || LoadGuards.back().Error)
    return TValue();
  TValue G = LoadGuards.back();
  if (canBroadcastTo(G.T.Shape, S))
    return broadcastTo(G, S);
  // The load has fewer lanes than the guard (a scalar load, or a row of a
  // tile loaded once for every column): a lane of the load is needed when
  // any guard lane it broadcasts to holds, so the guard is or-reduced over
  // the dimensions the load lacks.
  size_t Rank = std::max(G.T.Shape.size(), S.size());
  Shape GS(Rank - G.T.Shape.size(), 1), LS(Rank - S.size(), 1);
  GS.insert(GS.end(), G.T.Shape.begin(), G.T.Shape.end());
  LS.insert(LS.end(), S.begin(), S.end());
  if (GS != G.T.Shape)
    G = TValue(B.createReshape(G.V, GS), G.T.withShape(GS));
  Shape Kept = GS;
  for (size_t Axis = Rank; Axis-- > 0;)
    if (LS[Axis] == 1 && GS[Axis] != 1) {
      G = emitReduce(G, ast::SubscriptItem::ReduceMax, static_cast<int64_t>(Axis));
      Kept[Axis] = 1;
    }
  G = toBool(G, SourceRange());
  if (!G.T.isTile())
    return broadcastTo(G, S);
  if (G.T.Shape != Kept)
    G = TValue(B.createReshape(G.V, Kept), G.T.withShape(Kept));
  if (!canBroadcastTo(Kept, S))
    return TValue(); // unreachable: Kept has 1s wherever S has them
  G = broadcastTo(G, LS);
  if (LS != S)
    G = TValue(B.createReshape(G.V, S), G.T.withShape(S));
  return G;
}

TValue IRGenerator::emitLoad(TValue P, Value *Mask) {
  FEType T = P.T.pointee();
  if (TValue G = enclosingLoadGuard(P.T.Shape); G.V)
    Mask = Mask ? B.createBinary(Opcode::And, Mask, G.V) : G.V;
  if (!Mask)
    return TValue(B.createLoad(P.V), T);
  Value *Undef = M.getUndef(T.scalar().toIR());
  if (T.isTile())
    Undef = B.createSplat(Undef, T.Shape);
  return TValue(B.createMaskedLoad(P.V, Mask, Undef), T);
}

TValue IRGenerator::genGuardedArm(const ast::Expr *Arm, TValue Cond, bool Negated) {
  if (!hasSideEffects(Arm))
    return genExpr(Arm);
  pushLoadGuard(Negated ? negateGuard(Cond) : Cond);
  TValue V = genExpr(Arm);
  LoadGuards.pop_back();
  return V;
}

} // namespace tritonc::lang
