//===- Verifier.cpp - Checks Triton-IR invariants -------------------------===//
#include "tritonc/ir/Verifier.h"

#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/WarpPartitions.h"

#include "VerifyGpu.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace tritonc::ir {

namespace {

std::string typeName(const Type *T) { return "'" + T->str() + "'"; }

bool isFloatOpcode(Opcode Op) {
  switch (Op) {
  case Opcode::FAdd:
  case Opcode::FSub:
  case Opcode::FMul:
  case Opcode::FDiv:
  case Opcode::FRem:
  case Opcode::FMin:
  case Opcode::FMax:
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
    return true;
  default:
    return false;
  }
}

/// Allowed operand counts of each opcode (phi: any, checked against its
/// incoming blocks).
void operandCountRange(Opcode Op, unsigned &Min, unsigned &Max) {
  switch (opcodeCategory(Op)) {
  case OpCategory::Binary:
  case OpCategory::Cmp:
    Min = Max = 2;
    return;
  case OpCategory::Unary:
  case OpCategory::Cast:
    Min = Max = 1;
    return;
  case OpCategory::Ternary:
    Min = Max = 3;
    return;
  default:
    break;
  }
  switch (Op) {
  case Opcode::MakeRange:
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms:
  case Opcode::Br:
  case Opcode::WarpSpecialize:
  case Opcode::WarpJoin:
    Min = Max = 0;
    return;
  case Opcode::Splat:
  case Opcode::Reshape:
  case Opcode::Broadcast:
  case Opcode::Trans:
  case Opcode::Reduce:
  case Opcode::Load:
  case Opcode::CondBr:
    Min = Max = 1;
    return;
  case Opcode::Store:
  case Opcode::GEP:
    Min = Max = 2;
    return;
  case Opcode::Dot:
  case Opcode::MaskedLoad:
  case Opcode::MaskedStore:
  case Opcode::AtomicCAS:
  case Opcode::Select:
    Min = Max = 3;
    return;
  case Opcode::AtomicRMW:
    Min = 2;
    Max = 3;
    return;
  case Opcode::Ret:
    Min = 0;
    Max = 1;
    return;
  default:
    Min = 0;
    Max = std::numeric_limits<unsigned>::max();
    return;
  }
}

bool producesNoValue(Opcode Op) { return isVoidOpcode(Op); }

/// The type rules of docs/IR.md for one instruction whose operand count,
/// result kind and operands are already known to be sound.
std::string checkTypes(const Instruction &I) {
  Opcode Op = I.getOpcode();
  const Type *R = I.getType();
  auto Ty = [&](unsigned K) { return I.getOperand(K)->getType(); };
  auto SameShape = [](const Type *A, const Type *B) { return A->getShape() == B->getShape(); };
  auto IsMaskFor = [&](const Type *Mask, const Type *Of) {
    return Mask->getScalarType() == Type::getI1() && SameShape(Mask, Of) &&
           Mask->getLayout() == Of->getLayout();
  };
  auto ResultMustBe = [&](const Type *Expected, const char *Why) -> std::string {
    if (R == Expected)
      return "";
    return "result type " + typeName(R) + " should be " + typeName(Expected) + " (" + Why + ")";
  };

  switch (opcodeCategory(Op)) {
  case OpCategory::Binary:
  case OpCategory::Unary:
  case OpCategory::Ternary: {
    for (unsigned K = 0; K < I.getNumOperands(); ++K)
      if (Ty(K) != R)
        return "operand " + std::to_string(K) + " has type " + typeName(Ty(K)) +
               " but the result type is " + typeName(R);
    bool WantFloat = isFloatOpcode(Op);
    if (WantFloat && !R->isFloatOrFloatTile())
      return std::string("'") + opcodeName(Op) + "' needs float operands, not " + typeName(R);
    if (!WantFloat && !R->isIntOrIntTile())
      return std::string("'") + opcodeName(Op) + "' needs integer operands, not " + typeName(R);
    return "";
  }
  case OpCategory::Cmp: {
    if (Ty(0) != Ty(1))
      return "operand types differ: " + typeName(Ty(0)) + " and " + typeName(Ty(1));
    if (Op == Opcode::ICmp) {
      if (!Ty(0)->isIntOrIntTile() && !Ty(0)->isPointerOrPointerTile())
        return "icmp needs integer or pointer operands, not " + typeName(Ty(0));
      if (I.Predicate > CmpPredicate::UGE)
        return std::string("'") + predicateName(I.Predicate) + "' is not an icmp predicate";
    } else {
      if (!Ty(0)->isFloatOrFloatTile())
        return "fcmp needs float operands, not " + typeName(Ty(0));
      if (I.Predicate < CmpPredicate::OEQ)
        return std::string("'") + predicateName(I.Predicate) + "' is not an fcmp predicate";
    }
    return ResultMustBe(Ty(0)->withScalar(Type::getI1()), "i1 of the operands' shape");
  }
  case OpCategory::Cast: {
    const Type *From = Ty(0)->getScalarType(), *To = R->getScalarType();
    if (!SameShape(Ty(0), R) || Ty(0)->getLayout() != R->getLayout())
      return "cast changes the shape or layout: " + typeName(Ty(0)) + " to " + typeName(R);
    bool Ok = false;
    TypeKind FK = From->getKind(), TK = To->getKind();
    unsigned FB = From->getScalarBits(), TB = To->getScalarBits();
    switch (Op) {
    case Opcode::Trunc:
      Ok = FK == TypeKind::Int && TK == TypeKind::Int && TB < FB;
      break;
    case Opcode::ZExt:
    case Opcode::SExt:
      Ok = FK == TypeKind::Int && TK == TypeKind::Int && TB > FB;
      break;
    case Opcode::FPTrunc:
      Ok = FK == TypeKind::Float && TK == TypeKind::Float && TB < FB;
      break;
    case Opcode::FPExt:
      Ok = FK == TypeKind::Float && TK == TypeKind::Float && TB > FB;
      break;
    case Opcode::FPToUI:
    case Opcode::FPToSI:
      Ok = FK == TypeKind::Float && TK == TypeKind::Int;
      break;
    case Opcode::UIToFP:
    case Opcode::SIToFP:
      Ok = FK == TypeKind::Int && TK == TypeKind::Float;
      break;
    case Opcode::PtrToInt:
      Ok = FK == TypeKind::Pointer && TK == TypeKind::Int;
      break;
    case Opcode::IntToPtr:
      Ok = FK == TypeKind::Int && TK == TypeKind::Pointer;
      break;
    case Opcode::Bitcast:
      Ok = (FK == TypeKind::Pointer) == (TK == TypeKind::Pointer) && FB == TB;
      break;
    default:
      break;
    }
    if (!Ok)
      return std::string("invalid ") + opcodeName(Op) + " from " + typeName(From) + " to " +
             typeName(To);
    return "";
  }
  default:
    break;
  }

  switch (Op) {
  case Opcode::Select:
    if (Ty(1) != R || Ty(2) != R)
      return "select operands " + typeName(Ty(1)) + " and " + typeName(Ty(2)) +
             " must both have the result type " + typeName(R);
    if (Ty(0) != Type::getI1() && !IsMaskFor(Ty(0), R))
      return "select condition " + typeName(Ty(0)) + " must be i1 or i1 of the shape of " +
             typeName(R);
    return "";
  case Opcode::GEP:
    if (!Ty(0)->isPointerOrPointerTile())
      return "gep needs a pointer, not " + typeName(Ty(0));
    if (!Ty(1)->isIntOrIntTile() || !SameShape(Ty(0), Ty(1)) ||
        Ty(0)->getLayout() != Ty(1)->getLayout())
      return "gep offset " + typeName(Ty(1)) +
             " must be an integer of the pointer's shape and layout";
    return ResultMustBe(Ty(0), "the pointer operand's type");
  case Opcode::MakeRange:
    if (I.RangeEnd <= I.RangeStart || I.RangeStart < std::numeric_limits<int32_t>::min() ||
        I.RangeEnd > int64_t(std::numeric_limits<int32_t>::max()) + 1)
      return "make_range needs start < end within i32, not [" + std::to_string(I.RangeStart) +
             ", " + std::to_string(I.RangeEnd) + ")";
    return ResultMustBe(Type::getTile(Type::getI32(), {I.RangeEnd - I.RangeStart}, R->getLayout()),
                        "i32<end-start>");
  case Opcode::Splat:
    if (Ty(0)->isTile())
      return "splat needs a scalar operand, not " + typeName(Ty(0));
    if (!R->isTile() || R->getScalarType() != Ty(0))
      return "splat result " + typeName(R) + " must be a tile of " + typeName(Ty(0));
    return "";
  case Opcode::Reshape:
    if (R->getScalarType() != Ty(0)->getScalarType() ||
        R->getNumElements() != Ty(0)->getNumElements())
      return "reshape from " + typeName(Ty(0)) + " to " + typeName(R) +
             " must keep the element type and count";
    return "";
  case Opcode::Broadcast: {
    const Type *A = Ty(0);
    if (R->getScalarType() != A->getScalarType() || !A->isTile() || A->getRank() != R->getRank())
      return "broadcast from " + typeName(A) + " to " + typeName(R) +
             " needs tiles of one element type and rank";
    for (unsigned D = 0; D < A->getRank(); ++D)
      if (A->getShape()[D] != 1 && A->getShape()[D] != R->getShape()[D])
        return "broadcast from " + typeName(A) + " to " + typeName(R) + ": dimension " +
               std::to_string(D) + " is neither equal nor 1";
    return "";
  }
  case Opcode::Trans: {
    if (Ty(0)->getRank() != 2)
      return "trans needs a 2-D tile, not " + typeName(Ty(0));
    Shape S = Ty(0)->getShape();
    std::reverse(S.begin(), S.end());
    // The result's layout is free: transposing a distributed tile is a
    // relabeling of who holds which element.
    return ResultMustBe(Ty(0)->withShape(S)->withLayout(R->getLayout()),
                        "the operand with its dimensions reversed");
  }
  case Opcode::Dot: {
    const Type *A = Ty(0), *B = Ty(1), *C = Ty(2);
    if (A->getRank() != 2 || B->getRank() != 2 || C->getRank() != 2)
      return "dot needs 2-D tiles, not " + typeName(A) + ", " + typeName(B) + ", " + typeName(C);
    if (A->getScalarType() != B->getScalarType())
      return "dot operands have different element types: " + typeName(A) + " and " + typeName(B);
    const Type *E = A->getScalarType(), *Acc;
    if (E == Type::getF16() || E == Type::getBF16() || E == Type::getF32())
      Acc = Type::getF32();
    else if (E == Type::getF64())
      Acc = Type::getF64();
    else if (E == Type::getInt(8))
      Acc = Type::getI32();
    else
      return "dot does not support element type " + typeName(E);
    int64_t M = A->getShape()[0], K = A->getShape()[1], N = B->getShape()[1];
    if (B->getShape()[0] != K)
      return "dot inner dimensions differ: " + typeName(A) + " and " + typeName(B);
    if (C->withLayout(nullptr) != Type::getTile(Acc, {M, N}))
      return "dot accumulator " + typeName(C) + " should be " +
             typeName(Type::getTile(Acc, {M, N}));
    return ResultMustBe(C, "the accumulator's type");
  }
  case Opcode::Reduce: {
    const Type *A = Ty(0);
    if (!A->isTile())
      return "reduce needs a tile, not " + typeName(A);
    if (I.Axis < 0 || I.Axis >= A->getRank())
      return "reduce axis " + std::to_string(I.Axis) + " is out of range for " + typeName(A);
    bool IsFloat = A->isFloatOrFloatTile();
    switch (I.Reduction) {
    case ReduceKind::Add:
    case ReduceKind::SMax:
    case ReduceKind::SMin:
    case ReduceKind::UMax:
    case ReduceKind::UMin:
      if (!A->isIntOrIntTile())
        return std::string("reduce ") + reduceKindName(I.Reduction) + " needs integers, not " +
               typeName(A);
      break;
    case ReduceKind::FAdd:
    case ReduceKind::FMax:
    case ReduceKind::FMin:
      if (!IsFloat)
        return std::string("reduce ") + reduceKindName(I.Reduction) + " needs floats, not " +
               typeName(A);
      break;
    default:
      return std::string("'") + reduceKindName(I.Reduction) + "' is not a reduce kind";
    }
    Shape S = A->getShape();
    S.erase(S.begin() + I.Axis);
    const Layout *L =
        A->getLayout() ? Layout::getSlice(static_cast<int32_t>(I.Axis), A->getLayout()) : nullptr;
    return ResultMustBe(Type::getTile(A->getScalarType(), S, L),
                        L ? "the operand without the reduced axis, in #slice of its layout"
                          : "the operand without the reduced axis");
  }
  case Opcode::Load:
  case Opcode::MaskedLoad: {
    const Type *P = Ty(0);
    if (!P->isPointerOrPointerTile())
      return std::string(opcodeName(Op)) + " needs a pointer, not " + typeName(P);
    const Type *V = P->withScalar(P->getPointee());
    if (Op == Opcode::MaskedLoad) {
      if (!IsMaskFor(Ty(1), P))
        return "mask " + typeName(Ty(1)) + " must be i1 of the pointer's shape";
      if (Ty(2) != V)
        return "other value " + typeName(Ty(2)) + " should be " + typeName(V);
    }
    return ResultMustBe(V, "the pointee type in the pointer's shape");
  }
  case Opcode::Store:
  case Opcode::MaskedStore: {
    const Type *P = Ty(0);
    if (!P->isPointerOrPointerTile())
      return std::string(opcodeName(Op)) + " needs a pointer, not " + typeName(P);
    const Type *V = P->withScalar(P->getPointee());
    if (Ty(1) != V)
      return "stored value " + typeName(Ty(1)) + " should be " + typeName(V);
    if (Op == Opcode::MaskedStore && !IsMaskFor(Ty(2), P))
      return "mask " + typeName(Ty(2)) + " must be i1 of the pointer's shape";
    return "";
  }
  case Opcode::DescLoad:
  case Opcode::DescStore: {
    // desc_load %d, [offsets] : T<box>; desc_store %d, [offsets], %v.
    bool IsLoad = Op == Opcode::DescLoad;
    if (I.getNumOperands() < 1 || !Ty(0)->isTensorDesc())
      return std::string(opcodeName(Op)) + " needs a tensor descriptor first";
    unsigned Rank = Ty(0)->getRank();
    unsigned Want = 1 + Rank + (IsLoad ? 0 : 1);
    if (I.getNumOperands() != Want)
      return std::string(opcodeName(Op)) + " through " + typeName(Ty(0)) + " needs " +
             std::to_string(Want) + " operands (the descriptor, " + std::to_string(Rank) +
             " offsets" + (IsLoad ? ")" : " and the value)") + ", not " +
             std::to_string(I.getNumOperands());
    for (unsigned K = 0; K < Rank; ++K)
      if (Ty(1 + K) != Type::getI32())
        return "offset " + std::to_string(K) + " must be an i32 scalar, not " + typeName(Ty(1 + K));
    const Type *Block = Type::getTile(Ty(0)->getElementType(), Ty(0)->getShape());
    const Type *V = IsLoad ? R : Ty(1 + Rank);
    if (!V->isTile() || V->withLayout(nullptr) != Block)
      return std::string(IsLoad ? "result type " : "stored value ") + typeName(V) + " should be " +
             typeName(Block) + " (one block of the descriptor)";
    return "";
  }
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW: {
    const Type *P = Ty(0);
    if (!P->isPointerOrPointerTile())
      return std::string(opcodeName(Op)) + " needs a pointer, not " + typeName(P);
    const Type *V = P->withScalar(P->getPointee());
    for (unsigned K = 1; K < (Op == Opcode::AtomicCAS ? 3u : 2u); ++K)
      if (Ty(K) != V)
        return "operand " + std::to_string(K) + " has type " + typeName(Ty(K)) + " but should be " +
               typeName(V);
    if (Op == Opcode::AtomicRMW) {
      if (I.getNumOperands() == 3 && !IsMaskFor(Ty(2), P))
        return "mask " + typeName(Ty(2)) + " must be i1 of the pointer's shape";
      bool IsInt = V->isIntOrIntTile(), IsFloat = V->isFloatOrFloatTile();
      switch (I.Reduction) {
      case ReduceKind::FAdd:
        if (!IsFloat)
          return "atomic_rmw fadd needs floats, not " + typeName(V);
        break;
      case ReduceKind::Xchg:
        break;
      case ReduceKind::FMax:
      case ReduceKind::FMin:
        return std::string("'") + reduceKindName(I.Reduction) + "' is not an atomic_rmw kind";
      default:
        if (!IsInt)
          return std::string("atomic_rmw ") + reduceKindName(I.Reduction) +
                 " needs integers, not " + typeName(V);
      }
    }
    return ResultMustBe(V, "the pointee type in the pointer's shape");
  }
  case Opcode::Print: {
    const Type *Tile = nullptr;
    for (unsigned K = 0; K < I.getNumOperands(); ++K) {
      const Type *T = Ty(K);
      const Type *S = T->getScalarType();
      bool Canonical = S == Type::getI32() || S == Type::getI64() || S == Type::getF64() ||
                       S->getKind() == TypeKind::Pointer;
      if (!Canonical)
        return "print takes i32, i64, f64 or pointer values, not " + typeName(T);
      if (T->isTile() && Tile && T->getShape() != Tile->getShape())
        return "print's tiles have different shapes";
      if (T->isTile())
        Tile = T;
    }
    return ResultMustBe(Type::getVoid(), "print has no result");
  }
  case Opcode::Assert:
    if (I.getNumOperands() != 1 || Ty(0)->getScalarType() != Type::getI1())
      return "assert needs one i1 condition";
    return ResultMustBe(Type::getVoid(), "assert has no result");
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms:
    if (I.Axis < 0 || I.Axis > 2)
      return "axis " + std::to_string(I.Axis) + " is not 0, 1 or 2";
    return ResultMustBe(Type::getI32(), "program ids are i32");
  case Opcode::Phi:
    if (I.incomingBlocks().size() != I.getNumOperands())
      return "phi has " + std::to_string(I.getNumOperands()) + " values but " +
             std::to_string(I.incomingBlocks().size()) + " incoming blocks";
    for (unsigned K = 0; K < I.getNumOperands(); ++K)
      if (Ty(K) != R)
        return "incoming value " + std::to_string(K) + " has type " + typeName(Ty(K)) +
               " but the phi has type " + typeName(R);
    return "";
  case Opcode::WarpSpecialize:
    return checkWarpPartitions(I);
  case Opcode::CondBr:
    if (Ty(0) != Type::getI1())
      return "cond_br condition must be a scalar i1, not " + typeName(Ty(0));
    return "";
  case Opcode::Ret: {
    const Function *F = I.getFunction();
    if (!F)
      return "";
    const Type *RT = F->getReturnType();
    if (RT->isVoid() && I.getNumOperands() == 1)
      return "ret returns a value from a void function";
    if (!RT->isVoid() && (I.getNumOperands() == 0 || Ty(0) != RT))
      return "ret must return a value of type " + typeName(RT);
    return "";
  }
  default:
    if (opcodeCategory(Op) == OpCategory::Gpu)
      return checkGpuTypes(I);
    return "";
  }
}

} // namespace

