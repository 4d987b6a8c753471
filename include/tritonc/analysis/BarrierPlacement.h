//===- BarrierPlacement.h - Where shared memory needs barriers -*- C++ -*-===//
//
// Decides before which statements a block-wide barrier is needed so that
// shared-memory accesses of different threads are ordered (thesis section
// 5.3.4, "Shared memory synchronization"). A forward data-flow analysis keeps
// two sets of byte intervals that are not yet synchronized:
//
//   RAW: bytes written since the last barrier; a later read of them races.
//   WAR: bytes read since the last barrier; a later write of them races.
//
//   IN(s)      = union of OUT(p) over the predecessors p of s
//   barrier(s) = IN_RAW(s) meets read(s)  or  IN_WAR(s) meets write(s)
//                [or, when enabled, IN_RAW(s) meets write(s): WAW]
//   OUT_RAW(s) = write(s)  if barrier(s), else IN_RAW(s) | write(s)
//   OUT_WAR(s) = read(s)   if barrier(s), else IN_WAR(s) | read(s)
//
// A barrier clears both sets. Unlike the thesis equations (which set OUT to
// the empty set), the accesses of s itself happen after the barrier and so
// are kept in OUT. An existing barrier statement clears both sets too, but
// for the intervals it keeps (SyncStatement::Keeps).
//
// A statement may also carry marks, added to RAW but never checked, and
// probes, checked against RAW but never added (SyncStatement): conflicts
// that are not "the same bytes", such as the back end's global-memory
// ordering between accesses of different thread-to-element mappings. The
// same pair exists for WAR (WarMarks, WarProbes). A block may widen the
// sets that flow into it (SyncBlock::OnEntry): a caller whose intervals
// name "the slot an index value selects" makes them "any slot" where the
// index value is defined again.
//
// The component is generic: the caller gives a CFG of blocks of abstract
// statements, each with the byte intervals it reads and writes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <vector>

namespace tritonc::analysis {

/// A half-open byte interval [Begin, End) of shared memory.
struct ByteInterval {
  uint64_t Begin = 0;
  uint64_t End = 0;

  bool operator==(const ByteInterval &) const = default;
};

/// One statement: the shared memory it reads and writes.
struct SyncStatement {
  std::vector<ByteInterval> Reads;
  std::vector<ByteInterval> Writes;
  /// True if the statement already is a barrier (it synchronizes before its
  /// own accesses, if any).
  bool IsBarrier = false;
  /// Intervals added to the written set without a check of their own, and
  /// intervals checked against the written set without being added: a
  /// statement whose conflicts are not "touches the same bytes". The global
  /// memory ordering of the back end encodes "another thread's element
  /// mapping" this way (a write marks every mapping but its own; a later
  /// access probes its own).
  std::vector<ByteInterval> Marks;
  std::vector<ByteInterval> Probes;
  /// The same for WAR: intervals added to the read set unchecked (a read
  /// that lasts until a later wait), and intervals checked against the read
  /// set without being added to the written one (a write whose readers
  /// synchronize otherwise, e.g. through an mbarrier).
  std::vector<ByteInterval> WarMarks;
  std::vector<ByteInterval> WarProbes;
  /// For a barrier statement: the intervals whose accesses it does not
  /// order, left in both sets (none: it clears them). The code generator's
  /// own barriers are such for the slots of GPU-level IR: the interpreter,
  /// which runs the IR, does not see them.
  std::vector<ByteInterval> Keeps;
};

/// On entry to a block, a RAW or WAR set that meets Stale also gets Widened.
struct EntryWidening {
  std::vector<ByteInterval> Stale;
  std::vector<ByteInterval> Widened;
};

/// A basic block: statements in order and successor block indices.
struct SyncBlock {
  std::vector<SyncStatement> Statements;
  std::vector<unsigned> Successors;
  /// Applied to the union of the predecessors' OUT sets.
  std::vector<EntryWidening> OnEntry;
};

/// Which hazard made a barrier necessary (the first one checked that fired).
enum class HazardKind {
  ReadAfterWrite,
  WriteAfterRead,
  WriteAfterWrite,
  ProbeAfterMark,
  WarProbeAfterMark
};

/// A barrier to insert immediately before Blocks[Block].Statements[Statement].
struct BarrierPoint {
  unsigned Block = 0;
  unsigned Statement = 0;
  HazardKind Kind = HazardKind::ReadAfterWrite;

  bool operator==(const BarrierPoint &) const = default;
};

/// Options of placeBarriers.
struct BarrierPlacementOptions {
  /// Also order two writes of the same bytes by different threads. The thesis
  /// equations only track RAW and WAR; without this, which write survives is
  /// unspecified when no read lies between them.
  bool DetectWriteAfterWrite = true;
};

/// Computes where barriers are needed in the CFG Blocks (entry: block 0).
/// Returns them sorted by (Block, Statement); existing barrier statements are
/// not reported. Blocks unreachable from the entry are analyzed with empty
/// IN sets. Bad input (a successor index out of range, an interval with
/// End < Begin) is an internal error.
///
/// Method: chaotic iteration over the blocks in reverse post-order until no
/// OUT changes, applying the equations above statement by statement. When a
/// hazard is found before a statement that has no barrier yet, the barrier is
/// recorded, and, because the new barrier can only shrink the sets that
/// flowed from it, all OUT sets restart from empty (recorded barriers stay).
/// Each restart adds a barrier, so this terminates. Since every phase starts
/// from empty sets, which only grow, each barrier is added on evidence of a
/// real hazard given the barriers recorded before it. A later barrier can make
/// an earlier one redundant (one at a loop's exit, found before the body's),
/// so each barrier is then dropped, from the last block up, where the
/// equations with the others alone find no hazard. The result is still not
/// guaranteed minimal.
std::vector<BarrierPoint> placeBarriers(const std::vector<SyncBlock> &Blocks,
                                        const BarrierPlacementOptions &Options = {});

} // namespace tritonc::analysis
