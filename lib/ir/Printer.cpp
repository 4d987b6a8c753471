//===- Printer.cpp - Triton-IR text printer -------------------------------===//
#include "tritonc/ir/Printer.h"

#include <charconv>
#include <cmath>
#include <set>
#include <unordered_map>

namespace tritonc::ir {

namespace {

/// Keeps [A-Za-z0-9_.] and makes the name start with a letter or '_', so that
/// hints never look like the numbers given to unnamed values (and block
/// labels lex as identifiers).
std::string sanitize(const std::string &Hint) {
  std::string Out;
  Out.reserve(Hint.size() + 1);
  for (char C : Hint) {
    bool Ok = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') ||
              C == '_' || C == '.';
    Out += Ok ? C : '_';
  }
  if (!Out.empty() &&
      !((Out[0] >= 'a' && Out[0] <= 'z') || (Out[0] >= 'A' && Out[0] <= 'Z') || Out[0] == '_'))
    Out.insert(Out.begin(), '_');
  return Out;
}

/// Module-level layout aliases: `#blocked0`, `#mma0`, ... numbered per kind
/// in order of first use, parents before the layouts that nest them.
class LayoutAliases {
public:
  LayoutAliases() = default;
  explicit LayoutAliases(const Module &M) {
    for (auto &F : M.functions()) {
      for (unsigned I = 0; I < F->getNumArgs(); ++I)
        addType(F->getArg(I)->getType());
      for (auto &BB : F->blocks())
        for (auto &I : BB->instructions())
          addType(I->getType());
    }
  }

  /// "#blocked0 = #blocked<...>" lines, one per alias, in definition order.
  std::string declarations() const {
    std::string Out;
    for (const Layout *L : Order)
      Out += Names.at(L) + " = " + L->str(&nameOf, this) + "\n";
    return Out;
  }

  std::string type(const Type *T) const { return Order.empty() ? T->str() : T->str(&nameOf, this); }

private:
  static std::string nameOf(const Layout *L, const void *Self) {
    auto &Names = static_cast<const LayoutAliases *>(Self)->Names;
    auto It = Names.find(L);
    return It == Names.end() ? L->str() : It->second;
  }
  void addType(const Type *T) {
    if (T && T->getLayout())
      addLayout(T->getLayout());
  }
  void addLayout(const Layout *L) {
    if (Names.count(L))
      return;
    if (L->getParent())
      addLayout(L->getParent());
    Names[L] = std::string("#") + L->kindName() + std::to_string(PerKind[L->kindName()]++);
    Order.push_back(L);
  }
  std::unordered_map<const Layout *, std::string> Names;
  std::unordered_map<std::string, unsigned> PerKind;
  std::vector<const Layout *> Order;
};

/// The printed names of one function's arguments, instructions and blocks.
class NameTable {
public:
  NameTable() = default;
  explicit NameTable(const Function &F, const LayoutAliases *Aliases = nullptr) : Aliases(Aliases) {
    std::set<std::string> UsedValues, UsedBlocks;
    unsigned NextNumber = 0;
    auto NameValue = [&](const Value *V) {
      std::string Hint = sanitize(V->getName());
      if (Hint.empty()) {
        Values[V] = std::to_string(NextNumber++);
        return;
      }
      Values[V] = makeUnique(Hint, UsedValues);
    };
    for (unsigned I = 0; I < F.getNumArgs(); ++I)
      NameValue(F.getArg(I));
    unsigned NextBlock = 0;
    for (auto &BB : F.blocks()) {
      std::string Hint = sanitize(BB->getName());
      if (Hint.empty()) {
        // A block whose hint is literally "bbN" may already hold the name.
        do
          Hint = "bb" + std::to_string(NextBlock++);
        while (UsedBlocks.count(Hint));
        UsedBlocks.insert(Hint);
        Blocks[BB.get()] = Hint;
      } else {
        Blocks[BB.get()] = makeUnique(Hint, UsedBlocks);
      }
      for (auto &I : BB->instructions())
        if (!I->getType()->isVoid())
          NameValue(I.get());
    }
  }

