//===- AxisInfo.cpp - Contiguity/divisibility/constancy analysis ----------===//
//
// Solving: a forward data-flow fixpoint over the reachable blocks in reverse
// post-order. Phis start OPTIMISTIC: a phi's first value is the meet of the
// incoming values computed so far (the back-edge values are not known yet),
// and every later sweep lowers it to the meet of its old value and its
// incoming values. Starting pessimistic would lose `pa += TK` loops: the phi
// would be all-1s, and so would the value flowing back into it. Every other
// instruction is recomputed from its operands each sweep, so when no value
// changes any more each phi is at most as strong as each of its incoming
// values and each instruction equals its transfer function: the facts are
// then true in every execution (by induction over the executed
// instructions), whatever the starting point was. Termination: phi facts
// only go down (powers of two that shrink, constants that are lost), and the
// other values are functions of the phis, so the sweeps stop one sweep after
// the phis stop changing; a guard falls back to pessimistic phis anyway.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/AxisInfo.h"

#include "tritonc/ir/Dominance.h"

#include <algorithm>
#include <sstream>

namespace tritonc::analysis {

using namespace ir;

int64_t largestPow2Divisor(int64_t V) {
  if (V == 0)
    return MaxDivisibility;
  uint64_t U = static_cast<uint64_t>(V);
  uint64_t Low = U & (~U + 1);
  return Low >= static_cast<uint64_t>(MaxDivisibility) ? MaxDivisibility
                                                       : static_cast<int64_t>(Low);
}

namespace {

/// The largest power of two dividing a dimension size (the longest runs a
/// dimension can hold under the aligned-block definitions).
int64_t pow2Part(int64_t N) {
  return N <= 0 ? 1 : std::min(largestPow2Divisor(N), MaxDivisibility);
}

int64_t satMul(int64_t A, int64_t B) {
  if (A >= MaxDivisibility || B >= MaxDivisibility || A * B >= MaxDivisibility)
    return MaxDivisibility;
  return A * B;
}

Shape dimsOf(const Type *T) {
  if (T->isTile())
    return T->getShape();
  return Shape{1};
}

bool isIntLike(const Type *T) { return T->isIntOrIntTile(); }
bool isPtrLike(const Type *T) { return T->isPointerOrPointerTile(); }

/// Bytes of one step of a pointer's contiguity (1 for integers).
int64_t stepBytes(const Type *T) {
  if (!isPtrLike(T))
    return 1;
  return std::max<int64_t>(1, T->getPointee()->getScalarSizeInBytes());
}

bool isPow2(int64_t V) { return V > 0 && (V & (V - 1)) == 0; }
int64_t log2Of(int64_t V) {
  int64_t K = 0;
  while ((int64_t(1) << K) < V)
    ++K;
  return K;
}

/// Divisibility of the elements of X whose index along D is a multiple of P
/// (a power of two). At block starts of X this is X's divisibility; P
/// smaller than X's runs also lands inside runs, on values start + m * P steps.
int64_t divAt(const AxisInfo &X, unsigned D, int64_t P, int64_t Step) {
  if (P >= X.Contiguity[D])
    return X.Divisibility[D];
  return std::min(X.Divisibility[D], satMul(P, Step));
}

/// A divisibility that holds for every element: each dimension's statement
/// at P = 1 covers all elements, so the strongest one applies.
int64_t allDiv(const AxisInfo &X, int64_t Step) {
  int64_t R = 1;
  for (unsigned D = 0; D < X.rank(); ++D)
    R = std::max(R, divAt(X, D, 1, Step));
  return R;
}

AxisInfo makeInfo(const Type *T) { return AxisInfo::pessimistic(T); }

/// Clamps the facts to what the type can hold and makes known constants
/// exact.
void normalize(AxisInfo &R, const Type *T) {
  Shape Dims = dimsOf(T);
  if (!isIntLike(T)) {
    R.Constant.reset();
    R.NonNegative = false;
  }
  if (R.Constant) {
    for (unsigned D = 0; D < R.rank(); ++D) {
      R.Contiguity[D] = 1;
      R.Constancy[D] = pow2Part(Dims[D]);
      R.Divisibility[D] = largestPow2Divisor(*R.Constant);
    }
    R.NonNegative = *R.Constant >= 0 && T->getIntBits() > 1;
    return;
  }
  for (unsigned D = 0; D < R.rank(); ++D) {
    int64_t Max = pow2Part(Dims[D]);
    R.Contiguity[D] = std::clamp<int64_t>(R.Contiguity[D], 1, Max);
    R.Constancy[D] = std::clamp<int64_t>(R.Constancy[D], 1, Max);
    R.Divisibility[D] = std::clamp<int64_t>(R.Divisibility[D], 1, MaxDivisibility);
    if (!isIntLike(T) && !isPtrLike(T)) {
      R.Contiguity[D] = 1;
      R.Divisibility[D] = 1;
    }
  }
  if (isIntLike(T) && T->getIntBits() == 1)
    R.NonNegative = false;
}

/// Meet (the strongest facts implied by both): used at phis.
AxisInfo meet(const AxisInfo &A, const AxisInfo &B, int64_t Step) {
  AxisInfo R = A;
  for (unsigned D = 0; D < R.rank(); ++D) {
    // Powers of two: the gcd of two run lengths is their minimum.
    R.Contiguity[D] = std::min(A.Contiguity[D], B.Contiguity[D]);
    R.Constancy[D] = std::min(A.Constancy[D], B.Constancy[D]);
    // Divisibility is stated at block starts, which move when the runs
    // shrink: re-read both sides at the new block starts.
    R.Divisibility[D] =
        std::min(divAt(A, D, R.Contiguity[D], Step), divAt(B, D, R.Contiguity[D], Step));
  }
  if (!(A.Constant && B.Constant && *A.Constant == *B.Constant))
    R.Constant.reset();
  R.NonNegative = A.NonNegative && B.NonNegative;
  return R;
}

std::optional<int64_t> foldBinary(Opcode Op, int64_t A, int64_t B, unsigned Bits) {
  uint64_t UA = static_cast<uint64_t>(A), UB = static_cast<uint64_t>(B);
  uint64_t Mask = Bits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << Bits) - 1);
  switch (Op) {
  case Opcode::Add:
    return normalizeInt(static_cast<int64_t>(UA + UB), Bits);
  case Opcode::Sub:
    return normalizeInt(static_cast<int64_t>(UA - UB), Bits);
  case Opcode::Mul:
    return normalizeInt(static_cast<int64_t>(UA * UB), Bits);
  case Opcode::And:
    return normalizeInt(A & B, Bits);
  case Opcode::Or:
    return normalizeInt(A | B, Bits);
  case Opcode::Xor:
    return normalizeInt(A ^ B, Bits);
  case Opcode::Shl:
    if (B < 0 || B >= static_cast<int64_t>(Bits))
      return 0;
    return normalizeInt(static_cast<int64_t>(UA << B), Bits);
  case Opcode::SDiv:
    if (B == 0 || B == -1)
      return std::nullopt;
    return normalizeInt(A / B, Bits);
  case Opcode::SRem:
    if (B == 0 || B == -1)
      return std::nullopt;
    return normalizeInt(A % B, Bits);
  case Opcode::UDiv:
    if ((UB & Mask) == 0)
      return std::nullopt;
    return normalizeInt(static_cast<int64_t>((UA & Mask) / (UB & Mask)), Bits);
  case Opcode::URem:
    if ((UB & Mask) == 0)
      return std::nullopt;
    return normalizeInt(static_cast<int64_t>((UA & Mask) % (UB & Mask)), Bits);
  default:
    return std::nullopt;
  }
}

