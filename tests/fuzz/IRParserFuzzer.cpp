//===- IRParserFuzzer.cpp - Fuzzes the Triton-IR text parser --------------===//
//
// The input bytes are .tir text. The parser must either reject them with at
// least one diagnostic or return a module without reporting errors. A module
// that also verifies is printed, re-parsed and printed again (the two texts
// must be identical), then optimized by the default pipeline with
// verification after every pass: a pass that breaks a valid module or raises
// an internal error is a finding, and so is a round-trip mismatch after the
// passes.
//
//===----------------------------------------------------------------------===//
#include "FuzzTargets.h"

#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/support/SourceManager.h"
#include "tritonc/transform/PassManager.h"

#include <exception>
#include <vector>

namespace tritonc::fuzz {

namespace {

const char *const Target = "ir-parser";

void optimizeValidModule(ir::Module &M) {
  std::string Before = ir::printModule(M);
  transform::PassOptions PO;
  PO.VerifyEach = true;
  PO.Log = &nullStream();
  transform::PassManager PM(PO);
  std::string Error;
  if (!PM.addPipeline(transform::defaultPipeline(), Error))
    reportFinding(Target, "the default pipeline does not parse", Error);
  if (!PM.run(M, Error))
    reportFinding(Target, "the default pipeline failed on a valid module",
                  Error + "\n--- module before the passes ---\n" + Before);
  std::vector<std::string> Errors;
  if (!ir::verifyModule(M, Errors))
    reportFinding(Target, "the optimized module does not verify",
                  (Errors.empty() ? std::string() : Errors.front()) +
                      "\n--- module before the passes ---\n" + Before);
  checkRoundTrip(M, Target);
}

} // namespace

void runIRParserTarget(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  try {
    SourceManager SM;
    DiagnosticEngine Diags(SM);
    FileId Id = SM.addBuffer("fuzz-input.tir", Text);
    std::unique_ptr<ir::Module> M = ir::parseIR(SM, Id, Diags);
    for (const Diagnostic &D : Diags.diagnostics())
      if (D.Sev == Severity::Internal)
        reportFinding(Target, "internal error while parsing", Diags.formatAll());
    if (!M) {
      if (!Diags.hasErrors())
        reportFinding(Target, "parseIR failed without a diagnostic", "");
      return;
    }
    if (Diags.hasErrors())
      reportFinding(Target, "parseIR returned a module after reporting errors", Diags.formatAll());
    std::vector<std::string> Errors;
    if (!ir::verifyModule(*M, Errors))
      return;
    checkRoundTrip(*M, Target);
    optimizeValidModule(*M);
  } catch (const std::exception &E) {
    reportFinding(Target, "exception escaped", E.what());
  }
}

} // namespace tritonc::fuzz

#ifndef TRITONC_FUZZ_NO_ENTRY
extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  tritonc::fuzz::runIRParserTarget(Data, Size);
  return 0;
}
#endif
