//===- Verifier.h - Checks Triton-IR invariants ----------------*- C++ -*-===//
//
// Structural and type rules of docs/IR.md: operand counts and types per
// opcode, terminators, phi placement and incoming blocks, successors, and
// SSA dominance of every use by its definition.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/IR.h"

#include <string>
#include <vector>

namespace tritonc::ir {

/// Checks every function of M; returns true when valid. Each problem is
/// appended to Errors as "function @f, block ^b: %x = ...: message".
bool verifyModule(const Module &M, std::vector<std::string> &Errors);
/// Checks one function the same way.
bool verifyFunction(const Function &F, std::vector<std::string> &Errors);

/// One problem and the source location of the instruction it concerns
/// (invalid when it concerns a block or the function as a whole, or when
/// the instruction has no location).
struct VerifierMessage {
  std::string Text;
  SourceLoc Loc;
};
/// verifyModule with the location of each problem, for messages that point
/// at the line of a user's .tir file.
bool verifyModule(const Module &M, std::vector<VerifierMessage> &Messages);

/// The operand-count and type rules of one instruction, ignoring its place in
/// the function. Returns an empty string when they hold, else the problem
/// ("operand types differ: i32 and i64"). The IR parser uses it to report
/// type errors at their line.
std::string checkInstructionTypes(const Instruction &I);

} // namespace tritonc::ir
