//===- IR.h - Triton-IR values, instructions, blocks, functions -*- C++ -*-===//
//
// Triton-IR follows LLVM's structure (module / function / basic block /
// instruction, SSA form) with tile types and block-level instructions
// (thesis section 5.2). One generic Instruction class carries an opcode, its
// operands and a few typed attributes; docs/IR.md lists each opcode's
// operands and its text syntax. Use lists are maintained automatically by
// setOperand / replaceAllUsesWith / erase.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Type.h"
#include "tritonc/support/SourceManager.h"

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tritonc::ir {

class Instruction;
class BasicBlock;
class Function;
class Module;

enum class Opcode : uint8_t {
#define OP(Name, Spelling, Category) Name,
#include "tritonc/ir/Opcodes.def"
};

enum class OpCategory : uint8_t {
  Binary,
  Unary,
  Ternary,
  Cmp,
  Cast,
  Tile,
  Memory,
  Atomic,
  Misc,
  Control,
  Gpu
};

const char *opcodeName(Opcode Op);
OpCategory opcodeCategory(Opcode Op);
/// Looks an opcode up by spelling; false if unknown.
bool lookupOpcode(const std::string &Spelling, Opcode &Out);
/// True for opcodes whose instructions have type void (stores, terminators,
/// and the GPU-level operations that only order or start work).
bool isVoidOpcode(Opcode Op);

/// icmp and fcmp predicates. Float predicates are "ordered" (false when an
/// operand is NaN) except UNE, which is what C's `!=` means on floats.
enum class CmpPredicate : uint8_t {
  EQ,
  NE,
  SLT,
  SLE,
  SGT,
  SGE,
  ULT,
  ULE,
  UGT,
  UGE,
  OEQ,
  ONE,
  OLT,
  OLE,
  OGT,
  OGE,
  UNE
};
const char *predicateName(CmpPredicate P);
bool lookupPredicate(const std::string &Spelling, CmpPredicate &Out);

/// Combining function of `reduce` and `atomic_rmw`.
enum class ReduceKind : uint8_t {
  Add,
  FAdd,
  SMax,
  SMin,
  UMax,
  UMin,
  FMax,
  FMin,
  And,
  Or,
  Xor,
  Xchg
};
const char *reduceKindName(ReduceKind K);
bool lookupReduceKind(const std::string &Spelling, ReduceKind &Out);

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

enum class ValueKind : uint8_t { Constant, Argument, Instruction };

class Value {
public:
  virtual ~Value();
  Value(const Value &) = delete;
  Value &operator=(const Value &) = delete;

  ValueKind getValueKind() const { return VKind; }
  const Type *getType() const { return Ty; }
  /// Changes the type in place; only for passes that rewrite types wholesale.
  void mutateType(const Type *T) { Ty = T; }

  /// Source-level name hint ("rm", "acc"); may be empty. Printing makes
  /// names unique, so hints need not be.
  const std::string &getName() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }

  /// Every instruction using this value, once per use (an instruction using
  /// the value twice appears twice).
  const std::vector<Instruction *> &users() const { return Users; }
  bool hasUses() const { return !Users.empty(); }
  /// Makes every user refer to New instead of this value.
  void replaceAllUsesWith(Value *New);

protected:
  Value(ValueKind K, const Type *T) : VKind(K), Ty(T) {}

private:
  friend class Instruction;
  ValueKind VKind;
  const Type *Ty;
  std::string Name;
  std::vector<Instruction *> Users;
};

/// A scalar constant: an integer (bits in IntValue, sign-extended from the
/// type's width), a float (FloatValue, exactly representable in its type),
/// a null pointer (IntValue 0), or undef. Constants are uniqued per module;
/// tile constants are `splat` of a scalar constant.
class Constant : public Value {
public:
  bool isUndef() const { return Undef; }
  int64_t getInt() const { return IntValue; }
  double getFloat() const { return FloatValue; }
  bool isZero() const { return !Undef && IntValue == 0 && FloatValue == 0; }

private:
  friend class Module;
  Constant(const Type *T, int64_t I, double F, bool U)
      : Value(ValueKind::Constant, T), IntValue(I), FloatValue(F), Undef(U) {}
  int64_t IntValue;
  double FloatValue;
  bool Undef;
};

