//===- SharedMemoryAllocator.h - Static shared-memory offsets --*- C++ -*-===//
//
// Assigns a byte offset in shared memory to every buffer of a kernel, given
// each buffer's size, alignment and live range in a linear program order
// (thesis section 5.3.4, "Shared memory allocation"). Two buffers whose live
// ranges overlap never share a byte; buffers that are never live at the same
// time may reuse the same memory.
//
// The component is generic: it knows nothing about Triton-IR. The caller
// numbers program points linearly and computes live ranges.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::analysis {

/// One shared-memory buffer to place.
struct SharedBuffer {
  /// Caller's identifier; must be unique among the buffers of one request.
  unsigned Id = 0;
  /// Size in bytes (0 is allowed and occupies nothing).
  uint64_t Size = 0;
  /// Required alignment of the offset in bytes; a power of two (>= 1).
  uint64_t Alignment = 1;
  /// Half-open live range [Start, End) in the caller's linear program order.
  /// An empty range (Start == End) interferes with nothing.
  uint64_t Start = 0;
  uint64_t End = 0;
};

/// The result of allocateSharedMemory.
struct SharedMemoryPlan {
  /// Offsets[I] is the byte offset of the I-th buffer of the input vector.
  std::vector<uint64_t> Offsets;
  /// Bytes of shared memory needed: max over buffers of Offset + Size (0 if
  /// there are no buffers).
  uint64_t TotalSize = 0;
};

/// True if the live ranges of A and B share a program point.
bool liveRangesOverlap(const SharedBuffer &A, const SharedBuffer &B);

/// Places Buffers in shared memory. Deterministic: the result depends only on
/// the input values, not on hash or pointer order.
///
/// Heuristic: buffers are placed largest first (ties: earlier Start, then
/// smaller Id); each one goes to the lowest offset, aligned as required, that
/// does not collide with an already placed buffer whose live range overlaps
/// its own (first fit). Placing large buffers first keeps small ones from
/// fragmenting memory; this is the usual greedy-by-size heuristic for static
/// storage allocation. It runs in O(n^2 log n) for n buffers, which is
/// negligible for the handful of buffers of a kernel. Like the linear-time
/// heuristic the thesis cites, it is not optimal in every case.
///
/// Invalid requests (alignment not a power of two, End < Start, duplicate Ids)
/// are internal errors.
SharedMemoryPlan allocateSharedMemory(const std::vector<SharedBuffer> &Buffers);

/// Checks Plan against Buffers: one offset per buffer, alignment respected,
/// no two interfering buffers overlapping in memory, TotalSize exact. Returns
/// a description of the first problem found, or std::nullopt if valid.
std::optional<std::string> verifySharedMemoryPlan(const std::vector<SharedBuffer> &Buffers,
                                                  const SharedMemoryPlan &Plan);

} // namespace tritonc::analysis
