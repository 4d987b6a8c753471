//===- PTXBuilder.cpp - PTX text emission ---------------------------------===//

#include "tritonc/target/ptx/PTXBuilder.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <bit>
#include <cstdio>

namespace tritonc::ptx {

const char *tyName(Ty T) {
  switch (T) {
  case Ty::Pred:
    return "pred";
  case Ty::B16:
    return "b16";
  case Ty::B32:
    return "b32";
  case Ty::B64:
    return "b64";
  case Ty::U16:
    return "u16";
  case Ty::U32:
    return "u32";
  case Ty::U64:
    return "u64";
  case Ty::S16:
    return "s16";
  case Ty::S32:
    return "s32";
  case Ty::S64:
    return "s64";
  case Ty::F16:
    return "f16";
  case Ty::BF16:
    return "bf16";
  case Ty::F16x2:
    return "f16x2";
  case Ty::BF16x2:
    return "bf16x2";
  case Ty::F32:
    return "f32";
  case Ty::F64:
    return "f64";
  }
  reportInternalError("tyName: unknown PTX type");
}

unsigned tyBits(Ty T) {
  switch (regClassOf(T)) {
  case RegClass::Pred:
    return 1;
  case RegClass::B16:
    return 16;
  case RegClass::B32:
  case RegClass::F32:
    return 32;
  case RegClass::B64:
  case RegClass::F64:
    return 64;
  }
  reportInternalError("tyBits: unknown register class");
}

bool isFloatTy(Ty T) {
  return T == Ty::F16 || T == Ty::BF16 || T == Ty::F16x2 || T == Ty::BF16x2 || T == Ty::F32 ||
         T == Ty::F64;
}

bool isSignedTy(Ty T) { return T == Ty::S16 || T == Ty::S32 || T == Ty::S64; }

RegClass regClassOf(Ty T) {
  switch (T) {
  case Ty::Pred:
    return RegClass::Pred;
  case Ty::B16:
  case Ty::U16:
  case Ty::S16:
  case Ty::F16:
  case Ty::BF16:
    return RegClass::B16;
  case Ty::B32:
  case Ty::U32:
  case Ty::S32:
  case Ty::F16x2:
  case Ty::BF16x2:
    return RegClass::B32;
  case Ty::B64:
  case Ty::U64:
  case Ty::S64:
    return RegClass::B64;
  case Ty::F32:
    return RegClass::F32;
  case Ty::F64:
    return RegClass::F64;
  }
  reportInternalError("regClassOf: unknown PTX type");
}

const char *archName(Arch A) { return A == Arch::SM80 ? "sm_80" : "sm_90a"; }

Reg Reg::as(Ty NewTy) const {
  if (regClassOf(NewTy) != regClassOf(T))
    reportInternalError("Reg::as: " + Name + " cannot be viewed as ." + tyName(NewTy));
  return Reg(Name, NewTy);
}

Operand Operand::f32(float V) {
  char Buf[16];
  std::snprintf(Buf, sizeof(Buf), "0f%08X", std::bit_cast<uint32_t>(V));
  return sym(Buf);
}

Operand Operand::f64(double V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0d%016llX",
                static_cast<unsigned long long>(std::bit_cast<uint64_t>(V)));
  return sym(Buf);
}

Operand Operand::hex(uint64_t Bits) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%llX", static_cast<unsigned long long>(Bits));
  return sym(Buf);
}

Operand Operand::sym(std::string Name) {
  Operand O;
  O.Text = std::move(Name);
  return O;
}

