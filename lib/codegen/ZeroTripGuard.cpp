//===- ZeroTripGuard.cpp - Accumulators zeroed by their first MMA ------------===//
//
// The K loop of a matmul starts its accumulator at zero:
//
//   entry:  c0 = splat 0 ... br header
//   header: c = phi [c0, entry], [d, latch]; k = phi ...; cond = icmp k ...
//           cond_br cond, body, exit
//   body:   d = dot(a, b, c)     (an in-flight wgmma accumulating in c's registers)
//
// Lowered as written, 128 `mov.f32 %f, 0` per thread fill the accumulator
// before the loop, and ptxas spends about a tenth of its time on the
// 128 x 256 x 64 matmul because of them (their definitions reach the wgmma
// pipeline through the loop header). wgmma can zero the accumulator itself:
// with scale-d false it writes A * B without reading D. So the registers
// are left undefined on entry, a predicate that starts false and turns true
// after the first k-step gives the MMAs their scale-d, and the zeros are
// written only on the path that skips the loop:
//
//   entry:  ...; cond0 = icmp (entry values); flag = false
//           @cond0 bra header; c = 0 (128 movs); bra exit
//   header: ... @!cond bra exit' where exit' waits for the MMAs, then exit
//
// The zero path leaves from the preheader and joins after the loop's exit
// edge has waited for the MMAs: ptxas then sees no accumulator defined by
// another instruction while MMAs may be in flight (it would serialize them,
// C7515), and keeps most of the saving (3.7% of its time on that matmul;
// the zeros on the exit edge instead cost more than the movs they replace).
//
// When the accumulator's only reader after the loop is a bulk tensor store
// (through conversions: a conversion of zero is zero), the zero path
// writes no registers at all: it sets a predicate, and the store stages
// zeros in shared memory instead of converting the registers (ptxas spends
// another 9% of its time on the 128 x 256 x 64 matmul on the 128 movs of
// that path, whose definitions join the loop's at the exit).
//
// It applies where the header holds only phis, one integer compare of phis
// and values from outside the loop (read by the branch alone: the zero path
// never defines it), and the branch; the exit block has no
// phis; the accumulator is a zero splat on entry, accumulated in place by
// an in-flight wgmma dot in the header's true successor, and read nowhere
// else inside the loop.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "tritonc/ir/Printer.h"
#include "tritonc/transform/LoopInfo.h"

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

namespace {

const Instruction *asInst(const ir::Value *V) {
  return ir::asInstruction(const_cast<ir::Value *>(V));
}

bool isZeroSplat(const ir::Value *V) {
  const Instruction *S = asInst(V);
  if (!S || S->getOpcode() != Opcode::Splat)
    return false;
  const ir::Constant *C = ir::asConstant(const_cast<ir::Value *>(S->getOperand(0)));
  return C && C->isZero() && S->getType()->isFloatOrFloatTile();
}

} // namespace

std::optional<FunctionLowering::ZeroTripPlan>
FunctionLowering::zeroTripAccumulator(const transform::Loop &L, std::string &Why) {
  auto Decline = [&](std::string Reason) -> std::optional<ZeroTripPlan> {
    Why = std::move(Reason);
    return std::nullopt;
  };
  const ir::BasicBlock &Header = *L.getHeader();
  const ir::BasicBlock *Pre = L.getPreheader();
  const Instruction *Br = Header.getTerminator();
  if (!Pre || L.getLatches().size() != 1 || !Br || Br->getOpcode() != Opcode::CondBr)
    return Decline("the loop has no preheader, several latches, or a header that does not "
                   "decide whether to exit");
  const Instruction *Cond = asInst(Br->getOperand(0));
  // The path that skips the header never defines the compare: nothing else may read it.
  if (!Cond || Cond->getOpcode() != Opcode::ICmp || Cond->getParent() != &Header ||
      Cond->users().size() != 1)
    return Decline("the exit condition is not one integer compare in the header that only the "
                   "branch reads");
  const ir::BasicBlock &Body = *Br->successors()[0], &Exit = *Br->successors()[1];
  if (!L.contains(&Body) || &Body == &Header || L.contains(&Exit))
    return Decline("the header's branch does not enter the loop on its true edge and leave it on "
                   "the false one");
  // Header: phis, the compare, the branch.
  for (const auto &I : Header.instructions())
    if (I->getOpcode() != Opcode::Phi && I.get() != Cond && I.get() != Br)
      return Decline("the loop header computes more than its phis and the exit compare (" +
                     ir::printOperand(*I) + ", " + ir::opcodeName(I->getOpcode()) + ")");
  for (const ir::Value *Op : Cond->operands()) {
    const Instruction *OpI = asInst(Op);
    if (Op->getType()->isTile() ||
        (OpI && OpI->getParent() == &Header && OpI->getOpcode() != Opcode::Phi))
      return Decline("the exit compare reads a tile or a value computed in the header");
  }
  for (const auto &I : Exit.instructions())
    if (I->getOpcode() == Opcode::Phi)
      return Decline("the block after the loop has phis");
  for (const auto &[Dot, Groups] : AsyncDots) {
    const Instruction *Phi = inPlaceAccumulator(*Dot);
    if (!Phi || Phi->getParent() != &Header || Dot->getParent() != &Body ||
        !isZeroSplat(Phi->getIncomingValueFor(Pre)))
      continue;
    bool ReadInLoop = false;
    for (const Instruction *U : Phi->users())
      ReadInLoop = ReadInLoop || (U != Dot && L.contains(U));
    if (!ReadInLoop)
      return ZeroTripPlan{Phi, Dot, Cond, &Header, &Exit, Reg()};
  }
  return Decline("no accumulator of an in-flight wgmma in the loop body starts as a zero splat "
                 "and is read only by its dot inside the loop");
}

