//===- Interpreter.cpp - Executes pre-resolved Triton-IR ------------------===//
//
// Runs the flat form built by Compile.cpp. Each program instance runs to
// completion before the next starts. Element loops are written per opcode so
// that the per-element work is a few inlined operations; scalars used by
// tile instructions are read with stride 0.
//
//===----------------------------------------------------------------------===//
#include "tritonc/interp/Interpreter.h"

#include "Compiled.h"
#include "GpuState.h"
#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <new>

namespace tritonc::interp {

using namespace detail;
using ir::Opcode;

namespace {

std::string hex(uint64_t V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "0x%" PRIx64, V);
  return Buf;
}

/// Correctly rounded integer -> float kind conversion (no double rounding).
double intToFloat(int64_t V, bool IsSigned, ElemKind K) {
  uint64_t Mag = IsSigned && V < 0 ? 0 - static_cast<uint64_t>(V) : static_cast<uint64_t>(V);
  bool Neg = IsSigned && V < 0;
  if (K == ElemKind::F32)
    return IsSigned ? static_cast<float>(V) : static_cast<float>(Mag);
  if (K == ElemKind::F64)
    return IsSigned ? static_cast<double>(V) : static_cast<double>(Mag);
  // f16/bf16: round to odd at 53 bits first, then to the target.
  double D;
  if (Mag < (uint64_t(1) << 53)) {
    D = static_cast<double>(Mag);
  } else {
    int Shift = 64 - std::countl_zero(Mag) - 53;
    uint64_t Hi = Mag >> Shift;
    if (Mag & ((uint64_t(1) << Shift) - 1))
      Hi |= 1;
    D = std::ldexp(static_cast<double>(Hi), Shift);
  }
  return roundTo(Neg ? -D : D, K);
}

uint64_t fpToInt(double X, bool IsSigned, unsigned Bits) {
  if (std::isnan(X))
    return 0;
  double T = std::trunc(X);
  if (IsSigned) {
    double Lim = std::ldexp(1.0, static_cast<int>(Bits) - 1);
    int64_t Max = static_cast<int64_t>((uint64_t(1) << (Bits - 1)) - 1);
    int64_t Min = -Max - 1;
    if (T >= Lim)
      return normBits(static_cast<uint64_t>(Max), Bits);
    if (T <= -Lim)
      return normBits(static_cast<uint64_t>(Min), Bits);
    return normBits(static_cast<uint64_t>(static_cast<int64_t>(T)), Bits);
  }
  if (T <= 0)
    return 0;
  if (T >= std::ldexp(1.0, static_cast<int>(Bits)))
    return normBits(~uint64_t(0), Bits);
  return normBits(static_cast<uint64_t>(T), Bits);
}

class Machine : public GlobalMemory {
public:
  Machine(const CompiledFunction &CF, std::vector<HostBuffer> &Buffers, const InterpOptions &Opts)
      : CF(CF), Buffers(Buffers), Opts(Opts), Slots(CF.NumSlots, 0),
        Gpu(CF, Slots, *this, Opts.Sources) {
    std::copy(CF.Init.begin(), CF.Init.end(), Slots.begin());
  }

  std::vector<uint64_t> &slots() { return Slots; }
  void setGrid(const LaunchGrid &G) {
    NumPrograms[0] = G.X;
    NumPrograms[1] = G.Y;
    NumPrograms[2] = G.Z;
  }
  /// Runs one program instance; throws RunError.
  void runProgram(uint32_t X, uint32_t Y, uint32_t Z);

private:
  [[noreturn]] void fail(const CInst &I, const std::string &Msg) { throw RunError{I.Src, Msg}; }
  /// Executes I; returns -1 to continue, -2 on ret, else an edge index.
  int64_t exec(const CInst &I);

  // Warp specialization: the partitions of a warp_specialize run as
  // coroutines on this thread, one at a time in a deterministic order. The
  // running partition goes on until it blocks (an mbarrier_wait whose phase
  // has not completed) or joins, or until an operation of it completes a
  // phase that a blocked partition waits for: then the woken partition
  // runs at once (the earliest in partition order after the running one),
  // so that a slot released too early is overwritten while still in use.
  struct Strand {
    uint32_t Block = 0, Idx = 0; ///< Where the partition resumes.
    bool Blocked = false;        ///< At an mbarrier_wait not yet ready.
    bool Joined = false;         ///< At its warp_join.
  };
  /// warp_specialize I: starts its partitions and runs the first.
  void fork(const CInst &I, uint32_t &B, uint32_t &Idx);
  /// warp_join I of the running partition: another partition runs, or,
  /// when every partition has joined, the CTA goes on at the join block.
  void join(const CInst &I, uint32_t &B, uint32_t &Idx);
  /// The running partition stops at (B, Idx), blocked or not; the next
  /// runnable one in partition order starts. Fails with a deadlock at I
  /// when none can run.
  void switchPartition(const CInst &I, uint32_t &B, uint32_t &Idx, bool Blocked);
  /// The first partition after the running one (in order, wrapping) that
  /// can run: not joined, and not blocked unless its wait is now ready
  /// (WokenOnly: only those). Strands.size() if none.
  size_t nextRunnable(bool WokenOnly);
  std::vector<Strand> Strands; ///< Empty outside a warp_specialize.
  size_t Running = 0;
  void takeEdge(const CEdge &E);
  void execBinary(const CInst &I);
  void execUnary(const CInst &I);
  void execCmp(const CInst &I);
  void execCast(const CInst &I);
  void execDot(const CInst &I);
  void execReduce(const CInst &I);
  void execMemory(const CInst &I);
  void execAtomic(const CInst &I);
  /// The `__multipleof(N)` promise of a local: every element of I's result
  /// is a multiple of N.
  void checkMultipleOf(const CInst &I);
  /// `print`: one line per lane, prefixed with the program id (and the lane's
  /// index for tiles).
  void execPrint(const CInst &I);
  /// "(i, j)": the index of lane L of I's tile operands.
  std::string laneText(const CInst &I, uint32_t L) const;
  /// Checks an access of Size bytes at Addr and returns the host pointer.
  uint8_t *access(const CInst &I, uint64_t Addr, unsigned Size, const char *What) override;
  /// Index of a buffer holding [Addr, Addr+Len), or Buffers.size().
  size_t findBuffer(uint64_t Addr, uint64_t Len);
  /// True when every active lane of memory instruction I is aligned and all
  /// of them lie in one buffer.
  bool allInside(const CInst &I, const uint64_t *Mask, uint32_t MaskStride, unsigned Size);

