//===- LoopPipeline.h - Issues dot operand loads iterations ahead -*- C++ -*-===//
//
// Automatic software pipelining at the IR level (registered as "pipeline",
// 3 stages). With S stages and D = S - 1, every load whose value becomes an
// operand of a `dot` (directly, through `trans`, or through a header phi) in
// an innermost loop is issued D iterations before the iteration that uses it.
// The result is ordinary Triton-IR with the same meaning: the interpreter runs
// it, and the GPU back end turns the loads into asynchronous copies into a
// ring of shared-memory buffers.
//
// Handled loops: a preheader, a header that holds the phis and computes the
// exit condition (`cond_br`), and a single body block that branches back (run
// simplifycfg first: `&&` in bounds checks makes diamonds). The loop must not
// write memory (a store could change what an earlier-issued load reads).
// Two source shapes give the same result:
//   (a) tutorial form: the load X is in the body and the dot uses it in the
//       same iteration;
//   (b) hand prefetch (kernels/matmul.tc): the dot uses a header phi
//       Q = [X0, X], X in the body reading the operand of the next iteration.
//
// After the pass, for each such load, header phis Q_0 .. Q_{D-1} carry the
// operands of iterations i .. i+D-1 (Q_0 feeds the dot; on the back edge
// Q_j takes Q_{j+1} and Q_{D-1} takes the new load). The preheader loads the
// operands of iterations 0 .. D-1 (in iteration order, then in body order);
// the body, after the dot, computes the operand of iteration i+D and ends
// with all the new loads grouped together. Each new load is a masked_load:
// its mask is the original mask (evaluated at the iteration it reads for)
// AND "that iteration runs" (the loop condition at every iteration from the
// current one up to it: a program never reads what the original did not).
// A plain load becomes a masked_load with a zero `other`.
//
// A pipelined loop nested in another (a persistent kernel's tile loop) may
// then have its prologue issued one iteration of the outer loop ahead,
// above the code after it (prefetchAcrossTiles, TilePrefetch.cpp).
//
// "Value at iteration i+t" clones the backward slice of a value inside the
// loop, replacing each induction phi phi = [init, phi (add|sub|gep) step]
// (step loop-invariant) by phi + t*step (init + t*step in the preheader):
// one instruction with a folded constant for constant steps, repeated
// application of the step otherwise. Slices may hold instructions that are
// safe to speculate and, for gathers, loads:
//   - a load in a slice (a look-up table entry, an increment) is cloned for
//     iteration i+t as a masked_load whose mask is its own AND "iterations
//     i .. i+t all run", so it reads only what the original read;
//   - an address that advances by loaded steps, phi = [init, phi (add|sub|
//     gep) step] with step computed from loads (conv.tc's ADELTA), is run
//     ahead: init + step(0) + ... + step(t-1) in the preheader; in the body
//     the update (i+1), the update + step(i+1) (i+2), and beyond that a new
//     header phi `<name>.ahead` carrying the value of iteration i+t-1, so
//     one step is loaded per iteration (IterationValues.h).
// The exit condition must not depend on loads (the guards are computed from
// it), and a step loaded through addresses computed from its own phi is
// refused.
//
// Loads the target cannot copy asynchronously. Given an AsyncCopyFilter (the
// GPU back end's), a dot operand load it declines stays in registers from
// its issue to its dot, one operand tile per iteration ahead: such an affine
// load is issued only RegisterStages - 1 iterations ahead (fewer than D where
// RegisterStages < NumStages; at least as far as a hand prefetch already
// reads it; RegisterStages = 1 leaves a tutorial-form load in place), while
// the loads that become copies keep D. A declined gather leaves the loop
// unchanged (its recurrence run ahead buys nothing without a ring). The
// chains Q_0 .. Q_{d-1} then differ in length d per load. Anything else leaves the loop unchanged,
// with a remark saying why at the culprit load. The original address recurrence stays in the loop
// when nothing else uses it; dce removes it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/support/SourceManager.h"
#include "tritonc/transform/PassManager.h"

#include <functional>
#include <string>
#include <vector>

namespace tritonc::transform {

class Loop;

/// Asked by the pipeliner about a dot operand load: "" when the target will
/// copy it asynchronously into shared memory (cp.async, bulk tensor copies),
/// else why not. A load the target reads through registers holds one more
/// operand tile in registers per iteration it is issued ahead: the GPU back
/// end's fp16 loads with odd row strides spilled 64-2090 B per thread at 3
/// and 4 stages where one iteration ahead spilled none (bench/conv_suite.py's
/// unaligned candidates), and conv.tc's NCHW gathers 2.9-23 KB.
using AsyncCopyFilter = std::function<std::string(const ir::Instruction &Load)>;

class LoopPipelinePass : public Pass {
public:
  /// AcrossTiles: also issue the prologue of a loop nested in another one
  /// iteration of that loop ahead (prefetchAcrossTiles). Copies: see
  /// AsyncCopyFilter (none: every load is taken to become a copy).
  /// RegisterStages: the stages of the loads Copies declines (0: NumStages).
  explicit LoopPipelinePass(unsigned NumStages, bool AcrossTiles = true,
                            AsyncCopyFilter Copies = {}, unsigned RegisterStages = 0)
      : NumStages(NumStages), AcrossTiles(AcrossTiles), Copies(std::move(Copies)),
        RegisterStages(RegisterStages ? RegisterStages : NumStages) {}
  const char *name() const override { return "pipeline"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;

private:
  unsigned NumStages;
  bool AcrossTiles;
  AsyncCopyFilter Copies;
  unsigned RegisterStages;
};

/// The number of stages of the registered "pipeline" pass.
inline constexpr unsigned DefaultPipelineStages = 3;

/// What pipelineLoop did with one loop.
struct LoopPipelineResult {
  bool Changed = false;
  /// Why the loop was left unchanged; empty when it was pipelined.
  std::string Reason;
  /// Number of dot operand loads now issued ahead.
  unsigned NumLoads = 0;
  /// The loads the AsyncCopyFilter declined that are issued fewer than
  /// NumStages - 1 iterations ahead (0: left in place): where each was (the
  /// rewrite replaces the loads), how far ahead and the filter's answer.
  struct RegisterLoad {
    SourceLoc Loc;
    unsigned Depth;
    std::string Why;
  };
  std::vector<RegisterLoad> RegisterLoads;
  /// The instruction Reason is about (a dot operand load), if any.
  const ir::Instruction *Culprit = nullptr;
};

/// Pipelines the dot operand loads of L with NumStages stages, those that
/// Copies declines with RegisterStages (0: NumStages; see the file comment).
/// The control-flow graph does not change, so the loop info and dominator
/// tree of the function stay valid.
LoopPipelineResult pipelineLoop(const Loop &L, unsigned NumStages,
                                const AsyncCopyFilter &Copies = {}, unsigned RegisterStages = 0);

/// Issues the prologue loads of the pipelined loop Inner one iteration of
/// its parent loop ahead, above the code after Inner (TilePrefetch.cpp);
/// returns whether it did. The control-flow graph does not change.
bool prefetchAcrossTiles(const Loop &Inner);

} // namespace tritonc::transform
