//===- PTXBuilder.h - PTX text emission ------------------------*- C++ -*-===//
//
// A thin, typed layer for writing PTX assembly text. The GPU back end lowers
// Triton-IR straight to PTX (ptxas does register allocation), so this layer
// only has to hand out virtual registers, remember how many of each class were
// used (for the `.reg` declarations), and print one instruction per call.
//
// A PTXModule owns kernels; each kernel is written through a
// PTXFunctionBuilder. Every instruction helper emits exactly one line (the
// masked-load idiom emits the `mov`s for its `other` values first) and returns
// the freshly allocated destination register(s). Output is deterministic: the
// same calls always produce the same text.
//
// Misuse (wrong operand sizes, vectors wider than 128 bits, nested predicate
// guards) is a bug in the lowering and raises reportInternalError.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::ptx {

/// PTX instruction/value types. F16x2/BF16x2 are packed pairs in a b32 register.
enum class Ty {
  Pred,
  B16,
  B32,
  B64,
  U16,
  U32,
  U64,
  S16,
  S32,
  S64,
  F16,
  BF16,
  F16x2,
  BF16x2,
  F32,
  F64
};

/// The PTX spelling without the dot ("f32", "pred", "f16x2").
const char *tyName(Ty T);
/// Size in bits (Pred counts as 1).
unsigned tyBits(Ty T);
bool isFloatTy(Ty T);
bool isSignedTy(Ty T);

/// Register classes; each has its own prefix and `.reg` declaration.
enum class RegClass { Pred, B16, B32, B64, F32, F64 };
/// The class a value of type T lives in: %p pred, %h b16 (incl. f16/bf16),
/// %r b32 (incl. f16x2), %rd b64, %f f32, %fd f64.
RegClass regClassOf(Ty T);

/// A virtual register together with the PTX type of the value it holds.
class Reg {
public:
  Reg() = default;
  Reg(std::string Name, Ty T) : Name(std::move(Name)), T(T) {}
  bool valid() const { return !Name.empty(); }
  Ty type() const { return T; }
  const std::string &name() const { return Name; }
  /// The same register viewed as another type of the same class (no code).
  Reg as(Ty NewTy) const;
  bool operator==(const Reg &O) const { return Name == O.Name; }

private:
  std::string Name;
  Ty T = Ty::B32;
};

/// An instruction source: a register, an immediate, or a symbol name.
class Operand {
public:
  /// NOLINTNEXTLINE: implicit so registers can be passed directly.
  Operand(const Reg &R) : Text(R.name()), R(R) {}
  /// Integer immediate, printed in decimal. Rejected by float instructions
  /// (PTX wants 0f/0d literals there): use f32()/f64().
  Operand(int64_t V) : Text(std::to_string(V)), IntImm(true) {}
  Operand(int V) : Operand(static_cast<int64_t>(V)) {}
  Operand(unsigned V) : Operand(static_cast<int64_t>(V)) {}
  /// f32 immediate, printed exactly as 0fXXXXXXXX.
  static Operand f32(float V);
  /// f64 immediate, printed exactly as 0dXXXXXXXXXXXXXXXX.
  static Operand f64(double V);
  /// Raw bit pattern, printed as 0x... (e.g. an f16 constant for mov.b16).
  static Operand hex(uint64_t Bits);
  /// A symbol (shared array, parameter, label) used verbatim.
  static Operand sym(std::string Name);

  const std::string &str() const { return Text; }
  bool isReg() const { return R.has_value(); }
  bool isIntImm() const { return IntImm; }
  const std::optional<Reg> &reg() const { return R; }

private:
  Operand() = default;
  std::string Text;
  std::optional<Reg> R;
  bool IntImm = false;
};

/// Architectures the back end targets.
enum class Arch { SM80, SM90a };

struct PTXTarget {
  Arch A = Arch::SM80;
  /// PTX ISA version; 8.0 is the lowest that knows sm_90a.
  unsigned VersionMajor = 8;
  unsigned VersionMinor = 0;
};

