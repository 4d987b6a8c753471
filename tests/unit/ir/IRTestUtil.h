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

} // namespace tritonc::ir::test
