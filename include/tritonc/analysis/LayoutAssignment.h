//===- LayoutAssignment.h - Which thread holds which tile element -*- C++ -*-===//
//
// The thesis' sub-blocking (section 5.3.2), with layouts as linear maps over
// GF(2) (analysis/LinearLayout.h): every tile value the back end keeps in
// registers gets a distributed layout (register, lane, warp) -> coordinates.
//
// Values fall into three groups:
//  - Rematerializable values (make_range, splat and integer/pointer/boolean
//    element-wise arithmetic, casts, reshapes, broadcasts and transpositions
//    of rematerializable values and of loop-carried integer/pointer tiles,
//    i.e. their phis): they have no fixed layout; the lowering
//    recomputes them, in whatever layout a use needs, where it needs them.
//    Index and pointer arithmetic is therefore never moved between threads.
//  - Anchors, whose layout follows from what they do: a load or store accesses
//    memory in the layout its pointer's axis info asks for (thread order from
//    contiguity, 16-byte vectors where contiguity, alignment and the mask's
//    constancy allow); a dot produces the mma.sync accumulator layout (or a
//    blocked one on the FMA path); a reduction produces the slice of its
//    operand's layout; reshape, trans and broadcast relabel their operand's
//    layout (no data moves).
//  - Index arithmetic that is not rematerializable (integer divisions and
//    remainders, and integer/pointer/boolean arithmetic on them, on loads or
//    on loop-carried tiles) takes the layout of the memory access it feeds
//    through element-wise users and relabelings, so address tiles and masks
//    built from it are computed where their access needs them.
//  - Everything else (float arithmetic, selects, phis) takes the layout of
//    its first operand that has one; phis iterate to a fixpoint, so a loop's
//    accumulator keeps the dot's layout.
//  - GPU-level IR may name layouts in tile types (`f32<64,64, #mma0>`): such
//    a value is an anchor with that layout (rematerializable values stay
//    rematerializable, and divisions of them recomputable: any layout is
//    free for them, so their type names the layout of their use, as
//    `assign-layouts` writes it), a global access or
//    cp_async whose pointer tile names one accesses memory in it, and
//    `convert_layout` is the value in its result's layout (and a typed
//    one is where its operand is needed in that layout: demandedLayout
//    reads `coalesce`'s conversions of access operands). Layout-free
//    values are placed as above.
// Where a use needs another layout than its operand has, the lowering
// converts: by renaming registers when the two layouts hold the same elements
// per thread, through shared memory otherwise.
//
// All layouts produced here have "distinct power-of-two bases": every input
// bit moves exactly one coordinate by a power of two, and no two bits move
// the same coordinate bit. So a register's coordinate plus its thread's
// coordinate (computed once per kernel) is the element's coordinate.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tritonc/analysis/AxisInfo.h"
#include "tritonc/analysis/LinearLayout.h"
#include "tritonc/analysis/Rematerialization.h"
#include "tritonc/ir/Dominance.h"
#include "tritonc/ir/IR.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tritonc::analysis {

/// How a load, store or atomic touches global memory.
struct AccessPlan {
  LinearLayout Layout;
  /// Elements per vector access (1 for no vectorization).
  unsigned Vec = 1;
  /// The tile dimension that is contiguous in memory (the vectors run along it).
  unsigned VecDim = 0;
  /// The layout's dimensions, fastest first (VecDim first).
  std::vector<unsigned> Order;
};

/// How a dot is computed.
enum class DotKind {
  FMA,     ///< one fma per element and k (any float type)
  MmaV2,   ///< mma.sync m16n8k16, f16/bf16 inputs, f32 accumulator
  MmaTF32, ///< mma.sync m16n8k8 on f32 inputs rounded to tf32 (opt-in)
  Wgmma    ///< wgmma.mma_async m64nNk16 (sm_90a), f16/bf16 inputs, f32 accumulator
};

struct DotPlan {
  DotKind Kind = DotKind::FMA;
  /// Warps along M and N (mma.sync); warpgroups along M and N (wgmma).
  std::vector<int32_t> WarpsPerCTA;
  /// The N of each wgmma instruction (wgmma only).
  int32_t InstrN = 0;
  /// Why the faster kinds the target has were not taken, in a kernel
  /// author's words ("M = 32 is not a multiple of 64"); empty for wgmma.
  /// For optimization remarks.
  std::string Declined;
};

