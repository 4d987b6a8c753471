//===- LinearLayout.h - Layouts as linear maps over GF(2) ------*- C++ -*-===//
//
// A layout says where each element of a tile lives: in which register of
// which lane of which warp (distributed layouts), or at which offset of a
// shared-memory buffer (shared layouts). For power-of-two shapes every layout
// the back end needs is a *linear* map over GF(2) from the bits of the
// hardware index to the bits of the tile coordinates, where "addition" is XOR.
//
// A LinearLayout has ordered, named input dimensions ("register", "lane",
// "warp", or "offset") and ordered, named output dimensions ("dim0", "dim1",
// ...), each of a power-of-two size. It is stored as one basis vector per
// input bit: the image of that bit, one coordinate per output dimension. The
// image of any input is the XOR of the images of its set bits.
//
// Conventions:
//  - Bit i of input dimension D has image getBasis(D, i); input dimension
//    sizes are 2^(number of bases).
//  - When dimensions are flattened into one integer (reshape, the flat
//    helpers), the FIRST dimension is the least significant (most minor).
//  - A zero basis vector means the bit does not matter: the element is
//    replicated (held by several lanes/warps, or in several registers).
//
// Errors in how the API is used (sizes that are not powers of two, unknown
// dimension names, out-of-range coordinates) are internal errors; questions
// whose answer may legitimately be "no" (invert, invertAndCompose) return
// std::optional.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tritonc::analysis {

/// Values given to, or produced by, a layout: (dimension name, value) pairs.
using DimValues = std::vector<std::pair<std::string, int32_t>>;

class LinearLayout {
public:
  /// The image of one input bit: one coordinate per output dimension, in the
  /// order of the output dimensions.
  using Basis = std::vector<int32_t>;

  /// An input dimension: its size is 2^Bases.size().
  struct InDim {
    std::string Name;
    std::vector<Basis> Bases;
    bool operator==(const InDim &) const = default;
  };

  /// An output dimension with a power-of-two size.
  struct OutDim {
    std::string Name;
    int32_t Size = 1;
    bool operator==(const OutDim &) const = default;
  };

  /// The empty layout (no dimensions); the unit of operator*.
  LinearLayout() = default;
  /// Builds a layout from explicit bases. Every basis must have one
  /// coordinate per output dimension, each within that dimension's size.
  LinearLayout(std::vector<InDim> Ins, std::vector<OutDim> Outs);

  /// The identity of one dimension: bit i of InDim maps to 2^i of OutDim.
  static LinearLayout identity1D(int32_t Size, std::string InName, std::string OutName);
  /// Every input of InName (of size Size) maps to 0 of OutName (of size
  /// OutSize): Size-fold replication.
  static LinearLayout zeros1D(int32_t Size, std::string InName, std::string OutName,
                              int32_t OutSize = 1);

  // --- Queries ------------------------------------------------------------
  const std::vector<InDim> &getInDims() const { return Ins; }
  const std::vector<OutDim> &getOutDims() const { return Outs; }
  std::vector<std::string> getInDimNames() const;
  std::vector<std::string> getOutDimNames() const;
  bool hasInDim(const std::string &Name) const;
  bool hasOutDim(const std::string &Name) const;
  int32_t getInDimSizeLog2(const std::string &Name) const;
  int32_t getInDimSize(const std::string &Name) const;
  int32_t getOutDimSizeLog2(const std::string &Name) const;
  int32_t getOutDimSize(const std::string &Name) const;
  /// Sum of the input (output) dimensions' bit counts.
  int32_t getTotalInBits() const;
  int32_t getTotalOutBits() const;
  /// The image of bit Bit of input dimension Name.
  const Basis &getBasis(const std::string &Name, int32_t Bit) const;
  /// One coordinate of that image.
  int32_t getBasis(const std::string &Name, int32_t Bit, const std::string &Out) const;

  /// Maps an input (every input dimension named once, in any order) to its
  /// image (every output dimension, in output order).
  DimValues apply(const DimValues &Inputs) const;
  /// The same with values in input-dimension order; returns values in
  /// output-dimension order.
  std::vector<int32_t> apply(const std::vector<int32_t> &Inputs) const;
  /// The same on flattened integers (first dimension least significant).
  uint64_t applyFlat(uint64_t Input) const;

  /// Per input dimension, the mask of bits whose flip never changes the
  /// output (their basis is zero): the replication bits.
  DimValues getFreeVariableMasks() const;
  /// True if every output is reached.
  bool isSurjective() const;
  /// True if distinct inputs give distinct outputs (no replication).
  bool isInjective() const;
  bool isInvertible() const { return isSurjective() && isInjective(); }

