//===- AffineAccess.cpp - Pointer tiles as affine functions of the index --===//

#include "tritonc/analysis/AffineAccess.h"

#include "tritonc/ir/Printer.h"

#include <algorithm>
#include <cstdlib>

namespace tritonc::analysis {

using ir::Instruction;
using ir::Opcode;

//===----------------------------------------------------------------------===//
// Poly
//===----------------------------------------------------------------------===//

Poly Poly::constant(int64_t C) {
  Poly P;
  if (C)
    P.Terms[{}] = C;
  return P;
}

Poly Poly::atom(unsigned Id) {
  Poly P;
  P.Terms[{Id}] = 1;
  return P;
}

Poly Poly::term(Monomial M, int64_t C) {
  Poly P;
  if (C)
    P.Terms[std::move(M)] = C;
  return P;
}

std::optional<int64_t> Poly::asConstant() const {
  if (Terms.empty())
    return 0;
  if (Terms.size() == 1 && Terms.begin()->first.empty())
    return Terms.begin()->second;
  return std::nullopt;
}

std::optional<Poly> Poly::add(const Poly &A, const Poly &B, int64_t BScale) {
  Poly R = A;
  for (const auto &[M, C] : B.Terms) {
    int64_t Scaled = 0, Sum = 0;
    if (__builtin_mul_overflow(C, BScale, &Scaled) ||
        __builtin_add_overflow(R.Terms[M], Scaled, &Sum))
      return std::nullopt;
    if (Sum)
      R.Terms[M] = Sum;
    else
      R.Terms.erase(M);
  }
  return R;
}

std::optional<Poly> Poly::mul(const Poly &A, const Poly &B) {
  Poly R;
  for (const auto &[MA, CA] : A.Terms)
    for (const auto &[MB, CB] : B.Terms) {
      Monomial M = MA;
      M.insert(M.end(), MB.begin(), MB.end());
      std::sort(M.begin(), M.end());
      int64_t C = 0;
      if (__builtin_mul_overflow(CA, CB, &C))
        return std::nullopt;
      Poly Term;
      Term.Terms[M] = C;
      std::optional<Poly> Sum = add(R, Term);
      if (!Sum)
        return std::nullopt;
      R = std::move(*Sum);
    }
  return R;
}

std::optional<Poly> Poly::divide(const Poly &A, const Poly &D) {
  if (D.Terms.size() != 1)
    return std::nullopt;
  const auto &[DM, DC] = *D.Terms.begin();
  Poly R;
  for (const auto &[M, C] : A.Terms) {
    if (C % DC)
      return std::nullopt;
    // M minus the multiset DM (both sorted).
    Monomial Rest;
    size_t J = 0;
    for (unsigned Atom : M) {
      if (J < DM.size() && DM[J] == Atom)
        ++J;
      else
        Rest.push_back(Atom);
    }
    if (J != DM.size())
      return std::nullopt;
    R.Terms[Rest] = C / DC;
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

namespace {

const Instruction *asInst(const ir::Value *V) {
  return ir::asInstruction(const_cast<ir::Value *>(V));
}

size_t rankOf(const ir::Value *V) {
  return V->getType()->isTile() ? V->getType()->getShape().size() : 0;
}

bool isUniform(const AffineTile &T) {
  return std::all_of(T.Steps.begin(), T.Steps.end(), [](const Poly &P) { return P.isZero(); });
}

/// Steps along dimensions of extent 1 do not matter: make them 0.
void normalize(AffineTile &T, const ir::Value *V) {
  if (!V->getType()->isTile())
    return;
  const ir::Shape &S = V->getType()->getShape();
  T.Steps.resize(S.size());
  for (size_t D = 0; D < S.size(); ++D)
    if (S[D] == 1)
      T.Steps[D] = Poly();
}

std::optional<AffineTile> combine(const AffineTile &A, const AffineTile &B, int64_t BScale) {
  if (A.Steps.size() != B.Steps.size() || (B.Base && (A.Base || BScale != 1)))
    return std::nullopt;
  AffineTile R;
  R.Base = A.Base ? A.Base : B.Base;
  std::optional<Poly> Off = Poly::add(A.Offset, B.Offset, BScale);
  if (!Off)
    return std::nullopt;
  R.Offset = std::move(*Off);
  for (size_t D = 0; D < A.Steps.size(); ++D) {
    std::optional<Poly> S = Poly::add(A.Steps[D], B.Steps[D], BScale);
    if (!S)
      return std::nullopt;
    R.Steps.push_back(std::move(*S));
  }
  return R;
}

std::optional<AffineTile> scale(const AffineTile &T, const Poly &Factor) {
  if (T.Base)
    return std::nullopt;
  AffineTile R;
  std::optional<Poly> Off = Poly::mul(T.Offset, Factor);
  if (!Off)
    return std::nullopt;
  R.Offset = std::move(*Off);
  for (const Poly &S : T.Steps) {
    std::optional<Poly> P = Poly::mul(S, Factor);
    if (!P)
      return std::nullopt;
    R.Steps.push_back(std::move(*P));
  }
  return R;
}

/// The form of `I` (a broadcast, reshape or trans) applied to Src.
std::optional<AffineTile> relabel(const Instruction &I, AffineTile Src) {
  const ir::Shape &To = I.getType()->getShape();
  const ir::Value *Op = I.getOperand(0);
  if (!Op->getType()->isTile()) // a scalar reshaped to a tile: uniform
    return I.getOpcode() == Opcode::Trans
               ? std::nullopt
               : std::optional<AffineTile>(
                     AffineTile{Src.Base, Src.Offset, std::vector<Poly>(To.size())});
  const ir::Shape &From = Op->getType()->getShape();
  switch (I.getOpcode()) {
  case Opcode::Broadcast:
    if (From.size() != To.size())
      return std::nullopt;
    for (size_t D = 0; D < To.size(); ++D)
      if (From[D] == 1)
        Src.Steps[D] = Poly();
    return Src;
  case Opcode::Trans:
    if (To.size() != 2)
      return std::nullopt;
    std::swap(Src.Steps[0], Src.Steps[1]);
    return Src;
  case Opcode::Reshape: {
    // Only dimensions of extent 1 may appear or disappear.
    std::vector<Poly> NonUnit;
    for (size_t D = 0; D < From.size(); ++D)
      if (From[D] != 1)
        NonUnit.push_back(Src.Steps[D]);
    std::vector<Poly> Steps(To.size());
    size_t J = 0;
    size_t FromD = 0;
    for (size_t D = 0; D < To.size(); ++D) {
      if (To[D] == 1)
        continue;
      while (FromD < From.size() && From[FromD] == 1)
        ++FromD;
      if (FromD == From.size() || From[FromD] != To[D])
        return std::nullopt;
      ++FromD;
      Steps[D] = NonUnit[J++];
    }
    Src.Steps = std::move(Steps);
    return Src;
  }
  default:
    return std::nullopt;
  }
}

bool isFalseTile(const ir::Value *V) {
  if (const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V)))
    return C->getInt() == 0;
  const Instruction *I = asInst(V);
  return I && I->getOpcode() == Opcode::Splat && isFalseTile(I->getOperand(0));
}

bool isTrueConstant(const ir::Value *V) {
  const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V));
  return C && C->getInt() != 0;
}

} // namespace