  template <typename Fn> void map1(const CInst &I, Fn F) {
    uint64_t *R = &Slots[I.Res];
    const uint64_t *A = &Slots[I.Ops[0].Off];
    uint32_t SA = I.Ops[0].Stride;
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = F(A[L * SA]);
  }
  template <typename Fn> void map2(const CInst &I, Fn F) {
    uint64_t *R = &Slots[I.Res];
    const uint64_t *A = &Slots[I.Ops[0].Off], *B = &Slots[I.Ops[1].Off];
    uint32_t SA = I.Ops[0].Stride, SB = I.Ops[1].Stride;
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = F(A[L * SA], B[L * SB]);
  }
  template <typename Fn> void mapF1(const CInst &I, Fn F) {
    ElemKind K = I.RK;
    map1(I, [&](uint64_t A) { return doubleToSlot(roundTo(F(slotToDouble(A)), K)); });
  }
  template <typename Fn> void mapF2(const CInst &I, Fn F) {
    ElemKind K = I.RK;
    map2(I, [&](uint64_t A, uint64_t B) {
      return doubleToSlot(roundTo(F(slotToDouble(A), slotToDouble(B)), K));
    });
  }
  template <typename Fn> void mapI2(const CInst &I, Fn F) {
    unsigned Bits = intBits(I.RK);
    map2(I, [&](uint64_t A, uint64_t B) { return normBits(F(A, B, Bits), Bits); });
  }

