//===- PTXKernels.cpp - Sample kernels written with PTXBuilder ------------===//

#include "PTXKernels.h"

namespace tritonc::ptx::samples {

namespace {

/// Global address of element Index (u32) of the array whose pointer is the
/// u64 parameter Param: cvta.to.global(param) + Index * ElemBytes.
Reg elementAddress(PTXFunctionBuilder &B, const std::string &Param, const Reg &Index,
                   unsigned ElemBytes) {
  Reg Base = B.cvtaToGlobal(B.ldParam(Ty::U64, Param));
  Reg Off = B.mulWide(Ty::U32, Index, ElemBytes);
  return B.add(Ty::U64, Base, Off);
}

} // namespace

std::string vecAddF32(PTXTarget T) {
  PTXModule M(T);
  PTXFunctionBuilder &B = M.addKernel("vec_add_f32");
  std::string X = B.addParam(Ty::U64), Y = B.addParam(Ty::U64), Z = B.addParam(Ty::U64),
              N = B.addParam(Ty::U32);
  B.setNumWarps(4);
  B.comment("each thread owns 4 consecutive elements");
  Reg Pid = B.special(SpecialReg::CtaIdX);
  Reg Tid = B.special(SpecialReg::TidX);
  Reg Off = B.madLo(Ty::U32, Pid, 512, B.shl(Ty::U32, Tid, 2));
  Reg Len = B.ldParam(Ty::U32, N);
  Reg PX = elementAddress(B, X, Off, 4);
  Reg PY = elementAddress(B, Y, Off, 4);
  Reg PZ = elementAddress(B, Z, Off, 4);
  Reg Rem = B.bitAnd(Ty::U32, Len, 3);
  std::string Scalar = B.newLabel("scalar"), Done = B.newLabel("done");
  B.braIf(B.setp(Cmp::Ne, Ty::U32, Rem, 0), Scalar);

  B.comment("aligned: the whole vector is in bounds iff its first element is");
  Reg InBounds = B.setp(Cmp::Lt, Ty::U32, Off, Len);
  std::vector<Reg> A =
      B.ldMasked(StateSpace::Global, Ty::F32, 4, PX, 0, InBounds, {Operand::f32(0.0f)});
  std::vector<Reg> C = B.ldGlobal(Ty::F32, 4, PY, 0, Guard{InBounds, false});
  std::vector<Reg> S;
  for (unsigned I = 0; I < 4; ++I)
    S.push_back(B.add(Ty::F32, A[I], C[I]));
  B.stGlobal(Ty::F32, PZ, 0, S, Guard{InBounds, false});
  B.bra(Done, /*Uniform=*/true);

  B.label(Scalar);
  for (unsigned I = 0; I < 4; ++I) {
    Reg Mask = B.setp(Cmp::Lt, Ty::U32, B.add(Ty::U32, Off, I), Len);
    Reg AV = B.ldMasked(StateSpace::Global, Ty::F32, 1, PX, 4 * I, Mask, {Operand::f32(0.0f)})[0];
    Reg CV = B.ldMasked(StateSpace::Global, Ty::F32, 1, PY, 4 * I, Mask, {Operand::f32(0.0f)})[0];
    Reg Sum = B.add(Ty::F32, AV, CV);
    auto G = B.guard(Mask);
    B.stGlobal(Ty::F32, PZ, 4 * I, {Sum});
  }
  B.label(Done);
  B.ret();
  return M.str();
}

std::string blockReduceF32(PTXTarget T) {
  PTXModule M(T);
  M.addExternShared("smem");
  PTXFunctionBuilder &B = M.addKernel("block_reduce_f32");
  std::string X = B.addParam(Ty::U64), Y = B.addParam(Ty::U64), N = B.addParam(Ty::U32);
  B.setNumWarps(4, ThreadBound::ReqNTid);
  Reg Pid = B.special(SpecialReg::CtaIdX);
  Reg Tid = B.special(SpecialReg::TidX);
  Reg Idx = B.madLo(Ty::U32, Pid, 128, Tid);
  Reg Mask = B.setp(Cmp::Lt, Ty::U32, Idx, B.ldParam(Ty::U32, N));
  Reg V = B.ldMasked(StateSpace::Global, Ty::F32, 1, elementAddress(B, X, Idx, 4), 0, Mask,
                     {Operand::f32(0.0f)})[0];
  B.comment("butterfly reduction inside the warp");
  for (int Delta = 16; Delta >= 1; Delta /= 2)
    V = B.add(Ty::F32, V, B.shflSync(ShflMode::Bfly, V, Delta, 31));
  Reg Lane = B.special(SpecialReg::LaneId);
  Reg Warp = B.shr(Ty::U32, Tid, 5);
  Reg Smem = B.sharedAddress("smem");
  Reg Slot = B.madLo(Ty::U32, Warp, 4, Smem);
  {
    auto G = B.guard(B.setp(Cmp::Eq, Ty::U32, Lane, 0));
    B.stShared(Ty::F32, Slot, 0, {V});
  }
  B.barSync(0);
  std::string Skip = B.newLabel("skip");
  B.braIf(B.setp(Cmp::Ne, Ty::U32, Tid, 0), Skip);
  std::vector<Reg> Parts = B.ldShared(Ty::B32, 4, Smem);
  Reg Sum = B.bitcast(Ty::F32, Parts[0]);
  for (unsigned I = 1; I < 4; ++I)
    Sum = B.add(Ty::F32, Sum, B.bitcast(Ty::F32, Parts[I]));
  B.stGlobal(Ty::F32, elementAddress(B, Y, Pid, 4), 0, {Sum});
  B.label(Skip);
  B.ret();
  return M.str();
}

std::string scaleF16(PTXTarget T) {
  PTXModule M(T);
  PTXFunctionBuilder &B = M.addKernel("scale_f16");
  std::string X = B.addParam(Ty::U64), Y = B.addParam(Ty::U64), Scale = B.addParam(Ty::F32),
              N = B.addParam(Ty::U32);
  B.setNumWarps(2);
  // 256 bytes of dynamic shared memory (kernels declare no static arrays).
  M.addExternShared("stage", 16);
  Reg Tid = B.special(SpecialReg::TidX);
  Reg Pair = B.madLo(Ty::U32, B.special(SpecialReg::CtaIdX), 64, Tid);
  Reg First = B.shl(Ty::U32, Pair, 1);
  Reg Mask = B.setp(Cmp::Lt, Ty::U32, B.add(Ty::U32, First, 1), B.ldParam(Ty::U32, N));
  Reg S = B.ldParam(Ty::F32, Scale);
  Reg Packed =
      B.ldMasked(StateSpace::Global, Ty::F16x2, 1, elementAddress(B, X, First, 2), 0, Mask, {0})[0];
  auto [Lo, Hi] = B.unpack2x16(Packed);
  Reg LoS = B.cvt(Ty::F16, Ty::F32, B.mul(Ty::F32, B.cvt(Ty::F32, Ty::F16, Lo), S));
  Reg HiS = B.cvt(Ty::F16, Ty::F32, B.mul(Ty::F32, B.cvt(Ty::F32, Ty::F16, Hi), S));
  B.comment("round-trip through shared memory");
  Reg Slot = B.madLo(Ty::U32, Tid, 4, B.sharedAddress("stage"));
  B.stShared(Ty::F16x2, Slot, 0, {B.pack2x16(LoS, HiS)});
  B.barSync();
  Reg Back = B.ldShared(Ty::F16x2, 1, Slot)[0];
  B.stGlobal(Ty::F16x2, elementAddress(B, Y, First, 2), 0, {Back}, Guard{Mask, false});
  B.ret();
  return M.str();
}

std::string spinLock(PTXTarget T) {
  PTXModule M(T);
  PTXFunctionBuilder &B = M.addKernel("spin_lock");
  std::string Lock = B.addParam(Ty::U64), Counter = B.addParam(Ty::U64);
  B.setNumWarps(1);
  std::string Exit = B.newLabel("exit");
  B.braIf(B.setp(Cmp::Ne, Ty::U32, B.special(SpecialReg::TidX), 0), Exit);
  Reg LockPtr = B.cvtaToGlobal(B.ldParam(Ty::U64, Lock));
  Reg CounterPtr = B.cvtaToGlobal(B.ldParam(Ty::U64, Counter));
  std::string Spin = B.newLabel("spin");
  B.label(Spin);
  Reg Old = B.atom(StateSpace::Global, AtomOp::Cas, Ty::B32, LockPtr, 0, Operand(1));
  B.braIf(B.setp(Cmp::Ne, Ty::B32, Old, 0), Spin);
  B.fence(FenceScope::Gpu);
  Reg C = B.ldGlobal(Ty::U32, 1, CounterPtr)[0];
  B.stGlobal(Ty::U32, CounterPtr, 0, {B.add(Ty::U32, C, 1)});
  B.fence(FenceScope::Gpu);
  B.atom(StateSpace::Global, AtomOp::Exch, Ty::B32, LockPtr, 0);
  B.label(Exit);
  B.ret();
  return M.str();
}

std::string mixedOps(PTXTarget T) {
  PTXModule M(T);
  PTXFunctionBuilder &B = M.addKernel("mixed_ops");
  std::string Out = B.addParam(Ty::U64), F = B.addParam(Ty::F32), D = B.addParam(Ty::F64),
              I = B.addParam(Ty::S32), H = B.addParam(Ty::F16);
  B.setNumWarps(8);
  Reg Ptr = B.cvtaToGlobal(B.ldParam(Ty::U64, Out));
  Reg FV = B.ldParam(Ty::F32, F);
  Reg DV = B.ldParam(Ty::F64, D);
  Reg IV = B.ldParam(Ty::S32, I);
  Reg HV = B.ldParam(Ty::F16, H);
  Reg Y = B.special(SpecialReg::CtaIdY), Zc = B.special(SpecialReg::CtaIdZ);
  Reg NX = B.special(SpecialReg::NCtaIdX), NY = B.special(SpecialReg::NCtaIdY);
  Reg NZ = B.special(SpecialReg::NCtaIdZ), TY = B.special(SpecialReg::TidY);
  Reg TZ = B.special(SpecialReg::TidZ);
  Reg U = B.add(Ty::U32, B.mul(Ty::U32, Y, NX), B.sub(Ty::U32, Zc, NY));
  U = B.bitXor(Ty::U32, B.bitOr(Ty::U32, U, NZ), B.div(Ty::U32, TY, 3));
  U = B.max(Ty::U32, B.min(Ty::U32, U, B.rem(Ty::U32, TZ, 7)), 1);
  U = B.unary(MathOp::Not, Ty::U32, U);
  Reg SI = B.shr(Ty::S32, B.div(Ty::S32, IV, -3), 1);
  SI = B.add(Ty::S32, B.rem(Ty::S32, SI, 5), B.binary(BinOp::MulHi, Ty::S32, IV, SI));
  Reg E = B.unary(MathOp::Ex2Approx, Ty::F32, FV);
  E = B.add(Ty::F32, E, B.unary(MathOp::Lg2Approx, Ty::F32, FV));
  E = B.fma(Ty::F32, E, B.unary(MathOp::RcpApprox, Ty::F32, FV), Operand::f32(1.5f));
  E = B.sub(Ty::F32, E, B.unary(MathOp::SqrtApprox, Ty::F32, B.unary(MathOp::Abs, Ty::F32, FV)));
  E = B.max(Ty::F32, B.min(Ty::F32, E, B.unary(MathOp::RsqrtApprox, Ty::F32, FV)),
            Operand::f32(0.0f));
  E = B.div(Ty::F32, E, B.unary(MathOp::Neg, Ty::F32, FV));
  E = B.add(Ty::F32, B.unary(MathOp::SinApprox, Ty::F32, E),
            B.unary(MathOp::CosApprox, Ty::F32, E));
  E = B.add(Ty::F32, B.unary(MathOp::SqrtRn, Ty::F32, E), B.unary(MathOp::RcpRn, Ty::F32, E));
  E = B.shflSync(ShflMode::Idx, E, 0, 31);
  E = B.shflSync(ShflMode::Up, E, 1, 0);
  E = B.shflSync(ShflMode::Down, E, 2, 31);
  Reg DD = B.fma(Ty::F64, DV, B.cvt(Ty::F64, Ty::F32, E), Operand::f64(0.25));
  Reg Back = B.cvt(Ty::F32, Ty::F64, DD);
  Reg ToInt = B.cvt(Ty::S32, Ty::F32, Back);
  Reg Rz = B.cvt(Ty::F32, Ty::S32, SI, Rounding::Rz);
  Reg HF = B.cvt(Ty::F32, Ty::F16, B.add(Ty::F16, HV, HV));
  Reg BF = B.cvt(Ty::BF16, Ty::F32, HF);
  Reg P = B.predOr(B.setp(Cmp::Ltu, Ty::F32, Rz, HF), B.predNot(B.setp(Cmp::Nan, Ty::F32, Rz, Rz)));
  P = B.predAnd(P, B.setp(Cmp::Ge, Ty::S32, ToInt, SI));
  Reg Sel = B.selp(Ty::S32, ToInt, SI, P);
  Reg HSel = B.selp(Ty::BF16, BF, B.mov(Ty::BF16, Operand::hex(0x3F80)), P);
  Reg Wide = B.cvt(Ty::U64, Ty::U32, B.bitAnd(Ty::U32, U, 0xff));
  Reg Addr = B.add(Ty::U64, Ptr, B.shl(Ty::U64, Wide, B.mov(Ty::U32, 2)));
  B.atom(StateSpace::Global, AtomOp::Add, Ty::F32, Addr, E);
  B.atom(StateSpace::Global, AtomOp::Add, Ty::U32, Addr, U);
  B.atom(StateSpace::Global, AtomOp::Max, Ty::S32, Addr, Sel);
  B.atom(StateSpace::Global, AtomOp::Add, Ty::F16x2, Addr, B.pack2x16(HV, HV));
  Reg Acc = B.mov(Ty::S32, 0);
  std::string Loop = B.newLabel("loop");
  B.label(Loop);
  B.movTo(Acc, B.add(Ty::S32, Acc, 1));
  B.braIf(B.setp(Cmp::Lt, Ty::S32, Acc, 4), Loop);
  B.stGlobal(Ty::S32, Addr, 8, {Acc});
  B.stGlobal(Ty::BF16, Addr, 12, {HSel});
  {
    auto G = B.guard(P, /*Negated=*/true);
    B.stGlobal(Ty::F64, Addr, 16, {DD});
  }
  B.emit("membar.gl");
  B.ret();
  return M.str();
}

std::string broken(PTXTarget T) {
  PTXModule M(T);
  PTXFunctionBuilder &B = M.addKernel("broken");
  B.addParam(Ty::U64);
  B.emit("mov.u32 %undeclared_reg, 1");
  B.ret();
  return M.str();
}

std::vector<SampleModule> allSamples(PTXTarget T) {
  return {{"vec_add_f32", vecAddF32(T)},
          {"block_reduce_f32", blockReduceF32(T)},
          {"scale_f16", scaleF16(T)},
          {"spin_lock", spinLock(T)},
          {"mixed_ops", mixedOps(T)}};
}

} // namespace tritonc::ptx::samples
