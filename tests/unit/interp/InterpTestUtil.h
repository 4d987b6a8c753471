//===- InterpTestUtil.h - Helpers for interpreter unit tests ---*- C++ -*-===//
#pragma once

#include "tritonc/interp/Interpreter.h"
#include "tritonc/ir/Builder.h"
#include "tritonc/support/FloatFormats.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace tritonc::interp::test {

using namespace tritonc::ir;

inline const Type *i1() { return Type::getI1(); }
inline const Type *i8() { return Type::getInt(8); }
inline const Type *i16() { return Type::getInt(16); }
inline const Type *i32() { return Type::getI32(); }
inline const Type *i64() { return Type::getI64(); }
inline const Type *f16() { return Type::getF16(); }
inline const Type *bf16() { return Type::getBF16(); }
inline const Type *f32() { return Type::getF32(); }
inline const Type *f64() { return Type::getF64(); }
inline const Type *ptr(const Type *T) { return Type::getPointer(T); }

template <typename T> HostBuffer bufferOf(std::vector<T> &V, std::string Name) {
  return HostBuffer{V.data(), V.size() * sizeof(T), std::move(Name)};
}

/// Decodes one stored element of scalar type T (test-side reference, written
/// independently of the interpreter's codec).
inline double readFloat(const void *P, const Type *T) {
  switch (T->getFloatKind()) {
  case FloatKind::F16: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return halfBitsToFloat(H);
  }
  case FloatKind::BF16: {
    uint16_t H;
    std::memcpy(&H, P, 2);
    return bfloat16BitsToFloat(H);
  }
  case FloatKind::F32: {
    float F;
    std::memcpy(&F, P, 4);
    return F;
  }
  default: {
    double D;
    std::memcpy(&D, P, 8);
    return D;
  }
  }
}
inline int64_t readInt(const void *P, const Type *T) {
  const uint8_t *B = static_cast<const uint8_t *>(P);
  switch (T->getScalarSizeInBytes()) {
  case 1:
    return T->getIntBits() == 1 ? B[0] : static_cast<int8_t>(B[0]);
  case 2: {
    int16_t V;
    std::memcpy(&V, B, 2);
    return V;
  }
  case 4: {
    int32_t V;
    std::memcpy(&V, B, 4);
    return V;
  }
  default: {
    int64_t V;
    std::memcpy(&V, B, 8);
    return V;
  }
  }
}

/// An f16 matmul's inputs (A [M, K], B [K, N], row-major), an output C
/// poisoned with -1, and the reference: f32 sums over k in increasing order
/// of exact f16 products, which is how the interpreter's dot adds.
struct MatmulData {
  int M, N, K;
  std::vector<uint16_t> A, B;
  std::vector<float> C, Ref;
  MatmulData(int M, int N, int K)
      : M(M), N(N), K(K), A(M * K), B(K * N), C(M * N, -1), Ref(M * N, 0) {
    for (int I = 0; I < M * K; ++I)
      A[I] = floatToHalfBits(static_cast<float>((I * 7) % 13 - 6) * 0.37f);
    for (int I = 0; I < K * N; ++I)
      B[I] = floatToHalfBits(static_cast<float>((I * 5) % 11 - 5) * 0.61f);
    for (int Mi = 0; Mi < M; ++Mi)
      for (int Ni = 0; Ni < N; ++Ni)
        for (int Ki = 0; Ki < K; ++Ki)
          Ref[Mi * N + Ni] += halfBitsToFloat(A[Mi * K + Ki]) * halfBitsToFloat(B[Ki * N + Ni]);
  }
  /// Runs F(A, B, C, M, N, K) with one program per 64 x 64 tile of C (and
  /// ExtraColumns more along y).
  InterpResult run(const Function &F, const SourceManager &SM, uint32_t ExtraColumns = 0) {
    std::vector<HostBuffer> Bufs = {bufferOf(A, "A"), bufferOf(B, "B"), bufferOf(C, "C")};
    std::vector<ArgValue> Args = {ArgValue::buffer(0),  ArgValue::buffer(1),  ArgValue::buffer(2),
                                  ArgValue::integer(M), ArgValue::integer(N), ArgValue::integer(K)};
    InterpOptions Opts;
    Opts.Sources = &SM;
    LaunchGrid Grid{static_cast<uint32_t>(M / 64), static_cast<uint32_t>(N / 64) + ExtraColumns, 1};
    return runKernel(F, Grid, Args, Bufs, Opts);
  }
};

