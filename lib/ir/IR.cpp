//===- IR.cpp - Triton-IR core data structures ----------------------------===//
#include "tritonc/ir/IR.h"

#include "tritonc/support/Diagnostics.h"
#include "tritonc/support/FloatFormats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace tritonc::ir {

//===----------------------------------------------------------------------===//
// Names of opcodes, predicates and reduction kinds
//===----------------------------------------------------------------------===//

namespace {
struct OpcodeInfo {
  const char *Spelling;
  OpCategory Category;
};
const OpcodeInfo OpcodeTable[] = {
#define OP(Name, Spelling, Category) {Spelling, OpCategory::Category},
#include "tritonc/ir/Opcodes.def"
};
const char *const PredicateNames[] = {"eq",  "ne",  "slt", "sle", "sgt", "sge", "ult", "ule", "ugt",
                                      "uge", "oeq", "one", "olt", "ole", "ogt", "oge", "une"};
const char *const ReduceKindNames[] = {"add",  "fadd", "smax", "smin", "umax", "umin",
                                       "fmax", "fmin", "and",  "or",   "xor",  "xchg"};

template <typename Enum, size_t N>
bool lookupName(const char *const (&Names)[N], const std::string &S, Enum &Out) {
  for (size_t I = 0; I < N; ++I)
    if (S == Names[I]) {
      Out = static_cast<Enum>(I);
      return true;
    }
  return false;
}
} // namespace

const char *opcodeName(Opcode Op) { return OpcodeTable[static_cast<size_t>(Op)].Spelling; }
OpCategory opcodeCategory(Opcode Op) { return OpcodeTable[static_cast<size_t>(Op)].Category; }
bool lookupOpcode(const std::string &Spelling, Opcode &Out) {
  for (size_t I = 0; I < std::size(OpcodeTable); ++I)
    if (Spelling == OpcodeTable[I].Spelling) {
      Out = static_cast<Opcode>(I);
      return true;
    }
  return false;
}
bool isVoidOpcode(Opcode Op) {
  switch (Op) {
  case Opcode::Store:
  case Opcode::MaskedStore:
  case Opcode::DescStore:
  case Opcode::Br:
  case Opcode::CondBr:
  case Opcode::Ret:
  case Opcode::WarpSpecialize:
  case Opcode::WarpJoin:
  case Opcode::Print:
  case Opcode::Assert:
  case Opcode::LocalStore:
  case Opcode::CpAsync:
  case Opcode::CpAsyncCommit:
  case Opcode::CpAsyncWait:
  case Opcode::MbarrierInit:
  case Opcode::MbarrierArrive:
  case Opcode::MbarrierExpectTx:
  case Opcode::MbarrierWait:
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
  case Opcode::TmaStoreWait:
  case Opcode::WgmmaFence:
  case Opcode::WgmmaCommit:
  case Opcode::WgmmaWait:
  case Opcode::FenceProxyAsync:
  case Opcode::FenceProxyAsyncGlobal:
  case Opcode::Barrier:
    return true;
  default:
    return false;
  }
}

const char *predicateName(CmpPredicate P) { return PredicateNames[static_cast<size_t>(P)]; }
bool lookupPredicate(const std::string &S, CmpPredicate &Out) {
  return lookupName(PredicateNames, S, Out);
}
const char *reduceKindName(ReduceKind K) { return ReduceKindNames[static_cast<size_t>(K)]; }
bool lookupReduceKind(const std::string &S, ReduceKind &Out) {
  return lookupName(ReduceKindNames, S, Out);
}

//===----------------------------------------------------------------------===//
// Value and Instruction
//===----------------------------------------------------------------------===//

Value::~Value() = default;

void Value::replaceAllUsesWith(Value *New) {
  if (New == this)
    return;
  // Copy: setOperand edits Users while we iterate.
  std::vector<Instruction *> Us = Users;
  for (Instruction *U : Us)
    for (unsigned I = 0; I < U->getNumOperands(); ++I)
      if (U->getOperand(I) == this)
        U->setOperand(I, New);
}

static void removeOneUser(std::vector<Instruction *> &Users, Instruction *I) {
  auto It = std::find(Users.begin(), Users.end(), I);
  if (It != Users.end())
    Users.erase(It);
}

Instruction::~Instruction() { dropAllOperands(); }

std::unique_ptr<Instruction> Instruction::create(Opcode Op, const Type *ResultType,
                                                 const std::vector<Value *> &Ops) {
  std::unique_ptr<Instruction> I(new Instruction(Op, ResultType));
  for (Value *V : Ops)
    I->addOperand(V);
  return I;
}

Function *Instruction::getFunction() const { return Parent ? Parent->getParent() : nullptr; }

