//===- BarrierPlacement.cpp - Where shared memory needs barriers ----------===//

#include "tritonc/analysis/BarrierPlacement.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <optional>
#include <string>

namespace tritonc::analysis {

namespace {

/// A set of bytes, kept as sorted, disjoint, non-adjacent intervals so that
/// equal sets have equal representations (needed for the fixpoint test).
class ByteSet {
public:
  void add(const std::vector<ByteInterval> &Intervals) {
    bool Any = false;
    for (const ByteInterval &I : Intervals)
      if (I.Begin < I.End) {
        Parts.push_back(I);
        Any = true;
      }
    if (Any)
      normalize();
  }

  void add(const ByteSet &Other) {
    if (Other.Parts.empty())
      return;
    Parts.insert(Parts.end(), Other.Parts.begin(), Other.Parts.end());
    normalize();
  }

  /// True if some byte of Intervals is in the set.
  bool intersects(const std::vector<ByteInterval> &Intervals) const {
    for (const ByteInterval &I : Intervals) {
      if (I.Begin >= I.End)
        continue;
      // First part ending after I.Begin; it overlaps I iff it begins before
      // I.End (parts are disjoint and sorted, so their ends are sorted too).
      auto It =
          std::upper_bound(Parts.begin(), Parts.end(), I.Begin,
                           [](uint64_t Begin, const ByteInterval &P) { return Begin < P.End; });
      if (It != Parts.end() && It->Begin < I.End)
        return true;
    }
    return false;
  }

  void clear() { Parts.clear(); }
  /// Keeps only the bytes that are also in Intervals.
  void retain(const std::vector<ByteInterval> &Intervals) {
    ByteSet Kept;
    Kept.add(Intervals);
    std::vector<ByteInterval> Out;
    for (const ByteInterval &P : Parts)
      for (const ByteInterval &K : Kept.Parts)
        if (std::max(P.Begin, K.Begin) < std::min(P.End, K.End))
          Out.push_back({std::max(P.Begin, K.Begin), std::min(P.End, K.End)});
    Parts = std::move(Out);
    normalize();
  }
  bool operator==(const ByteSet &) const = default;

private:
  void normalize() {
    std::sort(Parts.begin(), Parts.end(), [](const ByteInterval &A, const ByteInterval &B) {
      return A.Begin < B.Begin || (A.Begin == B.Begin && A.End < B.End);
    });
    std::vector<ByteInterval> Merged;
    for (const ByteInterval &P : Parts) {
      if (!Merged.empty() && P.Begin <= Merged.back().End)
        Merged.back().End = std::max(Merged.back().End, P.End);
      else
        Merged.push_back(P);
    }
    Parts = std::move(Merged);
  }

  std::vector<ByteInterval> Parts;
};

/// The unsynchronized bytes at one program point.
struct SyncState {
  ByteSet Raw; ///< Written since the last barrier.
  ByteSet War; ///< Read since the last barrier.

