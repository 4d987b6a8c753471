//===- IterationValues.h - A loop's values at later iterations --*- C++ -*-===//
//
// The machinery the software pipeliners share (LoopPipeline.cpp, the K loop;
// TilePrefetch.cpp, a loop around it): "the value of V at iteration i + T",
// computed by cloning V's backward slice inside the loop with every
// induction phi = [init, phi (add|sub|gep) step] (step loop-invariant)
// replaced by phi + T*step, either in the preheader (where i = 0 and the
// phis are their initial values) or at a point in the loop (where i is the
// current iteration). Constant steps fold into one instruction; others
// repeat the step. Slices may only hold instructions that are safe to
// speculate (isSliceClean).
//
// With gathers enabled (enableGathers), slices may also hold loads (the
// loop must not write memory, which the caller checks) and *gather
// inductions*: phi = [init, phi (add|sub|gep) step] whose step varies from
// one iteration to the next because it is computed from loads (conv's
// increment table, a look-up table). A load at iteration i + T becomes a
// masked_load whose mask is the original one AND "iterations i .. i + T all
// run" (the exit condition, which must be free of loads), so nothing is read
// that the original program did not read. A gather induction at i + T is
// accumulated step by step: in the preheader init + step(0) + ... +
// step(T-1); in the loop the update (i + 1), the update plus step(i + 1)
// (i + 2), and for T >= 3 a header phi carrying the value of i + T - 1
// plus step(i + T - 1), so one step is loaded per iteration.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace tritonc::transform {

class Loop;
class LoopInfo;

/// Where a value "at iteration i + t" is computed: in the preheader, or at
/// the loop's insertion point (see IterationValues).
enum class Where { Preheader, Body };

/// phi = [Init from the preheader, Next from the latch]; Next is
/// `add phi, Step`, `add Step, phi`, `sub phi, Step` or `gep phi, Step`, or
/// null when the phi passes itself around (an invariant).
struct Induction {
  ir::Instruction *Phi = nullptr;
  ir::Value *Init = nullptr;
  ir::Instruction *Next = nullptr;
  ir::Value *Step = nullptr;
};

/// The header's `cond_br` of a loop whose one successor is in the loop (the
/// body) and the other not (the exit).
struct ExitBranch {
  ir::Value *Cond = nullptr;
  ir::BasicBlock *Body = nullptr, *Exit = nullptr;
  bool BodyOnTrue = true;
};
/// L's ExitBranch, or nullopt with the reason in Why.
std::optional<ExitBranch> exitBranch(const Loop &L, std::string &Why);

/// The loop shape the pipelining passes handle: innermost, a preheader, a
/// header that ends with the exit branch, and one body block that branches
/// back to it.
struct SingleBlockLoop {
  ir::BasicBlock *Preheader = nullptr;
  ExitBranch Branch;
};
/// L as a SingleBlockLoop, or nullopt with the reason in Why.
std::optional<SingleBlockLoop> singleBlockLoop(const Loop &L, std::string &Why);
/// The first instruction of L's header and body (not a terminator) that has
/// side effects, or null.
ir::Instruction *firstSideEffect(const Loop &L, ir::BasicBlock *Body);
/// The first dot in L's own blocks (not in its subloops), if any.
const ir::Instruction *firstDotOf(const Loop &L, const LoopInfo &LI);
/// V, or what it transposes when it is a `trans` in L (repeatedly).
ir::Value *stripTransInLoop(const Loop &L, ir::Value *V);

class IterationValues {
public:
  /// Values of L at later iterations, cloned before the preheader's
  /// terminator or before BodyPoint (in L, dominated by every instruction of
  /// L that values are computed from). NextAtBodyPoint says that the updates
  /// of the inductions are available there (BodyPoint is the latch's end).
  IterationValues(const Loop &L, ir::BasicBlock *Preheader, ir::BasicBlock *Latch,
                  ir::Instruction *BodyPoint, bool NextAtBodyPoint);

