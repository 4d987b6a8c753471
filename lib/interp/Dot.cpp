//===- Dot.cpp - The interpreter's dot product ----------------------------===//
#include "Compiled.h"

namespace tritonc::interp::detail {

namespace {
/// Row[0..8) += A * B[0..8) in f32 (the arrays do not overlap).
inline void axpy8(float *__restrict Row, float A, const float *__restrict B) {
  for (int J = 0; J < 8; ++J)
    Row[J] = Row[J] + A * B[J];
}

} // namespace

void dotProduct(uint32_t M, uint32_t K, uint32_t N, const uint64_t *A, const uint64_t *B,
                const uint64_t *C, uint64_t *R, ElemKind In, ElemKind Acc, DotScratch &Scratch) {
  // Each (m, n) sums over k in order; iterating m, k, n keeps that order per
  // element while walking B and the accumulator row contiguously.
  if (Acc == ElemKind::F32 && In != ElemKind::F64) {
    Scratch.A.resize(size_t(M) * K);
    Scratch.B.resize(size_t(K) * N);
    Scratch.Row.resize(N);
    for (size_t X = 0; X < Scratch.A.size(); ++X)
      Scratch.A[X] = static_cast<float>(slotToDouble(A[X]));
    for (size_t X = 0; X < Scratch.B.size(); ++X)
      Scratch.B[X] = static_cast<float>(slotToDouble(B[X]));
    float *Row = Scratch.Row.data();
    bool ExactProducts = In == ElemKind::F16 || In == ElemKind::BF16;
    for (uint32_t Mi = 0; Mi < M; ++Mi) {
      for (uint32_t Ni = 0; Ni < N; ++Ni)
        Row[Ni] = static_cast<float>(slotToDouble(C[size_t(Mi) * N + Ni]));
      for (uint32_t Ki = 0; Ki < K; ++Ki) {
        float AV = Scratch.A[size_t(Mi) * K + Ki];
        const float *BRow = &Scratch.B[size_t(Ki) * N];
        if (ExactProducts) {
          // Products of 16-bit floats are exact in f32, so the add is the
          // only rounding. Fixed-size chunks let the compiler vectorize.
          uint32_t Ni = 0;
          for (; Ni + 8 <= N; Ni += 8)
            axpy8(Row + Ni, AV, BRow + Ni);
          for (; Ni < N; ++Ni)
            Row[Ni] = Row[Ni] + AV * BRow[Ni];
        } else {
          for (uint32_t Ni = 0; Ni < N; ++Ni)
            Row[Ni] = static_cast<float>(fmaRoundOdd(AV, BRow[Ni], Row[Ni]));
        }
      }
      for (uint32_t Ni = 0; Ni < N; ++Ni)
        R[size_t(Mi) * N + Ni] = doubleToSlot(Row[Ni]);
    }
    return;
  }
  if (isIntKind(Acc)) {
    unsigned AB = intBits(In), RB = intBits(Acc);
    for (uint32_t Mi = 0; Mi < M; ++Mi)
      for (uint32_t Ni = 0; Ni < N; ++Ni) {
        uint64_t S = C[size_t(Mi) * N + Ni];
        for (uint32_t Ki = 0; Ki < K; ++Ki)
          S = normBits(S + static_cast<uint64_t>(signedOf(A[size_t(Mi) * K + Ki], AB)) *
                               static_cast<uint64_t>(signedOf(B[size_t(Ki) * N + Ni], AB)),
                       RB);
        R[size_t(Mi) * N + Ni] = S;
      }
    return;
  }
  // Other float combinations (f64 accumulators, narrow accumulators): slower
  // generic path with the same per-element order.
  for (uint32_t Mi = 0; Mi < M; ++Mi)
    for (uint32_t Ni = 0; Ni < N; ++Ni) {
      double S = slotToDouble(C[size_t(Mi) * N + Ni]);
      for (uint32_t Ki = 0; Ki < K; ++Ki) {
        double AV = slotToDouble(A[size_t(Mi) * K + Ki]);
        double BV = slotToDouble(B[size_t(Ki) * N + Ni]);
        if (In == ElemKind::F64 && Acc != ElemKind::F64)
          S = roundTo(std::fma(AV, BV, S), Acc); // f64 products are not exact in double
        else
          S = fmaInKind(AV, BV, S, Acc);
      }
      R[size_t(Mi) * N + Ni] = doubleToSlot(S);
    }
}

} // namespace tritonc::interp::detail
