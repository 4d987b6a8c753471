//===- Layout.h - Layout attributes of GPU-level Triton-IR -----*- C++ -*-===//
//
// A layout says how the elements of a value are spread over the GPU: over
// the registers, lanes and warps of a CTA (distributed layouts: blocked, mma,
// wgmma, slice, dot_op) or over the bytes of a shared-memory buffer (shared).
// Layouts are immutable and uniqued process-wide like types, so they are
// compared by pointer; a tile type carries at most one (docs/IR.md, "GPU
// level"). Layout-free tiles are the machine-independent IR.
//
// Text form (the canonical inline spelling; printed modules use aliases
// such as `#blocked0 = #blocked<...>` declared at the top):
//   #blocked<size_per_thread=[1,8], threads_per_warp=[4,8], warps_per_cta=[4,1], order=[1,0]>
//   #mma<warps_per_cta=[2,2], instr_shape=[16,8]>             (mma.sync v2)
//   #wgmma<warps_per_cta=[4,1], instr_shape=[64,128,16]>      (warpgroup MMA)
//   #slice<dim=1, parent=#blocked<...>>
//   #dot_op<operand=0, parent=#mma<...>, k_width=2>
//   #shared<vec=8, per_phase=1, max_phase=8, order=[1,0]>
//   #shared<swizzle=128, order=[1,0]>   (a hardware swizzle mode: 0/32/64/128)
//   #linear<register=[[0,1],[0,2]], lane=[[0,4],...], warp=[[16,0],...]>
//       (any distributed layout, as the tile coordinates each register,
//        lane and warp bit moves: what analysis::LinearLayout describes)
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::ir {

class Type;

enum class LayoutKind : uint8_t { Blocked, Mma, Wgmma, Slice, DotOperand, Shared, Linear };

class Layout {
public:
  static const Layout *getBlocked(std::vector<int32_t> SizePerThread,
                                  std::vector<int32_t> ThreadsPerWarp,
                                  std::vector<int32_t> WarpsPerCTA, std::vector<unsigned> Order);
  /// mma.sync (version 2) accumulator; InstrShape is {16, 8}.
  static const Layout *getMma(std::vector<int32_t> WarpsPerCTA, std::vector<int32_t> InstrShape);
  /// wgmma accumulator; InstrShape is {64, N, 16} (m64nNk16; k is 32 bytes).
  static const Layout *getWgmma(std::vector<int32_t> WarpsPerCTA, std::vector<int32_t> InstrShape);
  static const Layout *getSlice(int32_t Dim, const Layout *Parent);
  /// Operand OperandIndex (0: A, 1: B) of a dot whose accumulator has
  /// layout Parent; KWidth elements along K are consecutive in a thread.
  static const Layout *getDotOperand(int32_t OperandIndex, const Layout *Parent, int32_t KWidth);
  /// Generic swizzle: vector Vec of the fastest dimension, row phase
  /// (row / PerPhase) % MaxPhase XORed into the vector index.
  static const Layout *getShared(int32_t Vec, int32_t PerPhase, int32_t MaxPhase,
                                 std::vector<unsigned> Order);
  /// A hardware swizzle mode of wgmma and bulk tensor copies (0: none).
  static const Layout *getSharedSwizzle(int32_t SwizzleBytes, std::vector<unsigned> Order);
  /// A distributed layout given by its bases: element (one coordinate per
  /// tile dimension) that bit i of the register, lane and warp index moves
  /// to (XOR-combined). For the layouts the named kinds do not describe
  /// (reshapes and broadcasts of them, the FMA dot's accumulator).
  static const Layout *getLinear(std::vector<std::vector<int32_t>> RegisterBases,
                                 std::vector<std::vector<int32_t>> LaneBases,
                                 std::vector<std::vector<int32_t>> WarpBases);

  LayoutKind getKind() const { return Kind; }
  bool isShared() const { return Kind == LayoutKind::Shared; }
  bool isDistributed() const { return !isShared(); }

  // Blocked.
  const std::vector<int32_t> &getSizePerThread() const { return SizePerThread; }
  const std::vector<int32_t> &getThreadsPerWarp() const { return ThreadsPerWarp; }
  /// Blocked, mma, wgmma (for wgmma, the warps of all warpgroups).
  const std::vector<int32_t> &getWarpsPerCTA() const { return WarpsPerCTA; }
  /// Blocked and shared: dimensions, fastest first.
  const std::vector<unsigned> &getOrder() const { return Order; }
  // Mma and wgmma.
  const std::vector<int32_t> &getInstrShape() const { return InstrShape; }
  // Slice (Dim) and dot operand (OperandIndex, KWidth); both have a parent.
  int32_t getDim() const { return Dim; }
  const Layout *getParent() const { return Parent; }
  int32_t getOperandIndex() const { return Dim; }
  int32_t getKWidth() const { return KWidth; }
  // Shared. A swizzle-mode layout (SwizzleBytes != 0 or declared with
  // swizzle=) derives Vec/PerPhase/MaxPhase from the element size.
  bool hasSwizzleMode() const { return SwizzleMode; }
  int32_t getSwizzleBytes() const { return SwizzleBytes; }
  /// Vec, PerPhase, MaxPhase for elements of ElemBits bits.
  void getSwizzle(unsigned ElemBits, int32_t &Vec, int32_t &PerPhase, int32_t &MaxPhase) const;
  // Linear: the bases of the register, lane and warp bits.
  const std::vector<std::vector<int32_t>> &getRegisterBases() const { return Bases[0]; }
  const std::vector<std::vector<int32_t>> &getLaneBases() const { return Bases[1]; }
  const std::vector<std::vector<int32_t>> &getWarpBases() const { return Bases[2]; }

  /// Tile rank this layout describes (shared: the slot rank).
  unsigned getRank() const;
  /// Warps of the CTA this layout assumes.
  int32_t getNumWarps() const;
  /// Short kind name: "blocked", "mma", "wgmma", "slice", "dot_op", "shared",
  /// "linear".
  const char *kindName() const;

  /// The inline text form; Name gives the spelling of nested parents (the
  /// printer passes its alias names), or null for inline parents.
  std::string str(std::string (*Name)(const Layout *, const void *) = nullptr,
                  const void *Ctx = nullptr) const;

private:
  friend struct LayoutUniquer;
  static const Layout *getAccumulator(LayoutKind Kind, std::vector<int32_t> WarpsPerCTA,
                                      std::vector<int32_t> InstrShape);
  Layout() = default;
  LayoutKind Kind = LayoutKind::Blocked;
  std::vector<int32_t> SizePerThread, ThreadsPerWarp, WarpsPerCTA, InstrShape;
  std::vector<unsigned> Order;
  int32_t Dim = 0;
  const Layout *Parent = nullptr;
  int32_t KWidth = 0;
  int32_t Vec = 1, PerPhase = 1, MaxPhase = 1, SwizzleBytes = 0;
  bool SwizzleMode = false;
  std::vector<std::vector<int32_t>> Bases[3];
};

/// Checks the layout's own parameters (powers of two, 32 lanes per warp,
/// permutations, instruction shapes). Returns a message or "".
std::string checkLayout(const Layout &L);
/// Checks that T's layout fits T: distributed layouts on tiles of their rank,
/// shared layouts on shared buffers of their rank. Returns a message or "".
std::string checkLayoutOf(const Type *T);

} // namespace tritonc::ir