  /// Finds the induction phis of the header (incoming from the preheader and
  /// the latch).
  void findInductions();
  /// Lets slices hold loads and gather inductions (file comment); Branch
  /// decides which iterations run. Needs NextAtBodyPoint and a loop that
  /// does not write memory; call after findInductions.
  void enableGathers(const ExitBranch &Branch);
  /// isSliceClean without loads and gather inductions, whatever the mode
  /// (the exit condition: load guards are computed from it).
  bool isSliceCleanWithoutLoads(ir::Value *V);
  /// Whether valueAt cloned a load or a gather induction (a gather was
  /// pipelined).
  bool clonedGathers() const { return ClonedGathers; }
  /// The gather induction phi (enableGathers) V is, or null.
  const Induction *gatherInduction(ir::Value *V) const;
  /// "Iterations i .. i + T all run" at W (in the loop iteration i is known
  /// to run, so the conjunction starts at i + 1): a chain of `and`s of
  /// loopRunsAt, made once per (W, T). Null at W = Body, T = 0.
  ir::Value *runsThrough(const ExitBranch &Branch, Where W, unsigned T);
  /// The zero of T (zeroOfType) in the preheader, made once per type.
  ir::Value *zeroOf(const ir::Type *T);
  bool isInvariant(ir::Value *V);
  /// V is computed in the loop only from inductions, invariants and
  /// instructions that are safe to speculate.
  bool isSliceClean(ir::Value *V);
  /// An instruction of the loop that keeps V's slice from being clean: a
  /// phi that is no induction, or an instruction that is not safe to
  /// speculate; null when the slice is clean. For optimization remarks.
  ir::Instruction *sliceObstacle(ir::Value *V);
  ir::Value *valueAt(ir::Value *V, Where W, unsigned T);
  /// Inserts I at W (named and located like Like, if given).
  ir::Instruction *insert(Where W, std::unique_ptr<ir::Instruction> I, const ir::Instruction *Like);
  /// "The loop runs iteration i + T": Branch's condition at i + T, negated
  /// when the body is on the false edge; made once per (W, T).
  ir::Value *loopRunsAt(const ExitBranch &Branch, Where W, unsigned T);
  /// A && B at W, made once per pair.
  ir::Value *andWith(Where W, ir::Value *A, ir::Value *B);
  ir::Instruction *insertPoint(Where W) const;

  /// Also clone divisions whose divisor is not a known non-zero constant,
  /// dividing by 1 where the divisor is 0: for values of iterations that
  /// may not run (masked-off loads), whose divisors the program never
  /// checked. Where those iterations run, the divisors are what the program
  /// divides by.
  bool GuardDivisors = false;

private:
  bool availableAtBodyPoint(const ir::Instruction *I) const;
  /// Whether a slice may clone I (before looking at its operands).
  bool mayClone(const ir::Instruction &I, bool Gathers) const;
  bool isClean(ir::Value *V, bool Gathers);
  ir::Value *inductionAt(const Induction &Ind, Where W, unsigned T);
  ir::Value *gatherInductionAt(const Induction &Ind, Where W, unsigned T);
  /// The load I at iteration i + T, masked by runsThrough(W, T).
  ir::Value *loadAt(ir::Instruction *I, Where W, unsigned T);

  const Loop &L;
  ir::BasicBlock *Preheader, *Latch;
  ir::Instruction *BodyPoint;
  bool NextAtBodyPoint;
  ir::Module &M;
  std::map<ir::Instruction *, Induction> Inductions;
  /// Next of an induction -> its phi.
  std::map<ir::Instruction *, ir::Instruction *> NextOf;
  /// Gather induction candidates: the step is not invariant.
  std::map<ir::Instruction *, Induction> Gathers;
  std::optional<ExitBranch> GatherBranch;
  bool ClonedGathers = false;
  std::map<ir::Value *, bool> InvariantMemo, CleanMemo, GatherCleanMemo;
  std::map<std::tuple<Where, ir::Value *, const ir::Type *>, ir::Value *> SplatMemo;
  std::map<std::pair<Where, unsigned>, ir::Value *> RunsThroughMemo;
  std::map<const ir::Type *, ir::Value *> ZeroMemo;
  std::map<std::tuple<ir::Value *, Where, unsigned>, ir::Value *> ValueMemo;
  std::map<std::tuple<Where, ir::Value *, ir::Value *>, ir::Value *> AndMemo;
  std::map<std::pair<Where, unsigned>, ir::Value *> RunsMemo;
};

/// The zero of T's element type, splatted to T's shape before InsertBefore.
ir::Value *zeroOfType(ir::Module &M, const ir::Type *T, ir::Instruction *InsertBefore);

} // namespace tritonc::transform