class Solver {
public:
  Solver(const Function &F, std::unordered_map<const Value *, AxisInfo> &Infos)
      : F(F), Infos(Infos) {}

  unsigned run();

private:
  AxisInfo info(const Value *V) const;
  bool known(const Value *V) const;
  AxisInfo compute(const Instruction &I) const;
  AxisInfo binary(const Instruction &I) const;
  AxisInfo divByPow2(const AxisInfo &A, int64_t K) const;
  AxisInfo remByPow2(const AxisInfo &A, int64_t K) const;
  AxisInfo icmp(const Instruction &I) const;
  AxisInfo cast(const Instruction &I) const;
  AxisInfo reshape(const Instruction &I) const;
  AxisInfo phi(const Instruction &I) const;

  const Function &F;
  std::unordered_map<const Value *, AxisInfo> &Infos;
  bool PessimisticPhis = false;
};

bool Solver::known(const Value *V) const {
  return V->getValueKind() == ValueKind::Constant || Infos.count(V);
}

AxisInfo Solver::info(const Value *V) const {
  if (V->getValueKind() == ValueKind::Constant)
    return constantInfo(*static_cast<const Constant *>(V));
  auto It = Infos.find(V);
  if (It != Infos.end())
    return It->second;
  return AxisInfo::pessimistic(V->getType());
}

