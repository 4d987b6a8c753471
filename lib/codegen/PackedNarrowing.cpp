//===- PackedNarrowing.cpp - f32 -> f16 conversions packed where stored ---===//
//
// A tile converted from f32 to f16 (or bf16) and then stored packed, two
// halves to a 32-bit word (the matmul epilogue), would lower to one
// `cvt.rn.f16.f32` per element and one `mov.b32 %r, {lo, hi}` per pair.
// `cvt.rn.f16x2.f32 %r, hi, lo` does both at once. ptxas emits the same
// packing instruction for either form, but the 128 conversions and 64 movs
// of a 128 x 256 epilogue cost it 2.5% of its time on that matmul.
//
// So the choice is made where the pair is packed. A conversion whose only
// reader, in its block, packs pairs (a vectorized store, a bulk tensor
// store, or a store or atomic that takes the tile through shared memory in
// another layout) is not lowered where it stands; nothing between the two
// may write its f32 registers (no dot: an in-flight wgmma accumulates in
// its phi's registers). The reader takes it as PackableRegs, the f32
// registers and the type to round to: packing a pair of those emits the
// packed conversion, and an element taken alone is converted there.
//
//===----------------------------------------------------------------------===//
#include "Lowering.h"

namespace tritonc::codegen {

using ir::Instruction;
using ir::Opcode;

PackableRegs::PackableRegs(Regs W, Ty Half) : Elements(W.size()), Wide(std::move(W)), Half(Half) {}

Reg PackableRegs::element(ptx::PTXFunctionBuilder &B, size_t R) const {
  if (!Elements[R].valid())
    Elements[R] = B.cvt(Half, Ty::F32, Wide[R]);
  return Elements[R];
}

Reg PackableRegs::word(ptx::PTXFunctionBuilder &B, size_t Lo) const {
  if (Wide.empty())
    return B.pack2x16(Elements[Lo].as(Ty::B16), Elements[Lo + 1].as(Ty::B16), Ty::B32);
  Ty Packed = Half == Ty::BF16 ? Ty::BF16x2 : Ty::F16x2;
  return B.cvtPack2x16(Wide[Lo], Wide[Lo + 1], Packed).as(Ty::B32);
}

Regs PackableRegs::elements(ptx::PTXFunctionBuilder &B) const {
  for (size_t R = 0; R < Elements.size(); ++R)
    element(B, R);
  return Elements;
}

PackableRegs PackableRegs::remapped(const std::vector<int32_t> &Map) const {
  Regs From = Wide.empty() ? Elements : Wide;
  Regs To;
  for (int32_t Src : Map)
    To.push_back(From[static_cast<size_t>(Src)]);
  if (Wide.empty())
    return PackableRegs(std::move(To));
  return PackableRegs(std::move(To), Half);
}

bool FunctionLowering::isPackableNarrowing(const Instruction &I) const {
  if (I.getOpcode() != Opcode::FPTrunc || !I.getType()->isTile())
    return false;
  const ir::Value *Src = I.getOperand(0);
  Ty Half = ptxTypeOf(I.getType());
  if ((Half != Ty::F16 && Half != Ty::BF16) || ptxTypeOf(Src->getType()) != Ty::F32)
    return false;
  // The f32 registers are taken in the conversion's layout without moving
  // them between threads (a conversion through shared memory moves halves).
  return LA.isRematerializable(Src) || LA.layoutOf(Src) == LA.layoutOf(&I);
}

PackableRegs FunctionLowering::wideNarrowing(const Instruction &I) {
  if (!isPackableNarrowing(I))
    reportInternalError("codegen: not a packable narrowing of f32");
  return PackableRegs(get(I.getOperand(0), LA.layoutOf(&I)), ptxTypeOf(I.getType()));
}

/// The one reader of V, seen through a convert_layout read once (the
/// conversion assign-layouts makes explicit is the reader's: get() lowers it
/// there); null when V has several readers.
static const Instruction *onlyReader(const ir::Value *V) {
  if (V->users().size() != 1)
    return nullptr;
  const Instruction *User = V->users().front();
  if (User->getOpcode() == Opcode::ConvertLayout)
    return onlyReader(User);
  return User;
}

bool FunctionLowering::narrowsAtPackingUse(const Instruction &I) const {
  const Instruction *User = onlyReader(&I);
  if (!isPackableNarrowing(I) || !User)
    return false;
  Opcode Op = User->getOpcode();
  bool Store = Op == Opcode::Store || Op == Opcode::MaskedStore;
  if ((!Store && Op != Opcode::AtomicRMW && Op != Opcode::AtomicCAS) ||
      User->getParent() != I.getParent() || User->getOperand(0) == I.users().front())
    return false;
  // Only where the reader packs pairs; elsewhere the conversion stays put.
  const LinearLayout &Own = LA.layoutOf(&I);
  const AccessPlan &Plan = LA.accessOf(User);
  bool InRegisters = Plan.Layout == Own || registerRemap(Own, Plan.Layout).has_value();
  if (InRegisters ? !Store || Plan.Vec < 2 : sharedVectorWidth(Own, 2) < 2)
    return false;
  // From the conversion to the reader, nothing may write the f32 registers
  // in place: no dot (an in-flight wgmma accumulates in its phi's registers).
  bool After = false;
  for (const auto &IP : I.getParent()->instructions()) {
    if (IP.get() == User)
      return After;
    if (IP.get() == &I)
      After = true;
    else if (After && IP->getOpcode() == Opcode::Dot)
      return false;
  }
  return false;
}

PackableRegs FunctionLowering::getForPacking(const ir::Value *V, const LinearLayout &L) {
  const Instruction *I = ir::asInstruction(const_cast<ir::Value *>(V));
  if (I && I->getOpcode() == Opcode::ConvertLayout)
    return getForPacking(I->getOperand(0), L);
  if (!I || !NarrowedAtUse.count(I) || Values.count(I))
    return get(V, L);
  PackableRegs Own = wideNarrowing(*I);
  const LinearLayout &OwnLayout = LA.layoutOf(I);
  if (OwnLayout == L)
    return Own;
  if (auto Map = registerRemap(OwnLayout, L))
    return Own.remapped(*Map);
  remarkSharedConversion(*V);
  return convertViaShared(Own, V->getType()->getScalarType(), V->getType()->getShape(), OwnLayout,
                          L);
}

} // namespace tritonc::codegen