  const CompiledFunction &CF;
  std::vector<HostBuffer> &Buffers;
  const InterpOptions &Opts;
  std::vector<uint64_t> Slots;
  GpuState Gpu; ///< Shared memory and asynchronous work of the current program.
  uint32_t Pid[3] = {0, 0, 0};
  uint32_t NumPrograms[3] = {1, 1, 1};
  size_t LastBuffer = 0;
  DotScratch Scratch;
};

namespace {
/// Steps an instruction costs: one per element it computes (a dot: one per
/// multiply-add), so that the limit bounds time whatever the tile sizes.
uint64_t stepsOf(const CInst &I) {
  if (I.Op == Opcode::Dot || I.Op == Opcode::Reduce) {
    uint64_t W = uint64_t(I.D0) * I.D1; // at most 2^64 - 2^33 + 1: no overflow
    if (I.D2 != 0 && W > std::numeric_limits<uint64_t>::max() / I.D2)
      return std::numeric_limits<uint64_t>::max();
    return std::max<uint64_t>(W * I.D2, 1);
  }
  return std::max<uint64_t>(I.N, 1);
}
} // namespace

void Machine::runProgram(uint32_t X, uint32_t Y, uint32_t Z) {
  Pid[0] = X;
  Pid[1] = Y;
  Pid[2] = Z;
  // Result slots are not cleared between programs: they start at zero for
  // the launch, and a program can only see an earlier program's values
  // through uses that violate dominance (rejected by the verifier); even then
  // the run stays deterministic because programs run in a fixed order.
  uint64_t Steps = 0;
  uint32_t B = 0, Idx = CF.Blocks[0].Begin;
  Gpu.startProgram();
  Strands.clear();
  for (;;) {
    const CBlock &Blk = CF.Blocks[B];
    if (Idx == Blk.End)
      throw RunError{Blk.Begin < Blk.End ? CF.Insts[Blk.End - 1].Src : nullptr,
                     "control reaches the end of a block without a terminator"};
    const CInst &I = CF.Insts[Idx];
    if (!Strands.empty() && I.Op == Opcode::MbarrierWait && !Gpu.waitReady(I)) {
      switchPartition(I, B, Idx, /*Blocked=*/true);
      continue;
    }
    uint64_t Cost = stepsOf(I);
    Steps = Cost > std::numeric_limits<uint64_t>::max() - Steps
                ? std::numeric_limits<uint64_t>::max()
                : Steps + Cost;
    if (Opts.MaxStepsPerProgram && Steps > Opts.MaxStepsPerProgram)
      fail(I, "step limit of " + std::to_string(Opts.MaxStepsPerProgram) +
                  " exceeded (a step is one element operation: an instruction on an "
                  "N-element tile takes N steps, a dot M*N*K)");
    if (Gpu.hasPendingValues())
      Gpu.checkOperandsReady(I);
    if (I.Op == Opcode::WarpSpecialize) {
      fork(I, B, Idx);
      continue;
    }
    if (I.Op == Opcode::WarpJoin) {
      join(I, B, Idx);
      continue;
    }
    uint64_t Phases = Gpu.completedPhases();
    int64_t Next = exec(I);
    if (I.MultipleOf > 1)
      checkMultipleOf(I);
    if (Next == -1) {
      ++Idx;
      if (!Strands.empty() && Gpu.completedPhases() != Phases &&
          nextRunnable(true) < Strands.size())
        switchPartition(I, B, Idx, /*Blocked=*/false);
      continue;
    }
    if (Next == -2) {
      Gpu.endProgram(I);
      return;
    }
    const CEdge &E = CF.Edges[static_cast<size_t>(Next)];
    takeEdge(E);
    B = E.Block;
    Idx = CF.Blocks[B].Begin;
  }
}

void Machine::fork(const CInst &I, uint32_t &B, uint32_t &Idx) {
  if (!Strands.empty())
    fail(I, "warp_specialize inside a partition (nesting is not supported)");
  Gpu.forkPartitions(I.Src->Partitions);
  Strands.assign(I.D0, Strand{});
  for (uint32_t K = 0; K < I.D0; ++K) {
    const CEdge &E = CF.Edges[I.Edge[0] + K];
    takeEdge(E);
    Strands[K].Block = E.Block;
    Strands[K].Idx = CF.Blocks[E.Block].Begin;
  }
  Running = 0;
  Gpu.enterPartition(0);
  B = Strands[0].Block;
  Idx = Strands[0].Idx;
}

void Machine::join(const CInst &I, uint32_t &B, uint32_t &Idx) {
  if (Strands.empty())
    fail(I, "warp_join outside the partitions of a warp_specialize");
  Gpu.leavePartition(I);
  Strands[Running].Joined = true;
  if (std::all_of(Strands.begin(), Strands.end(), [](const Strand &S) { return S.Joined; })) {
    Strands.clear();
    Gpu.joinPartitions();
    const CEdge &E = CF.Edges[I.Edge[0]];
    takeEdge(E);
    B = E.Block;
    Idx = CF.Blocks[B].Begin;
    return;
  }
  switchPartition(I, B, Idx, /*Blocked=*/false);
}

size_t Machine::nextRunnable(bool WokenOnly) {
  for (size_t Step = 1; Step <= Strands.size(); ++Step) {
    size_t K = (Running + Step) % Strands.size();
    const Strand &S = Strands[K];
    if (K == Running || S.Joined || (WokenOnly && !S.Blocked))
      continue;
    if (!S.Blocked || Gpu.waitReady(CF.Insts[S.Idx]))
      return K;
  }
  return Strands.size();
}

void Machine::switchPartition(const CInst &I, uint32_t &B, uint32_t &Idx, bool Blocked) {
  Strands[Running].Block = B;
  Strands[Running].Idx = Idx;
  Strands[Running].Blocked = Blocked;
  size_t Next = nextRunnable(false);
  if (Next == Strands.size()) {
    std::string Msg = "deadlock: every partition of the warp_specialize waits";
    for (size_t K = 0; K < Strands.size(); ++K) {
      const Strand &S = Strands[K];
      const CInst &At = CF.Insts[S.Idx];
      Msg += "; partition " + std::to_string(K) +
             (S.Joined
                  ? " has joined"
                  : " waits at " + describe(At.Src, Opts.Sources) + " (" + Gpu.waitState(At) + ")");
    }
    fail(I, Msg);
  }
  Running = Next;
  Strands[Next].Blocked = false;
  Gpu.enterPartition(Next);
  B = Strands[Next].Block;
  Idx = Strands[Next].Idx;
}

std::string Machine::laneText(const CInst &I, uint32_t L) const {
  ir::Shape S;
  for (const ir::Value *V : I.Src->operands())
    if (V->getType()->isTile())
      S = V->getType()->getShape();
  std::vector<int64_t> Index(S.size());
  for (size_t D = S.size(); D-- > 0;) {
    Index[D] = L % S[D];
    L = static_cast<uint32_t>(L / S[D]);
  }
  std::string T = "(";
  for (size_t D = 0; D < Index.size(); ++D)
    T += (D ? ", " : "") + std::to_string(Index[D]);
  return T + ")";
}

void Machine::execPrint(const CInst &I) {
  const std::vector<uint32_t> &Map = CF.Maps[I.D0];
  std::string Format = I.Src->Text;
  if (!Format.empty() && Format.back() == '\n')
    Format.pop_back();
  std::ostream &Out = Opts.PrintOut ? *Opts.PrintOut : std::cout;
  for (uint32_t L = 0; L < I.N; ++L) {
    std::string Line = "pid (" + std::to_string(Pid[0]) + ", " + std::to_string(Pid[1]) + ", " +
                       std::to_string(Pid[2]) + ")";
    bool AnyTile = std::any_of(I.Src->operands().begin(), I.Src->operands().end(),
                               [](const ir::Value *V) { return V->getType()->isTile(); });
    if (AnyTile)
      Line += " idx " + laneText(I, L);
    Line += ": ";
    // Each conversion of the (canonical) format takes the next operand.
    size_t Next = 0;
    for (size_t P = 0; P < Format.size(); ++P) {
      if (Format[P] != '%') {
        Line += Format[P];
        continue;
      }
      if (P + 1 < Format.size() && Format[P + 1] == '%') {
        Line += '%';
        ++P;
        continue;
      }
      size_t E = Format.find_first_of("diuxXcfeEgGp", P);
      std::string Conv = Format.substr(P, E + 1 - P);
      P = E;
      const ir::Type *T =
          I.Src->getOperand(static_cast<unsigned>(Next))->getType()->getScalarType();
      uint64_t Raw = Slots[Map[2 * Next] + L * Map[2 * Next + 1]];
      ++Next;
      char Buf[128];
      if (T->getKind() == ir::TypeKind::Float)
        std::snprintf(Buf, sizeof(Buf), Conv.c_str(), slotToDouble(Raw));
      else if (T->getKind() == ir::TypeKind::Pointer)
        std::snprintf(Buf, sizeof(Buf), Conv.c_str(), reinterpret_cast<void *>(Raw));
      else if (T->getIntBits() == 64)
        std::snprintf(Buf, sizeof(Buf), Conv.c_str(), static_cast<long long>(Raw));
      else
        std::snprintf(Buf, sizeof(Buf), Conv.c_str(), static_cast<int>(signedOf(Raw, 32)));
      Line += Buf;
    }
    Out << Line << '\n';
  }
}

void Machine::checkMultipleOf(const CInst &I) {
  if (isFloatKind(I.RK) || I.RK == ElemKind::Ptr)
    return;
  for (uint32_t K = 0; K < I.N; ++K) {
    int64_t V = signedOf(Slots[I.Res + K], intBits(I.RK));
    if (V % I.MultipleOf != 0)
      fail(I, "value " + std::to_string(V) +
                  (I.N > 1 ? " (element " + std::to_string(K) + ")" : "") +
                  " is not a multiple of " + std::to_string(I.MultipleOf) +
                  ", which its variable's __multipleof promises");
  }
}

void Machine::takeEdge(const CEdge &E) {
  if (E.MissingPhi)
    throw RunError{E.MissingPhi, "phi has no incoming value for the block branched from"};
  if (Gpu.hasPendingValues()) {
    std::vector<std::pair<uint32_t, uint32_t>> DstSrc;
    for (uint32_t C = E.CopyBegin; C < E.CopyEnd; ++C)
      DstSrc.push_back({CF.Copies[C].Dst, CF.Copies[C].Src});
    Gpu.copyPendingMarks(DstSrc);
  }
  // Phis read their inputs before any of them is written.
  uint64_t *Temp = Slots.data() + CF.PhiTemp;
  uint64_t *T = Temp;
  for (uint32_t C = E.CopyBegin; C < E.CopyEnd; ++C) {
    const PhiCopy &P = CF.Copies[C];
    std::memcpy(T, &Slots[P.Src], P.Count * sizeof(uint64_t));
    T += P.Count;
  }
  T = Temp;
  for (uint32_t C = E.CopyBegin; C < E.CopyEnd; ++C) {
    const PhiCopy &P = CF.Copies[C];
    std::memcpy(&Slots[P.Dst], T, P.Count * sizeof(uint64_t));
    T += P.Count;
  }
}

int64_t Machine::exec(const CInst &I) {
  switch (opcodeCategory(I.Op)) {
  case ir::OpCategory::Binary:
    execBinary(I);
    return -1;
  case ir::OpCategory::Unary:
    execUnary(I);
    return -1;
  case ir::OpCategory::Ternary: {
    uint64_t *R = &Slots[I.Res];
    const uint64_t *A = &Slots[I.Ops[0].Off], *B = &Slots[I.Ops[1].Off], *C = &Slots[I.Ops[2].Off];
    uint32_t SA = I.Ops[0].Stride, SB = I.Ops[1].Stride, SC = I.Ops[2].Stride;
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = doubleToSlot(fmaInKind(slotToDouble(A[L * SA]), slotToDouble(B[L * SB]),
                                    slotToDouble(C[L * SC]), I.RK));
    return -1;
  }
  case ir::OpCategory::Cmp:
    execCmp(I);
    return -1;
  case ir::OpCategory::Cast:
    execCast(I);
    return -1;
  case ir::OpCategory::Memory:
    if (isDescriptorAccess(I.Op))
      Gpu.execDescriptorAccess(I);
    else
      execMemory(I);
    return -1;
  case ir::OpCategory::Atomic:
    execAtomic(I);
    return -1;
  case ir::OpCategory::Gpu:
    Gpu.exec(I);
    return -1;
  default:
    break;
  }
  uint64_t *R = &Slots[I.Res];
  switch (I.Op) {
  case Opcode::Select: {
    const uint64_t *C = &Slots[I.Ops[0].Off], *A = &Slots[I.Ops[1].Off], *B = &Slots[I.Ops[2].Off];
    uint32_t SC = I.Ops[0].Stride, SA = I.Ops[1].Stride, SB = I.Ops[2].Stride;
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = (C[L * SC] & 1) ? A[L * SA] : B[L * SB];
    return -1;
  }
  case Opcode::GEP: {
    unsigned OffBits = intBits(I.OK);
    uint64_t Size = static_cast<uint64_t>(I.Imm);
    map2(I, [&](uint64_t P, uint64_t Off) {
      return P + static_cast<uint64_t>(signedOf(Off, OffBits)) * Size;
    });
    return -1;
  }
  case Opcode::Print:
    execPrint(I);
    return -1;
  case Opcode::Assert: {
    const std::vector<uint32_t> &Map = CF.Maps[I.D0];
    for (uint32_t L = 0; L < I.N; ++L)
      if (!(Slots[Map[0] + L * Map[1]] & 1))
        fail(I, "assertion failed: " + I.Src->Text +
                    (I.N > 1 ? " (lane " + laneText(I, L) + ")" : std::string()));
    return -1;
  }
  case Opcode::GetProgramId:
  case Opcode::GetNumPrograms: {
    uint32_t V = (I.Op == Opcode::GetProgramId ? Pid : NumPrograms)[I.Imm];
    std::fill(R, R + I.N, normBits(V, intBits(I.RK)));
    return -1;
  }
  case Opcode::MakeRange: {
    unsigned Bits = intBits(I.RK);
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = normBits(static_cast<uint64_t>(I.Imm + L), Bits);
    return -1;
  }
  case Opcode::Splat:
    std::fill(R, R + I.N, Slots[I.Ops[0].Off]);
    return -1;
  case Opcode::Reshape:
    std::memcpy(R, &Slots[I.Ops[0].Off], I.N * sizeof(uint64_t));
    return -1;
  case Opcode::Broadcast:
  case Opcode::Trans: {
    const uint64_t *A = &Slots[I.Ops[0].Off];
    const uint32_t *Map = CF.Maps[I.D0].data();
    for (uint32_t L = 0; L < I.N; ++L)
      R[L] = A[Map[L]];
    return -1;
  }
  case Opcode::Dot:
    execDot(I);
    return -1;
  case Opcode::Reduce:
    execReduce(I);
    return -1;
  case Opcode::Br:
    return I.Edge[0];
  case Opcode::CondBr:
    return I.Edge[(Slots[I.Ops[0].Off] & 1) ? 0 : 1];
  case Opcode::Ret:
    if (!Strands.empty())
      fail(I, "ret inside a partition of a warp_specialize");
    return -2;
  default:
    fail(I, "opcode not supported by the interpreter");
  }
}

void Machine::execBinary(const CInst &I) {
  switch (I.Op) {
  case Opcode::Add:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A + B; });
  case Opcode::Sub:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A - B; });
  case Opcode::Mul:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A * B; });
  case Opcode::SDiv:
  case Opcode::SRem: {
    bool Rem = I.Op == Opcode::SRem;
    return mapI2(I, [&](uint64_t A, uint64_t B, unsigned Bits) -> uint64_t {
      int64_t SA = signedOf(A, Bits), SB = signedOf(B, Bits);
      if (SB == 0)
        fail(I, Rem ? "remainder by zero" : "division by zero");
      if (SB == -1) // avoids the INT_MIN / -1 trap; the quotient wraps
        return Rem ? 0 : 0 - static_cast<uint64_t>(SA);
      return static_cast<uint64_t>(Rem ? SA % SB : SA / SB);
    });
  }
  case Opcode::UDiv:
  case Opcode::URem: {
    bool Rem = I.Op == Opcode::URem;
    return mapI2(I, [&](uint64_t A, uint64_t B, unsigned Bits) -> uint64_t {
      uint64_t UA = unsignedOf(A, Bits), UB = unsignedOf(B, Bits);
      if (UB == 0)
        fail(I, Rem ? "remainder by zero" : "division by zero");
      return Rem ? UA % UB : UA / UB;
    });
  }
  case Opcode::Shl:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) -> uint64_t {
      uint64_t Amt = unsignedOf(B, Bits);
      return Amt >= Bits ? 0 : A << Amt;
    });
  case Opcode::LShr:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) -> uint64_t {
      uint64_t Amt = unsignedOf(B, Bits);
      return Amt >= Bits ? 0 : unsignedOf(A, Bits) >> Amt;
    });
  case Opcode::AShr:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) -> uint64_t {
      uint64_t Amt = unsignedOf(B, Bits);
      int64_t SA = signedOf(A, Bits);
      return static_cast<uint64_t>(Amt >= Bits ? (SA < 0 ? -1 : 0) : SA >> Amt);
    });
  case Opcode::And:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A & B; });
  case Opcode::Or:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A | B; });
  case Opcode::Xor:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned) { return A ^ B; });
  case Opcode::SMin:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) {
      return signedOf(A, Bits) <= signedOf(B, Bits) ? A : B;
    });
  case Opcode::SMax:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) {
      return signedOf(A, Bits) >= signedOf(B, Bits) ? A : B;
    });
  case Opcode::UMin:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) {
      return unsignedOf(A, Bits) <= unsignedOf(B, Bits) ? A : B;
    });
  case Opcode::UMax:
    return mapI2(I, [](uint64_t A, uint64_t B, unsigned Bits) {
      return unsignedOf(A, Bits) >= unsignedOf(B, Bits) ? A : B;
    });
  case Opcode::FAdd:
    return mapF2(I, [](double A, double B) { return A + B; });
  case Opcode::FSub:
    return mapF2(I, [](double A, double B) { return A - B; });
  case Opcode::FMul:
    return mapF2(I, [](double A, double B) { return A * B; });
  case Opcode::FDiv:
    return mapF2(I, [](double A, double B) { return A / B; });
  case Opcode::FRem:
    return mapF2(I, [](double A, double B) { return std::fmod(A, B); });
  case Opcode::FMin:
    return mapF2(I, [](double A, double B) { return std::fmin(A, B); });
  case Opcode::FMax:
    return mapF2(I, [](double A, double B) { return std::fmax(A, B); });
  default:
    fail(I, "unexpected binary opcode");
  }
}

