//===- LoopPipeline.cpp - Issues dot operand loads iterations ahead -------===//
#include "tritonc/transform/LoopPipeline.h"

#include "IterationValues.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/transform/LoopInfo.h"
#include "tritonc/transform/Passes.h"
#include "tritonc/transform/Utils.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

namespace tritonc::transform {

using namespace ir;

namespace {

/// A load whose value reaches a dot operand.
struct OperandLoad {
  Instruction *Load = nullptr;
  /// The header phi [X0, Load] of the prefetch form; null in tutorial form.
  Instruction *Phi = nullptr;
  /// How many iterations ahead of its use Load reads: 0 or 1.
  unsigned Lead = 0;
  /// How many iterations ahead of its use the new load reads (>= Lead): D,
  /// or fewer for a load the target keeps in registers.
  unsigned Depth = 0;
  /// The operands of iterations 0 .. D-1, available at the preheader's end.
  std::vector<Value *> Initial;
  /// Q_0 .. Q_{D-1}.
  std::vector<Instruction *> Chain;
  /// Operands of the load in the body, then the load itself.
  Value *Ptr = nullptr, *Mask = nullptr, *Other = nullptr;
  Instruction *NewLoad = nullptr;
};

bool isLoad(const Value *V) {
  const Instruction *I = asInstruction(const_cast<Value *>(V));
  return I && (I->getOpcode() == Opcode::Load || I->getOpcode() == Opcode::MaskedLoad);
}

class LoopPipeliner {
public:
  LoopPipeliner(const Loop &L, unsigned Depth, const AsyncCopyFilter &Copies,
                unsigned RegisterDepth)
      : L(L), D(Depth), RegisterDepth(RegisterDepth), Header(L.getHeader()), Copies(Copies) {}

  /// Checks that the loop can be pipelined; returns why not, or "".
  std::string analyze();
  /// The instruction analyze()'s reason is about (a dot operand load), if any.
  const Instruction *culprit() const { return Culprit; }
  /// Rewrites the loop; analyze() must have succeeded.
  void rewrite();
  unsigned numLoads() const { return static_cast<unsigned>(Loads.size()); }
  /// The loads issued fewer than D iterations ahead because Copies declined
  /// them (LoopPipelineResult::RegisterLoads).
  std::vector<LoopPipelineResult::RegisterLoad> RegisterLoads;

private:
  std::string findOperandLoads();
  std::string limitRegisterLoads();
  Value *valueAt(Value *V, Where W, unsigned T) { return IV->valueAt(V, W, T); }
  Instruction *insert(Where W, std::unique_ptr<Instruction> I, const Instruction *Like) {
    return IV->insert(W, std::move(I), Like);
  }
  Value *andWith(Where W, Value *A, Value *B) { return IV->andWith(W, A, B); }
  Value *guardInPreheader(unsigned Iteration);
  Value *guardInBody(unsigned Depth);
  void prepareLoad(OperandLoad &Op, Where W, unsigned T, Value *Guard);
  Instruction *emitLoad(OperandLoad &Op, Where W, const std::string &Name);

  const Loop &L;
  unsigned D, RegisterDepth;
  BasicBlock *Header;
  const AsyncCopyFilter &Copies;
  BasicBlock *Body = nullptr;
  BasicBlock *Preheader = nullptr;
  /// The header's branch: condition, body and exit.
  ExitBranch Branch;

  /// Values at later iterations, cloned at the end of the body.
  std::optional<IterationValues> IV;
  std::vector<OperandLoad> Loads;

