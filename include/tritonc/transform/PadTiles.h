//===- PadTiles.h - Tile extents that are not powers of two ----*- C++ -*-===//
//
// The GPU back end's layouts are linear maps over GF(2), so it needs every
// tile extent to be a power of two. padTilesToPowersOfTwo rewrites a
// function so that each tile covers the next power of two, the extra lanes
// masked off (see PadTiles.cpp). The back end runs it before lowering; the
// registered pass "pad-tiles" runs it anywhere, so that the interpreter can
// execute the padded form (tests compare it with the original).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/transform/PassManager.h"

#include <optional>
#include <string>

namespace tritonc::transform {

/// A construct padding cannot handle, at its Triton-C location.
struct PadTilesError {
  SourceLoc Loc;
  std::string Message;
};

/// Pads the tiles of F to powers of two. A function whose tiles are powers of
/// two already is not changed. Returns the first construct that cannot be
/// padded (a reshape that regroups padded extents, a tile atomic_cas) and
/// then leaves F unchanged.
std::optional<PadTilesError> padTilesToPowersOfTwo(ir::Function &F);

class PadTilesPass : public Pass {
public:
  const char *name() const override { return "pad-tiles"; }
  /// Leaves a function it cannot pad unchanged (the back end reports it).
  bool run(ir::Function &F, AnalysisManager &AM) override;
};

} // namespace tritonc::transform