void Machine::execUnary(const CInst &I) {
  switch (I.Op) {
  case Opcode::FNeg:
    return mapF1(I, [](double A) { return -A; });
  case Opcode::Exp:
    return mapF1(I, [](double A) { return std::exp(A); });
  case Opcode::Log:
    return mapF1(I, [](double A) { return std::log(A); });
  case Opcode::Sqrt:
    return mapF1(I, [](double A) { return std::sqrt(A); });
  case Opcode::Rsqrt:
    return mapF1(I, [](double A) { return 1.0 / std::sqrt(A); });
  case Opcode::Sin:
    return mapF1(I, [](double A) { return std::sin(A); });
  case Opcode::Cos:
    return mapF1(I, [](double A) { return std::cos(A); });
  case Opcode::Tanh:
    return mapF1(I, [](double A) { return std::tanh(A); });
  case Opcode::FAbs:
    return mapF1(I, [](double A) { return std::fabs(A); });
  case Opcode::Floor:
    return mapF1(I, [](double A) { return std::floor(A); });
  case Opcode::Ceil:
    return mapF1(I, [](double A) { return std::ceil(A); });
  case Opcode::IAbs: {
    unsigned Bits = intBits(I.RK);
    return map1(I, [&](uint64_t A) {
      int64_t S = signedOf(A, Bits);
      return normBits(S < 0 ? 0 - static_cast<uint64_t>(S) : A, Bits);
    });
  }
  default:
    fail(I, "unexpected unary opcode");
  }
}