bool Instruction::hasSideEffects() const {
  switch (Op) {
  case Opcode::Store:
  case Opcode::MaskedStore:
  case Opcode::DescStore:
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW:
  case Opcode::Print:
  case Opcode::Assert:
  case Opcode::Br:
  case Opcode::CondBr:
  case Opcode::Ret:
  case Opcode::WarpSpecialize:
  case Opcode::WarpJoin:
    return true;
  case Opcode::ConvertLayout:
  case Opcode::ExtractSlice:
  case Opcode::SmemSlot:
  case Opcode::LocalLoad:
  case Opcode::MakeTensorDesc:
    return false;
  default:
    // The other GPU-level operations order asynchronous work or own shared
    // memory (two smem_alloc are two buffers): never removed or merged.
    return getCategory() == OpCategory::Gpu;
  }
}

bool Instruction::readsMemory() const {
  switch (Op) {
  case Opcode::Load:
  case Opcode::MaskedLoad:
  case Opcode::DescLoad:
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW:
  case Opcode::LocalLoad:
    return true;
  default:
    return false;
  }
}

bool Instruction::accessesMemory() const {
  switch (Op) {
  case Opcode::Load:
  case Opcode::MaskedLoad:
  case Opcode::AtomicCAS:
  case Opcode::AtomicRMW:
  case Opcode::Store:
  case Opcode::MaskedStore:
    return true;
  default:
    return false;
  }
}

void Instruction::setOperand(unsigned I, Value *V) {
  if (Operands[I])
    removeOneUser(Operands[I]->Users, this);
  Operands[I] = V;
  if (V)
    V->Users.push_back(this);
}

void Instruction::addOperand(Value *V) {
  Operands.push_back(V);
  if (V)
    V->Users.push_back(this);
}

void Instruction::removeOperand(unsigned I) {
  if (Operands[I])
    removeOneUser(Operands[I]->Users, this);
  Operands.erase(Operands.begin() + I);
}

void Instruction::dropAllOperands() {
  for (Value *V : Operands)
    if (V)
      removeOneUser(V->Users, this);
  Operands.clear();
}

void Instruction::addIncoming(Value *V, BasicBlock *From) {
  addOperand(V);
  IncomingBlocks.push_back(From);
}

void Instruction::removeIncoming(unsigned I) {
  removeOperand(I);
  IncomingBlocks.erase(IncomingBlocks.begin() + I);
}

Value *Instruction::getIncomingValueFor(const BasicBlock *BB) const {
  for (size_t I = 0; I < IncomingBlocks.size(); ++I)
    if (IncomingBlocks[I] == BB)
      return Operands[I];
  return nullptr;
}

void Instruction::eraseFromParent() {
  if (hasUses())
    reportInternalError(std::string("erasing a '") + opcodeName(Op) + "' that still has uses");
  removeFromParent();
}

std::unique_ptr<Instruction> Instruction::removeFromParent() {
  BasicBlock *BB = Parent;
  auto It = BB->iteratorTo(this);
  std::unique_ptr<Instruction> Self = std::move(*It);
  BB->Insts.erase(It);
  Parent = nullptr;
  return Self;
}

//===----------------------------------------------------------------------===//
// BasicBlock, Function, Module
//===----------------------------------------------------------------------===//

BasicBlock::~BasicBlock() {
  // Operands may point at instructions of this block in any order.
  for (auto &I : Insts)
    I->dropAllOperands();
}

Instruction *BasicBlock::getTerminator() const {
  if (Insts.empty() || !Insts.back()->isTerminator())
    return nullptr;
  return Insts.back().get();
}

Instruction *BasicBlock::insert(iterator Pos, std::unique_ptr<Instruction> I) {
  I->Parent = this;
  return Insts.insert(Pos, std::move(I))->get();
}

BasicBlock::iterator BasicBlock::iteratorTo(const Instruction *I) {
  // Terminators are looked up often (rewrites replace them): no scan of a
  // long block for its last instruction.
  if (!Insts.empty() && Insts.back().get() == I)
    return std::prev(Insts.end());
  for (auto It = Insts.begin(); It != Insts.end(); ++It)
    if (It->get() == I)
      return It;
  reportInternalError("instruction not found in its parent block");
}

std::vector<BasicBlock *> BasicBlock::successors() const {
  if (Instruction *T = getTerminator())
    return T->successors();
  return {};
}

std::vector<BasicBlock *> BasicBlock::predecessors() const {
  std::vector<BasicBlock *> Preds;
  for (auto &BB : Parent->blocks())
    for (BasicBlock *S : BB->successors())
      if (S == this && std::find(Preds.begin(), Preds.end(), BB.get()) == Preds.end())
        Preds.push_back(BB.get());
  return Preds;
}

