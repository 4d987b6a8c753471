//===- Printer.h - Triton-IR text printer ----------------------*- C++ -*-===//
//
// Prints modules in the .tir text form of docs/IR.md. Printing is
// deterministic: value names come from the name hints made unique per
// function (`x`, `x.1`, ...), values without a hint are numbered `%0, %1, ...`
// in order of definition, and blocks without a name are `bb0, bb1, ...`.
// The output parses back (IRParser.h) to a module that prints identically.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <string>

namespace tritonc::ir {

/// Prints every function of M, separated by blank lines.
std::string printModule(const Module &M);
/// Prints one function (header, blocks, closing brace) with a final newline.
std::string printFunction(const Function &F);
/// Prints one instruction the way it appears inside its function (without
/// indentation or newline), e.g. "%x = load %px : f32<32>". Names are those
/// printFunction would use; a detached instruction uses its own hints.
std::string printInstruction(const Instruction &I);
/// Prints a value as an operand the way it appears inside its function:
/// "%x" for arguments and instructions, "i32 4" / "f32* null" for constants.
std::string printOperand(const Value &V);
/// Prints a block reference the way it appears inside its function ("^loop").
std::string printBlockName(const BasicBlock &BB);
/// Prints a scalar constant's literal without its type ("4", "0.5", "inf",
/// "null", "undef").
std::string printConstantLiteral(const Constant &C);

} // namespace tritonc::ir