unsigned Solver::run() {
  for (unsigned I = 0; I < F.getNumArgs(); ++I) {
    const Argument *A = F.getArg(I);
    AxisInfo R = makeInfo(A->getType());
    if (isIntLike(A->getType()))
      R.Divisibility[0] = largestPow2Divisor(std::max<int64_t>(1, A->attrs().MultipleOf));
    else if (isPtrLike(A->getType()))
      R.Divisibility[0] = largestPow2Divisor(std::max<int64_t>(1, A->attrs().Aligned));
    normalize(R, A->getType());
    Infos[A] = R;
  }
  if (!F.getEntryBlock())
    return 0;
  DominatorTree DT(F);
  const unsigned MaxSweeps = 64;
  unsigned Sweeps = 0;
  for (bool Changed = true; Changed;) {
    Changed = false;
    if (++Sweeps > MaxSweeps && !PessimisticPhis) {
      // Never expected (the phis only go down); stay sound regardless.
      PessimisticPhis = true;
      for (const BasicBlock *BB : DT.reversePostOrder())
        for (const auto &I : BB->instructions())
          Infos.erase(I.get());
    }
    for (const BasicBlock *BB : DT.reversePostOrder()) {
      for (const auto &IPtr : BB->instructions()) {
        const Instruction &I = *IPtr;
        if (I.getType()->isVoid())
          continue;
        AxisInfo New = compute(I);
        auto It = Infos.find(&I);
        if (I.getOpcode() == Opcode::Phi && It != Infos.end())
          New = meet(It->second, New, stepBytes(I.getType()));
        if (It == Infos.end()) {
          Infos.emplace(&I, std::move(New));
          Changed = true;
        } else if (!(It->second == New)) {
          It->second = std::move(New);
          Changed = true;
        }
      }
    }
  }
  return Sweeps;
}

AxisInfo Solver::phi(const Instruction &I) const {
  const Type *T = I.getType();
  if (PessimisticPhis)
    return AxisInfo::pessimistic(T);
  std::optional<AxisInfo> R;
  for (const Value *V : I.operands()) {
    if (V == &I || !known(V))
      continue; // optimistic: not computed yet (a back edge)
    AxisInfo X = info(V);
    R = R ? meet(*R, X, stepBytes(T)) : X;
  }
  return R ? *R : AxisInfo::pessimistic(T);
}

AxisInfo Solver::divByPow2(const AxisInfo &A, int64_t K) const {
  // Floor division by 2^K (udiv, lshr, ashr, or sdiv of non-negative values).
  AxisInfo R = A;
  int64_t P = int64_t(1) << K;
  R.Constant.reset();
  if (K == 0)
    return R;
  for (unsigned D = 0; D < R.rank(); ++D) {
    int64_t C = A.Contiguity[D], Div = A.Divisibility[D];
    // Aligned blocks of M steps inside a run never straddle a multiple of
    // 2^K, so they share one quotient.
    int64_t M = std::min({C, Div, P});
    R.Constancy[D] = std::max(A.Constancy[D], M);
    R.Contiguity[D] = 1;
    // A run no longer than 2^K starting at a multiple of 2^K divides exactly.
    R.Divisibility[D] = (C <= P && Div >= P) ? Div / P : 1;
  }
  return R;
}

AxisInfo Solver::remByPow2(const AxisInfo &A, int64_t K) const {
  // Non-negative remainder by 2^K (urem, `and` with 2^K-1, srem of
  // non-negative values).
  AxisInfo R = A;
  int64_t P = int64_t(1) << K;
  R.Constant.reset();
  R.NonNegative = true;
  for (unsigned D = 0; D < R.rank(); ++D) {
    int64_t C = A.Contiguity[D], Div = A.Divisibility[D];
    // Aligned blocks of M steps inside a run do not cross a multiple of
    // 2^K, so they stay contiguous after the wrap.
    int64_t M = std::min({C, Div, P});
    R.Contiguity[D] = M;
    // Blocks of a full 2^K steps start at multiples of 2^K: at 0 after the
    // remainder.
    R.Divisibility[D] = M == P ? MaxDivisibility : std::min(divAt(A, D, M, 1), P);
  }
  return R;
}

