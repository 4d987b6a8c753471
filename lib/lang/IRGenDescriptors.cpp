//===- IRGenDescriptors.cpp - Tensor descriptors: __desc, make_desc ------===//
//
// A tensor descriptor names a strided N-D tensor in global memory (base
// pointer, extents, strides) and the block shape one access moves:
//
//   __desc half dx[1, TP, TQ, TK] = make_desc(X, {Z, H, W, C}, {H * W * C, W * C, C, 1});
//   half a[1, TP, TQ, TK] = desc_load(dx, {z, p - 1, q - 1, c});   // outside: 0
//   desc_store(dy, {z, p, q, k}, acc);                             // outside: skipped
//
// The declaration gives the element type and the block shape, so make_desc
// is only an initializer. The IR is make_tensor_desc / desc_load /
// desc_store (docs/IR.md); the back end's lower-tensor-descs pass turns the
// accesses into bulk tensor copies or masked gathers.
//
//===----------------------------------------------------------------------===//
#include "IRGenImpl.h"

namespace tritonc::lang {

using namespace ir;
using ast::BaseType;

/// Largest block dimension: the copy engine's box limit, so that every
/// descriptor can become a tensor map.
static constexpr int64_t MaxBlockDim = 256;
static constexpr size_t MaxDescRank = 5;

void IRGenerator::genDescDeclarator(const ast::DeclStmt &S, const ast::Declarator &D) {
  std::optional<Shape> Block = foldShape(D.Shape, D.ShapeRange);
  bool Ok = Block.has_value();
  if (D.ExtraPointerDepth || S.Type.PointerDepth) {
    Diags.error(D.NameRange, "a tensor descriptor describes elements, not pointers: write "
                             "'__desc half " +
                                 D.Name + "[...]' for a tensor of 'half'");
    Ok = false;
  }
  if (S.Type.Base == BaseType::Void || S.Type.Base == BaseType::Bool) {
    Diags.error(S.Type.Range, std::string("tensor descriptors of '") +
                                  ast::baseTypeName(S.Type.Base) + "' are not supported");
    Ok = false;
  }
  if (Block && Block->empty()) {
    Diags.error(D.NameRange, "tensor descriptor '" + D.Name +
                                 "' needs a block shape: '__desc half " + D.Name +
                                 "[64, 64] = make_desc(...)'");
    Ok = false;
  } else if (Block && Block->size() > MaxDescRank) {
    Diags.error(D.ShapeRange,
                "a tensor descriptor has 1 to 5 dimensions, not " + std::to_string(Block->size()));
    Ok = false;
  } else if (Block) {
    for (size_t K = 0; K < Block->size(); ++K) {
      int64_t N = (*Block)[K];
      if ((N & (N - 1)) != 0 || N > MaxBlockDim) {
        Diags.error(D.Shape[K]->Range, "block dimension " + std::to_string(N) +
                                           " of a tensor descriptor must be a power of two "
                                           "no larger than 256");
        Ok = false;
      }
    }
  }
  if (!D.Init)
    Diags.error(D.NameRange, "tensor descriptor '" + D.Name +
                                 "' needs an initializer: make_desc(base, {extents}, {strides})");
  for (const ast::Attribute &A : D.Attrs)
    Diags.warning(A.Range, "attributes of a tensor descriptor are ignored");
  FEType T = FEType::descriptor(Ok ? S.Type.Base : BaseType::Half, Ok ? *Block : Shape{1});
  Value *Init = nullptr;
  if (D.Init && Ok) { // after an error above, the initializer would only add more
    const auto *Call = D.Init->as<ast::CallExpr>();
    TValue V = Call && Call->Callee == "make_desc" ? genMakeDesc(*Call, T) : genExpr(D.Init.get());
    if (!V.Error && !(Call && Call->Callee == "make_desc"))
      V = convert(V, T, D.Init->Range);
    if (!V.Error)
      Init = V.V;
  }
  VarInfo *Var = declareVar(D.Name, T, D.NameRange, S.Type.IsConst);
  if (!Var)
    return;
  if (!Init)
    Init = M.getUndef(T.toIR()); // only after an error: nothing runs it
  nameValue(Init, D.Name);
  writeVariable(Var, curBlock(), Init);
}

std::optional<std::vector<Value *>> IRGenerator::genDescList(const ast::CallExpr &E, size_t Arg,
                                                             size_t Rank, const FEType &To,
                                                             const char *What) {
  const auto *L = E.Args[Arg]->as<ast::ListExpr>();
  if (!L || L->Elements.size() != Rank) {
    Diags.error(E.Args[Arg]->Range, "'" + E.Callee + "' expects the " + std::to_string(Rank) + " " +
                                        What + " (one per block dimension) as a list {a, b, ...}");
    return std::nullopt;
  }
  std::vector<Value *> Out;
  bool Ok = true;
  for (const ast::ExprPtr &X : L->Elements) {
    TValue V = genExpr(X.get());
    if (V.Error) {
      Ok = false;
      continue;
    }
    if (!V.T.isInt() || V.T.isTile()) {
      Diags.error(X->Range, "the " + std::string(What) + " of '" + E.Callee +
                                "' are integer scalars; this one has type '" + V.T.str() + "'");
      Ok = false;
      continue;
    }
    at(X->Range);
    V = convert(V, To, X->Range);
    Ok &= !V.Error;
    Out.push_back(V.V);
  }
  if (!Ok)
    return std::nullopt;
  return Out;
}

TValue IRGenerator::genMakeDesc(const ast::CallExpr &E, const FEType &T) {
  if (!checkArity(E, 3, 3))
    return TValue::error();
  TValue Base = genExpr(E.Args[0].get());
  FEType Want = FEType(T.Base, 1);
  if (!Base.Error && (Base.T.isTile() || !Base.T.sameElement(Want))) {
    Diags.error(E.Args[0]->Range, "the base of '" + T.str() + "' must be a '" + Want.str() +
                                      "', not '" + Base.T.str() + "'");
    noteDeclaration(E.Args[0].get());
    Base = TValue::error();
  }
  size_t Rank = T.DescBlock.size();
  FEType Long(BaseType::Long);
  auto Extents = genDescList(E, 1, Rank, Long, "extents");
  auto Strides = genDescList(E, 2, Rank, Long, "strides");
  if (Strides) {
    // The block's last dimension is contiguous: what the copy engine and
    // vector loads need, and what makes a block a run of rows.
    const ast::Expr *Last = E.Args[2]->as<ast::ListExpr>()->Elements.back().get();
    bool Reported = false;
    std::optional<int64_t> One = foldInt(Last, Reported);
    if (!Reported && (!One || *One != 1)) {
      Diags.error(Last->Range, "the innermost stride of a tensor descriptor must be the constant 1 "
                               "(its last dimension is contiguous)");
      Strides.reset();
    }
  }
  if (Base.Error || !Extents || !Strides)
    return TValue::error();
  std::vector<Value *> Ops = {Base.V};
  Ops.insert(Ops.end(), Extents->begin(), Extents->end());
  Ops.insert(Ops.end(), Strides->begin(), Strides->end());
  at(E.Range);
  return TValue(B.create(Opcode::MakeTensorDesc, T.toIR(), Ops), T);
}

/// The descriptor argument of desc_load / desc_store, or an error value.
TValue IRGenerator::genDescOperand(const ast::CallExpr &E) {
  TValue D = genExpr(E.Args[0].get());
  if (!D.Error && !D.T.IsDesc) {
    Diags.error(E.Args[0]->Range, "the first argument of '" + E.Callee +
                                      "' must be a tensor descriptor (a '__desc' variable), not '" +
                                      D.T.str() + "'");
    return TValue::error();
  }
  if (!D.Error && !LoadGuards.empty()) {
    // Loads inside the arms of a tile `?:` are masked by its condition; a
    // descriptor access moves its whole block, so it cannot be.
    Diags.error(E.Range, "'" + E.Callee +
                             "' cannot be masked by the condition of '?:'; access "
                             "the block before it and select the lanes after");
    return TValue::error();
  }
  return D;
}

TValue IRGenerator::genDescAccess(const ast::CallExpr &E, bool IsStore) {
  if (!checkArity(E, IsStore ? 3 : 2, IsStore ? 3 : 2))
    return TValue::error();
  TValue D = genDescOperand(E);
  if (D.Error)
    return D;
  const Shape &Block = D.T.DescBlock;
  auto Offsets = genDescList(E, 1, Block.size(), FEType(BaseType::Int), "offsets");
  if (!Offsets)
    return TValue::error();
  std::vector<Value *> Ops = {D.V};
  Ops.insert(Ops.end(), Offsets->begin(), Offsets->end());
  FEType TileT(D.T.Base, 0, Block);
  if (!IsStore) {
    at(E.Range);
    return TValue(B.create(Opcode::DescLoad, TileT.toIR(), Ops), TileT);
  }
  TValue V = genExpr(E.Args[2].get());
  if (V.Error)
    return V;
  at(E.Args[2]->Range);
  V = convert(V, TileT.scalar(), E.Args[2]->Range);
  if (V.Error || !broadcastInto(V, Block, E.Args[2]->Range, E.Args[2].get()))
    return TValue::error();
  Ops.push_back(V.V);
  at(E.Range);
  B.create(Opcode::DescStore, Type::getVoid(), Ops);
  return TValue::voidValue();
}

} // namespace tritonc::lang