/// "sm_80" / "sm_90a".
const char *archName(Arch A);

/// Special (read-only) registers readable with mov.u32.
enum class SpecialReg {
  TidX,
  TidY,
  TidZ,
  CtaIdX,
  CtaIdY,
  CtaIdZ,
  NCtaIdX,
  NCtaIdY,
  NCtaIdZ,
  LaneId
};

enum class StateSpace { Global, Shared, Local, Param, Generic };

/// Integer/float binary operations. Float add/sub/mul/div are printed with
/// `.rn` so ptxas never contracts them into fma behind our back.
enum class BinOp { Add, Sub, MulLo, MulHi, Div, Rem, Min, Max, Shl, Shr, And, Or, Xor };

/// Float unary math. The Approx forms are the fast hardware approximations.
enum class MathOp {
  Neg,
  Abs,
  Ex2Approx,
  Lg2Approx,
  RcpApprox,
  SqrtApprox,
  RsqrtApprox,
  SinApprox,
  CosApprox,
  SqrtRn,
  RcpRn,
  Not ///< Bitwise/predicate not (not.b32, not.pred).
};

/// setp comparisons; the U-suffixed float forms are true on NaN.
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };

/// cvt rounding modifiers. Default picks what C semantics need: .rn for
/// narrowing float and int->float, .rzi for float->int, none otherwise.
enum class Rounding { Default, None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi };

enum class ShflMode { Bfly, Up, Down, Idx };

enum class AtomOp { Add, Exch, Cas, Min, Max, And, Or, Xor };

/// Memory-ordering scope for fence.
enum class FenceScope { Cta, Gpu, Sys };

/// `@%p` / `@!%p` instruction guard.
struct Guard {
  Reg P;
  bool Negated = false;
};

/// Launch-bound directive flavour for a kernel.
enum class ThreadBound { MaxNTid, ReqNTid, None };

class PTXModule;

/// Writes one kernel (`.visible .entry`).
class PTXFunctionBuilder {
public:
  PTXFunctionBuilder(std::string Name) : Name(std::move(Name)) {}
  PTXFunctionBuilder(const PTXFunctionBuilder &) = delete;
  PTXFunctionBuilder &operator=(const PTXFunctionBuilder &) = delete;

  const std::string &name() const { return Name; }

  // --- Signature and declarations ------------------------------------------

  /// Adds a kernel parameter named p<N>; returns its name.
  std::string addParam(Ty T);
  /// Adds a by-value byte-array parameter p<N> (`.param .align A .b8
  /// p<N>[Bytes]`, as a tensor map is passed); returns its name.
  std::string addByteArrayParam(unsigned Bytes, unsigned Align);
  /// Threads per CTA = NumWarps * 32, printed as `.maxntid` or `.reqntid`.
  void setNumWarps(unsigned NumWarps, ThreadBound Bound = ThreadBound::MaxNTid);
  /// Registers per thread at launch, printed as `.maxnreg` (0: none). A
  /// kernel whose warpgroups rebalance registers with `setmaxnreg` needs one.
  void setMaxRegisters(unsigned Registers) { MaxRegisters = Registers; }
  /// Kernel-scope `.local .align A .b8 Name[Bytes];` (per-thread memory).
  void addLocalArray(const std::string &ArrayName, unsigned Bytes, unsigned Align = 8);

  // --- Registers and raw emission -------------------------------------------

  /// Allocates a fresh register of type T's class.
  Reg newReg(Ty T);
  /// Appends one instruction line verbatim (a trailing ';' is added if
  /// missing); the active guard, if any, is prefixed.
  void emit(const std::string &Line);
  /// Appends a `// Text` line.
  void comment(const std::string &Text);
  /// Appends `{` or `}` (the scope of a call's parameters); no guard.
  void scopeBrace(bool Open);
  /// Emits `Opcode Dst, Srcs...;` with Dst a fresh register of type DstTy.
  Reg inst(const std::string &Opcode, Ty DstTy, const std::vector<Operand> &Srcs);