void Machine::execCmp(const CInst &I) {
  auto P = static_cast<ir::CmpPredicate>(I.Sub);
  using CP = ir::CmpPredicate;
  if (I.Op == Opcode::FCmp)
    return map2(I, [&](uint64_t AS, uint64_t BS) -> uint64_t {
      double A = slotToDouble(AS), B = slotToDouble(BS);
      switch (P) {
      case CP::OEQ:
        return A == B;
      case CP::ONE:
        return A < B || A > B;
      case CP::OLT:
        return A < B;
      case CP::OLE:
        return A <= B;
      case CP::OGT:
        return A > B;
      case CP::OGE:
        return A >= B;
      default: // UNE
        return !(A == B);
      }
    });
  unsigned Bits = intBits(I.OK);
  return map2(I, [&](uint64_t A, uint64_t B) -> uint64_t {
    switch (P) {
    case CP::EQ:
      return A == B;
    case CP::NE:
      return A != B;
    case CP::SLT:
      return signedOf(A, Bits) < signedOf(B, Bits);
    case CP::SLE:
      return signedOf(A, Bits) <= signedOf(B, Bits);
    case CP::SGT:
      return signedOf(A, Bits) > signedOf(B, Bits);
    case CP::SGE:
      return signedOf(A, Bits) >= signedOf(B, Bits);
    case CP::ULT:
      return unsignedOf(A, Bits) < unsignedOf(B, Bits);
    case CP::ULE:
      return unsignedOf(A, Bits) <= unsignedOf(B, Bits);
    case CP::UGT:
      return unsignedOf(A, Bits) > unsignedOf(B, Bits);
    default: // UGE
      return unsignedOf(A, Bits) >= unsignedOf(B, Bits);
    }
  });
}

