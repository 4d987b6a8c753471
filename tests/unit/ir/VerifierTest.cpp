//===- VerifierTest.cpp - One valid and one invalid case per rule ---------===//
#include "IRTestUtil.h"

#include "tritonc/ir/Verifier.h"

#include <functional>
#include <gtest/gtest.h>

using namespace tritonc;
using namespace tritonc::ir;
using namespace tritonc::ir::test;

namespace {

const Type *I1 = Type::getI1(), *I8 = Type::getInt(8), *I32 = Type::getI32(), *I64 = Type::getI64(),
           *F16 = Type::getF16(), *BF16 = Type::getBF16(), *F32 = Type::getF32();
const Type *t(const Type *E, const Shape &S) { return Type::getTile(E, S); }
const Type *ptr(const Type *E) { return Type::getPointer(E); }

struct TypeCase {
  const char *Name;
  Opcode Op;
  std::vector<const Type *> Operands; ///< Passed as the function's arguments.
  const Type *Result;
  const char *Error; ///< Expected message fragment; null when valid.
  std::function<void(Instruction &)> Setup = nullptr;
};

/// Verifies a function whose entry block holds one instruction over the
/// arguments, then `ret`.
std::vector<std::string> verifyOne(const TypeCase &C) {
  Module M;
  Function *F = M.createFunction("f", Type::getVoid(), C.Operands);
  BasicBlock *BB = F->createBlock("entry");
  std::vector<Value *> Ops;
  for (unsigned K = 0; K < F->getNumArgs(); ++K)
    Ops.push_back(F->getArg(K));
  auto I = Instruction::create(C.Op, C.Result, Ops);
  if (C.Setup)
    C.Setup(*I);
  BB->append(std::move(I));
  BB->append(Instruction::create(Opcode::Ret, Type::getVoid(), {}));
  std::vector<std::string> Errors;
  verifyFunction(*F, Errors);
  return Errors;
}

auto Pred(CmpPredicate P) {
  return [P](Instruction &I) { I.Predicate = P; };
}
auto Red(ReduceKind K, int64_t Axis = 0) {
  return [K, Axis](Instruction &I) {
    I.Reduction = K;
    I.Axis = Axis;
  };
}
auto Axis(int64_t A) {
  return [A](Instruction &I) { I.Axis = A; };
}
auto Range(int64_t S, int64_t E) {
  return [S, E](Instruction &I) {
    I.RangeStart = S;
    I.RangeEnd = E;
  };
}

TEST(Verifier, TypeRules) {
  const Type *V = Type::getVoid();
  std::vector<TypeCase> Cases = {
      {"add", Opcode::Add, {I32, I32}, I32, nullptr},
      {"add mixed", Opcode::Add, {I32, I64}, I32, "operand 1 has type 'i64'"},
      {"add floats", Opcode::Add, {F32, F32}, F32, "needs integer operands"},
      {"add count", Opcode::Add, {I32}, I32, "'add' needs 2 operands, not 1"},
      {"fadd", Opcode::FAdd, {t(F32, {4}), t(F32, {4})}, t(F32, {4}), nullptr},
      {"fadd ints", Opcode::FAdd, {I32, I32}, I32, "needs float operands"},
      {"exp", Opcode::Exp, {t(F16, {4})}, t(F16, {4}), nullptr},
      {"exp int", Opcode::Exp, {I32}, I32, "needs float"},
      {"iabs", Opcode::IAbs, {I8}, I8, nullptr},
      {"fma", Opcode::Fma, {F32, F32, F32}, F32, nullptr},
      {"fma mixed", Opcode::Fma, {F32, F32, Type::getF64()}, F32, "operand 2"},
      {"icmp",
       Opcode::ICmp,
       {t(I32, {4}), t(I32, {4})},
       t(I1, {4}),
       nullptr,
       Pred(CmpPredicate::ULT)},
      {"icmp ptr", Opcode::ICmp, {ptr(F32), ptr(F32)}, I1, nullptr, Pred(CmpPredicate::EQ)},
      {"icmp shape",
       Opcode::ICmp,
       {t(I32, {4}), t(I32, {4})},
       I1,
       "should be 'i1<4>'",
       Pred(CmpPredicate::EQ)},
      {"icmp fpred",
       Opcode::ICmp,
       {I32, I32},
       I1,
       "not an icmp predicate",
       Pred(CmpPredicate::OLT)},
      {"fcmp", Opcode::FCmp, {F32, F32}, I1, nullptr, Pred(CmpPredicate::UNE)},
      {"fcmp ints", Opcode::FCmp, {I32, I32}, I1, "fcmp needs float", Pred(CmpPredicate::OLT)},
      {"trunc", Opcode::Trunc, {I64}, I32, nullptr},
      {"trunc wider", Opcode::Trunc, {I32}, I64, "invalid trunc from 'i32' to 'i64'"},
      {"sext", Opcode::SExt, {t(I1, {4})}, t(I32, {4}), nullptr},
      {"sext shape", Opcode::SExt, {t(I1, {4})}, t(I32, {8}), "cast changes the shape"},
      {"zext same", Opcode::ZExt, {I32}, I32, "invalid zext"},
      {"fptrunc", Opcode::FPTrunc, {F32}, BF16, nullptr},
      {"fpext 16->16", Opcode::FPExt, {F16}, BF16, "invalid fpext"},
      {"fptosi", Opcode::FPToSI, {F32}, I32, nullptr},
      {"fptoui int", Opcode::FPToUI, {I32}, I32, "invalid fptoui"},
      {"sitofp", Opcode::SIToFP, {I64}, F16, nullptr},
      {"uitofp float", Opcode::UIToFP, {F32}, F16, "invalid uitofp"},
      {"ptrtoint", Opcode::PtrToInt, {ptr(F32)}, I64, nullptr},
      {"inttoptr", Opcode::IntToPtr, {I64}, ptr(I8), nullptr},
      {"inttoptr float", Opcode::IntToPtr, {F32}, ptr(I8), "invalid inttoptr"},
      {"bitcast", Opcode::Bitcast, {F32}, I32, nullptr},
      {"bitcast ptr", Opcode::Bitcast, {ptr(F32)}, ptr(ptr(I8)), nullptr},
      {"bitcast width", Opcode::Bitcast, {F32}, I64, "invalid bitcast"},
      {"bitcast ptr-int", Opcode::Bitcast, {ptr(F32)}, I64, "invalid bitcast"},
      {"select", Opcode::Select, {t(I1, {4}), t(F32, {4}), t(F32, {4})}, t(F32, {4}), nullptr},
      {"select scalar cond", Opcode::Select, {I1, t(F32, {4}), t(F32, {4})}, t(F32, {4}), nullptr},
      {"select cond type",
       Opcode::Select,
       {t(I32, {4}), t(F32, {4}), t(F32, {4})},
       t(F32, {4}),
       "select condition"},
      {"select arms", Opcode::Select, {I1, F32, F16}, F32, "select operands"},
      {"gep", Opcode::GEP, {t(ptr(F32), {4}), t(I32, {4})}, t(ptr(F32), {4}), nullptr},
      {"gep shape", Opcode::GEP, {t(ptr(F32), {4}), I32}, t(ptr(F32), {4}), "gep offset"},
      {"gep non-ptr", Opcode::GEP, {F32, I32}, F32, "gep needs a pointer"},
      {"make_range", Opcode::MakeRange, {}, t(I32, {8}), nullptr, Range(8, 16)},
      {"make_range type", Opcode::MakeRange, {}, t(I32, {16}), "should be 'i32<8>'", Range(8, 16)},
      {"make_range empty", Opcode::MakeRange, {}, t(I32, {1}), "start < end", Range(3, 3)},
      {"splat", Opcode::Splat, {I32}, t(I32, {4}), nullptr},
      {"splat tile", Opcode::Splat, {t(I32, {4})}, t(I32, {4, 4}), "needs a scalar"},
      {"splat elem", Opcode::Splat, {I32}, t(F32, {4}), "must be a tile of 'i32'"},
      {"reshape", Opcode::Reshape, {t(I32, {4, 8})}, t(I32, {32}), nullptr},
      {"reshape count", Opcode::Reshape, {t(I32, {4, 8})}, t(I32, {31}), "element type and count"},
      {"broadcast", Opcode::Broadcast, {t(I32, {1, 8})}, t(I32, {4, 8}), nullptr},
      {"broadcast dim", Opcode::Broadcast, {t(I32, {2, 8})}, t(I32, {4, 8}), "dimension 0"},
      {"broadcast rank", Opcode::Broadcast, {t(I32, {8})}, t(I32, {4, 8}), "rank"},
      {"trans", Opcode::Trans, {t(F32, {4, 8})}, t(F32, {8, 4}), nullptr},
      {"trans rank", Opcode::Trans, {t(F32, {4})}, t(F32, {4}), "needs a 2-D tile"},
      {"trans shape", Opcode::Trans, {t(F32, {4, 8})}, t(F32, {4, 8}), "dimensions reversed"},
      {"dot",
       Opcode::Dot,
       {t(F16, {16, 8}), t(F16, {8, 32}), t(F32, {16, 32})},
       t(F32, {16, 32}),
       nullptr},
      {"dot i8",
       Opcode::Dot,
       {t(I8, {16, 8}), t(I8, {8, 32}), t(I32, {16, 32})},
       t(I32, {16, 32}),
       nullptr},
      {"dot inner",
       Opcode::Dot,
       {t(F16, {16, 8}), t(F16, {4, 32}), t(F32, {16, 32})},
       t(F32, {16, 32}),
       "inner dimensions"},
      {"dot acc",
       Opcode::Dot,
       {t(F16, {16, 8}), t(F16, {8, 32}), t(F16, {16, 32})},
       t(F16, {16, 32}),
       "accumulator"},
      {"dot i32",
       Opcode::Dot,
       {t(I32, {16, 8}), t(I32, {8, 32}), t(I32, {16, 32})},
       t(I32, {16, 32}),
       "does not support"},
      {"dot rank", Opcode::Dot, {t(F32, {16}), t(F32, {16}), F32}, F32, "2-D tiles"},
      {"reduce", Opcode::Reduce, {t(F32, {4, 8})}, t(F32, {4}), nullptr, Red(ReduceKind::FAdd, 1)},
      {"reduce 1d", Opcode::Reduce, {t(I32, {8})}, I32, nullptr, Red(ReduceKind::UMax, 0)},
      {"reduce axis",
       Opcode::Reduce,
       {t(F32, {4, 8})},
       t(F32, {4}),
       "axis 2 is out of range",
       Red(ReduceKind::FAdd, 2)},
      {"reduce result",
       Opcode::Reduce,
       {t(F32, {4, 8})},
       t(F32, {8}),
       "should be 'f32<4>'",
       Red(ReduceKind::FMax, 1)},
      {"reduce kind", Opcode::Reduce, {t(F32, {8})}, F32, "needs integers", Red(ReduceKind::Add)},
      {"reduce xchg",
       Opcode::Reduce,
       {t(I32, {8})},
       I32,
       "not a reduce kind",
       Red(ReduceKind::Xchg)},
      {"load", Opcode::Load, {t(ptr(F32), {4})}, t(F32, {4}), nullptr},
      {"load type", Opcode::Load, {t(ptr(F32), {4})}, t(F16, {4}), "should be 'f32<4>'"},
      {"load non-ptr", Opcode::Load, {I32}, I32, "needs a pointer"},
      {"store", Opcode::Store, {t(ptr(F32), {4}), t(F32, {4})}, V, nullptr},
      {"store shape", Opcode::Store, {t(ptr(F32), {4}), F32}, V, "stored value 'f32'"},
      {"store result", Opcode::Store, {ptr(F32), F32}, F32, "must have type void"},
      {"masked_load",
       Opcode::MaskedLoad,
       {t(ptr(F32), {4}), t(I1, {4}), t(F32, {4})},
       t(F32, {4}),
       nullptr},
      {"masked_load mask",
       Opcode::MaskedLoad,
       {t(ptr(F32), {4}), t(I32, {4}), t(F32, {4})},
       t(F32, {4}),
       "mask 'i32<4>'"},
      {"masked_load other",
       Opcode::MaskedLoad,
       {t(ptr(F32), {4}), t(I1, {4}), F32},
       t(F32, {4}),
       "other value"},
      {"masked_store",
       Opcode::MaskedStore,
       {t(ptr(F32), {4}), t(F32, {4}), t(I1, {4})},
       V,
       nullptr},
      {"masked_store mask",
       Opcode::MaskedStore,
       {t(ptr(F32), {4}), t(F32, {4}), t(I1, {2})},
       V,
       "mask 'i1<2>'"},
      {"atomic_cas", Opcode::AtomicCAS, {ptr(I32), I32, I32}, I32, nullptr},
      {"atomic_cas val", Opcode::AtomicCAS, {ptr(I32), I32, I64}, I64, "operand 2"},
      {"atomic_rmw",
       Opcode::AtomicRMW,
       {t(ptr(I32), {4}), t(I32, {4})},
       t(I32, {4}),
       nullptr,
       Red(ReduceKind::Add)},
      {"atomic_rmw mask",
       Opcode::AtomicRMW,
       {t(ptr(F32), {4}), t(F32, {4}), t(I1, {4})},
       t(F32, {4}),
       nullptr,
       Red(ReduceKind::FAdd)},
      {"atomic_rmw kind",
       Opcode::AtomicRMW,
       {ptr(F32), F32},
       F32,
       "needs integers",
       Red(ReduceKind::SMax)},
      {"atomic_rmw bad mask",
       Opcode::AtomicRMW,
       {t(ptr(F32), {4}), t(F32, {4}), I1},
       t(F32, {4}),
       "mask 'i1'",
       Red(ReduceKind::Xchg)},
      {"get_program_id", Opcode::GetProgramId, {}, I32, nullptr, Axis(2)},
      {"get_program_id axis", Opcode::GetProgramId, {}, I32, "axis 3", Axis(3)},
      {"get_num_programs type", Opcode::GetNumPrograms, {}, I64, "should be 'i32'", Axis(0)},
  };
  for (const TypeCase &C : Cases) {
    std::vector<std::string> Errors = verifyOne(C);
    if (!C.Error) {
      EXPECT_TRUE(Errors.empty()) << C.Name << ": " << Errors[0];
      continue;
    }
    ASSERT_FALSE(Errors.empty()) << C.Name << " should fail";
    EXPECT_NE(Errors[0].find(C.Error), std::string::npos) << C.Name << ": " << Errors[0];
    EXPECT_EQ(Errors[0].rfind("function @f, block ^entry: ", 0), 0u) << Errors[0];
  }
}

/// Parses Text (which must parse) and verifies it.
std::vector<std::string> verifyText(const std::string &Text) {
  ParseResult R = parseString(Text);
  EXPECT_TRUE(R.M) << R.Diags;
  std::vector<std::string> Errors;
  if (R.M)
    verifyModule(*R.M, Errors);
  return Errors;
}

void expectVerifyError(const std::string &Text, const std::string &Expected) {
  std::vector<std::string> Errors = verifyText(Text);
  ASSERT_FALSE(Errors.empty()) << "should fail: " << Text;
  bool Found = false;
  for (auto &E : Errors)
    Found |= E.find(Expected) != std::string::npos;
  EXPECT_TRUE(Found) << "expected: " << Expected << "\ngot: " << Errors[0];
}

TEST(Verifier, ValidFunctions) {
  EXPECT_TRUE(verifyText(AddKernelText).empty());
  EXPECT_TRUE(verifyText(LoopText).empty());
}

TEST(Verifier, ErrorFormat) {
  expectVerifyError("define void @f(i32 %a) {\nentry:\n  %x = add %a, %a : i32\n}\n",
                    "function @f, block ^entry: %x = add %a, %a : i32: block does not end with a "
                    "terminator (br, cond_br or ret)");
}

TEST(Verifier, Terminators) {
  expectVerifyError("define void @f() {\nentry:\n  ret\n  ret\n}\n",
                    "ret: terminator in the middle of the block");
  std::vector<std::string> Errors;
  Module M;
  Function *F = M.createFunction("f", Type::getVoid(), {});
  F->createBlock("entry");
  EXPECT_FALSE(verifyFunction(*F, Errors));
  EXPECT_NE(Errors[0].find("block is empty"), std::string::npos) << Errors[0];
  Errors.clear();
  Function *G = M.createFunction("g", Type::getVoid(), {});
  EXPECT_FALSE(verifyFunction(*G, Errors));
  EXPECT_NE(Errors[0].find("function @g: function has no blocks"), std::string::npos);
}

/// verifyFunction errors of `define RetTy @f(i32 %a) { entry: ret [%a] }`,
/// built directly because the parser already rejects a wrong ret.
std::vector<std::string> verifyRet(const Type *RetTy, bool WithValue) {
  Module M;
  IRBuilder B(M);
  Function *F = M.createFunction("f", RetTy, {I32});
  B.setInsertPoint(F->createBlock("entry"));
  B.createRet(WithValue ? F->getArg(0) : nullptr);
  std::vector<std::string> Errors;
  verifyFunction(*F, Errors);
  return Errors;
}

TEST(Verifier, Return) {
  EXPECT_TRUE(verifyRet(I32, true).empty());
  EXPECT_TRUE(verifyRet(Type::getVoid(), false).empty());
  auto Check = [](std::vector<std::string> Errors, const char *Expected) {
    ASSERT_FALSE(Errors.empty()) << Expected;
    EXPECT_NE(Errors[0].find(Expected), std::string::npos) << Errors[0];
  };
  Check(verifyRet(I32, false), "ret must return a value of type 'i32'");
  Check(verifyRet(Type::getVoid(), true), "returns a value from a void function");
  Check(verifyRet(I64, true), "of type 'i64'");
}

TEST(Verifier, CondBr) {
  const char *Head = "define void @f(i1 %c, i32 %a, i1<4> %v) {\nentry:\n  cond_br ";
  const char *Tail = ", ^a, ^b\na:\n  ret\nb:\n  ret\n}\n";
  EXPECT_TRUE(verifyText(std::string(Head) + "%c" + Tail).empty());
  // The parser rejects a non-i1 condition already; build it instead.
  Module M;
  Function *F = M.createFunction("f", Type::getVoid(), {I32});
  IRBuilder B(M);
  BasicBlock *E = F->createBlock("entry"), *X = F->createBlock("x");
  B.setInsertPoint(E);
  B.createCondBr(F->getArg(0), X, X);
  B.setInsertPoint(X);
  B.createRet();
  std::vector<std::string> Errors;
  EXPECT_FALSE(verifyFunction(*F, Errors));
  EXPECT_NE(Errors[0].find("condition must be a scalar i1"), std::string::npos) << Errors[0];
}

TEST(Verifier, Phis) {
  expectVerifyError("define i32 @f(i32 %a) {\nentry:\n  br ^b\nb:\n  %x = add %a, %a : i32\n"
                    "  %p = phi [%a, ^entry] : i32\n  ret %p\n}\n",
                    "phi after a non-phi instruction");
  expectVerifyError("define i32 @f(i1 %c, i32 %a) {\nentry:\n  cond_br %c, ^b, ^d\nd:\n  br ^b\n"
                    "b:\n  %p = phi [%a, ^entry] : i32\n  ret %p\n}\n",
                    "phi needs exactly one entry for predecessor ^d, found 0");
  expectVerifyError("define i32 @f(i32 %a) {\nentry:\n  br ^b\nb:\n"
                    "  %p = phi [%a, ^entry], [%a, ^entry] : i32\n  ret %p\n}\n",
                    "predecessor ^entry, found 2");
  expectVerifyError("define i32 @f(i32 %a) {\nentry:\n  br ^b\nz:\n  ret %a\nb:\n"
                    "  %p = phi [%a, ^entry], [%a, ^z] : i32\n  ret %p\n}\n",
                    "phi entry for ^z, which is not a predecessor");
}

TEST(Verifier, EntryHasNoPredecessors) {
  expectVerifyError("define void @f() {\nentry:\n  br ^entry\n}\n",
                    "entry block must have no predecessors");
}

TEST(Verifier, Dominance) {
  // Same block: use before definition.
  expectVerifyError("define i32 @f(i32 %a) {\nentry:\n  %x = add %y, %a : i32\n"
                    "  %y = add %a, %a : i32\n  ret %x\n}\n",
                    "%x = add %y, %a : i32: operand %y does not dominate this use");
  // A definition on one side of a diamond used after the join.
  const char *Diamond = "define i32 @f(i1 %c, i32 %a) {\nentry:\n  cond_br %c, ^t, ^e\n"
                        "t:\n  %x = add %a, %a : i32\n  br ^j\ne:\n  br ^j\nj:\n  %USE\n}\n";
  std::string Ok = Diamond, Bad = Diamond;
  Ok.replace(Ok.find("%USE"), 4, "%p = phi [%x, ^t], [%a, ^e] : i32\n  ret %p");
  Bad.replace(Bad.find("%USE"), 4, "ret %x");
  EXPECT_TRUE(verifyText(Ok).empty());
  expectVerifyError(Bad, "block ^j: ret %x: operand %x does not dominate this use");
  // A phi operand must be available at the end of its incoming block.
  std::string BadPhi = Diamond;
  BadPhi.replace(BadPhi.find("%USE"), 4, "%p = phi [%x, ^t], [%x, ^e] : i32\n  ret %p");
  expectVerifyError(BadPhi, "does not dominate this use (at the end of ^e)");
  // Self-reference outside a phi.
  expectVerifyError("define i32 @f(i32 %a) {\nentry:\n  %x = add %x, %a : i32\n  ret %x\n}\n",
                    "operand %x does not dominate");
}

TEST(Verifier, CrossFunctionReferences) {
  Module M;
  IRBuilder B(M);
  Function *F = M.createFunction("f", I32, {I32});
  Function *G = M.createFunction("g", I32, {I32});
  BasicBlock *FE = F->createBlock("entry");
  BasicBlock *GE = G->createBlock("entry");
  B.setInsertPoint(GE);
  B.createRet(G->getArg(0));
  B.setInsertPoint(FE);
  B.createRet(G->getArg(0));
  std::vector<std::string> Errors;
  EXPECT_FALSE(verifyFunction(*F, Errors));
  EXPECT_NE(Errors[0].find("argument of another function"), std::string::npos) << Errors[0];
  EXPECT_TRUE(verifyFunction(*G, Errors));

  Module M2;
  IRBuilder B2(M2);
  Function *H = M2.createFunction("h", Type::getVoid(), {});
  B2.setInsertPoint(H->createBlock("entry"));
  B2.createBr(GE);
  Errors.clear();
  EXPECT_FALSE(verifyModule(M2, Errors));
  EXPECT_NE(Errors[0].find("successor is not a block of this function"), std::string::npos);
}

TEST(Verifier, DuplicateFunctionNames) {
  Module M;
  IRBuilder B(M);
  for (int K = 0; K < 2; ++K) {
    Function *F = M.createFunction("f", Type::getVoid(), {});
    B.setInsertPoint(F->createBlock("entry"));
    B.createRet();
  }
  std::vector<std::string> Errors;
  EXPECT_FALSE(verifyModule(M, Errors));
  EXPECT_NE(Errors[0].find("duplicate function name"), std::string::npos);
}

} // namespace
