//===- SharedMemoryAllocator.cpp - Static shared-memory offsets -----------===//

#include "tritonc/analysis/SharedMemoryAllocator.h"

#include "tritonc/support/Diagnostics.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>

namespace tritonc::analysis {

namespace {

bool isPowerOfTwo(uint64_t X) { return X != 0 && (X & (X - 1)) == 0; }

uint64_t alignUp(uint64_t X, uint64_t Alignment) {
  uint64_t Mask = Alignment - 1;
  if (X > UINT64_MAX - Mask)
    reportInternalError("allocateSharedMemory: offset overflow");
  return (X + Mask) & ~Mask;
}

void checkRequest(const std::vector<SharedBuffer> &Buffers) {
  std::set<unsigned> Ids;
  for (const SharedBuffer &B : Buffers) {
    std::string Name = "allocateSharedMemory: buffer " + std::to_string(B.Id);
    if (!isPowerOfTwo(B.Alignment))
      reportInternalError(Name + " has alignment " + std::to_string(B.Alignment) +
                          ", not a power of two");
    if (B.End < B.Start)
      reportInternalError(Name + " has a live range that ends before it starts");
    if (!Ids.insert(B.Id).second)
      reportInternalError(Name + " appears twice");
  }
}

} // namespace

bool liveRangesOverlap(const SharedBuffer &A, const SharedBuffer &B) {
  if (A.Start == A.End || B.Start == B.End)
    return false;
  return A.Start < B.End && B.Start < A.End;
}

SharedMemoryPlan allocateSharedMemory(const std::vector<SharedBuffer> &Buffers) {
  checkRequest(Buffers);
  size_t N = Buffers.size();
  std::vector<size_t> Order(N);
  std::iota(Order.begin(), Order.end(), 0);
  // Ids are unique, so this is a strict total order: the result is fully
  // determined by the input values.
  std::sort(Order.begin(), Order.end(), [&](size_t L, size_t R) {
    const SharedBuffer &A = Buffers[L], &B = Buffers[R];
    if (A.Size != B.Size)
      return A.Size > B.Size;
    if (A.Start != B.Start)
      return A.Start < B.Start;
    return A.Id < B.Id;
  });

  SharedMemoryPlan Plan;
  Plan.Offsets.assign(N, 0);
  std::vector<size_t> Placed;
  std::vector<std::pair<uint64_t, uint64_t>> Busy; // [Begin, End) in bytes.
  for (size_t I : Order) {
    const SharedBuffer &B = Buffers[I];
    Busy.clear();
    for (size_t J : Placed)
      if (Buffers[J].Size != 0 && liveRangesOverlap(B, Buffers[J]))
        Busy.emplace_back(Plan.Offsets[J], Plan.Offsets[J] + Buffers[J].Size);
    std::sort(Busy.begin(), Busy.end());
    // Busy intervals are sorted by start and may overlap one another; once
    // the candidate fits before the next start it fits before all later ones.
    // A zero-sized buffer occupies nothing and stays at offset 0.
    uint64_t Offset = 0;
    for (const auto &[Begin, End] : Busy) {
      if (B.Size == 0 || Offset + B.Size <= Begin)
        break;
      Offset = std::max(Offset, alignUp(End, B.Alignment));
    }
    Plan.Offsets[I] = Offset;
    Plan.TotalSize = std::max(Plan.TotalSize, Offset + B.Size);
    Placed.push_back(I);
  }
  return Plan;
}

std::optional<std::string> verifySharedMemoryPlan(const std::vector<SharedBuffer> &Buffers,
                                                  const SharedMemoryPlan &Plan) {
  if (Plan.Offsets.size() != Buffers.size())
    return "expected " + std::to_string(Buffers.size()) + " offsets, got " +
           std::to_string(Plan.Offsets.size());
  uint64_t Total = 0;
  for (size_t I = 0; I < Buffers.size(); ++I) {
    const SharedBuffer &A = Buffers[I];
    uint64_t OffA = Plan.Offsets[I];
    if (A.Alignment != 0 && OffA % A.Alignment != 0)
      return "buffer " + std::to_string(A.Id) + " at offset " + std::to_string(OffA) +
             " is not aligned to " + std::to_string(A.Alignment);
    Total = std::max(Total, OffA + A.Size);
    for (size_t J = I + 1; J < Buffers.size(); ++J) {
      const SharedBuffer &B = Buffers[J];
      uint64_t OffB = Plan.Offsets[J];
      if (A.Size == 0 || B.Size == 0 || !liveRangesOverlap(A, B))
        continue;
      if (OffA < OffB + B.Size && OffB < OffA + A.Size)
        return "buffers " + std::to_string(A.Id) + " and " + std::to_string(B.Id) +
               " are live together and overlap in memory";
    }
  }
  if (Total != Plan.TotalSize)
    return "total size is " + std::to_string(Plan.TotalSize) + ", expected " +
           std::to_string(Total);
  return std::nullopt;
}

} // namespace tritonc::analysis
