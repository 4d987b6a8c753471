//===- TensorDescriptors.cpp - Tensor-map forms as GPU-level IR -----------===//
//
// See TensorDescriptors.h.
//
//===----------------------------------------------------------------------===//
#include "TensorDescriptors.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/support/TensorMapSpec.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace tritonc::transform {

using namespace ir;
using analysis::Poly;
using analysis::TensorAccess;

std::string tensorCopySlotProblem(const Type *Slot) {
  const Layout *L = Slot->getLayout();
  if (!L || !L->hasSwizzleMode())
    return "the slot is not in a swizzle mode of the copy engine";
  if (Slot->getShape().size() != 2 || L->getOrder()[0] != 1)
    return "the slot is not a row-major 2-D tile (the copy engine writes boxes row by row)";
  uint64_t ElemBytes = Slot->getElementType()->getScalarSizeInBytes();
  uint64_t RowBytes = static_cast<uint64_t>(Slot->getShape()[1]) * ElemBytes;
  uint64_t Swizzle = static_cast<uint64_t>(L->getSwizzleBytes());
  if (Slot->getShape()[0] > 256 || Slot->getShape()[1] > 256)
    return "a box has at most 256 elements along each dimension";
  // Wider rows are column blocks (docs/IR.md), one box each; a block
  // starts a swizzle pattern of 8 rows of its own.
  if (Swizzle && (RowBytes % Swizzle || (RowBytes != Swizzle && Slot->getShape()[0] % 8)))
    return "its rows are " + std::to_string(RowBytes) + " bytes, neither its " +
           std::to_string(Swizzle) + "-byte swizzle nor column blocks of it of whole 8-row " +
           "patterns";
  if (RowBytes % 16)
    return "its rows are " + std::to_string(RowBytes) + " bytes, not a multiple of 16";
  if (!Swizzle && RowBytes * static_cast<uint64_t>(Slot->getShape()[0]) % 128)
    return "the slot is not a whole number of 128-byte pieces";
  return "";
}

std::string TensorDescriptorBuilder::whyNotBoxCopy(const Value *Base,
                                                   const std::vector<Value *> &Extents,
                                                   const std::vector<Value *> &Strides,
                                                   const Type *Elem, const Type *Slot,
                                                   const std::string &Desc) const {
  if (Elem != Type::getF16() && Elem != Type::getBF16() && Elem != Type::getF32())
    return "tensor copies of " + Elem->str() + " elements are not lowered";
  if (!asArgument(const_cast<Value *>(Base)))
    return "the base is not a pointer parameter (the launcher encodes the tensor map from the "
           "arguments)";
  unsigned Rank = static_cast<unsigned>(Extents.size());
  unsigned ElemBytes = Elem->getScalarSizeInBytes();
  for (unsigned K = 0; K < 2 * Rank; ++K) {
    const Value *V = K < Rank ? Extents[K] : Strides[K - Rank];
    // "extent 1 of %dx (%3)": the IR names the value, the index finds it
    // in the source's list.
    std::string What = std::string(K < Rank ? "extent " : "stride ") +
                       std::to_string(K < Rank ? K : K - Rank) + " of " + Desc + " (" +
                       printOperand(*V) + ")";
    std::optional<analysis::AffineTile> A = AA.affineOf(V);
    if (!A || A->Base || !AA.isOverParameters(A->Offset))
      return What + " is not a polynomial over the kernel's integer parameters (the launcher "
                    "evaluates the tensor map's extents and strides)";
    bool OuterStride = K >= Rank && K + 1 < 2 * Rank;
    if (OuterStride && knownPow2Divisor(A->Offset) * ElemBytes % 16 != 0)
      return What + " is not known to be a multiple of 16 bytes (`__multipleof` on the "
                    "parameters says so)";
    if (K + 1 == 2 * Rank && A->Offset.asConstant() != 1)
      return What + " is not 1 (the copy engine reads contiguous rows)";
  }
  if (AI.get(Base).Divisibility[0] < 16)
    return "the base " + printOperand(*Base) +
           " is not known to be 16-byte aligned (`__aligned(16)` on the parameter says so)";
  if (std::string Why = tensorCopySlotProblem(Slot); !Why.empty())
    return "the block does not fit the copy engine: " + Why;
  return "";
}