std::string checkInstructionTypes(const Instruction &I) {
  Opcode Op = I.getOpcode();
  unsigned Min, Max;
  operandCountRange(Op, Min, Max);
  unsigned N = I.getNumOperands();
  if (N < Min || N > Max) {
    std::string Expected = Min == Max       ? std::to_string(Min)
                           : Max == Min + 1 ? std::to_string(Min) + " or " + std::to_string(Max)
                                            : "at least " + std::to_string(Min);
    return std::string("'") + opcodeName(Op) + "' needs " + Expected + " operand" +
           (Max == 1 && Min == 1 ? "" : "s") + ", not " + std::to_string(N);
  }
  for (unsigned K = 0; K < N; ++K) {
    if (!I.getOperand(K))
      return "operand " + std::to_string(K) + " is null";
    if (I.getOperand(K)->getType()->isVoid())
      return "operand " + std::to_string(K) + " has no value (type void)";
  }
  if (Op == Opcode::WarpSpecialize) {
    if (I.successors().size() < 2)
      return "warp_specialize needs at least two partitions";
    if (I.successors().size() != I.Partitions.size())
      return "warp_specialize needs one warp count per partition";
  } else {
    size_t WantSuccs = Op == Opcode::Br || Op == Opcode::WarpJoin ? 1
                       : Op == Opcode::CondBr                     ? 2
                                                                  : 0;
    if (I.successors().size() != WantSuccs)
      return std::string("'") + opcodeName(Op) + "' needs " + std::to_string(WantSuccs) +
             " successor blocks, not " + std::to_string(I.successors().size());
    if (!I.Partitions.empty())
      return "only warp_specialize has partitions";
  }
  if (Op != Opcode::Phi && !I.incomingBlocks().empty())
    return "only phi has incoming blocks";
  if (producesNoValue(Op) != I.getType()->isVoid())
    return producesNoValue(Op) ? std::string("'") + opcodeName(Op) + "' must have type void"
                               : std::string("'") + opcodeName(Op) + "' must produce a value";
  if (std::string Msg = checkLayoutOf(I.getType()); !Msg.empty())
    return "result type " + typeName(I.getType()) + ": " + Msg;
  std::string Msg = checkTypes(I);
  return Msg.empty() ? checkLayoutsOfOperation(I) : Msg;
}