AxisInfo Solver::binary(const Instruction &I) const {
  const Type *T = I.getType();
  AxisInfo A = info(I.getOperand(0)), B = info(I.getOperand(1));
  AxisInfo R = makeInfo(T);
  for (unsigned D = 0; D < R.rank(); ++D)
    R.Constancy[D] = std::min(A.Constancy[D], B.Constancy[D]);
  if (!isIntLike(T))
    return R;
  unsigned Bits = T->getIntBits();
  Opcode Op = I.getOpcode();
  if (A.Constant && B.Constant) {
    R.Constant = foldBinary(Op, *A.Constant, *B.Constant, Bits);
    if (R.Constant)
      return R;
  }
  auto Identity = [&](const AxisInfo &X) {
    AxisInfo Y = X;
    Y.Constant.reset();
    return Y;
  };
  std::optional<int64_t> CB = B.Constant;
  switch (Op) {
  case Opcode::Add:
  case Opcode::Sub:
    for (unsigned D = 0; D < R.rank(); ++D) {
      // A run plus a value constant over the run is still a run.
      int64_t C = std::min(A.Contiguity[D], B.Constancy[D]);
      if (Op == Opcode::Add)
        C = std::max(C, std::min(B.Contiguity[D], A.Constancy[D]));
      R.Contiguity[D] = C;
      R.Divisibility[D] = std::min(divAt(A, D, C, 1), divAt(B, D, C, 1));
    }
    R.NonNegative = Op == Opcode::Add && A.NonNegative && B.NonNegative;
    return R;
  case Opcode::Mul:
    if ((A.Constant && *A.Constant == 0) || (CB && *CB == 0)) {
      R.Constant = 0;
      return R;
    }
    if (CB && *CB == 1)
      return Identity(A);
    if (A.Constant && *A.Constant == 1)
      return Identity(B);
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = satMul(divAt(A, D, 1, 1), divAt(B, D, 1, 1));
    R.NonNegative = A.NonNegative && B.NonNegative;
    return R;
  case Opcode::Shl:
    if (CB && *CB >= 0 && *CB < static_cast<int64_t>(Bits)) {
      if (*CB == 0)
        return Identity(A);
      for (unsigned D = 0; D < R.rank(); ++D)
        R.Divisibility[D] = satMul(divAt(A, D, 1, 1), int64_t(1) << std::min<int64_t>(*CB, 30));
      return R;
    }
    // Left shifts never clear low zero bits (and huge shifts give 0).
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = divAt(A, D, 1, 1);
    return R;
  case Opcode::UDiv:
  case Opcode::SDiv:
  case Opcode::LShr:
  case Opcode::AShr: {
    bool Shift = Op == Opcode::LShr || Op == Opcode::AShr;
    std::optional<int64_t> K;
    if (CB && Shift && *CB >= 0 && *CB < static_cast<int64_t>(Bits) && *CB <= 30)
      K = *CB;
    else if (CB && !Shift && isPow2(*CB) && *CB <= MaxDivisibility)
      K = log2Of(*CB);
    if (K && (Op != Opcode::SDiv || A.NonNegative || *K == 0)) {
      AxisInfo Q = divByPow2(A, *K);
      for (unsigned D = 0; D < R.rank(); ++D)
        Q.Constancy[D] = std::max(Q.Constancy[D], R.Constancy[D]);
      Q.NonNegative = Op == Opcode::AShr   ? A.NonNegative
                      : Op == Opcode::SDiv ? A.NonNegative
                                           : (A.NonNegative || *K > 0);
      return Q;
    }
    if (K && Op == Opcode::SDiv) {
      // Possibly negative: truncation breaks the blocks, but divisions
      // that are exact stay exact.
      int64_t P = int64_t(1) << *K;
      for (unsigned D = 0; D < R.rank(); ++D) {
        int64_t Div = divAt(A, D, 1, 1);
        R.Divisibility[D] = Div >= P ? Div / P : 1;
      }
      return R;
    }
    R.NonNegative = (Op == Opcode::SDiv && A.NonNegative && B.NonNegative) ||
                    (Op == Opcode::UDiv && CB && *CB >= 2) ||
                    (Op == Opcode::LShr && CB && *CB >= 1) || (Op == Opcode::AShr && A.NonNegative);
    return R;
  }
  case Opcode::URem:
  case Opcode::SRem: {
    if (CB && isPow2(*CB) && *CB <= MaxDivisibility && (Op == Opcode::URem || A.NonNegative)) {
      AxisInfo Q = remByPow2(A, log2Of(*CB));
      for (unsigned D = 0; D < R.rank(); ++D)
        Q.Constancy[D] = std::max(std::min(Q.Constancy[D], B.Constancy[D]), R.Constancy[D]);
      return Q;
    }
    // a - q * b keeps the common power of two.
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = std::min(divAt(A, D, 1, 1), divAt(B, D, 1, 1));
    R.NonNegative = Op == Opcode::SRem ? A.NonNegative : (CB && *CB > 0);
    return R;
  }
  case Opcode::And: {
    if (CB && *CB == -1)
      return Identity(A);
    if (CB && *CB > 0 && isPow2(*CB + 1) && *CB < MaxDivisibility) {
      AxisInfo Q = remByPow2(A, log2Of(*CB + 1));
      for (unsigned D = 0; D < R.rank(); ++D)
        Q.Constancy[D] = std::max(Q.Constancy[D], R.Constancy[D]);
      return Q;
    }
    if (CB && *CB < 0 && isPow2(-*CB) && -*CB <= MaxDivisibility) {
      // Clearing the low K bits: floor to a multiple of 2^K.
      int64_t K = log2Of(-*CB);
      AxisInfo Q = divByPow2(A, K);
      for (unsigned D = 0; D < R.rank(); ++D) {
        Q.Constancy[D] = std::max(Q.Constancy[D], R.Constancy[D]);
        Q.Divisibility[D] = std::max(divAt(A, D, 1, 1), int64_t(1) << K);
      }
      Q.NonNegative = A.NonNegative;
      return Q;
    }
    // Trailing zeros of either side survive.
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = std::max(divAt(A, D, 1, 1), divAt(B, D, 1, 1));
    R.NonNegative = A.NonNegative || B.NonNegative;
    return R;
  }
  case Opcode::Or:
  case Opcode::Xor:
    if (CB && *CB == 0)
      return Identity(A);
    if (A.Constant && *A.Constant == 0)
      return Identity(B);
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = std::min(divAt(A, D, 1, 1), divAt(B, D, 1, 1));
    R.NonNegative = A.NonNegative && B.NonNegative;
    return R;
  case Opcode::SMin:
  case Opcode::SMax:
  case Opcode::UMin:
  case Opcode::UMax:
    // The result is one of the operands.
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = std::min(divAt(A, D, 1, 1), divAt(B, D, 1, 1));
    R.NonNegative = (Op == Opcode::SMax || Op == Opcode::UMin) ? (A.NonNegative || B.NonNegative)
                                                               : (A.NonNegative && B.NonNegative);
    return R;
  default:
    return R;
  }
}