void Machine::execCast(const CInst &I) {
  unsigned SB = intBits(I.OK), DB = intBits(I.RK);
  ElemKind SK = I.OK, DK = I.RK;
  switch (I.Op) {
  case Opcode::Trunc:
  case Opcode::SExt:
  case Opcode::PtrToInt:
    return map1(I,
                [&](uint64_t A) { return normBits(static_cast<uint64_t>(signedOf(A, SB)), DB); });
  case Opcode::ZExt:
  case Opcode::IntToPtr:
    return map1(I, [&](uint64_t A) { return normBits(unsignedOf(A, SB), DB); });
  case Opcode::FPTrunc:
  case Opcode::FPExt:
    return map1(I, [&](uint64_t A) { return doubleToSlot(roundTo(slotToDouble(A), DK)); });
  case Opcode::FPToSI:
  case Opcode::FPToUI: {
    bool S = I.Op == Opcode::FPToSI;
    return map1(I, [&](uint64_t A) { return fpToInt(slotToDouble(A), S, DB); });
  }
  case Opcode::SIToFP:
    return map1(I, [&](uint64_t A) { return doubleToSlot(intToFloat(signedOf(A, SB), true, DK)); });
  case Opcode::UIToFP:
    return map1(I, [&](uint64_t A) {
      return doubleToSlot(intToFloat(static_cast<int64_t>(unsignedOf(A, SB)), false, DK));
    });
  default: // bitcast
    return map1(I, [&](uint64_t A) { return decodeRaw(encodeRaw(A, SK), DK); });
  }
}

void Machine::execDot(const CInst &I) {
  dotProduct(I.D0, I.D1, I.D2, &Slots[I.Ops[0].Off], &Slots[I.Ops[1].Off], &Slots[I.Ops[2].Off],
             &Slots[I.Res], I.OK, I.RK, Scratch);
}

/// Combines two elements with a reduce/atomic kind.
inline uint64_t combine(ir::ReduceKind K, uint64_t A, uint64_t B, ElemKind EK) {
  using RK = ir::ReduceKind;
  unsigned Bits = intBits(EK);
  switch (K) {
  case RK::Add:
    return normBits(A + B, Bits);
  case RK::FAdd:
    return doubleToSlot(roundTo(slotToDouble(A) + slotToDouble(B), EK));
  case RK::SMax:
    return signedOf(A, Bits) >= signedOf(B, Bits) ? A : B;
  case RK::SMin:
    return signedOf(A, Bits) <= signedOf(B, Bits) ? A : B;
  case RK::UMax:
    return unsignedOf(A, Bits) >= unsignedOf(B, Bits) ? A : B;
  case RK::UMin:
    return unsignedOf(A, Bits) <= unsignedOf(B, Bits) ? A : B;
  case RK::FMax:
    return doubleToSlot(std::fmax(slotToDouble(A), slotToDouble(B)));
  case RK::FMin:
    return doubleToSlot(std::fmin(slotToDouble(A), slotToDouble(B)));
  case RK::And:
    return A & B;
  case RK::Or:
    return A | B;
  case RK::Xor:
    return A ^ B;
  case RK::Xchg:
    return B;
  }
  return B;
}

void Machine::execReduce(const CInst &I) {
  const uint32_t Outer = I.D0, Len = I.D1, Inner = I.D2;
  const uint64_t *A = &Slots[I.Ops[0].Off];
  uint64_t *R = &Slots[I.Res];
  auto K = static_cast<ir::ReduceKind>(I.Sub);
  for (uint32_t O = 0; O < Outer; ++O)
    for (uint32_t In = 0; In < Inner; ++In) {
      const uint64_t *P = A + size_t(O) * Len * Inner + In;
      uint64_t S = P[0];
      for (uint32_t L = 1; L < Len; ++L)
        S = combine(K, S, P[size_t(L) * Inner], I.OK);
      R[size_t(O) * Inner + In] = S;
    }
}

size_t Machine::findBuffer(uint64_t Addr, uint64_t Len) {
  auto Inside = [&](const HostBuffer &Buf) {
    uint64_t Start = reinterpret_cast<uint64_t>(Buf.Data);
    return Buf.Data && Addr >= Start && Buf.SizeInBytes >= Len &&
           Addr - Start <= Buf.SizeInBytes - Len;
  };
  if (LastBuffer < Buffers.size() && Inside(Buffers[LastBuffer]))
    return LastBuffer;
  for (size_t B = 0; B < Buffers.size(); ++B)
    if (Inside(Buffers[B])) {
      LastBuffer = B;
      return B;
    }
  return Buffers.size();
}