AffineAccessAnalysis::AffineAccessAnalysis(const ir::Function &F, const ir::DominatorTree &DT)
    : F(F), DT(DT) {}

unsigned AffineAccessAnalysis::atomId(const ir::Value *V) {
  auto [It, New] = AtomIds.emplace(V, static_cast<unsigned>(Atoms.size()));
  if (New)
    Atoms.push_back(V);
  return It->second;
}

std::optional<AffineTile> AffineAccessAnalysis::affineOf(const ir::Value *V) {
  if (auto It = Memo.find(V); It != Memo.end())
    return It->second;
  std::optional<AffineTile> R = compute(V);
  if (R)
    normalize(*R, V);
  Memo[V] = R;
  return R;
}

/// Start and step of an induction phi: [Start, outside], [Phi + Step, back
/// edge], with Step defined outside the loop.
static bool inductionParts(const Instruction &Phi, const ir::DominatorTree &DT,
                           const ir::Value *&Start, const ir::Value *&Step, bool &Negate) {
  if (Phi.getOpcode() != Opcode::Phi || Phi.getNumOperands() != 2 || Phi.getType()->isTile() ||
      !Phi.getType()->isIntOrIntTile())
    return false;
  const ir::BasicBlock *Header = Phi.getParent();
  const ir::Value *Back = nullptr;
  Start = nullptr;
  for (unsigned K = 0; K < 2; ++K)
    (DT.dominates(Header, Phi.getIncomingBlock(K)) ? Back : Start) = Phi.getOperand(K);
  const Instruction *BI = asInst(Back);
  if (!Start || !BI || (BI->getOpcode() != Opcode::Add && BI->getOpcode() != Opcode::Sub))
    return false;
  Negate = BI->getOpcode() == Opcode::Sub;
  if (BI->getOperand(0) == &Phi)
    Step = BI->getOperand(1);
  else if (!Negate && BI->getOperand(1) == &Phi)
    Step = BI->getOperand(0);
  else
    return false;
  const Instruction *SI = asInst(Step);
  return !SI || (SI->getParent() != Header && DT.dominates(SI->getParent(), Header));
}