AxisInfo Solver::icmp(const Instruction &I) const {
  const Type *T = I.getType();
  AxisInfo A = info(I.getOperand(0)), B = info(I.getOperand(1));
  AxisInfo R = makeInfo(T);
  int64_t Step = stepBytes(I.getOperand(0)->getType());
  CmpPredicate P = I.Predicate;
  // x < b flips between b-1 and b; with b a multiple of M and the runs of x
  // cut into aligned blocks of M starting at multiples of M, no block
  // contains both b-1 and b. Same for b > x, x >= b, b <= x.
  bool LeftRun = P == CmpPredicate::SLT || P == CmpPredicate::SGE || P == CmpPredicate::ULT ||
                 P == CmpPredicate::UGE;
  bool RightRun = P == CmpPredicate::SGT || P == CmpPredicate::SLE || P == CmpPredicate::UGT ||
                  P == CmpPredicate::ULE;
  for (unsigned D = 0; D < R.rank(); ++D) {
    int64_t K = std::min(A.Constancy[D], B.Constancy[D]);
    const AxisInfo *Run = LeftRun ? &A : RightRun ? &B : nullptr;
    const AxisInfo *Bound = LeftRun ? &B : RightRun ? &A : nullptr;
    if (Run && Run->Contiguity[D] > 1) {
      // The bound is a multiple of M in steps; for pointers, in bytes of
      // Step-sized steps.
      int64_t BoundDiv = divAt(*Bound, D, 1, Step) / Step;
      int64_t M = std::min({Run->Contiguity[D], std::max<int64_t>(1, Run->Divisibility[D] / Step),
                            Bound->Constancy[D], std::max<int64_t>(1, BoundDiv)});
      K = std::max(K, M);
    }
    R.Constancy[D] = K;
  }
  return R;
}

