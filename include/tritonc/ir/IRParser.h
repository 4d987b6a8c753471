//===- IRParser.h - Reads the .tir text form of Triton-IR ------*- C++ -*-===//
//
// A hand-written lexer and recursive-descent parser for the text form of
// docs/IR.md. Value and block names read from the text become name hints
// (purely numeric names such as `%7` become empty hints, since the printer
// numbers unnamed values), so printing a parsed module reproduces the text
// the printer wrote. Instructions get the location of their first token in
// Instruction::Loc.
//
// The parser reports syntax errors, unknown opcodes/values/blocks,
// redefinitions, bad attributes and the per-instruction type rules of
// docs/IR.md (checked once the function's forward references are resolved).
// Whole-function rules (terminators, phi placement, dominance) are the
// verifier's (Verifier.h).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"
#include "tritonc/support/Diagnostics.h"

#include <memory>

namespace tritonc::ir {

/// Parses the .tir buffer File of SM. Returns null after reporting
/// "file:line:col: error: ..." diagnostics to Diags when the text is invalid;
/// never aborts on any input.
std::unique_ptr<Module> parseIR(SourceManager &SM, FileId File, DiagnosticEngine &Diags);

} // namespace tritonc::ir
