//===- LoweringAccesses.cpp - The memory the PTX lowering touches ---------===//
//
// See LoweringAccesses.h.
//
//===----------------------------------------------------------------------===//
#include "tritonc/analysis/LoweringAccesses.h"

#include "tritonc/analysis/LayoutAssignment.h"

namespace tritonc::analysis {

using ir::Instruction;
using ir::Opcode;

namespace {

SyncStatement scratch(bool Write) {
  SyncStatement S;
  (Write ? S.Writes : S.Reads).push_back(ScratchUnit);
  return S;
}

/// A write of the scratch, then a read of it (one round trip).
void roundTrip(std::vector<SyncStatement> &Out) {
  Out.push_back(scratch(true));
  Out.push_back(scratch(false));
}

/// The layout a relabeling (reshape, trans, broadcast) reads its operand in
/// to give its result layout L; nullopt for other instructions.
std::optional<LinearLayout> relabeledOperandLayout(const Instruction &I, const LinearLayout &L) {
  switch (I.getOpcode()) {
  case Opcode::Reshape:
    return reshapeLayout(L, I.getOperand(0)->getType()->getShape());
  case Opcode::Trans:
    return transposeLayout(L);
  case Opcode::Broadcast:
    return broadcastOperandLayout(L, I.getOperand(0)->getType()->getShape());
  default:
    return std::nullopt;
  }
}

/// A dot operand the lowering reads from its slot (a local_load).
bool readFromSlot(const ir::Value *V) {
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(beforeConversions(V)));
  return I && I->getOpcode() == Opcode::LocalLoad;
}

/// Whether the lowering of dot I may store an operand to scratch: every
/// kind of dot reads its operands from shared memory (ldmatrix, wgmma
/// descriptors, the FMA loops' loads), a local_load operand from its slot,
/// the others staged.
bool dotStages(const Instruction &I) {
  return !(readFromSlot(I.getOperand(0)) && readFromSlot(I.getOperand(1)));
}

/// The reduced axis spans warps: partial results meet in scratch.
bool reducesAcrossWarps(const Instruction &I) {
  std::optional<LinearLayout> L = typedLayout(I.getOperand(0));
  if (!L)
    return false;
  for (int32_t Bit = 0; Bit < L->getInDimSizeLog2("warp"); ++Bit)
    if (L->getBasis("warp", Bit)[static_cast<size_t>(I.Axis)] != 0)
      return true;
  return false;
}

/// Some element of L is held by several threads (one of them owns it).
bool replicatesOverThreads(const LinearLayout &L) {
  for (const auto &[Dim, Mask] : L.getFreeVariableMasks())
    if ((Dim == "lane" || Dim == "warp") && Mask != 0)
      return true;
  return false;
}

} // namespace

const ir::Value *beforeConversions(const ir::Value *V) {
  while (const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V))) {
    if (I->getOpcode() != Opcode::ConvertLayout)
      break;
    V = I->getOperand(0);
  }
  return V;
}

bool LoweringAccesses::readThroughScratch(const ir::Value *V, const LinearLayout &Want) {
  // As the lowering reads V in layout Want: a convert_layout reads its
  // source, a value in its own layout is there, a relabeling reads its
  // operand relabeled, the rest move between threads if they must.
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  if (!I)
    return false;
  if (I->getOpcode() == Opcode::ConvertLayout)
    return readThroughScratch(I->getOperand(0), Want);
  bool Remat = Remats.isRematerializable(V);
  std::optional<LinearLayout> Have = typedLayout(V);
  if (!Have || (!Remat && *Have == Want))
    return false;
  if (std::optional<LinearLayout> Relabeled = relabeledOperandLayout(*I, Want))
    return readThroughScratch(I->getOperand(0), *Relabeled);
  if (Remat || registerRemap(*Have, Want) || (Remats.isRecomputable(V) && BlockRunsOnce))
    return false;
  return Converted.insert({V, compactLayoutString(Want)}).second;
}

void LoweringAccesses::conversionsOf(const ir::Value *Operand, std::vector<SyncStatement> &Out) {
  if (std::optional<LinearLayout> Want = typedLayout(Operand))
    if (readThroughScratch(Operand, *Want))
      roundTrip(Out);
}

void LoweringAccesses::convertedBranchOperands(const Instruction &Br,
                                               std::vector<SyncStatement> &Out) {
  const ir::BasicBlock *From = Br.getParent();
  for (const ir::BasicBlock *Succ : From->successors())
    for (const auto &P : Succ->instructions()) {
      if (P->getOpcode() != Opcode::Phi)
        break;
      if (const ir::Value *In = P->getIncomingValueFor(From))
        conversionsOf(In, Out);
    }
}

