//===- FrontendFuzzer.cpp - Fuzzes Triton-C through the whole pipeline ----===//
//
// The input bytes are Triton-C source text. They are compiled like
// `tritonc compile --emit=ir --verify-each`: preprocessing, parsing, IR
// generation, verification, the default pass pipeline with verification
// after every pass, and a final verification. Rejecting the input with
// diagnostics is fine; an internal compiler error, an escaped exception or a
// sanitizer report is a finding. A module that compiles must also survive a
// print / parse / print round trip unchanged.
//
//===----------------------------------------------------------------------===//
#include "FuzzTargets.h"

#include "tritonc/driver/Compiler.h"

#include <exception>

namespace tritonc::fuzz {

void runFrontendTarget(const uint8_t *Data, size_t Size) {
  static const char *const Target = "frontend";
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  try {
    driver::CompileOptions Opts;
    Opts.Passes.VerifyEach = true;
    Opts.Passes.Log = &nullStream();
    driver::CompileResult R = driver::compileSource("fuzz-input.tc", Text, Opts);
    for (const Diagnostic &D : R.diagnostics())
      if (D.Sev == Severity::Internal)
        reportFinding(Target, "internal compiler error", R.formattedDiagnostics());
    if (R.ok() != (R.module() != nullptr))
      reportFinding(Target,
                    R.ok() ? "compilation succeeded without a module"
                           : "compilation failed but kept a module",
                    R.formattedDiagnostics());
    if (R.module())
      checkRoundTrip(*R.module(), Target);
  } catch (const std::exception &E) {
    reportFinding(Target, "exception escaped compileSource", E.what());
  }
}

} // namespace tritonc::fuzz

#ifndef TRITONC_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  tritonc::fuzz::runFrontendTarget(Data, Size);
  return 0;
}
#endif
