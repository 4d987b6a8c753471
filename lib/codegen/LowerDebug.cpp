//===- LowerDebug.cpp - print and assert on the GPU -----------------------===//
//
// `print` (only in --debug builds) calls the CUDA runtime's vprintf: the
// format is a module-scope string, the values go to a per-thread local
// buffer laid out as C's variadic arguments (each value aligned to its size)
// and vprintf gets both as generic pointers. A line starts with the program
// id and, for tiles, the element's index; each element is printed once, by
// its owner thread, and a line of scalars once per program, by thread 0.
//
// `assert` calls __assertfail, which prints "file:line: function: ...
// Assertion `message` failed." with the block and thread and stops the
// kernel. The back end knows no file names: the kernel's name stands for the
// file, the line is the statement's.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

#include <optional>

namespace tritonc::codegen {

using ir::Instruction;
using ptx::Operand;
using ptx::Reg;
using ptx::Ty;

namespace {

const char *VprintfDecl = ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 "
                          "vprintf_param_0, .param .b64 vprintf_param_1);";
const char *AssertfailDecl =
    ".extern .func __assertfail (.param .b64 __assertfail_param_0, .param .b64 "
    "__assertfail_param_1, .param .b32 __assertfail_param_2, .param .b64 __assertfail_param_3, "
    ".param .b64 __assertfail_param_4);";

} // namespace

Reg FunctionLowering::debugString(const std::string &Text) {
  std::string Name = "tritonc_str_" + F.getName() + "_" + std::to_string(DebugStrings++);
  std::string Bytes;
  for (char C : Text)
    Bytes += std::to_string(static_cast<unsigned char>(C)) + ", ";
  ModuleDecls.push_back(".global .align 1 .b8 " + Name + "[" + std::to_string(Text.size() + 1) +
                        "] = {" + Bytes + "0};");
  Reg Global = B.mov(Ty::U64, Operand::sym(Name));
  return B.inst("cvta.global.u64", Ty::U64, {Global});
}

void FunctionLowering::callExtern(const std::string &Callee, const std::vector<Reg> &Args,
                                  bool HasResult) {
  // The parameters live in a scope of their own, as nvcc emits calls.
  B.scopeBrace(true);
  std::string Names;
  for (size_t K = 0; K < Args.size(); ++K) {
    std::string P = "tritonc_arg" + std::to_string(K);
    bool Wide = Args[K].type() == Ty::U64 || Args[K].type() == Ty::S64;
    B.emit(std::string(".param .b") + (Wide ? "64 " : "32 ") + P);
    B.emit(std::string("st.param.b") + (Wide ? "64 [" : "32 [") + P + "], " + Args[K].name());
    Names += (K ? ", " : "") + P;
  }
  if (HasResult)
    B.emit(".param .b32 tritonc_ret");
  // Not call.uni: the threads of a warp may diverge here (owners, failed
  // assertions).
  B.emit(std::string("call ") + (HasResult ? "(tritonc_ret), " : "") + Callee + ", (" + Names +
         ")");
  B.scopeBrace(false);
}

void FunctionLowering::lowerPrint(const Instruction &I) {
  ModuleDecls.push_back(VprintfDecl);
  // The elements are printed in the layout of a tile operand that has one
  // (a rematerialized one is computed where used), else the default one.
  const ir::Value *TileOp = nullptr;
  for (const ir::Value *V : I.operands())
    if (V->getType()->isTile() && (!TileOp || LA.isRematerializable(TileOp)))
      TileOp = V;
  std::string Format = I.Text;
  if (!Format.empty() && Format.back() == '\n')
    Format.pop_back();
  size_t Rank = TileOp ? TileOp->getType()->getRank() : 0;
  std::string Prefix = "pid (%d, %d, %d)";
  if (Rank) {
    Prefix += " idx (";
    for (size_t D = 0; D < Rank; ++D)
      Prefix += D ? ", %d" : "%d";
    Prefix += ")";
  }
  Reg Fmt = debugString(Prefix + ": " + Format + "\n");

  // The argument buffer: program ids, indices, then the values, each at an
  // offset aligned to its size.
  struct Slot {
    unsigned Offset;
    Ty T;
  };
  std::vector<Slot> Slots;
  unsigned Bytes = 0;
  auto Place = [&](Ty T) {
    unsigned Size = T == Ty::S32 ? 4 : 8;
    Bytes = (Bytes + Size - 1) / Size * Size;
    Slots.push_back({Bytes, T});
    Bytes += Size;
  };
  for (size_t K = 0; K < 3 + Rank; ++K)
    Place(Ty::S32);
  auto ValueTy = [](const ir::Value *V) {
    const ir::Type *S = V->getType()->getScalarType();
    if (S->getKind() == ir::TypeKind::Float)
      return Ty::F64;
    if (S->getKind() == ir::TypeKind::Pointer)
      return Ty::U64;
    return S->getIntBits() == 64 ? Ty::S64 : Ty::S32;
  };
  for (const ir::Value *V : I.operands())
    Place(ValueTy(V));
  PrintArgBytes = std::max(PrintArgBytes, Bytes);
  Reg Local = B.mov(Ty::U64, Operand::sym("tritonc_print_args"));
  Reg Args = B.inst("cvta.local.u64", Ty::U64, {Local});

  std::vector<Reg> Pids;
  for (ptx::SpecialReg S :
       {ptx::SpecialReg::CtaIdX, ptx::SpecialReg::CtaIdY, ptx::SpecialReg::CtaIdZ})
    Pids.push_back(B.special(S).as(Ty::S32));
  // One call per element this thread owns (all of them for scalars).
  std::optional<LinearLayout> Layout;
  if (TileOp)
    Layout = LA.isRematerializable(TileOp) ? LA.defaultLayout(TileOp->getType()->getShape())
                                           : LA.layoutOf(TileOp);
  const LinearLayout *L = Layout ? &*Layout : nullptr;
  std::vector<Regs> Vals;
  for (const ir::Value *V : I.operands())
    Vals.push_back(V->getType()->isTile() ? get(V, *L) : Regs{scalar(V)});
  int32_t N = L ? numRegisters(*L) : 1;
  // A scalar line comes from thread 0 alone; an element from its owner.
  Reg Owner = L ? ownerPredicate(*L) : B.setp(ptx::Cmp::Eq, Ty::U32, threadId(), 0);
  std::vector<bool> Dup = L ? duplicateRegisters(*L) : std::vector<bool>(1, false);
  for (int32_t R = 0; R < N; ++R) {
    if (Dup[R])
      continue;
    std::string Skip;
    if (Owner.valid()) {
      Skip = B.newLabel("print");
      B.braIf(Owner, Skip, /*Negated=*/true);
    }
    std::vector<Reg> Fields = Pids;
    if (L) {
      const Regs &Thread = threadCoords(*L);
      std::vector<int64_t> Co = registerCoords(*L, R);
      for (size_t D = 0; D < Rank; ++D)
        Fields.push_back(B.add(Ty::S32, Thread[D].as(Ty::S32), Co[D]));
    }
    for (size_t K = 0; K < Vals.size(); ++K)
      Fields.push_back(Vals[K][Vals[K].size() == 1 ? 0 : R]);
    for (size_t K = 0; K < Fields.size(); ++K) {
      Ty T = Slots[K].T;
      Reg V = Fields[K];
      if (T == Ty::F64 && V.type() != Ty::F64)
        V = B.cvt(Ty::F64, V.type(), V);
      B.emit(std::string("st.local.") +
             (T == Ty::F64   ? "f64"
              : T == Ty::S32 ? "b32"
                             : "b64") +
             " [" + Local.name() + "+" + std::to_string(Slots[K].Offset) + "], " +
             V.as(T == Ty::F64   ? Ty::F64
                  : T == Ty::S32 ? Ty::B32
                                 : Ty::B64)
                 .name());
    }
    callExtern("vprintf", {Fmt, Args}, /*HasResult=*/true);
    if (!Skip.empty())
      B.label(Skip);
  }
}

void FunctionLowering::lowerAssert(const Instruction &I) {
  ModuleDecls.push_back(AssertfailDecl);
  const ir::Value *Cond = I.getOperand(0);
  // Holds in this thread when every element it has holds.
  Reg All;
  if (Cond->getType()->isTile()) {
    LinearLayout L = LA.isRematerializable(Cond) ? LA.defaultLayout(Cond->getType()->getShape())
                                                 : LA.layoutOf(Cond);
    for (const Reg &C : get(Cond, L))
      All = All.valid() ? B.predAnd(All, C) : C;
  } else {
    All = scalar(Cond);
  }
  std::string Pass = B.newLabel("assert");
  B.braIf(All, Pass);
  Reg Message = debugString(I.Text);
  Reg File = debugString(F.getName());
  Reg Function = debugString(F.getName());
  Reg Line = B.mov(Ty::B32, static_cast<int64_t>(I.Loc.Line));
  Reg CharSize = B.mov(Ty::U64, 1);
  callExtern("__assertfail", {Message, File, Line, Function, CharSize}, /*HasResult=*/false);
  B.emit("trap");
  B.label(Pass);
}

void FunctionLowering::declareDebugSupport() {
  if (PrintArgBytes)
    B.addLocalArray("tritonc_print_args", PrintArgBytes, 8);
}

} // namespace tritonc::codegen