std::optional<Poly> AffineAccessAnalysis::induction(const Instruction &Phi) {
  const ir::Value *StartV = nullptr, *StepV = nullptr;
  bool Negate = false;
  if (!inductionParts(Phi, DT, StartV, StepV, Negate))
    return std::nullopt;
  const ir::BasicBlock *Header = Phi.getParent();
  if (!Representatives.count(Header)) {
    // The induction of this header with the smallest constant step.
    std::optional<Representative> Best;
    for (const auto &IP : Header->instructions()) {
      if (IP->getOpcode() != Opcode::Phi)
        break;
      const ir::Value *S = nullptr, *T = nullptr;
      bool Neg = false;
      if (!inductionParts(*IP, DT, S, T, Neg))
        continue;
      std::optional<AffineTile> SA = affineOf(S), TA = affineOf(T);
      if (!SA || SA->Base || !TA)
        continue;
      int64_t Step = TA->Offset.asConstant().value_or(0);
      if (Step == 0 || Step == INT64_MIN)
        continue;
      Step = Neg ? -Step : Step;
      if (!Best || std::llabs(Step) < std::llabs(Best->Step))
        Best = Representative{IP.get(), SA->Offset, Step};
    }
    Representatives[Header] = Best;
  }
  const std::optional<Representative> &Rep = Representatives[Header];
  std::optional<AffineTile> Start = affineOf(StartV), Step = affineOf(StepV);
  if (!Rep || !Start || !Step || Start->Base || Step->Base)
    return std::nullopt;
  // Phi = Start + (Step / RepStep) * (Rep - RepStart).
  Poly Ratio;
  for (const auto &[M, C] : Step->Offset.terms()) {
    int64_t Signed = Negate ? -C : C;
    if (Signed % Rep->Step)
      return std::nullopt;
    std::optional<Poly> Sum = Poly::add(Ratio, Poly::term(M, Signed / Rep->Step));
    if (!Sum)
      return std::nullopt;
    Ratio = std::move(*Sum);
  }
  std::optional<Poly> Iter = Poly::add(Poly::atom(atomId(Rep->Phi)), Rep->Start, -1);
  std::optional<Poly> Scaled = Iter ? Poly::mul(Ratio, *Iter) : std::nullopt;
  return Scaled ? Poly::add(Start->Offset, *Scaled) : std::nullopt;
}

