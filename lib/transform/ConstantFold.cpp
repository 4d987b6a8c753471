//===- ConstantFold.cpp - Constant folding and algebraic identities -------===//
#include "tritonc/transform/ConstantFold.h"

#include "tritonc/transform/ConstantEval.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <cmath>

namespace tritonc::transform {

using namespace ir;

namespace {

/// The constant (or splatted constant) V is, ignoring undef.
Constant *knownConstant(Value *V) {
  Constant *C = getConstantOrSplat(V);
  return C && !C->isUndef() ? C : nullptr;
}

bool isIntValue(Constant *C, uint64_t V) {
  return C && C->getType()->getKind() == TypeKind::Int && asUnsigned(*C) == V;
}
bool isAllOnes(Constant *C) {
  if (!C || C->getType()->getKind() != TypeKind::Int)
    return false;
  unsigned Bits = C->getType()->getIntBits();
  return asUnsigned(*C) == (Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1);
}
bool isFloatValue(Constant *C, double V, bool NegativeZero = false) {
  return C && C->getType()->getKind() == TypeKind::Float && C->getFloat() == V &&
         std::signbit(C->getFloat()) == NegativeZero;
}

/// Identities that hold bit for bit for every value of the non-constant
/// operand. Float identities that would change -0.0 or need fast-math
/// (x+0.0, x*0.0, x-x) are deliberately absent.
Value *simplifyBinary(Instruction &I) {
  Value *L = I.getOperand(0), *R = I.getOperand(1);
  Constant *CL = knownConstant(L), *CR = knownConstant(R);
  auto Zero = [&]() {
    return materializeConstant(
        I.getFunction()->getParent()->getInt(I.getType()->getScalarType(), 0), I.getType(), &I);
  };
  switch (I.getOpcode()) {
  case Opcode::Add:
    return isIntValue(CR, 0) ? L : isIntValue(CL, 0) ? R : nullptr;
  case Opcode::Sub:
    if (isIntValue(CR, 0))
      return L;
    return L == R ? Zero() : nullptr;
  case Opcode::Mul:
    if (isIntValue(CR, 1) || isIntValue(CL, 0))
      return L;
    if (isIntValue(CL, 1) || isIntValue(CR, 0))
      return R;
    return nullptr;
  case Opcode::SDiv:
    // Signed one (i1 has none: its 1 is -1).
    return CR && asSigned(*CR) == 1 ? L : nullptr;
  case Opcode::UDiv:
    return isIntValue(CR, 1) ? L : nullptr;
  case Opcode::Shl:
  case Opcode::LShr:
  case Opcode::AShr:
    return isIntValue(CR, 0) ? L : nullptr;
  case Opcode::And:
    if (isIntValue(CR, 0))
      return R;
    if (isIntValue(CL, 0))
      return L;
    if (isAllOnes(CR) || L == R)
      return L;
    return isAllOnes(CL) ? R : nullptr;
  case Opcode::Or:
    if (isIntValue(CR, 0) || L == R)
      return L;
    if (isIntValue(CL, 0))
      return R;
    if (isAllOnes(CR))
      return R;
    if (isAllOnes(CL))
      return L;
    return nullptr;
  case Opcode::Xor:
    if (isIntValue(CR, 0))
      return L;
    if (isIntValue(CL, 0))
      return R;
    return L == R ? Zero() : nullptr;
  case Opcode::SMin:
  case Opcode::SMax:
  case Opcode::UMin:
  case Opcode::UMax:
  case Opcode::FMin:
  case Opcode::FMax:
    return L == R ? L : nullptr;
  case Opcode::FAdd:
    // -0.0 is the additive identity (+0.0 is not: -0.0 + +0.0 = +0.0).
    return isFloatValue(CR, 0, true) ? L : isFloatValue(CL, 0, true) ? R : nullptr;
  case Opcode::FSub:
    return isFloatValue(CR, 0) ? L : nullptr;
  case Opcode::FMul:
    return isFloatValue(CR, 1) ? L : isFloatValue(CL, 1) ? R : nullptr;
  case Opcode::FDiv:
    return isFloatValue(CR, 1) ? L : nullptr;
  default:
    return nullptr;
  }
}

/// reduce of a splat of C over N elements, combined in index order.
Constant *foldReduceOfSplat(Module &M, const Instruction &I, Constant *C) {
  int64_t N = I.getOperand(0)->getType()->getShape()[I.Axis];
  const Type *T = C->getType();
  switch (I.Reduction) {
  case ReduceKind::Add:
    return M.getInt(T, static_cast<int64_t>(asUnsigned(*C) * static_cast<uint64_t>(N)));
  case ReduceKind::FAdd: {
    // Whether the sum starts from +0.0 or from the first element only shows
    // for -0.0; leave that case to run time.
    if (C->getFloat() == 0 && std::signbit(C->getFloat()))
      return nullptr;
    double Acc = C->getFloat();
    for (int64_t K = 1; K < N; ++K)
      Acc = roundToFloatKind(Acc + C->getFloat(), T->getFloatKind());
    return M.getFloat(T, Acc);
  }
  case ReduceKind::SMax:
  case ReduceKind::SMin:
  case ReduceKind::UMax:
  case ReduceKind::UMin:
  case ReduceKind::FMax:
  case ReduceKind::FMin:
    return C;
  default:
    return nullptr;
  }
}

/// Replaces a cond_br whose outcome is known by a br.
bool foldBranch(Instruction &Br) {
  BasicBlock *BB = Br.getParent();
  BasicBlock *True = Br.successors()[0], *False = Br.successors()[1];
  Value *Cond = Br.getOperand(0);
  Constant *C = knownConstant(Cond);
  BasicBlock *Taken;
  if (True == False) {
    Taken = True;
  } else if (C) {
    Taken = C->getInt() ? True : False;
    removePhiEntriesFor(Taken == True ? False : True, BB);
  } else {
    return false;
  }
  auto New = Instruction::create(Opcode::Br, Type::getVoid(), {});
  New->addSuccessor(Taken);
  New->Loc = Br.Loc;
  BB->insert(BB->iteratorTo(&Br), std::move(New));
  Br.dropAllOperands();
  Br.eraseFromParent();
  eraseIfTriviallyDead(asInstruction(Cond));
  return true;
}

} // namespace

Value *foldInstruction(Instruction &I) {
  Module &M = *I.getFunction()->getParent();
  const Type *T = I.getType();
  switch (I.getCategory()) {
  case OpCategory::Misc:
    if (I.getOpcode() != Opcode::Select)
      return nullptr;
    if (Constant *C = knownConstant(I.getOperand(0)))
      return C->getInt() ? I.getOperand(1) : I.getOperand(2);
    [[fallthrough]];
  case OpCategory::Binary:
  case OpCategory::Unary:
  case OpCategory::Ternary:
  case OpCategory::Cmp:
  case OpCategory::Cast: {
    std::vector<Constant *> Ops;
    for (Value *Op : I.operands())
      Ops.push_back(knownConstant(Op));
    if (Constant *R = evaluateScalar(M, I, Ops))
      return materializeConstant(R, T, &I);
    return I.getCategory() == OpCategory::Binary ? simplifyBinary(I) : nullptr;
  }
  case OpCategory::Tile:
    switch (I.getOpcode()) {
    case Opcode::Broadcast:
    case Opcode::Reshape:
    case Opcode::Trans:
      if (Constant *C = knownConstant(I.getOperand(0)))
        return materializeConstant(C, T, &I);
      return nullptr;
    case Opcode::Reduce:
      if (Constant *C = knownConstant(I.getOperand(0)))
        if (Constant *R = foldReduceOfSplat(M, I, C))
          return materializeConstant(R, T, &I);
      return nullptr;
    default:
      return nullptr;
    }
  default:
    return nullptr;
  }
}

bool ConstantFoldPass::run(Function &F, AnalysisManager &) {
  // Sweeps repeat for what phis delayed and for the blocks that folded
  // branches made dead.
  return sweepUntilUnchanged(F, [](Instruction &I) {
    if (I.getOpcode() == Opcode::CondBr)
      return foldBranch(I);
    Value *V = foldInstruction(I);
    if (!V || V == &I)
      return false;
    replaceAndErase(&I, V);
    return true;
  });
}

std::unique_ptr<Pass> createConstantFoldPass() { return std::make_unique<ConstantFoldPass>(); }

} // namespace tritonc::transform
