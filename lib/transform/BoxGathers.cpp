//===- BoxGathers.cpp - The gathers lower-tensor-descs writes -------------===//
//
// See BoxGathers.h. The form matched is the one LowerTensorDescs.cpp's
// lowerToGather builds, instruction for instruction; the pipeline clones it
// for later iterations with the same structure (IterationValues.h).
//
//===----------------------------------------------------------------------===//
#include "BoxGathers.h"

#include "tritonc/transform/Utils.h"

#include <algorithm>

namespace tritonc::transform {

using namespace ir;

namespace {

Instruction *opOf(Value *V, Opcode Op) {
  Instruction *I = V ? asInstruction(V) : nullptr;
  return I && I->getOpcode() == Op ? I : nullptr;
}

/// The scalar a splat spreads, or null.
Value *splatOf(Value *V) {
  Instruction *S = opOf(V, Opcode::Splat);
  return S && !S->getOperand(0)->getType()->isTile() ? S->getOperand(0) : nullptr;
}

std::optional<int64_t> splatInt(Value *V) {
  Value *S = splatOf(V);
  Constant *C = S ? asConstant(S) : nullptr;
  if (!C || C->isUndef() || !C->getType()->isIntOrIntTile())
    return std::nullopt;
  return C->getInt();
}

bool isRange(Value *V, int64_t N) {
  Instruction *R = opOf(V, Opcode::MakeRange);
  return R && R->RangeStart == 0 && R->RangeEnd == N;
}

/// One dimension of the gather: `mul(sext(add(splat Coord, Index)), splat
/// Stride)`; Wide is the sext the bound checks compare.
struct Line {
  Value *Coord = nullptr, *Stride = nullptr, *Index = nullptr;
  Instruction *Wide = nullptr;
  Value *Extent = nullptr;
  bool LowerBound = false;
};

std::optional<Line> matchLine(Value *Offset) {
  Instruction *Mul = opOf(Offset, Opcode::Mul);
  if (!Mul)
    return std::nullopt;
  Instruction *Wide = opOf(Mul->getOperand(0), Opcode::SExt);
  Value *Stride = splatOf(Mul->getOperand(1));
  Instruction *Add = Wide ? opOf(Wide->getOperand(0), Opcode::Add) : nullptr;
  Value *Coord = Add ? splatOf(Add->getOperand(0)) : nullptr;
  if (!Stride || !Coord || !Coord->getType()->isIntOrIntTile())
    return std::nullopt;
  Line L;
  L.Coord = Coord;
  L.Stride = Stride;
  L.Index = Add->getOperand(1);
  L.Wide = Wide;
  return L;
}

/// `broadcast(reshape(V))` to the 2-D tile: V.
Value *spreadOf(Value *V) {
  Instruction *B = opOf(V, Opcode::Broadcast);
  Instruction *R = B ? opOf(B->getOperand(0), Opcode::Reshape) : nullptr;
  return R ? R->getOperand(0) : nullptr;
}

/// If Index is `Op(X, splat C)` with C > 0: Index becomes X, Divisor C (else
/// Divisor stays). False if Index is such an op with another divisor.
bool stripDivisor(Value *&Index, Opcode Op, int64_t &Divisor) {
  Instruction *I = opOf(Index, Op);
  if (!I)
    return true;
  std::optional<int64_t> C = splatInt(I->getOperand(1));
  if (!C || *C <= 0)
    return false;
  Divisor = *C;
  Index = I->getOperand(0);
  return true;
}

/// The row index of an outer dimension: `urem(udiv(range(Rows), splat
/// Inner), splat Size)`, the udiv absent where Inner is 1, the urem for the
/// outermost dimension. Returns false if Index has another form.
bool matchRowIndex(Value *Index, int64_t Rows, int64_t &Inner, int64_t &Size) {
  Inner = 1;
  Size = 0;
  return stripDivisor(Index, Opcode::URem, Size) && stripDivisor(Index, Opcode::UDiv, Inner) &&
         isRange(Index, Rows);
}

/// Sorts the leaves of the mask's `and` tree (through the reshapes and
/// broadcasts that spread a row's or column's checks) into the bound checks
/// of Lines and scalar guards; false if a leaf is anything else.
bool matchMask(Value *V, std::vector<Line> &Lines, std::vector<Value *> &Guards) {
  Instruction *I = asInstruction(V);
  if (!I)
    return false;
  switch (I->getOpcode()) {
  case Opcode::And:
    return matchMask(I->getOperand(0), Lines, Guards) && matchMask(I->getOperand(1), Lines, Guards);
  case Opcode::Broadcast:
  case Opcode::Reshape:
    return matchMask(I->getOperand(0), Lines, Guards);
  case Opcode::Splat:
    if (I->getOperand(0)->getType()->isTile())
      return false;
    Guards.push_back(I->getOperand(0));
    return true;
  case Opcode::ICmp: {
    auto It = std::find_if(Lines.begin(), Lines.end(),
                           [&](const Line &L) { return L.Wide == I->getOperand(0); });
    if (It == Lines.end())
      return false;
    if (I->Predicate == CmpPredicate::SGE && splatInt(I->getOperand(1)) == 0) {
      It->LowerBound = true;
      return true;
    }
    Value *Extent = splatOf(I->getOperand(1));
    if (I->Predicate != CmpPredicate::SLT || !Extent || It->Extent)
      return false;
    It->Extent = Extent;
    return true;
  }
  default:
    return false;
  }
}

std::optional<BoxGather> fail(std::string *Why, const char *Reason) {
  if (Why)
    *Why = Reason;
  return std::nullopt;
}

} // namespace

std::optional<BoxGather> matchBoxGather(Value *Pointers, Value *Mask, std::string *Why) {
  const char *NotABox = "the addresses are not a gather of one tensor descriptor box";
  BoxGather G;
  if (Instruction *T = opOf(Pointers, Opcode::Trans)) {
    Instruction *MaskT = opOf(Mask, Opcode::Trans);
    if (Mask && !MaskT)
      return fail(Why, NotABox);
    G.Transposed = true;
    Pointers = T->getOperand(0);
    Mask = MaskT ? MaskT->getOperand(0) : nullptr;
  }
  const Type *PT = Pointers->getType();
  if (!PT->isTile() || PT->getRank() != 2)
    return fail(Why, NotABox);
  int64_t Rows = PT->getShape()[0], Cols = PT->getShape()[1];
  Instruction *Gep = opOf(Pointers, Opcode::GEP);
  Value *Base = Gep ? splatOf(Gep->getOperand(0)) : nullptr;
  G.Base = Base ? asArgument(Base) : nullptr;
  Instruction *Sum = Gep ? opOf(Gep->getOperand(1), Opcode::Add) : nullptr;
  if (!G.Base || !Sum)
    return fail(Why, NotABox);
  // Columns: the innermost dimension over range(Cols).
  Value *ColOffset = spreadOf(Sum->getOperand(1));
  std::optional<Line> Col = ColOffset ? matchLine(ColOffset) : std::nullopt;
  if (!Col || !isRange(Col->Index, Cols))
    return fail(Why, NotABox);
  // Rows: the outer dimensions' offsets summed outermost first.
  std::vector<Line> Lines;
  Value *RowOffset = spreadOf(Sum->getOperand(0));
  while (RowOffset) {
    Instruction *Add = opOf(RowOffset, Opcode::Add);
    std::optional<Line> L = matchLine(Add ? Add->getOperand(1) : RowOffset);
    if (!L)
      return fail(Why, NotABox);
    Lines.insert(Lines.begin(), *L);
    RowOffset = Add ? Add->getOperand(0) : nullptr;
  }
  if (Lines.empty())
    return fail(Why, NotABox);
  // Each outer dimension's size from its index: the sizes of the inner
  // ones multiply to its divisor, and all of them to the rows.
  G.Box.assign(Lines.size() + 1, 0);
  int64_t InnerRows = 1;
  for (size_t K = Lines.size(); K-- > 0;) {
    int64_t Inner = 0, Size = 0;
    if (!matchRowIndex(Lines[K].Index, Rows, Inner, Size) || Inner != InnerRows ||
        (K > 0) != (Size != 0))
      return fail(Why, NotABox);
    if (K == 0) {
      if (Rows % InnerRows)
        return fail(Why, NotABox);
      Size = Rows / InnerRows;
    }
    G.Box[K] = Size;
    InnerRows *= Size;
  }
  if (InnerRows != Rows)
    return fail(Why, NotABox);
  G.Box.back() = Cols;
  Lines.push_back(*Col);
  if (!Mask || !matchMask(Mask, Lines, G.Guards))
    return fail(Why, "the mask is not the box's bounds (and the pipeline's guards)");
  for (const Line &L : Lines) {
    if (!L.LowerBound || !L.Extent)
      return fail(Why, "the mask does not bound every dimension of the box");
    G.Coords.push_back(L.Coord);
    G.Extents.push_back(L.Extent);
    G.Strides.push_back(L.Stride);
  }
  return G;
}

bool isBoxGather(const Instruction &Load) {
  if (Load.getOpcode() != Opcode::MaskedLoad)
    return false;
  Constant *Other = getConstantOrSplat(Load.getOperand(2));
  return Other && Other->isZero() && matchBoxGather(Load.getOperand(0), Load.getOperand(1));
}

} // namespace tritonc::transform