  // --- Algebra ------------------------------------------------------------
  /// The product of independent layouts. Input (output) dimensions named in
  /// both are concatenated: A's bits are the low bits, B's bits the high
  /// bits (B's coordinates are scaled by the size of A's dimension).
  friend LinearLayout operator*(const LinearLayout &A, const LinearLayout &B);
  LinearLayout &operator*=(const LinearLayout &B) { return *this = *this * B; }

  /// Outer(Inner(x)). Inner's output dimensions must be Outer's input
  /// dimensions (matched by name), each no larger.
  static LinearLayout compose(const LinearLayout &Outer, const LinearLayout &Inner);
  /// The inverse of a bijective layout (inputs and outputs swap), or
  /// nullopt if the layout is not bijective.
  std::optional<LinearLayout> invert() const;
  /// A right inverse R of a surjective layout (this(R(y)) == y), choosing
  /// for each output the preimage that uses only the earliest independent
  /// input bits (so replication bits are 0); nullopt if not surjective.
  std::optional<LinearLayout> pseudoinvert() const;
  /// The layout C from this layout's inputs to Outer's inputs with
  /// Outer(C(x)) == this(x) for all x: "which input of Outer holds the
  /// element that input x of this layout holds". This layout's output
  /// dimensions must all be output dimensions of Outer, each no larger.
  /// Preimages are chosen as in pseudoinvert. nullopt if some element of
  /// this layout is held nowhere in Outer.
  std::optional<LinearLayout> invertAndCompose(const LinearLayout &Outer) const;

  // --- Restructuring ------------------------------------------------------
  /// Reorders output (input) dimensions; NewOrder is a permutation of names.
  LinearLayout transposeOuts(const std::vector<std::string> &NewOrder) const;
  LinearLayout transposeIns(const std::vector<std::string> &NewOrder) const;
  /// Reinterprets the outputs (inputs) as new dimensions of the same total
  /// size, flattening with the first dimension most minor. For a row-major
  /// reshape of [A, B] to [A * B], first transposeOuts({"dim1", "dim0"}).
  LinearLayout reshapeOuts(const std::vector<OutDim> &NewOuts) const;
  LinearLayout reshapeIns(const std::vector<std::pair<std::string, int32_t>> &NewIns) const;
  /// Keeps only the named input and output dimensions (in this order).
  LinearLayout sublayout(const std::vector<std::string> &InNames,
                         const std::vector<std::string> &OutNames) const;
  LinearLayout renameInDim(const std::string &From, const std::string &To) const;
  LinearLayout renameOutDim(const std::string &From, const std::string &To) const;
  /// Drops the zero bases of one input dimension (e.g. registers that would
  /// only repeat elements the thread already holds).
  LinearLayout removeZeroBases(const std::string &InName) const;

  bool operator==(const LinearLayout &Other) const = default;
  /// Multi-line human-readable form, for debugging and test messages.
  std::string str() const;

private:
  int32_t inIndex(const std::string &Name) const;
  int32_t outIndex(const std::string &Name) const;
  /// Images of every input bit, flattened (input order, first dim first).
  std::vector<uint64_t> flatBases() const;
  uint64_t flattenOut(const Basis &B) const;
  Basis unflattenOut(uint64_t Flat) const;

  std::vector<InDim> Ins;
  std::vector<OutDim> Outs;
};

// --- Builders (LayoutBuilders.cpp) ------------------------------------------
// Distributed layouts have input dimensions "register", "lane", "warp" (all
// three always present, possibly of size 1) and output dimensions "dim0",
// "dim1", ... in tile-dimension order. Shared layouts have input dimension
// "offset" (in elements).

/// "dim<D>".
std::string tileDimName(unsigned D);

/// The element-wise (blocked) layout of a tile of shape Shape: each thread
/// holds SizePerThread contiguous elements, a warp's lanes are arranged as
/// ThreadsPerWarp, the CTA's warps as WarpsPerCTA; Order lists the tile
/// dimensions fastest first. Where the CTA tile is smaller than Shape, it
/// wraps (more registers); where it is larger, lanes/warps/registers that
/// fall outside are replicated (their bases are zero).
LinearLayout blockedLayout(const std::vector<int64_t> &Shape,
                           const std::vector<int32_t> &SizePerThread,
                           const std::vector<int32_t> &ThreadsPerWarp,
                           const std::vector<int32_t> &WarpsPerCTA,
                           const std::vector<unsigned> &Order);

