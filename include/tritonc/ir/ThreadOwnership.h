//===- ThreadOwnership.h - Which thread holds a tile element -*- C++ -*-===//
//
// Shared-memory synchronization may skip a barrier where every thread
// reads back or overwrites only elements it accessed itself: both the
// insert-barriers pass and the interpreter's hazard checks ask this.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/ir/Layout.h"
#include "tritonc/ir/Type.h"

namespace tritonc::ir {

/// True for a #blocked layout whose CTA tile (size_per_thread x threads x
/// warps, per dimension) fits in Shape: every element is in exactly one
/// thread's registers. False for the other kinds (not worked out).
inline bool holdsEachElementOnce(const Layout &L, const Shape &S) {
  if (L.getKind() != LayoutKind::Blocked || S.size() != L.getSizePerThread().size())
    return false;
  for (size_t D = 0; D < S.size(); ++D)
    if (int64_t(L.getSizePerThread()[D]) * L.getThreadsPerWarp()[D] * L.getWarpsPerCTA()[D] > S[D])
      return false;
  return true;
}

} // namespace tritonc::ir