  // --- Prologue ------------------------------------------------------------

  /// While alive, instructions go to the kernel's prologue (printed before
  /// everything else) instead of the current position: values computed once
  /// per kernel (thread coordinates of a layout) that must dominate every
  /// later use, whenever the lowering first needs them. Nestable; no labels;
  /// an active guard scope is suspended meanwhile.
  class PrologueScope {
  public:
    explicit PrologueScope(PTXFunctionBuilder &B);
    ~PrologueScope();
    PrologueScope(const PrologueScope &) = delete;
    PrologueScope &operator=(const PrologueScope &) = delete;

  private:
    PTXFunctionBuilder &B;
    bool Saved;
    std::optional<Guard> SavedGuard;
  };
  [[nodiscard]] PrologueScope prologue() { return PrologueScope(*this); }

  // --- Predication ----------------------------------------------------------

  /// While alive, every emitted instruction is prefixed with `@%p` / `@!%p`.
  class GuardScope {
  public:
    GuardScope(PTXFunctionBuilder &B, Reg P, bool Negated);
    ~GuardScope();
    GuardScope(const GuardScope &) = delete;
    GuardScope &operator=(const GuardScope &) = delete;

  private:
    PTXFunctionBuilder &B;
  };
  /// `auto G = B.guard(P);` predicates everything until G dies. Not nestable.
  [[nodiscard]] GuardScope guard(Reg P, bool Negated = false) { return {*this, P, Negated}; }

  // --- Moves, parameters, special registers ---------------------------------

  /// `ld.param.<T> %x, [Param];`
  Reg ldParam(Ty T, const std::string &Param);
  /// `mov.<T> %x, Src;`
  Reg mov(Ty T, const Operand &Src);
  /// `mov.<T> Dst, Src;` into an existing register (loop-carried values).
  void movTo(const Reg &Dst, const Operand &Src);
  /// `mov.u32 %r, %tid.x;` etc.
  Reg special(SpecialReg S);
  /// Reinterprets bits: `mov.b<N> %x, Src;` with %x of type T.
  Reg bitcast(Ty T, const Reg &Src);
  /// `mov.b32 %r, {Lo, Hi};` packs two 16-bit registers.
  Reg pack2x16(const Reg &Lo, const Reg &Hi, Ty PackedTy = Ty::F16x2);
  /// `cvt.rn.f16x2.f32 %r, Hi, Lo;` (bf16x2 for PackedTy BF16x2): rounds two
  /// f32 values and packs them, Lo in the low half, into one b32 register.
  Reg cvtPack2x16(const Reg &Lo, const Reg &Hi, Ty PackedTy);
  /// `mov.b32 {%h, %h}, Src;` splits a 32-bit register; returns {Lo, Hi}.
  std::pair<Reg, Reg> unpack2x16(const Reg &Src, Ty HalfTy = Ty::F16);
  /// 32-bit address of a shared array: `mov.u32 %r, Name;`.
  Reg sharedAddress(const std::string &ArrayName);

  // --- Arithmetic -----------------------------------------------------------

