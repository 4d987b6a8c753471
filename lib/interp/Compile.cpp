//===- Compile.cpp - Lowers a function into the interpreter's flat form ---===//
#include "Compiled.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace tritonc::interp::detail {

using ir::Opcode;

ElemKind elemKindOf(const ir::Type *T) {
  T = T->getScalarType();
  switch (T->getKind()) {
  case ir::TypeKind::Int:
    switch (T->getIntBits()) {
    case 1:
      return ElemKind::I1;
    case 8:
      return ElemKind::I8;
    case 16:
      return ElemKind::I16;
    case 32:
      return ElemKind::I32;
    default:
      return ElemKind::I64;
    }
  case ir::TypeKind::Float:
    switch (T->getFloatKind()) {
    case ir::FloatKind::F16:
      return ElemKind::F16;
    case ir::FloatKind::BF16:
      return ElemKind::BF16;
    case ir::FloatKind::F32:
      return ElemKind::F32;
    case ir::FloatKind::F64:
      return ElemKind::F64;
    }
    return ElemKind::F64;
  case ir::TypeKind::Pointer:
    return ElemKind::Ptr;
  default:
    return ElemKind::I64;
  }
}

std::string describe(const ir::Instruction *I, const SourceManager *SM) {
  if (!I)
    return "<unknown instruction>";
  std::string S = ir::opcodeName(I->getOpcode());
  if (I->Loc.isValid()) {
    S += " at ";
    if (SM && I->Loc.File < SM->numBuffers())
      S += SM->getName(I->Loc.File);
    else
      S += "<file " + std::to_string(I->Loc.File) + ">";
    S += ":" + std::to_string(I->Loc.Line) + ":" + std::to_string(I->Loc.Col);
  }
  try {
    S += " [" + ir::printInstruction(*I) + "]";
  } catch (const std::exception &) {
    // Only decoration: the opcode and location already identify it.
  }
  return S;
}

namespace {

/// Bounds the arena (256 MiB of slots): far above real kernels, low enough
/// that a bogus tile type cannot exhaust memory.
constexpr uint64_t MaxSlots = uint64_t(1) << 25;

struct LowerError {
  std::string Message;
  /// A valid function past the interpreter's memory limit, not bad IR.
  bool OverLimit = false;
};

std::string memoryLimitText() {
  return "the interpreter's limit is " + std::to_string(MaxSlots) +
         " elements of values per function (" + std::to_string(MaxSlots * 8 >> 20) + " MiB)";
}

class Lowering {
public:
  Lowering(const ir::Function &F, CompiledFunction &C, const SourceManager *SM)
      : F(F), C(C), SM(SM) {}

