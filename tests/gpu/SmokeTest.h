//===- SmokeTest.h - Checks and driver setup shared by the GPU smoke tests -*- C++ -*-===//
//
// The smoke tests count failed checks instead of stopping at the first, so
// that one run on the lent GPU reports everything that is wrong.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/CudaDriver.h"

#include <cstdio>
#include <string>

namespace tritonc::test::gpu {

inline int Failures = 0;

inline void fail(const std::string &What) {
  std::fprintf(stderr, "FAIL: %s\n", What.c_str());
  ++Failures;
}

template <typename T> bool ok(runtime::Expected<T> &E, const std::string &What) {
  if (E)
    return true;
  fail(What + ": " + E.error());
  return false;
}

inline bool ok(const runtime::Status &S, const std::string &What) {
  if (S)
    return true;
  fail(What + ": " + S.error());
  return false;
}

/// The CUDA driver, after printing it and its device; null (and a FAIL
/// line) where there is none.
inline runtime::CudaDriver *openDriver() {
  runtime::Expected<runtime::CudaDriver *> D = runtime::CudaDriver::get();
  if (!D) {
    std::fprintf(stderr, "FAIL: %s\n", D.error().c_str());
    return nullptr;
  }
  const runtime::DeviceInfo &Dev = (*D)->device();
  std::printf("driver: %s (CUDA %s)\n", (*D)->libraryName().c_str(),
              (*D)->driverVersionString().c_str());
  std::printf("device %d: %s, compute capability %d.%d (%s), %d SMs, warp %d, shared/block %d "
              "(opt-in %d)\n",
              Dev.Ordinal, Dev.Name.c_str(), Dev.ComputeMajor, Dev.ComputeMinor,
              Dev.target().c_str(), Dev.SMCount, Dev.WarpSize, Dev.MaxSharedPerBlock,
              Dev.MaxSharedPerBlockOptin);
  return *D;
}

/// The exit status of a smoke test, after its summary line.
inline int finish(const char *Test) {
  if (Failures) {
    std::fprintf(stderr, "%s: %d failure(s)\n", Test, Failures);
    return 1;
  }
  std::printf("%s: all checks passed\n", Test);
  return 0;
}

} // namespace tritonc::test::gpu