std::optional<AffineTile> AffineAccessAnalysis::compute(const ir::Value *V) {
  const ir::Type *T = V->getType();
  bool IsPtr = T->isPointerOrPointerTile();
  if (!IsPtr && !T->isIntOrIntTile())
    return std::nullopt;
  size_t Rank = rankOf(V);
  if (const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V))) {
    if (IsPtr)
      return std::nullopt;
    return AffineTile{nullptr, Poly::constant(C->getInt()), std::vector<Poly>(Rank)};
  }
  if (const ir::Argument *A = ir::asArgument(const_cast<ir::Value *>(V))) {
    if (IsPtr)
      return AffineTile{A, Poly(), {}};
    return AffineTile{nullptr, Poly::atom(atomId(A)), {}};
  }
  const Instruction *I = asInst(V);
  if (!I)
    return std::nullopt;
  auto Operand = [&](unsigned K) { return affineOf(I->getOperand(K)); };
  switch (I->getOpcode()) {
  case Opcode::MakeRange:
    return AffineTile{nullptr, Poly::constant(I->RangeStart), {Poly::constant(1)}};
  case Opcode::Splat: {
    std::optional<AffineTile> S = Operand(0);
    if (!S)
      return std::nullopt;
    S->Steps.assign(Rank, Poly());
    return S;
  }
  case Opcode::Broadcast:
  case Opcode::Reshape:
  case Opcode::Trans: {
    std::optional<AffineTile> S = Operand(0);
    return S ? relabel(*I, std::move(*S)) : std::nullopt;
  }
  case Opcode::ConvertLayout: // the same values, held by other threads
    return Operand(0);
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::GEP: {
    std::optional<AffineTile> A = Operand(0), B = Operand(1);
    if (!A || !B)
      return std::nullopt;
    // A scalar offset of a gep applies to every element.
    if (B->Steps.size() < A->Steps.size())
      B->Steps.resize(A->Steps.size());
    return combine(*A, *B, I->getOpcode() == Opcode::Sub ? -1 : 1);
  }
  case Opcode::Mul: {
    std::optional<AffineTile> A = Operand(0), B = Operand(1);
    if (!A || !B)
      return std::nullopt;
    if (isUniform(*B))
      return scale(*A, B->Offset);
    if (isUniform(*A))
      return scale(*B, A->Offset);
    return std::nullopt;
  }
  case Opcode::Shl: {
    std::optional<AffineTile> A = Operand(0), B = Operand(1);
    std::optional<int64_t> Sh = B && isUniform(*B) ? B->Offset.asConstant() : std::nullopt;
    if (!A || !Sh || *Sh < 0 || *Sh > 30)
      return std::nullopt;
    return scale(*A, Poly::constant(int64_t(1) << *Sh));
  }
  case Opcode::SExt:
  case Opcode::ZExt:
    return Operand(0);
  default:
    break;
  }
  // Any other scalar integer is an atom; a phi may be an induction first.
  if (Rank != 0 || IsPtr)
    return std::nullopt;
  if (I->getOpcode() == Opcode::Phi)
    if (std::optional<Poly> P = induction(*I))
      return AffineTile{nullptr, std::move(*P), {}};
  return AffineTile{nullptr, Poly::atom(atomId(I)), {}};
}

std::optional<std::vector<AffineAccessAnalysis::Conjunct>>
AffineAccessAnalysis::conjunctsOf(const ir::Value *Mask) {
  using Result = std::optional<std::vector<Conjunct>>;
  if (!Mask->getType()->isTile())
    return isTrueConstant(Mask) ? Result(std::vector<Conjunct>{})
                                : Result(std::vector<Conjunct>{Conjunct{Mask, {}, {}}});
  const Instruction *I = asInst(Mask);
  if (!I)
    return std::nullopt;
  switch (I->getOpcode()) {
  case Opcode::And: {
    Result A = conjunctsOf(I->getOperand(0)), B = conjunctsOf(I->getOperand(1));
    if (!A || !B)
      return std::nullopt;
    A->insert(A->end(), B->begin(), B->end());
    return A;
  }
  case Opcode::Splat:
  case Opcode::ConvertLayout:
    return conjunctsOf(I->getOperand(0));
  case Opcode::Select: {
    // select c, x, false == c && x, with c a scalar.
    if (I->getOperand(0)->getType()->isTile() || !isFalseTile(I->getOperand(2)))
      return std::nullopt;
    Result A = conjunctsOf(I->getOperand(0)), B = conjunctsOf(I->getOperand(1));
    if (!A || !B)
      return std::nullopt;
    A->insert(A->end(), B->begin(), B->end());
    return A;
  }
  case Opcode::Broadcast:
  case Opcode::Reshape:
  case Opcode::Trans: {
    Result Inner = conjunctsOf(I->getOperand(0));
    if (!Inner)
      return std::nullopt;
    for (Conjunct &C : *Inner) {
      if (C.Guard)
        continue;
      std::optional<AffineTile> L = relabel(*I, C.Lhs), R = relabel(*I, C.Rhs);
      if (!L || !R)
        return std::nullopt;
      C.Lhs = std::move(*L);
      C.Rhs = std::move(*R);
    }
    return Inner;
  }
  case Opcode::ICmp: {
    ir::CmpPredicate P = I->Predicate;
    bool Less = P == ir::CmpPredicate::SLT || P == ir::CmpPredicate::ULT;
    bool Greater = P == ir::CmpPredicate::SGT || P == ir::CmpPredicate::UGT;
    if (!Less && !Greater)
      return std::nullopt;
    std::optional<AffineTile> A = affineOf(I->getOperand(0)), B = affineOf(I->getOperand(1));
    if (!A || !B || A->Base || B->Base)
      return std::nullopt;
    Conjunct C;
    C.Lhs = Less ? std::move(*A) : std::move(*B);
    C.Rhs = Less ? std::move(*B) : std::move(*A);
    return std::vector<Conjunct>{std::move(C)};
  }
  default:
    return std::nullopt;
  }
}