/// Where the L2 cache should rank the lines that accesses through a pointer
/// argument bring in, among the lines it would replace next: streamed data
/// read once (EvictFirst) should not push out lines others still need, or
/// dirty lines whose write-back would then compete for DRAM bandwidth.
enum class EvictionPolicy : uint8_t { Normal, First, Last };

/// Hints on kernel arguments (Triton-C attributes and launch-time
/// specialization). MultipleOf applies to integers (the value is a multiple)
/// and Aligned to pointers (the address is a multiple, in bytes). NonNegative
/// says an integer is >= 0 as a signed value (a launch checked it).
struct ArgAttributes {
  int64_t MultipleOf = 1;
  int64_t Aligned = 1;
  bool NonNegative = false;
  bool NoAlias = false;
  bool ReadOnly = false;
  bool WriteOnly = false;
  EvictionPolicy Eviction = EvictionPolicy::Normal;
  bool operator==(const ArgAttributes &) const = default;
};

class Argument : public Value {
public:
  Function *getParent() const { return Parent; }
  unsigned getIndex() const { return Index; }
  ArgAttributes &attrs() { return Attrs; }
  const ArgAttributes &attrs() const { return Attrs; }

private:
  friend class Function;
  Argument(const Type *T, Function *P, unsigned I)
      : Value(ValueKind::Argument, T), Parent(P), Index(I) {}
  Function *Parent;
  unsigned Index;
  ArgAttributes Attrs;
};

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

/// One partition of a warp_specialize: how many warps run it and the
/// register budget per thread that `setmaxnreg` gives them (0: the kernel's
/// allocation, unchanged).
struct WarpPartition {
  int64_t Warps = 1;
  int64_t Registers = 0;
  bool operator==(const WarpPartition &) const = default;
};

class Instruction : public Value {
public:
  ~Instruction() override;

  Opcode getOpcode() const { return Op; }
  OpCategory getCategory() const { return opcodeCategory(Op); }
  BasicBlock *getParent() const { return Parent; }
  Function *getFunction() const;
  bool isTerminator() const {
    return Op == Opcode::Br || Op == Opcode::CondBr || Op == Opcode::Ret ||
           Op == Opcode::WarpSpecialize || Op == Opcode::WarpJoin;
  }
  /// True for instructions with effects beyond their result (stores,
  /// atomics, terminators, and every GPU-level operation except
  /// convert_layout, smem_slot, local_load and make_tensor_desc); DCE never
  /// removes them.
  bool hasSideEffects() const;
  /// True when the result may differ between two executions with the same
  /// operands (loads, atomics, local_load; program ids are stable).
  bool readsMemory() const;
  /// True for loads, stores and atomics: every instruction that reads or
  /// writes global memory through a pointer operand (not desc_load and
  /// desc_store, which lower-tensor-descs replaces before the passes that
  /// ask).
  bool accessesMemory() const;

  unsigned getNumOperands() const { return static_cast<unsigned>(Operands.size()); }
  Value *getOperand(unsigned I) const { return Operands[I]; }
  const std::vector<Value *> &operands() const { return Operands; }
  void setOperand(unsigned I, Value *V);
  void addOperand(Value *V);
  /// Removes operand I (phi incoming values, optional masks).
  void removeOperand(unsigned I);
  /// Drops every operand (before erasing a group of instructions that use
  /// each other).
  void dropAllOperands();

  // Successors of br / cond_br (cond_br: true block first).
  const std::vector<BasicBlock *> &successors() const { return Successors; }
  void setSuccessor(unsigned I, BasicBlock *BB) { Successors[I] = BB; }
  void addSuccessor(BasicBlock *BB) { Successors.push_back(BB); }

