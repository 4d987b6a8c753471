//===- PtxFuzzer.cpp - Fuzzes Triton-C through the GPU code generator -----===//
//
// The input bytes are Triton-C source text, compiled like
// `tritonc compile --emit=ptx`: the front end, the default passes, the back
// end's own passes, layout assignment and lowering to PTX. Inputs of odd
// length target sm_80 (mma.sync, cp.async), the others sm_90a (wgmma, TMA),
// so that both lowerings are reached. Rejecting the input with diagnostics
// is fine; an internal compiler error, an escaped exception, a sanitizer
// report or a successful compilation without PTX is a finding.
//
//===----------------------------------------------------------------------===//
#include "FuzzTargets.h"

#include "tritonc/driver/Jit.h"

#include <exception>

namespace tritonc::fuzz {

void runPtxTarget(const uint8_t *Data, size_t Size) {
  static const char *const Target = "ptx";
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  try {
    driver::DeviceCompileOptions Opts;
    Opts.Front.Passes.Log = &nullStream();
    Opts.Back.Arch = Size % 2 ? ptx::Arch::SM80 : ptx::Arch::SM90a;
    driver::DeviceCompileResult R = driver::compileForDevice(
        driver::KernelSource::text("fuzz-input.tc", Text), Opts, {}, driver::CacheConfig{});
    // The severity, not the text: the diagnostics echo source lines, and the
    // fuzzer learns to write "internal compiler error" into them.
    if (R.InternalError)
      reportFinding(Target, "internal compiler error", R.Diagnostics);
    if (R.ok() && R.PTX.empty())
      reportFinding(Target, "compilation succeeded without PTX", R.Diagnostics);
  } catch (const std::exception &E) {
    reportFinding(Target, "exception escaped compileForDevice", E.what());
  }
}

} // namespace tritonc::fuzz

#ifndef TRITONC_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  tritonc::fuzz::runPtxTarget(Data, Size);
  return 0;
}
#endif