  std::string value(const Value *V) const {
    auto It = Values.find(V);
    if (It != Values.end())
      return "%" + It->second;
    std::string Hint = sanitize(V->getName());
    return Hint.empty() ? "%<badref>" : "%" + Hint;
  }

  std::string block(const BasicBlock *BB) const {
    if (!BB)
      return "^<null>";
    auto It = Blocks.find(BB);
    if (It != Blocks.end())
      return "^" + It->second;
    std::string Hint = sanitize(BB->getName());
    return Hint.empty() ? "^<badref>" : "^" + Hint;
  }

  /// The label of a block of this function (without '^').
  std::string label(const BasicBlock *BB) const { return block(BB).substr(1); }

  /// A type, with layouts through the module's aliases when there are any.
  std::string type(const Type *T) const { return Aliases ? Aliases->type(T) : T->str(); }

private:
  /// Hint, or Hint.N with the first free N. The search for each hint
  /// resumes where the previous one stopped: thousands of values named `x`
  /// would otherwise cost a quadratic number of probes.
  std::string makeUnique(const std::string &Hint, std::set<std::string> &Used) {
    std::string Name = Hint;
    unsigned &Suffix = NextSuffix[&Used][Hint];
    if (Suffix == 0)
      Suffix = 1;
    while (Used.count(Name))
      Name = Hint + "." + std::to_string(Suffix++);
    Used.insert(Name);
    return Name;
  }

  std::unordered_map<const std::set<std::string> *, std::unordered_map<std::string, unsigned>>
      NextSuffix;