bool AffineAccessAnalysis::isOverParameters(const Poly &P) const {
  for (const auto &[M, C] : P.terms())
    for (unsigned A : M)
      if (!ir::asArgument(const_cast<ir::Value *>(Atoms[A])))
        return false;
  return true;
}

std::optional<TensorAccess> AffineAccessAnalysis::tensorAccessOf(const Instruction &Access,
                                                                 std::string *Why) {
  auto Decline = [&](const char *Reason) -> std::optional<TensorAccess> {
    if (Why)
      *Why = Reason;
    return std::nullopt;
  };
  // A masked load's mask is operand 1, a masked store's operand 2 (after
  // the value); a cp_async's pointers follow its slot, then the mask.
  std::optional<unsigned> MaskOperand;
  unsigned PtrOperand = 0;
  switch (Access.getOpcode()) {
  case Opcode::MaskedLoad:
    MaskOperand = 1;
    break;
  case Opcode::CpAsync:
    PtrOperand = 1;
    if (Access.getNumOperands() > 2)
      MaskOperand = 2;
    break;
  case Opcode::MaskedStore:
    MaskOperand = 2;
    break;
  case Opcode::Load:
  case Opcode::Store:
    break;
  default:
    return Decline("it is not a load or store");
  }
  if (rankOf(Access.getOperand(PtrOperand)) != 2)
    return Decline("the tile is not 2-D");
  std::optional<AffineTile> P = affineOf(Access.getOperand(PtrOperand));
  if (!P || !P->Base || P->Steps.size() != 2)
    return Decline("the address is not an affine function of one pointer parameter, the "
                   "integer parameters, the program ids and the loop counters (divisions, "
                   "remainders or values loaded from memory enter it)");
  std::optional<std::vector<Conjunct>> Conj = std::vector<Conjunct>{};
  if (MaskOperand)
    Conj = conjunctsOf(Access.getOperand(*MaskOperand));
  if (!Conj)
    return Decline("the mask is not a conjunction of bounds (index < extent) and scalar "
                   "conditions");
  TensorAccess TA;
  TA.Base = P->Base;
  const Poly One = Poly::constant(1);
  if ((P->Steps[0] == One) == (P->Steps[1] == One))
    return Decline("the tile is not contiguous (stride 1) along exactly one dimension");
  TA.UnitDim = P->Steps[0] == One ? 0 : 1;
  unsigned Outer = 1 - TA.UnitDim;
  TA.OuterStride = P->Steps[Outer];
  if (TA.OuterStride.isZero() || !isOverParameters(TA.OuterStride))
    return Decline("the stride of the non-contiguous dimension is not made of integer "
                   "parameters");
  bool HasCoord[2] = {false, false};
  for (const Conjunct &C : *Conj) {
    if (C.Guard) {
      TA.Guards.push_back(C.Guard);
      continue;
    }
    // c_d + i_d < B, B uniform: its terms over the parameters are the
    // extent, the others (constants, and a loop counter in `rk < K - k`)
    // move to the left, so that every load of a ring has the same extent.
    if (!isUniform(C.Rhs) || C.Lhs.Steps.size() != 2)
      return Decline("a bound of the mask is not the same for the whole tile");
    Poly Extent, Moved;
    for (const auto &[M, Coef] : C.Rhs.Offset.terms()) {
      Poly Term = Poly::term(M, Coef);
      bool OverParams = !M.empty() && isOverParameters(Term);
      std::optional<Poly> Sum = Poly::add(OverParams ? Extent : Moved, Term);
      if (!Sum)
        return Decline("a bound of the mask has coefficients too large to track");
      (OverParams ? Extent : Moved) = std::move(*Sum);
    }
    // Without a parameter in it (`rk < kend`, kend computed) the bound is no
    // extent a map can hold.
    std::optional<Poly> Coord = Poly::add(C.Lhs.Offset, Moved, -1);
    if (!Coord || Extent.isZero())
      return Decline("a bound of the mask has no extent made of integer parameters");
    std::optional<unsigned> Dim;
    for (unsigned D = 0; D < 2; ++D)
      if (C.Lhs.Steps[D] == One && C.Lhs.Steps[1 - D].isZero())
        Dim = D;
    if (!Dim || (TA.Bound[*Dim] && !(*TA.Bound[*Dim] == Extent && TA.Coord[*Dim] == *Coord)))
      return Decline("a bound of the mask does not check one tile dimension against one "
                     "extent");
    TA.Bound[*Dim] = std::move(Extent);
    TA.Coord[*Dim] = std::move(*Coord);
    HasCoord[*Dim] = true;
  }
  // What the bounded coordinates leave of the offset belongs to the others.
  Poly Rest = P->Offset;
  for (unsigned D = 0; D < 2; ++D) {
    if (!HasCoord[D])
      continue;
    std::optional<Poly> Part = Poly::mul(TA.Coord[D], P->Steps[D]);
    std::optional<Poly> R = Part ? Poly::add(Rest, *Part, -1) : std::nullopt;
    if (!R)
      return Decline("the address does not split into the tile's coordinates");
    Rest = std::move(*R);
  }
  if (!HasCoord[TA.UnitDim] && !HasCoord[Outer]) {
    // Multiples of the stride go to the outer coordinate, the rest to the
    // unit one (the extents are unbounded: only the address matters).
    Poly ToOuter, ToUnit;
    for (const auto &[M, C] : Rest.terms()) {
      Poly Term = Poly::term(M, C);
      std::optional<Poly> Q = Poly::divide(Term, TA.OuterStride);
      std::optional<Poly> Sum = Q ? Poly::add(ToOuter, *Q) : Poly::add(ToUnit, Term);
      if (!Sum)
        return Decline("the address does not split into the tile's coordinates");
      (Q ? ToOuter : ToUnit) = std::move(*Sum);
    }
    TA.Coord[Outer] = std::move(ToOuter);
    TA.Coord[TA.UnitDim] = std::move(ToUnit);
  } else if (!HasCoord[TA.UnitDim]) {
    TA.Coord[TA.UnitDim] = std::move(Rest);
  } else if (!HasCoord[Outer]) {
    std::optional<Poly> Q = Poly::divide(Rest, TA.OuterStride);
    if (!Q)
      return Decline("the address does not split into the tile's coordinates");
    TA.Coord[Outer] = std::move(*Q);
  } else if (!Rest.isZero()) {
    return Decline("the address does not split into the tile's coordinates");
  }
  return TA;
}

