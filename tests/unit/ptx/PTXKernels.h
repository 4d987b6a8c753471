//===- PTXKernels.h - Sample kernels written with PTXBuilder ---*- C++ -*-===//
//
// Small but complete kernels exercising the PTX emission layer; the unit tests
// check their text and the ptxas test assembles them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/target/ptx/PTXBuilder.h"

#include <string>
#include <vector>

namespace tritonc::ptx::samples {

struct SampleModule {
  std::string Name;
  std::string Text;
};

/// Element-wise z = x + y over n f32 values; v4 loads when n % 4 == 0.
std::string vecAddF32(PTXTarget T);
/// Per-CTA sum of x into y[ctaid] with shfl + shared memory + bar.sync.
std::string blockReduceF32(PTXTarget T);
/// y = f16(f32(x) * scale) over f16 pairs, staged through static shared memory.
std::string scaleF16(PTXTarget T);
/// A global spin-lock with atom.cas / atom.exch around a counter update.
std::string spinLock(PTXTarget T);
/// Every remaining helper: math, conversions, shuffles, atomics, selp.
std::string mixedOps(PTXTarget T);
/// A module ptxas must reject (uses an undeclared register).
std::string broken(PTXTarget T);

/// All good modules for target T.
std::vector<SampleModule> allSamples(PTXTarget T);

} // namespace tritonc::ptx::samples
