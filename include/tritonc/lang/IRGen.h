//===- IRGen.h - Triton-C semantic analysis and IR generation ---*- C++ -*-===//
//
// One walk over the AST both type-checks the program (C conversions,
// broadcasting, tile shapes, pointer rules) and emits Triton-IR in SSA form
// (built on the fly with Braun et al.'s algorithm). The language rules it
// implements are documented in docs/LANGUAGE.md.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"
#include "tritonc/lang/AST.h"
#include "tritonc/support/Diagnostics.h"

#include <memory>

namespace tritonc {

/// Type-checks TU and lowers every function to Triton-IR. Returns null when
/// errors were reported (warnings alone do not fail). Never throws for user
/// mistakes; an internal error is reported as a diagnostic and yields null.
/// `print` and `assert` become IR only with Debug (LANGUAGE.md §9).
std::unique_ptr<ir::Module> generateIR(const ast::TranslationUnit &TU, DiagnosticEngine &Diags,
                                       bool Debug = false);

} // namespace tritonc
