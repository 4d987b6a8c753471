//===- PPExpr.h - #if expression evaluation (private) ----------*- C++ -*-===//
#pragma once

#include "tritonc/lang/Token.h"
#include "tritonc/support/Diagnostics.h"

#include <cstdint>
#include <vector>

namespace tritonc {

/// Evaluates the integer constant expression of an #if or #elif whose
/// `defined` operators are already resolved and whose macros are expanded.
/// Remaining identifiers and keywords count as 0 (`true` is 1). EndLoc is just
/// past the end of the directive (for "expected value" at the end). Returns
/// false after reporting an error.
bool evaluatePPExpression(const std::vector<Token> &Tokens, SourceLoc EndLoc,
                          DiagnosticEngine &Diags, int64_t &Result);

} // namespace tritonc