uint8_t *Machine::access(const CInst &I, uint64_t Addr, unsigned Size, const char *What) {
  size_t Found = findBuffer(Addr, Size);
  if (Found == Buffers.size()) {
    std::string Msg = std::string("out-of-bounds ") + What + " of " + std::to_string(Size) +
                      " bytes at " + hex(Addr);
    // Name the nearest buffer: usually the one the kernel meant to access.
    size_t Best = Buffers.size();
    uint64_t BestDist = std::numeric_limits<uint64_t>::max();
    for (size_t B = 0; B < Buffers.size(); ++B) {
      uint64_t Start = reinterpret_cast<uint64_t>(Buffers[B].Data);
      uint64_t End = Start + Buffers[B].SizeInBytes;
      uint64_t Dist = Addr < Start ? Start - Addr : (Addr >= End ? Addr - End : 0);
      if (Dist < BestDist) {
        BestDist = Dist;
        Best = B;
      }
    }
    if (Best < Buffers.size()) {
      const HostBuffer &Buf = Buffers[Best];
      std::string Name = Buf.Name.empty() ? "#" + std::to_string(Best) : Buf.Name;
      // The element index relative to the buffer, as the kernel's author
      // indexes it (negative below the start).
      int64_t Offset = int64_t(Addr - reinterpret_cast<uint64_t>(Buf.Data));
      Msg += " (buffer '" + Name + "' is [" + hex(reinterpret_cast<uint64_t>(Buf.Data)) + ", " +
             hex(reinterpret_cast<uint64_t>(Buf.Data)) + "+" + std::to_string(Buf.SizeInBytes) +
             "), index " + std::to_string(Offset / int64_t(Size)) + " of " +
             std::to_string(Buf.SizeInBytes / Size) + ")";
    } else {
      Msg += " (no buffers were passed)";
    }
    fail(I, Msg);
  }
  if (Addr % Size != 0)
    fail(I, std::string("misaligned ") + What + " of " + std::to_string(Size) + " bytes at " +
                hex(Addr));
  return reinterpret_cast<uint8_t *>(Addr);
}

bool Machine::allInside(const CInst &I, const uint64_t *Mask, uint32_t MaskStride, unsigned Size) {
  const uint64_t *P = &Slots[I.Ops[0].Off];
  uint64_t Lo = std::numeric_limits<uint64_t>::max(), Hi = 0, Or = 0;
  bool Any = false;
  for (uint32_t L = 0; L < I.N; ++L) {
    if (Mask && !(Mask[L * MaskStride] & 1))
      continue;
    Lo = std::min(Lo, P[L]);
    Hi = std::max(Hi, P[L]);
    Or |= P[L];
    Any = true;
  }
  if (!Any)
    return true;
  if ((Or & (Size - 1)) != 0 || Hi > std::numeric_limits<uint64_t>::max() - Size)
    return false; // the per-lane path reports the exact problem
  return findBuffer(Lo, Hi - Lo + Size) != Buffers.size();
}

void Machine::execMemory(const CInst &I) {
  const uint64_t *P = &Slots[I.Ops[0].Off];
  ElemKind EK = I.RK;
  unsigned Size = storeSize(EK);
  // When every active lane falls in one buffer (the common case), the
  // per-lane checks are skipped.
  switch (I.Op) {
  case Opcode::Load:
  case Opcode::MaskedLoad: {
    uint64_t *R = &Slots[I.Res];
    bool Masked = I.Op == Opcode::MaskedLoad;
    const uint64_t *Mask = Masked ? &Slots[I.Ops[1].Off] : nullptr;
    const uint64_t *Other = Masked ? &Slots[I.Ops[2].Off] : nullptr;
    uint32_t SM = I.Ops[1].Stride, SO = I.Ops[2].Stride;
    bool Fast = allInside(I, Mask, SM, Size);
    bool Pending = Gpu.hasPendingGlobalWrites();
    for (uint32_t L = 0; L < I.N; ++L) {
      if (Masked && !(Mask[L * SM] & 1)) {
        R[L] = Other[L * SO];
        continue;
      }
      if (Pending)
        Gpu.checkGlobalAccess(I, P[L], Size, "read");
      const uint8_t *H =
          Fast ? reinterpret_cast<const uint8_t *>(P[L]) : access(I, P[L], Size, "read");
      R[L] = decodeRaw(readRaw(H, Size), EK);
    }
    return;
  }
  default: { // store, masked_store
    bool Masked = I.Op == Opcode::MaskedStore;
    const uint64_t *V = &Slots[I.Ops[1].Off];
    const uint64_t *Mask = Masked ? &Slots[I.Ops[2].Off] : nullptr;
    uint32_t SV = I.Ops[1].Stride, SM = I.Ops[2].Stride;
    bool Fast = allInside(I, Mask, SM, Size);
    bool Pending = Gpu.hasPendingGlobalWrites();
    for (uint32_t L = 0; L < I.N; ++L) {
      if (Masked && !(Mask[L * SM] & 1))
        continue;
      if (Pending)
        Gpu.checkGlobalAccess(I, P[L], Size, "write");
      uint8_t *H = Fast ? reinterpret_cast<uint8_t *>(P[L]) : access(I, P[L], Size, "write");
      writeRaw(H, encodeRaw(V[L * SV], EK), Size);
    }
    return;
  }
  }
}