namespace {

/// Collects the errors of one function with the "function @f, block ^b:"
/// prefix.
class FunctionVerifier {
public:
  FunctionVerifier(const Function &F, std::vector<VerifierMessage> &Errors)
      : F(F), Errors(Errors) {}

  void run() {
    if (F.blocks().empty()) {
      error(nullptr, nullptr, "function has no blocks");
      return;
    }
    for (auto &BB : F.blocks())
      FunctionBlocks.insert(BB.get());
    for (auto &BB : F.blocks()) {
      unsigned Index = 0;
      for (auto &I : BB->instructions())
        Position[I.get()] = Index++;
    }
    for (unsigned K = 0; K < F.getNumArgs(); ++K) {
      if (F.getArg(K)->getParent() != &F || F.getArg(K)->getIndex() != K)
        error(nullptr, nullptr, "argument " + std::to_string(K) + " has a wrong parent or index");
      const Type *T = F.getArg(K)->getType();
      if (T->isSharedBuffer() || T->isTensorDesc())
        error(nullptr, nullptr,
              "argument " + std::to_string(K) + " of type '" + T->str() +
                  "': shared buffers and tensor descriptors are made inside the function");
      else if (std::string Msg = checkLayoutOf(T); !Msg.empty())
        error(nullptr, nullptr, "argument " + std::to_string(K) + ": " + Msg);
    }

    bool CFGOk = true;
    for (auto &BB : F.blocks())
      CFGOk &= checkBlockStructure(*BB);
    // Predecessors and dominance need a well-formed CFG.
    if (!CFGOk)
      return;
    if (!F.getEntryBlock()->predecessors().empty())
      error(F.getEntryBlock(), nullptr, "the entry block must have no predecessors");
    DominatorTree DT(F);
    std::unordered_map<const BasicBlock *, std::vector<BasicBlock *>> Preds;
    for (auto &BB : F.blocks())
      for (BasicBlock *S : BB->successors()) {
        auto &P = Preds[S];
        if (std::find(P.begin(), P.end(), BB.get()) == P.end())
          P.push_back(BB.get());
      }
    for (auto &BB : F.blocks())
      for (auto &I : BB->instructions())
        checkInstruction(*I, Preds[BB.get()], DT);
    checkUseLists();
    checkSharedPlacement();
    const Instruction *At = nullptr;
    if (std::string Msg = checkWarpRegions(F, At); !Msg.empty())
      error(At->getParent(), At, Msg);
  }

private:
  const Function &F;
  std::vector<VerifierMessage> &Errors;
  std::unordered_set<const BasicBlock *> FunctionBlocks;
  std::unordered_map<const Instruction *, unsigned> Position;
  static constexpr unsigned MaxErrors = 50;
  unsigned NumErrors = 0;
  struct PairHash {
    size_t operator()(const std::pair<const Value *, const Instruction *> &P) const {
      return std::hash<const void *>()(P.first) * 31 + std::hash<const void *>()(P.second);
    }
  };
  using UseCounts =
      std::unordered_map<std::pair<const Value *, const Instruction *>, size_t, PairHash>;
  UseCounts UsesFromOperands;