/// How a `dot` runs with these target features (the same for every
/// function: it depends on the dot's types and shapes only).
DotPlan planDot(const ir::Instruction &Dot, unsigned NumWarps, bool HasMmaV2, bool AllowTF32,
                bool HasWgmma);

/// Whether an FMA dot (planDot) gets the accumulator layout of 4 x 4 blocks
/// per thread (fmaAccumulatorLayout): f32 operands and accumulator, and a
/// tile of whole lane tiles. The back end then reads A as [K, M] and B as
/// [K, N] in 16-byte vectors (codegen's lowerDotFmaVectorized), so async-rings
/// gives A's ring column-major slots.
bool fmaDotHasFourByFourBlocks(const ir::Instruction &Dot, unsigned NumWarps);

class LayoutAssignment {
public:
  /// AllowTF32 lets f32 dots use tensor cores on tf32-rounded inputs;
  /// HasWgmma (sm_90a) lets f16/bf16 dots use warpgroup MMA.
  LayoutAssignment(const ir::Function &F, const AxisInfoAnalysis &AI, unsigned NumWarps,
                   bool HasMmaV2, bool AllowTF32 = false, bool HasWgmma = false);

  unsigned numWarps() const { return NumWarps; }

  /// True for tile values recomputed at each use (see the file comment).
  bool isRematerializable(const ir::Value *V) const;
  /// True for index arithmetic that has a layout but is computed from
  /// rematerializable values alone, through divisions (`rm / Q`, `rm % Q`,
  /// and what is computed from those, at most Rematerialization::MaxRecomputeSteps deep): a
  /// use in another layout may compute it again from those values instead
  /// of moving it between threads.
  bool isRecomputable(const ir::Value *V) const;
  /// The layout of a non-rematerializable tile value.
  const LinearLayout &layoutOf(const ir::Value *V) const;
  /// The access plan of a load, masked load, store, masked store or tile atomic.
  const AccessPlan &accessOf(const ir::Instruction *I) const;
  /// The access plan a cp_async of Load's pointers and mask would get (a
  /// load or masked load; the back end's copy filter asks before async-rings
  /// rewrites it): accessOf's, with vectors past the mask's constancy where
  /// the mask is true on a prefix of each (findPrefixMask).
  AccessPlan copyPlanOf(const ir::Instruction &Load, const AxisInfoAnalysis &AI) const {
    return planAccess(Load, AI, /*AsCopy=*/true);
  }
  const DotPlan &dotOf(const ir::Instruction *I) const;

  /// The default element-wise layout of a shape: 4 contiguous elements per
  /// thread along the last dimension, lanes then warps fastest dimension first.
  LinearLayout defaultLayout(const ir::Shape &S) const;
  /// A blocked layout of Shape with Vec contiguous elements per thread along
  /// Order[0] (Order: fastest dimension first).
  LinearLayout blocked(const ir::Shape &S, unsigned Vec, const std::vector<unsigned> &Order) const;