  // Phi: operand I comes from incoming block I.
  const std::vector<BasicBlock *> &incomingBlocks() const { return IncomingBlocks; }
  void addIncoming(Value *V, BasicBlock *From);
  BasicBlock *getIncomingBlock(unsigned I) const { return IncomingBlocks[I]; }
  void setIncomingBlock(unsigned I, BasicBlock *BB) { IncomingBlocks[I] = BB; }
  void removeIncoming(unsigned I);
  /// The incoming value for block BB, or null.
  Value *getIncomingValueFor(const BasicBlock *BB) const;

  // Attributes (meaningful only for the opcodes named).
  CmpPredicate Predicate = CmpPredicate::EQ; ///< icmp, fcmp
  ReduceKind Reduction = ReduceKind::Add;    ///< reduce, atomic_rmw
  int64_t Axis = 0;                          ///< reduce, get_program_id, get_num_programs
  int64_t RangeStart = 0, RangeEnd = 0;      ///< make_range
  SourceLoc Loc;                             ///< Triton-C location, if any.
  /// print: the format; assert: the message.
  std::string Text;
  /// Any integer result: every element is a multiple of this (a Triton-C
  /// `__multipleof(N)` local), a hint for the axis analysis that the
  /// interpreter checks. 1: no hint.
  int64_t MultipleOf = 1;
  /// cp_async_wait, wgmma_wait, tma_store_wait: groups left in flight;
  /// mbarrier_init: arrivals per phase; mbarrier_expect_tx: bytes.
  int64_t Count = 0;
  /// tma_store_wait: wait until the stores' writes to global memory are
  /// done too, not only their reads of shared memory (`writes`).
  bool WaitsForWrites = false;
  /// mbarrier_arrive: every warp of the partition that runs it arrives,
  /// each once its own work is done (`per_warp`), instead of one arrival
  /// for the whole partition.
  bool PerWarp = false;
  /// smem_alloc: the buffer's byte offset in the program's shared memory,
  /// chosen by the `allocate-shared` pass over live ranges; -1: not placed
  /// (the interpreter and the emitter then place buffers one after another).
  int64_t SharedOffset = -1;
  /// warp_specialize: one entry per successor (partition), in order.
  std::vector<WarpPartition> Partitions;

  /// Removes this instruction from its block and deletes it. It must have no
  /// uses left.
  void eraseFromParent();
  /// Unlinks from the block without deleting; the caller takes ownership.
  std::unique_ptr<Instruction> removeFromParent();

private:
  friend class BasicBlock;
  friend class IRBuilder;
  friend class Module;
  Instruction(Opcode Op, const Type *T) : Value(ValueKind::Instruction, T), Op(Op) {}

  Opcode Op;
  BasicBlock *Parent = nullptr;
  std::vector<Value *> Operands;
  std::vector<BasicBlock *> Successors;
  std::vector<BasicBlock *> IncomingBlocks;

public:
  /// Creates a detached instruction; insert it with BasicBlock::insert.
  static std::unique_ptr<Instruction> create(Opcode Op, const Type *ResultType,
                                             const std::vector<Value *> &Operands);
};

//===----------------------------------------------------------------------===//
// Blocks, functions, modules
//===----------------------------------------------------------------------===//

class BasicBlock {
public:
  using InstList = std::list<std::unique_ptr<Instruction>>;
  using iterator = InstList::iterator;

  explicit BasicBlock(std::string Name, Function *Parent) : Name(std::move(Name)), Parent(Parent) {}
  ~BasicBlock();

  const std::string &getName() const { return Name; }
  void setName(std::string N) { Name = std::move(N); }
  Function *getParent() const { return Parent; }

  InstList &instructions() { return Insts; }
  const InstList &instructions() const { return Insts; }
  bool empty() const { return Insts.empty(); }
  Instruction *front() const { return Insts.front().get(); }
  Instruction *back() const { return Insts.back().get(); }
  /// The terminator, or null when the block does not end with one yet.
  Instruction *getTerminator() const;

  /// Inserts before Pos and returns the inserted instruction.
  Instruction *insert(iterator Pos, std::unique_ptr<Instruction> I);
  Instruction *append(std::unique_ptr<Instruction> I) { return insert(Insts.end(), std::move(I)); }
  iterator iteratorTo(const Instruction *I);

