//===- Ptxas.h - Assembling PTX into a cubin with ptxas ---------*- C++ -*-===//
//
// `tritonc compile --emit=cubin` assembles the generated PTX with NVIDIA's
// ptxas rather than through the CUDA driver, so that cubins for any target
// can be produced on machines without a GPU (CI has ptxas but no device).
// The JIT path does not use this: it hands PTX to the driver.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/runtime/Expected.h"
#include "tritonc/target/ptx/PTXBuilder.h"

#include <string>
#include <string_view>

namespace tritonc::driver {

/// The ptxas executable: $TRITONC_PTXAS when set (it must be executable),
/// else `ptxas` on PATH, else /usr/local/cuda/bin/ptxas. The error says
/// where it looked.
runtime::Expected<std::string> findPtxas();

/// Assembles PTX for Arch with the ptxas at PtxasPath and returns the cubin
/// bytes. On failure the message carries ptxas's own output.
runtime::Expected<std::string> assembleWithPtxas(std::string_view PTX, ptx::Arch Arch,
                                                 const std::string &PtxasPath);

} // namespace tritonc::driver