  /// One line per tile value, access plan and dot ("; layout %x: register=[[0,1]]
  /// lane=[..] warp=[..] shape=[..]" with one basis per input bit), for the
  /// `print-layouts` pass.
  std::string describe(const ir::Function &F) const;

private:
  void assign(const ir::Function &F, const AxisInfoAnalysis &AI);
  /// AsCopy: plan I as the cp_async it becomes (cp_async always is).
  AccessPlan planAccess(const ir::Instruction &I, const AxisInfoAnalysis &AI,
                        bool AsCopy = false) const;
  /// Gives a store of a load's value, cast to a type of another width, and
  /// that load one layout (the longer of their vector runs).
  void widenConversionCopy(const ir::Instruction &Store);
  /// Gives a store, or a reduction whose old values nobody reads, the layout
  /// its value already has (an FMA dot's accumulator) where that layout
  /// writes the plan's vectors with lanes continuing them along the
  /// contiguous dimension over whole 32-byte sectors: as few instructions
  /// and sectors as the plan's, without the conversion through shared memory
  /// (128 KB and two barriers for a 256 x 128 f32 tile).
  void writeInValueLayout(const ir::Instruction &I, const AxisInfoAnalysis &AI);
  std::optional<LinearLayout> derive(const ir::Instruction &I) const;
  /// Rematerializable, or an integer/pointer phi (see isRematerializable).
  bool isRematSource(const ir::Value *V) const;
  /// The layout a memory access reached from V through at most Levels
  /// element-wise users and relabelings wants V in, if any (remembered per
  /// value and Levels in DemandCache while assign() runs).
  std::optional<LinearLayout> demandedLayout(const ir::Value *V, unsigned Levels) const;
  std::optional<LinearLayout> searchDemandedLayout(const ir::Value *V, unsigned Levels) const;
  /// How far demandedLayout looks for loop-carried tiles and shared-memory
  /// reads, and for index arithmetic (from a division to the access it
  /// addresses: the conv's `rm / Q` is 12 users from A's copy).
  static constexpr unsigned AccessDemandLevels = 8;
  static constexpr unsigned IndexDemandLevels = 16;

  unsigned NumWarps;
  bool HasMmaV2;
  bool AllowTF32;
  bool HasWgmma;
  /// The function's dominator tree while assign() runs.
  const ir::DominatorTree *DT = nullptr;
  std::map<const ir::Value *, LinearLayout> Layouts;
  Rematerialization Remats;
  mutable std::map<std::pair<const ir::Value *, unsigned>, std::optional<LinearLayout>> DemandCache;
  std::map<const ir::Instruction *, AccessPlan> Accesses;
  std::map<const ir::Instruction *, DotPlan> Dots;
};

/// The layout V's tile type names (`f32<64,64, #blocked0>`), as a linear
/// layout; nullopt for layout-free tiles, non-tiles, and attributes with no
/// linear form (see analysis/LayoutAttributes.h).
std::optional<LinearLayout> typedLayout(const ir::Value *V);

// --- Layout algebra used by the lowering ------------------------------------

/// The number of registers per thread of a distributed layout.
inline int32_t numRegisters(const LinearLayout &L) { return L.getInDimSize("register"); }
/// Layout of a row-major reshape of a tile of layout L to shape To.
LinearLayout reshapeLayout(const LinearLayout &L, const ir::Shape &To);
/// Layout of trans(x) for x of layout L (2-D): the dimensions swap.
LinearLayout transposeLayout(const LinearLayout &L);
/// The layout of extract_slice(x) to a window of shape To (at offsets that
/// are multiples of its extents) for x of layout L, in which each thread
/// keeps the window's elements it holds: L without the register bits that
/// select among windows; nullopt where a lane or warp bit, or a register
/// bit mixing both, selects among them (the window's elements would move).
std::optional<LinearLayout> windowLayout(const LinearLayout &L, const ir::Shape &To);
/// The layout an operand of shape From must have so that broadcasting it to
/// layout L needs no data movement: L with the coordinates of every dimension
/// of size 1 in From set to zero (same registers, some repeated).
LinearLayout broadcastOperandLayout(const LinearLayout &L, const ir::Shape &From);
/// The layout of broadcast(x) to shape To for x of layout L: L with the
/// broadcast dimensions covered by new (most significant) registers.
LinearLayout broadcastResultLayout(const LinearLayout &L, const ir::Shape &To);
/// "register=[[0,1],[0,2]] lane=[...] warp=[...] shape=[16,16]": the image of
/// every input bit, in input order.
std::string compactLayoutString(const LinearLayout &L);
/// True if every basis moves at most one coordinate, by a power of two, and
/// no two bases move the same coordinate bit (see the file comment).
bool hasDistinctPowerOfTwoBases(const LinearLayout &L);
/// For layouts Have and Want of the same tile: if every thread already holds
/// the elements Want gives it (identical lane and warp bases), the Have
/// register holding each Want register's element; otherwise nullopt.
std::optional<std::vector<int32_t>> registerRemap(const LinearLayout &Have,
                                                  const LinearLayout &Want);

} // namespace tritonc::analysis