  Reg binary(BinOp Op, Ty T, const Operand &A, const Operand &B);
  Reg add(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Add, T, A, B); }
  Reg sub(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Sub, T, A, B); }
  /// Integer mul.lo / float mul.rn.
  Reg mul(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::MulLo, T, A, B); }
  Reg div(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Div, T, A, B); }
  Reg rem(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Rem, T, A, B); }
  Reg min(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Min, T, A, B); }
  Reg max(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Max, T, A, B); }
  /// Shift amount is always u32. Shr is arithmetic for signed T.
  Reg shl(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Shl, T, A, B); }
  Reg shr(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Shr, T, A, B); }
  Reg bitAnd(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::And, T, A, B); }
  Reg bitOr(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Or, T, A, B); }
  Reg bitXor(Ty T, const Operand &A, const Operand &B) { return binary(BinOp::Xor, T, A, B); }
  /// `mad.lo.<T>` (integers) A*B+C.
  Reg madLo(Ty T, const Operand &A, const Operand &B, const Operand &C);
  /// `mul.wide.<T>`: 32x32->64 (or 16x16->32); the result has twice T's width.
  Reg mulWide(Ty T, const Operand &A, const Operand &B);
  /// `fma.rn.<T>` A*B+C.
  Reg fma(Ty T, const Operand &A, const Operand &B, const Operand &C);
  /// Float unary math and `not`.
  Reg unary(MathOp Op, Ty T, const Operand &A);

  // --- Conversions and comparisons --------------------------------------------

  /// `cvt[.rnd].<Dst>.<Src>`.
  Reg cvt(Ty Dst, Ty Src, const Operand &A, Rounding R = Rounding::Default);
  /// `cvta.to.global.u64` (generic -> global address).
  Reg cvtaToGlobal(const Reg &Generic);
  /// `setp.<cmp>.<T> %p, A, B;`
  Reg setp(Cmp C, Ty T, const Operand &A, const Operand &B);
  /// `selp.<T> %x, A, B, P;` (A when P).
  Reg selp(Ty T, const Operand &A, const Operand &B, const Reg &P);
  /// `and.pred` / `or.pred` on predicates.
  Reg predAnd(const Reg &A, const Reg &B) { return binary(BinOp::And, Ty::Pred, A, B); }
  Reg predOr(const Reg &A, const Reg &B) { return binary(BinOp::Or, Ty::Pred, A, B); }
  Reg predNot(const Reg &A) { return unary(MathOp::Not, Ty::Pred, A); }

  // --- Memory -----------------------------------------------------------------

  /// `createpolicy.fractional.L2::evict_first.b64 %rd, 1.0;` (or evict_last):
  /// a 64-bit L2 cache policy for `.L2::cache_hint` accesses (sm_80+).
  Reg createPolicy(bool EvictFirst);
  /// The `.L2::cache_hint` qualifier and the trailing policy operand of a
  /// global access with Policy (empty without one), for instructions
  /// written as text (bulk tensor copies and stores).
  static std::pair<std::string, std::string> cacheHintFor(const std::optional<Reg> &Policy);

  /// `ld.<space>[.vN].<T> {..}, [Addr+Offset];` with N = Width (1, 2 or 4,
  /// at most 128 bits). An explicit G wins over the active guard scope.
  std::vector<Reg> ld(StateSpace S, Ty T, unsigned Width, const Operand &Addr, int64_t Offset = 0,
                      std::optional<Guard> G = std::nullopt);
  /// Masked load: lane i first gets Other[i] (one `mov` each, or one value for
  /// all lanes), then `@Mask ld...` overwrites them where Mask is true.
  std::vector<Reg> ldMasked(StateSpace S, Ty T, unsigned Width, const Operand &Addr, int64_t Offset,
                            const Reg &Mask, const std::vector<Operand> &Other);
  /// `st.<space>[.vN].<T> [Addr+Offset], {..};`
  void st(StateSpace S, Ty T, const Operand &Addr, int64_t Offset, const std::vector<Reg> &Values,
          std::optional<Guard> G = std::nullopt);

  std::vector<Reg> ldGlobal(Ty T, unsigned Width, const Operand &Addr, int64_t Offset = 0,
                            std::optional<Guard> G = std::nullopt) {
    return ld(StateSpace::Global, T, Width, Addr, Offset, G);
  }
  void stGlobal(Ty T, const Operand &Addr, int64_t Offset, const std::vector<Reg> &Values,
                std::optional<Guard> G = std::nullopt) {
    st(StateSpace::Global, T, Addr, Offset, Values, G);
  }
  std::vector<Reg> ldShared(Ty T, unsigned Width, const Operand &Addr, int64_t Offset = 0,
                            std::optional<Guard> G = std::nullopt) {
    return ld(StateSpace::Shared, T, Width, Addr, Offset, G);
  }
  void stShared(Ty T, const Operand &Addr, int64_t Offset, const std::vector<Reg> &Values,
                std::optional<Guard> G = std::nullopt) {
    st(StateSpace::Shared, T, Addr, Offset, Values, G);
  }

  /// `atom.<space>.<op>.<T> %x, [Addr], B[, C];` (C only for Cas). Add on
  /// F16x2 prints `.noftz`. Returns the old value.
  Reg atom(StateSpace S, AtomOp Op, Ty T, const Operand &Addr, const Operand &B,
           std::optional<Operand> C = std::nullopt);
  /// `fence.acq_rel.<scope>;`
  void fence(FenceScope Scope);
  /// `bar.sync Id;`
  void barSync(unsigned Id = 0);
  /// `bar.sync Id, Threads;` (a named barrier of Threads threads, a
  /// multiple of 32).
  void barSync(unsigned Id, unsigned Threads);
  /// `shfl.sync.<mode>.b32 %x, Val, Lane, Clamp, MemberMask;` Val is any
  /// 32-bit register; the result has its type.
  Reg shflSync(ShflMode M, const Reg &Val, const Operand &Lane, const Operand &Clamp,
               uint32_t MemberMask = 0xffffffffu);

  // --- Control flow -----------------------------------------------------------

  /// A fresh label name `$L__<Hint><N>`; place it with label().
  std::string newLabel(const std::string &Hint = "BB");
  void label(const std::string &L);
  /// `bra L;` (honours the active guard) / `bra.uni L;`.
  void bra(const std::string &L, bool Uniform = false);
  /// `@P bra L;` / `@!P bra L;`
  void braIf(const Reg &P, const std::string &L, bool Negated = false);
  void ret();

  // --- Output -----------------------------------------------------------------

  /// Number of registers allocated in class C so far.
  unsigned numRegs(RegClass C) const { return Counts[static_cast<unsigned>(C)]; }
  /// The complete `.visible .entry` text, `.reg` declarations first.
  std::string str() const;

