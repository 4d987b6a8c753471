//===- InductionRemat.h - Loop-carried index tiles as start + scalar -*- C++ -*-===//
//
// The seeds advance index and pointer tiles through their main loop
// (`rk += TK; pa += TK;`), so a straightforward lowering keeps whole tiles of
// integers and 64-bit pointers live across the loop, in one layout that the
// loop's several uses then convert. This pass does what the seeds' authors
// do by hand in their epilogues: a header phi
//
//     %t = phi [%init, ^outside], [%next, ^latch]     with
//     %next = add %t, (splat %s)   |  sub %t, (splat %s)   |  gep %t, (splat %s)
//
// where %s is a loop-invariant scalar becomes a scalar offset phi
//
//     %o = phi [0, ^outside], [%o + %s (or - %s), ^latch]
//     %t' = add %init, (splat %o)   (gep for pointer tiles)
//
// and %t' replaces %t. Only a scalar crosses the back edge; the tile is
// computed from the start tile (a range or address expression the back end
// rematerializes in whatever layout each use wants). Integer offsets wrap
// like the original sums; pointer offsets are 64-bit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

namespace tritonc::transform {

class InductionRematPass : public Pass {
public:
  const char *name() const override { return "remat-inductions"; }
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