AxisInfo Solver::cast(const Instruction &I) const {
  const Type *T = I.getType();
  const Value *Src = I.getOperand(0);
  const Type *ST = Src->getType();
  AxisInfo A = info(Src);
  AxisInfo R = makeInfo(T);
  R.Constancy = A.Constancy;
  switch (I.getOpcode()) {
  case Opcode::SExt:
    if (ST->getIntBits() == 1) {
      if (A.Constant)
        R.Constant = *A.Constant ? -1 : 0;
      return R;
    }
    return A;
  case Opcode::ZExt: {
    R = A;
    if (A.Constant) {
      unsigned SB = ST->getIntBits();
      R.Constant = SB >= 64 ? *A.Constant : (*A.Constant & ((int64_t(1) << SB) - 1));
    }
    // A run crossing -1 -> 0 breaks; it starts below 0 only when it starts
    // at a multiple of its divisibility below its length.
    if (!A.NonNegative)
      for (unsigned D = 0; D < R.rank(); ++D) {
        R.Contiguity[D] = std::min(A.Contiguity[D], A.Divisibility[D]);
        R.Divisibility[D] = divAt(A, D, R.Contiguity[D], 1);
      }
    R.NonNegative = true;
    return R;
  }
  case Opcode::Trunc: {
    unsigned DB = T->getIntBits();
    R = A;
    R.NonNegative = false;
    if (A.Constant)
      R.Constant = normalizeInt(*A.Constant, DB);
    // Wrapping happens at multiples of 2^(DB-1).
    int64_t Wrap = DB <= 1 ? 1 : (DB - 1 >= 30 ? MaxDivisibility : int64_t(1) << (DB - 1));
    for (unsigned D = 0; D < R.rank(); ++D) {
      R.Contiguity[D] = std::min({A.Contiguity[D], A.Divisibility[D], Wrap});
      R.Divisibility[D] = divAt(A, D, R.Contiguity[D], 1);
    }
    return R;
  }
  case Opcode::PtrToInt:
  case Opcode::IntToPtr:
  case Opcode::Bitcast: {
    bool PtrFacts = (isPtrLike(ST) || isIntLike(ST)) && (isPtrLike(T) || isIntLike(T));
    if (!PtrFacts)
      return R;
    bool SameInt = isIntLike(ST) && isIntLike(T);
    if (SameInt)
      return A;
    // Addresses in bytes on both sides. Where the runs are lost, the
    // divisibility must hold for every element, not only at run starts.
    bool Exact = (isPtrLike(ST) ? ST->getScalarBits() : ST->getIntBits()) ==
                 (isPtrLike(T) ? T->getScalarBits() : T->getIntBits());
    if (Exact && stepBytes(ST) == stepBytes(T))
      R.Contiguity = A.Contiguity;
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = divAt(A, D, R.Contiguity[D], stepBytes(ST));
    return R;
  }
  default:
    return R;
  }
}

AxisInfo Solver::reshape(const Instruction &I) const {
  const Type *T = I.getType();
  const Value *Src = I.getOperand(0);
  AxisInfo A = info(Src);
  int64_t Step = stepBytes(T);
  AxisInfo R = makeInfo(T);
  R.Constant = A.Constant;
  R.NonNegative = A.NonNegative;
  int64_t Every = allDiv(A, Step);
  for (unsigned D = 0; D < R.rank(); ++D)
    R.Divisibility[D] = Every;
  Shape In = dimsOf(Src->getType()), Out = dimsOf(T);
  // Dimensions other than 1s map one to one when the non-unit shapes agree
  // (the newaxis pattern).
  std::vector<unsigned> InIdx, OutIdx;
  for (unsigned D = 0; D < In.size(); ++D)
    if (In[D] != 1)
      InIdx.push_back(D);
  for (unsigned D = 0; D < Out.size(); ++D)
    if (Out[D] != 1)
      OutIdx.push_back(D);
  bool Same = InIdx.size() == OutIdx.size();
  for (unsigned K = 0; Same && K < InIdx.size(); ++K)
    Same = In[InIdx[K]] == Out[OutIdx[K]];
  if (Same) {
    for (unsigned K = 0; K < InIdx.size(); ++K) {
      R.Contiguity[OutIdx[K]] = A.Contiguity[InIdx[K]];
      R.Divisibility[OutIdx[K]] = A.Divisibility[InIdx[K]];
      R.Constancy[OutIdx[K]] = A.Constancy[InIdx[K]];
    }
    return R;
  }
  // Otherwise only the innermost dimension keeps its runs, when one of the
  // two innermost sizes divides the other (rows are split or merged).
  int64_t NI = In.back(), NO = Out.back();
  unsigned DI = In.size() - 1, DO = Out.size() - 1;
  if (NI % NO == 0 || NO % NI == 0) {
    int64_t Lim = pow2Part(std::min(NI, NO));
    R.Contiguity[DO] = std::min(A.Contiguity[DI], Lim);
    R.Constancy[DO] = std::min(A.Constancy[DI], Lim);
    R.Divisibility[DO] = std::max(Every, divAt(A, DI, R.Contiguity[DO], Step));
  }
  return R;
}