  /// Shared buffers are placed all together (allocate-shared) or not at
  /// all: a placed buffer says nothing of where the others may go.
  void checkSharedPlacement() {
    const Instruction *Placed = nullptr, *Unplaced = nullptr;
    for (auto &BB : F.blocks())
      for (auto &I : BB->instructions())
        if (I->getOpcode() == Opcode::SmemAlloc)
          (I->SharedOffset >= 0 ? Placed : Unplaced) = I.get();
    if (Placed && Unplaced)
      error(Unplaced->getParent(), Unplaced,
            "this smem_alloc has no offset but another one has: either every shared buffer of a "
            "function is placed (offset(N)) or none");
  }

  /// Use lists must mirror operands: passes rely on users(). Each used
  /// value's list is walked once (constants are shared by every function, so
  /// only this function's users count).
  void checkUseLists() {
    UseCounts FromUsers;
    std::unordered_set<const Value *> Seen;
    for (auto &[Use, Count] : UsesFromOperands) {
      if (!Seen.insert(Use.first).second)
        continue;
      for (const Instruction *U : Use.first->users())
        if (Position.count(U))
          ++FromUsers[{Use.first, U}];
    }
    if (FromUsers == UsesFromOperands)
      return;
    for (auto &[Use, Count] : UsesFromOperands) {
      auto It = FromUsers.find(Use);
      if (It == FromUsers.end() || It->second != Count)
        error(Use.second->getParent(), Use.second,
              "the use list of operand " + printOperand(*Use.first) + " does not record this use");
    }
    for (auto &[Use, Count] : FromUsers)
      if (!UsesFromOperands.count(Use))
        error(Use.second->getParent(), Use.second,
              "listed as a user of " + printOperand(*Use.first) + ", which it does not use");
  }

