//===- EarlyRefill.cpp - Issues TMA ring refills before the MMAs they overlap -===//
//
// A K loop pipelined over bulk tensor copies, with its MMAs left in flight,
// lowers to: wait for this iteration's slots, barrier, the wgmma k-steps,
// wait until only this iteration's MMAs are pending, then the refill that
// copies the operands of iteration i + D (the loads the loop pipeline put at
// the end of the body). With several warpgroups the ring has D + 2 slots
// (AsyncCopies.cpp) and the refill goes into the slot that iteration i - 2
// read. Every warp waited for the MMAs of iteration i - 2 (at the end of
// iteration i - 1) before the barrier of iteration i, so the refill may be
// issued right after that barrier, before the k-steps, instead of after them
// and their wait: the copies then start about one iteration earlier. One
// warpgroup has no spare slot: its refill overwrites what iteration i - 1
// read, whose MMAs only its own wait ends, and stays where it is (moved, it
// made 64 x 128 x 64 and 128 x 128 x 64 matmuls with 4 warps and 3 stages
// wrong on the H100). On the H100, the 128 x 256 x 64 fp16
// matmul at 4096^3 spent 7% of its warp samples waiting for ring data
// (mbarrier try_wait) and ran 0.5-1.7% faster with the refill hoisted (PTX
// edited by hand, then this pass).
//
// The move is done on the emitted lines of the block, after everything of
// the iteration is lowered: the refill's address and guard arithmetic comes
// from IR instructions after the dot. It happens only where the IR between
// the dot and the block's end reads or writes no memory except the refills
// of the dot's own rings, and where the moved lines are straight-line code
// (but for forward branches within them: the branch around thread 0's
// copies) that shares no register written on either side with the k-steps.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"
#include "PtxLines.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace tritonc::codegen {

using ir::Instruction;
using namespace ptxlines;

namespace {

/// Appends the virtual registers a line names (%r12, %rd3, %p7, ...; not
/// %tid.x) to Out, as views into the line.
void appendRegisters(std::string_view Line, std::vector<std::string_view> &Out) {
  for (size_t I = Line.find('%'); I != std::string_view::npos; I = Line.find('%', I + 1))
    if (std::string_view Reg = leadingRegister(Line.substr(I)); !Reg.empty())
      Out.push_back(Reg);
}

/// Appends the registers an instruction line writes: its first operand, or
/// all of a {list} in that place (wgmma accumulators, unpacking movs);
/// nothing when the first operand is an address ([...]).
void appendWrittenRegisters(std::string_view Line, std::vector<std::string_view> &Out) {
  std::string_view Text = instructionText(Line);
  if (Text.empty() || isComment(Line) || isLabel(Line) || Text.starts_with('.'))
    return;
  size_t Space = Text.find_first_of(" \t");
  if (Space == std::string_view::npos)
    return;
  std::string_view Ops = Text.substr(Space + 1);
  Ops.remove_prefix(std::min(Ops.find_first_not_of(" \t"), Ops.size()));
  if (Ops.starts_with('['))
    return;
  size_t End = Ops.starts_with('{') ? Ops.find('}') : Ops.find_first_of(",;");
  appendRegisters(Ops.substr(0, End), Out);
}

/// Whether the sorted register lists share a register.
bool intersect(const std::vector<std::string_view> &A, const std::vector<std::string_view> &B) {
  for (size_t I = 0, J = 0; I < A.size() && J < B.size();) {
    if (A[I] == B[J])
      return true;
    A[I] < B[J] ? ++I : ++J;
  }
  return false;
}

void sortUnique(std::vector<std::string_view> &V) {
  std::sort(V.begin(), V.end());
  V.erase(std::unique(V.begin(), V.end()), V.end());
}

/// Whether a line may move above the k-steps: arithmetic, comments, and
/// the refill's own expect_tx and bulk copies into shared memory. No
/// control flow, barriers, fences, other memory accesses or MMAs.
bool movableLine(std::string_view Line) {
  if (isComment(Line))
    return true;
  if (Line.empty() || isLabel(Line))
    return false;
  std::string_view Text = instructionText(Line);
  // The wait for staging reads (TensorStores.cpp) orders only the engine's
  // reads of a store's staging before the copies that follow it.
  if (Text.starts_with("mbarrier.arrive.expect_tx") ||
      Text.starts_with("cp.async.bulk.tensor.2d.shared::cluster.global") ||
      Text.starts_with("cp.async.bulk.wait_group.read"))
    return true;
  for (std::string_view Bad : {"bra", "bar.", "barrier", "membar", "fence", "wgmma", "ret", "exit",
                               "ld.", "st.", "atom", "red.", "cp.", "mbarrier", "trap"})
    if (Text.starts_with(Bad))
      return false;
  return true;
}

/// The label a `bra` line jumps to, or nothing for other lines.
std::optional<std::string_view> branchTarget(std::string_view Line) {
  std::string_view Text = instructionText(Line);
  if (!Text.starts_with("bra"))
    return std::nullopt;
  std::string_view Target = Text.substr(Text.find_last_of(" \t") + 1);
  if (Target.ends_with(';'))
    Target.remove_suffix(1);
  return Target;
}

} // namespace