AxisInfo Solver::compute(const Instruction &I) const {
  const Type *T = I.getType();
  AxisInfo R = makeInfo(T);
  Shape Dims = dimsOf(T);
  switch (I.getOpcode()) {
  case Opcode::Phi:
    R = phi(I);
    break;
  case Opcode::MakeRange: {
    int64_t N = I.RangeEnd - I.RangeStart;
    int64_t C = pow2Part(N);
    int64_t DS = largestPow2Divisor(I.RangeStart);
    R.Contiguity[0] = C;
    R.Divisibility[0] = C == N ? DS : std::min(DS, C);
    R.NonNegative = I.RangeStart >= 0;
    if (N == 1)
      R.Constant = I.RangeStart;
    break;
  }
  case Opcode::Splat: {
    AxisInfo A = info(I.getOperand(0));
    for (unsigned D = 0; D < R.rank(); ++D) {
      R.Constancy[D] = pow2Part(Dims[D]);
      R.Divisibility[D] = A.Divisibility[0];
    }
    R.Constant = A.Constant;
    R.NonNegative = A.NonNegative;
    break;
  }
  case Opcode::Broadcast: {
    const Value *Src = I.getOperand(0);
    AxisInfo A = info(Src);
    Shape In = dimsOf(Src->getType());
    if (In.size() != Dims.size())
      break;
    int64_t Every = allDiv(A, stepBytes(T));
    R = A;
    for (unsigned D = 0; D < R.rank(); ++D)
      if (In[D] != Dims[D]) {
        R.Contiguity[D] = 1;
        R.Constancy[D] = pow2Part(Dims[D]);
        R.Divisibility[D] = Every;
      }
    break;
  }
  case Opcode::Reshape:
    R = reshape(I);
    break;
  case Opcode::ConvertLayout: // the same values, held by other threads
    R = info(I.getOperand(0));
    break;
  case Opcode::Trans: {
    AxisInfo A = info(I.getOperand(0));
    if (A.rank() != R.rank())
      break;
    R = A;
    std::reverse(R.Contiguity.begin(), R.Contiguity.end());
    std::reverse(R.Divisibility.begin(), R.Divisibility.end());
    std::reverse(R.Constancy.begin(), R.Constancy.end());
    break;
  }
  case Opcode::GEP: {
    AxisInfo P = info(I.getOperand(0)), O = info(I.getOperand(1));
    int64_t Step = stepBytes(T);
    for (unsigned D = 0; D < R.rank(); ++D) {
      int64_t C = std::max(std::min(P.Contiguity[D], O.Constancy[D]),
                           std::min(O.Contiguity[D], P.Constancy[D]));
      R.Contiguity[D] = C;
      R.Constancy[D] = std::min(P.Constancy[D], O.Constancy[D]);
      R.Divisibility[D] = std::min(divAt(P, D, C, Step), satMul(divAt(O, D, C, 1), Step));
    }
    break;
  }
  case Opcode::Select: {
    AxisInfo C = info(I.getOperand(0)), A = info(I.getOperand(1)), B = info(I.getOperand(2));
    if (C.Constant) {
      R = *C.Constant ? A : B;
      break;
    }
    bool ScalarCond = I.getOperand(0)->getType()->isScalar();
    int64_t Step = stepBytes(T);
    for (unsigned D = 0; D < R.rank(); ++D) {
      int64_t KC = ScalarCond ? pow2Part(Dims[D]) : C.Constancy[D];
      int64_t Run = std::min({KC, A.Contiguity[D], B.Contiguity[D]});
      R.Contiguity[D] = Run;
      R.Constancy[D] = std::min({KC, A.Constancy[D], B.Constancy[D]});
      R.Divisibility[D] = std::min(divAt(A, D, Run, Step), divAt(B, D, Run, Step));
    }
    if (A.Constant && B.Constant && *A.Constant == *B.Constant)
      R.Constant = A.Constant;
    R.NonNegative = A.NonNegative && B.NonNegative;
    break;
  }
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms:
    R.NonNegative = true;
    break;
  case Opcode::ICmp:
    R = icmp(I);
    break;
  case Opcode::FCmp:
  case Opcode::FNeg:
  case Opcode::Exp:
  case Opcode::Log:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Tanh:
  case Opcode::FAbs:
  case Opcode::Floor:
  case Opcode::Ceil:
  case Opcode::Fma:
    // Element-wise: equal inputs give equal outputs.
    for (unsigned D = 0; D < R.rank(); ++D) {
      R.Constancy[D] = pow2Part(Dims[D]);
      for (const Value *V : I.operands())
        R.Constancy[D] = std::min(R.Constancy[D], info(V).Constancy[D]);
    }
    break;
  case Opcode::IAbs: {
    AxisInfo A = info(I.getOperand(0));
    R.Constancy = A.Constancy;
    for (unsigned D = 0; D < R.rank(); ++D)
      R.Divisibility[D] = divAt(A, D, 1, 1);
    R.NonNegative = true; // no overflow (|INT_MIN|) assumed
    break;
  }
  default:
    if (I.getCategory() == OpCategory::Binary)
      R = binary(I);
    else if (I.getCategory() == OpCategory::Cast)
      R = cast(I);
    break;
  }
  if (R.rank() != Dims.size())
    R = makeInfo(T);
  // A `__multipleof` local: every element is a multiple (the interpreter
  // checks it; the GPU trusts it).
  if (I.MultipleOf > 1 && T->getScalarType()->getKind() == TypeKind::Int)
    for (int64_t &Div : R.Divisibility)
      Div = std::max(Div, std::min(largestPow2Divisor(I.MultipleOf), MaxDivisibility));
  normalize(R, T);
  return R;
}

} // namespace

