//===- FuzzSupport.cpp - Checks shared by the fuzz targets ----------------===//
#include "FuzzTargets.h"

#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/support/Diagnostics.h"
#include "tritonc/support/SourceManager.h"

#include <iostream>
#include <streambuf>
#include <vector>

namespace tritonc::fuzz {

void reportFinding(const char *Target, const std::string &What, const std::string &Details) {
  std::cerr << "fuzz finding (" << Target << "): " << What << "\n" << Details << std::endl;
  __builtin_trap();
}

void checkRoundTrip(const ir::Module &M, const char *Target) {
  std::string First = ir::printModule(M);
  SourceManager SM;
  DiagnosticEngine Diags(SM);
  FileId Id = SM.addBuffer("<printed>", First);
  std::unique_ptr<ir::Module> Reparsed = ir::parseIR(SM, Id, Diags);
  if (!Reparsed)
    reportFinding(Target, "the printed module does not parse back",
                  Diags.formatAll() + "\n--- printed module ---\n" + First);
  std::vector<std::string> Errors;
  if (!ir::verifyModule(*Reparsed, Errors)) {
    std::string Joined;
    for (const std::string &E : Errors)
      Joined += E + "\n";
    reportFinding(Target, "the re-parsed printed module does not verify",
                  Joined + "--- printed module ---\n" + First);
  }
  std::string Second = ir::printModule(*Reparsed);
  if (Second != First)
    reportFinding(Target, "printing the re-parsed module gives different text",
                  "--- first print ---\n" + First + "--- second print ---\n" + Second);
}

std::ostream &nullStream() {
  // A stream without a buffer sets badbit on every write and discards it.
  static std::ostream Null(nullptr);
  return Null;
}

} // namespace tritonc::fuzz