  /// Successors from the terminator.
  std::vector<BasicBlock *> successors() const;
  /// Predecessors, in the order of the function's blocks (deterministic).
  std::vector<BasicBlock *> predecessors() const;
  /// Whether a path of one or more edges leads from this block to To (to
  /// this block itself only through a cycle).
  bool leadsTo(const BasicBlock *To) const;

private:
  friend class Instruction;
  std::string Name;
  Function *Parent;
  InstList Insts;
};

/// Function-level attributes.
struct FunctionAttributes {
  bool IsKernel = false; ///< `__global__`
};

class Function {
public:
  using BlockList = std::list<std::unique_ptr<BasicBlock>>;

  Function(std::string Name, const Type *ReturnType, const std::vector<const Type *> &ArgTypes,
           Module *Parent);
  ~Function();

  const std::string &getName() const { return Name; }
  Module *getParent() const { return Parent; }
  const Type *getReturnType() const { return ReturnType; }
  FunctionAttributes &attrs() { return Attrs; }
  const FunctionAttributes &attrs() const { return Attrs; }

  unsigned getNumArgs() const { return static_cast<unsigned>(Args.size()); }
  Argument *getArg(unsigned I) const { return Args[I].get(); }

  BlockList &blocks() { return Blocks; }
  const BlockList &blocks() const { return Blocks; }
  BasicBlock *getEntryBlock() const { return Blocks.empty() ? nullptr : Blocks.front().get(); }
  /// Creates a block at the end (or before Before).
  BasicBlock *createBlock(std::string Name, BasicBlock *Before = nullptr);
  /// Deletes a block; its instructions must have no uses outside it.
  void eraseBlock(BasicBlock *BB);
  /// Erases every block for which Dead returns true, in one pass over the
  /// block list (erasing thousands of blocks one at a time is quadratic).
  void eraseBlocksIf(const std::function<bool(const BasicBlock *)> &Dead);

private:
  std::string Name;
  const Type *ReturnType;
  Module *Parent;
  FunctionAttributes Attrs;
  std::vector<std::unique_ptr<Argument>> Args;
  BlockList Blocks;
};

class Module {
public:
  Module() = default;
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  Function *createFunction(std::string Name, const Type *ReturnType,
                           const std::vector<const Type *> &ArgTypes);
  const std::vector<std::unique_ptr<Function>> &functions() const { return Functions; }
  Function *getFunction(const std::string &Name) const;

  /// Uniqued scalar constants. Integers are normalized to the type's width
  /// (see normalizeInt: i1 is 0 or 1, wider types are sign-extended).
  Constant *getInt(const Type *IntType, int64_t V);
  Constant *getFloat(const Type *FloatType, double V);
  Constant *getNullPointer(const Type *PtrType);
  Constant *getUndef(const Type *ScalarType);
  Constant *getI32(int32_t V) { return getInt(Type::getI32(), V); }
  Constant *getBool(bool V) { return getInt(Type::getI1(), V ? 1 : 0); }

private:
  std::vector<std::unique_ptr<Function>> Functions;
  std::map<std::tuple<const Type *, int64_t, uint64_t, bool>, std::unique_ptr<Constant>> Constants;
};

/// Normalizes an integer to a width: i1 -> 0/1, others sign-extended.
int64_t normalizeInt(int64_t V, unsigned Bits);
/// Rounds a double to the precision and range of a float format (f16/bf16
/// round to nearest even, overflow to infinity).
double roundToFloatKind(double V, FloatKind K);

/// isa/cast helpers.
inline Instruction *asInstruction(Value *V) {
  return V && V->getValueKind() == ValueKind::Instruction ? static_cast<Instruction *>(V) : nullptr;
}
inline Constant *asConstant(Value *V) {
  return V && V->getValueKind() == ValueKind::Constant ? static_cast<Constant *>(V) : nullptr;
}
inline Argument *asArgument(Value *V) {
  return V && V->getValueKind() == ValueKind::Argument ? static_cast<Argument *>(V) : nullptr;
}

} // namespace tritonc::ir
