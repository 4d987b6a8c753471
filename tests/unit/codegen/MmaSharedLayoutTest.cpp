// Tests of the swizzled shared layouts that wgmma operands and cp.async rings use (lib/codegen
// internal header MmaSharedLayout.h): the physical offsets are a permutation of the tile's bytes
// that keeps 16-byte chunks whole, a column of 8 rows spreads over 8 distinct chunk positions (no
// bank conflicts for 16-byte accesses down the strided dimension), and the descriptor fields follow
// the canonical layouts, which are also those of the IR's `#shared<swizzle=S>` slots.
#include "MmaSharedLayout.h"

#include "tritonc/analysis/LayoutAttributes.h"
#include "tritonc/ir/Layout.h"
#include "tritonc/ir/Type.h"

#include <gtest/gtest.h>

#include <set>

using namespace tritonc::codegen;

namespace {

struct Case {
  int64_t Shape0, Shape1;
  unsigned ContigDim;
  unsigned SwizzleBytes;
};

} // namespace

TEST(MmaSharedLayout, ChoosesTheWidestSwizzleTheRowFills) {
  EXPECT_EQ(MmaSharedLayout::make(128, 64, 1, 2).SwizzleBytes, 128u); // 64 halfs = 128 B
  EXPECT_EQ(MmaSharedLayout::make(128, 32, 1, 2).SwizzleBytes, 64u);
  EXPECT_EQ(MmaSharedLayout::make(128, 16, 1, 2).SwizzleBytes, 32u);
  EXPECT_FALSE(MmaSharedLayout::make(128, 8, 1, 2).valid()); // 16 B rows: no canonical swizzle
  MmaSharedLayout MN = MmaSharedLayout::make(64, 256, 1, 2); // [K, N], N contiguous
  EXPECT_EQ(MN.ContigExtent, 256);
  EXPECT_EQ(MN.StridedExtent, 64);
}

TEST(MmaSharedLayout, OffsetsPermuteTheTileAndKeepChunksWhole) {
  for (Case C : {Case{64, 64, 1, 128}, Case{128, 32, 1, 64}, Case{32, 16, 1, 32},
                 Case{64, 128, 0, 128}, Case{16, 256, 1, 128}}) {
    MmaSharedLayout L = MmaSharedLayout::make(C.Shape0, C.Shape1, C.ContigDim, 2);
    ASSERT_EQ(L.SwizzleBytes, C.SwizzleBytes);
    std::set<uint64_t> Seen;
    for (int64_t I0 = 0; I0 < C.Shape0; ++I0)
      for (int64_t I1 = 0; I1 < C.Shape1; ++I1) {
        uint64_t Off = L.offset(I0, I1);
        ASSERT_LT(Off, L.bytes());
        ASSERT_TRUE(Seen.insert(Off).second) << "two elements at byte " << Off;
        // The next element along the contiguous dimension inside the same 16-byte chunk follows it.
        int64_t Contig = C.ContigDim == 0 ? I0 : I1;
        if (Contig % 8 != 7 && Contig + 1 < L.ContigExtent) {
          uint64_t Next = C.ContigDim == 0 ? L.offset(I0 + 1, I1) : L.offset(I0, I1 + 1);
          ASSERT_EQ(Next, Off + 2);
        }
      }
    EXPECT_EQ(Seen.size(), L.bytes() / 2);
  }
}

TEST(MmaSharedLayout, EightRowsOfAChunkHitDistinctBankGroups) {
  // 128-byte swizzle: chunk c of rows r..r+7 (r a multiple of 8) lands in 8 different 16-byte
  // positions of the 128-byte bank window, so 8 threads reading 16 bytes each do not conflict.
  MmaSharedLayout L = MmaSharedLayout::make(64, 64, 1, 2);
  for (int64_t R0 = 0; R0 < 64; R0 += 8)
    for (int64_t Chunk = 0; Chunk < 8; ++Chunk) {
      std::set<uint64_t> Positions;
      for (int64_t R = R0; R < R0 + 8; ++R)
        Positions.insert(L.offset(R, Chunk * 8) % 128 / 16);
      EXPECT_EQ(Positions.size(), 8u) << "rows " << R0 << "+, chunk " << Chunk;
    }
}