std::string TensorDescriptorBuilder::whyNotAlignedBoxStart(const Value *Inner,
                                                           unsigned ElemBytes) const {
  // Measured on an H200 (2026-11-28, one probe kernel per condition): a copy
  // whose innermost coordinate is not a multiple of 16 bytes (3 or -5 floats)
  // stops the kernel with an illegal instruction, while -4, 0, 4 and 8 floats
  // run correctly; copies under data-dependent branches and in loops of
  // data-dependent trip count run correctly. So only the innermost offset
  // decides, and it must be provably 16-byte aligned.
  if (AI.get(Inner).Divisibility[0] * ElemBytes % 16 != 0)
    return "its innermost offset " + printOperand(*Inner) +
           " is not known to be a multiple of 16 bytes (the copy engine stops with an illegal "
           "instruction otherwise)";
  return "";
}

int64_t TensorDescriptorBuilder::knownPow2Divisor(const Poly &P) const {
  int64_t Divisor = 0;
  for (const auto &[M, C] : P.terms()) {
    int64_t D = analysis::largestPow2Divisor(C);
    for (unsigned A : M)
      D = std::min<int64_t>(D * AI.get(AA.atomValue(A)).Divisibility[0], analysis::MaxDivisibility);
    Divisor = std::gcd(Divisor, D);
  }
  return Divisor == 0 ? analysis::MaxDivisibility : Divisor;
}

std::string TensorDescriptorBuilder::whyNotAligned(const TensorAccess &TA,
                                                   unsigned ElemBytes) const {
  if (AI.get(TA.Base).Divisibility[0] < 16)
    return "the base pointer " + printOperand(*TA.Base) +
           " is not known to be 16-byte aligned (a tensor map needs it; `aligned(16)` on the "
           "parameter says so)";
  if (knownPow2Divisor(TA.OuterStride) * ElemBytes % 16 != 0)
    return "the row stride " + AA.str(TA.OuterStride) +
           " is not known to be a multiple of 16 bytes (a tensor map needs it; "
           "`multipleof(N)` on the parameters says so)";
  return "";
}

std::string TensorDescriptorBuilder::whyMayBeNegative(const TensorAccess &TA) const {
  // A bounded dimension's coordinate is not checked: the mask bounds it from
  // above only, so a negative one would be the same problem, but proving it
  // would decline the persistent matmul, whose tile row divides by a count
  // computed from the parameters (a known gap, docs/ARCHITECTURE.md).
  for (unsigned D = 0; D < 2; ++D)
    if (!TA.Bound[D])
      if (std::string Why = AA.whyMayBeNegative(TA.Coord[D]); !Why.empty())
        return "the coordinate of dimension " + std::to_string(D) + " (" + AA.str(TA.Coord[D]) +
               "), which no mask bounds, may be negative: " + Why +
               " (the copy engine treats a box there as outside the tensor, whose memory the "
               "access reads or writes)";
  return "";
}

bool TensorDescriptorBuilder::availableAt(const TensorAccess &TA, const Instruction &At) const {
  auto Defined = [&](const Value *V) {
    const Instruction *I = asInstruction(const_cast<Value *>(V));
    return !I || (I != &At && DT.dominates(I, &At));
  };
  for (const Poly &P : TA.Coord)
    for (const auto &[M, C] : P.terms()) {
      if (C < std::numeric_limits<int32_t>::min() || C > std::numeric_limits<int32_t>::max())
        return false;
      for (unsigned A : M) {
        const Value *V = AA.atomValue(A);
        if (!V->getType()->isIntOrIntTile() || V->getType()->isTile() ||
            V->getType()->getIntBits() < 8 || !Defined(V))
          return false;
      }
    }
  return std::all_of(TA.Guards.begin(), TA.Guards.end(), Defined);
}

Instruction *TensorDescriptorBuilder::insert(Instruction *Before, Opcode Op, const Type *T,
                                             std::vector<Value *> Ops) {
  auto I = Instruction::create(Op, T, std::move(Ops));
  I->Loc = Before->Loc;
  BasicBlock *BB = Before->getParent();
  return BB->insert(BB->iteratorTo(Before), std::move(I));
}

