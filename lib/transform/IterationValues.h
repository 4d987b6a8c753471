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
  bool mayClone(const ir::Instruction &I) const;
  ir::Value *inductionAt(const Induction &Ind, Where W, unsigned T);

  const Loop &L;
  ir::BasicBlock *Preheader, *Latch;
  ir::Instruction *BodyPoint;
  bool NextAtBodyPoint;
  ir::Module &M;
  std::map<ir::Instruction *, Induction> Inductions;
  /// Next of an induction -> its phi.
  std::map<ir::Instruction *, ir::Instruction *> NextOf;
  std::map<ir::Value *, bool> InvariantMemo, CleanMemo;
  std::map<std::tuple<ir::Value *, Where, unsigned>, ir::Value *> ValueMemo;
  std::map<std::tuple<Where, ir::Value *, ir::Value *>, ir::Value *> AndMemo;
  std::map<std::pair<Where, unsigned>, ir::Value *> RunsMemo;
};

} // namespace tritonc::transform
