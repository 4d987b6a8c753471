/* Launches the ahead-of-time compiled fp16 matmul (matmul_fp16.c / .h, written by
 * `tritonc compile --emit=c`, see run.sh) with nothing but libcuda, and checks C = A @ B
 * against a reference computed here. The inputs are small integers, so every product and sum
 * is exact in fp16 and fp32 and the check is equality. Prints "ok" and exits with 0 on success. */
#include "matmul_fp16.h"

#include <stdio.h>
#include <stdlib.h>

enum { M = 384, N = 512, K = 320, TM = 128, TN = 128 };

/* Exact for the small integers used here. */
static uint16_t half_of(int v) {
  if (v == 0)
    return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = (unsigned)(v < 0 ? -v : v), e = 0;
  while ((a >> e) > 1)
    ++e;
  unsigned mantissa = (a << 10 >> e) & 0x3FF;
  return (uint16_t)(sign | ((e + 15) << 10) | mantissa);
}

static int int_of(uint16_t h) {
  int e = (h >> 10) & 0x1F, m = h & 0x3FF;
  if (e == 0)
    return 0;
  int v = (int)(((1024 + m) << (e > 25 ? e - 25 : 0)) >> (e < 25 ? 25 - e : 0));
  return (h & 0x8000) ? -v : v;
}

#define CHECK(call)                                                                              \
  do {                                                                                           \
    CUresult r_ = (call);                                                                        \
    if (r_ != CUDA_SUCCESS) {                                                                    \
      const char *name_ = 0;                                                                     \
      cuGetErrorName(r_, &name_);                                                                \
      fprintf(stderr, "%s failed: %s\n", #call, name_ ? name_ : "?");                          \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

int main(void) {
  static uint16_t a[M * K], b[K * N], c[M * N];
  static int ref[M * N];
  for (int i = 0; i < M * K; ++i)
    a[i] = half_of((i * 7 + 3) % 5 - 2);
  for (int i = 0; i < K * N; ++i)
    b[i] = half_of((i * 11 + 1) % 3 - 1);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      int s = 0;
      for (int k = 0; k < K; ++k)
        s += int_of(a[i * K + k]) * int_of(b[k * N + j]);
      ref[i * N + j] = s;
    }
  CUdevice dev;
  CUcontext ctx;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CHECK(cuCtxSetCurrent(ctx));
  CUdeviceptr da, db, dc;
  CHECK(cuMemAlloc(&da, sizeof a));
  CHECK(cuMemAlloc(&db, sizeof b));
  CHECK(cuMemAlloc(&dc, sizeof c));
  CHECK(cuMemcpyHtoD(da, a, sizeof a));
  CHECK(cuMemcpyHtoD(db, b, sizeof b));
  CHECK(cuMemsetD8(dc, 0, sizeof c));
  CUstream stream;
  CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CHECK(matmul_fp16(stream, (M + TM - 1) / TM, (N + TN - 1) / TN, 1, da, db, dc, M, N, K, K, N, N));
  CHECK(cuStreamSynchronize(stream));
  CHECK(cuMemcpyDtoH(c, dc, sizeof c));
  for (int i = 0; i < M * N; ++i)
    if (int_of(c[i]) != ref[i]) {
      fprintf(stderr, "C[%d, %d] = %d, expected %d\n", i / N, i % N, int_of(c[i]), ref[i]);
      return 1;
    }
  /* A misaligned pointer breaks what the kernel was compiled for: refused, not run. */
  if (matmul_fp16(stream, 1, 1, 1, da + 2, db, dc, M, N, K, K, N, N) != CUDA_ERROR_INVALID_VALUE) {
    fprintf(stderr, "a misaligned A was not refused\n");
    return 1;
  }
  /* So does a negative leading dimension, which the kernel's S specialization excludes. */
  if (matmul_fp16(stream, 1, 1, 1, da, db, dc, M, N, K, K, N, -N) != CUDA_ERROR_INVALID_VALUE) {
    fprintf(stderr, "a negative ldc was not refused\n");
    return 1;
  }
  printf("ok\n");
  return 0;
}