std::string AffineAccessAnalysis::str(const Poly &P) const {
  if (P.isZero())
    return "0";
  std::string S;
  for (const auto &[M, C] : P.terms()) {
    std::string Term;
    int64_t Abs = C < 0 ? -C : C;
    if (Abs != 1 || M.empty())
      Term = std::to_string(Abs);
    for (unsigned A : M)
      Term += (Term.empty() ? "" : "*") + ir::printOperand(*Atoms[A]);
    S += S.empty() ? (C < 0 ? "-" : "") : (C < 0 ? " - " : " + ");
    S += Term;
  }
  return S;
}

std::string AffineAccessAnalysis::whyMayBeNegative(const Poly &P) { return whyMayBeNegative(P, 0); }

std::string AffineAccessAnalysis::whyMayBeNegative(const Poly &P, unsigned Depth) {
  // A loop's representative induction is Start + n * Step after n >= 0
  // iterations: with a positive step, `k - Start` (an index counted from
  // the loop's start) is the non-negative n * Step. Iteration counts are
  // atoms of their own, numbered from IterationCount on.
  constexpr unsigned IterationCount = 1u << 30;
  Poly Counted;
  for (const auto &[M, C] : P.terms()) {
    std::optional<Poly> Term = Poly::constant(C);
    for (unsigned A : M) {
      Poly Factor = Poly::atom(A);
      const auto *Phi = asInst(Atoms[A]);
      auto Rep = Phi ? Representatives.find(Phi->getParent()) : Representatives.end();
      if (Rep != Representatives.end() && Rep->second && Rep->second->Phi == Phi &&
          Rep->second->Step > 0 && A < IterationCount)
        if (std::optional<Poly> F =
                Poly::add(Rep->second->Start, Poly::term({IterationCount + A}, Rep->second->Step)))
          Factor = std::move(*F);
      Term = Term ? Poly::mul(*Term, Factor) : std::nullopt;
    }
    std::optional<Poly> Sum = Term ? Poly::add(Counted, *Term) : std::nullopt;
    if (!Sum)
      return "its terms overflow";
    Counted = std::move(*Sum);
  }
  for (const auto &[M, C] : Counted.terms()) {
    if (C < 0) {
      bool Printable =
          std::all_of(M.begin(), M.end(), [](unsigned A) { return A < IterationCount; });
      return "its term " +
             (Printable ? str(Poly::term(M, C)) : std::string("counted from a loop's start")) +
             " is negative";
    }
    for (unsigned A : M)
      if (A < IterationCount && !nonNegative(Atoms[A], Depth))
        return ir::printOperand(*Atoms[A]) +
               (ir::asArgument(const_cast<ir::Value *>(Atoms[A]))
                    ? " is an integer parameter not specialized as non-negative, which a "
                      "launch that passes it >= 0 does"
                    : " is not known to be non-negative");
  }
  return "";
}