std::vector<SyncStatement> LoweringAccesses::of(const Instruction &I) {
  if (I.getParent() != Block) {
    Block = I.getParent();
    BlockRunsOnce = !Block->leadsTo(Block);
    Converted.clear();
  }
  std::vector<SyncStatement> Out;
  Opcode Op = I.getOpcode();
  if (Op == Opcode::Phi || Op == Opcode::ConvertLayout)
    return Out;
  if (I.isTerminator()) {
    convertedBranchOperands(I, Out);
    return Out;
  }
  bool Atomic = Op == Opcode::AtomicRMW || Op == Opcode::AtomicCAS;
  bool ScalarAtomic = Atomic && !I.getOperand(0)->getType()->isTile();
  if (ScalarAtomic) {
    SyncStatement Barrier;
    Barrier.IsBarrier = true;
    Out.push_back(Barrier);
  }
  if (std::optional<LinearLayout> Own = typedLayout(&I)) {
    // A relabeling reads its operand in the relabeled layout of its own.
    if (std::optional<LinearLayout> Wanted = relabeledOperandLayout(I, *Own)) {
      if (readThroughScratch(I.getOperand(0), *Wanted))
        roundTrip(Out);
      return Out;
    }
  }
  for (const ir::Value *V : I.operands())
    conversionsOf(V, Out);
  switch (Op) {
  case Opcode::Reduce:
    if (reducesAcrossWarps(I))
      roundTrip(Out);
    break;
  case Opcode::Dot:
    if (dotStages(I))
      roundTrip(Out);
    break;
  case Opcode::Load:
  case Opcode::MaskedLoad: {
    std::optional<LinearLayout> L = typedLayout(&I);
    if (I.getType()->isTile() && !L)
      break; // not laid out: nothing to say
    Out.push_back(Keys.access(I.getOperand(0), true, false, L ? &*L : nullptr));
    break;
  }
  case Opcode::Store:
  case Opcode::MaskedStore: {
    std::optional<LinearLayout> L = typedLayout(I.getOperand(1));
    if (I.getOperand(0)->getType()->isTile() && !L)
      break;
    Out.push_back(Keys.access(I.getOperand(0), false, true, L ? &*L : nullptr));
    break;
  }
  case Opcode::CpAsync: {
    std::optional<LinearLayout> L = typedLayout(I.getOperand(1));
    if (L)
      Out.push_back(Keys.access(I.getOperand(1), true, false, &*L));
    break;
  }
  case Opcode::AtomicRMW:
  case Opcode::AtomicCAS: {
    if (ScalarAtomic) {
      Out.push_back(Keys.access(I.getOperand(0), true, true, nullptr, /*Thread0=*/true));
      roundTrip(Out); // thread 0's result to every thread
      break;
    }
    std::optional<LinearLayout> L = typedLayout(&I);
    if (!L)
      break;
    Out.push_back(Keys.access(I.getOperand(0), true, true, &*L));
    if (replicatesOverThreads(*L) && I.hasUses())
      roundTrip(Out); // the owners' results to the other holders
    break;
  }
  default:
    break;
  }
  return Out;
}

bool conflictsWithSegment(const std::vector<SyncStatement> &Segment, const SyncStatement &Next) {
  SyncBlock Line;
  Line.Statements = Segment;
  Line.Statements.push_back(Next);
  for (const BarrierPoint &P : placeBarriers({Line}))
    if (P.Statement == Segment.size())
      return true;
  return false;
}

std::vector<SyncStatement> withInternalBarriers(const std::vector<SyncStatement> &Statements) {
  std::vector<SyncStatement> Out, Segment;
  auto Close = [&] {
    if (Segment.empty())
      return;
    SyncStatement Merged;
    for (const SyncStatement &S : Segment)
      for (auto [To, From] : {std::pair{&Merged.Reads, &S.Reads},
                              {&Merged.Writes, &S.Writes},
                              {&Merged.Marks, &S.Marks},
                              {&Merged.Probes, &S.Probes},
                              {&Merged.WarMarks, &S.WarMarks},
                              {&Merged.WarProbes, &S.WarProbes}})
        To->insert(To->end(), From->begin(), From->end());
    Out.push_back(std::move(Merged));
    Segment.clear();
  };
  SyncStatement Barrier;
  Barrier.IsBarrier = true;
  for (const SyncStatement &S : Statements) {
    if (S.IsBarrier || conflictsWithSegment(Segment, S)) {
      Close();
      Out.push_back(Barrier);
    }
    if (!S.IsBarrier)
      Segment.push_back(S);
  }
  Close();
  return Out;
}

} // namespace tritonc::analysis