bool BasicBlock::leadsTo(const BasicBlock *To) const {
  std::vector<const BasicBlock *> Work{this};
  std::set<const BasicBlock *> Seen;
  while (!Work.empty()) {
    const BasicBlock *BB = Work.back();
    Work.pop_back();
    for (const BasicBlock *Next : BB->successors()) {
      if (Next == To)
        return true;
      if (Seen.insert(Next).second)
        Work.push_back(Next);
    }
  }
  return false;
}

Function::Function(std::string Name, const Type *ReturnType,
                   const std::vector<const Type *> &ArgTypes, Module *Parent)
    : Name(std::move(Name)), ReturnType(ReturnType), Parent(Parent) {
  for (unsigned I = 0; I < ArgTypes.size(); ++I)
    Args.emplace_back(new Argument(ArgTypes[I], this, I));
}

Function::~Function() {
  for (auto &BB : Blocks)
    for (auto &I : BB->instructions())
      I->dropAllOperands();
}

BasicBlock *Function::createBlock(std::string BlockName, BasicBlock *Before) {
  auto BB = std::make_unique<BasicBlock>(std::move(BlockName), this);
  BasicBlock *Raw = BB.get();
  auto Pos = Blocks.end();
  if (Before)
    Pos = std::find_if(Blocks.begin(), Blocks.end(), [&](auto &B) { return B.get() == Before; });
  Blocks.insert(Pos, std::move(BB));
  return Raw;
}

void Function::eraseBlock(BasicBlock *BB) {
  eraseBlocksIf([&](const BasicBlock *B) { return B == BB; });
}

void Function::eraseBlocksIf(const std::function<bool(const BasicBlock *)> &Dead) {
  Blocks.remove_if([&](auto &B) {
    if (!Dead(B.get()))
      return false;
    for (auto &I : B->instructions())
      I->dropAllOperands();
    return true;
  });
}

Module::~Module() {
  // Functions drop their operand references before the constants they use go.
  Functions.clear();
}

Function *Module::createFunction(std::string Name, const Type *ReturnType,
                                 const std::vector<const Type *> &ArgTypes) {
  Functions.push_back(std::make_unique<Function>(std::move(Name), ReturnType, ArgTypes, this));
  return Functions.back().get();
}

Function *Module::getFunction(const std::string &Name) const {
  for (auto &F : Functions)
    if (F->getName() == Name)
      return F.get();
  return nullptr;
}

int64_t normalizeInt(int64_t V, unsigned Bits) {
  if (Bits >= 64)
    return V;
  if (Bits == 1)
    return V & 1;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = static_cast<uint64_t>(V) & Mask;
  uint64_t SignBit = uint64_t(1) << (Bits - 1);
  return static_cast<int64_t>((U ^ SignBit) - SignBit);
}

double roundToFloatKind(double V, FloatKind K) {
  switch (K) {
  case FloatKind::F16:
    return roundToHalf(V);
  case FloatKind::BF16:
    return roundToBFloat16(V);
  case FloatKind::F32:
    return static_cast<double>(static_cast<float>(V));
  case FloatKind::F64:
    return V;
  }
  return V;
}

Constant *Module::getInt(const Type *IntType, int64_t V) {
  if (IntType->getKind() != TypeKind::Int)
    reportInternalError("getInt on non-integer type " + IntType->str());
  V = normalizeInt(V, IntType->getIntBits());
  auto &Slot = Constants[{IntType, V, 0, false}];
  if (!Slot)
    Slot.reset(new Constant(IntType, V, 0, false));
  return Slot.get();
}

Constant *Module::getFloat(const Type *FloatType, double V) {
  if (FloatType->getKind() != TypeKind::Float)
    reportInternalError("getFloat on non-float type " + FloatType->str());
  V = roundToFloatKind(V, FloatType->getFloatKind());
  uint64_t Bits;
  std::memcpy(&Bits, &V, 8);
  auto &Slot = Constants[{FloatType, 0, Bits, false}];
  if (!Slot)
    Slot.reset(new Constant(FloatType, 0, V, false));
  return Slot.get();
}

Constant *Module::getNullPointer(const Type *PtrType) {
  auto &Slot = Constants[{PtrType, 0, 0, false}];
  if (!Slot)
    Slot.reset(new Constant(PtrType, 0, 0, false));
  return Slot.get();
}

Constant *Module::getUndef(const Type *ScalarType) {
  auto &Slot = Constants[{ScalarType, 0, 0, true}];
  if (!Slot)
    Slot.reset(new Constant(ScalarType, 0, 0, true));
  return Slot.get();
}

} // namespace tritonc::ir