bool AffineAccessAnalysis::nonNegative(const ir::Value *V, unsigned Depth) {
  // Integer parameters are signed: one is non-negative only where the
  // launch checked it (the `nonnegative` attribute a specialization writes).
  if (const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(V)))
    return !C->isUndef() && C->getInt() >= 0;
  if (const ir::Argument *A = ir::asArgument(const_cast<ir::Value *>(V)))
    return A->attrs().NonNegative;
  const Instruction *I = asInst(V);
  if (!I || Depth > 8 || I->getType()->isTile())
    return false;
  auto NonNegativeValue = [&](const ir::Value *X) {
    std::optional<AffineTile> T = affineOf(X);
    return T && !T->Base && T->Steps.empty() && whyMayBeNegative(T->Offset, Depth + 1).empty();
  };
  auto Operand = [&](unsigned K) { return NonNegativeValue(I->getOperand(K)); };
  switch (I->getOpcode()) {
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms:
    return true;
  case Opcode::Phi: {
    // An induction from a non-negative start by non-negative steps.
    const ir::Value *Start = nullptr, *Step = nullptr;
    bool Negate = false;
    if (!inductionParts(*I, DT, Start, Step, Negate) || Negate)
      return false;
    return NonNegativeValue(Start) && NonNegativeValue(Step);
  }
  case Opcode::SDiv: // non-negative over positive (a zero divisor is undefined)
  case Opcode::SMin:
    return Operand(0) && Operand(1);
  case Opcode::SRem: // the dividend's sign
    return Operand(0);
  case Opcode::SMax:
  case Opcode::And:
    return Operand(0) || Operand(1);
  case Opcode::Select:
    return Operand(1) && Operand(2);
  default:
    return false;
  }
}

} // namespace tritonc::analysis