TEST(MmaSharedLayout, DescriptorFieldsFollowTheCanonicalLayouts) {
  // K-major A [128, 64]: 8-row atoms of 1024 B one after the other (SBO); one column block.
  MmaSharedLayout KMajor = MmaSharedLayout::make(128, 64, 1, 2);
  EXPECT_EQ(KMajor.descriptorMode(), 1u);
  EXPECT_EQ(KMajor.strideByteOffset(), 1024u);
  // N-major B [64, 256]: column blocks of 64 halfs, each 64 rows of 128 B (LBO = 8 KB apart).
  MmaSharedLayout NMajor = MmaSharedLayout::make(64, 256, 1, 2);
  EXPECT_EQ(NMajor.leadingByteOffset(), 64u * 128u);
  EXPECT_EQ(NMajor.linearOffset(0, 64), 64u * 128u); // first element of the second block
  EXPECT_EQ(NMajor.linearOffset(8, 0), 1024u);       // second 8-row group of the first block
  EXPECT_EQ(MmaSharedLayout::make(64, 32, 1, 2).descriptorMode(), 2u);
  EXPECT_EQ(MmaSharedLayout::make(64, 16, 1, 2).descriptorMode(), 3u);
  // Instruction slices start on atom rows, where the swizzle changes nothing: the descriptor's
  // start address is the unswizzled offset.
  for (int64_t Row = 0; Row < 128; Row += 8)
    for (int64_t K = 0; K < 64; K += 16)
      EXPECT_EQ(KMajor.swizzle(KMajor.linearOffset(Row, K)), KMajor.linearOffset(Row, K));
}

TEST(MmaSharedLayout, IrSwizzleModesAreTheseLayouts) {
  // docs/IR.md: `#shared<swizzle=S>` is the hardware's layout, rows of S bytes swizzled in place
  // and wider rows as column blocks of S bytes. What the emitter addresses through the IR's
  // linear layout (cp_async, local_load) must be what wgmma's descriptors read (this layout).
  using tritonc::ir::Layout;
  using tritonc::ir::Type;
  for (Case C :
       {Case{64, 64, 1, 128}, Case{128, 32, 1, 64}, Case{32, 16, 1, 32}, Case{64, 128, 0, 128},
        Case{64, 256, 1, 128}, Case{32, 128, 1, 64}, Case{16, 64, 1, 32}, Case{256, 16, 0, 128}}) {
    std::vector<unsigned> Order = {C.ContigDim, 1 - C.ContigDim};
    const Type *Slot =
        Type::getSharedBuffer(Type::getF16(), {C.Shape0, C.Shape1},
                              Layout::getSharedSwizzle(int32_t(C.SwizzleBytes), Order));
    std::optional<tritonc::analysis::LinearLayout> L = tritonc::analysis::toLinearLayout(Slot);
    ASSERT_TRUE(L.has_value());
    MmaSharedLayout M = MmaSharedLayout::make(C.Shape0, C.Shape1, C.ContigDim, 2);
    M.SwizzleBytes = C.SwizzleBytes;
    for (int32_t Offset = 0; Offset < C.Shape0 * C.Shape1; ++Offset) {
      std::vector<int32_t> Coords = L->apply(std::vector<int32_t>{Offset});
      ASSERT_EQ(M.offset(Coords[0], Coords[1]), uint64_t(Offset) * 2)
          << C.Shape0 << "x" << C.Shape1 << " swizzle " << C.SwizzleBytes << ": element ("
          << Coords[0] << ", " << Coords[1] << ")";
    }
  }
}