  void error(const BasicBlock *BB, const Instruction *I, const std::string &Msg) {
    // Each message prints names from the whole function; a broken pass can
    // produce thousands of errors, of which the first ones are enough.
    if (++NumErrors > MaxErrors) {
      if (NumErrors == MaxErrors + 1)
        Errors.push_back({"function @" + F.getName() + ": too many errors, giving up", {}});
      return;
    }
    std::string S = "function @" + F.getName();
    if (BB)
      S += ", block " + printBlockName(*BB);
    S += ": ";
    if (I)
      S += printInstruction(*I) + ": ";
    Errors.push_back({S + Msg, I ? I->Loc : SourceLoc()});
  }

  /// Terminators, phi placement, parents and successors. Returns false when
  /// the control-flow graph cannot be trusted.
  bool checkBlockStructure(const BasicBlock &BB) {
    bool Ok = true;
    if (BB.getParent() != &F) {
      error(&BB, nullptr, "block has a wrong parent function");
      Ok = false;
    }
    if (BB.empty()) {
      error(&BB, nullptr, "block is empty (it needs a terminator)");
      return false;
    }
    bool SeenNonPhi = false;
    for (auto &IP : BB.instructions()) {
      const Instruction &I = *IP;
      if (I.getParent() != &BB) {
        error(&BB, &I, "instruction has a wrong parent block");
        Ok = false;
      }
      if (I.getOpcode() == Opcode::Phi && SeenNonPhi)
        error(&BB, &I, "phi after a non-phi instruction (phis must start the block)");
      if (I.getOpcode() != Opcode::Phi)
        SeenNonPhi = true;
      if (I.isTerminator() && &I != BB.back()) {
        error(&BB, &I, "terminator in the middle of the block");
        Ok = false;
      }
      for (BasicBlock *S : I.successors())
        if (!S || !FunctionBlocks.count(S)) {
          error(&BB, &I, "successor is not a block of this function");
          Ok = false;
        }
      for (BasicBlock *In : I.incomingBlocks())
        if (!In || !FunctionBlocks.count(In)) {
          error(&BB, &I, "incoming block is not a block of this function");
          Ok = false;
        }
    }
    if (!BB.back()->isTerminator()) {
      error(&BB, BB.back(), "block does not end with a terminator (br, cond_br or ret)");
      Ok = false;
    }
    return Ok;
  }