  void run();

private:
  [[noreturn]] void fail(const ir::Instruction *I, const std::string &Msg) {
    throw LowerError{describe(I, SM) + ": " + Msg};
  }
  uint64_t countOf(const ir::Instruction *I, const ir::Type *T) {
    if (!T || T->isVoid())
      fail(I, "value of type void used as an operand");
    // A shared buffer is its byte offset in the program's shared memory; a
    // tensor descriptor its base, extents, strides and traversal strides.
    int64_t N = T->isTile()         ? T->getNumElements()
                : T->isTensorDesc() ? 1 + 3 * int64_t(T->getRank())
                                    : 1;
    if (N <= 0)
      fail(I, "unsupported tile size " + T->str());
    if (static_cast<uint64_t>(N) > MaxSlots)
      throw LowerError{describe(I, SM) + ": tile " + T->str() + " is too large to interpret; " +
                           memoryLimitText(),
                       true};
    return static_cast<uint64_t>(N);
  }
  uint32_t alloc(const ir::Instruction *I, const ir::Type *T) {
    uint64_t N = countOf(I, T);
    uint64_t Off = Next;
    Next += N;
    if (Next > MaxSlots)
      throw LowerError{describe(I, SM) + ": function needs too much interpreter memory; " +
                           memoryLimitText(),
                       true};
    return static_cast<uint32_t>(Off);
  }
  void addConstant(const ir::Instruction *User, const ir::Constant *K);
  const ir::Value *operandValue(const ir::Instruction *I, unsigned Idx) {
    if (Idx >= I->getNumOperands() || !I->getOperand(Idx))
      fail(I, "missing operand " + std::to_string(Idx));
    return I->getOperand(Idx);
  }
  uint32_t slotOf(const ir::Instruction *I, const ir::Value *V) {
    auto It = SlotOf.find(V);
    if (It == SlotOf.end())
      fail(I, "operand is not defined in this function");
    return It->second;
  }
  /// Resolves operand Idx for a result of N lanes; it must have N elements
  /// or be a scalar (used for every lane).
  Operand use(const ir::Instruction *I, unsigned Idx, uint64_t N) {
    const ir::Value *V = operandValue(I, Idx);
    uint64_t Count = countOf(I, V->getType());
    if (Count != N && Count != 1)
      fail(I, "operand " + std::to_string(Idx) + " has " + std::to_string(Count) +
                  " elements where " + std::to_string(N) + " are expected");
    return Operand{slotOf(I, V), Count == 1 ? 0u : 1u};
  }
  /// Like use, and also requires an exact element count.
  Operand useExact(const ir::Instruction *I, unsigned Idx, uint64_t N) {
    const ir::Value *V = operandValue(I, Idx);
    if (countOf(I, V->getType()) != N)
      fail(I, "operand " + std::to_string(Idx) + " must have " + std::to_string(N) + " elements");
    return Operand{slotOf(I, V), 1};
  }
  const ir::Type *scalarOf(const ir::Instruction *I, unsigned Idx) {
    return operandValue(I, Idx)->getType()->getScalarType();
  }
  void expectOps(const ir::Instruction *I, unsigned Min, unsigned Max) {
    if (I->getNumOperands() < Min || I->getNumOperands() > Max)
      fail(I, "wrong number of operands");
  }
  void expectKind(const ir::Instruction *I, const ir::Type *T, bool Ok, const char *What) {
    if (!Ok)
      fail(I, std::string("expected ") + What + ", got " + T->str());
  }
  void expectSame(const ir::Instruction *I, unsigned Idx, const ir::Type *Scalar) {
    if (scalarOf(I, Idx) != Scalar)
      fail(I, "operand " + std::to_string(Idx) + " has element type " + scalarOf(I, Idx)->str() +
                  ", expected " + Scalar->str());
  }
  uint32_t edgeTo(const ir::Instruction *Term, const ir::BasicBlock *From,
                  const ir::BasicBlock *To);
  void lowerInstruction(const ir::Instruction *I, CInst &CI);
  void lowerTile(const ir::Instruction *I, CInst &CI);
  void lowerMemory(const ir::Instruction *I, CInst &CI);
  void lowerGpu(const ir::Instruction *I, CInst &CI);