  /// Splats of guards, made once each; the body's guard per depth.
  std::map<std::pair<Value *, const Type *>, Value *> SplatMemo;
  std::map<unsigned, Value *> BodyGuards;
  const Instruction *Culprit = nullptr;
};

/// A load in the loop that V is computed from, not looking through phis.
const Instruction *loadInSlice(const Loop &L, Value *V, unsigned Depth = 0) {
  Instruction *I = asInstruction(V);
  if (!I || !L.contains(I) || I->getOpcode() == Opcode::Phi || Depth > 16)
    return nullptr;
  if (isLoad(I))
    return I;
  for (Value *Op : I->operands())
    if (const Instruction *Found = loadInSlice(L, Op, Depth + 1))
      return Found;
  return nullptr;
}

/// "%x (line N)" for remarks.
std::string spell(const Value &V) {
  std::string S = printOperand(V);
  if (const Instruction *I = asInstruction(const_cast<Value *>(&V)); I && I->Loc.isValid())
    S += " at line " + std::to_string(I->Loc.Line);
  return S;
}

/// Why Obstacle (IterationValues::sliceObstacle) keeps a value from being
/// computed iterations ahead, in a kernel author's words.
std::string describeObstacle(const Loop &L, IterationValues &IV, BasicBlock *Latch,
                             Instruction *Obstacle) {
  if (Obstacle->getOpcode() == Opcode::Phi) {
    std::string Name = printOperand(*Obstacle);
    if (const Induction *Gather = IV.gatherInduction(Obstacle)) {
      // Its step is loaded, but the step cannot be computed ahead either.
      Instruction *Inner = IV.sliceObstacle(Gather->Step);
      std::string Why;
      if (Inner == Obstacle)
        Why = "the step is loaded through addresses computed from " + Name + " itself";
      else if (!Inner || IV.gatherInduction(Inner)) // no recursion through cycles
        Why = "it depends on " + (Inner ? spell(*Inner) : std::string("values")) +
              ", which cannot be computed ahead";
      else
        Why = describeObstacle(L, IV, Latch, Inner);
      return Name + " advances by a step computed in the loop that cannot be computed " +
             "iterations ahead: " + Why;
    }
    Instruction *Next = asInstruction(Obstacle->getIncomingValueFor(Latch));
    if (Next && (Next->getOpcode() == Opcode::Add || Next->getOpcode() == Opcode::Sub ||
                 Next->getOpcode() == Opcode::GEP)) {
      Value *Step = Next->getOperand(0) == Obstacle ? Next->getOperand(1) : Next->getOperand(0);
      if (const Instruction *Load = loadInSlice(L, Step))
        return Name + " advances by values loaded from memory in the loop (" + spell(*Load) + ")";
      return Name + " advances by a step that changes from one iteration to the next (" +
             spell(*Step) + ")";
    }
    return Name + " is carried from one iteration to the next without a loop-invariant step";
  }
  if (isLoad(Obstacle))
    return "it depends on " + spell(*Obstacle) + ", loaded from memory in the loop";
  return "it depends on " + spell(*Obstacle) + " (" + opcodeName(Obstacle->getOpcode()) +
         "), which may not be computed ahead of its iteration";
}

std::string LoopPipeliner::analyze() {
  std::string Why;
  std::optional<SingleBlockLoop> Shape = singleBlockLoop(L, Why);
  if (!Shape)
    return Why;
  Preheader = Shape->Preheader;
  Branch = Shape->Branch;
  Body = Branch.Body;
  if (firstSideEffect(L, Body))
    return "the loop writes memory";
  for (auto &I : Body->instructions())
    if (I->getOpcode() == Opcode::Phi)
      return "the body has phis";

  IV.emplace(L, Preheader, Body, Body->getTerminator(), /*NextAtBodyPoint=*/true);
  IV->findInductions();
  // The loop writes no memory, so a load may be issued iterations early.
  IV->enableGathers(Branch);
  // Index arithmetic of gathers divides by runtime sizes (conv.tc's
  // `rk % S`): a clone for an iteration that may not run divides by 1 where
  // the divisor is 0; where the iteration runs, the program divides by it.
  IV->GuardDivisors = true;

  if (std::string Why = findOperandLoads(); !Why.empty())
    return Why;
  if (!IV->isSliceCleanWithoutLoads(Branch.Cond))
    return "the exit condition is not a pure function of inductions";
  for (OperandLoad &Op : Loads)
    for (unsigned K = 0; K < Op.Load->getNumOperands(); ++K)
      if (Instruction *Obstacle = IV->sliceObstacle(Op.Load->getOperand(K))) {
        Culprit = Op.Load;
        const char *What = K == 0 ? "address" : K == 1 ? "mask" : "`other` value";
        return std::string("the ") + What +
               " of this dot operand load cannot be computed iterations ahead: " +
               describeObstacle(L, *IV, Body, Obstacle);
      }
  return limitRegisterLoads();
}

std::string LoopPipeliner::limitRegisterLoads() {
  for (OperandLoad &Op : Loads) {
    Op.Depth = D;
    std::string Why = Copies ? Copies(*Op.Load) : "";
    if (Why.empty())
      continue;
    if (!IV->isSliceCleanWithoutLoads(Op.Load->getOperand(0))) {
      Culprit = Op.Load;
      return "this dot operand load is a gather (its address comes from loads in the loop) " + Why +
             ": issued ahead, it would only hold more tiles in registers";
    }
    // A hand prefetch already reads it Lead iterations ahead.
    Op.Depth = std::max(Op.Lead, std::min(D, RegisterDepth));
    if (Op.Depth < D)
      RegisterLoads.push_back({Op.Load->Loc, Op.Depth, Why});
  }
  std::erase_if(Loads, [](const OperandLoad &Op) { return Op.Depth == 0; });
  if (Loads.empty())
    return "no dot operand load becomes an asynchronous copy, and with register_stages 1 the "
           "loads kept in registers are not issued ahead: the first " +
           RegisterLoads.front().Why;
  return "";
}

std::string LoopPipeliner::findOperandLoads() {
  std::map<Instruction *, OperandLoad> Found;
  for (auto &I : Body->instructions()) {
    if (I->getOpcode() != Opcode::Dot)
      continue;
    for (unsigned K = 0; K < 2; ++K) {
      Value *V = stripTransInLoop(L, I->getOperand(K));
      OperandLoad Op;
      Instruction *VI = asInstruction(V);
      if (!VI || !L.contains(VI))
        continue;
      if (isLoad(VI)) {
        if (VI->getParent() != Body)
          return "a dot operand is loaded in the header";
        Op.Load = VI;
      } else if (VI->getOpcode() == Opcode::Phi && VI->getParent() == Header) {
        Value *Back = VI->getIncomingValueFor(Body);
        if (!isLoad(Back) || asInstruction(Back)->getParent() != Body)
          continue;
        Op.Load = asInstruction(Back);
        Op.Phi = VI;
        Op.Lead = 1;
        if (Op.Load->users().size() != 1)
          return "a prefetched dot operand has other uses";
        for (Instruction *U : VI->users())
          if (!L.contains(U))
            return "a prefetched dot operand is used after the loop";
      } else {
        continue;
      }
      auto [It, New] = Found.emplace(Op.Load, Op);
      if (!New && It->second.Phi != Op.Phi)
        return "a load feeds dots both directly and through a phi";
    }
  }
  if (Found.empty())
    return "no dot operand is loaded in the loop";
  // Body order.
  for (auto &I : Body->instructions())
    if (auto It = Found.find(I.get()); It != Found.end())
      Loads.push_back(It->second);
  return "";
}

Value *LoopPipeliner::guardInPreheader(unsigned Iteration) {
  // Iteration j runs when the condition holds at 0, 1, ..., j.
  return IV->runsThrough(Branch, Where::Preheader, Iteration);
}

Value *LoopPipeliner::guardInBody(unsigned Depth) {
  // The body runs, so the condition held at i; i + d runs when it also holds
  // at i + 1, ..., i + d. Checking only i + d would be enough for monotonic
  // inductions that do not wrap around, which is not checked here.
  Value *&Guard = BodyGuards[Depth];
  if (!Guard)
    Guard = IV->runsThrough(Branch, Where::Body, Depth);
  return Guard;
}

void LoopPipeliner::prepareLoad(OperandLoad &Op, Where W, unsigned T, Value *Guard) {
  Instruction *X = Op.Load;
  const Type *Ty = X->getType();
  Value *G = Guard;
  if (Ty->isTile()) {
    const Type *MaskTy = Ty->withScalar(Type::getI1());
    Value *&Splat = SplatMemo[{Guard, MaskTy}];
    if (!Splat)
      Splat = insert(W, Instruction::create(Opcode::Splat, MaskTy, {Guard}), nullptr);
    G = Splat;
  }
  Op.Ptr = valueAt(X->getOperand(0), W, T);
  if (X->getOpcode() == Opcode::MaskedLoad) {
    Op.Mask = andWith(W, valueAt(X->getOperand(1), W, T), G);
    Op.Other = valueAt(X->getOperand(2), W, T);
  } else {
    Op.Mask = G;
    Op.Other = IV->zeroOf(Ty);
  }
}

Instruction *LoopPipeliner::emitLoad(OperandLoad &Op, Where W, const std::string &Name) {
  auto Load =
      Instruction::create(Opcode::MaskedLoad, Op.Load->getType(), {Op.Ptr, Op.Mask, Op.Other});
  Instruction *New = insert(W, std::move(Load), Op.Load);
  New->setName(Name);
  return New;
}

/// The name hint the new values of Op are named after: the loaded value's,
/// else "load.<pointer's hint>".
std::string baseName(const OperandLoad &Op) {
  for (const Value *V : {static_cast<const Value *>(Op.Load), static_cast<const Value *>(Op.Phi)})
    if (V && !V->getName().empty())
      return V->getName();
  const std::string &Ptr = Op.Load->getOperand(0)->getName();
  return Ptr.empty() ? "load" : "load." + Ptr;
}

void LoopPipeliner::rewrite() {
  // Preheader: the operands of iterations 0 .. d-1, iteration by iteration.
  for (OperandLoad &Op : Loads)
    Op.Initial.assign(Op.Depth, nullptr);
  for (unsigned J = 0; J < D; ++J) {
    for (OperandLoad &Op : Loads) {
      if (J >= Op.Depth)
        continue;
      if (J < Op.Lead) {
        // The prefetch form already loads the first operand before the loop.
        Op.Initial[J] = Op.Phi->getIncomingValueFor(Preheader);
        continue;
      }
      prepareLoad(Op, Where::Preheader, J - Op.Lead, guardInPreheader(J));
      Op.Initial[J] = emitLoad(Op, Where::Preheader, baseName(Op) + ".pre" + std::to_string(J));
    }
  }

  // Body: the operand of iteration i + d. All address and mask arithmetic
  // first, then the loads, so that they end the body as one group.
  for (OperandLoad &Op : Loads)
    prepareLoad(Op, Where::Body, Op.Depth - Op.Lead, guardInBody(Op.Depth));
  for (OperandLoad &Op : Loads)
    Op.NewLoad = emitLoad(Op, Where::Body, baseName(Op) + ".next");

  // Header: the chain Q_0 .. Q_{D-1}, after the existing phis.
  auto FirstNonPhi = Header->instructions().begin();
  while ((*FirstNonPhi)->getOpcode() == Opcode::Phi)
    ++FirstNonPhi;
  for (OperandLoad &Op : Loads) {
    Op.Chain.assign(Op.Depth, nullptr);
    for (unsigned J = 0; J < Op.Depth; ++J) {
      if (J == 0 && Op.Phi) {
        Op.Chain[J] = Op.Phi;
        continue;
      }
      auto Phi = Instruction::create(Opcode::Phi, Op.Load->getType(), {});
      Phi->Loc = Op.Load->Loc;
      Phi->setName(baseName(Op) + ".pipe" + std::to_string(J));
      Op.Chain[J] = Header->insert(FirstNonPhi, std::move(Phi));
      Op.Chain[J]->addIncoming(Op.Initial[J], Preheader);
    }
    for (unsigned J = 0; J < Op.Depth; ++J) {
      Instruction *Q = Op.Chain[J];
      Value *Next = J + 1 < Op.Depth ? Op.Chain[J + 1] : Op.NewLoad;
      if (Q != Op.Phi) {
        Q->addIncoming(Next, Body);
        continue;
      }
      for (unsigned K = 0; K < Q->getNumOperands(); ++K)
        if (Q->getIncomingBlock(K) == Body)
          Q->setOperand(K, Next);
    }
  }

  // The old loads are dead now (or read what Q_0 holds); erase them and what
  // only they used.
  for (OperandLoad &Op : Loads) {
    if (!Op.Phi)
      Op.Load->replaceAllUsesWith(Op.Chain[0]);
    std::vector<Value *> Operands = Op.Load->operands();
    Op.Load->dropAllOperands();
    Op.Load->eraseFromParent();
    eraseTriviallyDead(Operands);
  }
}

} // namespace

LoopPipelineResult pipelineLoop(const Loop &L, unsigned NumStages, const AsyncCopyFilter &Copies,
                                unsigned RegisterStages) {
  LoopPipelineResult R;
  if (NumStages <= 1) {
    R.Reason = "one stage: nothing to issue ahead";
    return R;
  }
  unsigned RegisterDepth = (RegisterStages ? RegisterStages : NumStages) - 1;
  LoopPipeliner P(L, NumStages - 1, Copies, RegisterDepth);
  R.Reason = P.analyze();
  R.Culprit = P.culprit();
  if (!R.Reason.empty())
    return R;
  P.rewrite();
  R.Changed = true;
  R.NumLoads = P.numLoads();
  R.RegisterLoads = P.RegisterLoads;
  return R;
}

namespace {

/// Where remarks about L point: the header's branch (the `for` statement).
const Instruction &loopLocation(const Loop &L) {
  const Instruction *T = L.getHeader()->getTerminator();
  return T ? *T : *L.getHeader()->instructions().front();
}

} // namespace

bool LoopPipelinePass::run(Function &F, AnalysisManager &AM) {
  DiagnosticEngine *Diags = AM.diagnostics();
  auto RemarkAt = [&](SourceLoc Loc, std::string Message) {
    if (Diags)
      Diags->remark(RemarkKind::Missed, "pipeline", SourceRange(Loc), std::move(Message));
  };
  auto Remark = [&](RemarkKind Kind, const Instruction &At, std::string Message) {
    if (Diags)
      Diags->remark(Kind, "pipeline", SourceRange(At.Loc), std::move(Message));
  };
  const LoopInfo &LI = AM.get<LoopInfo>(F);
  bool Changed = false;
  // Rewriting a loop adds instructions but no blocks or edges, so the loop
  // info stays valid for the other loops.
  for (Loop *L : LI.loopsInnermostFirst()) {
    // Loops without a dot have nothing to pipeline: no remark.
    const Instruction *Dot = firstDotOf(*L, LI);
    if (!L->subLoops().empty()) {
      if (Dot)
        Remark(RemarkKind::Missed, loopLocation(*L),
               "loop not pipelined: it contains a nested loop (only innermost loops are)");
      continue;
    }
    if (NumStages <= 1) {
      if (Dot)
        Remark(RemarkKind::Missed, loopLocation(*L),
               "loop not pipelined: num_stages is 1 (pipelining is off)");
      continue;
    }
    LoopPipelineResult R = pipelineLoop(*L, NumStages, Copies, RegisterStages);
    if (!R.Changed) {
      if (Dot)
        Remark(RemarkKind::Missed, R.Culprit ? *R.Culprit : loopLocation(*L),
               "loop not pipelined: " + R.Reason);
      continue;
    }
    Changed = true;
    unsigned Full = R.NumLoads;
    for (const LoopPipelineResult::RegisterLoad &RL : R.RegisterLoads)
      Full -= RL.Depth > 0;
    auto Loads = [](unsigned N) { return std::to_string(N) + (N == 1 ? " load" : " loads"); };
    std::string Ahead = std::to_string(NumStages - 1) + " iteration" + (NumStages == 2 ? "" : "s");
    std::string What = Loads(Full) + " feeding a dot issued " + Ahead + " ahead";
    if (Full < R.NumLoads)
      What = (Full ? What + ", " : std::string()) + Loads(R.NumLoads - Full) +
             " feeding a dot kept in registers and issued fewer iterations ahead";
    Remark(RemarkKind::Passed, loopLocation(*L),
           "loop pipelined with " + std::to_string(NumStages) + " stages: " + What);
    for (const LoopPipelineResult::RegisterLoad &RL : R.RegisterLoads)
      RemarkAt(RL.Loc, "this dot operand load is issued " +
                           (RL.Depth ? std::to_string(RL.Depth) + " iteration" +
                                           (RL.Depth == 1 ? "" : "s") + " ahead, not " +
                                           std::to_string(NumStages - 1)
                                     : std::string("in its own iteration")) +
                           ": it is a load " + RL.Why +
                           "; held in registers, each iteration ahead holds one more tile there "
                           "(register_stages " +
                           std::to_string(RegisterStages) + ")");
    if (AcrossTiles && prefetchAcrossTiles(*L))
      Remark(RemarkKind::Passed, loopLocation(*L),
             "the loop's prologue for the next tile is issued above the current tile's epilogue");
  }
  return Changed;
}

std::unique_ptr<Pass> createLoopPipelinePass(unsigned NumStages, bool AcrossTiles,
                                             AsyncCopyFilter Copies, unsigned RegisterStages) {
  return std::make_unique<LoopPipelinePass>(NumStages, AcrossTiles, std::move(Copies),
                                            RegisterStages);
}

std::unique_ptr<Pass> createLoopPipelinePass() {
  return createLoopPipelinePass(DefaultPipelineStages);
}

} // namespace tritonc::transform