  void checkInstruction(const Instruction &I, const std::vector<BasicBlock *> &Preds,
                        const DominatorTree &DT) {
    const BasicBlock *BB = I.getParent();
    std::string Msg = checkInstructionTypes(I);
    if (!Msg.empty()) {
      error(BB, &I, Msg);
      return;
    }

    if (I.getOpcode() == Opcode::Phi) {
      for (const BasicBlock *P : Preds) {
        size_t Count = std::count(I.incomingBlocks().begin(), I.incomingBlocks().end(), P);
        if (Count != 1)
          error(BB, &I,
                "phi needs exactly one entry for predecessor " + printBlockName(*P) + ", found " +
                    std::to_string(Count));
      }
      for (const BasicBlock *In : I.incomingBlocks())
        if (std::find(Preds.begin(), Preds.end(), In) == Preds.end())
          error(BB, &I, "phi entry for " + printBlockName(*In) + ", which is not a predecessor");
    }

    for (unsigned K = 0; K < I.getNumOperands(); ++K) {
      Value *V = I.getOperand(K);
      ++UsesFromOperands[{V, &I}];
      if (const Argument *A = asArgument(V)) {
        if (A->getParent() != &F)
          error(BB, &I, "operand " + std::to_string(K) + " is an argument of another function");
        continue;
      }
      const Instruction *Def = asInstruction(V);
      if (!Def)
        continue;
      if (!Def->getParent() || !Position.count(Def)) {
        error(BB, &I, "operand " + std::to_string(K) + " is not an instruction of this function");
        continue;
      }
      bool Dominated;
      if (I.getOpcode() == Opcode::Phi) {
        Dominated = DT.dominatesEndOf(Def, I.getIncomingBlock(K));
      } else if (Def->getParent() == BB) {
        Dominated = Position.at(Def) < Position.at(&I) || !DT.isReachable(BB);
      } else {
        Dominated = DT.dominates(Def->getParent(), BB);
      }
      if (!Dominated)
        error(BB, &I,
              "operand " + printOperand(*Def) + " does not dominate this use" +
                  (I.getOpcode() == Opcode::Phi
                       ? " (at the end of " + printBlockName(*I.getIncomingBlock(K)) + ")"
                       : ""));
    }
  }
};

} // namespace