  const ir::Function &F;
  CompiledFunction &C;
  const SourceManager *SM;
  std::unordered_map<const ir::Value *, uint32_t> SlotOf;
  /// smem_alloc -> its number in GpuOpInfo::Buffers.
  std::unordered_map<const ir::Instruction *, uint32_t> BufferNumbers;
  uint32_t bufferNumber(const ir::Value *V);
  std::unordered_map<const ir::BasicBlock *, uint32_t> BlockIndex;
  uint64_t Next = 0;
  uint64_t MaxPhiTemp = 0;
};

void Lowering::addConstant(const ir::Instruction *User, const ir::Constant *K) {
  if (SlotOf.count(K))
    return;
  const ir::Type *T = K->getType();
  if (T->isTile() || T->isVoid())
    fail(User, "constant of type " + T->str() + " is not a scalar");
  uint32_t Off = alloc(User, T);
  SlotOf[K] = Off;
  uint64_t V = 0; // undef is zero: deterministic and harmless
  if (!K->isUndef()) {
    ElemKind EK = elemKindOf(T);
    if (isFloatKind(EK))
      V = doubleToSlot(roundTo(K->getFloat(), EK));
    else
      V = normBits(static_cast<uint64_t>(K->getInt()), intBits(EK));
  }
  C.Init.resize(Next, 0);
  C.Init[Off] = V;
}

uint32_t Lowering::edgeTo(const ir::Instruction *Term, const ir::BasicBlock *From,
                          const ir::BasicBlock *To) {
  auto It = To ? BlockIndex.find(To) : BlockIndex.end();
  if (It == BlockIndex.end())
    fail(Term, "branch to a block outside the function");
  CEdge E;
  E.Block = It->second;
  E.CopyBegin = static_cast<uint32_t>(C.Copies.size());
  uint64_t Temp = 0;
  for (const auto &P : To->instructions()) {
    if (P->getOpcode() != Opcode::Phi)
      break;
    const ir::Value *V = P->getIncomingValueFor(From);
    if (!V) {
      if (!E.MissingPhi)
        E.MissingPhi = P.get();
      continue;
    }
    if (V->getType() != P->getType())
      fail(P.get(), "incoming value of type " + V->getType()->str() + " for a phi of type " +
                        P->getType()->str());
    uint64_t N = countOf(P.get(), P->getType());
    C.Copies.push_back({slotOf(P.get(), P.get()), slotOf(P.get(), V), static_cast<uint32_t>(N)});
    Temp += N;
  }
  MaxPhiTemp = std::max(MaxPhiTemp, Temp);
  E.CopyEnd = static_cast<uint32_t>(C.Copies.size());
  C.Edges.push_back(E);
  return static_cast<uint32_t>(C.Edges.size() - 1);
}

void Lowering::run() {
  if (F.blocks().empty())
    throw LowerError{"function @" + F.getName() + " has no body"};
  // Arguments, then constants, then instruction results: the first two are
  // filled once per launch, the last cleared per program.
  for (unsigned A = 0; A < F.getNumArgs(); ++A) {
    const ir::Type *T = F.getArg(A)->getType();
    if (!T->isScalar() || T->isVoid())
      throw LowerError{"parameter " + std::to_string(A) + " of @" + F.getName() +
                       " has unsupported type " + T->str()};
    SlotOf[F.getArg(A)] = static_cast<uint32_t>(Next);
    C.ArgSlot.push_back(static_cast<uint32_t>(Next++));
  }
  uint32_t BI = 0;
  for (const auto &BB : F.blocks()) {
    BlockIndex[BB.get()] = BI++;
    for (const auto &I : BB->instructions())
      for (const ir::Value *V : I->operands())
        if (const ir::Constant *K = ir::asConstant(const_cast<ir::Value *>(V)))
          addConstant(I.get(), K);
  }
  C.Init.resize(Next, 0);
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (!I->getType()->isVoid())
        SlotOf[I.get()] = alloc(I.get(), I->getType());

  for (const auto &BB : F.blocks()) {
    CBlock B;
    B.Begin = static_cast<uint32_t>(C.Insts.size());
    bool SeenNonPhi = false;
    for (const auto &IP : BB->instructions()) {
      const ir::Instruction *I = IP.get();
      if (I->getOpcode() == Opcode::Phi) {
        if (SeenNonPhi)
          fail(I, "phi after a non-phi instruction");
        if (I->getNumOperands() != I->incomingBlocks().size())
          fail(I, "phi operands and incoming blocks differ in number");
        continue;
      }
      SeenNonPhi = true;
      CInst CI;
      CI.Op = I->getOpcode();
      CI.Src = I;
      CI.MultipleOf = I->MultipleOf;
      bool ProducesValue = !ir::isVoidOpcode(CI.Op);
      if (ProducesValue && I->getType()->isVoid())
        fail(I, "instruction producing a value has type void");
      if (ProducesValue) {
        CI.Res = SlotOf[I];
        CI.N = static_cast<uint32_t>(countOf(I, I->getType()));
        CI.RK = elemKindOf(I->getType());
      }
      CI.NumOps = static_cast<uint8_t>(std::min<unsigned>(I->getNumOperands(), 4));
      lowerInstruction(I, CI);
      if (CI.Op == Opcode::Br || CI.Op == Opcode::CondBr) {
        unsigned NS = CI.Op == Opcode::Br ? 1 : 2;
        if (I->successors().size() != NS)
          fail(I, "wrong number of successors");
        for (unsigned S = 0; S < NS; ++S)
          CI.Edge[S] = edgeTo(I, BB.get(), I->successors()[S]);
      }
      if (CI.Op == Opcode::WarpSpecialize || CI.Op == Opcode::WarpJoin) {
        // Consecutive edges, one per successor: Edge[0] is the first, D0
        // counts them (a fork starts one partition on each).
        if (I->successors().empty())
          fail(I, "wrong number of successors");
        CI.Edge[0] = edgeTo(I, BB.get(), I->successors()[0]);
        for (size_t S = 1; S < I->successors().size(); ++S)
          edgeTo(I, BB.get(), I->successors()[S]);
        CI.D0 = static_cast<uint32_t>(I->successors().size());
      }
      C.Insts.push_back(CI);
      if (I->isTerminator())
        break; // anything after a terminator is unreachable
    }
    B.End = static_cast<uint32_t>(C.Insts.size());
    C.Blocks.push_back(B);
  }
  C.PhiTemp = static_cast<uint32_t>(Next);
  Next += MaxPhiTemp;
  if (Next > MaxSlots)
    throw LowerError{"function @" + F.getName() + " needs too much interpreter memory; " +
                         memoryLimitText(),
                     true};
  // At least one slot, so that slot addresses are valid even for a kernel
  // without values (instructions without a result point at slot 0).
  C.NumSlots = static_cast<uint32_t>(std::max<uint64_t>(Next, 1));
}

void Lowering::lowerInstruction(const ir::Instruction *I, CInst &CI) {
  const ir::Type *RT = I->getType();
  const ir::Type *RS = RT->getScalarType();
  switch (opcodeCategory(I->getOpcode())) {
  case ir::OpCategory::Binary: {
    expectOps(I, 2, 2);
    bool IsFloat = I->getOpcode() >= Opcode::FAdd;
    if (IsFloat)
      expectKind(I, RT, RT->isFloatOrFloatTile(), "a float result");
    else
      expectKind(I, RT, RT->isIntOrIntTile(), "an integer result");
    for (unsigned K = 0; K < 2; ++K) {
      expectSame(I, K, RS);
      CI.Ops[K] = use(I, K, CI.N);
    }
    return;
  }
  case ir::OpCategory::Unary:
    expectOps(I, 1, 1);
    if (I->getOpcode() == Opcode::IAbs)
      expectKind(I, RT, RT->isIntOrIntTile(), "an integer result");
    else
      expectKind(I, RT, RT->isFloatOrFloatTile(), "a float result");
    expectSame(I, 0, RS);
    CI.Ops[0] = use(I, 0, CI.N);
    return;
  case ir::OpCategory::Ternary:
    expectOps(I, 3, 3);
    expectKind(I, RT, RT->isFloatOrFloatTile(), "a float result");
    for (unsigned K = 0; K < 3; ++K) {
      expectSame(I, K, RS);
      CI.Ops[K] = use(I, K, CI.N);
    }
    return;
  case ir::OpCategory::Cmp: {
    expectOps(I, 2, 2);
    expectKind(I, RT, RT->isBoolOrBoolTile(), "an i1 result");
    const ir::Type *OS = scalarOf(I, 0);
    expectSame(I, 1, OS);
    bool IsF = I->getOpcode() == Opcode::FCmp;
    auto P = I->Predicate;
    if (IsF) {
      expectKind(I, OS, OS->getKind() == ir::TypeKind::Float, "float operands");
      if (P < ir::CmpPredicate::OEQ)
        fail(I, std::string("predicate '") + ir::predicateName(P) + "' is not a float predicate");
    } else {
      expectKind(I, OS,
                 OS->getKind() == ir::TypeKind::Int || OS->getKind() == ir::TypeKind::Pointer,
                 "integer or pointer operands");
      if (P > ir::CmpPredicate::UGE)
        fail(I,
             std::string("predicate '") + ir::predicateName(P) + "' is not an integer predicate");
    }
    CI.OK = elemKindOf(OS);
    CI.Sub = static_cast<uint8_t>(P);
    CI.Ops[0] = use(I, 0, CI.N);
    CI.Ops[1] = use(I, 1, CI.N);
    return;
  }
  case ir::OpCategory::Cast: {
    expectOps(I, 1, 1);
    const ir::Type *OS = scalarOf(I, 0);
    CI.OK = elemKindOf(OS);
    CI.Ops[0] = use(I, 0, CI.N);
    bool SrcInt = isIntKind(CI.OK), DstInt = isIntKind(CI.RK);
    bool SrcF = isFloatKind(CI.OK), DstF = isFloatKind(CI.RK);
    bool SrcP = CI.OK == ElemKind::Ptr, DstP = CI.RK == ElemKind::Ptr;
    bool Ok = false;
    switch (I->getOpcode()) {
    case Opcode::Trunc:
    case Opcode::ZExt:
    case Opcode::SExt:
      Ok = SrcInt && DstInt;
      break;
    case Opcode::FPTrunc:
    case Opcode::FPExt:
      Ok = SrcF && DstF;
      break;
    case Opcode::FPToUI:
    case Opcode::FPToSI:
      Ok = SrcF && DstInt;
      break;
    case Opcode::UIToFP:
    case Opcode::SIToFP:
      Ok = SrcInt && DstF;
      break;
    case Opcode::PtrToInt:
      Ok = SrcP && DstInt;
      break;
    case Opcode::IntToPtr:
      Ok = SrcInt && DstP;
      break;
    default: // bitcast: equal storage widths; a pointer is 64 bits
      Ok = (SrcP && DstP) || (!SrcP && !DstP && OS->getScalarBits() == RS->getScalarBits()) ||
           (SrcP && CI.RK == ElemKind::I64) || (DstP && CI.OK == ElemKind::I64);
      break;
    }
    if (!Ok)
      fail(I, "cannot convert " + OS->str() + " to " + RS->str());
    return;
  }
  case ir::OpCategory::Misc:
    switch (I->getOpcode()) {
    case Opcode::Select:
      expectOps(I, 3, 3);
      expectKind(I, scalarOf(I, 0), scalarOf(I, 0) == ir::Type::getI1(), "an i1 condition");
      expectSame(I, 1, RS);
      expectSame(I, 2, RS);
      for (unsigned K = 0; K < 3; ++K)
        CI.Ops[K] = use(I, K, CI.N);
      return;
    case Opcode::GEP: {
      expectOps(I, 2, 2);
      expectKind(I, RT, RT->isPointerOrPointerTile(), "a pointer result");
      expectSame(I, 0, RS);
      const ir::Type *OS = scalarOf(I, 1);
      expectKind(I, OS, OS->getKind() == ir::TypeKind::Int, "an integer offset");
      CI.OK = elemKindOf(OS);
      CI.Imm = RS->getPointee()->getScalarSizeInBytes();
      CI.Ops[0] = use(I, 0, CI.N);
      CI.Ops[1] = use(I, 1, CI.N);
      return;
    }
    case Opcode::Print:
    case Opcode::Assert: {
      // Any number of operands: their slots and strides go to a map.
      if (I->getOpcode() == Opcode::Assert)
        expectOps(I, 1, 1);
      uint64_t Lanes = 1;
      for (unsigned K = 0; K < I->getNumOperands(); ++K)
        Lanes = std::max(Lanes, countOf(I, operandValue(I, K)->getType()));
      CI.N = static_cast<uint32_t>(Lanes);
      std::vector<uint32_t> Map;
      for (unsigned K = 0; K < I->getNumOperands(); ++K) {
        Operand O = use(I, K, Lanes);
        Map.push_back(O.Off);
        Map.push_back(O.Stride);
      }
      CI.D0 = static_cast<uint32_t>(C.Maps.size());
      C.Maps.push_back(std::move(Map));
      return;
    }
    default: // program ids
      expectOps(I, 0, 0);
      expectKind(I, RT, RT->isIntOrIntTile(), "an integer result");
      if (I->Axis < 0 || I->Axis > 2)
        fail(I, "axis " + std::to_string(I->Axis) + " is not 0, 1 or 2");
      CI.Imm = I->Axis;
      return;
    }
  case ir::OpCategory::Tile:
    lowerTile(I, CI);
    return;
  case ir::OpCategory::Memory:
  case ir::OpCategory::Atomic:
    // desc_load/desc_store read their operands as GPU operations do (a
    // descriptor, any number of offsets), so they share that form.
    if (isDescriptorAccess(I->getOpcode()))
      lowerGpu(I, CI);
    else
      lowerMemory(I, CI);
    return;
  case ir::OpCategory::Gpu:
    lowerGpu(I, CI);
    return;
  case ir::OpCategory::Control:
    if (I->getOpcode() == Opcode::CondBr) {
      expectOps(I, 1, 1);
      expectKind(I, scalarOf(I, 0), scalarOf(I, 0) == ir::Type::getI1(), "an i1 condition");
      CI.Ops[0] = useExact(I, 0, 1);
    }
    return;
  }
}

void Lowering::lowerTile(const ir::Instruction *I, CInst &CI) {
  const ir::Type *RT = I->getType();
  const ir::Type *RS = RT->getScalarType();
  switch (I->getOpcode()) {
  case Opcode::MakeRange:
    expectOps(I, 0, 0);
    expectKind(I, RT, RT->isIntOrIntTile(), "an integer result");
    if (I->RangeEnd - I->RangeStart != static_cast<int64_t>(CI.N))
      fail(I, "range size does not match the result type");
    CI.Imm = I->RangeStart;
    return;
  case Opcode::Splat:
    expectOps(I, 1, 1);
    expectSame(I, 0, RS);
    CI.Ops[0] = useExact(I, 0, 1);
    return;
  case Opcode::Reshape:
    expectOps(I, 1, 1);
    expectSame(I, 0, RS);
    CI.Ops[0] = useExact(I, 0, CI.N);
    return;
  case Opcode::Broadcast:
  case Opcode::Trans: {
    expectOps(I, 1, 1);
    expectSame(I, 0, RS);
    const ir::Type *OT = operandValue(I, 0)->getType();
    CI.Ops[0] = Operand{slotOf(I, operandValue(I, 0)), 1};
    ir::Shape In = OT->getShape(), Out = RT->getShape();
    uint64_t InCount = countOf(I, OT);
    std::vector<uint32_t> Map(CI.N);
    if (I->getOpcode() == Opcode::Trans) {
      ir::Shape Rev(In.rbegin(), In.rend());
      if (Rev != Out)
        fail(I, "result shape is not the reversed operand shape");
    } else {
      if (In.size() > Out.size())
        fail(I, "broadcast to a lower rank");
      In.insert(In.begin(), Out.size() - In.size(), 1); // align trailing dimensions
      for (size_t D = 0; D < Out.size(); ++D)
        if (In[D] != Out[D] && In[D] != 1)
          fail(I, "cannot broadcast " + OT->str() + " to " + RT->str());
    }
    // Operand strides, permuted into the result's dimension order.
    size_t R = Out.size();
    std::vector<uint64_t> InStride(In.size(), 1), OutIdxStride(R, 0);
    for (size_t D = In.size(); D-- > 1;)
      InStride[D - 1] = InStride[D] * static_cast<uint64_t>(In[D]);
    for (size_t D = 0; D < R; ++D) {
      if (I->getOpcode() == Opcode::Trans)
        OutIdxStride[D] = InStride[R - 1 - D];
      else
        OutIdxStride[D] = In[D] == 1 ? 0 : InStride[D];
    }
    std::vector<int64_t> Idx(R, 0);
    uint64_t Src = 0;
    for (uint32_t L = 0; L < CI.N; ++L) {
      if (Src >= InCount)
        fail(I, "internal: gather index out of range");
      Map[L] = static_cast<uint32_t>(Src);
      for (size_t D = R; D-- > 0;) { // odometer increment, last dimension fastest
        Src += OutIdxStride[D];
        if (++Idx[D] < Out[D])
          break;
        Src -= OutIdxStride[D] * static_cast<uint64_t>(Out[D]);
        Idx[D] = 0;
      }
    }
    CI.D0 = static_cast<uint32_t>(C.Maps.size());
    C.Maps.push_back(std::move(Map));
    return;
  }
  case Opcode::Dot: {
    expectOps(I, 3, 3);
    const ir::Type *AT = operandValue(I, 0)->getType(), *BT = operandValue(I, 1)->getType();
    const ir::Type *CT = operandValue(I, 2)->getType();
    if (AT->getRank() != 2 || BT->getRank() != 2 || RT->getRank() != 2 || CT != RT)
      fail(I, "dot needs 2-D operands and an accumulator of the result type");
    int64_t M = AT->getShape()[0], K = AT->getShape()[1], N = BT->getShape()[1];
    if (BT->getShape()[0] != K || RT->getShape()[0] != M || RT->getShape()[1] != N)
      fail(I, "dot shapes " + AT->str() + " x " + BT->str() + " -> " + RT->str() + " mismatch");
    expectSame(I, 1, AT->getScalarType());
    CI.OK = elemKindOf(AT);
    if (CI.OK == ElemKind::Ptr || CI.RK == ElemKind::Ptr ||
        isFloatKind(CI.OK) != isFloatKind(CI.RK))
      fail(I, "unsupported dot element types");
    CI.D0 = static_cast<uint32_t>(M);
    CI.D1 = static_cast<uint32_t>(K);
    CI.D2 = static_cast<uint32_t>(N);
    for (unsigned Op = 0; Op < 3; ++Op)
      CI.Ops[Op] = Operand{slotOf(I, operandValue(I, Op)), 1};
    return;
  }
  case Opcode::Reduce: {
    expectOps(I, 1, 1);
    expectSame(I, 0, RS);
    const ir::Type *OT = operandValue(I, 0)->getType();
    ir::Shape In = OT->getShape();
    if (I->Axis < 0 || I->Axis >= static_cast<int64_t>(In.size()))
      fail(I, "reduce axis out of range");
    ir::Shape Expect = In;
    Expect.erase(Expect.begin() + I->Axis);
    if (RT->getShape() != Expect)
      fail(I, "reduce result type " + RT->str() + " does not match " + OT->str());
    uint64_t Outer = 1, Inner = 1;
    for (int64_t D = 0; D < I->Axis; ++D)
      Outer *= static_cast<uint64_t>(In[D]);
    for (size_t D = static_cast<size_t>(I->Axis) + 1; D < In.size(); ++D)
      Inner *= static_cast<uint64_t>(In[D]);
    CI.D0 = static_cast<uint32_t>(Outer);
    CI.D1 = static_cast<uint32_t>(In[I->Axis]);
    CI.D2 = static_cast<uint32_t>(Inner);
    CI.OK = elemKindOf(RS);
    using RK = ir::ReduceKind;
    RK K = I->Reduction;
    bool FloatKind = K == RK::FAdd || K == RK::FMax || K == RK::FMin;
    if (K == RK::Xchg || FloatKind != isFloatKind(CI.OK) || CI.OK == ElemKind::Ptr)
      fail(I,
           std::string("reduction '") + ir::reduceKindName(K) + "' does not apply to " + RS->str());
    CI.Sub = static_cast<uint8_t>(K);
    CI.Ops[0] = Operand{slotOf(I, operandValue(I, 0)), 1};
    return;
  }
  default:
    fail(I, "unexpected tile opcode");
  }
}

void Lowering::lowerMemory(const ir::Instruction *I, CInst &CI) {
  Opcode Op = I->getOpcode();
  const ir::Type *PT = operandValue(I, 0)->getType();
  expectKind(I, PT, PT->isPointerOrPointerTile(), "a pointer operand");
  const ir::Type *Pointee = PT->getPointee();
  if (!Pointee || Pointee->isVoid() || Pointee->isTile())
    fail(I, "pointer to an unsupported type");
  CI.RK = elemKindOf(Pointee);
  uint64_t Lanes = countOf(I, PT);
  bool HasResult = Op == Opcode::Load || Op == Opcode::MaskedLoad || Op == Opcode::AtomicCAS ||
                   Op == Opcode::AtomicRMW;
  if (HasResult) {
    if (I->getType()->getScalarType() != Pointee || CI.N != Lanes)
      fail(I, "result type " + I->getType()->str() + " does not match pointer " + PT->str());
  }
  CI.N = static_cast<uint32_t>(Lanes);
  CI.Ops[0] = Operand{slotOf(I, operandValue(I, 0)), 1};
  auto ExpectMask = [&](unsigned Idx) {
    expectKind(I, scalarOf(I, Idx), scalarOf(I, Idx) == ir::Type::getI1(), "an i1 mask");
    CI.Ops[Idx] = use(I, Idx, Lanes);
  };
  auto ExpectValue = [&](unsigned Idx) {
    expectSame(I, Idx, Pointee);
    CI.Ops[Idx] = use(I, Idx, Lanes);
  };
  switch (Op) {
  case Opcode::Load:
    expectOps(I, 1, 1);
    return;
  case Opcode::Store:
    expectOps(I, 2, 2);
    ExpectValue(1);
    return;
  case Opcode::MaskedLoad:
    expectOps(I, 3, 3);
    ExpectMask(1);
    ExpectValue(2);
    return;
  case Opcode::MaskedStore:
    expectOps(I, 3, 3);
    ExpectValue(1);
    ExpectMask(2);
    return;
  case Opcode::AtomicCAS:
    expectOps(I, 3, 3);
    ExpectValue(1);
    ExpectValue(2);
    return;
  default: { // atomic_rmw
    expectOps(I, 2, 3);
    ExpectValue(1);
    if (I->getNumOperands() == 3)
      ExpectMask(2);
    using RK = ir::ReduceKind;
    RK K = I->Reduction;
    bool Ok =
        K == RK::Xchg ||
        ((K == RK::FAdd || K == RK::FMax || K == RK::FMin) ? isFloatKind(CI.RK) : isIntKind(CI.RK));
    if (!Ok)
      fail(I, std::string("atomic '") + ir::reduceKindName(K) + "' does not apply to " +
                  Pointee->str());
    CI.Sub = static_cast<uint8_t>(K);
    return;
  }
  }
}

uint32_t Lowering::bufferNumber(const ir::Value *V) {
  const ir::Instruction *Root = ir::asInstruction(const_cast<ir::Value *>(V));
  while (Root && Root->getOpcode() == Opcode::SmemSlot)
    Root = ir::asInstruction(Root->getOperand(0));
  if (!Root || Root->getOpcode() != Opcode::SmemAlloc)
    return 0;
  auto [It, New] =
      BufferNumbers.try_emplace(Root, static_cast<uint32_t>(C.SharedBuffers.size() + 1));
  if (New)
    C.SharedBuffers.push_back(Root);
  return It->second;
}

/// Whether descriptor D reaches a tma_load or tma_store (through phis and
/// selects too): only then must it obey the copy engine's rules. desc_load
/// and desc_store read any descriptor.
static bool reachesTensorCopy(const ir::Instruction *D) {
  std::vector<const ir::Instruction *> Work = {D};
  std::set<const ir::Instruction *> Seen = {D};
  while (!Work.empty()) {
    const ir::Instruction *V = Work.back();
    Work.pop_back();
    for (const ir::Instruction *U : V->users()) {
      Opcode Op = U->getOpcode();
      if (Op == Opcode::TmaLoad || Op == Opcode::TmaStore)
        return true;
      if ((Op == Opcode::Phi || Op == Opcode::Select) && Seen.insert(U).second)
        Work.push_back(U);
    }
  }
  return false;
}

void Lowering::lowerGpu(const ir::Instruction *I, CInst &CI) {
  // The executor trusts shapes and kinds, so the verifier's rules are
  // checked here rather than assumed.
  std::string Msg = ir::checkInstructionTypes(*I);
  if (!Msg.empty())
    fail(I, Msg);
  GpuOpInfo G;
  for (unsigned K = 0; K < I->getNumOperands(); ++K) {
    G.Ops.push_back(Operand{slotOf(I, operandValue(I, K)), 1});
    G.Buffers.push_back(bufferNumber(operandValue(I, K)));
  }
  auto OperandType = [&](unsigned K) { return operandValue(I, K)->getType(); };
  const ir::Type *Data = nullptr; // the shared buffer or descriptor the op is about
  switch (I->getOpcode()) {
  case Opcode::SmemAlloc:
  case Opcode::MakeTensorDesc:
    Data = I->getType();
    break;
  case Opcode::DescLoad:
  case Opcode::DescStore:
    Data = OperandType(0);
    break;
  case Opcode::SmemSlot:
  case Opcode::LocalLoad:
  case Opcode::LocalStore:
  case Opcode::CpAsync:
    Data = OperandType(0);
    break;
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
    Data = OperandType(1 + OperandType(0)->getRank());
    break;
  case Opcode::ExtractSlice:
    G.Shape = OperandType(0)->getShape();
    G.WindowShape = I->getType()->getShape();
    break;
  case Opcode::Wgmma: {
    Data = OperandType(1);
    const ir::Type *A = OperandType(0);
    G.ARegisters = !A->isSharedBuffer();
    G.AccKind = elemKindOf(I->getType());
    G.Shape = {A->getShape()[0], A->getShape()[1], Data->getShape()[1]};
    break;
  }
  default:
    break;
  }
  if (Data) {
    const ir::Type *Elem = Data->getElementType();
    G.Elem = elemKindOf(Elem);
    G.ElemBytes = storeSize(G.Elem);
    if (I->getOpcode() != Opcode::Wgmma)
      G.Shape = Data->getShape();
    G.SlotBytes = static_cast<uint64_t>(Data->getNumElements()) * G.ElemBytes;
    G.Slots = static_cast<uint64_t>(Data->getNumSlots());
  }
  // A copy walks its descriptor's box (the slot may hold it as the 2-D tile
  // of its rows).
  if (I->getOpcode() == Opcode::TmaLoad || I->getOpcode() == Opcode::TmaStore) {
    G.Shape = OperandType(0)->getShape();
    const ir::Layout *L = Data->getLayout();
    if (Data->getRank() == 2 && L && L->getOrder() == std::vector<unsigned>{0, 1})
      G.ColumnMajorRow = Data->getShape()[0];
  }
  if (I->getOpcode() == Opcode::MakeTensorDesc)
    G.CopyEngine = reachesTensorCopy(I);
  if (I->getOpcode() == Opcode::SmemAlloc) {
    // Static placement: an allocation executed again is the same buffer.
    // The offset allocate-shared chose, where it ran (buffers then may share
    // bytes, and the hazard checks see a wrong choice), else one buffer after
    // another, 128-byte aligned (the largest swizzle period).
    G.SharedOffset = I->SharedOffset >= 0 ? static_cast<uint64_t>(I->SharedOffset)
                                          : (C.SharedBytes + 127) / 128 * 128;
    C.SharedBytes = std::max(C.SharedBytes, G.SharedOffset + G.Slots * G.SlotBytes);
    if (C.SharedBytes > (uint64_t(1) << 26))
      fail(I, "shared memory of the program exceeds the interpreter's 64 MiB");
  }
  CI.D0 = static_cast<uint32_t>(C.GpuOps.size());
  C.GpuOps.push_back(std::move(G));
}

} // namespace

std::string compileFunction(const ir::Function &F, CompiledFunction &Out, const SourceManager *SM) {
  try {
    Lowering(F, Out, SM).run();
  } catch (const LowerError &E) {
    return E.OverLimit ? E.Message : "invalid IR in @" + F.getName() + ": " + E.Message;
  }
  return "";
}

} // namespace tritonc::interp::detail