  std::unordered_map<const Value *, std::string> Values;
  std::unordered_map<const BasicBlock *, std::string> Blocks;
  const LayoutAliases *Aliases = nullptr;
};

std::string operandText(const Value *V, const NameTable &Names) {
  if (!V)
    return "<null>";
  if (V->getValueKind() == ValueKind::Constant)
    return V->getType()->str() + " " + printConstantLiteral(*static_cast<const Constant *>(V));
  return Names.value(V);
}

std::string instructionText(const Instruction &I, const NameTable &Names) {
  std::string Out;
  bool HasResult = !I.getType()->isVoid();
  if (HasResult)
    Out += Names.value(&I) + " = ";
  Out += opcodeName(I.getOpcode());

  auto Operands = [&](unsigned From) {
    std::string S;
    for (unsigned K = From; K < I.getNumOperands(); ++K) {
      if (K != From)
        S += ", ";
      S += operandText(I.getOperand(K), Names);
    }
    return S;
  };
  auto AppendOperands = [&](std::string Prefix) {
    std::string Ops = Operands(0);
    if (!Prefix.empty())
      Out += " " + Prefix;
    if (!Ops.empty())
      Out += " " + Ops;
  };

  switch (I.getOpcode()) {
  case Opcode::ICmp:
  case Opcode::FCmp:
    AppendOperands(predicateName(I.Predicate));
    break;
  case Opcode::AtomicRMW:
    AppendOperands(reduceKindName(I.Reduction));
    break;
  case Opcode::Reduce:
    AppendOperands(reduceKindName(I.Reduction));
    Out += ", " + std::to_string(I.Axis);
    break;
  case Opcode::MakeRange:
    Out += " " + std::to_string(I.RangeStart) + ", " + std::to_string(I.RangeEnd);
    break;
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms:
    Out += " " + std::to_string(I.Axis);
    break;
  case Opcode::Print:
  case Opcode::Assert: {
    Out += " \"";
    for (char C : I.Text) {
      if (C == '"' || C == '\\')
        Out += std::string("\\") + C;
      else if (C == '\n')
        Out += "\\n";
      else if (static_cast<unsigned char>(C) < 0x20 || static_cast<unsigned char>(C) >= 0x7f) {
        static const char *Hex = "0123456789abcdef";
        Out += std::string("\\x") + Hex[(C >> 4) & 15] + Hex[C & 15];
      } else
        Out += C;
    }
    Out += "\"";
    std::string Ops = Operands(0);
    if (!Ops.empty())
      Out += ", " + Ops;
    break;
  }
  case Opcode::CpAsyncWait:
  case Opcode::TmaStoreWait:
  case Opcode::WgmmaWait:
    Out += " " + std::to_string(I.Count);
    if (I.WaitsForWrites)
      Out += " writes";
    break;
  case Opcode::MbarrierInit:
  case Opcode::MbarrierExpectTx:
    AppendOperands("");
    Out += ", " + std::to_string(I.Count);
    break;
  case Opcode::MbarrierArrive:
    AppendOperands("");
    if (I.PerWarp)
      Out += " per_warp";
    break;
  case Opcode::MakeTensorDesc:
  case Opcode::TmaLoad:
  case Opcode::TmaStore:
  case Opcode::DescLoad:
  case Opcode::DescStore: {
    // Bracketed groups: make_tensor_desc %base, [extents], [strides]
    // [, [traversal strides]]; tma_load %desc, [coords], %slot, %bar;
    // tma_store %desc, [coords], %slot; desc_load %desc, [offsets];
    // desc_store %desc, [offsets], %value.
    unsigned N = I.getNumOperands();
    std::vector<std::pair<unsigned, unsigned>> Groups; // [begin, end) bracketed
    unsigned Rank = I.getType()->isTensorDesc() ? I.getType()->getRank() : 0;
    if (I.getOpcode() == Opcode::MakeTensorDesc && Rank && N == 1 + 3 * Rank)
      Groups = {{1, 1 + Rank}, {1 + Rank, 1 + 2 * Rank}, {1 + 2 * Rank, N}};
    else if (I.getOpcode() == Opcode::MakeTensorDesc && N >= 1)
      Groups = {{1, 1 + (N - 1) / 2}, {1 + (N - 1) / 2, N}};
    else if (I.getOpcode() == Opcode::DescLoad && N >= 2)
      Groups = {{1, N}};
    else if (N >= (I.getOpcode() == Opcode::TmaLoad ? 3u : 2u))
      Groups = {{1, N - (I.getOpcode() == Opcode::TmaLoad ? 2u : 1u)}};
    for (unsigned K = 0; K < N; ++K) {
      bool Opens = false, Closes = false;
      for (auto &G : Groups) {
        Opens |= K == G.first;
        Closes |= K + 1 == G.second;
      }
      Out += K ? ", " : " ";
      Out += (Opens ? "[" : "") + operandText(I.getOperand(K), Names) + (Closes ? "]" : "");
    }
    break;
  }
  case Opcode::Phi: {
    size_t N = std::max<size_t>(I.getNumOperands(), I.incomingBlocks().size());
    for (size_t K = 0; K < N; ++K) {
      Out += K ? ", [" : " [";
      Out += K < I.getNumOperands() ? operandText(I.getOperand(K), Names) : "<null>";
      Out += ", ";
      Out += Names.block(K < I.incomingBlocks().size() ? I.getIncomingBlock(K) : nullptr);
      Out += "]";
    }
    break;
  }
  case Opcode::WarpSpecialize:
    for (size_t K = 0; K < I.successors().size(); ++K) {
      Out += K ? ", " : " ";
      Out += Names.block(I.successors()[K]);
      if (K < I.Partitions.size()) {
        Out += " warps(" + std::to_string(I.Partitions[K].Warps) + ")";
        if (I.Partitions[K].Registers)
          Out += " registers(" + std::to_string(I.Partitions[K].Registers) + ")";
      }
    }
    break;
  case Opcode::WarpJoin:
  case Opcode::Br:
  case Opcode::CondBr: {
    std::string Ops = Operands(0);
    for (BasicBlock *S : I.successors())
      Ops += (Ops.empty() ? "" : ", ") + Names.block(S);
    if (!Ops.empty())
      Out += " " + Ops;
    break;
  }
  default:
    AppendOperands("");
    break;
  }

  if (HasResult)
    Out += " : " + Names.type(I.getType());
  if (I.MultipleOf != 1)
    Out += " multipleof(" + std::to_string(I.MultipleOf) + ")";
  if (I.SharedOffset >= 0)
    Out += " offset(" + std::to_string(I.SharedOffset) + ")";
  return Out;
}

std::string argumentText(const Argument &A, const NameTable &Names) {
  std::string Out = Names.type(A.getType()) + " " + Names.value(&A);
  const ArgAttributes &At = A.attrs();
  if (At.NoAlias)
    Out += " noalias";
  if (At.ReadOnly)
    Out += " readonly";
  if (At.WriteOnly)
    Out += " writeonly";
  if (At.Eviction != EvictionPolicy::Normal)
    Out += At.Eviction == EvictionPolicy::First ? " evict_first" : " evict_last";
  if (At.Aligned != 1)
    Out += " aligned(" + std::to_string(At.Aligned) + ")";
  if (At.MultipleOf != 1)
    Out += " multipleof(" + std::to_string(At.MultipleOf) + ")";
  if (At.NonNegative)
    Out += " nonnegative";
  return Out;
}

} // namespace

std::string printConstantLiteral(const Constant &C) {
  if (C.isUndef())
    return "undef";
  const Type *T = C.getType();
  switch (T->getKind()) {
  case TypeKind::Int:
    return std::to_string(normalizeInt(C.getInt(), T->getIntBits()));
  case TypeKind::Pointer:
    return C.getInt() == 0 ? "null" : std::to_string(C.getInt());
  case TypeKind::Float: {
    double V = C.getFloat();
    if (std::isnan(V))
      return "nan";
    if (std::isinf(V))
      return V < 0 ? "-inf" : "inf";
    char Buf[64];
    // f32 constants print the shortest decimal that reads back as the same
    // float (the parser reads f32 literals as float); other kinds hold values
    // exactly representable in a double, so the double's shortest form works.
    std::to_chars_result R = T->getFloatKind() == FloatKind::F32
                                 ? std::to_chars(Buf, Buf + sizeof(Buf), static_cast<float>(V))
                                 : std::to_chars(Buf, Buf + sizeof(Buf), V);
    return std::string(Buf, R.ptr);
  }
  default:
    return "?";
  }
}

std::string printOperand(const Value &V) {
  if (V.getValueKind() == ValueKind::Constant)
    return operandText(&V, NameTable());
  const Function *F = nullptr;
  if (auto *A = asArgument(const_cast<Value *>(&V)))
    F = A->getParent();
  else if (auto *I = asInstruction(const_cast<Value *>(&V)))
    F = I->getFunction();
  return F ? NameTable(*F).value(&V) : NameTable().value(&V);
}

std::string printBlockName(const BasicBlock &BB) {
  if (const Function *F = BB.getParent())
    return NameTable(*F).block(&BB);
  return NameTable().block(&BB);
}

std::string printInstruction(const Instruction &I) {
  if (const Function *F = I.getFunction())
    return instructionText(I, NameTable(*F));
  return instructionText(I, NameTable());
}

namespace {
std::string functionText(const Function &F, const LayoutAliases *Aliases) {
  NameTable Names(F, Aliases);
  std::string Out = "define ";
  if (F.attrs().IsKernel)
    Out += "kernel ";
  Out += F.getReturnType()->str() + " @" + sanitize(F.getName()) + "(";
  for (unsigned I = 0; I < F.getNumArgs(); ++I) {
    if (I)
      Out += ", ";
    Out += argumentText(*F.getArg(I), Names);
  }
  Out += ") {\n";
  for (auto &BB : F.blocks()) {
    Out += Names.label(BB.get()) + ":\n";
    for (auto &I : BB->instructions())
      Out += "  " + instructionText(*I, Names) + "\n";
  }
  Out += "}\n";
  return Out;
}
} // namespace

std::string printFunction(const Function &F) { return functionText(F, nullptr); }

std::string printModule(const Module &M) {
  LayoutAliases Aliases(M);
  std::string Out = Aliases.declarations();
  bool First = Out.empty();
  for (auto &F : M.functions()) {
    if (!First)
      Out += "\n";
    First = false;
    Out += functionText(*F, &Aliases);
  }
  return Out;
}

} // namespace tritonc::ir
