//===- LoweringAccesses.h - The memory the PTX lowering touches -*- C++ -*-===//
//
// The code generator's own shared memory (its scratch buffer) and its
// global accesses need CTA-wide barriers too: a layout conversion stores a
// tile in one thread mapping and loads it in another, a reduction across
// warps goes through one slot per warp, a dot whose operands are in
// registers stages them, and two global accesses of different thread
// mappings must be ordered (GlobalOrdering.h). This query says, from an
// instruction of laid-out IR (the layouts in its types), which of these
// accesses its lowering makes, in order, as statements of the barrier
// placement (BarrierPlacement.h), so that insert-barriers places their
// barriers as `barrier` ops:
//
//   convert_layout   nothing where it stands: the lowering converts where
//                    the value is read, once per block and requested layout,
//                    so each reader's first read in a block stores the
//                    source to scratch and loads it back (a write and a
//                    read), unless the thread holds the elements already
//                    (registerRemap), the source is rematerialized
//                    (Rematerialization.h), recomputable in a block that
//                    runs once, or a relabeling (reshape, trans, broadcast)
//                    whose operand is read relabeled instead; a phi's
//                    incoming value is converted at the branch of the
//                    predecessor
//   reduce           a write and a read where the reduced axis spans warps
//   dot              a write and a read unless both operands are
//                    local_load slots the dot reads directly (every kind of
//                    dot reads its operands from shared memory)
//   load, store,     a global statement (GlobalOrderKeys) after the
//   atomics, cp_async  operands' conversions; a scalar atomic starts with a
//                    barrier of its own and ends with thread 0's result
//                    broadcast through scratch; a tile atomic whose layout
//                    replicates elements broadcasts its owners' results
//
// The scratch is one abstract unit (ScratchUnit): every conversion uses it
// from byte 0, so any two accesses overlap. Inside one instruction's
// lowering, a statement that conflicts with the ones since the last barrier
// gets a barrier the lowering emits itself (withInternalBarriers; the code
// generator applies the same rule while it emits, conflictsWithSegment), so
// the pass places barriers only before an instruction's first statement.
// Where the query misses an access the lowering makes, the code generator
// fails with an internal error instead of racing (FunctionLowering's
// check-barriers step).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/BarrierPlacement.h"
#include "tritonc/analysis/GlobalOrdering.h"
#include "tritonc/analysis/Rematerialization.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <set>
#include <vector>

namespace tritonc::analysis {

/// The abstract unit that stands for the lowering's scratch buffer.
constexpr ByteInterval ScratchUnit{uint64_t(1) << 44, (uint64_t(1) << 44) + 1};

class LoweringAccesses {
public:
  explicit LoweringAccesses(const ir::Function &F) : Keys(F), Dom(F), Remats(Dom) {}

  /// The statements of I's lowering, in order, with the barriers it emits
  /// itself (IsBarrier statements). Ask about the instructions of a block in
  /// order, the blocks one after the other (conversions are cached per
  /// block as the lowering caches them).
  std::vector<SyncStatement> of(const ir::Instruction &I);

private:
  /// Whether reading V in layout Want converts it through the scratch
  /// (the first time in this block).
  bool readThroughScratch(const ir::Value *V, const LinearLayout &Want);
  void conversionsOf(const ir::Value *Operand, std::vector<SyncStatement> &Out);
  void convertedBranchOperands(const ir::Instruction &Br, std::vector<SyncStatement> &Out);

  GlobalOrderKeys Keys;
  ir::DominatorTree Dom;
  Rematerialization Remats;
  const ir::BasicBlock *Block = nullptr;
  /// Whether Block runs at most once (is in no loop).
  bool BlockRunsOnce = false;
  /// (source, requested layout) pairs converted in Block so far.
  std::set<std::pair<const ir::Value *, std::string>> Converted;
};

/// V with the convert_layouts it is read through skipped.
const ir::Value *beforeConversions(const ir::Value *V);

/// True if Next, after the statements of Segment (no barrier among them),
/// needs a barrier before it: the equations of placeBarriers on straight-
/// line code.
bool conflictsWithSegment(const std::vector<SyncStatement> &Segment, const SyncStatement &Next);

/// Statements as one instruction's lowering makes them: a barrier statement
/// before each statement that conflicts with those since the last barrier
/// (conflictsWithSegment), the statements between two barriers merged into
/// one.
std::vector<SyncStatement> withInternalBarriers(const std::vector<SyncStatement> &Statements);

} // namespace tritonc::analysis