AxisInfo AxisInfo::pessimistic(const Type *T) {
  // One entry per tile dimension, as dimsOf: shared buffers and tensor
  // descriptors (GPU-level IR) have a shape but are not tiles.
  size_t N = T->isTile() ? std::max<size_t>(1, T->getRank()) : 1;
  AxisInfo R;
  R.Contiguity.assign(N, 1);
  R.Divisibility.assign(N, 1);
  R.Constancy.assign(N, 1);
  return R;
}

std::string AxisInfo::str() const {
  std::ostringstream OS;
  auto List = [&](const char *Name, const std::vector<int64_t> &V) {
    OS << Name << "=[";
    for (size_t I = 0; I < V.size(); ++I)
      OS << (I ? "," : "") << V[I];
    OS << "]";
  };
  List("contiguity", Contiguity);
  OS << " ";
  List("divisibility", Divisibility);
  OS << " ";
  List("constancy", Constancy);
  if (Constant)
    OS << " constant=" << *Constant;
  return OS.str();
}

AxisInfo constantInfo(const Constant &C) {
  AxisInfo R = AxisInfo::pessimistic(C.getType());
  if (C.isUndef())
    return R;
  if (isPtrLike(C.getType())) {
    R.Divisibility[0] = largestPow2Divisor(C.getInt());
  } else if (isIntLike(C.getType())) {
    R.Constant = C.getInt();
    R.Divisibility[0] = largestPow2Divisor(C.getInt());
    R.NonNegative = C.getInt() >= 0 && C.getType()->getIntBits() > 1;
  }
  return R;
}

AxisInfoAnalysis::AxisInfoAnalysis(const Function &F) { Iterations = Solver(F, Infos).run(); }

const AxisInfo &AxisInfoAnalysis::get(const Value *V) const {
  auto It = Infos.find(V);
  if (It != Infos.end())
    return It->second;
  auto EIt = Extra.find(V);
  if (EIt != Extra.end())
    return EIt->second;
  AxisInfo R = V->getValueKind() == ValueKind::Constant
                   ? constantInfo(*static_cast<const Constant *>(V))
                   : AxisInfo::pessimistic(V->getType());
  return Extra.emplace(V, std::move(R)).first->second;
}

} // namespace tritonc::analysis