void FunctionLowering::noteRefillHoist(const Instruction &Dot, size_t AfterBarrier) {
  PendingRefillHoist.reset();
  auto It = AsyncDots.find(&Dot);
  if (It == AsyncDots.end() || It->second != 1 || inFlightExtraSlots(Options.NumWarps) == 0)
    return;
  for (unsigned Idx = 0; Idx < 2; ++Idx) {
    auto [Member, Id] = ringOperand(Dot, Idx);
    if (!Member || Rings[Id].TensorMap < 0)
      return;
  }
  PendingRefillHoist = RefillHoist{&Dot, CurrentBlock, AfterBarrier, B.bodySize()};
}

void FunctionLowering::hoistRingRefills(const ir::BasicBlock &BB) {
  std::optional<RefillHoist> H = std::exchange(PendingRefillHoist, std::nullopt);
  if (!H || H->Block != CurrentBlock)
    return;
  // The IR after the dot: memory is only touched by refills of its rings.
  std::set<unsigned> DotRings;
  for (unsigned Idx = 0; Idx < 2; ++Idx)
    DotRings.insert(ringOperand(*H->Dot, Idx).second);
  bool AfterDot = false, AnyRefill = false;
  for (const auto &IP : BB.instructions()) {
    const Instruction &I = *IP;
    if (&I == H->Dot) {
      AfterDot = true;
      continue;
    }
    if (!AfterDot || I.isTerminator() || !I.accessesMemory())
      continue;
    auto Ring = AsyncOf.find(&I);
    if (Ring == AsyncOf.end() || !DotRings.count(Ring->second) || !TensorAccesses.count(&I))
      return;
    AnyRefill = true;
  }
  if (!AnyRefill)
    return;

  // The emitted lines: [AfterBarrier, DotEnd) the k-steps and their wait,
  // [DotEnd, end) what moves above them.
  size_t End = B.bodySize();
  // Register names are views into the lines, which stay put until the move.
  std::vector<std::string_view> StepRegs, StepWrites, MovedRegs, MovedWrites;
  std::set<std::string_view> StepLabels;
  for (size_t L = H->AfterBarrier; L < H->DotEnd; ++L) {
    const std::string &Line = B.bodyLine(L);
    if (Line.empty())
      return; // a reserved line: its handle is its position
    if (isLabel(Line))
      StepLabels.insert(std::string_view(Line).substr(0, Line.size() - 1));
    appendRegisters(Line, StepRegs);
    appendWrittenRegisters(Line, StepWrites);
  }
  // The k-steps may branch within themselves (their loop), nowhere else:
  // the moved lines must run exactly as often as before.
  for (size_t L = H->AfterBarrier; L < H->DotEnd; ++L) {
    std::string_view Text = instructionText(B.bodyLine(L));
    if (Text.starts_with("ret") || Text.starts_with("exit"))
      return;
    if (std::optional<std::string_view> Target = branchTarget(B.bodyLine(L));
        Target && !StepLabels.count(*Target))
      return;
  }
  // The refills may branch forward within themselves (around thread 0's
  // copies: TensorCopies.cpp), nowhere else.
  std::set<std::string_view> MovedLabels;
  for (size_t L = H->DotEnd; L < End; ++L) {
    const std::string &Line = B.bodyLine(L);
    if (isLabel(Line))
      MovedLabels.insert(std::string_view(Line).substr(0, Line.size() - 1));
    else if (std::optional<std::string_view> Target = branchTarget(Line);
             Target && MovedLabels.count(*Target))
      return; // backward
  }
  bool AnyCopy = false;
  for (size_t L = H->DotEnd; L < End; ++L) {
    const std::string &Line = B.bodyLine(L);
    std::optional<std::string_view> Target = branchTarget(Line);
    bool Internal = isLabel(Line) || (Target && MovedLabels.count(*Target));
    if (!Internal && !movableLine(Line))
      return;
    AnyCopy |= instructionText(Line).starts_with("cp.async.bulk.tensor");
    appendRegisters(Line, MovedRegs);
    appendWrittenRegisters(Line, MovedWrites);
  }
  if (!AnyCopy)
    return;
  for (auto *V : {&StepRegs, &StepWrites, &MovedRegs, &MovedWrites})
    sortUnique(*V);
  if (intersect(StepWrites, MovedRegs) || intersect(MovedWrites, StepRegs))
    return;
  B.hoistBodyLines(H->AfterBarrier, H->DotEnd);
}

} // namespace tritonc::codegen