void Machine::execAtomic(const CInst &I) {
  const uint64_t *P = &Slots[I.Ops[0].Off];
  uint64_t *R = &Slots[I.Res];
  ElemKind EK = I.RK;
  unsigned Size = storeSize(EK);
  bool CAS = I.Op == Opcode::AtomicCAS;
  const uint64_t *A = &Slots[I.Ops[1].Off];
  uint32_t SA = I.Ops[1].Stride;
  const uint64_t *B = (CAS || I.NumOps == 3) ? &Slots[I.Ops[2].Off] : nullptr;
  uint32_t SB = I.Ops[2].Stride;
  auto K = static_cast<ir::ReduceKind>(I.Sub);
  // Lanes apply one after another in index order, as if serialized.
  for (uint32_t L = 0; L < I.N; ++L) {
    if (!CAS && B && !(B[L * SB] & 1)) {
      R[L] = 0; // masked-off lanes: undefined by the spec, zero here
      continue;
    }
    if (Gpu.hasPendingGlobalWrites())
      Gpu.checkGlobalAccess(I, P[L], Size, "atomic access");
    uint8_t *Host = access(I, P[L], Size, "atomic access");
    uint64_t Raw = readRaw(Host, Size);
    uint64_t Old = decodeRaw(Raw, EK);
    uint64_t New;
    if (CAS) {
      // Compares bit patterns, as the hardware does.
      if (Raw != encodeRaw(A[L * SA], EK)) {
        R[L] = Old;
        continue;
      }
      New = B[L * SB];
    } else {
      New = combine(K, Old, A[L * SA], EK);
    }
    writeRaw(Host, encodeRaw(New, EK), Size);
    R[L] = Old;
  }
}

std::string kindName(ArgValue::Kind K) {
  switch (K) {
  case ArgValue::Kind::Buffer:
    return "a buffer";
  case ArgValue::Kind::Int:
    return "an integer";
  default:
    return "a float";
  }
}

} // namespace

InterpResult runKernel(const ir::Function &F, const LaunchGrid &Grid,
                       const std::vector<ArgValue> &Args, std::vector<HostBuffer> &Buffers,
                       const InterpOptions &Opts) {
  InterpResult Result;
  auto Fail = [&](std::string Msg) {
    Result.Ok = false;
    Result.Error = std::move(Msg);
    return Result;
  };
  uint32_t X = 0, Y = 0, Z = 0;
  bool Running = false;
  try {
    CompiledFunction CF;
    std::string Err = compileFunction(F, CF, Opts.Sources);
    if (!Err.empty())
      return Fail(Err);
    if (Args.size() != F.getNumArgs())
      return Fail("@" + F.getName() + " takes " + std::to_string(F.getNumArgs()) +
                  " arguments but " + std::to_string(Args.size()) + " were given");
    Machine Mach(CF, Buffers, Opts);
    for (unsigned A = 0; A < F.getNumArgs(); ++A) {
      const ir::Argument *Param = F.getArg(A);
      const ir::Type *T = Param->getType();
      ElemKind EK = elemKindOf(T);
      ArgValue::Kind Want = EK == ElemKind::Ptr ? ArgValue::Kind::Buffer
                            : isFloatKind(EK)   ? ArgValue::Kind::Float
                                                : ArgValue::Kind::Int;
      const ArgValue &V = Args[A];
      std::string What = "argument " + std::to_string(A) +
                         (Param->getName().empty() ? "" : " (%" + Param->getName() + ")");
      if (V.K != Want)
        return Fail(What + " of type " + T->str() + " needs " + kindName(Want) + ", got " +
                    kindName(V.K));
      uint64_t &Slot = Mach.slots()[CF.ArgSlot[A]];
      if (Want == ArgValue::Kind::Buffer) {
        if (V.BufferIndex >= Buffers.size())
          return Fail(What + " names buffer " + std::to_string(V.BufferIndex) + " but only " +
                      std::to_string(Buffers.size()) + " were passed");
        Slot = reinterpret_cast<uint64_t>(Buffers[V.BufferIndex].Data);
      } else if (Want == ArgValue::Kind::Float) {
        Slot = doubleToSlot(roundTo(V.FloatValue, EK));
      } else {
        Slot = normBits(static_cast<uint64_t>(V.IntValue), intBits(EK));
        int64_t Multiple = Param->attrs().MultipleOf;
        if (Multiple > 1 && signedOf(Slot, intBits(EK)) % Multiple != 0)
          return Fail(What + " = " + std::to_string(signedOf(Slot, intBits(EK))) +
                      " is not a multiple of " + std::to_string(Multiple) +
                      ", which its __multipleof promises");
        if (Param->attrs().NonNegative && signedOf(Slot, intBits(EK)) < 0)
          return Fail(What + " = " + std::to_string(signedOf(Slot, intBits(EK))) +
                      " is negative, which its nonnegative attribute promises");
      }
    }
    Mach.setGrid(Grid);
    Running = true;
    for (Z = 0; Z < Grid.Z; ++Z)
      for (Y = 0; Y < Grid.Y; ++Y)
        for (X = 0; X < Grid.X; ++X)
          Mach.runProgram(X, Y, Z);
  } catch (const RunError &E) {
    return Fail("program (" + std::to_string(X) + "," + std::to_string(Y) + "," +
                std::to_string(Z) + "): " + describe(E.Inst, Opts.Sources) + ": " + E.Message);
  } catch (const std::exception &E) {
    std::string Where = Running ? "program (" + std::to_string(X) + "," + std::to_string(Y) + "," +
                                      std::to_string(Z) + "): "
                                : "";
    // Memory is a limit of the machine, not a bug of the interpreter.
    if (dynamic_cast<const std::bad_alloc *>(&E))
      return Fail(Where + "out of memory (the kernel's values and buffers need more memory than "
                          "this machine provides)");
    return Fail(Where + "internal interpreter error: " + E.what());
  }
  return Result;
}

} // namespace tritonc::interp
