//===- AxisInfoTestUtil.h - Helpers of the axis-info tests -----*- C++ -*-===//
#pragma once

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tritonc::analysis::test {

/// A parsed and verified module that owns its source buffers.
struct ParsedModule {
  SourceManager SM;
  std::unique_ptr<ir::Module> M;
  std::string Errors;
};

inline std::unique_ptr<ParsedModule> parse(const std::string &Text) {
  auto P = std::make_unique<ParsedModule>();
  FileId File = P->SM.addBuffer("test.tir", Text);
  DiagnosticEngine Diags(P->SM);
  P->M = ir::parseIR(P->SM, File, Diags);
  if (P->M) {
    std::vector<std::string> Errs;
    if (!ir::verifyModule(*P->M, Errs)) {
      for (auto &E : Errs)
        P->Errors += E + "\n";
      P->M.reset();
    }
  } else {
    P->Errors = Diags.formatAll();
  }
  return P;
}

/// The value named Name (by its printed operand, e.g. "%x") in F.
inline const ir::Value *findValue(const ir::Function &F, const std::string &Name) {
  for (unsigned I = 0; I < F.getNumArgs(); ++I)
    if (ir::printOperand(*F.getArg(I)) == Name)
      return F.getArg(I);
  for (const auto &BB : F.blocks())
    for (const auto &I : BB->instructions())
      if (!I->getType()->isVoid() && ir::printOperand(*I) == Name)
        return I.get();
  return nullptr;
}

} // namespace tritonc::analysis::test
