//===- IRTestUtil.h - Shared helpers of the IR unit tests ------*- C++ -*-===//
#pragma once

#include "tritonc/ir/Builder.h"
#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Printer.h"

#include <memory>
#include <string>

namespace tritonc::ir::test {

/// Result of parsing a string: the module (null on error) and the rendered
/// diagnostics.
struct ParseResult {
  std::unique_ptr<Module> M;
  std::string Diags;
};

inline ParseResult parseString(const std::string &Text) {
  SourceManager SM;
  FileId Id = SM.addBuffer("test.tir", Text);
  DiagnosticEngine Diags(SM);
  ParseResult R;
  R.M = parseIR(SM, Id, Diags);
  R.Diags = Diags.formatAll();
  return R;
}

/// The vector-add kernel of docs/IR.md, built with the IRBuilder.
inline Function *buildAddKernel(Module &M) {
  const Type *F32 = Type::getF32(), *I32 = Type::getI32();
  const Type *PF32 = Type::getPointer(F32);
  Function *F = M.createFunction("add", Type::getVoid(), {PF32, PF32, I32});
  F->attrs().IsKernel = true;
  F->getArg(0)->setName("X");
  F->getArg(0)->attrs().NoAlias = true;
  F->getArg(0)->attrs().ReadOnly = true;
  F->getArg(0)->attrs().Aligned = 16;
  F->getArg(1)->setName("Y");
  F->getArg(2)->setName("N");
  F->getArg(2)->attrs().MultipleOf = 16;
  IRBuilder B(M);
  B.setInsertPoint(F->createBlock("entry"));
  Instruction *Pid = B.createGetProgramId(0);
  Pid->setName("pid");
  Instruction *Mul = B.createBinary(Opcode::Mul, Pid, B.getI32(128));
  Instruction *S = B.createSplat(Mul, {128});
  Instruction *R = B.createMakeRange(0, 128);
  Instruction *Off = B.createBinary(Opcode::Add, S, R);
  Off->setName("off");
  Instruction *NS = B.createSplat(F->getArg(2), {128});
  Instruction *Mask = B.createICmp(CmpPredicate::SLT, Off, NS);
  Mask->setName("mask");
  Instruction *XS = B.createSplat(F->getArg(0), {128});
  Instruction *PX = B.createGEP(XS, Off);
  PX->setName("px");
  Instruction *Zero = B.createSplat(B.getFloat(F32, 0), {128});
  Instruction *X = B.createMaskedLoad(PX, Mask, Zero);
  X->setName("x");
  Instruction *YS = B.createSplat(F->getArg(1), {128});
  Instruction *PY = B.createGEP(YS, Off);
  PY->setName("py");
  B.createMaskedStore(PY, X, Mask);
  B.createRet();
  return F;
}

/// The printed form of buildAddKernel (the example of docs/IR.md).
inline const char *AddKernelText =
    "define kernel void @add(f32* %X noalias readonly aligned(16), f32* %Y, i32 %N "
    "multipleof(16)) {\n"
    "entry:\n"
    "  %pid = get_program_id 0 : i32\n"
    "  %0 = mul %pid, i32 128 : i32\n"
    "  %1 = splat %0 : i32<128>\n"
    "  %2 = make_range 0, 128 : i32<128>\n"
    "  %off = add %1, %2 : i32<128>\n"
    "  %3 = splat %N : i32<128>\n"
    "  %mask = icmp slt %off, %3 : i1<128>\n"
    "  %4 = splat %X : f32*<128>\n"
    "  %px = gep %4, %off : f32*<128>\n"
    "  %5 = splat f32 0 : f32<128>\n"
    "  %x = masked_load %px, %mask, %5 : f32<128>\n"
    "  %6 = splat %Y : f32*<128>\n"
    "  %py = gep %6, %off : f32*<128>\n"
    "  masked_store %py, %x, %mask\n"
    "  ret\n"
    "}\n";

/// A loop summing 0..N-1: entry -> loop (phi) -> exit, with a back edge.
inline const char *LoopText = "define i32 @sum(i32 %n) {\n"
                              "entry:\n"
                              "  br ^loop\n"
                              "loop:\n"
                              "  %i = phi [i32 0, ^entry], [%i.next, ^loop] : i32\n"
                              "  %acc = phi [i32 0, ^entry], [%acc.next, ^loop] : i32\n"
                              "  %acc.next = add %acc, %i : i32\n"
                              "  %i.next = add %i, i32 1 : i32\n"
                              "  %c = icmp slt %i.next, %n : i1\n"
                              "  cond_br %c, ^loop, ^exit\n"
                              "exit:\n"
                              "  ret %acc.next\n"
                              "}\n";

/// Every opcode's syntax, in one valid module of two functions.
inline const char *AllOpcodes =
    "define kernel void @all(f16* %a, f32* %b, i32 %n, i8* %q, f64* %d) {\n"
    "entry:\n"
    "  %pid = get_program_id 1 : i32\n"
    "  %np = get_num_programs 2 : i32\n"
    "  %r = make_range 0, 16 : i32<16>\n"
    "  %r2 = reshape %r : i32<16,1>\n"
    "  %rb = broadcast %r2 : i32<16,16>\n"
    "  %rt = trans %rb : i32<16,16>\n"
    "  %s = add %rb, %rt : i32<16,16>\n"
    "  %0 = sub %s, %rt : i32<16,16>\n"
    "  %1 = mul %pid, %np : i32\n"
    "  %2 = sdiv %1, i32 3 : i32\n"
    "  %3 = udiv %2, i32 3 : i32\n"
    "  %4 = srem %3, i32 3 : i32\n"
    "  %5 = urem %4, i32 3 : i32\n"
    "  %6 = shl %5, i32 1 : i32\n"
    "  %7 = lshr %6, i32 1 : i32\n"
    "  %8 = ashr %7, i32 1 : i32\n"
    "  %9 = and %8, i32 255 : i32\n"
    "  %10 = or %9, i32 1 : i32\n"
    "  %11 = xor %10, i32 -1 : i32\n"
    "  %12 = smin %11, %n : i32\n"
    "  %13 = smax %12, %n : i32\n"
    "  %14 = umin %13, %n : i32\n"
    "  %15 = umax %14, %n : i32\n"
    "  %16 = iabs %15 : i32\n"
    "  %pa = splat %a : f16*<16,16>\n"
    "  %pa2 = gep %pa, %0 : f16*<16,16>\n"
    "  %x = load %pa2 : f16<16,16>\n"
    "  %xt = trans %x : f16<16,16>\n"
    "  %acc = splat f32 0 : f32<16,16>\n"
    "  %dt = dot %x, %xt, %acc : f32<16,16>\n"
    "  %f0 = fadd %dt, %dt : f32<16,16>\n"
    "  %f1 = fsub %f0, %dt : f32<16,16>\n"
    "  %f2 = fmul %f1, %dt : f32<16,16>\n"
    "  %f3 = fdiv %f2, %dt : f32<16,16>\n"
    "  %f4 = frem %f3, %dt : f32<16,16>\n"
    "  %f5 = fmin %f4, %dt : f32<16,16>\n"
    "  %f6 = fmax %f5, %dt : f32<16,16>\n"
    "  %u0 = fneg %f6 : f32<16,16>\n"
    "  %u1 = exp %u0 : f32<16,16>\n"
    "  %u2 = log %u1 : f32<16,16>\n"
    "  %u3 = sqrt %u2 : f32<16,16>\n"
    "  %u4 = rsqrt %u3 : f32<16,16>\n"
    "  %u5 = sin %u4 : f32<16,16>\n"
    "  %u6 = cos %u5 : f32<16,16>\n"
    "  %u7 = tanh %u6 : f32<16,16>\n"
    "  %u8 = fabs %u7 : f32<16,16>\n"
    "  %u9 = floor %u8 : f32<16,16>\n"
    "  %u10 = ceil %u9 : f32<16,16>\n"
    "  %fm = fma %u10, %u10, %dt : f32<16,16>\n"
    "  %red = reduce fadd %fm, 1 : f32<16>\n"
    "  %mx = reduce fmax %red, 0 : f32\n"
    "  %ir = reduce umin %s, 0 : i32<16>\n"
    "  %m = fcmp olt %fm, %dt : i1<16,16>\n"
    "  %m2 = icmp uge %s, %rt : i1<16,16>\n"
    "  %m3 = and %m, %m2 : i1<16,16>\n"
    "  %sel = select %m3, %fm, %dt : f32<16,16>\n"
    "  %h = fptrunc %sel : f16<16,16>\n"
    "  %e = fpext %h : f32<16,16>\n"
    "  %i = fptosi %e : i32<16,16>\n"
    "  %iu = fptoui %e : i32<16,16>\n"
    "  %fi = sitofp %i : f32<16,16>\n"
    "  %fu = uitofp %iu : f64<16,16>\n"
    "  %l = sext %i : i64<16,16>\n"
    "  %z = zext %m : i8<16,16>\n"
    "  %t = trunc %l : i16<16,16>\n"
    "  %bc = bitcast %fi : i32<16,16>\n"
    "  %pb = splat %b : f32*<16,16>\n"
    "  %pbi = ptrtoint %pb : i64<16,16>\n"
    "  %pbp = inttoptr %pbi : f32*<16,16>\n"
    "  %pbc = bitcast %pbp : i32*<16,16>\n"
    "  %old = atomic_rmw fadd %pbp, %fi, %m : f32<16,16>\n"
    "  %old2 = atomic_rmw xchg %pbp, %fi : f32<16,16>\n"
    "  %cas = atomic_cas %pbc, %bc, %bc : i32<16,16>\n"
    "  %ml = masked_load %pbp, %m, %fi : f32<16,16>\n"
    "  masked_store %pbp, %ml, %m3\n"
    "  store %pbp, %e\n"
    "  store %b, %mx\n"
    "  %c = icmp sgt %n, i32 0 : i1\n"
    "  cond_br %c, ^then, ^done\n"
    "then:\n"
    "  %q8 = load %q : i8\n"
    "  %dd = load %d : f64\n"
    "  br ^done\n"
    "done:\n"
    "  %ph = phi [i8 0, ^entry], [%q8, ^then] : i8\n"
    "  store %q, %ph\n"
    "  ret\n"
    "}\n"
    "\n"
    "define i64 @g(i64 %v) {\n"
    "entry:\n"
    "  ret %v\n"
    "}\n";

} // namespace tritonc::ir::test