const Instruction *
FunctionLowering::zeroStagedStore(const Instruction &Phi, const transform::Loop &L,
                                  std::vector<const Instruction *> &Conversions) const {
  const ir::Value *V = &Phi;
  for (;;) {
    // Inside the loop only the dot reads the accumulator (checked by the
    // caller); after it, one reader.
    const Instruction *Reader = nullptr;
    for (const Instruction *U : V->users()) {
      if (L.contains(U))
        continue;
      if (Reader)
        return nullptr;
      Reader = U;
    }
    if (!Reader)
      return nullptr;
    Opcode Op = Reader->getOpcode();
    if (Op == Opcode::FPTrunc || Op == Opcode::FPExt) {
      Conversions.push_back(Reader);
      V = Reader;
      continue;
    }
    if (Op == Opcode::ConvertLayout) { // a bulk tensor store reads through it
      V = Reader;
      continue;
    }
    bool Stores = (Op == Opcode::Store || Op == Opcode::MaskedStore) &&
                  Reader->getOperand(1) == V && TensorStores.count(Reader);
    return Stores ? Reader : nullptr;
  }
}

void FunctionLowering::planZeroTripGuards(const ir::DominatorTree &DT) {
  transform::LoopInfo LI(F, DT);
  for (const transform::Loop *L : LI.loopsInnermostFirst()) {
    std::string Why;
    std::optional<ZeroTripPlan> P = zeroTripAccumulator(*L, Why);
    if (!P) {
      // Only loops around an in-flight wgmma could have had the guard.
      for (const auto &[Dot, Groups] : AsyncDots)
        if (L->contains(Dot) && LI.getLoopFor(Dot->getParent()) == L)
          remark(RemarkKind::Missed, "zero-trip-guard", *Dot,
                 "the accumulator is zeroed by register moves before the loop, not by the first "
                 "MMA: " +
                     Why);
      continue;
    }
    std::vector<const Instruction *> Conversions;
    const Instruction *Store = zeroStagedStore(*P->Phi, *L, Conversions);
    if (Store) {
      P->Skipped = B.newReg(Ty::Pred);
      DeferredConversions.insert(Conversions.begin(), Conversions.end());
      ZeroStagedStores[Store] = {P->Skipped, std::move(Conversions)};
    }
    remark(RemarkKind::Passed, "zero-trip-guard", *P->Dot,
           std::string("the accumulator starts as the first MMA's result; zeros are written "
                       "only where the loop does not run") +
               (Store ? " (staged by the tensor store, without registers)" : ""));
    ZeroTrips.emplace(L->getPreheader(), *P);
    ZeroTripHeaders.insert(P->Header);
  }
}

void FunctionLowering::emitZeroTripGuard(const ZeroTripPlan &P) {
  // The header's phis hold their entry values here: its compare on them is
  // the first iteration's.
  std::vector<Reg> Ops;
  for (const ir::Value *Op : P.Cond->operands())
    Ops.push_back(scalar(Op));
  Reg Enters = lowerScalarOp(*P.Cond, Ops);
  Reg Flag = B.newReg(Ty::Pred);
  B.emit("setp.ne.u32 " + Flag.name() + ", 0, 0;");
  FirstStepScale[P.Dot] = Flag;
  if (P.Skipped.valid())
    B.emit("setp.ne.u32 " + P.Skipped.name() + ", 0, 0;");
  B.braIf(Enters, Labels.at(P.Header));
  if (P.Skipped.valid())
    B.emit("setp.eq.u32 " + P.Skipped.name() + ", 0, 0;");
  else
    for (const Reg &R : phiRegs(*P.Phi))
      B.movTo(R, ptx::Operand::f32(0.0f));
  B.bra(Labels.at(P.Exit), /*Uniform=*/true);
}

} // namespace tritonc::codegen