namespace {

const char *regPrefix(RegClass C) {
  static const char *const Prefixes[] = {"%p", "%h", "%r", "%rd", "%f", "%fd"};
  return Prefixes[static_cast<unsigned>(C)];
}

const char *regDeclType(RegClass C) {
  static const char *const Types[] = {"pred", "b16", "b32", "b64", "f32", "f64"};
  return Types[static_cast<unsigned>(C)];
}

const char *spaceName(StateSpace S) {
  switch (S) {
  case StateSpace::Global:
    return ".global";
  case StateSpace::Shared:
    return ".shared";
  case StateSpace::Local:
    return ".local";
  case StateSpace::Param:
    return ".param";
  case StateSpace::Generic:
    return "";
  }
  reportInternalError("spaceName: unknown state space");
}

const char *cmpName(Cmp C) {
  static const char *const Names[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                      "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  return Names[static_cast<unsigned>(C)];
}

const char *roundingName(Rounding R) {
  static const char *const Names[] = {"",    "",     ".rn",  ".rz",  ".rm",
                                      ".rp", ".rni", ".rzi", ".rmi", ".rpi"};
  return Names[static_cast<unsigned>(R)];
}

/// Bit-size type of the same width ("b32" for f32), used where PTX wants one.
Ty bitsTy(Ty T) {
  switch (tyBits(T)) {
  case 16:
    return Ty::B16;
  case 32:
    return Ty::B32;
  case 64:
    return Ty::B64;
  default:
    return Ty::Pred;
  }
}

/// The type name for data-movement instructions (mov, ld, st, selp, params),
/// which have no f16/bf16 forms: those move the same bits as b16/b32.
std::string moveTyName(Ty T) {
  if (T == Ty::F16 || T == Ty::BF16 || T == Ty::F16x2 || T == Ty::BF16x2)
    return tyName(bitsTy(T));
  return tyName(T);
}

/// Register operands must have the width of the printed instruction type T,
/// and integer immediates cannot feed float instructions. Symbols and float
/// literals are left to ptxas.
void checkOperand(const char *What, const Operand &O, Ty T) {
  if (O.isReg() && tyBits(O.reg()->type()) != tyBits(T))
    reportInternalError(std::string("PTXBuilder::") + What + ": operand " + O.str() + " has ." +
                        tyName(O.reg()->type()) + ", expected " + std::to_string(tyBits(T)) +
                        " bits");
  if (O.isIntImm() && isFloatTy(T))
    reportInternalError(std::string("PTXBuilder::") + What + ": integer immediate " + O.str() +
                        " for a ." + tyName(T) + " instruction");
}

/// checkOperand for data movement, which prints half types as bit types.
void checkMoveOperand(const char *What, const Operand &O, Ty T) {
  if (T == Ty::F16 || T == Ty::BF16 || T == Ty::F16x2 || T == Ty::BF16x2)
    T = bitsTy(T);
  checkOperand(What, O, T);
}

std::string joinOps(const std::vector<Operand> &Ops) {
  std::string S;
  for (size_t I = 0; I < Ops.size(); ++I) {
    if (I)
      S += ", ";
    S += Ops[I].str();
  }
  return S;
}

std::string vecList(const std::vector<Reg> &Regs) {
  if (Regs.size() == 1)
    return Regs[0].name();
  std::string S = "{";
  for (size_t I = 0; I < Regs.size(); ++I) {
    if (I)
      S += ", ";
    S += Regs[I].name();
  }
  return S + "}";
}

std::string vecSuffix(unsigned Width) {
  return Width == 1 ? std::string() : ".v" + std::to_string(Width);
}

void checkVector(const char *What, Ty T, unsigned Width) {
  if (Width != 1 && Width != 2 && Width != 4)
    reportInternalError(std::string("PTXBuilder::") + What + ": vector width must be 1, 2 or 4");
  if (T == Ty::Pred || tyBits(T) * Width > 128)
    reportInternalError(std::string("PTXBuilder::") + What + ": ." + tyName(T) + " x" +
                        std::to_string(Width) + " exceeds 128 bits");
}

} // namespace

//===----------------------------------------------------------------------===//
// PTXFunctionBuilder
//===----------------------------------------------------------------------===//

std::string PTXFunctionBuilder::addParam(Ty T) {
  if (T == Ty::Pred)
    reportInternalError("PTXBuilder::addParam: predicates cannot be parameters");
  std::string P = "p" + std::to_string(Params.size());
  Params.emplace_back(P, T);
  ParamDecls.emplace_back();
  return P;
}

std::string PTXFunctionBuilder::addByteArrayParam(unsigned Bytes, unsigned Align) {
  std::string P = "p" + std::to_string(Params.size());
  Params.emplace_back(P, Ty::B64); // unused: ParamDecls says how it is declared
  ParamDecls.push_back(".align " + std::to_string(Align) + " .b8 " + P + "[" +
                       std::to_string(Bytes) + "]");
  return P;
}

void PTXFunctionBuilder::setNumWarps(unsigned NumWarps, ThreadBound B) {
  if (NumWarps == 0 || NumWarps > 32)
    reportInternalError("PTXBuilder::setNumWarps: num_warps must be in [1, 32]");
  NumThreads = NumWarps * 32;
  Bound = B;
}

Reg PTXFunctionBuilder::newReg(Ty T) {
  RegClass C = regClassOf(T);
  unsigned &N = Counts[static_cast<unsigned>(C)];
  return Reg(regPrefix(C) + std::to_string(N++), T);
}

void PTXFunctionBuilder::emitInst(const std::string &Text, const std::optional<Guard> &Explicit) {
  // An explicit guard with no register forces an unguarded instruction.
  const std::optional<Guard> &G = Explicit ? Explicit : ActiveGuard;
  std::string Line = "\t";
  if (G && G->P.valid()) {
    if (G->P.type() != Ty::Pred)
      reportInternalError("PTXBuilder: guard " + G->P.name() + " is not a predicate");
    Line += (G->Negated ? "@!" : "@") + G->P.name() + " ";
  }
  Line += Text;
  if (Line.back() != ';')
    Line += ';';
  activeLines().push_back(std::move(Line));
}

void PTXFunctionBuilder::emit(const std::string &Line) { emitInst(Line); }

void PTXFunctionBuilder::scopeBrace(bool Open) { activeLines().push_back(Open ? "\t{" : "\t}"); }

void PTXFunctionBuilder::addLocalArray(const std::string &ArrayName, unsigned Bytes,
                                       unsigned Align) {
  LocalDecls.push_back(".local .align " + std::to_string(Align) + " .b8 " + ArrayName + "[" +
                       std::to_string(Bytes) + "];");
}

void PTXFunctionBuilder::comment(const std::string &Text) {
  activeLines().push_back("\t// " + Text);
}

Reg PTXFunctionBuilder::inst(const std::string &Opcode, Ty DstTy,
                             const std::vector<Operand> &Srcs) {
  Reg D = newReg(DstTy);
  std::vector<Operand> Ops{D};
  Ops.insert(Ops.end(), Srcs.begin(), Srcs.end());
  emitInst(Opcode + " " + joinOps(Ops));
  return D;
}

PTXFunctionBuilder::GuardScope::GuardScope(PTXFunctionBuilder &B, Reg P, bool Negated) : B(B) {
  if (B.ActiveGuard)
    reportInternalError("PTXBuilder: predicate guards cannot be nested");
  if (P.type() != Ty::Pred)
    reportInternalError("PTXBuilder: guard " + P.name() + " is not a predicate");
  B.ActiveGuard = Guard{std::move(P), Negated};
}

PTXFunctionBuilder::GuardScope::~GuardScope() { B.ActiveGuard.reset(); }

Reg PTXFunctionBuilder::createPolicy(bool EvictFirst) {
  Reg P = newReg(Ty::B64);
  emitInst(std::string("createpolicy.fractional.L2::") +
           (EvictFirst ? "evict_first" : "evict_last") + ".b64 " + P.name() + ", 1.0");
  return P;
}

std::pair<std::string, std::string>
PTXFunctionBuilder::cacheHintFor(const std::optional<Reg> &Policy) {
  if (!Policy)
    return {};
  return {".L2::cache_hint", ", " + Policy->name()};
}

Reg PTXFunctionBuilder::ldParam(Ty T, const std::string &Param) {
  return inst("ld.param." + moveTyName(T), T, {Operand::sym("[" + Param + "]")});
}

Reg PTXFunctionBuilder::mov(Ty T, const Operand &Src) {
  checkMoveOperand("mov", Src, T);
  return inst("mov." + moveTyName(T), T, {Src});
}

void PTXFunctionBuilder::movTo(const Reg &Dst, const Operand &Src) {
  checkMoveOperand("movTo", Src, Dst.type());
  emitInst("mov." + moveTyName(Dst.type()) + " " + Dst.name() + ", " + Src.str());
}

Reg PTXFunctionBuilder::special(SpecialReg S) {
  static const char *const Names[] = {"%tid.x",   "%tid.y",    "%tid.z",    "%ctaid.x",  "%ctaid.y",
                                      "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z", "%laneid"};
  return inst("mov.u32", Ty::U32, {Operand::sym(Names[static_cast<unsigned>(S)])});
}

Reg PTXFunctionBuilder::bitcast(Ty T, const Reg &Src) {
  checkOperand("bitcast", Src, bitsTy(T));
  return inst(std::string("mov.") + tyName(bitsTy(T)), T, {Src});
}

Reg PTXFunctionBuilder::pack2x16(const Reg &Lo, const Reg &Hi, Ty PackedTy) {
  checkOperand("pack2x16", Lo, Ty::B16);
  checkOperand("pack2x16", Hi, Ty::B16);
  if (tyBits(PackedTy) != 32)
    reportInternalError("PTXBuilder::pack2x16: packed type must be 32 bits");
  return inst("mov.b32", PackedTy, {Operand::sym("{" + Lo.name() + ", " + Hi.name() + "}")});
}

Reg PTXFunctionBuilder::cvtPack2x16(const Reg &Lo, const Reg &Hi, Ty PackedTy) {
  checkOperand("cvtPack2x16", Lo, Ty::F32);
  checkOperand("cvtPack2x16", Hi, Ty::F32);
  if (PackedTy != Ty::F16x2 && PackedTy != Ty::BF16x2)
    reportInternalError("PTXBuilder::cvtPack2x16: packed type must be f16x2 or bf16x2");
  // PTX takes the high half first.
  return inst(std::string("cvt.rn.") + tyName(PackedTy) + ".f32", PackedTy, {Hi, Lo});
}

std::pair<Reg, Reg> PTXFunctionBuilder::unpack2x16(const Reg &Src, Ty HalfTy) {
  checkOperand("unpack2x16", Src, Ty::B32);
  if (tyBits(HalfTy) != 16)
    reportInternalError("PTXBuilder::unpack2x16: half type must be 16 bits");
  Reg Lo = newReg(HalfTy), Hi = newReg(HalfTy);
  emitInst("mov.b32 {" + Lo.name() + ", " + Hi.name() + "}, " + Src.name());
  return {Lo, Hi};
}

Reg PTXFunctionBuilder::sharedAddress(const std::string &ArrayName) {
  return inst("mov.u32", Ty::U32, {Operand::sym(ArrayName)});
}

Reg PTXFunctionBuilder::binary(BinOp Op, Ty T, const Operand &A, const Operand &B) {
  bool Float = isFloatTy(T);
  bool Pred = T == Ty::Pred;
  std::string Opc;
  std::string TyStr = tyName(T);
  switch (Op) {
  case BinOp::Add:
    Opc = Float ? "add.rn" : "add";
    break;
  case BinOp::Sub:
    Opc = Float ? "sub.rn" : "sub";
    break;
  case BinOp::MulLo:
    Opc = Float ? "mul.rn" : "mul.lo";
    break;
  case BinOp::MulHi:
    if (Float)
      reportInternalError("PTXBuilder::binary: mul.hi needs an integer type");
    Opc = "mul.hi";
    break;
  case BinOp::Div:
    Opc = Float ? "div.rn" : "div";
    break;
  case BinOp::Rem:
    if (Float)
      reportInternalError("PTXBuilder::binary: rem needs an integer type");
    Opc = "rem";
    break;
  case BinOp::Min:
    Opc = "min";
    break;
  case BinOp::Max:
    Opc = "max";
    break;
  case BinOp::Shl:
  case BinOp::Shr:
    if (Float || Pred)
      reportInternalError("PTXBuilder::binary: shifts need an integer type");
    Opc = Op == BinOp::Shl ? "shl" : "shr";
    // shl has only bit-size forms; shr's signedness picks arithmetic/logical.
    if (Op == BinOp::Shl)
      TyStr = tyName(bitsTy(T));
    checkOperand("shift", A, T);
    checkOperand("shift", B, Ty::U32);
    return inst(Opc + "." + TyStr, T, {A, B});
  case BinOp::And:
  case BinOp::Or:
  case BinOp::Xor:
    Opc = Op == BinOp::And ? "and" : Op == BinOp::Or ? "or" : "xor";
    // Logic ops take bit-size types (or pred), whatever T's interpretation.
    if (!Pred)
      TyStr = tyName(bitsTy(T));
    break;
  }
  if (Pred && Op != BinOp::And && Op != BinOp::Or && Op != BinOp::Xor)
    reportInternalError("PTXBuilder::binary: only and/or/xor apply to predicates");
  checkOperand("binary", A, T);
  checkOperand("binary", B, T);
  return inst(Opc + "." + TyStr, T, {A, B});
}

Reg PTXFunctionBuilder::madLo(Ty T, const Operand &A, const Operand &B, const Operand &C) {
  if (isFloatTy(T) || T == Ty::Pred)
    reportInternalError("PTXBuilder::madLo: needs an integer type");
  for (const Operand *O : {&A, &B, &C})
    checkOperand("madLo", *O, T);
  return inst(std::string("mad.lo.") + tyName(T), T, {A, B, C});
}

Reg PTXFunctionBuilder::mulWide(Ty T, const Operand &A, const Operand &B) {
  Ty Wide;
  switch (T) {
  case Ty::U16:
    Wide = Ty::U32;
    break;
  case Ty::S16:
    Wide = Ty::S32;
    break;
  case Ty::U32:
    Wide = Ty::U64;
    break;
  case Ty::S32:
    Wide = Ty::S64;
    break;
  default:
    reportInternalError("PTXBuilder::mulWide: needs a 16- or 32-bit integer type");
  }
  checkOperand("mulWide", A, T);
  checkOperand("mulWide", B, T);
  return inst(std::string("mul.wide.") + tyName(T), Wide, {A, B});
}

Reg PTXFunctionBuilder::fma(Ty T, const Operand &A, const Operand &B, const Operand &C) {
  if (!isFloatTy(T))
    reportInternalError("PTXBuilder::fma: needs a float type");
  for (const Operand *O : {&A, &B, &C})
    checkOperand("fma", *O, T);
  return inst(std::string("fma.rn.") + tyName(T), T, {A, B, C});
}

Reg PTXFunctionBuilder::unary(MathOp Op, Ty T, const Operand &A) {
  static const char *const Names[] = {"neg",        "abs",         "ex2.approx",   "lg2.approx",
                                      "rcp.approx", "sqrt.approx", "rsqrt.approx", "sin.approx",
                                      "cos.approx", "sqrt.rn",     "rcp.rn",       "not"};
  checkOperand("unary", A, T);
  std::string TyStr = tyName(T);
  if (Op == MathOp::Not) {
    if (isFloatTy(T))
      reportInternalError("PTXBuilder::unary: not needs an integer or predicate type");
    if (T != Ty::Pred)
      TyStr = tyName(bitsTy(T));
  } else if (Op != MathOp::Neg && Op != MathOp::Abs && !isFloatTy(T)) {
    reportInternalError("PTXBuilder::unary: math functions need a float type");
  }
  return inst(std::string(Names[static_cast<unsigned>(Op)]) + "." + TyStr, T, {A});
}

Reg PTXFunctionBuilder::cvt(Ty Dst, Ty Src, const Operand &A, Rounding R) {
  checkOperand("cvt", A, Src);
  if (Dst == Ty::Pred || Src == Ty::Pred)
    reportInternalError("PTXBuilder::cvt: predicates cannot be converted; use selp/setp");
  if (R == Rounding::Default) {
    bool DF = isFloatTy(Dst), SF = isFloatTy(Src);
    if (DF && SF)
      R = tyBits(Dst) < tyBits(Src) ? Rounding::Rn : Rounding::None;
    else if (DF)
      R = Rounding::Rn;
    else if (SF)
      R = Rounding::Rzi;
    else
      R = Rounding::None;
  }
  return inst(std::string("cvt") + roundingName(R) + "." + tyName(Dst) + "." + tyName(Src), Dst,
              {A});
}

Reg PTXFunctionBuilder::cvtaToGlobal(const Reg &Generic) {
  checkOperand("cvtaToGlobal", Generic, Ty::U64);
  return inst("cvta.to.global.u64", Ty::U64, {Generic});
}

Reg PTXFunctionBuilder::setp(Cmp C, Ty T, const Operand &A, const Operand &B) {
  checkOperand("setp", A, T);
  checkOperand("setp", B, T);
  return inst(std::string("setp.") + cmpName(C) + "." + tyName(T), Ty::Pred, {A, B});
}

Reg PTXFunctionBuilder::selp(Ty T, const Operand &A, const Operand &B, const Reg &P) {
  checkMoveOperand("selp", A, T);
  checkMoveOperand("selp", B, T);
  if (P.type() != Ty::Pred)
    reportInternalError("PTXBuilder::selp: selector " + P.name() + " is not a predicate");
  return inst("selp." + moveTyName(T), T, {A, B, P});
}

std::string PTXFunctionBuilder::memRef(const Operand &Addr, int64_t Offset) const {
  std::string S = "[" + Addr.str();
  if (Offset > 0)
    S += "+" + std::to_string(Offset);
  else if (Offset < 0)
    S += std::to_string(Offset);
  return S + "]";
}

std::vector<Reg> PTXFunctionBuilder::ld(StateSpace S, Ty T, unsigned Width, const Operand &Addr,
                                        int64_t Offset, std::optional<Guard> G) {
  checkVector("ld", T, Width);
  std::vector<Reg> Dst;
  for (unsigned I = 0; I < Width; ++I)
    Dst.push_back(newReg(T));
  emitInst(std::string("ld") + spaceName(S) + vecSuffix(Width) + "." + moveTyName(T) + " " +
               vecList(Dst) + ", " + memRef(Addr, Offset),
           G);
  return Dst;
}

std::vector<Reg> PTXFunctionBuilder::ldMasked(StateSpace S, Ty T, unsigned Width,
                                              const Operand &Addr, int64_t Offset, const Reg &Mask,
                                              const std::vector<Operand> &Other) {
  checkVector("ldMasked", T, Width);
  if (Other.size() != 1 && Other.size() != Width)
    reportInternalError("PTXBuilder::ldMasked: need one 'other' value or one per lane");
  if (Mask.type() != Ty::Pred)
    reportInternalError("PTXBuilder::ldMasked: mask " + Mask.name() + " is not a predicate");
  std::vector<Reg> Dst;
  for (unsigned I = 0; I < Width; ++I) {
    const Operand &O = Other[Other.size() == 1 ? 0 : I];
    checkMoveOperand("ldMasked", O, T);
    // The defaults are written unconditionally, even inside a guard scope.
    Reg R = newReg(T);
    emitInst("mov." + moveTyName(T) + " " + R.name() + ", " + O.str(), Guard{});
    Dst.push_back(R);
  }
  emitInst(std::string("ld") + spaceName(S) + vecSuffix(Width) + "." + moveTyName(T) + " " +
               vecList(Dst) + ", " + memRef(Addr, Offset),
           Guard{Mask, false});
  return Dst;
}

void PTXFunctionBuilder::st(StateSpace S, Ty T, const Operand &Addr, int64_t Offset,
                            const std::vector<Reg> &Values, std::optional<Guard> G) {
  checkVector("st", T, static_cast<unsigned>(Values.size()));
  for (const Reg &V : Values)
    checkMoveOperand("st", V, T);
  emitInst(std::string("st") + spaceName(S) + vecSuffix(static_cast<unsigned>(Values.size())) +
               "." + moveTyName(T) + " " + memRef(Addr, Offset) + ", " + vecList(Values),
           G);
}

Reg PTXFunctionBuilder::atom(StateSpace S, AtomOp Op, Ty T, const Operand &Addr, const Operand &B,
                             std::optional<Operand> C) {
  static const char *const Names[] = {"add", "exch", "cas", "min", "max", "and", "or", "xor"};
  if ((Op == AtomOp::Cas) != C.has_value())
    reportInternalError("PTXBuilder::atom: exactly cas takes a third operand");
  if (S != StateSpace::Global && S != StateSpace::Shared && S != StateSpace::Generic)
    reportInternalError("PTXBuilder::atom: atomics need global, shared or generic memory");
  std::string Opc = std::string("atom") + spaceName(S) + "." + Names[static_cast<unsigned>(Op)];
  if (Op == AtomOp::Add && (T == Ty::F16 || T == Ty::F16x2 || T == Ty::BF16 || T == Ty::BF16x2))
    Opc += ".noftz";
  Ty InstTy = T;
  // exch/cas/and/or/xor exist only in bit-size forms.
  if (Op == AtomOp::Exch || Op == AtomOp::Cas || Op == AtomOp::And || Op == AtomOp::Or ||
      Op == AtomOp::Xor)
    InstTy = bitsTy(T);
  Opc += std::string(".") + tyName(InstTy);
  checkOperand("atom", B, InstTy);
  std::vector<Operand> Ops{Operand::sym(memRef(Addr, 0)), B};
  if (C) {
    checkOperand("atom", *C, InstTy);
    Ops.push_back(*C);
  }
  return inst(Opc, T, Ops);
}

void PTXFunctionBuilder::fence(FenceScope Scope) {
  static const char *const Names[] = {"cta", "gpu", "sys"};
  emitInst(std::string("fence.acq_rel.") + Names[static_cast<unsigned>(Scope)]);
}

void PTXFunctionBuilder::barSync(unsigned Id) { emitInst("bar.sync " + std::to_string(Id)); }

void PTXFunctionBuilder::barSync(unsigned Id, unsigned Threads) {
  if (Id > 15 || Threads == 0 || Threads % 32)
    reportInternalError("PTXBuilder::barSync: barrier " + std::to_string(Id) + " of " +
                        std::to_string(Threads) + " threads");
  emitInst("bar.sync " + std::to_string(Id) + ", " + std::to_string(Threads));
}

Reg PTXFunctionBuilder::shflSync(ShflMode M, const Reg &Val, const Operand &Lane,
                                 const Operand &Clamp, uint32_t MemberMask) {
  static const char *const Names[] = {"bfly", "up", "down", "idx"};
  checkOperand("shflSync", Val, Ty::B32);
  checkOperand("shflSync", Lane, Ty::B32);
  checkOperand("shflSync", Clamp, Ty::B32);
  return inst(std::string("shfl.sync.") + Names[static_cast<unsigned>(M)] + ".b32", Val.type(),
              {Val, Lane, Clamp, Operand::hex(MemberMask)});
}

std::string PTXFunctionBuilder::newLabel(const std::string &Hint) {
  return "$L__" + Hint + std::to_string(NextLabel++);
}

void PTXFunctionBuilder::label(const std::string &L) {
  if (InPrologue)
    reportInternalError("PTXBuilder::label: labels cannot go into the prologue");
  Body.push_back(L + ":");
}

PTXFunctionBuilder::PrologueScope::PrologueScope(PTXFunctionBuilder &B)
    : B(B), Saved(B.InPrologue), SavedGuard(B.ActiveGuard) {
  B.InPrologue = true;
  B.ActiveGuard.reset();
}

PTXFunctionBuilder::PrologueScope::~PrologueScope() {
  B.InPrologue = Saved;
  B.ActiveGuard = SavedGuard;
}

void PTXFunctionBuilder::bra(const std::string &L, bool Uniform) {
  emitInst((Uniform ? "bra.uni " : "bra ") + L);
}

void PTXFunctionBuilder::braIf(const Reg &P, const std::string &L, bool Negated) {
  if (P.type() != Ty::Pred)
    reportInternalError("PTXBuilder::braIf: " + P.name() + " is not a predicate");
  emitInst("bra " + L, Guard{P, Negated});
}

void PTXFunctionBuilder::ret() { emitInst("ret"); }

std::string PTXFunctionBuilder::str() const {
  std::string S = ".visible .entry " + Name + "(";
  for (size_t I = 0; I < Params.size(); ++I) {
    S += I ? ",\n" : "\n";
    S += ParamDecls[I].empty() ? "\t.param ." + moveTyName(Params[I].second) + " " + Params[I].first
                               : "\t.param " + ParamDecls[I];
  }
  S += Params.empty() ? ")\n" : "\n)\n";
  if (Bound != ThreadBound::None && NumThreads) {
    S += Bound == ThreadBound::MaxNTid ? ".maxntid " : ".reqntid ";
    S += std::to_string(NumThreads) + ", 1, 1\n";
  }
  if (MaxRegisters)
    S += ".maxnreg " + std::to_string(MaxRegisters) + "\n";
  S += "{\n";
  for (unsigned C = 0; C < 6; ++C)
    if (Counts[C])
      S += std::string("\t.reg .") + regDeclType(static_cast<RegClass>(C)) + " " +
           regPrefix(static_cast<RegClass>(C)) + "<" + std::to_string(Counts[C]) + ">;\n";
  for (const std::string &D : LocalDecls)
    S += "\t" + D + "\n";
  S += "\n";
  for (const std::string &L : Prologue)
    S += L + "\n";
  for (const std::string &L : Body)
    if (!L.empty())
      S += L + "\n";
  S += "}\n";
  return S;
}

//===----------------------------------------------------------------------===//
// PTXModule
//===----------------------------------------------------------------------===//

PTXFunctionBuilder &PTXModule::addKernel(const std::string &Name) {
  for (const auto &K : Kernels)
    if (K->name() == Name)
      reportInternalError("PTXModule::addKernel: duplicate kernel " + Name);
  Kernels.push_back(std::make_unique<PTXFunctionBuilder>(Name));
  return *Kernels.back();
}

void PTXModule::addExternShared(const std::string &Name, unsigned Align) {
  Decls.push_back(".extern .shared .align " + std::to_string(Align) + " .b8 " + Name + "[];");
}

void PTXModule::addDeclaration(const std::string &Line) {
  if (std::find(Decls.begin(), Decls.end(), Line) == Decls.end())
    Decls.push_back(Line);
}

std::string PTXModule::str() const {
  std::string S = "//\n// Generated by tritonc\n//\n\n";
  S += ".version " + std::to_string(Target.VersionMajor) + "." +
       std::to_string(Target.VersionMinor) + "\n";
  S += std::string(".target ") + archName(Target.A) + "\n";
  S += ".address_size 64\n";
  if (!Decls.empty())
    S += "\n";
  for (const std::string &D : Decls)
    S += D + "\n";
  for (const auto &K : Kernels)
    S += "\n" + K->str();
  return S;
}

} // namespace tritonc::ptx