Value *TensorDescriptorBuilder::polyValue(const Poly &P, const Type *IntTy, Instruction *Before) {
  Module &M = *F.getParent();
  Value *Sum = nullptr;
  for (const auto &[Mono, C] : P.terms()) {
    Value *Term = nullptr;
    for (unsigned A : Mono) {
      Value *X = const_cast<Value *>(AA.atomValue(A));
      unsigned Bits = X->getType()->getIntBits(), Want = IntTy->getIntBits();
      if (Bits < Want)
        X = insert(Before, Opcode::SExt, IntTy, {X});
      else if (Bits > Want)
        X = insert(Before, Opcode::Trunc, IntTy, {X});
      Term = Term ? insert(Before, Opcode::Mul, IntTy, {Term, X}) : X;
    }
    if (!Term)
      Term = M.getInt(IntTy, C);
    else if (C != 1)
      Term = insert(Before, Opcode::Mul, IntTy, {Term, M.getInt(IntTy, C)});
    Sum = Sum ? insert(Before, Opcode::Add, IntTy, {Sum, Term}) : Term;
  }
  return Sum ? Sum : M.getInt(IntTy, 0);
}

Instruction *TensorDescriptorBuilder::makeDescriptor(const TensorAccess &TA, const Type *Elem,
                                                     const Shape &Box, Instruction *Top,
                                                     SourceLoc Loc) {
  const Type *I64 = Type::getI64();
  std::vector<Value *> Ops = {const_cast<Argument *>(TA.Base)};
  for (unsigned D = 0; D < 2; ++D)
    Ops.push_back(TA.Bound[D] ? polyValue(*TA.Bound[D], I64, Top)
                              : F.getParent()->getInt(I64, TensorMapUnboundedDim));
  Ops.push_back(polyValue(TA.OuterStride, I64, Top));
  Ops.push_back(F.getParent()->getInt(I64, 1));
  Instruction *D = insert(Top, Opcode::MakeTensorDesc, Type::getTensorDesc(Elem, Box), Ops);
  D->Loc = Loc;
  return D;
}

Instruction *TensorDescriptorBuilder::makeBoxDescriptor(Argument *Base,
                                                        const std::vector<Value *> &Extents,
                                                        const std::vector<Value *> &Strides,
                                                        const Type *Elem, const Shape &Box,
                                                        Instruction *Top, SourceLoc Loc) {
  const Type *I64 = Type::getI64();
  std::vector<Value *> Ops = {Base};
  for (const std::vector<Value *> *List : {&Extents, &Strides})
    for (Value *V : *List)
      Ops.push_back(polyValue(AA.affineOf(V)->Offset, I64, Top));
  Instruction *D = insert(Top, Opcode::MakeTensorDesc, Type::getTensorDesc(Elem, Box), Ops);
  D->Loc = Loc;
  return D;
}

std::vector<Value *> TensorDescriptorBuilder::boxCoordinates(const std::vector<Value *> &Coords,
                                                             const std::vector<Value *> &Guards,
                                                             Instruction *Before) {
  const Type *I32 = Type::getI32();
  std::vector<Value *> Out;
  for (Value *C : Coords)
    Out.push_back(C->getType() == I32 ? C : insert(Before, Opcode::Trunc, I32, {C}));
  Value *All = nullptr;
  for (Value *G : Guards)
    All = All ? insert(Before, Opcode::And, Type::getI1(), {All, G}) : G;
  if (All)
    Out.back() = insert(Before, Opcode::Select, I32,
                        {All, Out.back(), F.getParent()->getInt(I32, TensorMapOutOfBounds)});
  return Out;
}

std::vector<Value *> TensorDescriptorBuilder::coordinates(const TensorAccess &TA,
                                                          Instruction *Before,
                                                          const std::vector<Value *> &Also) {
  const Type *I32 = Type::getI32();
  Value *Outer = polyValue(TA.Coord[1 - TA.UnitDim], I32, Before);
  Value *Unit = polyValue(TA.Coord[TA.UnitDim], I32, Before);
  std::vector<Value *> Conditions;
  for (const Value *G : TA.Guards)
    Conditions.push_back(const_cast<Value *>(G));
  Conditions.insert(Conditions.end(), Also.begin(), Also.end());
  Value *All = nullptr;
  for (Value *C : Conditions)
    All = All ? insert(Before, Opcode::And, Type::getI1(), {All, C}) : C;
  if (All)
    Unit = insert(Before, Opcode::Select, I32,
                  {All, Unit, F.getParent()->getInt(I32, TensorMapOutOfBounds)});
  if (TA.UnitDim == 0)
    return {Unit, Outer};
  return {Outer, Unit};
}

} // namespace tritonc::transform
