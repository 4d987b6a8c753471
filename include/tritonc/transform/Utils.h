//===- Utils.h - Small helpers shared by the passes ------------*- C++ -*-===//
#pragma once

#include "tritonc/ir/IR.h"

#include <functional>
#include <vector>

namespace tritonc::transform {

/// True for instructions whose result depends only on their operands and
/// attributes and that have no effect besides the result: no memory access,
/// no atomics, no phi, no terminator. Such instructions can be merged (CSE)
/// and deleted when unused.
bool isPure(const ir::Instruction &I);

/// True when a pure instruction may also be executed on paths where it was
/// not executed before (hoisting): integer division and remainder trap on a
/// zero divisor in the interpreter, so they qualify only when the divisor is
/// a nonzero constant (or splat of one).
bool isSafeToSpeculate(const ir::Instruction &I);

/// The scalar constant V is, or the constant a `splat` V broadcasts; null
/// otherwise.
ir::Constant *getConstantOrSplat(ir::Value *V);

/// A value of type T equal to the scalar constant C: C itself for a scalar
/// T, else a new `splat C` inserted before InsertBefore.
ir::Value *materializeConstant(ir::Constant *C, const ir::Type *T, ir::Instruction *InsertBefore);

/// Erases I if it is pure and unused, then does the same for the operands
/// that became unused. Returns true if I was erased.
bool eraseIfTriviallyDead(ir::Instruction *I);

/// eraseIfTriviallyDead over several roots, safe when one root is an operand
/// of another (the loop over roots that calls eraseIfTriviallyDead is not: a
/// root erased as another's operand would be read after it was freed).
void eraseTriviallyDead(const std::vector<ir::Value *> &Roots);

/// A copy of I outside any block: its opcode, type, attributes, name,
/// operands, successors and (for a phi) incoming blocks.
std::unique_ptr<ir::Instruction> cloneDetached(const ir::Instruction &I);

/// Replaces every use of I with V, then erases I if it became dead.
void replaceAndErase(ir::Instruction *I, ir::Value *V);

/// Blocks reachable from the entry, in reverse post-order (a block comes
/// before its successors except along back edges).
std::vector<ir::BasicBlock *> reversePostOrder(const ir::Function &F);

/// Calls Visit on every instruction of F, its blocks in reverse post-order,
/// and sweeps again until a whole sweep changes nothing. Visit returns
/// whether it changed the IR; it may erase the instruction it is given. One
/// sweep folds whole def-use chains, since definitions come before their uses
/// except through phis. Returns true if any call changed the IR.
bool sweepUntilUnchanged(ir::Function &F, const std::function<bool(ir::Instruction &)> &Visit);

/// Removes the phi entries of Succ that come from Pred (after the edge
/// Pred -> Succ disappeared).
void removePhiEntriesFor(ir::BasicBlock *Succ, const ir::BasicBlock *Pred);

/// The instructions that may run after I (Forward) or before it: the rest
/// of its block on that side and every block reachable from there that way
/// (I's own block whole, I included, if it is reached again: a loop).
std::vector<const ir::Instruction *> instructionsAround(const ir::Instruction &I, bool Forward);

/// The first instruction with a tile (operand or result) of a dimension
/// that is not a power of two, or null: the layout passes need none
/// (`pad-tiles` pads them in the GPU back end).
const ir::Instruction *firstUnpaddedTile(const ir::Function &F);

} // namespace tritonc::transform