private:
  void emitInst(const std::string &Text, const std::optional<Guard> &Explicit = std::nullopt);
  std::string memRef(const Operand &Addr, int64_t Offset) const;

  std::string Name;
  std::vector<std::pair<std::string, Ty>> Params;
  /// Per parameter: the declaration of a byte-array parameter, else empty.
  std::vector<std::string> ParamDecls;
  unsigned NumThreads = 0, MaxRegisters = 0;
  ThreadBound Bound = ThreadBound::None;
  std::vector<std::string> LocalDecls;
  std::vector<std::string> &activeLines() { return InPrologue ? Prologue : Body; }

  std::vector<std::string> Prologue;
  std::vector<std::string> Body;
  bool InPrologue = false;
  unsigned Counts[6] = {0, 0, 0, 0, 0, 0};
  unsigned NextLabel = 0;
  std::optional<Guard> ActiveGuard;
};

/// A PTX module: header, module-scope declarations, kernels.
class PTXModule {
public:
  explicit PTXModule(PTXTarget T = {}) : Target(T) {}
  const PTXTarget &target() const { return Target; }

  /// Adds a kernel; the reference stays valid for the module's lifetime.
  PTXFunctionBuilder &addKernel(const std::string &Name);
  /// `.extern .shared .align A .b8 Name[];` (dynamic shared memory).
  void addExternShared(const std::string &Name, unsigned Align = 16);
  /// A module-scope declaration line (an `.extern .func`, a `.global`
  /// string); a line already present is not repeated.
  void addDeclaration(const std::string &Line);
  /// The whole module text.
  std::string str() const;

private:
  PTXTarget Target;
  std::vector<std::string> Decls;
  std::vector<std::unique_ptr<PTXFunctionBuilder>> Kernels;
};

} // namespace tritonc::ptx