  void clear() {
    Raw.clear();
    War.clear();
  }
  /// An existing barrier: clears both sets but for the bytes it keeps.
  void synchronize(const std::vector<ByteInterval> &Keeps) {
    Raw.retain(Keeps);
    War.retain(Keeps);
  }
  bool operator==(const SyncState &) const = default;
};

void checkIntervals(const std::vector<ByteInterval> &Intervals, size_t Block, size_t Stmt) {
  for (const ByteInterval &I : Intervals)
    if (I.End < I.Begin)
      reportInternalError("placeBarriers: interval ending before it begins in block " +
                          std::to_string(Block) + ", statement " + std::to_string(Stmt));
}

void checkCFG(const std::vector<SyncBlock> &Blocks) {
  for (size_t B = 0; B < Blocks.size(); ++B) {
    for (unsigned S : Blocks[B].Successors)
      if (S >= Blocks.size())
        reportInternalError("placeBarriers: block " + std::to_string(B) +
                            " has out-of-range successor " + std::to_string(S));
    for (size_t I = 0; I < Blocks[B].Statements.size(); ++I) {
      checkIntervals(Blocks[B].Statements[I].Reads, B, I);
      checkIntervals(Blocks[B].Statements[I].Writes, B, I);
      checkIntervals(Blocks[B].Statements[I].Marks, B, I);
      checkIntervals(Blocks[B].Statements[I].Probes, B, I);
      checkIntervals(Blocks[B].Statements[I].WarMarks, B, I);
      checkIntervals(Blocks[B].Statements[I].WarProbes, B, I);
      checkIntervals(Blocks[B].Statements[I].Keeps, B, I);
    }
    for (const EntryWidening &W : Blocks[B].OnEntry) {
      checkIntervals(W.Stale, B, 0);
      checkIntervals(W.Widened, B, 0);
    }
  }
}

/// Reverse post-order from block 0, then the unreachable blocks in index
/// order. Visiting predecessors first makes the iteration converge quickly.
std::vector<unsigned> blockOrder(const std::vector<SyncBlock> &Blocks) {
  size_t N = Blocks.size();
  std::vector<bool> Seen(N, false);
  std::vector<unsigned> PostOrder;
  // Explicit stack of (block, next successor index) to survive deep CFGs.
  std::vector<std::pair<unsigned, size_t>> Stack;
  Stack.emplace_back(0, 0);
  Seen[0] = true;
  while (!Stack.empty()) {
    auto &[B, Next] = Stack.back();
    if (Next < Blocks[B].Successors.size()) {
      unsigned S = Blocks[B].Successors[Next++];
      if (!Seen[S]) {
        Seen[S] = true;
        Stack.emplace_back(S, 0);
      }
      continue;
    }
    PostOrder.push_back(B);
    Stack.pop_back();
  }
  std::vector<unsigned> Order(PostOrder.rbegin(), PostOrder.rend());
  for (unsigned B = 0; B < N; ++B)
    if (!Seen[B])
      Order.push_back(B);
  return Order;
}

std::optional<HazardKind> findHazard(const SyncState &In, const SyncStatement &S,
                                     const BarrierPlacementOptions &Options) {
  if (In.Raw.intersects(S.Reads))
    return HazardKind::ReadAfterWrite;
  if (In.War.intersects(S.Writes))
    return HazardKind::WriteAfterRead;
  if (Options.DetectWriteAfterWrite && In.Raw.intersects(S.Writes))
    return HazardKind::WriteAfterWrite;
  if (In.Raw.intersects(S.Probes))
    return HazardKind::ProbeAfterMark;
  if (In.War.intersects(S.WarProbes))
    return HazardKind::WarProbeAfterMark;
  return std::nullopt;
}

/// Inserted[B][I] holds the hazard that put a barrier before statement I.
using InsertedBarriers = std::vector<std::vector<std::optional<HazardKind>>>;

/// Runs the equations to their fixpoint with the barriers of Inserted, adding
/// a barrier where a hazard remains (see placeBarriers); returns true if it
/// added any.
bool solve(const std::vector<SyncBlock> &Blocks, const std::vector<std::vector<unsigned>> &Preds,
           const std::vector<unsigned> &Order, InsertedBarriers &Inserted,
           const BarrierPlacementOptions &Options) {
  size_t N = Blocks.size();
  bool AddedAny = false;
  // Walks block B from State (its IN) to its OUT; records new barriers and
  // returns true if it added any.
  auto Transfer = [&](unsigned B, SyncState &State) {
    bool Added = false;
    const std::vector<SyncStatement> &Stmts = Blocks[B].Statements;
    for (size_t I = 0; I < Stmts.size(); ++I) {
      const SyncStatement &S = Stmts[I];
      if (Inserted[B][I]) {
        State.clear();
      } else if (S.IsBarrier) {
        State.synchronize(S.Keeps);
      } else if (std::optional<HazardKind> Kind = findHazard(State, S, Options)) {
        Inserted[B][I] = Kind;
        Added = true;
        State.clear();
      }
      State.Raw.add(S.Writes);
      State.Raw.add(S.Marks);
      State.War.add(S.Reads);
      State.War.add(S.WarMarks);
    }
    return Added;
  };

  std::vector<SyncState> Out(N);
  bool Restart = true;
  while (Restart) {
    Restart = false;
    for (SyncState &S : Out)
      S.clear();
    bool Changed = true;
    while (Changed && !Restart) {
      Changed = false;
      for (unsigned B : Order) {
        SyncState State;
        for (unsigned P : Preds[B]) {
          State.Raw.add(Out[P].Raw);
          State.War.add(Out[P].War);
        }
        for (const EntryWidening &W : Blocks[B].OnEntry)
          for (ByteSet *Set : {&State.Raw, &State.War})
            if (Set->intersects(W.Stale))
              Set->add(W.Widened);
        // The sets computed so far flowed through code that now has one more
        // barrier; they may be too large, so start over from empty sets.
        if (Transfer(B, State)) {
          Restart = AddedAny = true;
          break;
        }
        if (!(State == Out[B])) {
          Out[B] = std::move(State);
          Changed = true;
        }
      }
    }
  }
  return AddedAny;
}

} // namespace

std::vector<BarrierPoint> placeBarriers(const std::vector<SyncBlock> &Blocks,
                                        const BarrierPlacementOptions &Options) {
  if (Blocks.empty())
    return {};
  checkCFG(Blocks);
  size_t N = Blocks.size();
  std::vector<std::vector<unsigned>> Preds(N);
  for (unsigned B = 0; B < N; ++B)
    for (unsigned S : Blocks[B].Successors)
      Preds[S].push_back(B);
  std::vector<unsigned> Order = blockOrder(Blocks);

  InsertedBarriers Inserted(N);
  for (unsigned B = 0; B < N; ++B)
    Inserted[B].resize(Blocks[B].Statements.size());
  solve(Blocks, Preds, Order, Inserted, Options);
  // The greedy phases may leave a barrier that later ones made redundant (a
  // loop exit's barrier found before the body's, which orders the same
  // accesses): drop each, from the last block up, whose removal needs no
  // new barrier.
  for (unsigned B = N; B-- > 0;)
    for (size_t I = Inserted[B].size(); I-- > 0;) {
      if (!Inserted[B][I])
        continue;
      InsertedBarriers Trial = Inserted;
      Trial[B][I].reset();
      if (!solve(Blocks, Preds, Order, Trial, Options))
        Inserted = std::move(Trial);
    }

  std::vector<BarrierPoint> Result;
  for (unsigned B = 0; B < N; ++B)
    for (unsigned I = 0; I < Inserted[B].size(); ++I)
      if (Inserted[B][I])
        Result.push_back({B, I, *Inserted[B][I]});
  return Result;
}

} // namespace tritonc::analysis