/// A kernel @k(params..., R* out) whose body computes one value (scalar or
/// tile) from the scalar parameters and stores it to `out`.
struct EvalKernel {
  Module M;
  Function *F = nullptr;
  IRBuilder B{M};
  const Type *Res;

  EvalKernel(std::vector<const Type *> Params, const Type *ResultScalar) : Res(ResultScalar) {
    Params.push_back(ptr(ResultScalar));
    F = M.createFunction("k", Type::getVoid(), Params);
    F->attrs().IsKernel = true;
    B.setInsertPoint(F->createBlock("entry"));
  }
  Value *arg(unsigned I) { return F->getArg(I); }
  Value *out() { return F->getArg(F->getNumArgs() - 1); }

  /// Stores V (scalar or 1-D tile) to out[0..] and returns.
  void finish(Value *V) {
    if (V->getType()->isTile()) {
      int64_t N = V->getType()->getNumElements();
      Value *Flat = V->getType()->getRank() == 1 ? V : B.createReshape(V, {N});
      Value *P = B.createSplat(out(), {N});
      Value *Ptrs = B.createGEP(P, B.createMakeRange(0, N));
      B.createStore(Ptrs, Flat);
    } else {
      B.createStore(out(), V);
    }
    B.createRet();
  }

  /// Runs with the given arguments (the output buffer is appended); Out
  /// receives the raw bytes.
  InterpResult run(std::vector<ArgValue> Args, std::vector<uint64_t> &Out, size_t NumOut = 1) {
    Out.assign(NumOut, 0);
    std::vector<HostBuffer> Bufs = {bufferOf(Out, "out")};
    Args.push_back(ArgValue::buffer(0));
    return runKernel(*F, LaunchGrid{}, Args, Bufs);
  }
  double runFloat(std::vector<ArgValue> Args) {
    std::vector<uint64_t> Out;
    InterpResult R = run(std::move(Args), Out);
    EXPECT_TRUE(R.Ok) << R.Error;
    return readFloat(Out.data(), Res);
  }
  int64_t runInt(std::vector<ArgValue> Args) {
    std::vector<uint64_t> Out;
    InterpResult R = run(std::move(Args), Out);
    EXPECT_TRUE(R.Ok) << R.Error;
    return readInt(Out.data(), Res);
  }
};

/// Evaluates Op(a, b) on scalar parameters of type T.
inline int64_t evalIntBinary(Opcode Op, const Type *T, int64_t A, int64_t Bv) {
  EvalKernel K({T, T}, T);
  K.finish(K.B.createBinary(Op, K.arg(0), K.arg(1)));
  return K.runInt({ArgValue::integer(A), ArgValue::integer(Bv)});
}
inline double evalFloatBinary(Opcode Op, const Type *T, double A, double Bv) {
  EvalKernel K({T, T}, T);
  K.finish(K.B.createBinary(Op, K.arg(0), K.arg(1)));
  return K.runFloat({ArgValue::floating(A), ArgValue::floating(Bv)});
}
inline double evalFloatUnary(Opcode Op, const Type *T, double A) {
  EvalKernel K({T}, T);
  K.finish(K.B.createUnary(Op, K.arg(0)));
  return K.runFloat({ArgValue::floating(A)});
}
inline ArgValue argFor(const Type *T, double V) {
  return T->isFloatOrFloatTile() ? ArgValue::floating(V)
                                 : ArgValue::integer(static_cast<int64_t>(V));
}
/// Evaluates a cast of a scalar parameter of type From to To.
inline std::vector<uint64_t> evalCastRaw(Opcode Op, const Type *From, const Type *To, ArgValue A) {
  EvalKernel K({From}, To);
  K.finish(K.B.createCast(Op, K.arg(0), To));
  std::vector<uint64_t> Out;
  InterpResult R = K.run({A}, Out);
  EXPECT_TRUE(R.Ok) << R.Error;
  return Out;
}

} // namespace tritonc::interp::test
