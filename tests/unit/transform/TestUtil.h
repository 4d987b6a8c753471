//===- TestUtil.h - Helpers for the transform unit tests -------*- C++ -*-===//
#pragma once

#include "tritonc/ir/IRParser.h"
#include "tritonc/ir/Printer.h"
#include "tritonc/ir/Verifier.h"
#include "tritonc/transform/PassManager.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace tritonc::transform::test {

/// Parses .tir text; fails the test (and returns null) on errors.
inline std::unique_ptr<ir::Module> parse(const std::string &Text) {
  SourceManager SM;
  FileId F = SM.addBuffer("test.tir", Text);
  DiagnosticEngine Diags(SM);
  std::unique_ptr<ir::Module> M = ir::parseIR(SM, F, Diags);
  EXPECT_TRUE(M) << Diags.formatAll();
  return M;
}

/// Verifies M; the errors become the failure message.
inline ::testing::AssertionResult isValid(const ir::Module &M) {
  std::vector<std::string> Errors;
  if (ir::verifyModule(M, Errors))
    return ::testing::AssertionSuccess();
  std::string S;
  for (auto &E : Errors)
    S += E + "\n";
  return ::testing::AssertionFailure() << S << ir::printModule(M);
}

/// Parses Text, runs the pipeline on it, checks that the result verifies and
/// returns it printed.
inline std::string runPipeline(const std::string &Text, const std::string &Pipeline) {
  std::unique_ptr<ir::Module> M = parse(Text);
  if (!M)
    return "";
  EXPECT_TRUE(isValid(*M)) << "input does not verify";
  PassManager PM;
  std::string Error;
  EXPECT_TRUE(PM.addPipeline(Pipeline, Error)) << Error;
  EXPECT_TRUE(PM.run(*M, Error)) << Error;
  EXPECT_TRUE(isValid(*M));
  return ir::printModule(*M);
}

/// True when Needle occurs in Haystack.
inline bool contains(const std::string &Haystack, const std::string &Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

} // namespace tritonc::transform::test