namespace {
bool verifyFunctionAt(const Function &F, std::vector<VerifierMessage> &Errors) {
  size_t Before = Errors.size();
  FunctionVerifier(F, Errors).run();
  return Errors.size() == Before;
}

void appendTexts(const std::vector<VerifierMessage> &From, std::vector<std::string> &To) {
  for (const VerifierMessage &M : From)
    To.push_back(M.Text);
}
} // namespace

bool verifyFunction(const Function &F, std::vector<std::string> &Errors) {
  std::vector<VerifierMessage> Messages;
  bool Ok = verifyFunctionAt(F, Messages);
  appendTexts(Messages, Errors);
  return Ok;
}

bool verifyModule(const Module &M, std::vector<VerifierMessage> &Errors) {
  bool Ok = true;
  std::unordered_set<std::string> Names;
  for (auto &F : M.functions()) {
    if (!Names.insert(F->getName()).second) {
      Errors.push_back({"function @" + F->getName() + ": duplicate function name", {}});
      Ok = false;
    }
    if (F->getParent() != &M) {
      Errors.push_back({"function @" + F->getName() + ": wrong parent module", {}});
      Ok = false;
    }
    Ok &= verifyFunctionAt(*F, Errors);
  }
  return Ok;
}

bool verifyModule(const Module &M, std::vector<std::string> &Errors) {
  std::vector<VerifierMessage> Messages;
  bool Ok = verifyModule(M, Messages);
  appendTexts(Messages, Errors);
  return Ok;
}

} // namespace tritonc::ir