/// The layout of a value obtained by removing tile dimension Dim from a
/// value of layout Parent (a reduction along Dim, or the operand that is
/// broadcast along Dim): the hardware that held (.., i_Dim, ..) now holds
/// the element without i_Dim. Later dimensions are renumbered; registers
/// that would only repeat an element are dropped.
LinearLayout sliceLayout(const LinearLayout &Parent, unsigned Dim);

/// The mma.sync m16n8k16 (f32 or f16 accumulator) C/D fragment layout for
/// a [M, N] tile: in one warp, lane l holds c0..c3 at rows l/4 (c0, c1) and
/// l/4 + 8 (c2, c3), columns (l%4)*2 + {0, 1}. Warps are tiled over the
/// output as WarpsPerCTA = {Wm, Wn} (warp id fastest along N), and the
/// CTA's [16 Wm, 8 Wn] tile repeats over the shape along N first.
LinearLayout mmaV2AccumulatorLayout(const std::vector<int64_t> &Shape,
                                    const std::vector<int32_t> &WarpsPerCTA);

/// The register layout of dot operand OperandIndex (0: A [M, K], 1: B
/// [K, N]) of mma.sync m16n8k(8 KWidth) for an accumulator spread as
/// WarpsPerCTA = {Wm, Wn}: in one warp, lane l holds KWidth consecutive K
/// elements at K offset (l % 4) KWidth, and again 4 KWidth further; for A
/// at rows l / 4 and l / 4 + 8, for B at column l / 4. A is replicated over
/// the warps along N, B over those along M; registers repeat the warps' tile
/// over K, then over M (A) or N (B).
LinearLayout mmaV2OperandLayout(const std::vector<int64_t> &Shape, int32_t OperandIndex,
                                const std::vector<int32_t> &WarpsPerCTA, int32_t KWidth);

/// The register layout of a wgmma A operand [M, K] for an accumulator of
/// wgmmaAccumulatorLayout(Shape of [M, N], ..., WarpGroups): each warp holds
/// the mma.sync A fragment of the 16 accumulator rows it owns, repeated over
/// K, then over the warpgroup's 64-row blocks; warpgroups along N replicate.
LinearLayout wgmmaOperandALayout(const std::vector<int64_t> &Shape, int32_t KWidth,
                                 const std::vector<int32_t> &WarpGroups);

/// The wgmma m64nNk16 accumulator layout (f32) of a [M, N] tile. A
/// warpgroup (4 consecutive warps) owns [64 MReps, InstrN NReps] elements:
/// warp w of the group holds rows 16w..16w+15 of every 64-row block with the
/// mma.sync fragment repeated along N, so register r of one instruction is
/// column 8 (r / 4) + 2 (lane % 4) + r % 2, row lane / 4 + 8 ((r / 2) % 2).
/// Registers then repeat the instruction over M (MReps) and N (NReps), and
/// the warpgroups tile the output as WarpGroups = {Gm, Gn} (along M first).
/// Requires M = 64 MReps Gm and N = InstrN NReps Gn.
LinearLayout wgmmaAccumulatorLayout(const std::vector<int64_t> &Shape, int32_t InstrN,
                                    const std::vector<int32_t> &WarpGroups);

/// The accumulator layout of an f32 dot on FMA units: every thread owns 4 x 4
/// blocks (4 consecutive rows by 4 consecutive columns), lanes tile 4 x 8
/// blocks (16 rows by 32 columns), warps go along M, and registers repeat the
/// warps' tile over the shape (along N first). A thread's rows and columns
/// then come in runs of 4, which it reads as 16-byte vectors.
LinearLayout fmaAccumulatorLayout(const std::vector<int64_t> &Shape, int32_t NumWarps);

/// A swizzled shared-memory layout from element offset to tile coordinates
/// (Order: fastest dimension first). Element (.., r, c) with c along
/// Order[0] and r along Order[1] is stored at column
/// ((c / Vec) ^ ((r / PerPhase) % MaxPhase)) * Vec + c % Vec of its row
/// (modulo the row length); other dimensions are not swizzled. Vec = 1,
/// PerPhase = 1, MaxPhase = 1 gives the plain (unswizzled) layout.
LinearLayout swizzledSharedLayout(const std::vector<int64_t> &Shape, int32_t Vec, int32_t PerPhase,
                                  int32_t MaxPhase, const std::vector<unsigned> &Order);

} // namespace tritonc::analysis
